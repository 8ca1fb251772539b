// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the ring's untrusted-input paths (issue 3, point 9):
 *
 *  1. attach: the input becomes the contents of a memfd (once exactly as
 *     given, once grown to the sizes its control block declares, so that
 *     hostile control blocks that pass validation are exercised too);
 *     when pfr_ring_attach_fd() accepts it, a reader drains it with
 *     begin/next/end (touching every payload byte), an OVERWRITE ring is
 *     snapshotted, a writer writes a few records into it and everything is
 *     drained and snapshotted again;
 *  2. raw: the input is { u64 head; u64 tail; u64 knobs; data... } and a
 *     raw reader (pfr_reader_init, as for a kernel ring) drains the data,
 *     copied into a buffer of exactly the ring's size so that ASan sees any
 *     read outside it.
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

#include <perfring/ring.h>

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

static void snapshot(struct pfr_ring *ring, uint64_t size, size_t buflen)
{
	unsigned char *buf = malloc(buflen ? buflen : 1);
	int64_t n = pfr_ring_snapshot(ring, buf, buflen);
	unsigned s = 0;

	if (n > (int64_t)buflen)
		abort(); /* the snapshot wrote past what it was given */
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
	snapshot(ring, st.data_size, (size_t)st.data_size);
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
	snapshot(ring, st.data_size, (size_t)st.data_size);
}

static void fuzz_attach(const uint8_t *d, size_t n, int grow)
{
	struct pfr_ring *ring;
	int fd = memfd_create("fuzz-ring", MFD_CLOEXEC);

	if (fd < 0)
		return;
	if (n && write(fd, d, n) != (ssize_t)n)
		goto out;
	if (grow) {
		uint64_t off, size, want;

		if (n < sizeof(struct pfr_ring_ctl))
			goto out;
		off = rd64(d + offsetof(struct pfr_ring_ctl, data_offset));
		size = rd64(d + offsetof(struct pfr_ring_ctl, data_size));
		if (off > (1u << 20) || size > (1u << 20))
			goto out;
		want = off + size;
		if (want <= n || ftruncate(fd, (off_t)want) < 0)
			goto out;
	}
	if (pfr_ring_attach_fd(&ring, fd) == 0) {
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
				    scratch) == 0)
			drain(&r);
	}
	free(scratch);
	free(data);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	fuzz_attach(d, n, 0);
	fuzz_attach(d, n, 1);
	fuzz_raw(d, n);
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

static int make_ring(const char *dir, const char *name, enum pfr_policy pol,
		     enum pfr_ordering ord, int nrec, int nread)
{
	struct pfr_ring_opts o = {4096, pol, ord, PFR_RING_WAIT, 7, 0};
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
	}
	if (err)
		fprintf(stderr, "seed generation failed\n");
	return err ? 1 : 0;
}
#endif
