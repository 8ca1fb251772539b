// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ring's untrusted-input paths:
 *
 *  1. attach: the input becomes the contents of a memfd (once exactly as
 *     given, once grown - sparsely, up to 2 GiB - to the sizes its control
 *     block declares, so that hostile control blocks that pass validation
 *     are exercised too, and attached with a limit the input chooses);
 *     when the attach accepts it, a reader drains it with begin/next/end
 *     (touching every payload byte), an OVERWRITE ring is snapshotted, a
 *     writer writes a few records into it and everything is drained and
 *     snapshotted again;
 *  2. raw: the input is { u64 head; u64 tail; u64 knobs; data... } and a
 *     raw reader (pfr_reader_init, as for a kernel ring; knobs bit 3: an
 *     in-band reader, as pfr_ring_reader() opens one on a PFR_RING_INBAND
 *     ring, which walks the headers instead of loading head) drains the
 *     data, copied into a buffer of exactly the ring's size so that ASan
 *     sees any read outside it;
 *  3. snap: an OVERWRITE ring written by a real writer, some of its words
 *     then overwritten by the input, is snapshotted while a peer changes
 *     `oldest` and `head` between the snapshot's loads: src/ring/ring.c is
 *     compiled into this program with PFR_READ_ONCE() routed through
 *     fz_addr(), which serves the input's sequence of values, load by
 *     load, to those two words.  The snapshot must return whole, valid
 *     records inside the caller's buffer (of exactly buflen bytes) or an
 *     error.
 *
 * No input may crash, hang, leak or read out of bounds.  Built with
 *   clang -fsanitize=fuzzer,address,undefined
 * by tests/fuzz/t_fuzz_ring.sh.  With -DFUZZ_RING_SEEDS (and no
 * -fsanitize=fuzzer) it is instead a program that writes a seed corpus of
 * real rings into the directory given as its argument.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/barrier.h>

static const volatile void *fz_addr(const volatile void *p);

#undef PFR_READ_ONCE
#define PFR_READ_ONCE(x) (*(const volatile __typeof__(x) *)fz_addr(&(x)))

#include "ring/ring.c"
#include "ring/task.c" /* the roles' /proc look-ups */

/* The peer of mode 3: values served to the loads of two watched words. */
static struct {
	const volatile void *oldest, *head;
	uint64_t ov[8], hv[4];
	unsigned int on, oi, hn, hi;
	uint64_t cur;
} fz;

static const volatile void *fz_addr(const volatile void *p)
{
	if (fz.on && p == fz.oldest) {
		fz.cur = fz.ov[fz.oi < fz.on ? fz.oi++ : fz.on - 1];
		return &fz.cur;
	}
	if (fz.hn && p == fz.head) {
		fz.cur = fz.hv[fz.hi < fz.hn ? fz.hi++ : fz.hn - 1];
		return &fz.cur;
	}
	return p;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static volatile unsigned sink;

/* Drains a reader: bounded, touching every byte of every record. */
static void drain(struct pfr_reader *r)
{
	for (int batch = 0; batch < 64; batch++) {
		struct pfr_record rec;
		int64_t avail = pfr_reader_begin(r);
		int e;

		if (avail <= 0)
			return;
		while ((e = pfr_reader_next(r, &rec)) == 1) {
			const unsigned char *p =
				(const unsigned char *)rec.payload;
			unsigned s = 0;

			for (uint32_t i = 0; i < rec.len; i++)
				s += p[i];
			sink += s + rec.hdr.type;
		}
		pfr_reader_end(r);
		if (e < 0)
			return;
	}
}

/* What a snapshot returns: whole records of valid sizes, no PAD, inside
 * the buffer; or an error. */
static void check_snapshot(const unsigned char *buf, int64_t n, size_t buflen)
{
	int64_t q = 0;

	if (n < 0)
		return;
	if ((uint64_t)n > buflen)
		abort(); /* the snapshot wrote past what it was given */
	while (q < n) {
		struct pfr_record_header h;

		memcpy(&h, buf + q, sizeof(h));
		if (h.size == 0 || (h.size & 7) || h.size > n - q ||
		    h.type == PFR_RECORD_PAD)
			abort(); /* a torn or invalid record came back */
		q += h.size;
	}
}

static void snapshot(struct pfr_ring *ring, uint64_t size, size_t buflen)
{
	unsigned char *buf = malloc(buflen ? buflen : 1);
	int64_t n = pfr_ring_snapshot(ring, buf, buflen);
	unsigned s = 0;

	check_snapshot(buf, n, buflen);
	for (int64_t i = 0; i < n; i++)
		s += buf[i];
	sink += s + (unsigned)size;
	free(buf);
}

static void use_ring(struct pfr_ring *ring, const uint8_t *d, size_t n)
{
	struct pfr_ring_stats st;
	struct pfr_reader r;
	struct pfr_writer w;
	int have_reader;

	pfr_ring_stats(ring, &st);
	have_reader = pfr_ring_reader(ring, &r) == 0;
	if (have_reader) {
		drain(&r);
		sink += (unsigned)pfr_reader_wait(&r, 0);
	}
	/* the snapshot's memory is the caller's buffer alone: a big one
	 * for a big ring, and a small one */
	snapshot(ring, st.data_size,
		 (size_t)(st.data_size < 65536 ? st.data_size : 65536));
	snapshot(ring, st.data_size, n % 512);
	if (pfr_ring_writer(ring, &w) == 0) {
		unsigned char rec[256];

		memset(rec, 0x5a, sizeof(rec));
		pfr_writer_set_timeout(&w, 0);
		for (int i = 0; i < 6; i++) {
			size_t len = n > (size_t)i ? d[n - 1 - i] : 8;
			void *p;

			if (i == 3 && pfr_writer_reserve(
					      &w, 1, pfr_writer_max_payload(&w),
					      &p) == 0) {
				memset(p, 1, pfr_writer_max_payload(&w));
				pfr_writer_commit_deferred(&w);
				continue;
			}
			(void)pfr_writer_write(&w, 1, rec, len);
		}
		pfr_writer_publish(&w);
		pfr_writer_flush(&w);
	}
	if (have_reader)
		drain(&r);
	snapshot(ring, st.data_size,
		 (size_t)(st.data_size < 65536 ? st.data_size : 65536));
}

static void fuzz_attach(const uint8_t *d, size_t n, int grow)
{
	struct pfr_ring_attach_opts ao = {sizeof(ao), 0, 0};
	struct pfr_ring *ring;
	int fd = memfd_create("fuzz-ring", MFD_CLOEXEC), err;

	if (fd < 0)
		return;
	if (n && write(fd, d, n) != (ssize_t)n)
		goto out;
	if (grow) {
		uint64_t off, size, want;
		uint32_t pad0;

		if (n < sizeof(struct pfr_ring_ctl))
			goto out;
		off = rd64(d + offsetof(struct pfr_ring_ctl, data_offset));
		size = rd64(d + offsetof(struct pfr_ring_ctl, data_size));
		/* sparse: a declared 2 GiB costs nothing until read */
		if (off > (1u << 20) || size > (2ull << 30))
			goto out;
		want = off + size;
		if (want <= n || ftruncate(fd, (off_t)want) < 0)
			goto out;
		/* the attacher's limit, from a byte the ring ignores:
		 * the default, or 2^k */
		memcpy(&pad0, d + offsetof(struct pfr_ring_ctl, pad0), 4);
		ao.max_data_size = pad0 % 34 ? 1ull << (pad0 % 34) : 0;
	}
	err = pfr_ring_attach_fd_opts(&ring, fd, &ao);
	if (err == 0) {
		uint64_t size = pfr_ring_ctl(ring)->data_size;

		if (size > (ao.max_data_size ? ao.max_data_size
					     : PFR_RING_ATTACH_MAX_DEFAULT))
			abort(); /* attached past the caller's limit */
		use_ring(ring, d, n);
		pfr_ring_close(ring);
	}
out:
	close(fd);
}

static void fuzz_raw(const uint8_t *d, size_t n)
{
	uint64_t head, tail, knobs, size = 8;
	unsigned char *data, *scratch;
	struct pfr_reader r;

	if (n < 32)
		return;
	head = rd64(d);
	tail = rd64(d + 8);
	knobs = rd64(d + 16);
	while (size * 2 <= n - 24 && size < (1u << 20))
		size *= 2;
	data = malloc(size);
	scratch = malloc(PFR_RECORD_MAX + 8);
	memcpy(data, d + 24, size);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			tail &= ~(uint64_t)7; /* an aligned tail goes further */
		if (pfr_reader_init(&r, &head, &tail, data, size,
				    (enum pfr_ordering)(knobs % 3),
				    (knobs & 4) ? PFR_READER_SKIP_PAD : 0,
				    scratch) == 0) {
			if (knobs & 8)
				r.iflags |= PFR__READER_INBAND;
			drain(&r);
		}
	}
	free(scratch);
	free(data);
}

/* A value near the real oldest or head: 3 input bytes, the first choosing
 * the base, the next two a signed offset (any alignment). */
static uint64_t near(const uint8_t *p, uint64_t o, uint64_t h)
{
	int16_t delta;

	memcpy(&delta, p + 1, 2);
	return ((p[0] & 1) ? h : o) + (uint64_t)(int64_t)delta;
}

/*
 * Mode 3.  The input: { u8 knobs (ordering; bit 1: 300 records of 16
 * bytes, which fill the ring exactly, else fewer of random sizes); u8 seed;
 * u8 on; u8 hn; u16 buflen; on x 3 bytes of oldest values; hn x 3 bytes of
 * head values; then groups of { u16 offset; u64 value } written into the
 * data area }.
 */
static void fuzz_snap(const uint8_t *d, size_t n)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_OVERWRITE,
				  .ordering = PFR_ORDER_ACQREL};
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	unsigned char *buf, *data, rec[512];
	uint64_t rnd, h0, o0;
	size_t buflen, i;
	uint16_t bl;
	int64_t got;

	if (n < 6)
		return;
	o.ordering = (enum pfr_ordering)(d[0] % 3);
	fz.on = d[2] % 9;
	fz.hn = d[3] % 5;
	memcpy(&bl, d + 4, 2);
	buflen = bl % 5000;
	i = 6;
	if (n < i + 3 * (fz.on + fz.hn)) {
		fz.on = fz.hn = 0;
		return;
	}
	if (pfr_ring_create(&ring, &o) || pfr_ring_writer(ring, &w)) {
		fz.on = fz.hn = 0;
		return;
	}
	c = pfr_ring_ctl(ring);
	data = (unsigned char *)c + c->data_offset;
	/* records of sizes from the seed: wrapped, padded, then hostile
	 * words on top */
	rnd = 0x9e3779b97f4a7c15ull * (d[1] + 1u);
	memset(rec, 0x5a, sizeof(rec));
	for (int k = 0; k < ((d[0] & 2) ? 300 : 40 + (d[0] >> 2)); k++) {
		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		/* knob 2: 16-byte records, which fill the ring exactly */
		pfr_writer_write(&w, 1 + (uint32_t)(rnd % 3), rec,
				 (d[0] & 2) ? 8 : (size_t)(rnd >> 8) % 400);
	}
	h0 = c->head;
	o0 = c->oldest;
	for (unsigned int k = 0; k < fz.on; k++, i += 3)
		fz.ov[k] = near(d + i, o0, h0);
	for (unsigned int k = 0; k < fz.hn; k++, i += 3)
		fz.hv[k] = near(d + i, o0, h0);
	for (; i + 10 <= n; i += 10) {
		uint16_t at;

		memcpy(&at, d + i, 2);
		memcpy(data + ((at & 4095) & ~7u), d + i + 2, 8);
	}
	buf = malloc(buflen ? buflen : 1);
	fz.oi = fz.hi = 0;
	fz.oldest = &c->oldest;
	fz.head = &c->head;
	got = pfr_ring_snapshot(ring, buf, buflen);
	fz.on = fz.hn = 0;
	fz.oldest = fz.head = NULL;
	check_snapshot(buf, got, buflen);
	/* and the ring as the input left it, without the flipping peer */
	got = pfr_ring_snapshot(ring, buf, buflen);
	check_snapshot(buf, got, buflen);
	free(buf);
	pfr_ring_close(ring);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fuzz_attach(d, n, 0);
	fuzz_attach(d, n, 1);
	fuzz_raw(d, n);
	fuzz_snap(d, n);
	return 0;
}

#ifdef FUZZ_RING_SEEDS
/* ---- the seed corpus: real rings, and raw rings with straddling
 * records ---- */

static int save(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n)
		return -1;
	return fclose(f);
}

static int save_ring(const char *dir, const char *name, struct pfr_ring *ring)
{
	int fd = pfr_ring_fd(ring);
	off_t len = lseek(fd, 0, SEEK_END);
	unsigned char *b = malloc((size_t)len);
	int err = pread(fd, b, (size_t)len, 0) == len
			  ? save(dir, name, b, (size_t)len)
			  : -1;

	free(b);
	return err;
}

static int make_ring_flags(const char *dir, const char *name,
			   enum pfr_policy pol, enum pfr_ordering ord,
			   uint32_t flags, int nrec, int nread)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = pol,
				  .ordering = ord,
				  .flags = flags,
				  .lost_id = 7};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	unsigned char buf[512];

	if (pfr_ring_create_memfd(&ring, &o) || pfr_ring_writer(ring, &w))
		return -1;
	for (int i = 0; i < nrec; i++) {
		memset(buf, i, sizeof(buf));
		pfr_writer_write(&w, 1 + (uint32_t)(i % 3), buf,
				 (size_t)(i * 37) % 300);
		if (nread && i % 10 == 9 && pfr_ring_reader(ring, &r) == 0) {
			struct pfr_record rec;

			pfr_reader_begin(&r);
			for (int k = 0; k < nread; k++)
				pfr_reader_next(&r, &rec);
			pfr_reader_end(&r);
		}
	}
	pfr_writer_flush(&w);
	return save_ring(dir, name, ring) | (pfr_ring_close(ring), 0);
}

static int make_ring(const char *dir, const char *name, enum pfr_policy pol,
		     enum pfr_ordering ord, int nrec, int nread)
{
	return make_ring_flags(dir, name, pol, ord, PFR_RING_WAIT, nrec,
			       nread);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	int err = 0;

	err |= make_ring(dir, "drop-wrapped", PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			 200, 9);
	err |= make_ring(dir, "drop-lost", PFR_POLICY_DROP, PFR_ORDER_FULL, 80,
			 2);
	err |= make_ring(dir, "block", PFR_POLICY_BLOCK, PFR_ORDER_CTRLDEP, 20,
			 0);
	err |= make_ring(dir, "overwrite", PFR_POLICY_OVERWRITE,
			 PFR_ORDER_ACQREL, 300, 0);
	err |= make_ring(dir, "empty", PFR_POLICY_DROP, PFR_ORDER_ACQREL, 0, 0);
	err |= make_ring_flags(dir, "inband-drop", PFR_POLICY_DROP,
			       PFR_ORDER_ACQREL, PFR_RING_INBAND, 200, 9);
	err |= make_ring_flags(dir, "inband-block", PFR_POLICY_BLOCK,
			       PFR_ORDER_ACQREL, PFR_RING_INBAND, 20, 0);
	{
		/* raw: head, tail, knobs, then a 512-byte data area with a
		 * record straddling its end and the counters wrapping */
		unsigned char b[24 + 512];
		uint64_t tail = (uint64_t)0 - 40, head = tail + 40 + 96 + 16;
		uint64_t knobs = 1;
		struct pfr_record_header h1 = {9, 0, 40}, h2 = {9, 0, 96},
					 h3 = {2, 0, 16};

		memset(b, 0x33, sizeof(b));
		memcpy(b, &head, 8);
		memcpy(b + 8, &tail, 8);
		memcpy(b + 16, &knobs, 8);
		/* tail & 511 = 472: h1 at 472, h2 at 0 (after the counter
		 * wrap), h3 at 96; then a record straddling: */
		memcpy(b + 24 + 472, &h1, 8);
		memcpy(b + 24 + 0, &h2, 8);
		memcpy(b + 24 + 96, &h3, 8);
		err |= save(dir, "raw-wrap", b, sizeof(b));
		tail = 480;
		head = 480 + 64;
		h1.size = 64; /* 480..544: straddles 512 */
		memcpy(b, &head, 8);
		memcpy(b + 8, &tail, 8);
		memcpy(b + 24 + 480, &h1, 8);
		err |= save(dir, "raw-straddle", b, sizeof(b));
		/* the same data read in band (knobs bit 3): h1 now ends
		 * past the data area, an error at the walk's first header */
		knobs = 1 | 4 | 8;
		memcpy(b + 16, &knobs, 8);
		err |= save(dir, "raw-inband", b, sizeof(b));
	}
	{
		/* mode 3: oldest served as itself, then as head - 4 (the
		 * unaligned flip); and oldest moving on by 48 bytes while
		 * head stays, with a 600-byte buffer */
		uint8_t s1[] = {3, 7, 2, 0, 0x00, 0x10, 0, 0, 0, 1, 0xfc, 0xff};
		uint8_t s2[] = {2, 9,  3, 1, 0x58, 0x02, 0, 0, 0,
				0, 48, 0, 0, 96,   0,	 1, 0, 0};

		err |= save(dir, "snap-flip", s1, sizeof(s1));
		err |= save(dir, "snap-move", s2, sizeof(s2));
	}
	if (err)
		fprintf(stderr, "seed generation failed\n");
	return err ? 1 : 0;
}
#endif
