/* SPDX-License-Identifier: MIT */
/*
 * Crafted perf.data streams (perf's pipe format: a 16-byte header, one
 * HEADER_ATTR, then records) for the hardening tests of issue 34:
 *
 *   gen_crafted zempty N FILE      N empty COMPRESSED records, then one
 *                                  sample in a COMPRESSED record
 *   gen_crafted zbomb N MIB FILE   N zstd frames that each expand to MIB
 *                                  MiB of zeros (one record after them)
 *   gen_crafted zframes MODE FILE  20 samples in two zstd frames of 10;
 *                                  MODE ok, lie (a skippable frame whose
 *                                  size field claims more than it holds
 *                                  sits before the second frame) or cut
 *                                  (the second frame loses its last 5
 *                                  bytes) or cut:K (it keeps its first K
 *                                  bytes; more than it has: all)
 *   gen_crafted spell N ELF OFF FILE
 *                                  N MMAP2 records of process 1, each
 *                                  naming ELF another way (/./ inserted),
 *                                  each hit by one sample at file offset
 *                                  OFF
 *   gen_crafted sample ELF OFF FILE
 *                                  one MMAP2 of ELF and one sample at
 *                                  file offset OFF
 *   gen_crafted mangled LEVELS     prints a C++ mangled name whose
 *                                  demangled form doubles at each of
 *                                  LEVELS nesting levels
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define MAP_BASE 0x7f0000000000ULL

static unsigned char *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = (len + n) * 2;
		buf = realloc(buf, cap);
		if (!buf)
			exit(2);
	}
	memcpy(buf + len, p, n);
	len += n;
}

static void hdr(uint32_t type, uint16_t misc, size_t size)
{
	struct {
		uint32_t type;
		uint16_t misc, size;
	} h = {type, misc, (uint16_t)size};

	put(&h, sizeof(h));
}

static void start(void)
{
	struct perf_event_attr a;
	uint64_t magic[2] = {0x32454c4946524550ULL, 16};

	put(magic, sizeof(magic));
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 4000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD;
	hdr(64, 0, 8 + 128); /* HEADER_ATTR, no ids */
	put(&a, 128);
}

/* A sample record (40 bytes) at bytes p. */
static void sample(unsigned char *p, uint64_t ip, uint64_t t)
{
	uint32_t h[2] = {PERF_RECORD_SAMPLE,
			 (PERF_RECORD_MISC_USER) | 40 << 16};
	uint32_t pt[2] = {1, 1};
	uint64_t period = 4000;

	memcpy(p, h, 8);
	memcpy(p + 8, &ip, 8);
	memcpy(p + 16, pt, 8);
	memcpy(p + 24, &t, 8);
	memcpy(p + 32, &period, 8);
}

static void put_sample(uint64_t ip, uint64_t t)
{
	unsigned char s[40];

	sample(s, ip, t);
	put(s, sizeof(s));
}

static void mmap2(const char *name, uint64_t start_, uint64_t mlen)
{
	size_t nl = strlen(name) + 1, pad = (nl + 7) & ~(size_t)7;
	uint32_t pt[2] = {1, 1}, mm[2] = {8, 1}, pf[2] = {5, 2};
	uint64_t a[3] = {start_, mlen, 0}, ino[2] = {1, 0};
	char z[8] = {0};

	hdr(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
	    8 + 8 + 24 + 8 + 16 + 8 + pad);
	put(pt, 8);
	put(a, 24);
	put(mm, 8);
	put(ino, 16);
	put(pf, 8);
	put(name, nl);
	put(z, pad - nl);
}

/* One COMPRESSED record per 64 KiB of the n bytes at z. */
static void compressed(const unsigned char *z, size_t n)
{
	do {
		size_t k = n > 65000 ? 65000 : n;

		hdr(81, 0, 8 + k);
		put(z, k);
		z += k;
		n -= k;
	} while (n);
}

/* A whole zstd frame of the n bytes at src, in *out (malloc'ed). */
static size_t frame(const void *src, size_t n, unsigned char **out, int level)
{
	size_t c = ZSTD_compressBound(n);

	*out = malloc(c);
	if (!*out)
		exit(2);
	c = ZSTD_compress(*out, c, src, n, level);
	if (ZSTD_isError(c))
		exit(2);
	return c;
}

static void write_out(const char *path)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(buf, 1, len, f) != len || fclose(f))
		exit(2);
}

static void zframes(const char *mode)
{
	unsigned char recs[2][400], *z[2];
	size_t zl[2];

	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 10; i++)
			sample(recs[k] + 40 * i, 0x400000 + 10 * k + i,
			       1000000 + 10 * k + i);
		zl[k] = frame(recs[k], sizeof(recs[k]), &z[k], 19);
	}
	compressed(z[0], zl[0]);
	if (!strcmp(mode, "lie")) {
		/* skippable frame: magic, size 4096, 8 bytes of content */
		unsigned char s[16] = {0x50, 0x2a, 0x4d, 0x18, 0, 16};

		compressed(s, sizeof(s));
	}
	if (!strcmp(mode, "cut"))
		zl[1] -= 5;
	if (!strncmp(mode, "cut:", 4)) { /* cut:K keeps K bytes */
		size_t keep = strtoul(mode + 4, NULL, 0);

		zl[1] = keep < zl[1] ? keep : zl[1];
		if (!zl[1])
			return;
	}
	compressed(z[1], zl[1]);
}

static void zbomb(long n, long mib)
{
	size_t sz = (size_t)mib << 20;
	unsigned char *zero = calloc(1, sz), *z;
	size_t zl;

	if (!zero)
		exit(2);
	/* zeros parse as records of size 0: one real sample starts it */
	sample(zero, 0x400000, 1000);
	memset(zero + 40, 0, sz - 40);
	{
		/* the rest as padding records (type 0x7fff, 64 KiB - 8) */
		for (size_t off = 40; off + 65528 <= sz; off += 65528) {
			uint32_t h[2] = {0x7fff, 65528u << 16};

			memcpy(zero + off, h, 8);
		}
	}
	zl = frame(zero, sz - (sz - 40) % 65528, &z, 1);
	for (long i = 0; i < n; i++)
		compressed(z, zl);
}

/* The substitution S<k>_ of base 36 (S_ is the first). */
static void subst(char *o, int k)
{
	static const char d[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

	if (k == 0) {
		strcpy(o, "S_");
		return;
	}
	k--;
	if (k < 36)
		sprintf(o, "S%c_", d[k]);
	else
		sprintf(o, "S%c%c_", d[k / 36], d[k % 36]);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "mangled")) {
		/* 1A: A is S_; 1B (a template name) is S0_; each level
		 * B<X, X> of the level before is the next substitution */
		int levels = atoi(argv[2]);
		char b[8], x[8];

		/* S_ is f (an unscoped template name), S0_ A, S1_ B;
		 * B<A, A> is S2_, and level k (B<S(k)_, S(k)_>) S(k+1)_ */
		printf("_Z1fI1A1BIS0_S0_E");
		subst(b, 2);
		for (int k = 2; k < levels + 2; k++) {
			subst(x, k + 1);
			printf("%sI%s%sE", "S1_", x, x);
		}
		printf("Evv");
		(void)b;
		printf("\n");
		return 0;
	}
	if (argc < 3)
		return 2;
	start();
	if (!strcmp(argv[1], "zempty") && argc == 4) {
		long n = atol(argv[2]);
		unsigned char s[40], *z;
		size_t zl;

		for (long i = 0; i < n; i++)
			hdr(81, 0, 8);
		sample(s, 0x400000, 1000);
		zl = frame(s, sizeof(s), &z, 19);
		compressed(z, zl);
		write_out(argv[3]);
	} else if (!strcmp(argv[1], "zbomb") && argc == 5) {
		zbomb(atol(argv[2]), atol(argv[3]));
		write_out(argv[4]);
	} else if (!strcmp(argv[1], "zframes") && argc == 4) {
		zframes(argv[2]);
		write_out(argv[3]);
	} else if (!strcmp(argv[1], "spell") && argc == 6) {
		long n = atol(argv[2]);
		uint64_t off = strtoull(argv[4], NULL, 0);
		char name[4096];

		for (long i = 0; i < n; i++) {
			const char *e = argv[3];
			uint64_t at = MAP_BASE + (uint64_t)i * (64ULL << 20);

			/* "/usr/lib/x" -> "/usr/./././lib/x": i times "./" */
			snprintf(name, sizeof(name), "%.*s", 1, e);
			for (long k = 0; k < i && strlen(name) < 3000; k++)
				strcat(name, "./");
			strncat(name, e + 1, sizeof(name) - strlen(name) - 1);
			mmap2(name, at, 64ULL << 20);
			put_sample(at + off, 2000 + (uint64_t)i);
		}
		write_out(argv[5]);
	} else if (!strcmp(argv[1], "sample") && argc == 5) {
		uint64_t off = strtoull(argv[3], NULL, 0);

		mmap2(argv[2], MAP_BASE, 64ULL << 20);
		put_sample(MAP_BASE + off, 2000);
		write_out(argv[4]);
	} else {
		return 2;
	}
	return 0;
}
