/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/peer_mutex.c - the naive baseline: a ring of payload-sized slots
 * guarded by one pthread mutex, with a condition variable for "not empty"
 * and one for "not full".  Every push and pop takes the lock and signals.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../core/bench.h"

struct mq {
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	size_t slots, payload;
	uint64_t head, tail; /* messages pushed, popped (under mu) */
	unsigned char *buf;
};

static int mq_setup(struct bench_run *run, void **qp)
{
	struct mq *q = (struct mq *)calloc(1, sizeof(*q));

	if (!q)
		return -1;
	q->payload = run->payload;
	q->slots = run->capacity / run->payload;
	q->buf = (unsigned char *)bench_alloc(64, q->slots * q->payload);
	if (!q->slots || !q->buf) {
		free(q->buf);
		free(q);
		return -1;
	}
	memset(q->buf, 0, q->slots * q->payload);
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->not_empty, NULL);
	pthread_cond_init(&q->not_full, NULL);
	*qp = q;
	return 0;
}

static void mq_teardown(void *p)
{
	struct mq *q = (struct mq *)p;

	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	free(q->buf);
	free(q);
}

static void mq_produce(void *p, struct bench_run *run)
{
	struct mq *q = (struct mq *)p;
	size_t words = run->payload / 8;
	uint64_t *m = (uint64_t *)bench_alloc(64, run->payload);

	if (!m) {
		run->error = -1;
		return;
	}
	memcpy(m, run->msg, run->payload);
	for (uint64_t seq = 0; seq < run->n; seq++) {
		pfr__payload_stamp_ends(m, words, seq);
		pthread_mutex_lock(&q->mu);
		while (q->head - q->tail == q->slots)
			pthread_cond_wait(&q->not_full, &q->mu);
		memcpy(q->buf + (q->head % q->slots) * q->payload, m,
		       q->payload);
		q->head++;
		pthread_cond_signal(&q->not_empty);
		pthread_mutex_unlock(&q->mu);
	}
	free(m);
}

static void mq_consume(void *p, struct bench_run *run)
{
	struct mq *q = (struct mq *)p;
	uint64_t *m = (uint64_t *)bench_alloc(64, run->payload);

	if (!m) {
		run->error = -1;
		return;
	}
	for (uint64_t seq = 0; seq < run->n; seq++) {
		pthread_mutex_lock(&q->mu);
		while (q->head == q->tail)
			pthread_cond_wait(&q->not_empty, &q->mu);
		memcpy(m, q->buf + (q->tail % q->slots) * q->payload,
		       q->payload);
		q->tail++;
		pthread_cond_signal(&q->not_full);
		pthread_mutex_unlock(&q->mu);
		bench_got(run, m, seq, run->payload / 8);
	}
	bench_done(run);
	free(m);
}

const struct bench_queue bench_mutex[] = {
	{"mutex_condvar", "", 0, mq_setup, mq_produce, mq_consume, mq_teardown,
	 NULL, -1, -1, 0, 0},
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0}};
