/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/peer_mutex.c - the baseline of the multi-writer bench: a ring of
 * run->slot-byte slots guarded by one pthread mutex (process-shared, so
 * that it runs between processes too).  A writer takes the lock, copies
 * its message in when there is room, and unlocks; the reader takes the
 * lock, copies out up to run->batch messages, unlocks, then verifies them.
 * Nobody sleeps on a condition variable: a full or empty ring is waited
 * out as every contestant waits (bench_mw_pause()).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mw.h"

struct mq {
	pthread_mutex_t mu;
	size_t slots, slot, size;
	uint64_t head, tail; /* messages pushed, popped (under mu) */
	unsigned char *buf;
};

static int mq_setup(struct bench_mw_run *run, void **qp)
{
	struct mq *q = (struct mq *)bench_mw_alloc(run, sizeof(*q));
	pthread_mutexattr_t a;

	if (!q)
		return -1;
	q->slot = run->slot;
	q->slots = run->capacity / run->slot;
	q->size = q->slots * q->slot;
	q->buf = (unsigned char *)bench_mw_alloc(run, q->size);
	if (q->slots < 4 || !q->buf) {
		bench_mw_free(run, q->buf, q->size);
		bench_mw_free(run, q, sizeof(*q));
		return -1;
	}
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&q->mu, &a);
	pthread_mutexattr_destroy(&a);
	*qp = q;
	return 0;
}

static void mq_teardown(void *p, struct bench_mw_run *run)
{
	struct mq *q = (struct mq *)p;

	pthread_mutex_destroy(&q->mu);
	bench_mw_free(run, q->buf, q->size);
	bench_mw_free(run, q, sizeof(*q));
}

static void mq_produce(void *p, struct bench_mw_run *run, unsigned w)
{
	struct mq *q = (struct mq *)p;
	struct bench_mw_writer *me = &run->w[w];
	uint64_t *m = bench_mw_msgs(run, me, 1);
	unsigned spins = 0;
	uint64_t seq;

	if (!m)
		return;
	for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
		size_t words = bench_mw_len(run, seq);

		bench_mw_stamp(m, words, w, seq);
		for (;;) {
			int room;

			pthread_mutex_lock(&q->mu);
			room = q->head - q->tail < q->slots;
			if (room) {
				memcpy(q->buf + (q->head % q->slots) * q->slot,
				       m, words * 8);
				q->head++;
			}
			pthread_mutex_unlock(&q->mu);
			if (room)
				break;
			bench_mw_pause(&spins);
		}
		bench_mw_unstamp(m, words, run);
	}
	me->sent = seq;
	free(m);
}

static void mq_consume(void *p, struct bench_mw_run *run)
{
	struct mq *q = (struct mq *)p;
	unsigned b = run->batch, spins = 0;
	unsigned char *m = (unsigned char *)bench_alloc(64, b * q->slot);

	if (!m) {
		run->error = -1;
		return;
	}
	while (bench_mw_more(run)) {
		unsigned k = 0;

		pthread_mutex_lock(&q->mu);
		while (k < b && q->tail != q->head) {
			memcpy(m + k * q->slot,
			       q->buf + (q->tail % q->slots) * q->slot,
			       q->slot);
			q->tail++;
			k++;
		}
		pthread_mutex_unlock(&q->mu);
		if (!k) {
			if (bench_mw_empty(run))
				break;
			bench_mw_rpause(run, &spins);
			continue;
		}
		for (unsigned i = 0; i < k; i++)
			bench_mw_got(run, m + i * q->slot, 0);
	}
	bench_mw_done(run);
	free(m);
}

const struct bench_mw_queue bench_mw_peers[] = {
	{"mutex", "", PFR_MW_KIND_OTHER, 1, mq_setup, mq_produce, mq_consume,
	 mq_teardown},
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
