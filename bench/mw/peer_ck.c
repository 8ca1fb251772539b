/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/peer_ck.c - Concurrency Kit's ck_ring (Debian libck-dev) in its
 * MPSC mode: ck_ring_enqueue_mpsc (a CAS on the producer index, then an
 * in-order commit) and ck_ring_dequeue_mpsc, through CK_RING_PROTOTYPE so
 * that each slot holds one whole message (8, 64 or 256 bytes: the mix
 * travels in 256-byte slots).  ck_ring has no batch API.  Slots: the
 * largest power of two of slots that fits run->capacity.
 */
#include <stdlib.h>
#include <string.h>

#include <ck_ring.h>

#include "mw.h"

struct ckq {
	struct ck_ring ring;
	void *buf;
	size_t size;
};

#define CK_SIZES(X) X(8) X(64) X(256)

#define CK_DEF(N)                                                              \
	struct bench_mwck_m##N {                                               \
		uint64_t w[(N) / 8];                                           \
	};                                                                     \
	CK_RING_PROTOTYPE(mw##N, bench_mwck_m##N)                              \
	static void ck_produce_##N(struct ckq *q, struct bench_mw_run *run,    \
				   unsigned w)                                 \
	{                                                                      \
		struct bench_mwck_m##N m;                                      \
		struct bench_mwck_m##N *b = (struct bench_mwck_m##N *)q->buf;  \
		struct bench_mw_writer *me = &run->w[w];                       \
		unsigned spins = 0;                                            \
		uint64_t seq;                                                  \
		memcpy(&m, run->msg, N);                                       \
		for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {           \
			size_t words = (N) == 8 ? 1 : bench_mw_len(run, seq);  \
			bench_mw_stamp(m.w, words, w, seq);                    \
			while (!ck_ring_enqueue_mpsc_mw##N(&q->ring, b, &m))   \
				bench_mw_pause(&spins);                        \
			bench_mw_unstamp(m.w, words, run);                     \
		}                                                              \
		me->sent = seq;                                                \
	}                                                                      \
	static void ck_consume_##N(struct ckq *q, struct bench_mw_run *run)    \
	{                                                                      \
		struct bench_mwck_m##N m;                                      \
		struct bench_mwck_m##N *b = (struct bench_mwck_m##N *)q->buf;  \
		unsigned spins = 0;                                            \
		while (bench_mw_more(run)) {                                   \
			if (ck_ring_dequeue_mpsc_mw##N(&q->ring, b, &m)) {     \
				bench_mw_got(run, &m, 0);                      \
				continue;                                      \
			}                                                      \
			if (bench_mw_empty(run))                               \
				break;                                         \
			bench_mw_rpause(run, &spins);                          \
		}                                                              \
		bench_mw_done(run);                                            \
	}
CK_SIZES(CK_DEF)

static int ckq_setup(struct bench_mw_run *run, void **qp)
{
	size_t slots = bench_pow2_floor(run->capacity / run->slot);
	struct ckq *q;

	if (slots < 4 ||
	    (run->slot != 8 && run->slot != 64 && run->slot != 256))
		return -1;
	q = (struct ckq *)bench_mw_alloc(run, sizeof(*q));
	if (!q)
		return -1;
	q->size = slots * run->slot;
	q->buf = bench_mw_alloc(run, q->size);
	if (!q->buf) {
		bench_mw_free(run, q, sizeof(*q));
		return -1;
	}
	ck_ring_init(&q->ring, (unsigned)slots);
	*qp = q;
	return 0;
}

static void ckq_teardown(void *p, struct bench_mw_run *run)
{
	struct ckq *q = (struct ckq *)p;

	bench_mw_free(run, q->buf, q->size);
	bench_mw_free(run, q, sizeof(*q));
}

static void ckq_produce(void *p, struct bench_mw_run *run, unsigned w)
{
	struct ckq *q = (struct ckq *)p;

	switch (run->slot) {
#define CK_PCASE(N)                                                            \
	case N:                                                                \
		ck_produce_##N(q, run, w);                                     \
		break;
		CK_SIZES(CK_PCASE)
	}
}

static void ckq_consume(void *p, struct bench_mw_run *run)
{
	struct ckq *q = (struct ckq *)p;

	switch (run->slot) {
#define CK_CCASE(N)                                                            \
	case N:                                                                \
		ck_consume_##N(q, run);                                        \
		break;
		CK_SIZES(CK_CCASE)
	}
}

const struct bench_mw_queue bench_mw_ck[] = {
	{"ck_ring", "mpsc", PFR_MW_KIND_SHARED, 1, ckq_setup, ckq_produce,
	 ckq_consume, ckq_teardown},
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
