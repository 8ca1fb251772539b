/* SPDX-License-Identifier: MIT */
/*
 * <perfring/ring-inline.h> - the ring's fast paths, inline: the writer's
 * reserve, commit, write and publish, the reader's begin, next, consume
 * and end.  Their contracts are in <perfring/ring.h>, which includes this
 * header; not for direct use.
 *
 * None of them depends on the ring's ordering but through the barriers A-D
 * of <perfring/ring-proto.h>, each called with the writer's or reader's
 * ordering as a constant (PFR__ORD_CALL).  Everything a fast path cannot do - a
 * record that does not fit, a wrap, a header that fails a check, a
 * wake-up - is a call to a pfr__ slow path in src/ring/ring.c.
 */
#ifndef PERFRING_RING_H
#error "include <perfring/ring.h>, not <perfring/ring-inline.h>"
#endif
#ifndef PERFRING_RING_INLINE_H
#define PERFRING_RING_INLINE_H

#include <perfring/ring-proto.h>

PFR__EXTERN_C_BEGIN

PFR__INLINE int pfr_writer_reserve(struct pfr_writer *w, uint32_t type,
				   size_t len, void **payload)
{
	uint64_t head = w->head, size = pfr__record_size(len);
	/* res_size: the size, and the payload's padding above bit 16 (the
	 * slow path stores the size alone, as it always has) */
	uint32_t res = (uint32_t)(size | pfr__record_pad(len) << 16);

	if (__builtin_expect(pfr__type_reserved(type), 0))
		return -PFR_E_INVAL;
	w->res_type = type;
	/* Fast path, one test: the record fits below the limit (no wrap, room
	 * by the cached tail - OVERWRITE: by the oldest record - and no LOST
	 * record pending), compared as a distance from head (pfr__fits():
	 * positions may run across 2^64).  size is checked first. */
	if (__builtin_expect(len <= w->max_record - 8 &&
				     pfr__fits(head, size, w->limit),
			     1)) {
		w->res_size = res;
		pfr__write_ahead(w->data, w->mask, head, size,
				 PFR__AHEAD_BOUND(w));
		*payload = w->data + (head & w->mask) +
			   sizeof(struct pfr_record_header);
		return 0;
	}
	if (len > w->max_record - 8)
		return -PFR_E_INVAL;
	/* in band: its own fast path (w->limit shows no room) */
	if (w->inband && pfr__inband_fits(w, head, size)) {
		w->res_size = res;
		pfr__write_ahead(w->data, w->mask, head, size, w->free_end);
		*payload = w->data + (head & w->mask) +
			   sizeof(struct pfr_record_header);
		return 0;
	}
	{
		int err = pfr__writer_reserve_slow(w, (uint32_t)size);

		if (err)
			return err;
		w->res_size = res;
	}
	*payload = w->data + (w->head & w->mask) +
		   sizeof(struct pfr_record_header);
	return 0;
}

PFR__INLINE void pfr_writer_commit_deferred(struct pfr_writer *w)
{
	uint32_t res = w->res_size;
	uint64_t head = w->head, size = res & 0xffff, misc = res >> 16;

	if (!size)
		return;
	if (w->inband)
		pfr__inband_commit(w->data, w->mask, head, w->res_type, size,
				   misc);
	else
		pfr__put_header(w->data, w->mask, head, w->res_type, size,
				misc);
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
		PFR__ORD_CALL(w->ordering, pfr__publish, w);
		return;
	}
	if (w->head == w->published)
		return;
	/* the record count rides along with head (the reader's record
	 * threshold); B orders it too */
	PFR_WRITE_ONCE(w->ctl->records, w->records);
	PFR__ORD_CALL(w->ordering, pfr__publish, w);
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
	if (__builtin_expect(!pfr__type_reserved(type) &&
				     len <= w->max_record - 8 &&
				     pfr__fits(head, size, w->limit),
			     1)) {
		uint64_t records = w->records;

		pfr__put_record(w->data, w->mask, head, PFR__AHEAD_BOUND(w),
				type, size, buf, len);
		w->head = head + size;
		w->records = records + 1;
		return 0;
	}
	/* in band: its own fast path (w->limit shows no room) */
	if (w->inband && !pfr__type_reserved(type) &&
	    len <= w->max_record - 8 && pfr__inband_fits(w, head, size)) {
		uint64_t records = w->records;

		pfr__put_record_inband(w->data, w->mask, head, w->free_end,
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

	if (__builtin_expect(len > w->max_record - 8 || n > 0x7fffffffu ||
				     pfr__type_reserved(type),
			     0))
		return -PFR_E_INVAL;
	/* Fast path: all n fit below the limit (n * size < 2^47, compared
	 * as a distance from head: pfr__fits(); the limit is at most the end
	 * of the lap, so the burst is one stretch of the data area).  Two stores per record, header and
	 * payload; the lines ahead, head and the record count once for the
	 * burst. */
	if (__builtin_expect(pfr__fits(head, (uint64_t)n * size, w->limit),
			     1)) {
		uint64_t records = w->records;

		pfr__put_burst(w->data, w->mask, head, PFR__AHEAD_BOUND(w),
			       type, size, src, len, n);
		w->head = head + (uint64_t)n * size;
		w->records = records + n;
		pfr_writer_publish(w);
		return (int)n;
	}
	/* in band: its own fast path (w->limit shows no room) */
	if (w->inband && pfr__inband_fits(w, head, (uint64_t)n * size)) {
		unsigned char *data = w->data;
		uint64_t mask = w->mask, records = w->records;
		uint64_t limit = w->free_end;

		for (i = 0; i < n; i++, head += size)
			pfr__put_record_inband(data, mask, head, limit, type,
					       size, src + (size_t)i * len,
					       len);
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

PFR__INLINE int64_t pfr_reader_begin_unpaced(struct pfr_reader *r)
{
	if (r->iflags & PFR__READER_INBAND)
		return pfr__begin_inband(r);
	return PFR__ORD_CALL(r->ordering, pfr__begin, r);
}

/* The reader's pacing.  A reader whose load of head keeps finding records
 * waits 2^pace - 1 pauses before that load: pace grows by one while the
 * batches it finds are under a sixteenth of the ring (at most
 * PFR__POLL_BATCH bytes), shrinks by one while they are over twice that,
 * and drops to 0 when a load finds nothing (the writer is the slower
 * side: no reason to wait).  A reader that spins on an empty ring loads
 * head at every call, as an unpaced one does; the wait only ever comes
 * after a load that found records, and is at most 2^PFR__POLL_PACE_MAX - 1
 * pauses. */
#define PFR__POLL_BATCH 2048u
#define PFR__POLL_PACE_MAX 7u

PFR__INLINE int64_t pfr_reader_begin(struct pfr_reader *r)
{
	uint64_t want = (r->mask + 1) >> 4;
	uint32_t spin;
	int64_t avail;

	if (want > PFR__POLL_BATCH)
		want = PFR__POLL_BATCH;
	for (spin = (1u << r->pace) - 1; spin; spin--)
		pfr_cpu_relax();
	avail = pfr_reader_begin_unpaced(r);
	if (avail > 0) {
		if ((uint64_t)avail < want) {
			if (r->pace < PFR__POLL_PACE_MAX)
				r->pace++;
		} else if ((uint64_t)avail >= 2 * want && r->pace) {
			r->pace--;
		}
	} else {
		r->pace = 0;
	}
	return avail;
}

PFR__INLINE int64_t pfr_reader_poll(struct pfr_reader *r, uint32_t polls)
{
	int64_t avail = pfr_reader_begin(r);

	while (!avail && polls-- > 1) {
		pfr_cpu_relax();
		avail = pfr_reader_begin_unpaced(r);
	}
	return avail;
}

PFR__INLINE int pfr_reader_next(struct pfr_reader *r, struct pfr_record *rec)
{
	uint64_t tail = r->tail, mask = r->mask, off = tail & mask;
	uint64_t avail = r->head - tail, room = mask + 1 - off;
	struct pfr_record_header h;
	uint64_t raw, len;

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
	/* The payload's length: the size less the header and, on perfring's
	 * rings, the padding misc holds (len_mask 0 on the kernel's, whose
	 * misc is perf's flags). */
	len = (uint64_t)h.size - 8 - (h.misc & r->len_mask);
	/* Fast path: an ordinary record, 8-aligned, at least a header and
	 * its padding, and within both the loaded head and the end of the
	 * data area: len wraps for a size below 8 or a padding larger than
	 * the record's payload space, and a size past avail (both multiples
	 * of 8) leaves len at least avail - 7.  Anything else: the slow path,
	 * which says which check failed. */
	if (__builtin_expect(h.type == PFR_RECORD_LOST ||
				     h.type == PFR_RECORD_PAD || (h.size & 7) ||
				     len > avail - 8,
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
	rec->len = (uint32_t)len;
	rec->pos = tail;
	r->tail = tail + h.size;
	return 1;
}

PFR__INLINE int64_t pfr_reader_consume(struct pfr_reader *r, pfr_record_fn fn,
				       void *ctx, uint64_t max)
{
	const unsigned char *data = r->data;
	uint64_t mask = r->mask, budget = max ? max : UINT64_MAX;
	/* The last header that passed the checks, its size (0: none yet;
	 * ok_raw is then never trusted) and its payload's length (the size
	 * less the header and, on perfring's rings, the padding misc
	 * holds). */
	uint64_t ok_raw = 0, ok_size = 0;
	uint32_t ok_len = 0;

	/* budget: records still allowed; max - budget were passed to fn */
	while (budget) {
		uint64_t tail = r->tail, off = tail & mask;
		uint64_t left = r->head - tail, room = mask + 1 - off;
		const unsigned char *p = data + off, *end;
		/* the position of the byte at p is base + p: one register
		 * for the loop, not two (tail and the stretch's start) */
		uint64_t base = tail - (uint64_t)(uintptr_t)p;
		struct pfr_record slow;
		int rc, stop;

		if (!left)
			break;
		/* the contiguous stretch: up to head or the end of the data
		 * area, whichever is first (left <= the data size: begin
		 * checked head) */
		end = p + (room < left ? room : left);
		while (p != end) {
			struct pfr_record rec;
			uint64_t raw = PFR_READ_ONCE(*(const uint64_t *)p), k;

			/* The header is read once into a private copy.  One
			 * equal to the reference is the same type and size as
			 * a header that passed: a run of them, the common
			 * case (a stream of records of one type and size),
			 * goes through the loop below, k records at most -
			 * those of ok_size that fit before end, within the
			 * budget - each costing one compare of its header.
			 * A header that differs gets the checks of
			 * pfr_reader_next()'s fast path (size - 8 - padding
			 * wraps for a size below 8 or a padding longer than
			 * the payload space: with size a multiple of 8, it is
			 * at most 0xfff0 iff both are sound) and becomes the
			 * reference, for its one record (no division for a
			 * stream whose headers keep changing).  A record that
			 * fails goes to the slow path, which returns what
			 * pfr_reader_next() would. */
			if (__builtin_expect(raw == ok_raw && ok_size, 1)) {
				k = (uint64_t)(end - p) / ok_size;
				if (!k)
					goto slow;
			} else {
				struct pfr_record_header h;
				uint64_t size, len;

				memcpy(&h, &raw, sizeof(h));
				size = h.size;
				len = size - 8 - (h.misc & r->len_mask);
				if (h.type == PFR_RECORD_LOST ||
				    h.type == PFR_RECORD_PAD || (size & 7) ||
				    len > 0xfff0 ||
				    (uintptr_t)p + size > (uintptr_t)end)
					goto slow;
				ok_raw = raw;
				ok_size = size;
				ok_len = (uint32_t)len;
				k = 1;
			}
			if (k > budget)
				k = budget;
			budget -= k;
			for (;;) {
				/* the reference: raw equals it here (no copy of
				 * raw carried from one record to the next) */
				memcpy(&rec.hdr, &ok_raw, sizeof(rec.hdr));
				rec.payload = p + sizeof(rec.hdr);
				rec.len = ok_len;
				rec.pos = base + (uint64_t)(uintptr_t)p;
				stop = fn(ctx, &rec);
				p += ok_size;
				k--;
				if (stop) {
					budget += k; /* not passed to fn */
					r->tail = base + (uint64_t)(uintptr_t)p;
					if (stop < 0)
						return stop; /* fn's error */
					goto out;
				}
				if (!k)
					break;
				raw = PFR_READ_ONCE(*(const uint64_t *)p);
				if (__builtin_expect(raw != ok_raw, 0)) {
					budget += k; /* checked above */
					break;
				}
			}
			if (!budget)
				break;
		}
		r->tail = base + (uint64_t)(uintptr_t)p;
		continue;
slow:
		/* PAD, LOST, a record straddling the end, or a bad header
		 * (through a copy: the fast path's record stays in
		 * registers) */
		r->tail = base + (uint64_t)(uintptr_t)p;
		rc = pfr__reader_next_slow(r, &slow);
		if (rc <= 0) {
			if (rc < 0)
				return rc;
			break;
		}
		budget--;
		stop = fn(ctx, &slow);
		if (stop < 0)
			return stop; /* fn's error */
		if (stop)
			break;
	}
out:
	return (int64_t)((max ? max : UINT64_MAX) - budget);
}

PFR__INLINE void pfr_reader_end(struct pfr_reader *r)
{
	if (r->tail == r->published)
		return;
	PFR__ORD_CALL(r->ordering, pfr__end, r);
	r->published = r->tail;
	if (r->iflags & PFR__READER_WAKE_WRITER) {
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

PFR__EXTERN_C_END

#endif /* PERFRING_RING_INLINE_H */
