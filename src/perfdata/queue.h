/* SPDX-License-Identifier: MIT */
/* perf script's ordered events for `perfring script`: records are queued
 * (copied) as the file is read and delivered in time order, a round at a
 * time (perf's FINISHED_ROUND), within a memory cap. */
#ifndef PFR_CLI_SCRIPT_QUEUE_H
#define PFR_CLI_SCRIPT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/perf.h>

struct pfr__q_item {
	uint64_t time, seq;
	uint64_t pos; /* in the file */
	uint32_t ev;
	struct pfr_record_header hdr;
	unsigned char *payload; /* hdr.size - 8 bytes */
};

typedef void (*pfr__q_deliver)(void *arg, const struct pfr__q_item *it);

struct pfr__queue {
	struct pfr__q_item *items;
	size_t n, cap;
	size_t bytes, max_bytes; /* queued payload and index bytes; the cap */
	uint64_t seq;
	uint64_t max_time; /* the newest time queued */
	uint64_t next_flush; /* a round delivers up to here (perf's) */
	uint64_t flushed; /* every record up to this time is delivered */
	uint64_t late; /* records older than one already delivered */
	uint64_t capped; /* times the cap forced a partial flush */
	pfr__q_deliver fn;
	void *arg;
};

void pfr__q_init(struct pfr__queue *q, size_t max_bytes, pfr__q_deliver fn,
		 void *arg);
/* Queues a copy of a record of time t; one without a time, or of time 0,
 * is delivered at once, as perf does.  Over the cap, delivers the oldest
 * half first.  Returns 0 or -1 (out of memory). */
int pfr__q_add(struct pfr__queue *q, uint64_t t, int has_time, uint32_t ev,
	       const struct pfr_record *rec);
/* A FINISHED_ROUND: delivers what is older than every record still to
 * come (perf's rule: up to the newest time of the round before). */
void pfr__q_round(struct pfr__queue *q);
/* Delivers everything (end of file). */
void pfr__q_flush(struct pfr__queue *q);
void pfr__q_free(struct pfr__queue *q);

#endif
