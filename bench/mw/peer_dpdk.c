/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/peer_dpdk.c - DPDK's rte_ring (Debian libdpdk-dev) with many
 * producers and one consumer (RING_F_SC_DEQ only: enqueue is MP, a CAS on
 * prod.head, then each producer waits for prod.tail to reach its start),
 * initialised with rte_ring_init() on our own memory (no EAL).  The _elem
 * API carries the whole message in each slot.  Single: one enqueue per
 * message; burst: rte_ring_mp_enqueue_burst_elem of up to run->batch.  The
 * consumer dequeues bursts of up to run->batch in both.  Slots: the largest
 * power of two of run->slot-byte slots that fits run->capacity.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "mw.h"

struct rq {
	struct rte_ring *r;
	size_t size;
};

static int rq_setup(struct bench_mw_run *run, void **qp)
{
	size_t slots = bench_pow2_floor(run->capacity / run->slot);
	ssize_t sz;
	struct rq *q;

	if (slots < 4 || run->slot % 4)
		return -1;
	sz = rte_ring_get_memsize_elem((unsigned)run->slot, (unsigned)slots);
	if (sz <= 0)
		return -1;
	q = (struct rq *)calloc(1, sizeof(*q));
	if (!q)
		return -1;
	q->size = (size_t)sz;
	q->r = (struct rte_ring *)bench_mw_alloc(run, q->size);
	if (!q->r || rte_ring_init(q->r, "perfring-mw", (unsigned)slots,
				   RING_F_SC_DEQ)) {
		bench_mw_free(run, q->r, q->size);
		free(q);
		return -1;
	}
	*qp = q;
	return 0;
}

static void rq_teardown(void *p, struct bench_mw_run *run)
{
	struct rq *q = (struct rq *)p;

	bench_mw_free(run, q->r, q->size);
	free(q);
}

static void rq_produce(void *p, struct bench_mw_run *run, unsigned w)
{
	struct rte_ring *r = ((struct rq *)p)->r;
	struct bench_mw_writer *me = &run->w[w];
	unsigned es = (unsigned)run->slot;
	uint64_t *m = bench_mw_msgs(run, me, 1);
	unsigned spins = 0;
	uint64_t seq;

	if (!m)
		return;
	for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
		size_t words = bench_mw_len(run, seq);

		bench_mw_stamp(m, words, w, seq);
		while (rte_ring_mp_enqueue_elem(r, m, es))
			bench_mw_pause(&spins);
		bench_mw_unstamp(m, words, run);
	}
	me->sent = seq;
	free(m);
}

static void rq_produce_burst(void *p, struct bench_mw_run *run, unsigned w)
{
	struct rte_ring *r = ((struct rq *)p)->r;
	struct bench_mw_writer *me = &run->w[w];
	unsigned es = (unsigned)run->slot, b = run->batch;
	size_t sw = run->slot / 8;
	uint64_t *m = bench_mw_msgs(run, me, b);
	unsigned spins = 0;
	uint64_t seq;

	if (!m)
		return;
	for (seq = 0; bench_mw_wmore(run, me, seq);) {
		unsigned k = me->n - seq < b ? (unsigned)(me->n - seq) : b,
			 done = 0;

		for (unsigned i = 0; i < k; i++)
			bench_mw_stamp(m + i * sw, bench_mw_len(run, seq + i),
				       w, seq + i);
		while (done < k) {
			unsigned x = rte_ring_mp_enqueue_burst_elem(
				r, m + done * sw, es, k - done, NULL);

			if (!x)
				bench_mw_pause(&spins);
			done += x;
		}
		for (unsigned i = 0; i < k; i++)
			bench_mw_unstamp(m + i * sw, bench_mw_len(run, seq + i),
					 run);
		seq += k;
	}
	me->sent = seq;
	free(m);
}

static void rq_consume(void *p, struct bench_mw_run *run)
{
	struct rte_ring *r = ((struct rq *)p)->r;
	unsigned es = (unsigned)run->slot, b = run->batch;
	size_t sw = run->slot / 8;
	uint64_t *m = (uint64_t *)bench_alloc(64, b * run->slot);
	unsigned spins = 0;

	if (!m) {
		run->error = -1;
		return;
	}
	while (bench_mw_more(run)) {
		unsigned k = rte_ring_sc_dequeue_burst_elem(r, m, es, b, NULL);

		if (!k) {
			if (bench_mw_empty(run))
				break;
			bench_mw_rpause(run, &spins);
			continue;
		}
		for (unsigned i = 0; i < k; i++)
			bench_mw_got(run, m + i * sw, 0);
	}
	bench_mw_done(run);
	free(m);
}

const struct bench_mw_queue bench_mw_dpdk[] = {
	{"rte_ring", "mp", PFR_MW_KIND_SHARED, 1, rq_setup, rq_produce,
	 rq_consume, rq_teardown},
	{"rte_ring", "mp burst", PFR_MW_KIND_OTHER, 1, rq_setup,
	 rq_produce_burst, rq_consume, rq_teardown},
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
