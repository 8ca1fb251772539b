/* SPDX-License-Identifier: MIT */
/*
 * <perfring/merge.h> - the time-ordered merge of several record sources
 * (perf's ordered events): the rings of one perf session, one per CPU, or
 * the writer rings of a group (<perfring/group.h>).
 *
 * Each source delivers its own records in time order; across sources
 * nothing is ordered.  The reader pushes every record it takes from a
 * source into the queue (the record is copied: the ring space can be
 * freed at once) and flushes the queue up to a time limit: every queued
 * record with a time not later than the limit is delivered, in (time,
 * arrival) order, through a callback, and the rest stay queued.
 *
 * The limit that makes the output final is perf's rule: a record is final
 * once every source that may still produce has reached its time, because
 * a source's later records are not older than the last one it delivered.
 * pfr_merge_reached() records how far each source has got (the time of
 * the last record taken from it); pfr_merge_safe_limit() is the oldest of
 * those over the sources still open (pfr_merge_close_source() takes a
 * finished source out of the bound).  A caller with a weaker rule (perf
 * record's rounds: flush up to the newest time of the previous pass) just
 * passes its own limit; UINT64_MAX flushes everything.
 *
 * The queue sorts lazily: records arrive as runs already in time order
 * (one per source per pass), so a flush does a natural merge sort of runs,
 * a few linear passes.  Stable: equal times come out in arrival order.
 *
 * No thread safety: one merge belongs to one reader.  No printing; errors
 * are negative PFR_E_* codes (<perfring/ring.h>).  A NULL merge (or header,
 * or stats) is -PFR_E_INVAL where there is an error return, and nothing
 * done where there is none (pfr_merge_safe_limit(NULL): UINT64_MAX,
 * pfr_merge_stats(NULL, st): zeroes).
 */
#ifndef PERFRING_MERGE_H
#define PERFRING_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include <perfring/common.h>
#include <perfring/ring.h>

PFR__EXTERN_C_BEGIN

struct pfr_merge;

/* One record as a flush delivers it.  hdr and payload point into the
 * merge's arena and are valid during the callback only. */
struct pfr_merge_rec {
	const struct pfr_record_header *hdr;
	const void *payload;
	uint32_t len; /* hdr->size - 8 */
	uint32_t source;
	uint64_t time;
	uint64_t seq; /* arrival order, from 0 */
};

/* Called once per delivered record.  Returns 0 to go on, or a negative
 * value to stop the flush (the records delivered so far leave the queue,
 * this one included), which the flush returns; positive values are
 * reserved and act as 0. */
typedef int (*pfr_merge_fn)(void *arg, const struct pfr_merge_rec *rec);

struct pfr_merge_stats {
	uint64_t pushed; /* records pushed, ever */
	uint64_t delivered; /* records delivered, ever */
	uint64_t queued; /* records queued now */
	uint64_t queued_bytes; /* their bytes (headers included) */
	uint64_t max_queued; /* the most records ever queued at once */
	uint64_t max_queued_bytes; /* the most bytes ever queued at once */
	uint64_t flushes; /* flush calls that delivered something */
};

/* Creates an empty merge of nsources sources (ids 0..nsources-1; 0 is
 * allowed when the caller never asks for pfr_merge_safe_limit()).
 * Returns 0 or -PFR_E_INVAL / -PFR_E_SYSTEM (out of memory).
 * Concurrency: any thread.  Progress: blocking (allocates). */
PFR_API int pfr_merge_create(struct pfr_merge **m, uint32_t nsources);
/* Frees the merge and everything queued (not delivered). */
PFR_API void pfr_merge_destroy(struct pfr_merge *m);
/* Changes the number of sources: new ones start open, at time 0; removed
 * ones must have nothing queued.  Returns 0, -PFR_E_INVAL or
 * -PFR_E_SYSTEM. */
PFR_API int pfr_merge_set_sources(struct pfr_merge *m, uint32_t nsources);

/* Caps the queue: a push that would make the queued records' bytes plus
 * 2 x 32 bytes of index per record exceed max_bytes is refused (0: no
 * cap, the default).  The arenas grow by doubling and a flush compacts
 * into a second one, so the memory held is at most about three times the
 * cap.  Returns 0 or -PFR_E_INVAL (m NULL). */
PFR_API int pfr_merge_set_max_bytes(struct pfr_merge *m, uint64_t max_bytes);

/* Queues a copy of one record (hdr->size bytes: the header, then len
 * payload bytes from payload; hdr->size must be 8 + len rounded up to
 * 8, at most PFR_RECORD_MAX) with its time and source.  Also records the
 * source as having reached `time` (see pfr_merge_reached()).  Returns 0,
 * -PFR_E_INVAL (bad size or source), -PFR_E_NOSPC (the queue is at its
 * cap, pfr_merge_set_max_bytes(): nothing queued, the source's time not
 * moved; flush, then push again) or -PFR_E_SYSTEM (out of memory).
 * Concurrency: the merge's owner only.  Progress: blocking (may grow the
 * arena). */
PFR_API int pfr_merge_push(struct pfr_merge *m,
			   const struct pfr_record_header *hdr,
			   const void *payload, uint32_t len, uint64_t time,
			   uint32_t source);

/* Delivers every queued record with time <= limit in (time, arrival)
 * order through fn (NULL: drop them), and keeps the rest.  Returns the
 * number delivered (>= 0), fn's negative return (the records delivered
 * before and with it are gone), or -PFR_E_SYSTEM (out of memory: nothing
 * delivered).
 * Progress: blocking (may allocate). */
PFR_API int64_t pfr_merge_flush(struct pfr_merge *m, uint64_t limit,
				pfr_merge_fn fn, void *arg);
/* pfr_merge_flush(m, UINT64_MAX, fn, arg): everything, at the end. */
PFR_API int64_t pfr_merge_flush_all(struct pfr_merge *m, pfr_merge_fn fn,
				    void *arg);

/* Records that `source` has reached `time`: it will produce nothing older.
 * Times only move forward (an older time is ignored). */
PFR_API void pfr_merge_reached(struct pfr_merge *m, uint32_t source,
			       uint64_t time);
/* Takes a source out of the safe limit (it will produce nothing more:
 * drained and closed) or puts it back, reopened at time `time`. */
PFR_API void pfr_merge_close_source(struct pfr_merge *m, uint32_t source);
PFR_API void pfr_merge_open_source(struct pfr_merge *m, uint32_t source,
				   uint64_t time);
/* The oldest time reached over the open sources (UINT64_MAX when none is
 * open): every queued record up to it is final. */
PFR_API uint64_t pfr_merge_safe_limit(const struct pfr_merge *m);
/* pfr_merge_flush(m, pfr_merge_safe_limit(m), fn, arg). */
PFR_API int64_t pfr_merge_flush_safe(struct pfr_merge *m, pfr_merge_fn fn,
				     void *arg);

PFR_API void pfr_merge_stats(const struct pfr_merge *m,
			     struct pfr_merge_stats *st);

PFR__EXTERN_C_END

#endif /* PERFRING_MERGE_H */
