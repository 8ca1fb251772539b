/* SPDX-License-Identifier: MIT */
/*
 * <perfring/ring-proto.h> - the ring's internals: the protocol's four
 * barriers A-D for each ordering, and every pfr__ helper, flag and slow
 * path that the inline fast paths of <perfring/ring-inline.h> and
 * src/ring/ring.c share.  Included by <perfring/ring.h>; not for direct use,
 * and nothing here is API.
 *
 * Each of A-D is one always_inline function that takes the ordering as a
 * constant argument and switches on it (pfr__space, pfr__publish,
 * pfr__begin, pfr__end), so that a call is that ordering's code alone;
 * PFR__ORD_CALL() picks the constant from a ring's ordering at run time.
 * Everything else is the same for every ordering and is written once.
 *
 *        WRITER                                READER
 *   tail = LOAD(->tail)                  head = LOAD(->head)
 *   (A)                                  (C)
 *   if (space) STORE records             LOAD records up to head
 *   (B)                                  (D)
 *   STORE(->head, new head)              STORE(->tail, new tail)
 *
 * A pairs with D: the reader's loads of a record happen before its store of
 * the tail that frees it (D), and the writer's load of that tail happens
 * before its stores into the freed space (A); without either, the writer
 * can overwrite a record the reader is still reading (load buffering).
 * B pairs with C: the writer's stores of a record happen before its store
 * of head (B), and the reader's load of head happens before its loads of
 * the record (C); without either, the reader sees a new head and stale
 * record bytes (message passing).
 *
 *   ordering  A                       B               C             D
 *   FULL      READ_ONCE; smp_mb       smp_wmb; WRITE  READ; rmb     mb; WRITE
 *   ACQREL    load_acquire            store_release   load_acquire  release
 *   CTRLDEP   load_acquire; if(space) smp_wmb; WRITE  load_acquire  release
 *
 * smp_rmb cannot serve as A, nor smp_wmb as D: neither orders an earlier
 * load before a later store.  CTRLDEP is the kernel's writer of today:
 * smp_wmb() for B, as in perf_output_put_handle(), and for A the branch on
 * the loaded tail, as in perf_output_begin().  The branch alone is not
 * enough here: C11 and the Linux-kernel memory model do not order plain
 * stores (the record is written with memcpy, or by the caller in place)
 * after a control dependency, and the LKMM has no
 * smp_acquire__after_ctrl_dep().  The cheapest completion both models
 * accept is to load tail with acquire (the control dependency alone is
 * "Sometimes" with a data race, litmus/ring-reuse-kernel-ctrldep-plain.litmus;
 * with the acquire load it is "Never", litmus/ring-reuse-ctrldep.litmus),
 * which costs nothing on x86 and s390x and is one ldar on
 * aarch64.  A runs only when the writer's cached tail shows too little
 * space, so its cost is paid once per ring-full of data, not per record.
 *
 * Blocking wake-up is separate from A-D and is the store-buffering shape:
 * each side stores its own word (head, or "reader asleep") and then loads
 * the other's; only smp_mb() orders a store before a later load, on every
 * architecture including x86.  It lives in src/ring/ring.c and
 * pfr_writer_publish().
 */
#ifndef PERFRING_RING_H
#error "include <perfring/ring.h>, not <perfring/ring-proto.h>"
#endif
#ifndef PERFRING_RING_PROTO_H
#define PERFRING_RING_PROTO_H

PFR__EXTERN_C_BEGIN

/* ---- internal state ---- */

/* The reader's internal flags (struct pfr_reader's iflags; its flags hold
 * the public PFR_READER_* ones alone). */
/* The ring's writer may sleep waiting for space (BLOCK): the reader checks
 * for it after publishing tail. */
#define PFR__READER_WAKE_WRITER 0x1u
/* The ring has PFR_RING_WAIT: pfr_reader_wait() may sleep. */
#define PFR__READER_CAN_WAIT 0x2u
/* The ring has PFR_RING_INBAND: begin waits on the header at its tail
 * (pfr__begin_inband()) instead of loading head. */
#define PFR__READER_INBAND 0x4u

/* ---- the slow paths of the inline functions (src/ring/ring.c) ---- */

/* pfr_writer_reserve() for a record of `size` bytes (header included,
 * rounded) that does not fit below the writer's limit: wrap padding, a
 * pending LOST record, and the policy's wait, drop or overwrite. */
PFR_API int pfr__writer_reserve_slow(struct pfr_writer *w, uint32_t size);
/* Wakes the reader sleeping in pfr_reader_wait(). */
PFR_API void pfr__writer_wake_reader(struct pfr_writer *w);
/* pfr_reader_next() for every record its fast path leaves out: PAD and
 * LOST records, a record straddling the end of the data area (kernel
 * rings), and every header that fails a check. */
PFR_API int pfr__reader_next_slow(struct pfr_reader *r, struct pfr_record *rec);
/* Wakes a BLOCK writer sleeping for space. */
PFR_API void pfr__reader_wake_writer(struct pfr_reader *r);

/* ---- A-D, one function each, the ordering a constant argument ---- */

/* fn(args..., ORD), with ORD the constant enum pfr_ordering equal to `ord`
 * (a writer's or reader's ordering, validated when it was opened): the
 * fast paths call A-D through it, so that each call is the one ordering's
 * code, inlined, behind a branch that is perfectly predicted (the kernel's
 * perf_output_begin_forward() calls __perf_output_begin() with a constant
 * `backward` alike).  A switch on the run-time value inside A-D instead
 * measured 2-3 instructions more per record on the reader's paths. */
#define PFR__ORD_CALL(ord, fn, ...)                                            \
	((ord) == PFR_ORDER_ACQREL    ? fn(__VA_ARGS__, PFR_ORDER_ACQREL)      \
	 : (ord) == PFR_ORDER_CTRLDEP ? fn(__VA_ARGS__, PFR_ORDER_CTRLDEP)     \
				      : fn(__VA_ARGS__, PFR_ORDER_FULL))

/*
 * A: load the reader's tail before storing into the space it frees.
 * Returns the free space (data size - used), 0 if none or if the tail is
 * hostile.  The caller stores into the ring only when the result covers
 * what it needs.
 */
PFR__INLINE uint64_t pfr__space(struct pfr_writer *w, uint64_t need,
				enum pfr_ordering ord)
{
	uint64_t size = w->mask + 1, t;

	switch (ord) {
	case PFR_ORDER_ACQREL:
	case PFR_ORDER_CTRLDEP:
		/* A: pairs with D (store_release) in pfr__end(); without it:
		 * litmus/ring-reuse-acqrel-no-acquire.litmus (ACQREL),
		 * litmus/ring-reuse-kernel-ctrldep-plain.litmus (CTRLDEP) */
		t = pfr_smp_load_acquire(&w->ctl->tail);
		break;
	case PFR_ORDER_FULL:
	default:
		t = PFR_READ_ONCE(w->ctl->tail);
		/* without A: litmus/ring-reuse-full-no-a.litmus; with smp_rmb:
		 * litmus/ring-reuse-full-rmb-as-a.litmus */
		pfr_smp_mb(); /* A: pairs with D (smp_mb) in pfr__end() */
		break;
	}
	if (w->head - t > size || (t & 7))
		return 0; /* hostile reader: never trust it for space */
	w->tail_cache = t; /* ordered by A above */
	/* CTRLDEP: the kernel's "if (space)" - here backed by the acquire
	 * load, which the models need for the plain stores after it */
	if (w->head + need - t > size)
		return 0;
	return size - (w->head - t);
}

/* B: the record stores before the store of head. */
PFR__INLINE void pfr__publish(struct pfr_writer *w, enum pfr_ordering ord)
{
	switch (ord) {
	case PFR_ORDER_ACQREL:
		/* B: pairs with C (load_acquire) in pfr__begin(); without it:
		 * litmus/ring-pub-acqrel-no-release.litmus */
		pfr_smp_store_release(&w->ctl->head, w->head);
		break;
	case PFR_ORDER_CTRLDEP:
		/* B: pairs with C (load_acquire) in pfr__begin(); the
		 * kernel's smp_wmb() in perf_output_put_handle(); without it:
		 * litmus/ring-pub-ctrldep-no-b.litmus */
		pfr_smp_wmb();
		PFR_WRITE_ONCE(w->ctl->head, w->head);
		break;
	case PFR_ORDER_FULL:
	default:
		/* without B: litmus/ring-pub-full-no-b.litmus */
		pfr_smp_wmb(); /* B: pairs with C (smp_rmb) in pfr__begin() */
		PFR_WRITE_ONCE(w->ctl->head, w->head);
		break;
	}
}

/* A head loaded from shared memory, against the reader's tail and the data
 * size: 0, or the error no honest writer causes.  Free-running counters:
 * head - tail is the data in use, correct across wrap-around; more than
 * the data size, or "negative" (a head behind the tail, which the
 * subtraction turns into a huge value), or not 8-aligned, cannot come from
 * an honest writer.  The single ring's reader and the MPSC reader check
 * every head they load with it. */
PFR__INLINE int pfr__head_check(uint64_t h, uint64_t tail, uint64_t size)
{
	if (h - tail > size) {
		if ((int64_t)(h - tail) < 0)
			return -PFR_E_HEAD_BEHIND;
		return -PFR_E_HEAD_AHEAD;
	}
	if (h & 7)
		return -PFR_E_RECSIZE_ALIGN;
	return 0;
}

/* C: the load of head before the loads of the records.  Returns the bytes
 * available, or an error for a head that is impossible. */
PFR__INLINE int64_t pfr__begin(struct pfr_reader *r, enum pfr_ordering ord)
{
	uint64_t h;

	switch (ord) {
	case PFR_ORDER_ACQREL:
	case PFR_ORDER_CTRLDEP:
		/* C: pairs with B (store_release, or smp_wmb for CTRLDEP) in
		 * pfr__publish(), or with the kernel's smp_wmb() (B) in
		 * perf_output_put_handle(); without it:
		 * litmus/ring-pub-acqrel-no-acquire.litmus (ACQREL),
		 * litmus/ring-pub-ctrldep-no-c.litmus (CTRLDEP) */
		h = pfr_smp_load_acquire(r->head_p);
		break;
	case PFR_ORDER_FULL:
	default:
		h = PFR_READ_ONCE(*r->head_p);
		/* without C: litmus/ring-pub-full-no-c.litmus; with smp_wmb:
		 * litmus/ring-pub-full-wmb-as-c.litmus */
		pfr_smp_rmb(); /* C: pairs with B (smp_wmb) in pfr__publish() */
		break;
	}
	{
		int err = pfr__head_check(h, r->tail, r->mask + 1);

		if (err)
			return err;
	}
	r->head = h;
	return (int64_t)(h - r->tail);
}

/* D: the loads of the records before the store of tail. */
PFR__INLINE void pfr__end(struct pfr_reader *r, enum pfr_ordering ord)
{
	switch (ord) {
	case PFR_ORDER_ACQREL:
	case PFR_ORDER_CTRLDEP:
		/* D: pairs with A (load_acquire) in pfr__space(), or with the
		 * kernel's control dependency (A) in perf_output_begin();
		 * without it: litmus/ring-reuse-acqrel-no-release.litmus
		 * (ACQREL), litmus/ring-reuse-ctrldep-no-d.litmus (CTRLDEP) */
		pfr_smp_store_release(r->tail_p, r->tail);
		break;
	case PFR_ORDER_FULL:
	default:
		/* without D: litmus/ring-reuse-full-no-d.litmus; with smp_wmb:
		 * litmus/ring-reuse-full-wmb-as-d.litmus */
		pfr_smp_mb(); /* D: pairs with A (smp_mb) in pfr__space() */
		PFR_WRITE_ONCE(*r->tail_p, r->tail);
		break;
	}
}

/* A with the writer's own ordering: loads the reader's tail and returns
 * the free space, or 0 when tail is hostile (ahead of head or more than a
 * ring behind it). */
PFR__INLINE uint64_t pfr__writer_space(struct pfr_writer *w, uint64_t need)
{
	return PFR__ORD_CALL(w->ordering, pfr__space, w, need);
}

/* ---- in-band publication (PFR_RING_INBAND) ---- */

/*
 * A latency-bound reader that polls head pays two cache-line transfers per
 * message: head's line, then the record's.  In-band, the record's header
 * is its publication, and the reader polls the header at its tail:
 *
 *        WRITER (commit of record N)           READER (at N)
 *   STORE payload of N                   h = LOAD(header of N)
 *   STORE(0 -> header of N+1)            (Ci)
 *   (Bi)                                 if (h valid) LOAD payload of N,
 *   STORE(header of N)                        then LOAD(header of N+1)
 *
 * Bi pairs with Ci (message passing, twice): a reader that sees header N
 * sees N's payload (litmus/inband-pub.litmus) and the zero the writer
 * stored where header N+1 goes, not that word's bytes from the last lap,
 * which could pass for a header (litmus/inband-zero.litmus).  So the word
 * after the last committed record is always zero, and a zero word is "not
 * yet".  The zero store lands in space the writer holds by A (the word
 * past a record counts as used: the writer leaves 8 bytes more free than
 * head polling does), ordered after the reader's last loads of that space
 * by A with D as before (litmus/inband-reuse.litmus).
 *
 * The other way, the reader zeroing what it consumed, was rejected: with
 * variable-size records a later header can fall anywhere in an earlier
 * record, so the reader would have to zero every word it read (size / 8
 * stores per record, on lines the writer takes next), where the writer's
 * zero is one store per record into a line it is writing anyway
 * (docs/ring.md, "In-band publication").
 */

/* The header word of a record (the header's bytes as one u64); misc: the
 * payload's padding (PFR_RECORD_MISC_PAD), 0 for the ring's own records. */
PFR__INLINE uint64_t pfr__header_word(uint32_t type, uint64_t size,
				      uint64_t misc)
{
	struct pfr_record_header h;
	uint64_t raw;

	h.type = type;
	h.misc = (uint16_t)misc;
	h.size = (uint16_t)size;
	memcpy(&raw, &h, sizeof(raw));
	return raw;
}

/* Commits the record of `size` bytes at free-running `pos` in band: the
 * next header's word zeroed, then the header (Bi), misc in it.  The
 * payload is already stored. */
PFR__INLINE void pfr__inband_commit(unsigned char *data, uint64_t mask,
				    uint64_t pos, uint32_t type, uint64_t size,
				    uint64_t misc)
{
	uint64_t raw = pfr__header_word(type, size, misc);

	PFR_WRITE_ONCE(*(uint64_t *)(data + ((pos + size) & mask)), 0);
	/* Bi: pairs with Ci (load_acquire) in pfr__begin_inband(); orders
	 * the payload and the zero above before the header; without it:
	 * litmus/inband-pub-no-release.litmus */
	pfr_smp_store_release((uint64_t *)(data + (pos & mask)), raw);
}

/* The writer's fast-path test: `bytes` (a record's size, or n * size for
 * a burst: below 2^47) fit at free-running `head` below `limit`.  The
 * positions are compared as a signed distance, never as head + bytes <=
 * limit: positions run across 2^64 (a ring resumed there, or one whose
 * peer put them there), where a sum wraps to a small number that passes
 * (issue 34: an in-band writer opened at head = tail = 2^64 - 32 copied
 * its first payload past the data area).  The slow path keeps limit
 * within a ring ahead of head (pfr__writer_limit()); a limit at or behind
 * head - no room, a pending LOST record, the head-polled limit of an
 * in-band ring - fails for every record. */
PFR__INLINE int pfr__fits(uint64_t head, uint64_t bytes, uint64_t limit)
{
	return (int64_t)(limit - head) >= (int64_t)bytes;
}

/* In band the writer's fast-path limit (w->limit) is head as the slow
 * path left it (no room), so that the head-polled fast path, which
 * writes the header first, never runs for an in-band ring and a
 * head-polled ring pays nothing for the in-band one: the in-band fast
 * path comes after it, behind this test, against w->inband_limit (the
 * lower of the cached tail's bound less the zero word and the end of the
 * lap; head while a LOST record is pending). */
PFR__INLINE int pfr__inband_fits(const struct pfr_writer *w, uint64_t head,
				 uint64_t bytes)
{
	return pfr__fits(head, bytes, w->inband_limit);
}

/* The bytes pfr__begin_inband() walks at most per call (the work of one
 * call is bounded, even on a hostile ring). */
#define PFR__INBAND_WALK 4096u

/* Ci: the in-band begin.  Walks the committed headers from the end of
 * what the reader was last shown, loading each with acquire, up to the
 * first zero word (or PFR__INBAND_WALK bytes), and shows the reader up to
 * there.  Every header is checked before the walk steps over it: size
 * non-zero and a multiple of 8, within the end of the data area's lap
 * (perfring's rings never straddle it), and within a ring, less the zero
 * word, of the tail last published (the writer cannot have written past
 * it).  Positions are offsets from the reader's tail (d), so the bounds
 * are plain compares, right across the free-running counters' wrap.  A
 * header equal to the last one that passed (the same 64 bits) needs only
 * the bound, as in pfr_reader_consume().  A header that fails stops the
 * walk; if it is the first unread one, its error is returned (nothing
 * else is readable before it).  A PAD that ends the lap is shown only
 * with the header after it: the writer commits the PAD when it reserves
 * the record that follows, at the start of the data area, and commits
 * that record only after its payload; a head-polled ring shows both with
 * one store of head, and so does this walk (a reader waiting for one
 * record, begin > 0, then has it); the walk goes on past its stop to
 * the header after such a PAD.  Returns the bytes shown (>= 0) or that
 * error. */
PFR__INLINE int64_t pfr__begin_inband(struct pfr_reader *r)
{
	const unsigned char *data = r->data, *p;
	uint64_t mask = r->mask, tail = r->tail, d = r->head - tail;
	uint64_t stop = d + PFR__INBAND_WALK;
	/* tail - published is at most a ring less 8: every byte the
	 * reader took passed ring_end below */
	uint64_t ring_end = r->published + mask + 1 - 8 - tail;
	uint64_t lap_end = mask + 1 - (tail & mask);
	uint64_t hard, lim, ok_raw = 0, size = 0;
	/* a PAD ending the lap: where it starts, and where it ends (0: none
	 * walked) */
	uint64_t pad_d = 0, pad_end = 0;
	int err = 0;

	/* the end of the lap d is in (a walk may have ended at one) */
	while (d >= lap_end)
		lap_end += mask + 1;
	p = data + ((tail + d) & mask);
	/* hard: no record may end past it; lim: the fast path's bound,
	 * short of the lap's end (a record ending there moves p) and of
	 * the walk's own stop */
	hard = lap_end < ring_end ? lap_end : ring_end;
	lim = hard < stop ? hard : stop;
	lim = lim < lap_end - 1 ? lim : lap_end - 1;
	for (;;) {
		/* Ci: pairs with Bi (store_release) in pfr__inband_commit();
		 * without it: litmus/inband-pub-no-acquire.litmus */
		uint64_t raw = pfr_smp_load_acquire((const uint64_t *)p);

		if (!raw)
			break; /* not yet */
		if (__builtin_expect(raw != ok_raw, 0)) {
			struct pfr_record_header hd;

			memcpy(&hd, &raw, sizeof(hd));
			size = hd.size;
			/* no bit outside 3..15: a multiple of 8, >= 8 */
			if ((size - 8) & ~(uint64_t)0xfff8) {
				err = size ? -PFR_E_RECSIZE_ALIGN
					   : -PFR_E_RECSIZE_ZERO;
				break;
			}
			ok_raw = raw;
		}
		if (__builtin_expect(d + size > lim, 0)) {
			if (d + size > hard) {
				err = d + size > lap_end
					      ? -PFR_E_RECSIZE_PAST_HEAD
					      : -PFR_E_HEAD_AHEAD;
				break;
			}
			d += size;
			if (d == lap_end) {
				struct pfr_record_header hd;

				memcpy(&hd, &raw, sizeof(hd));
				if (hd.type == PFR_RECORD_PAD) {
					pad_d = d - size;
					pad_end = d;
				}
			}
			/* the walk's own bound, but never right after the
			 * lap's PAD, which would be taken back below: one
			 * more header, at the start of the data area */
			if (d > stop && d != pad_end)
				break;
			if (d == lap_end) {
				/* the record (a PAD) ends the lap */
				p = data;
				lap_end += mask + 1;
				hard = lap_end < ring_end ? lap_end : ring_end;
			} else {
				p += size;
			}
			lim = hard < stop ? hard : stop;
			lim = lim < lap_end - 1 ? lim : lap_end - 1;
			continue;
		}
		d += size;
		p += size;
	}
	/* nothing committed after the lap's PAD yet: not the PAD either */
	if (d == pad_end)
		d = pad_d;
	r->head = tail + d;
	if (err && !d)
		return err;
	return (int64_t)d;
}

/* ---- ordering-independent helpers ---- */

/* Where a record of `size` bytes starting at free-running *pos lands: at
 * *pos, or at the start of the data area after a PAD record if it would
 * straddle the end.  Advances *pos past it; returns its start. */
PFR__INLINE uint64_t pfr__place(uint64_t *pos, uint64_t size, uint64_t mask)
{
	uint64_t start = *pos;
	uint64_t room = mask + 1 - (start & mask);

	if (size > room)
		start += room;
	*pos = start + size;
	return start;
}

/* The wake-up condition, the same on both sides. */
PFR__INLINE int pfr__wake_met(uint64_t bytes, uint64_t records,
			      uint32_t wake_bytes, uint32_t wake_records)
{
	return bytes >= (wake_bytes ? wake_bytes : 1) ||
	       (wake_records && records >= wake_records);
}

/* The fast path's size check and rounding: a payload of len bytes is a
 * record of pfr__record_size(len) bytes, which fits the ring's largest
 * record iff len <= max_record - 8 (max_record is a multiple of 8).  The
 * comparison comes first, so the sum cannot wrap for a len it lets by. */
PFR__INLINE uint64_t pfr__record_size(size_t len)
{
	return ((uint64_t)len + sizeof(struct pfr_record_header) + 7) &
	       ~(uint64_t)7;
}

/* The padding of a payload of len bytes in its record, 0..7: what the
 * writer stores in misc (PFR_RECORD_MISC_PAD), so that the reader gives
 * back len itself.  Folds to a constant for a constant len. */
PFR__INLINE uint64_t pfr__record_pad(size_t len)
{
	return (uint64_t)(0 - len) & 7;
}

/* 1 for a record type the caller may not write: PFR_RECORD_LOST and every
 * type above PFR_RECORD_USER_MAX (PFR_RECORD_PAD among them).  The ring
 * writes those itself; a forged LOST record shorter than struct
 * pfr_lost_record would stop the reader for good.  Folds to a constant for
 * a constant type. */
PFR__INLINE int pfr__type_reserved(uint32_t type)
{
	return type > PFR_RECORD_USER_MAX || type == PFR_RECORD_LOST;
}

/* The writer's fast paths ask for the lines PFR__WRITE_AHEAD bytes past
 * the record they write, for writing (x86: prefetchw, which gcc emits for
 * __builtin_prefetch(p, 1) only with -mprfchw; elsewhere the builtin:
 * prfm pstl1keep on aarch64).  A line of the ring comes back to the
 * writer from the reader's cache, where the reader read it a lap ago; a
 * store that finds it missing holds every later store in the store
 * buffer (x86 commits stores in order), the head store included.  Asking
 * early overlaps those transfers.  Only lines below the limit, which the
 * reader has finished with, are asked for; a prefetch is a hint with no
 * effect on ordering or on what any load returns.  Measured (perfring
 * bench, 8-byte records, vCPUs ~440 ns apart): 55-63 -> 157-240 M/s
 * per-record, 145 -> 165-220 M/s batched. */
#define PFR__WRITE_AHEAD 1024
PFR__INLINE void pfr__prefetch_w(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* Prefetches the lines PFR__WRITE_AHEAD past a record of `size` at head
 * when they are free (below `free_end`, the cached tail's bound).  The
 * bound is not the fast path's limit, which also stops at the end of the
 * data area: the lines at the start of the next lap are asked for too (the
 * address wraps), or the first PFR__WRITE_AHEAD bytes of every lap would
 * be written with no line asked for, a larger share of the records the
 * smaller the ring (1/32 of them at 32 KiB).  A record shorter than a line
 * asks again for a line an earlier one asked for; a single write has no
 * cheaper way to know which lines were asked for, while a burst does
 * (pfr__write_ahead_span() below).  PFR__AHEAD_BOUND is a test-only
 * override (the bench builds the old bound, the limit, as a contestant). */
#ifndef PFR__AHEAD_BOUND
#define PFR__AHEAD_BOUND(w) ((w)->free_end)
#endif
PFR__INLINE void pfr__write_ahead(unsigned char *data, uint64_t mask,
				  uint64_t head, uint64_t size, uint64_t limit)
{
	if (!pfr__fits(head, size + PFR__WRITE_AHEAD, limit))
		return;
	for (uint64_t o = 0; o < size; o += 64)
		pfr__prefetch_w(data + ((head + o + PFR__WRITE_AHEAD) & mask));
}

/* pfr__write_ahead() for a burst's `bytes` at head, once for the burst:
 * each line that starts in them (shifted by PFR__WRITE_AHEAD, a multiple
 * of 64) and lies below `limit` is asked for once; the lines past the
 * limit are left out rather than the whole burst's. */
PFR__INLINE void pfr__write_ahead_span(unsigned char *data, uint64_t mask,
				       uint64_t head, uint64_t bytes,
				       uint64_t limit)
{
	uint64_t at = (head + PFR__WRITE_AHEAD + 63) & ~(uint64_t)63;
	/* distances from head (positions may run across 2^64) */
	int64_t stop = (int64_t)(bytes + PFR__WRITE_AHEAD);
	int64_t room = (int64_t)(limit - head);

	if (stop > room)
		stop = room;
	for (; (int64_t)(at - head) < stop; at += 64)
		pfr__prefetch_w(data + (at & mask));
}

/* Writes the header of a record of `size` bytes at free-running `pos`
 * (misc: as in pfr__header_word()). */
PFR__INLINE void pfr__put_header(unsigned char *data, uint64_t mask,
				 uint64_t pos, uint32_t type, uint64_t size,
				 uint64_t misc)
{
	struct pfr_record_header h;

	h.type = type;
	h.misc = (uint16_t)misc;
	h.size = (uint16_t)size;
	memcpy(data + (pos & mask), &h, sizeof(h));
}

/* The fast paths' copy of one record at free-running `head`, below
 * `limit` (the write-ahead's bound): the lines ahead asked for, the
 * header, the payload (none from a NULL buf when len is 0). */
PFR__INLINE void pfr__put_record(unsigned char *data, uint64_t mask,
				 uint64_t head, uint64_t limit, uint32_t type,
				 uint64_t size, const void *buf, size_t len)
{
	pfr__write_ahead(data, mask, head, size, limit);
	pfr__put_header(data, mask, head, type, size, pfr__record_pad(len));
	if (len)
		memcpy(data + (head & mask) + sizeof(struct pfr_record_header),
		       buf, len);
}

/* The burst fast path's copy of n records of `size` bytes at free-running
 * `head`, all before the end of the data area (the caller checked: no
 * wrap): the lines ahead asked for once for the whole burst, then per
 * record its header and payload, at addresses that advance by `size`
 * (no mask per record).  Record i's payload is src + i * len. */
PFR__INLINE void pfr__put_burst(unsigned char *data, uint64_t mask,
				uint64_t head, uint64_t limit, uint32_t type,
				uint64_t size, const unsigned char *src,
				size_t len, unsigned n)
{
	unsigned char *p = data + (head & mask);
	uint64_t raw = pfr__header_word(type, size, pfr__record_pad(len));

	pfr__write_ahead_span(data, mask, head, (uint64_t)n * size, limit);
	for (; n; n--, p += size, src += len) {
		memcpy(p, &raw, sizeof(raw));
		if (len)
			memcpy(p + sizeof(struct pfr_record_header), src, len);
	}
}

/* pfr__put_record() for an in-band ring: the payload first, then the
 * header committed in band (the zero past it, then Bi). */
PFR__INLINE void pfr__put_record_inband(unsigned char *data, uint64_t mask,
					uint64_t head, uint64_t limit,
					uint32_t type, uint64_t size,
					const void *buf, size_t len)
{
	pfr__write_ahead(data, mask, head, size, limit);
	if (len)
		memcpy(data + (head & mask) + sizeof(struct pfr_record_header),
		       buf, len);
	pfr__inband_commit(data, mask, head, type, size, pfr__record_pad(len));
}

PFR__EXTERN_C_END

#endif /* PERFRING_RING_PROTO_H */
