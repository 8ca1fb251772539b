/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/peer_ck.c - Concurrency Kit's ck_ring (Debian libck-dev), SPSC,
 * through CK_RING_PROTOTYPE so that each slot holds one whole message of
 * the run's payload size (ck_ring has no batch API).  Slots: the largest
 * power of two of payload-sized slots that fits the run's capacity.
 */
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>

#include "../core/bench.h"

struct ckq {
	struct ck_ring ring;
	void *buf;
};

#define CK_SIZES(X) X(8) X(64) X(256) X(1024) X(4096) X(65520)

#define CK_DEF(N)                                                              \
	struct bench_ck_m##N {                                                 \
		uint64_t w[(N) / 8];                                           \
	};                                                                     \
	CK_RING_PROTOTYPE(m##N, bench_ck_m##N)                                 \
	static void ck_produce_##N(struct ckq *q, struct bench_run *run)       \
	{                                                                      \
		struct bench_ck_m##N m;                                        \
		struct bench_ck_m##N *b = (struct bench_ck_m##N *)q->buf;      \
		memcpy(&m, run->msg, N);                                       \
		for (uint64_t seq = 0; seq < run->n; seq++) {                  \
			pfr__payload_stamp_ends(m.w, (N) / 8, seq);            \
			while (!ck_ring_enqueue_spsc_m##N(&q->ring, b, &m))    \
				pfr_cpu_relax();                               \
		}                                                              \
	}                                                                      \
	static void ck_consume_##N(struct ckq *q, struct bench_run *run)       \
	{                                                                      \
		struct bench_ck_m##N m;                                        \
		struct bench_ck_m##N *b = (struct bench_ck_m##N *)q->buf;      \
		for (uint64_t seq = 0; seq < run->n; seq++) {                  \
			while (!ck_ring_dequeue_spsc_m##N(&q->ring, b, &m))    \
				pfr_cpu_relax();                               \
			bench_got(run, &m, seq, (N) / 8);                      \
		}                                                              \
		bench_done(run);                                               \
	}
CK_SIZES(CK_DEF)

static int ckq_setup(struct bench_run *run, void **qp)
{
	struct ckq *q;
	size_t slots = bench_pow2_floor(run->capacity / run->payload);

	if (bench_payload_index(run->payload) < 0 || slots < 2)
		return -1;
	q = (struct ckq *)bench_alloc(128, sizeof(*q));
	if (!q)
		return -1;
	q->buf = bench_alloc(128, slots * run->payload);
	if (!q->buf) {
		free(q);
		return -1;
	}
	memset(q->buf, 0, slots * run->payload);
	ck_ring_init(&q->ring, (unsigned int)slots);
	*qp = q;
	return 0;
}

static void ckq_teardown(void *p)
{
	struct ckq *q = (struct ckq *)p;

	free(q->buf);
	free(q);
}

#define CK_CASE_P(N)                                                           \
	case N:                                                                \
		ck_produce_##N(q, run);                                        \
		break;
#define CK_CASE_C(N)                                                           \
	case N:                                                                \
		ck_consume_##N(q, run);                                        \
		break;

static void ckq_produce(void *p, struct bench_run *run)
{
	struct ckq *q = (struct ckq *)p;

	switch (run->payload) {
		CK_SIZES(CK_CASE_P)
	default:
		run->error = -1;
	}
}

static void ckq_consume(void *p, struct bench_run *run)
{
	struct ckq *q = (struct ckq *)p;

	switch (run->payload) {
		CK_SIZES(CK_CASE_C)
	default:
		run->error = -1;
	}
}

const struct bench_queue bench_ck[] = {
	{"ck_ring", "", 0, ckq_setup, ckq_produce, ckq_consume, ckq_teardown,
	 NULL, -1, -1, 0, 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0}};
