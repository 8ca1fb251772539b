/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/perfring.c - perfring's contestants in the multi-writer bench.
 *
 * group: one ring per writer (<perfring/group.h>), ACQREL, BLOCK, no
 * sleeping (the reader polls, as every peer's reader does).  The run's
 * capacity is split between the writers: each ring gets the largest power
 * of two of capacity / writers bytes (at least 4 KiB).  A writer joins
 * (one CAS), writes each message as one record with pfr_writer_write()
 * (copy in, publish) and leaves; "batch" commits up to run->batch records
 * with pfr_writer_write_deferred() and publishes them at once.  The reader
 * drains every ring once per pfr_group_drain() call, unordered, and checks
 * each record in place in the callback; "consume" writes as the plain
 * group does and reads with the batched reader, pfr_group_consume() (each
 * ring's batch through pfr_reader_consume(), the callback inlined).
 * mpsc: one shared ring (<perfring/mpsc.h>) of the run's capacity, BLOCK:
 * each writer joins, writes each message with pfr_mpsc_write() (reserve
 * with one CAS on the producer position, copy, commit) and leaves; the
 * reader takes batches with pfr_mpsc_begin/next/end and checks each
 * record in place; "burst" writes up to run->batch messages per
 * pfr_mpsc_write_burst() (one CAS for the stretch; the size mix goes one
 * by one).
 * Both keep each writer's order, and both run between processes (private
 * shared memory, inherited over fork).
 */
#include <stdlib.h>
#include <string.h>

#include "mw.h"

#if defined(__has_include)
#if __has_include(<perfring/group.h>)
#define PFR_MW_HAVE_GROUP 1
#endif
#if __has_include(<perfring/mpsc.h>)
#define PFR_MW_HAVE_MPSC 1
#endif
#endif

#define MW_TYPE 1u
#define MW_TIMEOUT_NS 10000000000ull /* BLOCK: a writer gives up after */

#if defined(PFR_MW_HAVE_GROUP) || defined(PFR_MW_HAVE_MPSC)
/* A ring's data size for cap bytes: the power of two at or below it, at
 * least 4096. */
static size_t data_size(size_t cap)
{
	size_t p = bench_pow2_floor(cap);

	return p < 4096 ? 4096 : p;
}

/* A writer's result: what it sent, and its error if any. */
static void writer_end(struct bench_mw_writer *me, uint64_t sent, int err)
{
	me->sent = sent;
	if (err)
		me->error = err;
}

/* A received record: verified if it is a well-formed message, else
 * counted bad. */
static void got_rec(struct bench_mw_run *run, uint32_t type, const void *p,
		    uint32_t len)
{
	if (__builtin_expect(type != MW_TYPE || (len & 7) || !len, 0)) {
		if (!run->bad++)
			run->bad_tag = ~0ull;
		return;
	}
	bench_mw_got(run, p, len / 8);
}
#endif

#ifdef PFR_MW_HAVE_GROUP
#include <perfring/group.h>

static int gr_setup(struct bench_mw_run *run, void **qp)
{
	struct pfr_group_opts o;
	struct pfr_group *g;

	memset(&o, 0, sizeof(o));
	o.slots = run->writers;
	o.data_size = data_size(run->capacity / run->writers);
	o.policy = PFR_POLICY_BLOCK;
	o.ordering = PFR_ORDER_ACQREL;
	if (pfr_group_create(&g, &o))
		return -1;
	*qp = g;
	return 0;
}

static void gr_teardown(void *q, struct bench_mw_run *run)
{
	(void)run;
	pfr_group_close((struct pfr_group *)q);
}

static void gr_produce_any(void *q, struct bench_mw_run *run, unsigned w,
			   int batch)
{
	struct pfr_group *g = (struct pfr_group *)q;
	struct bench_mw_writer *me = &run->w[w];
	uint64_t *m = bench_mw_msgs(run, me, 1);
	struct pfr_writer wr;
	uint64_t seq;
	unsigned k = 0;
	int err = 0;

	if (!m || pfr_group_join(g, &wr, w) < 0) {
		me->error = -1;
		free(m);
		return;
	}
	pfr_writer_set_timeout(&wr, MW_TIMEOUT_NS);
	for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
		size_t words = bench_mw_len(run, seq);

		bench_mw_stamp(m, words, w, seq);
		if (!batch) {
			err = pfr_writer_write(&wr, MW_TYPE, m, words * 8);
		} else {
			err = pfr_writer_write_deferred(&wr, MW_TYPE, m,
							words * 8);
			if (++k == run->batch) {
				pfr_writer_publish(&wr);
				k = 0;
			}
		}
		bench_mw_unstamp(m, words, run);
		if (__builtin_expect(err != 0, 0))
			break;
	}
	if (batch)
		pfr_writer_publish(&wr);
	writer_end(me, seq, err);
	pfr_group_leave(g, &wr);
	free(m);
}

static void gr_produce(void *q, struct bench_mw_run *run, unsigned w)
{
	gr_produce_any(q, run, w, 0);
}

static void gr_produce_batch(void *q, struct bench_mw_run *run, unsigned w)
{
	gr_produce_any(q, run, w, 1);
}

static int gr_got(void *arg, const struct pfr_group_rec *rec)
{
	got_rec((struct bench_mw_run *)arg, rec->hdr.type, rec->payload,
		rec->len);
	return 0;
}

static void gr_consume_any(void *q, struct bench_mw_run *run, int batched)
{
	struct pfr_group *g = (struct pfr_group *)q;
	unsigned spins = 0;

	if (pfr_group_reader_open(g, 0, NULL, NULL)) {
		run->error = -1;
		return;
	}
	while (bench_mw_more(run)) {
		int64_t k = batched ? pfr_group_consume(g, gr_got, run, 0)
				    : pfr_group_drain(g, gr_got, run, 0);

		if (k < 0) {
			run->error = (int)k;
			break;
		}
		if (!k) {
			if (bench_mw_empty(run))
				break;
			bench_mw_rpause(run, &spins);
		}
	}
	bench_mw_done(run);
	pfr_group_reader_close(g);
}

static void gr_consume(void *q, struct bench_mw_run *run)
{
	gr_consume_any(q, run, 0);
}

static void gr_consume_batched(void *q, struct bench_mw_run *run)
{
	gr_consume_any(q, run, 1);
}
#endif

#ifdef PFR_MW_HAVE_MPSC
#include <perfring/mpsc.h>

static int mp_setup(struct bench_mw_run *run, void **qp)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m;

	memset(&o, 0, sizeof(o));
	o.data_size = data_size(run->capacity);
	o.policy = PFR_POLICY_BLOCK;
	o.max_producers = run->writers;
	if (pfr_mpsc_create(&m, &o))
		return -1;
	*qp = m;
	return 0;
}

static void mp_teardown(void *q, struct bench_mw_run *run)
{
	(void)run;
	pfr_mpsc_close((struct pfr_mpsc *)q);
}

static void mp_produce(void *q, struct bench_mw_run *run, unsigned w)
{
	struct pfr_mpsc *mq = (struct pfr_mpsc *)q;
	struct bench_mw_writer *me = &run->w[w];
	uint64_t *m = bench_mw_msgs(run, me, 1);
	struct pfr_mpsc_producer p;
	uint64_t seq;
	int err = 0;

	if (!m || pfr_mpsc_producer_join(mq, &p) < 0) {
		me->error = -1;
		free(m);
		return;
	}
	pfr_mpsc_set_timeout(&p, MW_TIMEOUT_NS);
	for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
		size_t words = bench_mw_len(run, seq);

		bench_mw_stamp(m, words, w, seq);
		err = pfr_mpsc_write(&p, MW_TYPE, m, words * 8);
		bench_mw_unstamp(m, words, run);
		if (__builtin_expect(err != 0, 0))
			break;
	}
	writer_end(me, seq, err);
	pfr_mpsc_producer_leave(&p);
	free(m);
}

/* Up to run->batch messages per pfr_mpsc_write_burst() (one CAS on the
 * producer position); the size mix, whose lengths differ, goes one by one. */
static void mp_produce_burst(void *q, struct bench_mw_run *run, unsigned w)
{
	struct pfr_mpsc *mq = (struct pfr_mpsc *)q;
	struct bench_mw_writer *me = &run->w[w];
	unsigned b = run->batch > 1 ? run->batch : 1;
	size_t sw = run->slot / 8;
	uint64_t *m = bench_mw_msgs(run, me, b);
	struct pfr_mpsc_producer p;
	uint64_t seq;
	int err = 0;

	if (!m || pfr_mpsc_producer_join(mq, &p) < 0) {
		me->error = -1;
		free(m);
		return;
	}
	pfr_mpsc_set_timeout(&p, MW_TIMEOUT_NS);
	for (seq = 0; !err && bench_mw_wmore(run, me, seq);) {
		unsigned k = me->n - seq < b ? (unsigned)(me->n - seq) : b;

		for (unsigned i = 0; i < k; i++)
			bench_mw_stamp(m + i * sw, bench_mw_len(run, seq + i),
				       w, seq + i);
		if (run->payload != PFR_MW_MIX) {
			err = pfr_mpsc_write_burst(&p, MW_TYPE, m, run->slot,
						   k);
		} else {
			for (unsigned i = 0; i < k && !err; i++)
				err = pfr_mpsc_write(
					&p, MW_TYPE, m + i * sw,
					bench_mw_len(run, seq + i) * 8);
		}
		for (unsigned i = 0; i < k; i++)
			bench_mw_unstamp(m + i * sw, bench_mw_len(run, seq + i),
					 run);
		if (!err)
			seq += k;
	}
	writer_end(me, seq, err);
	pfr_mpsc_producer_leave(&p);
	free(m);
}

static void mp_consume(void *q, struct bench_mw_run *run)
{
	struct pfr_mpsc *mq = (struct pfr_mpsc *)q;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	unsigned spins = 0;

	if (pfr_mpsc_reader_open(mq, &r)) {
		run->error = -1;
		return;
	}
	/* a preempted writer holds a record for as long as it is off its
	 * CPU: not a failure here */
	pfr_mpsc_set_stall(&r, MW_TIMEOUT_NS);
	while (bench_mw_more(run)) {
		int64_t avail = pfr_mpsc_begin(&r);
		int rc, got = 0;

		if (avail < 0) {
			run->error = (int)avail;
			break;
		}
		while ((rc = pfr_mpsc_next(&r, &rec)) == 1) {
			got_rec(run, rec.hdr.type, rec.payload, rec.len);
			got = 1;
		}
		pfr_mpsc_end(&r);
		if (rc < 0 && rc != -PFR_E_STALLED) {
			run->error = rc;
			break;
		}
		if (!got) {
			if (bench_mw_empty(run))
				break;
			bench_mw_rpause(run, &spins);
		}
	}
	bench_mw_done(run);
	pfr_mpsc_reader_close(&r);
}
#endif

const struct bench_mw_queue bench_mw_perfring[] = {
#ifdef PFR_MW_HAVE_GROUP
	{"perfring group", "", PFR_MW_KIND_GROUP, 1, gr_setup, gr_produce,
	 gr_consume, gr_teardown},
	{"perfring group", "batch", PFR_MW_KIND_OTHER, 1, gr_setup,
	 gr_produce_batch, gr_consume, gr_teardown},
	{"perfring group", "consume", PFR_MW_KIND_GROUP, 1, gr_setup,
	 gr_produce, gr_consume_batched, gr_teardown},
#endif
#ifdef PFR_MW_HAVE_MPSC
	{"perfring mpsc", "", PFR_MW_KIND_MPSC, 1, mp_setup, mp_produce,
	 mp_consume, mp_teardown},
	{"perfring mpsc", "burst", PFR_MW_KIND_OTHER, 1, mp_setup,
	 mp_produce_burst, mp_consume, mp_teardown},
#endif
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
