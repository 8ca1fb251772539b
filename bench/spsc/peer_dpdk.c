/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/peer_dpdk.c - DPDK's rte_ring (Debian libdpdk-dev), single producer
 * and single consumer, initialised with rte_ring_init() on our own memory
 * (no EAL, no hugepages).  The _elem API carries the whole message in each
 * slot (esize = payload).  Single: one enqueue / dequeue per message.
 * Burst: rte_ring_sp_enqueue_burst_elem / sc_dequeue_burst_elem of up to
 * run->batch messages.  Dequeue burst: one enqueue per message, dequeues
 * of up to the reader's batch (the library's fast form on the reader's
 * side, as perfring's reader drains a batch per load of head).  Slots: the largest power of two of payload-sized
 * slots that fits the run's capacity (rte_ring uses one less).
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "../core/bench.h"

static int rq_setup(struct bench_run *run, void **qp)
{
	size_t slots = bench_pow2_floor(run->capacity / run->payload);
	ssize_t sz;
	struct rte_ring *r;

	if (slots < 4 || run->payload % 4)
		return -1;
	sz = rte_ring_get_memsize_elem((unsigned)run->payload, (unsigned)slots);
	if (sz <= 0)
		return -1;
	r = (struct rte_ring *)bench_alloc(128, (size_t)sz);
	if (!r)
		return -1;
	memset(r, 0, (size_t)sz);
	if (rte_ring_init(r, "perfring-bench", (unsigned)slots,
			  RING_F_SP_ENQ | RING_F_SC_DEQ)) {
		free(r);
		return -1;
	}
	*qp = r;
	return 0;
}

static void rq_teardown(void *p)
{
	free(p);
}

static inline __attribute__((always_inline)) void
rq_produce_body(struct rte_ring *r, struct bench_run *run, size_t esize,
		int burst)
{
	size_t words = esize / 8;
	unsigned b = burst ? run->batch : 1;
	uint64_t *m = (uint64_t *)bench_alloc(64, b * esize);

	if (!m) {
		run->error = -1;
		return;
	}
	for (unsigned i = 0; i < b; i++)
		memcpy((char *)m + i * esize, run->msg, esize);
	if (!burst) {
		for (uint64_t seq = 0; seq < run->n; seq++) {
			pfr__payload_stamp_ends(m, words, seq);
			while (rte_ring_sp_enqueue_elem(r, m, (unsigned)esize))
				pfr_cpu_relax();
		}
	} else {
		for (uint64_t seq = 0; seq < run->n;) {
			unsigned k = run->n - seq < b ? (unsigned)(run->n - seq)
						      : b,
				 done = 0;

			for (unsigned i = 0; i < k; i++)
				pfr__payload_stamp_ends(m + i * words, words,
							seq + i);
			while (done < k) {
				unsigned e = rte_ring_sp_enqueue_burst_elem(
					r, (char *)m + done * esize,
					(unsigned)esize, k - done, NULL);

				if (!e)
					pfr_cpu_relax();
				done += e;
			}
			seq += k;
		}
	}
	free(m);
}

static inline __attribute__((always_inline)) void
rq_consume_body(struct rte_ring *r, struct bench_run *run, size_t esize,
		int burst)
{
	/* the reader's batch: the burst row's batch, or, for the row that
	 * enqueues one message at a time, what perfring's reader drains */
	unsigned b = burst && run->rbatch > 1 ? run->rbatch : 1;
	uint64_t *m = (uint64_t *)bench_alloc(64, b * esize);

	if (!m) {
		run->error = -1;
		return;
	}
	if (b == 1) {
		for (uint64_t seq = 0; seq < run->n; seq++) {
			while (rte_ring_sc_dequeue_elem(r, m, (unsigned)esize))
				pfr_cpu_relax();
			bench_got(run, m, seq, esize / 8);
		}
	} else {
		for (uint64_t seq = 0; seq < run->n;) {
			unsigned k = rte_ring_sc_dequeue_burst_elem(
				r, m, (unsigned)esize, b, NULL);

			if (!k) {
				pfr_cpu_relax();
				continue;
			}
			for (unsigned i = 0; i < k; i++)
				bench_got(run, (char *)m + i * esize, seq + i,
					  esize / 8);
			seq += k;
		}
	}
	bench_done(run);
	free(m);
}

#define RQ_SIZES(X) X(8) X(64) X(256) X(1024) X(4096) X(65520)
#define RQ_CASE(N, fn, burst)                                                  \
	case N:                                                                \
		fn((struct rte_ring *)p, run, N, burst);                       \
		break;
#define RQ_P1(N) RQ_CASE(N, rq_produce_body, 0)
#define RQ_PB(N) RQ_CASE(N, rq_produce_body, 1)
#define RQ_C1(N) RQ_CASE(N, rq_consume_body, 0)
#define RQ_CB(N) RQ_CASE(N, rq_consume_body, 1)

static void rq_produce1(void *p, struct bench_run *run)
{
	switch (run->payload) {
		RQ_SIZES(RQ_P1)
	default:
		rq_produce_body((struct rte_ring *)p, run, run->payload, 0);
	}
}

static void rq_produceb(void *p, struct bench_run *run)
{
	switch (run->payload) {
		RQ_SIZES(RQ_PB)
	default:
		rq_produce_body((struct rte_ring *)p, run, run->payload, 1);
	}
}

static void rq_consume1(void *p, struct bench_run *run)
{
	switch (run->payload) {
		RQ_SIZES(RQ_C1)
	default:
		rq_consume_body((struct rte_ring *)p, run, run->payload, 0);
	}
}

static void rq_consumeb(void *p, struct bench_run *run)
{
	switch (run->payload) {
		RQ_SIZES(RQ_CB)
	default:
		rq_consume_body((struct rte_ring *)p, run, run->payload, 1);
	}
}

const struct bench_queue bench_dpdk[] = {
	{"rte_ring", "", 0, rq_setup, rq_produce1, rq_consume1, rq_teardown,
	 NULL, -1, -1, 0, 0},
	{"rte_ring", "burst", 1, rq_setup, rq_produceb, rq_consumeb,
	 rq_teardown, NULL, -1, -1, 0, 0},
	{"rte_ring", "dequeue burst", 0, rq_setup, rq_produce1, rq_consumeb,
	 rq_teardown, NULL, -1, -1, 0, 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0}};
