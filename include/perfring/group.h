/* SPDX-License-Identifier: MIT */
/*
 * <perfring/group.h> - many writers, one reader: one perfring ring per
 * writer, one reader that drains them all (the perf model: one ring per
 * CPU, one consumer that merges them).
 *
 * A group is one shared-memory object (private memory, a POSIX shm name
 * or a memfd): a header, a directory of N slots (1..4096, fixed at
 * creation) and N rings.  Each slot's ring is an ordinary perfring ring -
 * its own struct pfr_ring_ctl and data area, the protocol of
 * <perfring/ring.h> unchanged - so a writer that joins gets an ordinary
 * struct pfr_writer and writes with the ring's fast path, untouched.
 *
 * Slot life (the state word of each directory entry; only the transitions
 * drawn happen, each by the side named):
 *
 *   FREE --join: CAS--> CLAIMING --join: store_release--> ACTIVE
 *    ^                                                    |      |
 *    |                                leave: store_release|      |owner
 *    |                                                    v      |dead
 *    +------- reader: store_release after draining --- CLOSING   |
 *    +------- reader: CAS after draining what was published -----+
 *
 *   J (join):   the CAS FREE->CLAIMING (acquire) pairs with F, the reader's
 *               release of FREE: the joiner's reset of the ring comes after
 *               the last read of the previous owner's records.
 *   P (publish a slot): the store_release of ACTIVE pairs with S, the
 *               reader's load_acquire of the state: the reader sees the
 *               reset ring and the owner's identity.
 *   L (leave):  the store_release of CLOSING comes after the owner's last
 *               publication; the reader (S) then loads head and drains it.
 *   F (free):   the reader's store_release of FREE (or its CAS of a dead
 *               owner's ACTIVE) comes after its last read of the ring.
 *
 * The owner's identity survives pid reuse: the state word carries the
 * owner's pid (written by the claiming CAS itself), and the directory
 * entry the start time of that process (/proc/<pid>/stat field 22, in
 * clock ticks since boot).  A slot's owner is dead when the pid is gone or
 * now names a process with another start time.  (A pidfd would pin the
 * process too, but the reader would have to open it from the pid - the
 * same race - unless every writer sent it one over a socket; the start
 * time needs nothing but the shared memory and /proc.)
 *
 * Reading: pfr_group_drain() takes every active ring once per call (one
 * batch each, then tail published: D), unordered (round robin, records go
 * to the callback straight from the ring; a writer's own order holds
 * across its leave and its next join, on whichever slot) or time-ordered (each record's
 * time - the first 8 payload bytes, or a caller's extractor - and perf's
 * ordered-events rule through <perfring/merge.h>, the code perf record
 * uses: a record is delivered once every writer that may still write has
 * reached its time).  The promise: within one reader's run, records come
 * out in time order (but for a PFR_GROUP_DRAIN_ALL flush) when each
 * writer's times do not decrease and are read from one clock after its
 * pfr_group_join() returned; it holds across writers that die (their
 * published records are drained before their ring leaves the bound) and
 * writers that join during a drain (the directory is rescanned before the
 * bound is taken).  Loss is per writer: DROP and BLOCK time-outs are
 * counted in the writer's ring and reported by LOST records whose id is
 * the writer's slot (low 32 bits) and the slot's generation (high 32
 * bits); a writer that leaves or dies with a count it could not write out
 * gets a LOST record from the reader.  For every writer, records written
 * = records read + records reported lost, exactly.
 *
 * Waiting: one futex word in the group header for all writers.  The
 * reader marks every active ring's reader_waiting and stores "asleep" in
 * the group word, then smp_mb(), then checks every ring's head and the
 * directory; a writer stores head, smp_mb() (the ring's publication, with
 * PFR_GROUP_WAIT), then loads its ring's reader_waiting - the
 * store-buffering hand-shake of the single ring, per ring - and only when
 * it finds the mark does it take the out-of-line path, which swaps the
 * group word to 0 and wakes the reader (one FUTEX_WAKE, or one eventfd
 * write, per sleep).  A writer makes no system call unless the reader is
 * asleep.  For epoll/poll readers the group can carry an eventfd: see
 * pfr_group_poll_prepare().
 */
#ifndef PERFRING_GROUP_H
#define PERFRING_GROUP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfring/common.h>
#include <perfring/ring.h>

PFR__EXTERN_C_BEGIN

struct pfr_group;

#define PFR_GROUP_SLOTS_MAX 4096u

/* Group flags (pfr_group_opts.flags). */
/* The reader may sleep in pfr_group_wait() or poll the eventfd: every
 * writer checks for a sleeping reader after each publication (one
 * smp_mb() each, as PFR_RING_WAIT). */
#define PFR_GROUP_WAIT 0x1u
/* Also create an eventfd (implies PFR_GROUP_WAIT): see
 * pfr_group_poll_prepare(). */
#define PFR_GROUP_EVENTFD 0x2u

/* sz as in struct pfr_ring_opts (<perfring/ring.h>). */
struct pfr_group_opts {
	size_t sz; /* sizeof(struct pfr_group_opts), or 0 */
	uint32_t slots; /* writers at most, 1..PFR_GROUP_SLOTS_MAX; 0: 64 */
	uint64_t data_size; /* each ring's data area, power of two >= 4096
			     * (at most 1 GiB); 0: 64 KiB */
	enum pfr_policy policy; /* DROP or BLOCK */
	enum pfr_ordering ordering;
	uint32_t flags; /* PFR_GROUP_* */
	uint32_t mode; /* shm permission bits; 0: 0600 */
};

/* Create a group in private memory (threads of one process, and children
 * forked after creation), in a new POSIX shared-memory object /NAME
 * (O_EXCL), or in a new sealed memfd (pfr_group_fd() to pass it on).
 * Returns 0, -PFR_E_INVAL or -PFR_E_SYSTEM.
 * Concurrency: any thread.  Progress: blocking (allocates, maps). */
PFR_API int pfr_group_create(struct pfr_group **g,
			     const struct pfr_group_opts *opts);
PFR_API int pfr_group_create_shm(struct pfr_group **g, const char *name,
				 const struct pfr_group_opts *opts);
PFR_API int pfr_group_create_memfd(struct pfr_group **g,
				   const struct pfr_group_opts *opts);
/* Attach to a group by shm name, or by fd (dup'ed) with the group's
 * eventfd if it has one (dup'ed; -1: none).  Validates the header before
 * trusting it: -PFR_E_MAGIC, -PFR_E_VERSION (another layout version),
 * -PFR_E_LAYOUT (inconsistent sizes), -PFR_E_MAPPING (object too small).
 * An eventfd that is not one (the wake-up would write 8 bytes into it) is
 * refused with -PFR_E_INVAL.
 * Concurrency: any thread.  Progress: blocking. */
PFR_API int pfr_group_attach_shm(struct pfr_group **g, const char *name);
PFR_API int pfr_group_attach_fd(struct pfr_group **g, int fd, int eventfd);
/* The same with an attach limit, as the ring's and the shared ring's
 * (docs/api.md): opts->max_data_size caps the data areas of all the
 * group's rings together (0: PFR_RING_ATTACH_MAX_DEFAULT, 1 GiB); a
 * larger group is refused with -PFR_E_TOOBIG before it is mapped.  opts
 * must not be NULL; -PFR_E_INVAL for an sz too small or unknown flags.
 * (The two above take no limit.)
 * Concurrency: any thread.  Progress: blocking. */
PFR_API int pfr_group_attach_shm_opts(struct pfr_group **g, const char *name,
				      const struct pfr_ring_attach_opts *opts);
PFR_API int pfr_group_attach_fd_opts(struct pfr_group **g, int fd, int eventfd,
				     const struct pfr_ring_attach_opts *opts);
/* Unmap and free (does not unlink; a reader's queued ordered records that
 * were not drained with PFR_GROUP_DRAIN_ALL are dropped). */
PFR_API void pfr_group_close(struct pfr_group *g);
PFR_API int pfr_group_unlink(const char *name);
/* The object's fd (-1 for private memory) and the eventfd (-1: none);
 * -PFR_E_INVAL for NULL.  The number of slots (0 for NULL). */
PFR_API int pfr_group_fd(const struct pfr_group *g);
PFR_API int pfr_group_eventfd(const struct pfr_group *g);
PFR_API uint32_t pfr_group_slots(const struct pfr_group *g);

/* --- writers --- */

/* Claims a free slot (the lowest), resets its ring and opens *w on it: an
 * ordinary writer (pfr_writer_write() and the rest of <perfring/ring.h>).
 * tag is stored in the slot and handed to the reader with every record
 * of this writer (the caller's own writer id, say).  Returns the slot
 * (>= 0), -PFR_E_FULL when every slot is taken (never waits),
 * -PFR_E_LAYOUT for a hostile directory.
 * Concurrency: any thread or process, with other joins and leaves and
 * the reader.  Progress: lock-free (one CAS per slot tried). */
PFR_API int pfr_group_join(struct pfr_group *g, struct pfr_writer *w,
			   uint64_t tag);
/* Publishes what w has written (a LOST record too, if one is pending and
 * fits), marks the slot CLOSING and wakes a sleeping reader; the reader
 * frees the slot once drained.  w must not be used afterwards.
 * Returns 0 or -PFR_E_INVAL (w is not a writer of this group).
 * Concurrency: w's thread.  Progress: wait-free but for the wake-up. */
PFR_API int pfr_group_leave(struct pfr_group *g, struct pfr_writer *w);
/* 1 while a reader holds the group and its process is alive, else 0
 * (writers use it to notice a dead reader); -PFR_E_INVAL for NULL. */
PFR_API int pfr_group_reader_alive(const struct pfr_group *g);

/* --- the reader --- */

/* One record as pfr_group_drain() delivers it.  hdr/payload are valid
 * during the callback only.  LOST records (hdr.type PFR_RECORD_LOST,
 * payload { u64 id; u64 lost; }) come from the writer's ring or, for a
 * count a writer left behind, from the reader. */
struct pfr_group_rec {
	struct pfr_record_header hdr;
	const void *payload;
	uint32_t len;
	uint32_t slot; /* the writer's slot */
	uint64_t tag; /* the writer's tag (pfr_group_join()) */
	uint64_t time; /* ordered mode: the record's time; else 0 */
};
/* The callback stop rule, the same for the ring, the group, the shared
 * ring and the session (docs/api.md): returns 0 to go on, or nonzero to
 * stop after this record (which counts as delivered and is consumed, as
 * are the records before it).  A negative value is returned by the drain
 * (the caller's error passes through); after a positive one the drain
 * returns the records delivered so far.  (Before PERFRING_0.3 only a
 * negative value stopped: binaries linked then keep that rule.) */
typedef int (*pfr_group_fn)(void *arg, const struct pfr_group_rec *rec);
/* Ordered mode: a record's time (NULL: its first 8 payload bytes, in host
 * byte order; 0 for a shorter record).  The times of one writer must not
 * decrease: a time below the writer's previous one is raised to it (the
 * writer's own order is kept). */
typedef uint64_t (*pfr_group_time_fn)(void *arg, const struct pfr_record *rec);

/* pfr_group_reader_open()'s mode: records straight from the rings, round
 * robin, or in time order through the merge (time_fn, or the first 8
 * payload bytes). */
#define PFR_GROUP_UNORDERED 0
#define PFR_GROUP_ORDERED 1

/* Takes the reader role (one reader per group; a dead reader's role is
 * taken over, and the new reader resumes at every ring's published tail).
 * ordered: PFR_GROUP_UNORDERED, or PFR_GROUP_ORDERED with time_fn (may be
 * NULL: the first 8 payload bytes); anything else is -PFR_E_INVAL.
 * Returns 0, -PFR_E_BUSY (a live reader holds it) or -PFR_E_SYSTEM.
 * Concurrency: one reader.  Progress: blocking. */
PFR_API int pfr_group_reader_open(struct pfr_group *g, int ordered,
				  pfr_group_time_fn time_fn, void *time_arg);
/* Gives the reader role up (queued ordered records not drained are
 * dropped: drain with PFR_GROUP_DRAIN_ALL first). */
PFR_API void pfr_group_reader_close(struct pfr_group *g);

/* Drain flags (pfr_group_drain(), pfr_group_consume(),
 * pfr_group_iter_begin()). */
#define PFR_GROUP_DRAIN_ROUND 0x0u /* one round: a batch per ring */
/* ordered: also flush every queued record (at the end, or to bound the
 * latency) */
#define PFR_GROUP_DRAIN_ALL 0x1u

/* Drains every active ring once (one batch each: begin, consume, end),
 * frees the slots of writers that left or died once drained, checks
 * owners for death at most every reclaim interval, and delivers records
 * to fn: unordered straight from the rings, ordered through the merge.
 * Returns the records delivered (>= 0; after fn stopped with a positive
 * value, those delivered so far, the stopping one included), fn's
 * negative return, or a negative error: a hostile slot (-PFR_E_LAYOUT, or the ring's own
 * PFR_E_HEAD_* / PFR_E_RECSIZE_* code) is reported once and ignored from
 * then on (pfr_group_stats().bad_slots).  Ordered: -PFR_E_NOSPC when the
 * merge queue is at its cap (pfr_group_set_queue_max()) and nothing could
 * be delivered - a writer that has joined but writes nothing holds every
 * other writer's records back.  Nothing is lost: the records stay in the
 * rings (their writers drop, and count, once those fill); drain with
 * PFR_GROUP_DRAIN_ALL to deliver the queue out of the global order (as
 * perf does when its queue reaches its limit), or wait for the writer.
 * Concurrency: the reader only.  Progress: wait-free but for the
 * periodic /proc reads of the owner check. */
PFR_API int64_t pfr_group_drain(struct pfr_group *g, pfr_group_fn fn, void *arg,
				uint32_t flags);
/*
 * The batched reader: pfr_group_consume() drains as pfr_group_drain()
 * does (the same records, LOST records, slot life, errors and return
 * value), but takes each ring's batch with the single ring's
 * pfr_reader_consume(): one pass over the batch's headers, fn inlined
 * when it is known at the call site (a static function), one tail
 * publication per ring batch.  Unordered groups only go through the
 * inline path; a time-ordered group is drained by pfr_group_drain()
 * (the merge keeps the time order), so the promise above holds either
 * way.  Rings of writers that left or died are drained out of line, as
 * pfr_group_drain() drains them.
 *
 * The iterator beneath it, for a reader that walks the rings itself:
 *
 *	struct pfr_group_iter it;
 *	int rc = pfr_group_iter_begin(g, &it, fn, arg, flags);
 *
 *	while (rc >= 0 && (rc = pfr_group_iter_next(g, &it)) > 0) {
 *		int64_t n = pfr_reader_consume(it.r, my_fn, my_ctx, 0);
 *
 *		it.got = n < 0 ? records_my_fn_saw : n;
 *		it.err = n < 0 ? (int)n : 0;
 *	}
 *	// rc < 0: an error; else it.total records were delivered
 *
 * pfr_group_iter_begin() rescans the directory, checks owners and takes
 * the rings of writers that left or died to their end, through fn, as a
 * drain does (an ordered group: drains it whole, through fn), and
 * returns 0, fn's negative stop or -PFR_E_INVAL (a positive stop ends the
 * round: it.total is what was delivered, and pfr_group_iter_next()
 * returns 0); each
 * pfr_group_iter_next() ends the previous ring's batch (publishing its
 * tail; it.got is the number of records the caller took from it, it.err
 * 0 or the negative error pfr_reader_consume() or pfr_reader_next()
 * returned, which quarantines the slot, it.lost the records the LOST
 * records taken from it counted) and begins the next ring that has records: 1 with it.r,
 * it.slot and it.tag set; 0 at the end of the round (slots of writers
 * that left or died freed, as a drain frees them); or a negative value:
 * a hostile slot's error, reported once (pfr_group_drain()'s rule).  Records are
 * taken from it.r only between the two calls, and only by the reader.
 * A caller that stops in the middle of a ring calls
 * pfr_group_iter_stop(): it ends that ring's batch (the records counted
 * in it.got are consumed) and leaves the round unfinished.
 * Concurrency: the reader only.  Progress: as pfr_group_drain().
 */
struct pfr_group_iter {
	struct pfr_reader *r; /* the ring whose batch is begun */
	uint32_t slot; /* its slot */
	uint64_t tag; /* its writer's tag */
	int64_t got; /* set by the caller: records taken from r */
	int err; /* set by the caller: the ring's error (negative), or 0 */
	uint64_t lost; /* set by the caller: LOST records' counts */
	int64_t total; /* records delivered this round */
	/* private */
	pfr_group_fn fn;
	void *arg;
	uint32_t k, n, cur, done;
};
PFR_API int pfr_group_iter_begin(struct pfr_group *g, struct pfr_group_iter *it,
				 pfr_group_fn fn, void *arg, uint32_t flags);
PFR_API int pfr_group_iter_next(struct pfr_group *g, struct pfr_group_iter *it);
PFR_API void pfr_group_iter_stop(struct pfr_group *g,
				 struct pfr_group_iter *it);

/* pfr_group_consume()'s per-record step: a ring's record as a group
 * record, LOST counts noted, fn's stop kept (private). */
struct pfr__group_cb {
	pfr_group_fn fn;
	void *arg;
	uint32_t slot;
	uint64_t tag;
	uint64_t lost;
	int64_t count; /* records passed to fn */
	int stop;
};

PFR__INLINE int pfr__group_cb_fn(void *ctx, const struct pfr_record *rec)
{
	struct pfr__group_cb *x = (struct pfr__group_cb *)ctx;
	struct pfr_group_rec gr;
	int rc;

	x->count++;
	if (__builtin_expect(rec->hdr.type == PFR_RECORD_LOST, 0) &&
	    rec->len >= 16) {
		uint64_t n;

		memcpy(&n, (const unsigned char *)rec->payload + 8, 8);
		x->lost += n;
	}
	if (!x->fn)
		return 0;
	gr.hdr = rec->hdr;
	gr.payload = rec->payload;
	gr.len = rec->len;
	gr.slot = x->slot;
	gr.tag = x->tag;
	gr.time = 0;
	rc = x->fn(x->arg, &gr);
	if (__builtin_expect(rc != 0, 0)) {
		x->stop = rc; /* the callback stop rule: nonzero stops */
		return 1;
	}
	return 0;
}

/* Drains every active ring once, as pfr_group_drain() (see above).
 * Returns the records delivered (>= 0; after fn stopped with a positive
 * value, those delivered so far), fn's negative return, or a negative
 * error.  Concurrency: the reader only.  Progress: as
 * pfr_group_drain(). */
PFR__INLINE int64_t pfr_group_consume(struct pfr_group *g, pfr_group_fn fn,
				      void *arg, uint32_t flags)
{
	struct pfr_group_iter it;
	struct pfr__group_cb x;
	int64_t n;
	int rc = pfr_group_iter_begin(g, &it, fn, arg, flags);

	if (rc < 0)
		return rc;
	x.fn = fn;
	x.arg = arg;
	while ((rc = pfr_group_iter_next(g, &it)) > 0) {
		x.slot = it.slot;
		x.tag = it.tag;
		x.lost = 0;
		x.count = 0;
		x.stop = 0;
		n = pfr_reader_consume(it.r, pfr__group_cb_fn, &x, 0);
		it.got = x.count;
		it.err = n < 0 ? (int)n : 0;
		it.lost = x.lost;
		if (__builtin_expect(x.stop != 0, 0)) {
			pfr_group_iter_stop(g, &it);
			return x.stop < 0 ? x.stop : it.total;
		}
	}
	return rc < 0 ? rc : it.total;
}

/* Blocks until a writer publishes, joins or leaves, or timeout_ns passes
 * (UINT64_MAX: forever).  Returns 1 (something to drain), -PFR_E_TIMEDOUT
 * (time-out, nothing to drain) or -PFR_E_INVAL (no PFR_GROUP_WAIT): the
 * wait convention of pfr_reader_wait() and pfr_mpsc_wait(), which return
 * the bytes available where this returns 1 (docs/api.md).  (Before
 * PERFRING_0.3 a time-out returned 0: binaries linked then still get 0.)  A writer that dies cannot wake the
 * reader: readers that must free dead writers' slots promptly wait with a
 * time-out.  Progress: blocking. */
PFR_API int pfr_group_wait(struct pfr_group *g, uint64_t timeout_ns);
/*
 * poll/epoll readers (groups with PFR_GROUP_EVENTFD): call
 * pfr_group_poll_prepare() before polling pfr_group_eventfd() for POLLIN.
 * It returns 1 when there is something to drain already (do not poll),
 * 0 when armed: the next publication, join or leave writes the eventfd.
 * After the poll (or instead of it), call pfr_group_poll_done(), then
 * drain.  The rule: a writer can only write the eventfd it holds - threads
 * of the creator's process and children forked after creation hold it;
 * another process must be handed the eventfd with the memfd (SCM_RIGHTS)
 * and attach with pfr_group_attach_fd(fd, eventfd).  A writer process
 * without it wakes futex sleepers only: a poll reader of such a group
 * must poll with a time-out.  Returns -PFR_E_INVAL without an eventfd.
 */
PFR_API int pfr_group_poll_prepare(struct pfr_group *g);
PFR_API void pfr_group_poll_done(struct pfr_group *g);
/* How often pfr_group_drain() checks active owners for death (0: every
 * drain; default 100 ms). */
PFR_API void pfr_group_set_reclaim_interval(struct pfr_group *g, uint64_t ns);
/* The ordered reader's merge queue cap, in bytes (pfr_merge_set_max_bytes():
 * the records and their index; 0: no cap).  Default
 * PFR_GROUP_QUEUE_MAX_DEFAULT.  May be called before or after
 * pfr_group_reader_open().  Returns 0 or -PFR_E_INVAL (g NULL). */
#define PFR_GROUP_QUEUE_MAX_DEFAULT (64ull << 20)
PFR_API int pfr_group_set_queue_max(struct pfr_group *g, uint64_t bytes);

struct pfr_group_stats {
	uint32_t slots, active; /* slots, and slots the reader holds open */
	uint64_t joins_seen; /* writers the reader saw join */
	uint64_t freed; /* slots freed after a leave */
	uint64_t reclaimed; /* slots reclaimed from a dead owner */
	uint64_t bad_slots; /* hostile slots ignored */
	uint64_t records; /* records delivered (LOST records included) */
	uint64_t lost; /* records reported lost, all writers */
	uint64_t wakeups; /* pfr_group_wait() calls that slept */
	/* ordered mode: the merge queue (<perfring/merge.h>) */
	uint64_t merge_queued, merge_max_queued, merge_max_queued_bytes;
};
PFR_API void pfr_group_stats(const struct pfr_group *g,
			     struct pfr_group_stats *st);

PFR__EXTERN_C_END

#endif /* PERFRING_GROUP_H */
