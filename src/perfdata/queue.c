/* SPDX-License-Identifier: MIT */
/*
 * Ordered events, as perf's (tools/perf/util/ordered-events.c): perf
 * writes each ring's records in turn, so a file is in time order only per
 * ring.  Each FINISHED_ROUND record marks the end of one pass over the
 * rings: every record written after it is newer than every record written
 * before the previous one, so at a round the records up to the newest
 * time of the round before can go out.  A file without rounds is
 * delivered at its end; the cap bounds the memory either way: past it the
 * oldest half is delivered early, and a record that arrives older than
 * one already delivered is delivered at once and counted (q->late).
 */
#include <stdlib.h>
#include <string.h>

#include "queue.h"

/* What a queued record costs: its bytes, its index entry and malloc's
 * overhead. */
#define PFR_Q_COST(it) ((it)->hdr.size + sizeof(*(it)) + 16)

void pfr__q_init(struct pfr__queue *q, size_t max_bytes, pfr__q_deliver fn,
		 void *arg)
{
	memset(q, 0, sizeof(*q));
	q->max_bytes = max_bytes;
	q->fn = fn;
	q->arg = arg;
}

static int pfr__q_cmp(const void *a, const void *b)
{
	const struct pfr__q_item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Delivers the queued records of time <= limit (all: limit UINT64_MAX). */
static void pfr__q_upto(struct pfr__queue *q, uint64_t limit)
{
	size_t k = 0, i;

	if (!q->n)
		return;
	qsort(q->items, q->n, sizeof(*q->items), pfr__q_cmp);
	for (i = 0; i < q->n && q->items[i].time <= limit; i++) {
		q->fn(q->arg, &q->items[i]);
		q->bytes -= PFR_Q_COST(&q->items[i]);
		free(q->items[i].payload);
		if (q->items[i].time > q->flushed)
			q->flushed = q->items[i].time;
	}
	k = q->n - i;
	memmove(q->items, q->items + i, k * sizeof(*q->items));
	q->n = k;
}

int pfr__q_add(struct pfr__queue *q, uint64_t t, int has_time, uint32_t ev,
	       const struct pfr_record *rec)
{
	const struct pfr_record_header *hdr = &rec->hdr;
	const void *payload = rec->payload;
	struct pfr__q_item it;
	size_t len = rec->len;

	it.time = t;
	it.seq = q->seq++;
	it.ev = ev;
	it.pos = rec->pos;
	it.hdr = *hdr;
	/* perf's rule: a record without a time (or of time 0) goes out as
	 * read; one older than what went out is too late to sort */
	if (!has_time || !t || t < q->flushed) {
		it.payload = (unsigned char *)payload;
		q->late += has_time && t && t < q->flushed;
		q->fn(q->arg, &it);
		return 0;
	}
	if (q->n == q->cap) {
		size_t nc = q->cap ? q->cap * 2 : 4096;
		struct pfr__q_item *ni = realloc(q->items, nc * sizeof(*ni));

		if (!ni)
			return -1;
		q->items = ni;
		q->cap = nc;
	}
	it.payload = malloc(len ? len : 1);
	if (!it.payload)
		return -1;
	memcpy(it.payload, payload, len);
	q->items[q->n++] = it;
	q->bytes += PFR_Q_COST(&it);
	if (t > q->max_time)
		q->max_time = t;
	if (q->bytes > q->max_bytes) { /* the oldest half goes out now */
		q->capped++;
		qsort(q->items, q->n, sizeof(*q->items), pfr__q_cmp);
		pfr__q_upto(q, q->items[q->n / 2].time);
	}
	return 0;
}

void pfr__q_round(struct pfr__queue *q)
{
	/* perf's next_flush: the newest time seen when the previous round
	 * ended; every record after this round's mark is newer than it */
	pfr__q_upto(q, q->next_flush);
	q->next_flush = q->max_time;
}

void pfr__q_flush(struct pfr__queue *q)
{
	pfr__q_upto(q, UINT64_MAX);
}

void pfr__q_free(struct pfr__queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->items[i].payload);
	free(q->items);
	q->items = NULL;
	q->n = 0;
}
