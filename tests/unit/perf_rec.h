/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the perf unit tests (tests/unit/perf_*.c) that build
 * perf records by hand: a record body grown field by field, and its
 * header.
 */
#ifndef PFR_TESTS_PERF_REC_H
#define PFR_TESTS_PERF_REC_H

#include <stdint.h>
#include <string.h>

#include <perfring/perf.h>

/* A record body: n bytes so far. */
struct buf {
	unsigned char b[4096];
	uint32_t n;
};

static inline void put64(struct buf *b, uint64_t v)
{
	memcpy(b->b + b->n, &v, 8);
	b->n += 8;
}

/* Two u32 in one u64 (pid and tid, cpu and res). */
static inline void put32x2(struct buf *b, uint32_t x, uint32_t y)
{
	memcpy(b->b + b->n, &x, 4);
	memcpy(b->b + b->n + 4, &y, 4);
	b->n += 8;
}

/* A string, NUL-terminated and padded to 8 bytes as the kernel does. */
static inline void putstr(struct buf *b, const char *s)
{
	size_t l = strlen(s) + 1, p = (l + 7) & ~(size_t)7;

	memset(b->b + b->n, 0, p);
	memcpy(b->b + b->n, s, l);
	b->n += (uint32_t)p;
}

/* Writes the record (type, misc, body b) to f and empties b; returns
 * pfr_perf_file_write()'s result. */
static inline int write_rec(struct pfr_perf_file *f, uint32_t type,
			    uint16_t misc, struct buf *b)
{
	struct pfr_record_header h = {type, misc, (uint16_t)(b->n + 8)};
	int err = pfr_perf_file_write(f, &h, b->b, b->n);

	b->n = 0;
	return err;
}

/* A user-space MMAP2 record of pid: len bytes of path at start (read and
 * execute, private), written as write_rec() does. */
static inline int write_mmap2(struct pfr_perf_file *f, uint32_t pid,
			      uint64_t start, uint64_t len, const char *path)
{
	struct buf b = {.n = 0};

	put32x2(&b, pid, pid);
	put64(&b, start);
	put64(&b, len);
	put64(&b, 0); /* pgoff */
	put32x2(&b, 0, 0); /* maj, min */
	put64(&b, 0); /* ino */
	put64(&b, 0); /* ino generation */
	put32x2(&b, 5, 2); /* prot, flags */
	putstr(&b, path);
	return write_rec(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &b);
}

#endif
