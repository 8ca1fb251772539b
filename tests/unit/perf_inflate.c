/* SPDX-License-Identifier: MIT */
/*
 * Compressed records (PERF_RECORD_COMPRESSED, perf record -z) through the
 * library's reader, which links no compression library: without a
 * decompressor pfr_perf_file_next() stops at the first one with
 * -PFR_PERF_E_COMPRESSED, and stays there; with one set
 * (pfr_perf_file_set_inflate()) both readers, whole-file and stream, give
 * the records the uncompressed file holds, also those cut in two by the
 * compressed records' edges, and the whole-file reader's payloads stay
 * valid until close.  A failing decompressor, and a stream that ends in the
 * middle of a record, are errors.  The "compression" here is a XOR (the
 * test's decompressor takes at most 300 bytes a call), so that the reader's
 * loops are tested without zstd; perfring script's zstd is tested against
 * perf script in tests/perf/t_script_vs_perf.sh.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf/perf_read.h"
#include "tap.h"

#define N 3000
#define CHUNK 1000 /* bytes of data per COMPRESSED record */
/* is_int() with a formatted name */
#define IS(got, want, ...)                                                     \
	do {                                                                   \
		long long g_ = (long long)(got), w_ = (long long)(want);       \
		if (!ok(g_ == w_, __VA_ARGS__))                                \
			tap_diag("  got %lld, want %lld", g_, w_);             \
	} while (0)

static uint32_t len_of(uint32_t i)
{
	return 8 * (1 + (i * 2654435761u) % 60);
}

static int write_plain(const char *path)
{
	struct perf_event_attr a;
	struct pfr_perf_file *f;
	static unsigned char b[512];
	uint64_t ids[1] = {7};

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP;
	if (pfr_perf_file_create(&f, path) ||
	    pfr_perf_file_add_event(f, &a, "inflate-test", ids, 1))
		return -1;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t len = len_of(i);
		struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0,
					      (uint16_t)(len + 8)};

		for (uint32_t k = 0; k < len; k++)
			b[k] = (unsigned char)(i * 7 + k);
		if (pfr_perf_file_write(f, &h, b, len))
			return -1;
	}
	return pfr_perf_file_close(f);
}

/* Header fields: data section at 40 (offset) and 48 (size), the feature
 * bitmap at 72; the feature index at data's end, absolute offsets. */
static int compress_file(const char *in, const char *out, int drop_last)
{
	FILE *fi = fopen(in, "rb"), *fo = fopen(out, "wb");
	unsigned char *m = NULL, *d = NULL;
	uint64_t doff, dsize, nd = 0, feat[4], nfeat = 0;
	long len;
	int err = -1;

	if (!fi || !fo || fseek(fi, 0, SEEK_END) || (len = ftell(fi)) < 104)
		goto out;
	rewind(fi);
	m = malloc((size_t)len);
	if (!m || fread(m, 1, (size_t)len, fi) != (size_t)len)
		goto out;
	memcpy(&doff, m + 40, 8);
	memcpy(&dsize, m + 48, 8);
	memcpy(feat, m + 72, 32);
	for (int i = 0; i < 4; i++)
		nfeat += (uint64_t)__builtin_popcountll(feat[i]);
	d = malloc(dsize * 2 + 64);
	if (!d)
		goto out;
	for (uint64_t o = 0; o < dsize; o += CHUNK) {
		uint64_t n = dsize - o < CHUNK ? dsize - o : CHUNK;
		struct pfr_record_header h = {81, 0, (uint16_t)(n + 8)};

		if (drop_last && o + n == dsize)
			break;
		memcpy(d + nd, &h, 8);
		for (uint64_t k = 0; k < n; k++)
			d[nd + 8 + k] = m[doff + o + k] ^ 0x5a;
		nd += 8 + n;
	}
	/* the feature index follows the data: shift its offsets */
	for (uint64_t i = 0; i < nfeat; i++) {
		unsigned char *e = m + doff + dsize + 16 * i;
		uint64_t off;

		memcpy(&off, e, 8);
		off = off - dsize + nd;
		memcpy(e, &off, 8);
	}
	memcpy(m + 48, &nd, 8);
	if (fwrite(m, 1, doff, fo) == doff && fwrite(d, 1, nd, fo) == nd &&
	    fwrite(m + doff + dsize, 1, len - doff - dsize, fo) ==
		    len - doff - dsize)
		err = 0;
out:
	free(m);
	free(d);
	if (fi)
		fclose(fi);
	if (fo && fclose(fo))
		err = -1;
	return err;
}

static int calls;

static long xor_inflate(void *arg, const void *in, size_t in_len,
			size_t *in_used, void *out, size_t out_cap)
{
	size_t n = in_len < out_cap ? in_len : out_cap;

	(void)arg;
	if (n > 300)
		n = 300;
	for (size_t k = 0; k < n; k++)
		((unsigned char *)out)[k] =
			((const unsigned char *)in)[k] ^ 0x5a;
	*in_used = n;
	calls++;
	return (long)n;
}

static long bad_inflate(void *arg, const void *in, size_t in_len,
			size_t *in_used, void *out, size_t out_cap)
{
	(void)arg, (void)in, (void)in_len, (void)out, (void)out_cap;
	*in_used = 0;
	return -1;
}

/* The records of the compressed file z, read with the decompressor, are
 * those of the plain one p (kept: the whole-file reader's payloads are
 * compared only after the last record was read). */
static void compare(const char *p, const char *z, int stream)
{
	struct pfr_perf_file *fp = NULL, *fz = NULL;
	static struct pfr_record rp[N + 1], rz[N + 1];
	int n = 0, bad = 0, a = 0, b = 0;
	const char *how = stream ? "stream" : "whole-file";

	if (pfr_perf_file_open(&fp, p) ||
	    (stream ? pfr__perf_file_open_stream(&fz, z)
		    : pfr_perf_file_open(&fz, z))) {
		ok(0, "%s: open both files", how);
		return;
	}
	IS(pfr_perf_file_next(fz, &rz[0]), -PFR_PERF_E_COMPRESSED,
	   "%s: no decompressor: -PFR_PERF_E_COMPRESSED", how);
	IS(pfr_perf_file_next(fz, &rz[0]), -PFR_PERF_E_COMPRESSED,
	   "%s: the same again (it stays at the record)", how);
	IS(pfr_perf_file_set_inflate(fz, xor_inflate, NULL), 0,
	   "%s: a decompressor set after that", how);
	calls = 0;
	while (n <= N) {
		a = pfr_perf_file_next(fp, &rp[n]);
		b = pfr_perf_file_next(fz, &rz[n]);
		if (a != 1 || b != 1)
			break;
		if (stream && (rp[n].hdr.size != rz[n].hdr.size ||
			       memcmp(rp[n].payload, rz[n].payload, rp[n].len)))
			bad++;
		n++;
	}
	IS(a, 0, "%s: the plain file ends", how);
	IS(b, 0, "%s: the compressed one ends with it", how);
	IS(n, N, "%s: every record", how);
	for (int i = 0; !stream && i < n; i++)
		if (rp[i].hdr.size != rz[i].hdr.size ||
		    rp[i].hdr.type != rz[i].hdr.type ||
		    memcmp(rp[i].payload, rz[i].payload, rp[i].len))
			bad++;
	IS(bad, 0, "%s: the same records (payloads %s)", how,
	   stream ? "as read" : "still valid at the end");
	ok(calls > 50, "%s: %d calls of a decompressor that takes 300 bytes",
	   how, calls);
	IS(pfr_perf_file_set_inflate(fz, NULL, NULL), -PFR_E_INVAL,
	   "%s: no change of decompressor in the stream's middle", how);
	pfr_perf_file_close(fp);
	pfr_perf_file_close(fz);
}

static void errors(const char *z, const char *cut)
{
	struct pfr_perf_file *f = NULL;
	struct pfr_record r;
	int n = 0, e;

	if (!pfr_perf_file_open(&f, z)) {
		pfr_perf_file_set_inflate(f, bad_inflate, NULL);
		is_int(pfr_perf_file_next(f, &r), -PFR_PERF_E_FILE_LAYOUT,
		       "a failing decompressor: -PFR_PERF_E_FILE_LAYOUT");
		pfr_perf_file_close(f);
	}
	if (!pfr_perf_file_open(&f, cut)) {
		pfr_perf_file_set_inflate(f, xor_inflate, NULL);
		while ((e = pfr_perf_file_next(f, &r)) == 1)
			n++;
		ok(e == -PFR_PERF_E_FILE_LAYOUT && n > 0 && n < N,
		   "the stream ends inside a record: %d records, then %d", n,
		   e);
		pfr_perf_file_close(f);
	}
	ok(strstr(pfr_perf_strerror(-PFR_PERF_E_COMPRESSED), "compressed") !=
		   NULL,
	   "-PFR_PERF_E_COMPRESSED: '%s'",
	   pfr_perf_strerror(-PFR_PERF_E_COMPRESSED));
	is_int(pfr_perf_file_set_inflate(NULL, xor_inflate, NULL), -PFR_E_INVAL,
	       "set_inflate(NULL): -PFR_E_INVAL");
}

int main(void)
{
	char p[] = "/tmp/pfr-inflate-XXXXXX", z[64], cut[64];
	int fd = mkstemp(p);

	if (fd < 0)
		tap_skip_all("no temporary file");
	close(fd);
	snprintf(z, sizeof(z), "%s.z", p);
	snprintf(cut, sizeof(cut), "%s.cut", p);
	ok(!write_plain(p) && !compress_file(p, z, 0) &&
		   !compress_file(p, cut, 1),
	   "a file, and the same with its data in COMPRESSED records");
	compare(p, z, 0);
	compare(p, z, 1);
	errors(z, cut);
	unlink(p);
	unlink(z);
	unlink(cut);
	return tap_done();
}
