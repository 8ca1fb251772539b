/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/peer_urcu.c - liburcu's wfcqueue (Debian liburcu-dev): wait-free
 * enqueue by an exchange on the tail, a linked list of caller-owned nodes,
 * one dequeuer (the __cds_wfcq_* calls without the dequeue lock, through
 * liburcu-common's exported functions: no library code is inlined here).
 * A node holds one message.  Each writer owns a pool of nodes that it
 * reuses in order, and waits until the reader has consumed node k before
 * it sends it again: the reader publishes, per writer, how many of its
 * messages it consumed (one release store per message).  Pools: the run's
 * capacity split between the writers, a power of two of nodes each.
 * "Empty" includes CDS_WFCQ_WOULDBLOCK: an enqueuer between its exchange
 * and its link, which the reader cannot get past.
 */
#include <stdlib.h>
#include <string.h>

#include <urcu/wfcqueue.h>

#include "mw.h"

struct wnode {
	struct cds_wfcq_node node;
	uint64_t pad;
	uint64_t msg[]; /* run->slot bytes */
};

struct wq {
	struct __cds_wfcq_head head __attribute__((aligned(128)));
	struct cds_wfcq_tail tail __attribute__((aligned(128)));
	struct {
		uint64_t v;
	} __attribute__((aligned(128))) freed[PFR_MW_MAX_WRITERS];
	size_t nodes, nsize, size; /* per writer; node bytes; mapping */
	unsigned char *pool;
};

static struct wnode *node_at(struct wq *q, unsigned w, uint64_t k)
{
	return (struct wnode *)(q->pool +
				(w * q->nodes + (k & (q->nodes - 1))) *
					q->nsize);
}

/* How many of writer w's messages the reader consumed. */
static uint64_t freed(struct wq *q, unsigned w)
{
	/* purpose: pairs with the release in hand_back() */
	return __atomic_load_n(&q->freed[w].v, __ATOMIC_ACQUIRE);
}

/* The reader hands writer w's nodes below k back. */
static void hand_back(struct wq *q, unsigned w, uint64_t k)
{
	/* purpose: pairs with the acquire in freed() */
	__atomic_store_n(&q->freed[w].v, k, __ATOMIC_RELEASE);
}

static int wq_setup(struct bench_mw_run *run, void **qp)
{
	size_t nodes =
		bench_pow2_floor(run->capacity / run->slot / run->writers);
	size_t nsize = (sizeof(struct wnode) + run->slot + 63) & ~(size_t)63;
	struct wq *q;

	if (nodes < 4)
		nodes = 4;
	q = (struct wq *)bench_mw_alloc(run, sizeof(*q));
	if (!q)
		return -1;
	q->nodes = nodes;
	q->nsize = nsize;
	q->size = nodes * nsize * run->writers;
	q->pool = (unsigned char *)bench_mw_alloc(run, q->size);
	if (!q->pool) {
		bench_mw_free(run, q, sizeof(*q));
		return -1;
	}
	__cds_wfcq_init(&q->head, &q->tail);
	*qp = q;
	return 0;
}

static void wq_teardown(void *p, struct bench_mw_run *run)
{
	struct wq *q = (struct wq *)p;

	bench_mw_free(run, q->pool, q->size);
	bench_mw_free(run, q, sizeof(*q));
}

static void wq_produce(void *p, struct bench_mw_run *run, unsigned w)
{
	struct wq *q = (struct wq *)p;
	struct bench_mw_writer *me = &run->w[w];
	unsigned spins = 0;
	uint64_t seq;

	for (uint64_t k = 0; k < q->nodes; k++)
		memcpy(node_at(q, w, k)->msg, run->msg, run->slot);
	for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
		size_t words = bench_mw_len(run, seq);
		struct wnode *n = node_at(q, w, seq);

		while (seq - freed(q, w) >= q->nodes)
			bench_mw_pause(&spins);
		if (seq >= q->nodes)
			bench_mw_unstamp(
				n->msg, bench_mw_len(run, seq - q->nodes), run);
		bench_mw_stamp(n->msg, words, w, seq);
		cds_wfcq_node_init(&n->node);
		cds_wfcq_enqueue(&q->head, &q->tail, &n->node);
	}
	me->sent = seq;
}

static void wq_consume(void *p, struct bench_mw_run *run)
{
	struct wq *q = (struct wq *)p;
	unsigned spins = 0;

	while (bench_mw_more(run)) {
		struct cds_wfcq_node *n =
			__cds_wfcq_dequeue_nonblocking(&q->head, &q->tail);
		struct wnode *wn;
		unsigned w;

		if (!n || n == CDS_WFCQ_WOULDBLOCK) {
			if (bench_mw_empty(run))
				break;
			bench_mw_rpause(run, &spins);
			continue;
		}
		wn = (struct wnode *)n;
		bench_mw_got(run, wn->msg, 0);
		w = (unsigned)(wn->msg[0] >> PFR_MW_SEQ_BITS);
		if (w < run->writers)
			hand_back(q, w, run->next[w]);
	}
	bench_mw_done(run);
}

const struct bench_mw_queue bench_mw_urcu[] = {
	{"wfcqueue", "", PFR_MW_KIND_OTHER, 1, wq_setup, wq_produce, wq_consume,
	 wq_teardown},
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
