/* SPDX-License-Identifier: MIT */
/*
 * <perfring/ring-proto.h> - the ring protocol, one source instantiated once
 * per ordering (FULL, ACQREL, CTRLDEP) as pfr__<fn>_<ordering>().  Included
 * by <perfring/ring.h>; not for direct use.
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
 *   ordering   A                          B                C             D
 *   FULL       READ_ONCE; smp_mb          smp_wmb; WRITE   READ; rmb     mb; WRITE
 *   ACQREL     load_acquire               store_release    load_acquire  store_release
 *   CTRLDEP    load_acquire; if (space)   smp_wmb; WRITE   load_acquire  store_release
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
 * architecture including x86.  It lives in src/ring.c and publish below.
 */
#ifndef PERFRING_RING_H
#error "include <perfring/ring.h>, not <perfring/ring-proto.h>"
#endif

#ifndef PFR__PROTO_ORD
/* ---- first inclusion: the ordering-independent helpers, then the three
 * instantiations ---- */

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

#define PFR__PROTO_ORD 0
#define PFR__FN(name) pfr__##name##_full
#include <perfring/ring-proto.h>
#undef PFR__FN
#undef PFR__PROTO_ORD

#define PFR__PROTO_ORD 1
#define PFR__FN(name) pfr__##name##_acqrel
#include <perfring/ring-proto.h>
#undef PFR__FN
#undef PFR__PROTO_ORD

#define PFR__PROTO_ORD 2
#define PFR__FN(name) pfr__##name##_ctrldep
#include <perfring/ring-proto.h>
#undef PFR__FN
#undef PFR__PROTO_ORD

/* Dispatch on the ring's ordering.  The branch is perfectly predicted; the
 * functions it selects are the instantiations above. */
#define PFR__DISPATCH(ord, fn, ...)                                            \
	((ord) == PFR_ORDER_ACQREL    ? pfr__##fn##_acqrel(__VA_ARGS__)        \
	 : (ord) == PFR_ORDER_CTRLDEP ? pfr__##fn##_ctrldep(__VA_ARGS__)       \
				      : pfr__##fn##_full(__VA_ARGS__))

/* Loads the reader's tail with this ring's A ordering and returns the free
 * space, or 0 when tail is hostile (ahead of head or more than a ring
 * behind it). */
PFR__INLINE uint64_t pfr__writer_space(struct pfr_writer *w, uint64_t need)
{
	return PFR__DISPATCH(w->ordering, space, w, need);
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
 * smaller the ring (1/32 of them at 32 KiB).  PFR__AHEAD_BOUND is a test-only
 * override (the bench builds the old bound, the limit, as a contestant). */
#ifndef PFR__AHEAD_BOUND
#define PFR__AHEAD_BOUND(w) ((w)->free_end)
#endif
PFR__INLINE void pfr__write_ahead(unsigned char *data, uint64_t mask,
				  uint64_t head, uint64_t size, uint64_t limit)
{
	if (head + size + PFR__WRITE_AHEAD > limit)
		return;
	for (uint64_t o = 0; o < size; o += 64)
		pfr__prefetch_w(data + ((head + o + PFR__WRITE_AHEAD) & mask));
}

PFR__INLINE int pfr_writer_reserve(struct pfr_writer *w, uint32_t type,
				   size_t len, void **payload)
{
	uint64_t head = w->head, size = pfr__record_size(len);

	w->res_type = type;
	/* Fast path, one test: the record fits below the limit (no wrap, room
	 * by the cached tail - OVERWRITE: by the oldest record - and no LOST
	 * record pending).  head + size cannot wrap: head < 2^63 for
	 * centuries of writing, and size is checked first. */
	if (__builtin_expect(
		    len <= w->max_record - 8 && head + size <= w->limit, 1)) {
		w->res_size = (uint32_t)size;
		pfr__write_ahead(w->data, w->mask, head, size,
				 PFR__AHEAD_BOUND(w));
		*payload = w->data + (head & w->mask) +
			   sizeof(struct pfr_record_header);
		return 0;
	}
	if (len > w->max_record - 8)
		return -PFR_E_INVAL;
	{
		int err = pfr__writer_reserve_slow(w, (uint32_t)size);

		if (err)
			return err;
	}
	*payload = w->data + (w->head & w->mask) +
		   sizeof(struct pfr_record_header);
	return 0;
}

/* Writes the header of a record of `size` bytes at free-running `pos`. */
PFR__INLINE void pfr__put_header(unsigned char *data, uint64_t mask,
				 uint64_t pos, uint32_t type, uint64_t size)
{
	struct pfr_record_header h;

	h.type = type;
	h.misc = 0;
	h.size = (uint16_t)size;
	memcpy(data + (pos & mask), &h, sizeof(h));
}

/* The fast paths' copy of one record at free-running `head`, below
 * `limit` (the write-ahead's bound): the lines ahead asked for, the header, the payload (none from
 * a NULL buf when len is 0). */
PFR__INLINE void pfr__put_record(unsigned char *data, uint64_t mask,
				 uint64_t head, uint64_t limit, uint32_t type,
				 uint64_t size, const void *buf, size_t len)
{
	pfr__write_ahead(data, mask, head, size, limit);
	pfr__put_header(data, mask, head, type, size);
	if (len)
		memcpy(data + (head & mask) + sizeof(struct pfr_record_header),
		       buf, len);
}

PFR__INLINE void pfr_writer_commit_deferred(struct pfr_writer *w)
{
	uint64_t head = w->head, size = w->res_size;

	if (!size)
		return;
	pfr__put_header(w->data, w->mask, head, w->res_type, size);
	w->head = head + size;
	w->records++;
	w->res_size = 0;
}

PFR__INLINE void pfr_writer_publish(struct pfr_writer *w)
{
	/* Without PFR_RING_WAIT publication is the store of head (B) and
	 * nothing else: every store here waits in the store buffer behind
	 * the one to head's line, which the polling reader keeps taking
	 * away, so each store per record costs throughput (measured: two
	 * fewer, the record count and `published`, gave 1.3x at 8 bytes).
	 * Storing an unchanged head again is harmless. */
	if (!w->wait_flag) {
		PFR__DISPATCH(w->ordering, publish, w);
		return;
	}
	if (w->head == w->published)
		return;
	/* the record count rides along with head (the reader's record
	 * threshold); B orders it too */
	PFR_WRITE_ONCE(w->ctl->records, w->records);
	PFR__DISPATCH(w->ordering, publish, w);
	w->published = w->head;
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_reader_wait(): head store before reader_waiting load;
	 * without it: litmus/ring-wakeup-waker-no-mb.litmus */
	pfr_smp_mb();
	if (PFR_READ_ONCE(w->ctl->reader_waiting))
		pfr__writer_wake_reader(w);
}

PFR__INLINE void pfr_writer_commit(struct pfr_writer *w)
{
	pfr_writer_commit_deferred(w);
	pfr_writer_publish(w);
}

PFR__INLINE int pfr_writer_write_deferred(struct pfr_writer *w, uint32_t type,
					  const void *buf, size_t len)
{
	uint64_t head = w->head, size = pfr__record_size(len);

	/* The fast path writes in place: no reservation state.  Everything
	 * it needs from *w is loaded before the copy (the ring's bytes may
	 * alias *w as far as the compiler knows). */
	if (__builtin_expect(
		    len <= w->max_record - 8 && head + size <= w->limit, 1)) {
		uint64_t records = w->records;

		pfr__put_record(w->data, w->mask, head, PFR__AHEAD_BOUND(w),
				type, size, buf, len);
		w->head = head + size;
		w->records = records + 1;
		return 0;
	}
	{
		void *p;
		int err = pfr_writer_reserve(w, type, len, &p);

		if (err)
			return err;
		if (len)
			memcpy(p, buf, len);
		pfr_writer_commit_deferred(w);
	}
	return 0;
}

PFR__INLINE int pfr_writer_write(struct pfr_writer *w, uint32_t type,
				 const void *buf, size_t len)
{
	int err = pfr_writer_write_deferred(w, type, buf, len);

	if (!err)
		pfr_writer_publish(w);
	return err;
}

PFR__INLINE int pfr_writer_write_burst(struct pfr_writer *w, uint32_t type,
				       const void *buf, size_t len, unsigned n)
{
	uint64_t head = w->head, size = pfr__record_size(len);
	const unsigned char *src = (const unsigned char *)buf;
	unsigned i;

	if (__builtin_expect(len > w->max_record - 8 || n > 0x7fffffffu, 0))
		return -PFR_E_INVAL;
	/* Fast path: all n fit below the limit (n * size < 2^47: no wrap).
	 * Two stores per record, header and payload; head and the record
	 * count once for the burst. */
	if (__builtin_expect(head + (uint64_t)n * size <= w->limit, 1)) {
		unsigned char *data = w->data;
		uint64_t mask = w->mask, records = w->records;
		uint64_t limit = PFR__AHEAD_BOUND(w);

		for (i = 0; i < n; i++, head += size)
			pfr__put_record(data, mask, head, limit, type, size,
					src + (size_t)i * len, len);
		w->head = head;
		w->records = records + n;
		pfr_writer_publish(w);
		return (int)n;
	}
	for (i = 0; i < n; i++)
		if (pfr_writer_write_deferred(w, type, src + (size_t)i * len,
					      len))
			break;
	pfr_writer_publish(w);
	return (int)i;
}

PFR__INLINE int64_t pfr_reader_begin(struct pfr_reader *r)
{
	return PFR__DISPATCH(r->ordering, begin, r);
}

/* pfr_reader_next() for every record its fast path leaves out: PAD and
 * LOST records, a record straddling the end of the data area (kernel
 * rings), and every header that fails a check. */
PFR_API int pfr__reader_next_slow(struct pfr_reader *r, struct pfr_record *rec);

PFR__INLINE int pfr_reader_next(struct pfr_reader *r, struct pfr_record *rec)
{
	uint64_t tail = r->tail, mask = r->mask, off = tail & mask;
	uint64_t avail = r->head - tail, room = mask + 1 - off;
	struct pfr_record_header h;
	uint64_t raw;

	if (!avail) {
		/* *rec is written on every path (callers' compilers then see
		 * it initialised; a local record stays in registers) */
		memset(rec, 0, sizeof(*rec));
		return 0;
	}
	/* The header is read once into a private copy; everything below uses
	 * the copy (no double fetch).  tail is 8-aligned and the data area a
	 * power of two >= 8, so the header never straddles the end. */
	raw = PFR_READ_ONCE(*(const uint64_t *)(r->data + off));
	memcpy(&h, &raw, sizeof(h));
	if (room < avail)
		avail = room;
	/* Fast path: an ordinary record, 8-aligned, at least a header and
	 * within both the loaded head and the end of the data area (size - 8
	 * wraps for sizes 0..7).  Anything else: the slow path, which says
	 * which check failed. */
	if (__builtin_expect(h.type == PFR_RECORD_LOST ||
				     h.type == PFR_RECORD_PAD || (h.size & 7) ||
				     (uint64_t)h.size - 8 > avail - 8,
			     0)) {
		/* through a copy: *rec's address does not escape, so a
		 * caller's record can live in registers */
		struct pfr_record slow;
		int rc = pfr__reader_next_slow(r, &slow);

		*rec = slow;
		return rc;
	}
	rec->hdr = h;
	rec->payload = r->data + off + sizeof(h);
	rec->len = h.size - (uint32_t)sizeof(h);
	rec->pos = tail;
	r->tail = tail + h.size;
	return 1;
}

PFR__INLINE int64_t pfr_reader_consume(struct pfr_reader *r, pfr_record_fn fn,
				       void *ctx, uint64_t max)
{
	const unsigned char *data = r->data;
	uint64_t mask = r->mask, budget = max ? max : UINT64_MAX;

	/* budget: records still allowed; max - budget were passed to fn */
	while (budget) {
		uint64_t tail = r->tail, off = tail & mask;
		uint64_t left = r->head - tail, room = mask + 1 - off;
		const unsigned char *p = data + off, *p0 = p, *end;
		struct pfr_record slow;
		int rc, stop;

		if (!left)
			break;
		/* the contiguous stretch: up to head or the end of the data
		 * area, whichever is first (left <= the data size: begin
		 * checked head) */
		end = p + (room < left ? room : left);
		/* The same checks as pfr_reader_next()'s fast path, against
		 * the end of the stretch; the header is read once into a
		 * private copy.  size - 8 has no bit set outside 3..15 iff
		 * size is a multiple of 8 and at least 8 (a u16 size below
		 * 8 wraps).  A record that fails goes to the slow path,
		 * which returns what pfr_reader_next() would. */
#pragma GCC unroll 2
		do {
			uint64_t raw = PFR_READ_ONCE(*(const uint64_t *)p);
			struct pfr_record rec;
			uint64_t size;

			memcpy(&rec.hdr, &raw, sizeof(rec.hdr));
			size = rec.hdr.size;
			if (__builtin_expect(
				    rec.hdr.type == PFR_RECORD_LOST ||
					    rec.hdr.type == PFR_RECORD_PAD ||
					    ((size - 8) & ~(uint64_t)0xfff8) ||
					    (uintptr_t)p + size >
						    (uintptr_t)end,
				    0))
				goto slow;
			rec.payload = p + sizeof(rec.hdr);
			rec.len = (uint32_t)size - (uint32_t)sizeof(rec.hdr);
			rec.pos = tail + (uint64_t)(p - p0);
			stop = fn(ctx, &rec);
			p += size;
			budget--;
			if (stop) {
				r->tail = tail + (uint64_t)(p - p0);
				goto out;
			}
		} while (p != end && budget);
		r->tail = tail + (uint64_t)(p - p0);
		continue;
slow:
		/* PAD, LOST, a record straddling the end, or a bad header
		 * (through a copy: the fast path's record stays in
		 * registers) */
		r->tail = tail + (uint64_t)(p - p0);
		rc = pfr__reader_next_slow(r, &slow);
		if (rc <= 0) {
			if (rc < 0)
				return rc;
			break;
		}
		budget--;
		if (fn(ctx, &slow))
			break;
	}
out:
	return (int64_t)((max ? max : UINT64_MAX) - budget);
}

/* Internal reader flag: the ring's writer may sleep waiting for space. */
#define PFR__READER_WAKE_WRITER 0x100u
PFR_API void pfr__reader_wake_writer(struct pfr_reader *r);

PFR__INLINE void pfr_reader_end(struct pfr_reader *r)
{
	if (r->tail == r->published)
		return;
	PFR__DISPATCH(r->ordering, end, r);
	r->published = r->tail;
	if (r->flags & PFR__READER_WAKE_WRITER) {
		/* The hand-shake costs a full fence, which waits for the
		 * tail store's line (the writer polls it when the ring is
		 * full).  So it runs only when the reader has read all that
		 * begin showed, every wake_stride bytes, and while a writer
		 * shows as waiting; pfr__writer_block() says why no wake-up
		 * is lost. */
		if (r->tail != r->head &&
		    r->tail - r->wake_checked < r->wake_stride &&
		    !PFR_READ_ONCE(r->ctl->writer_waiting))
			return;
		r->wake_checked = r->tail;
		/* purpose: store-buffering hand-shake; pairs with smp_mb() in
		 * the BLOCK wait of pfr__writer_reserve_slow(): tail store
		 * before writer_waiting load; without it:
		 * litmus/ring-wakeup-waker-no-mb.litmus */
		pfr_smp_mb();
		if (PFR_READ_ONCE(r->ctl->writer_waiting))
			pfr__reader_wake_writer(r);
	}
}

#else /* PFR__PROTO_ORD: one instantiation */

/*
 * A: load the reader's tail before storing into the space it frees.
 * Returns the free space (data size - used), 0 if none or if the tail is
 * hostile.  The caller stores into the ring only when the result covers
 * what it needs.
 */
PFR__INLINE uint64_t PFR__FN(space)(struct pfr_writer *w, uint64_t need)
{
	uint64_t size = w->mask + 1, t;

#if PFR__PROTO_ORD == 0
	t = PFR_READ_ONCE(w->ctl->tail);
	/* without A: litmus/ring-reuse-full-no-a.litmus; with smp_rmb:
	 * litmus/ring-reuse-full-rmb-as-a.litmus */
	pfr_smp_mb(); /* A: pairs with D (smp_mb) in pfr__end_full() */
#else
	/* A: pairs with D (store_release) in pfr__end_*(); without it:
	 * litmus/ring-reuse-acqrel-no-acquire.litmus (ACQREL),
	 * litmus/ring-reuse-kernel-ctrldep-plain.litmus (CTRLDEP) */
	t = pfr_smp_load_acquire(&w->ctl->tail);
#endif
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
PFR__INLINE void PFR__FN(publish)(struct pfr_writer *w)
{
#if PFR__PROTO_ORD == 0
	/* without B: litmus/ring-pub-full-no-b.litmus */
	pfr_smp_wmb(); /* B: pairs with C (smp_rmb) in pfr__begin_full() */
	PFR_WRITE_ONCE(w->ctl->head, w->head);
#elif PFR__PROTO_ORD == 2
	/* B: pairs with C (load_acquire) in pfr__begin_ctrldep(); the
	 * kernel's smp_wmb() in perf_output_put_handle(); without it:
	 * litmus/ring-pub-ctrldep-no-b.litmus */
	pfr_smp_wmb();
	PFR_WRITE_ONCE(w->ctl->head, w->head);
#else
	/* B: pairs with C (load_acquire) in pfr__begin_*(); without it:
	 * litmus/ring-pub-acqrel-no-release.litmus */
	pfr_smp_store_release(&w->ctl->head, w->head);
#endif
}

/* C: the load of head before the loads of the records.  Returns the bytes
 * available, or an error for a head that is impossible. */
PFR__INLINE int64_t PFR__FN(begin)(struct pfr_reader *r)
{
	uint64_t h;

#if PFR__PROTO_ORD == 0
	h = PFR_READ_ONCE(*r->head_p);
	/* without C: litmus/ring-pub-full-no-c.litmus; with smp_wmb:
	 * litmus/ring-pub-full-wmb-as-c.litmus */
	pfr_smp_rmb(); /* C: pairs with B (smp_wmb) in pfr__publish_full() */
#else
	/* C: pairs with B (store_release) in pfr__publish_*(), or with
	 * the kernel's smp_wmb() (B) in perf_output_put_handle(); without
	 * it: litmus/ring-pub-acqrel-no-acquire.litmus (ACQREL),
	 * litmus/ring-pub-ctrldep-no-c.litmus (CTRLDEP) */
	h = pfr_smp_load_acquire(r->head_p);
#endif
	/* Free-running counters: head - tail is the data in use, correct
	 * across wrap-around; more than the data size, or "negative" (a
	 * head behind our tail, which the subtraction turns into a huge
	 * value), cannot come from an honest writer. */
	if (h - r->tail > r->mask + 1) {
		if ((int64_t)(h - r->tail) < 0)
			return -PFR_E_HEAD_BEHIND;
		return -PFR_E_HEAD_AHEAD;
	}
	if (h & 7)
		return -PFR_E_RECSIZE_ALIGN;
	r->head = h;
	return (int64_t)(h - r->tail);
}

/* D: the loads of the records before the store of tail. */
PFR__INLINE void PFR__FN(end)(struct pfr_reader *r)
{
#if PFR__PROTO_ORD == 0
	/* without D: litmus/ring-reuse-full-no-d.litmus; with smp_wmb:
	 * litmus/ring-reuse-full-wmb-as-d.litmus */
	pfr_smp_mb(); /* D: pairs with A (smp_mb) in pfr__space_full() */
	PFR_WRITE_ONCE(*r->tail_p, r->tail);
#else
	/* D: pairs with A in pfr__space_*(), or with the kernel's control
	 * dependency (A) in perf_output_begin(); without it:
	 * litmus/ring-reuse-acqrel-no-release.litmus (ACQREL),
	 * litmus/ring-reuse-ctrldep-no-d.litmus (CTRLDEP) */
	pfr_smp_store_release(r->tail_p, r->tail);
#endif
}

#endif /* PFR__PROTO_ORD */
