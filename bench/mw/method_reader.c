/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/method_reader.c - perfring bench --writers LIST --reader: the
 * group's reader alone, against the single ring's batched reader, in one
 * run.  For each writer count W, a group of W rings (the run's capacity
 * split between them, as in the many-writer runs) is filled to the brim
 * from this thread with 8-byte messages (16-byte records), then drained
 * once by pfr_group_drain() or by pfr_group_consume(); one ring of the
 * whole capacity, filled with the same number of records, is drained by
 * pfr_reader_consume().  The same callback checks every record (its
 * writer tag, its sequence number against that writer's, its sum) in
 * all three.  Rounds interleave the three; each figure is the median over
 * the rounds of records per second while draining.  One thread on one
 * CPU, the records in its cache: this is the reader's own cost per record
 * (the cross-CPU misses of a live run come on top), which is what bounds
 * a group whose writers outrun its reader.  The drain functions are not
 * inlined into their callers, so that an instruction count
 * (valgrind --tool=callgrind --toggle-collect='mw_rd_*') covers the
 * reader only; mw_wr_fill_group() is the writers' side (one
 * pfr_writer_write() per record, from one thread).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/group.h>
#include <perfring/ring.h>

#include "../../util/util.h"
#include "../core/cmd_opts.h"
#include "cmd.h"

#define RD_ROUNDS_MAX 64
#define RD_TYPE 1u

struct rd_check {
	uint64_t next[PFR_MW_MAX_WRITERS];
	uint64_t n, bad;
};

/* External, not inlined: the names callgrind counts by. */
struct rd_setup;
uint64_t mw_wr_fill_group(struct rd_setup *s);
int64_t mw_rd_drain(struct pfr_group *g, struct rd_check *c);
int64_t mw_rd_consume(struct pfr_group *g, struct rd_check *c);
int64_t mw_rd_ring(struct pfr_reader *r, struct rd_check *c);

/* The check every reader runs per record: tag, order, sum. */
static inline void rd_check_rec(struct rd_check *c, uint32_t type,
				const void *p, uint32_t len)
{
	uint64_t v[1];
	unsigned w;

	memcpy(v, p, 8);
	w = (unsigned)(v[0] >> PFR_MW_SEQ_BITS);
	if (__builtin_expect(type != RD_TYPE || len != 8 ||
				     w >= PFR_MW_MAX_WRITERS ||
				     (v[0] & ((1ull << PFR_MW_SEQ_BITS) - 1)) !=
					     c->next[w],
			     0)) {
		c->bad++;
		return;
	}
	c->next[w]++;
	c->n++;
}

static int rd_group_fn(void *arg, const struct pfr_group_rec *r)
{
	rd_check_rec((struct rd_check *)arg, r->hdr.type, r->payload, r->len);
	return 0;
}

static int rd_ring_fn(void *ctx, const struct pfr_record *r)
{
	rd_check_rec((struct rd_check *)ctx, r->hdr.type, r->payload, r->len);
	return 0;
}

/* The three readers, each one full pass (not inlined: callgrind). */
__attribute__((noinline)) int64_t mw_rd_drain(struct pfr_group *g,
					      struct rd_check *c)
{
	return pfr_group_drain(g, rd_group_fn, c, 0);
}

__attribute__((noinline)) int64_t mw_rd_consume(struct pfr_group *g,
						struct rd_check *c)
{
	return pfr_group_consume(g, rd_group_fn, c, 0);
}

__attribute__((noinline)) int64_t mw_rd_ring(struct pfr_reader *r,
					     struct rd_check *c)
{
	int64_t n;

	if (pfr_reader_begin(r) < 0)
		return -1;
	n = pfr_reader_consume(r, rd_ring_fn, c, 0);
	pfr_reader_end(r);
	return n;
}

struct rd_setup {
	struct pfr_group *g;
	struct pfr_writer w[PFR_MW_MAX_WRITERS];
	uint64_t seq[PFR_MW_MAX_WRITERS];
	struct pfr_ring *ring;
	struct pfr_writer rw;
	struct pfr_reader rr;
	uint64_t rseq[PFR_MW_MAX_WRITERS];
	unsigned writers;
	uint64_t per_ring; /* records a group ring holds */
};

/* Fills every group ring to the brim (the writer's path, one
 * pfr_writer_write() per record; not inlined: callgrind counts it too);
 * returns the records written. */
__attribute__((noinline)) uint64_t mw_wr_fill_group(struct rd_setup *s)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < s->writers; i++)
		for (uint64_t k = 0; k < s->per_ring; k++) {
			uint64_t v = PFR_MW_TAG(i, s->seq[i]);

			if (pfr_writer_write(&s->w[i], RD_TYPE, &v, 8))
				break;
			s->seq[i]++;
			n++;
		}
	return n;
}

/* Fills the single ring with `total` records, tagged round robin as W
 * writers' would be. */
static uint64_t rd_fill_ring(struct rd_setup *s, uint64_t total)
{
	uint64_t n = 0;

	for (; n < total; n++) {
		unsigned i = (unsigned)(n % s->writers);
		uint64_t v = PFR_MW_TAG(i, s->rseq[i]);

		if (pfr_writer_write(&s->rw, RD_TYPE, &v, 8))
			break;
		s->rseq[i]++;
	}
	return n;
}

static int rd_open(struct rd_setup *s, unsigned writers, size_t capacity)
{
	struct pfr_group_opts o;
	struct pfr_ring_opts ro;
	size_t per = bench_pow2_floor(capacity / writers);

	memset(s, 0, sizeof(*s));
	s->writers = writers;
	if (per < 4096)
		per = 4096;
	memset(&o, 0, sizeof(o));
	o.slots = writers;
	o.data_size = per;
	o.policy = PFR_POLICY_DROP;
	o.ordering = PFR_ORDER_ACQREL;
	memset(&ro, 0, sizeof(ro));
	ro.sz = sizeof(ro);
	/* the ring holds every record of the group's rings: the power of
	 * two at or above their bytes */
	ro.data_size = bench_pow2_floor(per * writers);
	if (ro.data_size < per * writers)
		ro.data_size *= 2;
	ro.policy = PFR_POLICY_DROP;
	ro.ordering = PFR_ORDER_ACQREL;
	if (pfr_group_create(&s->g, &o))
		return -1;
	if (pfr_ring_create(&s->ring, &ro) ||
	    pfr_ring_writer(s->ring, &s->rw) ||
	    pfr_ring_reader(s->ring, &s->rr) ||
	    pfr_group_reader_open(s->g, 0, NULL, NULL))
		return -1;
	for (unsigned i = 0; i < writers; i++)
		if (pfr_group_join(s->g, &s->w[i], i) < 0)
			return -1;
	/* records a ring takes at once, one to spare (a write that does
	 * not fit would be counted lost, and a LOST record follow) */
	s->per_ring = per / 16 - 1;
	return 0;
}

static void rd_close(struct rd_setup *s)
{
	if (s->g)
		pfr_group_close(s->g);
	if (s->ring)
		pfr_ring_close(s->ring);
}

struct rd_result {
	unsigned writers;
	double mps[3]; /* drain, consume, ring: M records/s, median */
	double lo[3], hi[3];
	uint64_t records, bad;
	int failed;
};

/* One round of one reader: fills, times one drain; records/s, or -1. */
static double rd_round(struct rd_setup *s, struct rd_check *c, int which,
		       uint64_t *total)
{
	uint64_t n, t0, t1;
	int64_t got;

	n = which == 2 ? rd_fill_ring(s, s->per_ring * s->writers)
		       : mw_wr_fill_group(s);
	t0 = bench_now_ns();
	got = which == 0   ? mw_rd_drain(s->g, c)
	      : which == 1 ? mw_rd_consume(s->g, c)
			   : mw_rd_ring(&s->rr, c);
	t1 = bench_now_ns();
	if (got < 0 || (uint64_t)got != n || t1 <= t0)
		return -1;
	*total += n;
	return (double)n * 1e3 / (double)(t1 - t0);
}

static void rd_cell(unsigned writers, const struct mw_opts *op,
		    struct rd_result *res)
{
	static double v[3][RD_ROUNDS_MAX];
	struct rd_setup *s = calloc(1, sizeof(*s));
	/* the group's records (drain, consume) and the ring's */
	struct rd_check cg, cr;
	int rounds = op->quick ? 5 : 9 + 4 * op->reps;

	memset(res, 0, sizeof(*res));
	memset(&cg, 0, sizeof(cg));
	memset(&cr, 0, sizeof(cr));
	res->writers = writers;
	if (rounds > RD_ROUNDS_MAX)
		rounds = RD_ROUNDS_MAX;
	if (!s || rd_open(s, writers, op->capacity)) {
		res->failed = 1;
		if (s)
			rd_close(s);
		free(s);
		return;
	}
	for (int r = 0; r < rounds && !res->failed; r++)
		for (int k = 0; k < 3; k++) {
			v[k][r] = rd_round(s, k == 2 ? &cr : &cg, k,
					   &res->records);
			if (v[k][r] < 0)
				res->failed = 1;
		}
	res->bad = cg.bad + cr.bad;
	if (res->bad)
		res->failed = 1;
	for (int k = 0; k < 3 && !res->failed; k++)
		res->mps[k] =
			bench_median(v[k], rounds, &res->lo[k], &res->hi[k]);
	rd_close(s);
	free(s);
}

int mw_reader_only(const struct mw_opts *op)
{
	static const char *const name[3] = {"group drain", "group consume",
					    "ring consume"};
	int rc = 0;

	if (op->json) {
		char cpu[256];

		bench_cpu_model(cpu, sizeof(cpu));
		printf("{\"kind\":\"meta\",\"bench\":\"writers-reader\","
		       "\"cpu\":");
		util_json_str(stdout, cpu);
		printf(",\"placement\":\"reader alone: one thread on one "
		       "CPU, the rings filled from it (in its cache)\","
		       "\"payload\":8,\"capacity\":%zu,\"quick\":%s,"
		       "\"compiler\":",
		       op->capacity, op->quick ? "true" : "false");
		util_json_str(stdout, util_compiler());
		printf("}\n");
	} else {
		printf("perfring bench --writers --reader: the reader alone, "
		       "one thread on one CPU, rings filled from it (in its "
		       "cache); 8-byte messages (16-byte records); capacity "
		       "%zu KiB in all\n\n%7s %14s %14s %14s %9s %9s\n",
		       op->capacity / 1024, "writers", "drain M/s",
		       "consume M/s", "ring M/s", "cons/ring", "drain/ring");
	}
	for (int i = 0; i < op->nw; i++) {
		struct rd_result r;

		util_progress("perfring bench --writers --reader",
			      (double)i / op->nw, 0);
		rd_cell(op->wcount[i], op, &r);
		if (r.failed) {
			fprintf(op->json ? stderr : stdout,
				"%7u FAILED (%llu bad records)\n", r.writers,
				(unsigned long long)r.bad);
			rc = 1;
			continue;
		}
		if (op->json) {
			printf("{\"kind\":\"reader\",\"writers\":%u,"
			       "\"payload\":8,\"records\":%llu,"
			       "\"placement\":\"reader alone, one CPU\"",
			       r.writers, (unsigned long long)r.records);
			for (int k = 0; k < 3; k++)
				printf(",\"%s\":{\"mps\":%.0f,\"min\":%.0f,"
				       "\"max\":%.0f}",
				       name[k], r.mps[k] * 1e6, r.lo[k] * 1e6,
				       r.hi[k] * 1e6);
			printf(",\"consume_over_ring\":%.3f,"
			       "\"drain_over_ring\":%.3f}\n",
			       r.mps[1] / r.mps[2], r.mps[0] / r.mps[2]);
		} else {
			printf("%7u %14.1f %14.1f %14.1f %8.2fx %8.2fx\n",
			       r.writers, r.mps[0], r.mps[1], r.mps[2],
			       r.mps[1] / r.mps[2], r.mps[0] / r.mps[2]);
		}
	}
	util_progress("perfring bench --writers --reader", 1, 1);
	return rc;
}
