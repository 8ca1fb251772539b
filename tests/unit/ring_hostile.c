// SPDX-License-Identifier: MIT
/*
 * Hostile shared memory (issue 3, point 9): the reader, the writer, attach
 * and snapshots against heads, tails, records and control blocks no honest
 * peer writes.  Each case must give its own error code, never a crash, an
 * endless loop or a read outside the mapping.  Data areas sit between
 * PROT_NONE guard pages, so an out-of-bounds access faults even without
 * ASan (run it under SANITIZE=address,undefined too).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

/* ---- pfr_reader_init ---- */

static void test_init(void)
{
	struct pfr_reader r;
	uint64_t head = 0, tail = 0;
	unsigned char d[4096] = {0}, s[16] = {0};

	is_int(pfr_reader_init(&r, NULL, &tail, d, 4096, 0, 0, s), -PFR_E_INVAL,
	       "init: NULL head");
	is_int(pfr_reader_init(&r, &head, NULL, d, 4096, 0, 0, s), -PFR_E_INVAL,
	       "init: NULL tail");
	is_int(pfr_reader_init(&r, &head, &tail, NULL, 4096, 0, 0, s),
	       -PFR_E_INVAL, "init: NULL data");
	is_int(pfr_reader_init(&r, &head, &tail, d, 4096, 0, 0, NULL),
	       -PFR_E_INVAL, "init: NULL scratch");
	is_int(pfr_reader_init(&r, &head, &tail, d, 0, 0, 0, s), -PFR_E_INVAL,
	       "init: size 0");
	is_int(pfr_reader_init(&r, &head, &tail, d, 4, 0, 0, s), -PFR_E_INVAL,
	       "init: size below a header");
	is_int(pfr_reader_init(&r, &head, &tail, d, 3000, 0, 0, s),
	       -PFR_E_INVAL, "init: size not a power of two");
	is_int(pfr_reader_init(&r, &head, &tail, d, 4096, (enum pfr_ordering)3,
			       0, s),
	       -PFR_E_INVAL, "init: unknown ordering");
	is_int(pfr_reader_init(&r, &head, &tail, d, 4096, 0, 0x4, s),
	       -PFR_E_INVAL, "init: unknown flag");
	tail = 12;
	is_int(pfr_reader_init(&r, &head, &tail, d, 4096, 0, 0, s),
	       -PFR_E_RECSIZE_ALIGN, "init: unaligned tail");
}

/* ---- a raw reader against hostile heads and records ---- */

static void test_raw(enum pfr_ordering ord, uint64_t base)
{
	const char *on = pfr_ordering_name(ord);
	const uint64_t ds = 4096, mask = ds - 1;
	unsigned char *data = rt_guarded(ds);
	unsigned char *scratch = malloc(PFR_RECORD_MAX + 8);
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t head = base, tail = base;

	memset(data, 0xa5, ds);
	if (!ok(pfr_reader_init(&r, &head, &tail, data, ds, ord, 0, scratch) ==
			0,
		"%s base %#llx: init", on, (unsigned long long)base))
		return;
	is_int(pfr_reader_begin(&r), 0, "empty");

	head = base + ds + 8;
	is_int(pfr_reader_begin(&r), -PFR_E_HEAD_AHEAD,
	       "head beyond tail + size");
	head = base + ((uint64_t)1 << 62);
	is_int(pfr_reader_begin(&r), -PFR_E_HEAD_AHEAD, "head far ahead");
	head = base - 8;
	is_int(pfr_reader_begin(&r), -PFR_E_HEAD_BEHIND, "head behind tail");
	head = base - ds - 8;
	is_int(pfr_reader_begin(&r), -PFR_E_HEAD_BEHIND,
	       "head a ring behind tail");
	head = base + 20;
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ALIGN,
	       "head not a multiple of 8");
	is_uint(pfr_reader_pending(&r), 0, "bad heads were not taken");

	/* records: size 0, unaligned, past head; the reader stays put */
	head = base + 64;
	rt_put_hdr(data, mask, base, 1, 0);
	is_int(pfr_reader_begin(&r), 64, "64 bytes");
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO, "size 0");
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO,
	       "size 0 again: no progress, no loop");
	rt_put_hdr(data, mask, base, 1, 12);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ALIGN,
	       "size 12: not a multiple of 8");
	rt_put_hdr(data, mask, base, 1, 7);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ALIGN, "size 7");
	rt_put_hdr(data, mask, base, 1, 72);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_PAST_HEAD,
	       "size 72 with 64 bytes published");
	rt_put_hdr(data, mask, base, 1, 0xfff8);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_PAST_HEAD,
	       "size 65528 in a 4096-byte ring");
	pfr_reader_end(&r);
	is_uint(tail, base, "end after errors publishes nothing");

	/* a LOST record too short for { id, lost }: the caller would read
	 * past it (past the data area, at its end) */
	rt_put_hdr(data, mask, base, PFR_RECORD_LOST, 16);
	head = base + 16;
	is_int(pfr_reader_begin(&r), 16, "begin");
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_SHORT,
	       "LOST record of 16 bytes: too short for its type");
	rt_put_hdr(data, mask, base, PFR_RECORD_LOST, 8);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_SHORT,
	       "LOST record of 8 bytes");
	rt_put_hdr(data, mask, base, PFR_RECORD_LOST, 24);
	head = base + 24;
	pfr_reader_begin(&r);
	is_int(pfr_reader_next(&r, &rec), 1, "LOST record of 24 bytes: fine");
	pfr_reader_init(&r, &head, &tail, data, ds, ord, 0, scratch);
	head = base + 64;

	/* a good record then a bad one: only the good one is freed */
	rt_put_hdr(data, mask, base, 1, 16);
	rt_put_hdr(data, mask, base + 16, 1, 0);
	is_int(pfr_reader_begin(&r), 64, "begin");
	is_int(pfr_reader_next(&r, &rec), 1, "good record");
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO, "then bad");
	pfr_reader_end(&r);
	is_uint(tail, base + 16, "tail past the good record only");

	/* the full ring as one record straddling the end, from every
	 * offset: copied in two pieces, within the mapping */
	{
		int good = 1;

		for (uint64_t off = 0; off < ds; off += 8) {
			uint64_t t = base + off;

			tail = t;
			head = t + ds;
			rt_put_hdr(data, mask, t, 3, (uint16_t)ds);
			pfr_reader_init(&r, &head, &tail, data, ds, ord, 0,
					scratch);
			if (pfr_reader_begin(&r) != (int64_t)ds ||
			    pfr_reader_next(&r, &rec) != 1 ||
			    rec.len != ds - 8 || pfr_reader_next(&r, &rec))
				good = 0;
		}
		ok(good, "whole-ring records at all 512 offsets");
	}
	/* a PAD without SKIP_PAD is a record like any other; with it,
	 * skipped */
	tail = head = base;
	pfr_reader_init(&r, &head, &tail, data, ds, ord, PFR_READER_SKIP_PAD,
			scratch);
	rt_put_hdr(data, mask, base, PFR_RECORD_PAD, 40);
	rt_put_hdr(data, mask, base + 40, 4, 8);
	head = base + 48;
	pfr_reader_begin(&r);
	ok(pfr_reader_next(&r, &rec) == 1 && rec.hdr.type == 4 &&
		   rec.pos == base + 40,
	   "PAD skipped");
	/* a hostile PAD with size 0 still stops the reader */
	rt_put_hdr(data, mask, base + 48, PFR_RECORD_PAD, 0);
	head = base + 56;
	pfr_reader_begin(&r);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO,
	       "PAD of size 0 is an error, not a loop");
	free(scratch);
	rt_unguard(data, ds);
}

/* A writer thread flips a header between a good size and a huge one while
 * the reader reads it: the reader must use the size it checked. */
struct flipper {
	unsigned char *p;
	volatile int stop;
};

static void *flip(void *arg)
{
	struct flipper *f = (struct flipper *)arg;
	struct pfr_record_header a = {1, 0, 8}, b = {1, 0, 0xfff8};
	uint64_t va, vb;

	memcpy(&va, &a, 8);
	memcpy(&vb, &b, 8);
	while (!f->stop) {
		__atomic_store_n((uint64_t *)f->p, va, __ATOMIC_RELAXED);
		__atomic_store_n((uint64_t *)f->p, vb, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_double_fetch(void)
{
	const uint64_t ds = 4096;
	unsigned char *data = rt_guarded(ds);
	unsigned char *scratch = malloc(PFR_RECORD_MAX + 8);
	struct flipper f = {data + ds - 8, 0};
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t head, tail;
	long good = 0, bad = 0, other = 0;
	pthread_t th;

	pthread_create(&th, NULL, flip, &f);
	while (!__atomic_load_n((uint64_t *)f.p, __ATOMIC_RELAXED))
		; /* the flipper runs */
	for (uint64_t t0 = rt_now_ns(); rt_now_ns() - t0 < 100000000ull;) {
		tail = ds - 8;
		head = ds;
		pfr_reader_init(&r, &head, &tail, data, ds, PFR_ORDER_ACQREL, 0,
				scratch);
		pfr_reader_begin(&r);
		int e = pfr_reader_next(&r, &rec);

		if (e == 1 && rec.hdr.size == 8 && rec.len == 0)
			good++;
		else if (e == -PFR_E_RECSIZE_PAST_HEAD)
			bad++;
		else if (other++ < 3)
			tap_diag("e %d size %u", e, rec.hdr.size);
	}
	f.stop = 1;
	pthread_join(th, NULL);
	ok(other == 0,
	   "header changing under the reader: %ld good, %ld "
	   "past head, %ld other",
	   good, bad, other);
	free(scratch);
	rt_unguard(data, ds);
}

/* ---- the writer against a hostile reader ---- */

static void test_writer(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	unsigned char *data, *copy = malloc(4096);
	static const int64_t bad_tails[] = {8, 4, -4096 - 8, 1 << 30};

	for (int pol = 0; pol < 2; pol++) {
		rt_mkring(&ring, 4096, (enum pfr_policy)pol, ord, 0);
		c = pfr_ring_ctl(ring);
		data = (unsigned char *)c + c->data_offset;
		c->tail = 8; /* ahead of head */
		is_intf(pfr_ring_writer(ring, &w), -PFR_E_LAYOUT,
			"%s %s: writer refuses tail ahead of head", on,
			pfr_policy_name((enum pfr_policy)pol));
		c->tail = 0;
		c->head = 4;
		is_int(pfr_ring_writer(ring, &w), -PFR_E_LAYOUT,
		       "writer refuses an unaligned head");
		c->head = 0;
		is_int(pfr_ring_writer(ring, &w), 0, "writer");
		pfr_writer_set_timeout(&w, 5 * 1000000ull);
		memset(data, 0x5a, 4096);
		for (size_t i = 0; i < sizeof(bad_tails) / 8; i++) {
			c->tail = (uint64_t)bad_tails[i];
			memcpy(copy, data, 4096);
			int e = pfr_writer_write(&w, 1, "hostile!", 8);

			ok(e == (pol ? -PFR_E_TIMEDOUT : -PFR_E_NOSPC) &&
				   !memcmp(copy, data, 4096),
			   "tail %lld: refused (%d), nothing written",
			   (long long)bad_tails[i], e);
		}
		c->tail = 0;
		is_int(pfr_writer_write(&w, 1, "honest..", 8), 0,
		       "honest tail again: writes");
		/* an honest tail, then one that jumps more than a ring back
		 * after the writer cached the honest one */
		{
			uint64_t h0 = c->head;
			int refused = 0;

			c->tail = h0;
			for (int i = 0; i < 270; i++)
				pfr_writer_write(&w, 1, "yyyyyyyy", 8);
			ok(c->head - h0 <= 4096 && c->head - h0 >= 4096 - 16,
			   "filled up to the honest tail + size");
			c->tail = c->head - 4096 - 64;
			memcpy(copy, data, 4096);
			for (int i = 0; i < 10; i++)
				refused += pfr_writer_write(&w, 1, "zzzzzzzz",
							    8) != 0;
			ok(refused == 10 && !memcmp(copy, data, 4096),
			   "a tail more than a ring behind is not trusted");
		}
		pfr_ring_close(ring);
	}
	free(copy);
}

/* ---- attach: hostile control blocks ---- */

static int memfd_with(const void *buf, size_t len, off_t size)
{
	int fd = memfd_create("pfr-hostile", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (len && write(fd, buf, len) != (ssize_t)len)
		return close(fd), -1;
	if (size >= 0 && ftruncate(fd, size) < 0)
		return close(fd), -1;
	return fd;
}

static int attach_mod(const unsigned char *img, size_t len, size_t at,
		      const void *val, size_t vlen, off_t size)
{
	unsigned char *b = malloc(len);
	struct pfr_ring *ring;
	int fd, err;

	memcpy(b, img, len);
	if (vlen)
		memcpy(b + at, val, vlen);
	fd = memfd_with(b, len, size);
	free(b);
	if (fd < 0)
		return 1000;
	err = pfr_ring_attach_fd(&ring, fd);
	if (!err)
		pfr_ring_close(ring);
	close(fd);
	return err;
}

#define OFF(f) offsetof(struct pfr_ring_ctl, f)

static void test_attach(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 8192,
				  .policy = PFR_POLICY_DROP,
				  .ordering = PFR_ORDER_ACQREL,
				  .flags = PFR_RING_WAIT};
	struct pfr_ring *ring;
	unsigned char *img;
	size_t len;
	uint64_t v64;
	uint32_t v32;
	int fd;

	if (pfr_ring_create_memfd(&ring, &o))
		return (void)ok(0, "create");
	fd = pfr_ring_fd(ring);
	len = (size_t)lseek(fd, 0, SEEK_END);
	img = malloc(len);
	ok(pread(fd, img, len, 0) == (ssize_t)len, "control block image");
	pfr_ring_close(ring);

	is_int(attach_mod(img, len, 0, NULL, 0, -1), 0,
	       "an unsealed copy attaches");
	v64 = PFR_RING_MAGIC ^ 1;
	is_int(attach_mod(img, len, OFF(magic), &v64, 8, -1), -PFR_E_MAGIC,
	       "another magic");
	v64 = 0;
	is_int(attach_mod(img, len, OFF(magic), &v64, 8, -1), -PFR_E_MAGIC,
	       "no magic (not yet initialised)");
	v32 = PFR_RING_VERSION + 1;
	is_int(attach_mod(img, len, OFF(version), &v32, 4, -1), -PFR_E_VERSION,
	       "another version");
	v32 = 0;
	is_int(attach_mod(img, len, OFF(version), &v32, 4, -1), -PFR_E_VERSION,
	       "version 0");
	v32 = 256;
	is_int(attach_mod(img, len, OFF(ctl_size), &v32, 4, -1), -PFR_E_LAYOUT,
	       "another ctl_size");
	{
		static const uint64_t offs[] = {0,    384,	  4096 + 8,
						2048, 1ull << 21, 1ull << 63};

		for (size_t i = 0; i < sizeof(offs) / 8; i++)
			is_intf(attach_mod(img, len, OFF(data_offset), &offs[i],
					   8, -1),
				-PFR_E_LAYOUT, "data_offset %#llx",
				(unsigned long long)offs[i]);
	}
	{
		static const uint64_t sizes[] = {
			0, 2048, 4096 * 3, 8192 + 8, 1ull << 41, 1ull << 63};

		for (size_t i = 0; i < sizeof(sizes) / 8; i++)
			is_intf(attach_mod(img, len, OFF(data_size), &sizes[i],
					   8, -1),
				-PFR_E_LAYOUT, "data_size %#llx",
				(unsigned long long)sizes[i]);
	}
	v32 = PFR_POLICY__COUNT;
	is_int(attach_mod(img, len, OFF(policy), &v32, 4, -1), -PFR_E_LAYOUT,
	       "unknown policy");
	v32 = PFR_ORDER__COUNT;
	is_int(attach_mod(img, len, OFF(ordering), &v32, 4, -1), -PFR_E_LAYOUT,
	       "unknown ordering");
	v32 = 0x10;
	is_int(attach_mod(img, len, OFF(flags), &v32, 4, -1), -PFR_E_LAYOUT,
	       "unknown flag");
	v32 = 65528;
	is_int(attach_mod(img, len, OFF(max_record), &v32, 4, -1),
	       -PFR_E_LAYOUT, "max_record larger than the ring allows");
	v32 = 8;
	is_int(attach_mod(img, len, OFF(max_record), &v32, 4, -1),
	       -PFR_E_LAYOUT, "max_record inconsistent (smaller)");
	/* objects truncated below their sizes */
	is_int(attach_mod(img, len, 0, NULL, 0, (off_t)len - 4096),
	       -PFR_E_MAPPING, "object a page short");
	is_int(attach_mod(img, len, 0, NULL, 0, (off_t)len - 8), -PFR_E_MAPPING,
	       "object 8 bytes short");
	is_int(attach_mod(img, len, 0, NULL, 0, 4096), -PFR_E_MAPPING,
	       "only the control page");
	is_int(attach_mod(img, len, 0, NULL, 0, 383), -PFR_E_MAPPING,
	       "shorter than the control block");
	is_int(attach_mod(img, len, 0, NULL, 0, 0), -PFR_E_MAPPING,
	       "empty object");
	is_int(attach_mod(img, len, 0, NULL, 0, (off_t)len + 4096), 0,
	       "a longer object is fine");
	v64 = 1ull << 40;
	{
		/* the largest data size, consistent, in a small object */
		unsigned char b[384];
		uint32_t mr = 65528;

		memcpy(b, img, 384);
		memcpy(b + OFF(data_size), &v64, 8);
		memcpy(b + OFF(max_record), &mr, 4);
		is_int(attach_mod(b, 384, 0, NULL, 0, 8192), -PFR_E_MAPPING,
		       "1 TiB ring in 8 KiB: not mapped");
	}
	{
		/* distinct codes for the four kinds */
		int e[4] = {-PFR_E_MAGIC, -PFR_E_VERSION, -PFR_E_LAYOUT,
			    -PFR_E_MAPPING};

		ok(e[0] != e[1] && e[1] != e[2] && e[2] != e[3] &&
			   e[0] != e[3] && e[0] != e[2] && e[1] != e[3],
		   "four distinct attach errors");
	}
	/* hostile positions in an attached ring reach the reader */
	{
		struct pfr_reader r;
		uint64_t h = 8192 + 8, t = 0;
		unsigned char *b = malloc(len);

		memcpy(b, img, len);
		memcpy(b + OFF(head), &h, 8);
		memcpy(b + OFF(tail), &t, 8);
		fd = memfd_with(b, len, -1);
		if (ok(pfr_ring_attach_fd(&ring, fd) == 0, "attach")) {
			is_int(pfr_ring_reader(ring, &r), 0, "reader");
			is_int(pfr_reader_begin(&r), -PFR_E_HEAD_AHEAD,
			       "attached ring: head ahead");
			pfr_ring_ctl(ring)->head = 0xfffffffffffffff8ull;
			is_int(pfr_reader_begin(&r), -PFR_E_HEAD_BEHIND,
			       "attached ring: head behind");
			pfr_ring_ctl(ring)->tail = 3;
			is_int(pfr_ring_reader(ring, &r), -PFR_E_RECSIZE_ALIGN,
			       "attached ring: unaligned tail");
			pfr_ring_close(ring);
		}
		close(fd);
		free(b);
	}
	free(img);
}

/* ---- an in-band reader (PFR_RING_INBAND) against hostile headers ---- */

/* The in-band reader waits on the header at its tail: a forged size (0,
 * unaligned, past the end of the data area, a walk of more than a ring)
 * is an error or stops the walk, never a read out of the guarded area nor
 * an endless walk; head, which it does not load, cannot mislead it. */
static void test_inband(uint64_t base)
{
	const uint64_t ds = 4096, mask = ds - 1;
	unsigned char *data = rt_guarded(ds);
	unsigned char *scratch = malloc(PFR_RECORD_MAX + 8);
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t head = base, tail = base;
	int64_t a;

	memset(data, 0, ds);
	if (!ok(pfr_reader_init(&r, &head, &tail, data, ds, PFR_ORDER_ACQREL,
				PFR_READER_SKIP_PAD, scratch) == 0,
		"in band, base %#llx: init", (unsigned long long)base))
		return;
	r.iflags |= PFR__READER_INBAND; /* as pfr_ring_reader() sets it */
	head = base + ds + 8;
	is_int(pfr_reader_begin(&r), 0, "zero word: nothing, head ignored");
	head = base;

	rt_put_hdr(data, mask, base, 1, 0);
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ZERO,
	       "in band: type set, size 0");
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ZERO,
	       "size 0 again: no progress, no loop");
	rt_put_hdr(data, mask, base, 1, 12);
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ALIGN, "in band: size 12");
	rt_put_hdr(data, mask, base, 1, 0xfff8);
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_PAST_HEAD,
	       "in band: size 65528 in a 4096-byte ring");
	is_uint(pfr_reader_pending(&r), 0, "bad headers were not taken");
	/* near the end of the data area: a size that would cross it */
	tail = (base & ~mask) + ds - 32;
	pfr_reader_init(&r, &head, &tail, data, ds, PFR_ORDER_ACQREL,
			PFR_READER_SKIP_PAD, scratch);
	r.iflags |= PFR__READER_INBAND;
	rt_put_hdr(data, mask, tail, 1, 40);
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_PAST_HEAD,
	       "in band: 40 bytes with 32 left before the end");
	/* a PAD to the end is shown with the header after it, not alone */
	rt_put_hdr(data, mask, tail, PFR_RECORD_PAD, 32);
	memset(data, 0, 8);
	is_int(pfr_reader_begin(&r), 0, "a PAD to the end, then zero: none");
	rt_put_hdr(data, mask, tail + 32, 1, 12);
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ALIGN,
	       "a PAD, then a bad header: its error");
	rt_put_hdr(data, mask, tail + 32, 1, 16);
	is_int(pfr_reader_begin(&r), 48, "a PAD, then a record: both");
	ok(pfr_reader_next(&r, &rec) == 1 && rec.pos == tail + 32,
	   "the PAD skipped, the record read");
	pfr_reader_end(&r);
	is_uint(tail, (base & ~mask) + ds + 16, "tail past the PAD and it");

	/* a good record, then a bad one: the good one is read, the error
	 * comes at the next begin, at the bad record */
	rt_put_hdr(data, mask, tail, 1, 16);
	rt_put_hdr(data, mask, tail + 16, 1, 20);
	is_int(pfr_reader_begin(&r), 16, "good then bad: the good one shown");
	is_int(pfr_reader_next(&r, &rec), 1, "and read");
	is_int(pfr_reader_next(&r, &rec), 0, "not the bad one");
	is_int(pfr_reader_begin(&r), -PFR_E_RECSIZE_ALIGN,
	       "then the bad one's error");
	pfr_reader_end(&r);

	/* every word a header of 8 bytes: the walk stops within a ring of
	 * tail (less the zero word) and within PFR__INBAND_WALK per begin */
	for (uint64_t o = 0; o < ds; o += 8)
		rt_put_hdr(data, mask, o, 1, 8);
	a = pfr_reader_begin_unpaced(&r);
	ok(a > 0 && (uint64_t)a <= ds - 8,
	   "a ring of 8-byte headers: %lld bytes shown", (long long)a);
	{
		uint64_t total = 0;
		int errs = 0, loops = 0;

		while (loops++ < 100) {
			while (pfr_reader_next(&r, &rec) == 1)
				total += 8;
			a = pfr_reader_begin_unpaced(&r);
			if (a < 0) {
				errs++;
				break;
			}
			if (a == 0)
				break;
		}
		ok(errs == 1 && a == -PFR_E_HEAD_AHEAD && total == ds - 8,
		   "without an end of the reader's tail: %llu bytes, then "
		   "-PFR_E_HEAD_AHEAD",
		   (unsigned long long)total);
		pfr_reader_end(&r);
		a = pfr_reader_begin_unpaced(&r);
		ok(a > 0 && (uint64_t)a <= ds - 8,
		   "once tail is published the walk goes on (%lld)",
		   (long long)a);
	}
	/* a header changed between begin's walk and next: next's own
	 * checks (against what begin showed) hold */
	pfr_reader_init(&r, &head, &tail, data, ds, PFR_ORDER_ACQREL,
			PFR_READER_SKIP_PAD, scratch);
	r.iflags |= PFR__READER_INBAND;
	memset(data, 0, ds);
	rt_put_hdr(data, mask, tail, 1, 16);
	is_int(pfr_reader_begin(&r), 16, "16 bytes shown");
	rt_put_hdr(data, mask, tail, 1, 0x7f8);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_PAST_HEAD,
	       "grown after the walk: past what begin showed");
	rt_put_hdr(data, mask, tail, 1, 0);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO,
	       "zeroed after the walk");
	rt_unguard(data, ds);
	free(scratch);
}

/* ---- snapshots of a hostile OVERWRITE ring ---- */

static void test_snapshot(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	unsigned char *data, buf[4096];
	uint64_t h, o;

	rt_mkring(&ring, 4096, PFR_POLICY_OVERWRITE, ord, 0);
	c = pfr_ring_ctl(ring);
	data = (unsigned char *)c + c->data_offset;
	pfr_ring_writer(ring, &w);
	for (int i = 0; i < 100; i++)
		pfr_writer_write(&w, 1, buf, 100);
	h = c->head;
	o = c->oldest;
	ok(pfr_ring_snapshot(ring, buf, sizeof(buf)) > 0, "%s: snapshot",
	   pfr_ordering_name(ord));
	c->oldest = o + 4;
	is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)), -PFR_E_RECSIZE_ALIGN,
	       "unaligned oldest");
	c->oldest = h - 4096 - 8;
	is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)), -PFR_E_HEAD_AHEAD,
	       "oldest more than a ring behind head");
	c->oldest = h + 8;
	is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)), -PFR_E_OVERWRITTEN,
	       "oldest ahead of head");
	c->oldest = o;
	c->head = h + 4;
	is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)), -PFR_E_RECSIZE_ALIGN,
	       "unaligned head");
	c->head = h;
	{
		unsigned char save[8];

		memcpy(save, data + (o & 4095), 8);
		rt_put_hdr(data, 4095, o, 1, 0);
		is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)),
		       -PFR_E_RECSIZE_ZERO, "record of size 0");
		rt_put_hdr(data, 4095, o, 1, 20);
		is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)),
		       -PFR_E_RECSIZE_ALIGN, "record of size 20");
		rt_put_hdr(data, 4095, o, 1, 0xfff8);
		is_int(pfr_ring_snapshot(ring, buf, sizeof(buf)),
		       -PFR_E_RECSIZE_PAST_HEAD, "record past head");
		/* the writer meets the damage when it makes room: it must
		 * neither loop nor write outside the ring */
		rt_put_hdr(data, 4095, o, 1, 0);
		for (int i = 0; i < 100; i++)
			pfr_writer_write(&w, 1, buf, 200);
		ok(pfr_ring_snapshot(ring, buf, sizeof(buf)) > 0,
		   "writer recovered from a damaged window (%lld)",
		   (long long)pfr_ring_snapshot(ring, buf, sizeof(buf)));
		(void)save;
	}
	pfr_ring_close(ring);
}

/* A peer that shrinks the shared object under an attached ring: reads
 * of the data area then raise SIGBUS.  A sealed memfd (what
 * pfr_ring_create_memfd makes) cannot be shrunk; attaching by fd seals a
 * sealable memfd; a POSIX shm object cannot be sealed at all, and
 * pfr_ring_sealed() says so. */
static void test_shrunk(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_DROP,
				  .ordering = PFR_ORDER_ACQREL};
	struct pfr_ring *ring;
	unsigned char *img;
	int fd, st;
	size_t len;
	pid_t pid;

	if (pfr_ring_create_memfd(&ring, &o))
		return (void)ok(0, "create");
	{
		struct pfr_writer w;

		pfr_ring_writer(ring, &w);
		for (int i = 0; i < 20; i++)
			pfr_writer_write(&w, 1, "12345678", 8);
	}
	fd = pfr_ring_fd(ring);
	ok(ftruncate(fd, 4096) < 0, "a sealed ring cannot be shrunk");
	len = (size_t)lseek(fd, 0, SEEK_END);
	img = malloc(len);
	if (pread(fd, img, len, 0) != (ssize_t)len)
		len = 0;
	pfr_ring_close(ring);
	/* A peer hands over a sealable memfd it did not seal: attaching
	 * seals it, so the peer's ftruncate fails and the reader goes on. */
	pid = fork();
	if (pid == 0) {
		struct pfr_reader r;
		struct pfr_record rec;
		int ufd = memfd_create("pfr-sealable", MFD_ALLOW_SEALING);
		int n = 0;

		if (ufd < 0 || write(ufd, img, len) != (ssize_t)len)
			_exit(4);
		if (pfr_ring_attach_fd(&ring, ufd) || pfr_ring_reader(ring, &r))
			_exit(2);
		if (!pfr_ring_sealed(ring))
			_exit(5);
		if (ftruncate(ufd, 4096) == 0) /* the hostile peer */
			_exit(3);
		if (pfr_reader_begin(&r) < 0)
			_exit(6);
		while (pfr_reader_next(&r, &rec) == 1)
			n++;
		_exit(n == 20 ? 0 : 7);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "attach seals a sealable memfd: the peer cannot shrink it and the "
	   "reader drains all 20 records (%s %d)",
	   WIFSIGNALED(st) ? "signal" : "exit",
	   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	/* An object that cannot be sealed (a memfd made without
	 * MFD_ALLOW_SEALING, or POSIX shm) is attached, and reported as
	 * shrinkable: a caller that does not trust its peer can refuse it.
	 * (Truncating it would raise SIGBUS in the reader; not run here.) */
	{
		int ufd = memfd_with(img, len, -1);

		if (ok(pfr_ring_attach_fd(&ring, ufd) == 0,
		       "attach an unsealable memfd")) {
			is_int(pfr_ring_sealed(ring), 0,
			       "an unsealable object is reported as such");
			pfr_ring_close(ring);
		}
		close(ufd);
	}
	free(img);
}

int main(void)
{
	test_init();
	for (int i = 0; i < PFR_ORDER__COUNT; i++) {
		test_raw(rt_orders[i], 0);
		test_raw(rt_orders[i], (uint64_t)0 - 32);
		test_raw(rt_orders[i], 1ull << 63);
		test_writer(rt_orders[i]);
		test_snapshot(rt_orders[i]);
	}
	test_inband(0);
	test_inband((uint64_t)0 - 32);
	test_inband(1ull << 63);
	test_double_fetch();
	test_attach();
	test_shrunk();
	return rt_done();
}
