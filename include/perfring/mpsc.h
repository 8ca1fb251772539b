/* SPDX-License-Identifier: MIT */
/*
 * <perfring/mpsc.h> - one shared ring, many producers, one reader (the BPF
 * ring buffer's model, in user space, across threads and processes).
 *
 * A producer announces the range it means to take in its own slot of the
 * producer table, takes it with one compare-and-swap on the shared
 * producer position, then writes the record's header with a BUSY marker,
 * fills the payload in place and commits it (the final type replaces BUSY
 * with one release store) or discards it (DISCARD replaces BUSY).  The
 * reader polls the header at its own position, never the producers' line,
 * and zeroes what it has read before it frees it: below prod_pos a zero
 * header is a reservation not written yet, a nonzero one was written in
 * this lap.  Records come out in reservation order: the reader stops at
 * the first BUSY or unwritten record.  The records are perf records as in
 * <perfring/ring.h> (struct pfr_record), misc holding the producer index.
 *
 *   PRODUCER (any number)                 READER (one)
 *   pos = LOAD(->prod_pos)                hdr = LOAD(header at tail)  (C2)
 *   [cons = LOAD(->cons_pos)]      (A)    if (!hdr, 64th poll or stopped)
 *   STORE slot->res_end = end               prod = LOAD(->prod_pos)   (C1)
 *   STORE slot->res_pos = pos      (N)    if (BUSY, or 0 below prod) stop
 *   CAS(->prod_pos, pos, end)      (R)    LOAD record
 *   STORE header = BUSY (PAD, LOST) (H)   STORE(->free_pos, tail)
 *   STORE payload                         zero what was read
 *   STORE header = type            (B)    STORE(->cons_pos, tail)     (D)
 *
 * [A] only when the private copy of cons_pos shows too little room; a CAS
 * that fails starts again from the top.
 *
 * A pairs with D: a producer stores into freed space only after loading
 * the consumer position that freed it, and the reader's loads and zeroing
 * of that space happen before its store of the position (load buffering;
 * A an acquire load, D a release store); the private copy is a lower
 * bound from an earlier A.
 * R pairs with C1: the announcement (N) is stored before the CAS that
 * takes the space, so a reader that sees prod_pos past a zero header sees
 * the announcement naming it (message passing; R a release CAS).
 * N pairs with the reader's acquire load of res_pos in pfr__mpsc_hole():
 * an announcement that no longer names the tail comes after its owner's
 * commit there (B before the next N, in program order).
 * H pairs with C2: the CAS is ordered before every header stored in the
 * space it took, so a reader that passes a PAD or a dead owner's BUSY
 * record and frees it (D) has seen the CAS: cons_pos never passes a
 * prod_pos loaded after it.
 * B pairs with C2: the payload stores happen before the committed header
 * (a release store of the whole 8-byte header); the reader loads the
 * header with acquire and only then the payload (message passing).
 * Zeroing: the reader's zero stores come before D, and a producer's H and
 * B after A, so the zeroes of one lap never land on the next lap's
 * headers, and a header the reader loads nonzero is this lap's.
 *
 * Why this design.  The goal: one read-modify-write on one shared line
 * per reservation, no store into the data area before the space is
 * taken, a reader that does not poll the producers' line, and a ring that
 * no producer killed at any instruction can wedge.  Counted per
 * uncontended reservation (docs/mpsc.md counts the whole paths):
 * - announce + CAS (chosen): one RMW (the CAS on line 1; a relaxed
 *   fetch-add of `records` as well on PFR_MPSC_WAIT rings), two stores to
 *   the producer's own slot, then the headers.  Contended, one CAS per
 *   attempt, and a lost CAS means another producer's won (lock-free).
 *   Killed before R: nothing taken; its announcement is stale and names
 *   space it never took.  Between R and H: the header stays zero, and the
 *   reader sizes the hole from the announcement.  Between H and B: the
 *   BUSY header names its owner (index, generation) and its size.
 * - fetch-and-add with a per-producer intent: one RMW that never fails,
 *   but the position is known only after it, so the intent that names it
 *   is stored after the RMW (a producer killed in between leaves a hole
 *   nothing sizes), and space cannot be checked before it is taken (an
 *   overshoot owns space still being read, which DROP cannot give back,
 *   and a reservation across the end must be padded by someone later).
 * - a queue lock with the header written after publication: first come,
 *   first served, but one RMW to take it and a store to a shared line to
 *   pass it on, and a holder or queued waiter preempted or killed stops
 *   every producer behind it until it runs again or is proven dead and
 *   its queue repaired.
 * - combining (one producer reserves for the requests others published):
 *   one RMW per batch, but a request store and a reply store per record,
 *   and a combiner preempted or killed holds every request it took.
 * Only the first is lock-free and keeps every reservation either untaken
 * or sizable from memory its owner wrote before taking it; it costs a
 * zeroing reader (a store per consumed word, in the reader's batch) and a
 * fairness flag.
 *
 * Fairness.  A CAS loop is lock-free, not starvation-free.  A producer
 * that lost PFR__MPSC_FAIR_TRIES CASes raises `starving` (its stamp, on
 * line 1); the others' fast path sees it and their slow path spins until
 * it drops, up to a bound, then goes on, so a preempted or dead flag
 * holder delays each reservation by that spin only, and a flag whose
 * owner is proven gone (or a malformed one) is cleared.
 *
 * Markers.  BUSY and DISCARD live in the header's type, which perfring
 * already reserves above PFR_RECORD_USER_MAX: BUSY is 0xc0000000 | the
 * producer slot's generation (30 bits), DISCARD is PFR_RECORD_DISCARD.
 * misc holds the producer index and size the record's size, in every
 * state, so a BUSY record can always be skipped and its owner named; the
 * whole header is loaded and stored as one 8-byte word.  Nothing is
 * stored into a record's space before its header (a LOST record's BUSY
 * header precedes its payload), so an unwritten record is all zero.
 *
 * Stalls and dead producers.  A producer preempted between its CAS and
 * its commit stalls the reader; the kernel's producers cannot be
 * preempted there, ours can.  The reader stops (pfr_mpsc_next() returns
 * 0: drained for now), counts the stop and its duration, and after the
 * stall time-out (pfr_mpsc_set_stall(), default 1 s) checks the owner, at
 * most once a millisecond: a producer proven dead (its slot's generation
 * moved on, or its thread is gone, a zombie, or another thread: the start
 * time in /proc/<tid>/task/<tid>/stat, field 22, differs from the one its
 * join recorded, tagged with the generation) can never write into the
 * record again.  A dead owner's BUSY record is loaded again (it may have
 * committed before it died) and then skipped; a zero header is sized by
 * pfr__mpsc_hole() from the announcements that cover it: all their owners
 * dead, the longest that covers only zero words and ends neither past
 * prod_pos nor past the start of another announced reservation.  A live
 * owner makes pfr_mpsc_next() return -PFR_E_STALLED (the reader stays at
 * the record and may call again).  Thread start times rather than pidfds:
 * producers are often threads (a pidfd names a thread group leader before
 * Linux 6.9), an fd cannot live in the ring's memory, and the check runs
 * only on the stall path.  All parties share a pid namespace (join
 * refuses another).  Join claims a slot with a CAS, and only once the
 * reader has passed its previous owner's announcement.  A reader killed
 * while zeroing leaves free_pos ahead of cons_pos: the next reader
 * finishes the zeroing; LOST records read again after a reader's death
 * are counted once (lost_upto).
 *
 * Hostile shared memory is an input error, never a crash, hang or access
 * out of bounds: a producer position more than the data size ahead of the
 * reader (-PFR_E_HEAD_AHEAD), behind it (-PFR_E_HEAD_BEHIND) or misaligned
 * (-PFR_E_RECSIZE_ALIGN; to a producer, -PFR_E_LAYOUT), a forged size
 * (-PFR_E_RECSIZE_*), a BUSY header naming a producer slot that does not
 * exist (-PFR_E_LAYOUT), a BUSY header that never clears or a zero header
 * no announcement names (-PFR_E_STALLED after the time-out, every call
 * after), a free_pos out of range (pfr_mpsc_reader(): -PFR_E_LAYOUT).
 *
 * Policies: DROP (a record that does not fit is counted as lost for its
 * producer; a LOST record { id = producer index, lost } precedes the
 * producer's next record) and BLOCK (the producer waits for space, up to
 * its time-out, then drops and counts as DROP).  For every producer,
 * records written = records read + lost.  Drops whose producer left
 * without room for its LOST record, or died, go out in the LOST record of
 * the slot's next owner, or, with none, of the reader itself: once the
 * ring is drained it claims such a slot as a joiner would and sends the
 * count in the slot's name (pfr_mpsc_lost_counts()).
 */
#ifndef PERFRING_MPSC_H
#define PERFRING_MPSC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfring/barrier.h>
#include <perfring/common.h>
#include <perfring/ring.h>

PFR__EXTERN_C_BEGIN

/* Header types of the shared ring (PFR_RECORD_PAD and PFR_RECORD_LOST as
 * in <perfring/ring.h>).  A BUSY type carries the producer slot's
 * generation in its low 30 bits. */
#define PFR_RECORD_DISCARD 0x80000002u
#define PFR_MPSC_BUSY 0xc0000000u
#define PFR_MPSC_GEN_MASK 0x3fffffffu

#define PFR_MPSC_MAGIC 0x4353504d52524650ull /* "PFRRMPSC" little-endian */
#define PFR_MPSC_VERSION 3u /* 3: lock-free reservation, zeroing reader */
#define PFR_MPSC_PRODUCERS_MAX 4096u
/* Flags: the reader may sleep in pfr_mpsc_wait() (one smp_mb per commit). */
#define PFR_MPSC_WAIT 0x1u

/* A producer slot in the shared table (PFR_RING_LINE bytes: the
 * announcement stores of one producer never touch the line pair of
 * another, adjacent-line prefetch included).  owner packs the slot's
 * generation (high 32 bits, incremented at every join) and the owning
 * thread id (low 32 bits, 0 when free); it is claimed with one CAS.
 * res_pos/res_end announce the reservation the owner is making or holds
 * ([res_pos, res_end), stored before its CAS on prod_pos): the reader
 * sizes a dead owner's unwritten record from them. */
struct pfr_mpsc_slot {
	uint64_t owner;
	uint64_t start_time; /* stat field 22 of the thread (low 40 bits),
			      * tagged with the generation (its low 24 bits
			      * above them); 0: unknown */
	uint64_t lost_total; /* records this owner dropped */
	uint64_t lost_due; /* drops to report, ever, every owner (+1 each) */
	uint64_t lost_reported; /* drops the reader has read in LOST records,
				 * ever (written by the reader only) */
	uint64_t lost_left; /* drops a leaving owner could not report */
	uint64_t res_pos; /* announced reservation: start ... */
	uint64_t res_end; /* ... and end (res_pos == res_end: none) */
	uint8_t pad[PFR_RING_LINE - 64];
};

/*
 * The control block at the start of the shared object.  Line 0 is written
 * once at creation; line 1 is the producers' (one CAS per reservation);
 * line 2 the reader's, with writer_waiting, which the reader loads after
 * each consumer store; line 3 the wake-up words, written when a side goes
 * to sleep and loaded by the other side after each commit or consume.
 * The producer table starts at table_offset, the data area (a power of
 * two) at data_offset (a page multiple).  The reader polls the data area
 * (the header at its position), not line 1.
 */
struct pfr_mpsc_ctl {
	/* line 0: immutable after creation */
	uint64_t magic;
	uint32_t version;
	uint32_t ctl_size;
	uint64_t data_offset;
	uint64_t data_size;
	uint64_t table_offset;
	uint32_t max_producers;
	uint32_t policy;
	uint32_t flags;
	uint32_t max_record;
	uint64_t pidns; /* inode of the creator's pid namespace */
	uint8_t pad0[PFR_RING_LINE - 64];

	/* line 1: the producers' */
	uint64_t prod_pos; /* end of the last reservation (R -> C1) */
	uint64_t starving; /* 0, or the stamp of a producer the others let
			    * go first (fairness, pfr__mpsc_reserve_slow()) */
	uint64_t records; /* records reserved, ever (PFR_MPSC_WAIT rings) */
	uint8_t pad1[PFR_RING_LINE - 24];

	/* line 2: the reader's */
	uint64_t cons_pos; /* consumed and zeroed up to here (D -> A) */
	uint64_t free_pos; /* being zeroed up to here (a reader killed
			    * while zeroing: the next one finishes) */
	uint64_t reader_owner; /* reader's tid (low 32 bits), 0: none */
	uint64_t reader_start; /* its start time */
	uint32_t writer_waiting; /* futex: BLOCK producers asleep */
	uint32_t pad2a;
	uint64_t lost_upto; /* LOST records below this position are counted
			     * in their slot's lost_reported (a reader that
			     * reads them again after a reader's death does
			     * not count them twice) */
	uint8_t pad2[PFR_RING_LINE - 48];

	/* line 3: wake-up */
	uint32_t reader_waiting; /* futex: the reader is asleep */
	uint32_t wake_bytes; /* wake at this many reserved bytes ... */
	uint32_t wake_records; /* ... or this many reserved records */
	uint32_t pad3a;
	uint64_t wake_mark; /* `records` when the reader went to sleep */
	uint8_t pad3[PFR_RING_LINE - 24];
};

PFR__STATIC_ASSERT(sizeof(struct pfr_mpsc_slot) == PFR_RING_LINE, "slot size");
PFR__STATIC_ASSERT(offsetof(struct pfr_mpsc_ctl, prod_pos) == PFR_RING_LINE,
		   "prod_pos starts line 1");
PFR__STATIC_ASSERT(offsetof(struct pfr_mpsc_ctl, cons_pos) == 2 * PFR_RING_LINE,
		   "cons_pos starts line 2");
PFR__STATIC_ASSERT(offsetof(struct pfr_mpsc_ctl, reader_waiting) ==
			   3 * PFR_RING_LINE,
		   "wake-up words on line 3");
PFR__STATIC_ASSERT(sizeof(struct pfr_mpsc_ctl) == 4 * PFR_RING_LINE,
		   "four lines");

/* The handle: one mapping of a shared ring (private, POSIX shm, memfd). */
struct pfr_mpsc;

/* sz as in struct pfr_ring_opts (<perfring/ring.h>). */
struct pfr_mpsc_opts {
	size_t sz; /* sizeof(struct pfr_mpsc_opts), or 0 */
	uint64_t data_size; /* power of two >= 4096; 0: 1 MiB */
	enum pfr_policy policy; /* DROP or BLOCK */
	uint32_t flags; /* PFR_MPSC_* */
	uint32_t max_producers; /* 1..PFR_MPSC_PRODUCERS_MAX; 0: 64 */
	uint32_t mode; /* shm permission bits; 0: 0600 */
};

/* A producer's private state.  Fields are private: use the functions. */
struct pfr_mpsc_producer {
	struct pfr_mpsc_ctl *ctl;
	struct pfr_mpsc_slot *slot;
	unsigned char *data;
	uint64_t mask; /* data_size - 1 */
	uint64_t lock_word; /* stamp: (gen << 32) | (index + 1) */
	uint64_t cons_cache; /* cons_pos as last loaded (A), private */
	uint64_t res_pos; /* reserved record's position */
	uint64_t records; /* records committed, ever */
	uint64_t lost; /* dropped since the last LOST record */
	uint64_t lost_total;
	uint64_t timeout_ns; /* BLOCK: longest wait in reserve */
	uint32_t res_size; /* reserved record's size (0: none) */
	uint32_t res_type;
	uint32_t index, gen;
	uint32_t max_record, max_producers;
	uint8_t policy, wait_flag, pad[6];
};

/* The reader's private state. */
struct pfr_mpsc_reader {
	struct pfr_mpsc_ctl *ctl;
	struct pfr_mpsc *m;
	const unsigned char *data;
	uint64_t mask;
	uint64_t head; /* end of the record begin found (or tail) */
	uint64_t tail; /* consumed so far (private) */
	uint64_t published; /* tail as last stored (D) */
	uint64_t stall_pos; /* BUSY record the reader stopped at, or ~0 */
	uint64_t stall_start; /* when (CLOCK_MONOTONIC ns) */
	uint64_t stall_timeout; /* ns before a live owner is reported */
	uint64_t last_check; /* last liveness check of that owner */
	uint64_t busy_stops, stalls, stall_ns, stall_max_ns;
	uint64_t dead_skipped, discarded, records;
	uint64_t idle; /* polls that found nothing at the tail */
	uint32_t max_producers;
	uint32_t flags;
};

/* Counters of a ring and its reader. */
struct pfr_mpsc_stats {
	uint64_t prod_pos, cons_pos, data_size;
	uint64_t records_reserved; /* ever, by all producers */
	uint64_t lost_total; /* sum of every slot's lost_total: the current
			      * owners' drops, reported or not (the two
			      * apart: pfr_mpsc_lost_counts()) */
	/* the reader's (zero for a handle that has no reader here): */
	uint64_t records_read; /* records returned by pfr_mpsc_next() */
	uint64_t busy_stops; /* times the reader stopped at a BUSY record */
	uint64_t stalls; /* BUSY records held past the stall time-out */
	uint64_t stall_ns; /* total time stopped at BUSY records */
	uint64_t stall_max_ns; /* longest single stop */
	uint64_t dead_skipped; /* BUSY records of dead producers skipped */
	uint64_t discarded; /* DISCARD records skipped */
};

/* Create a shared ring in private memory (one process; inherited across
 * fork), in a new POSIX shared-memory object /NAME (O_EXCL), or in a new
 * memfd (sealed against shrinking; pfr_mpsc_fd() gives the fd).
 * Returns 0 or -PFR_E_INVAL / -PFR_E_SYSTEM.
 * Concurrency: any thread.  Progress: blocking (allocates, maps). */
PFR_API int pfr_mpsc_create(struct pfr_mpsc **m,
			    const struct pfr_mpsc_opts *opts);
PFR_API int pfr_mpsc_create_shm(struct pfr_mpsc **m, const char *name,
				const struct pfr_mpsc_opts *opts);
PFR_API int pfr_mpsc_create_memfd(struct pfr_mpsc **m,
				  const struct pfr_mpsc_opts *opts);
/* Attach to an existing shared ring by shm name or by fd (dup'ed).
 * Validates magic, version and every size and offset before trusting
 * them (-PFR_E_MAGIC, -PFR_E_VERSION, -PFR_E_LAYOUT, -PFR_E_MAPPING); a
 * mapping larger than max_bytes (0: 1 GiB + 1 MiB) is refused with
 * -PFR_E_LAYOUT.  Concurrency: any thread.  Progress: blocking. */
PFR_API int pfr_mpsc_attach_shm(struct pfr_mpsc **m, const char *name,
				uint64_t max_bytes);
PFR_API int pfr_mpsc_attach_fd(struct pfr_mpsc **m, int fd, uint64_t max_bytes);
/* The same with the attach limit of the ring and the group (docs/api.md):
 * opts->max_data_size caps the data area (0: PFR_RING_ATTACH_MAX_DEFAULT,
 * 1 GiB); a larger ring is refused with -PFR_E_TOOBIG before it is
 * mapped.  opts must not be NULL; -PFR_E_INVAL for an sz too small or
 * unknown flags.  Prefer these to the two above, whose max_bytes is
 * positional and counts the whole mapping (refused: -PFR_E_LAYOUT).
 * Concurrency: any thread.  Progress: blocking. */
PFR_API int pfr_mpsc_attach_shm_opts(struct pfr_mpsc **m, const char *name,
				     const struct pfr_ring_attach_opts *opts);
PFR_API int pfr_mpsc_attach_fd_opts(struct pfr_mpsc **m, int fd,
				    const struct pfr_ring_attach_opts *opts);
/* Unmap and free (does not unlink; producers must have left). */
PFR_API void pfr_mpsc_close(struct pfr_mpsc *m);
PFR_API int pfr_mpsc_unlink(const char *name);
PFR_API int pfr_mpsc_fd(const struct pfr_mpsc *m);
PFR_API int pfr_mpsc_sealed(const struct pfr_mpsc *m);
/* The ring's control block (NULL for NULL).  pfr_mpsc_ctl() is the same
 * function under the struct's own name (deprecated: one name, one
 * thing). */
PFR_API struct pfr_mpsc_ctl *pfr_mpsc_control(const struct pfr_mpsc *m);
PFR_API struct pfr_mpsc_ctl *pfr_mpsc_ctl(const struct pfr_mpsc *m);

/* Join as a producer, with the group's convention (docs/api.md): as
 * pfr_mpsc_join() below, but returns the producer's index (>= 0: misc of
 * its records, id of its LOST records), -PFR_E_FULL when no slot is free
 * and passed (the group's "no free slot"), or -PFR_E_INVAL.
 * Concurrency and progress: as pfr_mpsc_join(). */
PFR_API int pfr_mpsc_producer_join(struct pfr_mpsc *m,
				   struct pfr_mpsc_producer *p);
/* Leave, as pfr_mpsc_leave(), with the group's return: 0, or -PFR_E_INVAL
 * (p NULL, or not joined).
 * Concurrency: the producer's thread.  Progress: wait-free. */
PFR_API int pfr_mpsc_producer_leave(struct pfr_mpsc_producer *p);

/* Deprecated (0.2's conventions; they stay, for the programs that use
 * them): pfr_mpsc_join() returns 0 and -PFR_E_BUSY where
 * pfr_mpsc_producer_join() returns the index and -PFR_E_FULL.
 * Join as a producer: claims a free slot of the producer table (one CAS),
 * or the slot of a producer proven dead, records this thread's id and
 * start time, and fills *p.  A slot is claimed only once the reader has
 * passed its previous owner's announced reservation.  -PFR_E_BUSY when
 * no slot is free and passed, -PFR_E_INVAL from another pid namespace.
 * Concurrency: any thread, one struct pfr_mpsc_producer per thread.
 * Progress: lock-free (reads /proc when the table is full). */
PFR_API int pfr_mpsc_join(struct pfr_mpsc *m, struct pfr_mpsc_producer *p);
/* Leave: discards an open reservation, stores the counters, frees the
 * slot.  Concurrency: the producer's thread.  Progress: wait-free. */
PFR_API void pfr_mpsc_leave(struct pfr_mpsc_producer *p);
/* How long pfr_mpsc_reserve() waits for space on a BLOCK ring: default
 * 1 s; UINT64_MAX: forever.  (A DROP ring never waits for space.) */
PFR_API void pfr_mpsc_set_timeout(struct pfr_mpsc_producer *p, uint64_t ns);

/* Reserve space for a record of `len` payload bytes (rounded up to 8) of
 * `type` (<= PFR_RECORD_USER_MAX, not PFR_RECORD_LOST, which the ring
 * writes itself: a forged short LOST record would stop the reader for
 * every producer) and return a pointer to its payload.
 * The reader sees nothing of it until pfr_mpsc_commit(), and stops at it
 * until then: commit (or discard) soon.  One reservation at a time per
 * producer.  Returns 0, -PFR_E_NOSPC (DROP: counted as lost),
 * -PFR_E_TIMEDOUT (BLOCK: counted as lost), -PFR_E_INVAL (too large, a
 * reserved type, or a reservation already open: not counted), or
 * -PFR_E_HEAD_AHEAD / -PFR_E_HEAD_BEHIND / -PFR_E_LAYOUT for hostile
 * shared positions (not counted).  It never returns -PFR_E_STALLED: no
 * other producer holds anything a reservation waits for.
 * Concurrency: any number of producers at once, each with its own
 * struct pfr_mpsc_producer.  Progress: DROP lock-free (one CAS per try;
 * a lost CAS means another producer's won; a raised fairness flag costs a
 * bounded spin); BLOCK blocking (waits for space, up to the time-out). */
PFR__INLINE int pfr_mpsc_reserve(struct pfr_mpsc_producer *p, uint32_t type,
				 size_t len, void **payload);
/* Make the reserved record readable (B).  Wakes a sleeping reader on
 * PFR_MPSC_WAIT rings.  Concurrency: the reserving producer.  Progress:
 * wait-free (a futex wake when the reader sleeps). */
PFR__INLINE void pfr_mpsc_commit(struct pfr_mpsc_producer *p);
/* Cancel the reserved record: the reader skips it (counted in the
 * reader's `discarded`).  Concurrency and progress as commit. */
PFR__INLINE void pfr_mpsc_discard(struct pfr_mpsc_producer *p);
/* reserve + copy + commit: 0 or a reserve error. */
PFR__INLINE int pfr_mpsc_write(struct pfr_mpsc_producer *p, uint32_t type,
			       const void *buf, size_t len);
/* Writes n records of `type`, each of `len` payload bytes, from buf (the
 * payloads back to back, len bytes apart).  When the ring has room for
 * all n in one stretch (no wrap at the end, no LOST record pending, at
 * most PFR_RECORD_MAX bytes in all, no fairness flag raised, the CAS won
 * within PFR__MPSC_FAIR_TRIES tries) they take one announcement (N), one
 * CAS on the producer position (R) and one BUSY header (H); the other
 * headers are plain stores, and one release store of the first header
 * (B) commits them all.  Otherwise the records go one by one as
 * with pfr_mpsc_write().  Returns 0, -PFR_E_INVAL (as reserve, or n * len
 * overflows: nothing written) or the first record's reserve error (the
 * records before it are written, those after are not tried).
 * Concurrency and progress: as pfr_mpsc_reserve(). */
PFR_API int pfr_mpsc_write_burst(struct pfr_mpsc_producer *p, uint32_t type,
				 const void *buf, size_t len, size_t n);
/* Writes a pending LOST record if it fits now (never waits) and stores
 * the producer's counters in its slot.  0, or -PFR_E_NOSPC when the LOST
 * record did not fit (it stays pending).  Concurrency: the producer's
 * thread.  Progress: lock-free (as a DROP reservation). */
PFR_API int pfr_mpsc_flush(struct pfr_mpsc_producer *p);
/* The producer's index (misc of its records, id of its LOST records). */
static inline unsigned
pfr_mpsc_producer_index(const struct pfr_mpsc_producer *p)
{
	return p->index;
}
/* Records this producer dropped, ever. */
static inline uint64_t pfr_mpsc_lost(const struct pfr_mpsc_producer *p)
{
	return p->lost_total;
}
/* Largest payload one record takes. */
static inline size_t pfr_mpsc_max_payload(const struct pfr_mpsc_producer *p)
{
	return p->max_record - sizeof(struct pfr_record_header);
}
/* 1 when a reader is attached and alive, 0 when there is none or it died
 * (its thread is gone or another one): a producer that waits for a reader
 * asks this.  Concurrency: any thread.  Progress: blocking (reads /proc). */
PFR_API int pfr_mpsc_reader_alive(struct pfr_mpsc *m);

/* Open the reader side: continues from the consumer position (a reader
 * that replaces a dead one resumes there).  Returns 0, -PFR_E_BUSY when a
 * live reader holds it, -PFR_E_INVAL, or a -PFR_E_LAYOUT for a hostile
 * free position.  Concurrency: one reader per ring.  Progress: blocking
 * (reads /proc). */
PFR_API int pfr_mpsc_reader_open(struct pfr_mpsc *m, struct pfr_mpsc_reader *r);
/* The same under the struct's own name (deprecated: one name, one
 * thing). */
PFR_API int pfr_mpsc_reader(struct pfr_mpsc *m, struct pfr_mpsc_reader *r);
/* Release the reader role (the ring stays). */
PFR_API void pfr_mpsc_reader_close(struct pfr_mpsc_reader *r);
/* Start a batch: load the header at the reader's position (C2).  Returns
 * its size when something is written there (committed or not; 8 for a
 * size 0, which next reports), else 0; every 64th such poll, and every
 * poll while stopped at an unwritten reservation, it loads the producer
 * position (C1) and returns the bytes reserved beyond the reader, or
 * -PFR_E_HEAD_AHEAD / -PFR_E_HEAD_BEHIND / -PFR_E_RECSIZE_ALIGN for a
 * hostile one.  Concurrency: the reader only.  Progress: wait-free. */
PFR__INLINE int64_t pfr_mpsc_begin(struct pfr_mpsc_reader *r);
/* Next committed record at the reader's position: 1 with *rec
 * filled (payload valid until pfr_mpsc_end()), 0 when drained or stopped
 * at a BUSY record (for now), -PFR_E_STALLED when a BUSY record's live
 * owner held it past the stall time-out, or a -PFR_E_RECSIZE_* /
 * -PFR_E_LAYOUT error for a hostile header (the reader stays at it).
 * Skips PAD and DISCARD records, and BUSY or unwritten records of dead
 * producers.
 * Concurrency: the reader only.  Progress: wait-free (reads /proc when a
 * stall passes its time-out, at most once per millisecond). */
PFR__INLINE int pfr_mpsc_next(struct pfr_mpsc_reader *r,
			      struct pfr_record *rec);
/* End the batch: zero what was read, then store the consumer position
 * (D), freeing it; wakes BLOCK producers that sleep for space. */
PFR__INLINE void pfr_mpsc_end(struct pfr_mpsc_reader *r);
/* End the batch, then sleep until a committed record is ready and the
 * reserved bytes or records reach the thresholds, a BUSY record at the
 * reader passes the stall time-out (-PFR_E_STALLED, after skipping it if
 * its owner is dead), or timeout_ns passes (-PFR_E_TIMEDOUT; UINT64_MAX:
 * forever).  Returns the bytes available otherwise.  Needs PFR_MPSC_WAIT.
 * Progress: blocking. */
PFR_API int64_t pfr_mpsc_wait(struct pfr_mpsc_reader *r, uint64_t timeout_ns);
/* Wake-up thresholds for pfr_mpsc_wait(): reserved bytes beyond the
 * reader (capped at half the data area) and/or records reserved since the
 * wait began (0: any data / no record threshold). */
PFR_API void pfr_mpsc_set_wakeup(struct pfr_mpsc_reader *r, uint32_t bytes,
				 uint32_t records);
/* How long a BUSY record may hold the reader before it checks the owner
 * and reports -PFR_E_STALLED (default 1 s). */
PFR_API void pfr_mpsc_set_stall(struct pfr_mpsc_reader *r, uint64_t ns);

/* The ring's drops, ever, over every producer slot, reported apart from
 * pending (pfr_mpsc_stats().lost_total, the current owners' drops, mixes
 * the two): *reported, the drops a reader has read in LOST records;
 * *pending, the drops no reader has read yet, still counted in their
 * slot.  A pending drop goes out in a LOST record of its slot's index at
 * the owner's next record, pfr_mpsc_flush() or pfr_mpsc_leave() (when the
 * record fits), else at the slot's next pfr_mpsc_join(), else by the
 * reader: once the ring is drained (checked at most once a millisecond)
 * and at pfr_mpsc_reader_close(), it reports the drops of every slot that
 * is free or whose owner is proven dead.  A drained ring whose producers
 * have all left or died has none pending.  Either pointer may be NULL.
 * Concurrency: any thread (each slot's pair is loaded apart; a drop
 * counted meanwhile shows at the next call).  Progress: wait-free. */
PFR_API void pfr_mpsc_lost_counts(const struct pfr_mpsc *m, uint64_t *reported,
				  uint64_t *pending);

/* Counters of the ring (and of r's reader, if r is not NULL). */
PFR_API void pfr_mpsc_stats(const struct pfr_mpsc *m,
			    const struct pfr_mpsc_reader *r,
			    struct pfr_mpsc_stats *st);

/* ---- internals of the inline functions (not for callers) ---- */

PFR_API int pfr__mpsc_reserve_slow(struct pfr_mpsc_producer *p, uint32_t size);
PFR_API void pfr__mpsc_wake_reader(struct pfr_mpsc_producer *p, uint64_t pos,
				   uint64_t end);
PFR_API int pfr__mpsc_next_slow(struct pfr_mpsc_reader *r,
				struct pfr_record *rec);
PFR_API int64_t pfr__mpsc_begin_slow(struct pfr_mpsc_reader *r);
PFR_API void pfr__mpsc_wake_writers(struct pfr_mpsc_reader *r);

/*
 * The shared ring's compare-and-swap, with the caller's ordering on
 * success (relaxed on failure).  The model build (tests/model/) maps the
 * same call, ordering included, onto its checker, so a weakened order at
 * a call site is a mutant the model sees.  Positions and headers are
 * 8-byte words: one untorn access on every target perfring supports.
 */
#ifndef pfr__mpsc_cas
#define pfr__mpsc_cas(p, expp, v, mo)                                          \
	__atomic_compare_exchange_n((p), (expp), (v), 0, (mo), __ATOMIC_RELAXED)
#endif
/* R: the reservation's CAS on prod_pos. */
#define pfr__mpsc_cas_release(p, expp, v)                                      \
	/* R: pairs with C1 (load_acquire of prod_pos) in the reader's */      \
	/* stall path: the announcement before the position it names */        \
	/* (R pairs with C1: litmus/mpsc-reserve.litmus) */                    \
	pfr__mpsc_cas((p), (expp), (v), __ATOMIC_RELEASE)

/* The header word of {type, misc, size}: the perf header's bytes, loaded
 * and stored as one 8-byte word (the same bytes on either endianness). */
PFR__INLINE uint64_t pfr__mpsc_hdr(uint32_t type, uint32_t misc, uint64_t size)
{
	struct pfr_record_header h;
	uint64_t w;

	h.type = type;
	h.misc = (uint16_t)misc;
	h.size = (uint16_t)size;
	memcpy(&w, &h, sizeof(w));
	return w;
}

/* Announces [pos, end) in the producer's own slot before the CAS that
 * takes it (N). */
PFR__INLINE void pfr__mpsc_announce(struct pfr_mpsc_producer *p, uint64_t pos,
				    uint64_t end)
{
	PFR_WRITE_ONCE(p->slot->res_end, end);
	/* N: pairs with the load_acquire of res_pos in the reader's
	 * pfr__mpsc_hole(): this producer's earlier commit (B) before the
	 * announcement that replaces the one naming it
	 * (litmus/mpsc-announce.litmus) */
	pfr_smp_store_release(&p->slot->res_pos, pos);
}

/* H: stores a header into the producer's reserved space (BUSY, or a
 * PAD) after the CAS that took it. */
PFR__INLINE void pfr__mpsc_store_hdr(struct pfr_mpsc_producer *p, uint64_t pos,
				     uint64_t hdr)
{
	/* H: pairs with C2 (load_acquire of the header) in pfr_mpsc_next()
	 * and pfr_mpsc_begin(): the reservation's CAS (R) before its
	 * header, so that a reader that moves past the header (a PAD, or
	 * a dead owner's BUSY record) and frees it (D) has the CAS before:
	 * cons_pos never passes a prod_pos loaded after it (a producer's
	 * reserve, the reader's begin): litmus/mpsc-pad.litmus */
	pfr_smp_store_release((uint64_t *)(p->data + (pos & p->mask)), hdr);
}

/* H: the BUSY header of a record of `size` bytes at pos. */
PFR__INLINE void pfr__mpsc_store_busy(struct pfr_mpsc_producer *p, uint64_t pos,
				      uint64_t size)
{
	pfr__mpsc_store_hdr(
		p, pos, pfr__mpsc_hdr(PFR_MPSC_BUSY | p->gen, p->index, size));
}

/* C2: loads the header at offset off of the data area. */
PFR__INLINE uint64_t pfr__mpsc_load_hdr(const struct pfr_mpsc_reader *r,
					uint64_t off)
{
	/* C2: pairs with B (store_release of the committed header) in
	 * pfr__mpsc_finish(): the header before the payload loads
	 * (litmus/mpsc-commit.litmus); and with H (litmus/mpsc-pad.litmus) */
	return pfr_smp_load_acquire((const uint64_t *)(r->data + off));
}

PFR__INLINE int pfr_mpsc_reserve(struct pfr_mpsc_producer *p, uint32_t type,
				 size_t len, void **payload)
{
	struct pfr_mpsc_ctl *c = p->ctl;
	uint64_t size = pfr__record_size(len), pos, end, mask = p->mask;
	int err;

	if (__builtin_expect(len + 8 > p->max_record || len > p->max_record ||
				     type > PFR_RECORD_USER_MAX ||
				     type == PFR_RECORD_LOST || p->res_size,
			     0))
		return -PFR_E_INVAL;
	p->res_type = type;
	pos = PFR_READ_ONCE(c->prod_pos);
	end = pos + size;
	/* Fast path: nothing to report, no producer waiting its turn,
	 * 8-aligned, room by the cached consumer position (a lower bound
	 * of the real one: end - cache <= size also rules out a hostile
	 * prod_pos), no wrap at the end; then one CAS. */
	if (__builtin_expect(!p->lost && !(pos & 7) &&
				     !PFR_READ_ONCE(c->starving) &&
				     end - p->cons_cache <= mask + 1 &&
				     (pos & mask) + size <= mask + 1,
			     1)) {
		pfr__mpsc_announce(p, pos, end); /* N */
		if (__builtin_expect(pfr__mpsc_cas_release(&c->prod_pos, &pos,
							   end), /* R */
				     1)) {
			/* after the CAS only: the space is ours (H) */
			pfr__mpsc_store_busy(p, pos, size);
			if (p->wait_flag)
				__atomic_fetch_add(&c->records, 1,
						   __ATOMIC_RELAXED);
			p->res_pos = pos;
			p->res_size = (uint32_t)size;
			*payload = p->data + (pos & mask) + 8;
			return 0;
		}
	}
	err = pfr__mpsc_reserve_slow(p, (uint32_t)size);
	if (err)
		return err;
	*payload = p->data + (p->res_pos & mask) + 8;
	return 0;
}

/* PFR_MPSC_WAIT rings: wakes the reader if it sleeps (after a commit). */
PFR__INLINE void pfr__mpsc_commit_wake(struct pfr_mpsc_producer *p,
				       uint64_t pos, uint64_t end)
{
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_mpsc_wait(): header store before reader_waiting load
	 * (litmus/mpsc-wake-commit.litmus) */
	pfr_smp_mb();
	if (PFR_READ_ONCE(p->ctl->reader_waiting))
		pfr__mpsc_wake_reader(p, pos, end);
}

/* Replaces the reserved record's BUSY header with `type` (B). */
PFR__INLINE void pfr__mpsc_finish(struct pfr_mpsc_producer *p, uint32_t type)
{
	uint64_t pos = p->res_pos, size = p->res_size;

	if (!size)
		return;
	/* B (commit): pairs with C2 (load_acquire of the header) in
	 * pfr_mpsc_next(): the payload before the committed header
	 * (litmus/mpsc-commit.litmus) */
	pfr_smp_store_release((uint64_t *)(p->data + (pos & p->mask)),
			      pfr__mpsc_hdr(type, p->index, size));
	p->res_size = 0;
	if (p->wait_flag)
		pfr__mpsc_commit_wake(p, pos, pos + size);
}

PFR__INLINE void pfr_mpsc_commit(struct pfr_mpsc_producer *p)
{
	if (p->res_size)
		p->records++;
	pfr__mpsc_finish(p, p->res_type);
}

PFR__INLINE void pfr_mpsc_discard(struct pfr_mpsc_producer *p)
{
	pfr__mpsc_finish(p, PFR_RECORD_DISCARD);
}

PFR__INLINE int pfr_mpsc_write(struct pfr_mpsc_producer *p, uint32_t type,
			       const void *buf, size_t len)
{
	void *dst;
	int err = pfr_mpsc_reserve(p, type, len, &dst);

	if (err)
		return err;
	if (len)
		memcpy(dst, buf, len);
	pfr_mpsc_commit(p);
	return 0;
}

PFR__INLINE int64_t pfr_mpsc_begin(struct pfr_mpsc_reader *r)
{
	uint64_t raw;
	struct pfr_record_header h;

	if (__builtin_expect(!r->ctl, 0))
		return -PFR_E_INVAL; /* zeroed, or closed */
	/* The reader polls the header at its position, not prod_pos:
	 * consumed space is zeroed, so a nonzero header was written in
	 * this lap (C2, as in pfr_mpsc_next()). */
	raw = pfr__mpsc_load_hdr(r, r->tail & r->mask);
	if (__builtin_expect(!raw, 0))
		return pfr__mpsc_begin_slow(r);
	memcpy(&h, &raw, sizeof(h));
	r->head = r->tail + h.size;
	return h.size ? (int64_t)h.size : 8;
}

PFR__INLINE int pfr_mpsc_next(struct pfr_mpsc_reader *r, struct pfr_record *rec)
{
	uint64_t tail = r->tail, off = tail & r->mask;
	/* what this batch may still read: the rest of the data area
	 * before its end, and at most one lap beyond the last free */
	uint64_t left = r->mask + 1 - (tail - r->published);
	uint64_t room = r->mask + 1 - off;
	struct pfr_record_header h;
	uint64_t raw;

	if (__builtin_expect(!r->data, 0)) {
		memset(rec, 0, sizeof(*rec));
		return 0; /* zeroed, or closed */
	}
	raw = pfr__mpsc_load_hdr(r, off); /* C2, into a private copy */
	memcpy(&h, &raw, sizeof(h));
	if (room < left)
		left = room;
	/* Fast path: a committed user record within bounds; anything
	 * else (nothing yet, BUSY, PAD, DISCARD, LOST, a bad size) goes to
	 * the slow path, which says what it is. */
	if (__builtin_expect(!raw || h.type > PFR_RECORD_USER_MAX ||
				     h.type == PFR_RECORD_LOST ||
				     tail == r->stall_pos || (h.size & 7) ||
				     (uint64_t)h.size - 1 >= left,
			     0)) {
		struct pfr_record slow;
		int rc = pfr__mpsc_next_slow(r, &slow);

		*rec = slow;
		return rc;
	}
	rec->hdr = h;
	rec->payload = r->data + off + sizeof(h);
	rec->len = h.size - (uint32_t)sizeof(h);
	rec->pos = tail;
	r->tail = tail + h.size;
	r->records++;
	return 1;
}

/* BLOCK rings: wakes producers that sleep for space (after a consume). */
PFR__INLINE void pfr__mpsc_end_wake(struct pfr_mpsc_reader *r)
{
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr__mpsc_wait_space(): cons_pos store before the writer_waiting
	 * load (litmus/mpsc-wake-space.litmus) */
	pfr_smp_mb();
	if (PFR_READ_ONCE(r->ctl->writer_waiting))
		pfr__mpsc_wake_writers(r);
}

/* Zeroes [from, to) of the data area (at most one lap, wrapping). */
PFR__INLINE void pfr__mpsc_zero(unsigned char *data, uint64_t mask,
				uint64_t from, uint64_t to)
{
	uint64_t off = from & mask, n = to - from, first = mask + 1 - off;

	if (first > n)
		first = n;
	memset(data + off, 0, (size_t)first);
	if (n > first)
		memset(data, 0, (size_t)(n - first));
}

PFR__INLINE void pfr_mpsc_end(struct pfr_mpsc_reader *r)
{
	if (r->tail == r->published)
		return;
	/* What was read is zeroed before it is freed: below prod_pos, a
	 * zero header is a reservation not written yet.  free_pos first,
	 * so that a reader killed while zeroing leaves the next one the
	 * range to finish (pfr_mpsc_reader()). */
	PFR_WRITE_ONCE(r->ctl->free_pos, r->tail);
	pfr__mpsc_zero((unsigned char *)r->data, r->mask, r->published,
		       r->tail);
	/* D: pairs with A (load_acquire of cons_pos) in
	 * pfr__mpsc_reserve_slow(): the record loads and the zeroing
	 * before the store that frees their space (litmus/mpsc-reuse.litmus) */
	pfr_smp_store_release(&r->ctl->cons_pos, r->tail);
	r->published = r->tail;
	if (r->flags & 1u) /* BLOCK ring */
		pfr__mpsc_end_wake(r);
}

PFR__EXTERN_C_END

#endif /* PERFRING_MPSC_H */
