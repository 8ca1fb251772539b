/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the ring's unit tests (tests/unit/ring_*.c): ring
 * creation per ordering and policy, verifiable payloads (a sequence number
 * and a checksum in every record), clocks, and TODO checks.
 *
 * A TODO check is a check that fails today because of a known, reported
 * design question (docs/ring-crash.md and the test report say which).  It
 * prints "# TODO-failing: ..." instead of failing the program, so the
 * question stays visible in every log; PFR_TODO_STRICT=1 turns every TODO
 * check into a real one.  A TODO check that passes prints that the TODO can
 * be removed.
 */
#ifndef PFR_TESTS_RING_COMMON_H
#define PFR_TESTS_RING_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <perfring/ring.h>

#include "../../util/payload.h"
#include "tap.h"

static const enum pfr_ordering rt_orders[PFR_ORDER__COUNT] = {
	PFR_ORDER_FULL,
	PFR_ORDER_ACQREL,
	PFR_ORDER_CTRLDEP,
};

static inline int rt_long(void)
{
	const char *s = getenv("PFR_LONG");

	return s && s[0] == '1';
}

static inline uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void rt_sleep_ns(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000ull),
			      (long)(ns % 1000000000ull)};

	nanosleep(&ts, NULL);
}

/* xorshift64*: reproducible per seed. */
static inline uint64_t rt_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static inline int rt_mkring(struct pfr_ring **ring, uint64_t size,
			    enum pfr_policy pol, enum pfr_ordering ord,
			    uint32_t flags)
{
	struct pfr_ring_opts o;

	memset(&o, 0, sizeof(o));
	o.data_size = size;
	o.policy = pol;
	o.ordering = ord;
	o.flags = flags;
	o.lost_id = 0x1d00 + (uint64_t)ord;
	return pfr_ring_create(ring, &o);
}

/* The byte at index i of the payload of record seq. */
static inline unsigned char rt_byte(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 131u + i * 7u + (i >> 8) + 1u);
}

static inline void rt_fill(void *p, size_t len, uint64_t seq)
{
	unsigned char *b = (unsigned char *)p;

	for (size_t i = 0; i < len; i++)
		b[i] = rt_byte(seq, i);
}

/* Returns the index of the first wrong byte, or -1. */
static inline long rt_check(const void *p, size_t len, uint64_t seq)
{
	const unsigned char *b = (const unsigned char *)p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != rt_byte(seq, i))
			return (long)i;
	return -1;
}

/*
 * Stress payloads: the full form of util/payload.h, { u64 seq; u64
 * hash; filler }, the hash over seq, the length and the filler, so a
 * torn, stale or misplaced record is caught whatever part of it is wrong.
 */
#define RT_HDR PFR__PAYLOAD_HDR

/* len >= RT_HDR */
static inline void rt_stamp(void *p, size_t len, uint64_t seq)
{
	pfr__payload_stamp(p, len, 0, seq);
}

/* Returns 1 and the record's seq if it verifies, 0 if not. */
static inline int rt_verify(const void *p, size_t len, uint64_t *seq)
{
	return pfr__payload_verify(p, len, 0, seq);
}

/* is_int / is_uint with a printf-style name */
#define is_intf(got, want, ...)                                                \
	do {                                                                   \
		long long rt__g = (long long)(got), rt__w = (long long)(want); \
		if (!ok(rt__g == rt__w, __VA_ARGS__))                          \
			tap_diag("  got %lld, want %lld", rt__g, rt__w);       \
	} while (0)
#define is_uintf(got, want, ...)                                               \
	do {                                                                   \
		unsigned long long rt__g = (unsigned long long)(got);          \
		unsigned long long rt__w = (unsigned long long)(want);         \
		if (!ok(rt__g == rt__w, __VA_ARGS__))                          \
			tap_diag("  got %llu (0x%llx), want %llu (0x%llx)",    \
				 rt__g, rt__g, rt__w, rt__w);                  \
	} while (0)

static int rt_todo_failing;

#define todo_ok(cond, why, ...)                                                \
	do {                                                                   \
		const char *rt__s = getenv("PFR_TODO_STRICT");                 \
		int rt__c = !!(cond);                                          \
		if (rt__s && rt__s[0] == '1') {                                \
			if (!ok(rt__c, __VA_ARGS__))                           \
				tap_diag("  TODO: %s", why);                   \
		} else if (rt__c) {                                            \
			ok(1, __VA_ARGS__);                                    \
			tap_diag("  TODO passes now, remove the TODO: %s",     \
				 why);                                         \
		} else {                                                       \
			rt_todo_failing++;                                     \
			printf("# TODO-failing (%s:%d): ", __FILE__,           \
			       __LINE__);                                      \
			printf(__VA_ARGS__);                                   \
			printf("\n#   why: %s\n", why);                        \
			fflush(stdout);                                        \
		}                                                              \
	} while (0)

static inline int rt_done(void)
{
	if (rt_todo_failing)
		tap_diag("%d TODO-failing check(s): known, reported issues",
			 rt_todo_failing);
	return tap_done();
}

/* ---- hostile rings: data areas between guard pages ---- */

#define RT_PG 4096u

/* size bytes of data with a PROT_NONE page on either side, so that an
 * access out of bounds faults even without ASan (the whole test is
 * skipped when mmap fails). */
static inline unsigned char *rt_guarded(uint64_t size)
{
	unsigned char *m = mmap(NULL, size + 2 * RT_PG, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		tap_skip_all("mmap: %s", strerror(errno));
	mprotect(m, RT_PG, PROT_NONE);
	mprotect(m + RT_PG + size, RT_PG, PROT_NONE);
	return m + RT_PG;
}

/* Unmaps what rt_guarded(size) returned. */
static inline void rt_unguard(unsigned char *d, uint64_t size)
{
	munmap(d - RT_PG, size + 2 * RT_PG);
}

/* A record header (type, size) at position pos of a data area of
 * mask + 1 bytes, as a peer (honest or not) writes it. */
static inline void rt_put_hdr(unsigned char *data, uint64_t mask, uint64_t pos,
			      uint32_t type, uint16_t size)
{
	struct pfr_record_header h = {type, 0, size};

	memcpy(data + (pos & mask), &h, sizeof(h));
}

#endif
