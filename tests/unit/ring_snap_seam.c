/* SPDX-License-Identifier: MIT */
/*
 * pfr_ring_snapshot() against a peer that changes `oldest` between two
 * loads, deterministically.  This program compiles src/ring/ring.c itself with
 * every PFR_READ_ONCE() routed through seam_addr(), which serves a scripted
 * sequence of values to the loads of the control block's `oldest` (a peer
 * that flips it exactly between the snapshot's loads) and counts the loads
 * from the data area.  Nothing here depends on timing.
 *
 * What it pins down:
 *  - every load of oldest is checked, not only the first: an unaligned
 *    value (head - 4) on a later load is -PFR_E_RECSIZE_ALIGN, never a
 *    read past the snapshot's memory (under ASan the old code read past a
 *    heap buffer here);
 *  - an oldest that jumps ahead of head, or moves backwards, is an error;
 *  - an oldest that moves on by whole records (what an honest writer does
 *    while the snapshot copies) gives the newest records from there on;
 *  - the snapshot reads at most one word per record header plus the bytes
 *    it returns: its cost is bounded by the caller's buffer, not by the
 *    ring's size.
 */
#include <perfring/barrier.h>

static const volatile void *seam_addr(const volatile void *p);

#undef PFR_READ_ONCE
#define PFR_READ_ONCE(x) (*(const volatile __typeof__(x) *)seam_addr(&(x)))

#include "ring/ring.c"

#include "ring_common.h"

static struct {
	const volatile void *watch; /* &ctl->oldest, or NULL */
	const unsigned char *lo, *hi; /* the data area */
	uint64_t vals[8]; /* served to the loads of *watch, in order; the
			   * last one again once they run out */
	unsigned int n, i;
	uint64_t cur;
	unsigned long watch_loads, data_loads;
} seam;

static const volatile void *seam_addr(const volatile void *p)
{
	const unsigned char *b = (const unsigned char *)(uintptr_t)p;

	if (seam.watch && p == seam.watch) {
		seam.watch_loads++;
		if (seam.n) {
			unsigned int k =
				seam.i < seam.n ? seam.i++ : seam.n - 1;

			seam.cur = seam.vals[k];
			return &seam.cur;
		}
	}
	if (b >= seam.lo && b < seam.hi)
		seam.data_loads++;
	return p;
}

static void seam_serve(int n, const uint64_t *v)
{
	seam.n = (unsigned int)n;
	seam.i = 0;
	if (n)
		memcpy(seam.vals, v, sizeof(uint64_t) * (size_t)n);
	seam.watch_loads = seam.data_loads = 0;
}

/* A snapshot's bytes: whole records, none of them PAD, each 16 bytes with
 * its sequence number as payload, consecutive.  Returns the number of
 * records, or -1. */
static long seam_records(const unsigned char *b, int64_t n, uint64_t *first)
{
	long k = 0;

	for (int64_t q = 0; q < n; q += 16, k++) {
		struct pfr_record_header h;
		uint64_t s;

		if (n - q < 16)
			return -1;
		memcpy(&h, b + q, 8);
		memcpy(&s, b + q + 8, 8);
		if (h.size != 16 || h.type != 7)
			return -1;
		if (k == 0)
			*first = s;
		else if (s != *first + (uint64_t)k)
			return -1;
	}
	return k;
}

/* Well-formed output: whole records with valid sizes inside n <= buflen. */
static int seam_well_formed(const unsigned char *b, int64_t n, size_t buflen)
{
	int64_t q = 0;

	if (n < 0)
		return 1;
	if ((uint64_t)n > buflen)
		return 0;
	while (q < n) {
		struct pfr_record_header h;

		memcpy(&h, b + q, 8);
		if (h.size == 0 || (h.size & 7) || h.size > n - q ||
		    h.type == PFR_RECORD_PAD)
			return 0;
		q += h.size;
	}
	return 1;
}

static void test_flips(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	unsigned char *buf, *ref;
	uint64_t h, o, seq, first = 0;
	int64_t n;

	if (rt_mkring(&ring, 4096, PFR_POLICY_OVERWRITE, ord, 0) ||
	    pfr_ring_writer(ring, &w))
		return (void)ok(0, "%s: create", on);
	c = pfr_ring_ctl(ring);
	/* 300 records of 16 bytes: the ring wraps, and 256 of them fill
	 * it exactly (no PAD), so head - oldest is the whole data area */
	for (seq = 0; seq < 300; seq++)
		pfr_writer_write(&w, 7, &seq, 8);
	h = c->head;
	o = c->oldest;
	is_uintf(h - o, 4096, "%s: the window is the whole ring", on);
	/* exactly the data area's size: ASan sees any byte past it */
	buf = malloc(4096);
	ref = malloc(4096);
	seam.watch = &c->oldest;
	seam.lo = (const unsigned char *)c + c->data_offset;
	seam.hi = seam.lo + 4096;

	seam_serve(0, NULL);
	n = pfr_ring_snapshot(ring, ref, 4096);
	ok(n == 4096 && seam_records(ref, n, &first) == 256 && first == 44,
	   "%s: unflipped: the 256 newest records (%lld)", on, (long long)n);

	/* the second load of oldest flips to an unaligned head - 4 */
	seam_serve(2, (uint64_t[]){o, h - 4});
	memset(buf, 0xa5, 4096);
	is_intf(pfr_ring_snapshot(ring, buf, 4096), -PFR_E_RECSIZE_ALIGN,
		"%s: oldest flips to head - 4 after the copy: unaligned", on);
	ok(seam.watch_loads >= 2, "%s: oldest was loaded again (%lu)", on,
	   seam.watch_loads);
	seam_serve(2, (uint64_t[]){o, h - 4});
	is_intf(pfr_ring_snapshot(ring, buf, 160), -PFR_E_RECSIZE_ALIGN,
		"%s: flips to head - 4 during the walk: unaligned", on);
	seam_serve(3, (uint64_t[]){o, o, h - 4});
	is_intf(pfr_ring_snapshot(ring, buf, 160), -PFR_E_RECSIZE_ALIGN,
		"%s: flips to head - 4 on the third load: unaligned", on);
	seam_serve(2, (uint64_t[]){o, o + 4});
	is_intf(pfr_ring_snapshot(ring, buf, 4096), -PFR_E_RECSIZE_ALIGN,
		"%s: flips to oldest + 4: unaligned", on);

	/* out of the window */
	seam_serve(2, (uint64_t[]){o, h + 8});
	is_intf(pfr_ring_snapshot(ring, buf, 4096), -PFR_E_OVERWRITTEN,
		"%s: oldest jumps past head: overwritten", on);
	seam_serve(2, (uint64_t[]){o, o - 8});
	is_intf(pfr_ring_snapshot(ring, buf, 4096), -PFR_E_HEAD_AHEAD,
		"%s: oldest moves backwards: hostile", on);
	seam_serve(2, (uint64_t[]){o, o - 4096});
	is_intf(pfr_ring_snapshot(ring, buf, 160), -PFR_E_HEAD_AHEAD,
		"%s: oldest a ring back during the walk: hostile", on);

	/* aligned, inside the window, but not a record boundary: whatever
	 * comes back is whole, valid records inside the buffer */
	for (uint64_t d = 8; d < 4096; d += 56) {
		size_t bl = d % 3 ? 4096 : 200;

		seam_serve(2, (uint64_t[]){o, o + d});
		n = pfr_ring_snapshot(ring, buf, bl);
		if (!ok(seam_well_formed(buf, n, bl),
			"%s: oldest + %llu, buffer %zu: %lld, well formed", on,
			(unsigned long long)d, bl, (long long)n))
			break;
	}

	/* what an honest writer does during the copy: oldest moves on by
	 * whole records; the snapshot returns the records from there on */
	seam_serve(2, (uint64_t[]){o, o + 5 * 16});
	n = pfr_ring_snapshot(ring, buf, 4096);
	ok(n == 4096 - 5 * 16 && seam_records(buf, n, &first) == 251 &&
		   first == 49,
	   "%s: oldest moves on 5 records during the copy: the newest 251 "
	   "(%lld)",
	   on, (long long)n);
	/* ... and during the walk of a small buffer: the same newest 50 */
	seam_serve(2, (uint64_t[]){o, o + 100 * 16});
	n = pfr_ring_snapshot(ring, buf, 800);
	ok(n == 800 && seam_records(buf, n, &first) == 50 && first == 250 &&
		   memcmp(buf, ref + 4096 - 800, 800) == 0,
	   "%s: oldest moves on 100 records during the walk: the newest 50 "
	   "(%lld)",
	   on, (long long)n);
	seam_serve(3, (uint64_t[]){o, o + 100 * 16, o + 150 * 16});
	n = pfr_ring_snapshot(ring, buf, 800);
	ok(n == 800 && memcmp(buf, ref + 4096 - 800, 800) == 0,
	   "%s: ... and on again after the copy: the same 50 (%lld)", on,
	   (long long)n);

	/* the cost is one load per header walked plus the bytes returned */
	seam_serve(0, NULL);
	n = pfr_ring_snapshot(ring, buf, 160);
	ok(n == 160 && memcmp(buf, ref + 4096 - 160, 160) == 0,
	   "%s: a 160-byte buffer: the newest 10 records", on);
	ok(seam.data_loads <= (4096 - 160) / 16 + 160 / 8,
	   "%s: %lu loads from the data area, at most one per header "
	   "walked (246) plus the 20 words returned",
	   on, seam.data_loads);
	seam_serve(0, NULL);
	n = pfr_ring_snapshot(ring, buf, 0);
	ok(n == 0 && seam.data_loads <= 4096 / 16,
	   "%s: an empty buffer copies nothing (%lu loads)", on,
	   seam.data_loads);

	seam.watch = NULL;
	seam.lo = seam.hi = NULL;
	free(buf);
	free(ref);
	pfr_ring_close(ring);
}

int main(void)
{
	for (int i = 0; i < PFR_ORDER__COUNT; i++)
		test_flips(rt_orders[i]);
	return rt_done();
}
