/* SPDX-License-Identifier: MIT */
/*
 * Internal: the clock and the futex calls that src/ring/ring.c, src/writers/mpsc.c and
 * src/writers/group.c sleep and wake with.  Static inline, so that the programs
 * that compile one of those files alone (the Relacy models, the fuzzers)
 * need no other object, and so that a model's syscall() hook (included
 * before this header) reaches the futex calls too.
 */
#ifndef PFR_SRC_FUTEX_INT_H
#define PFR_SRC_FUTEX_INT_H

#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t pfr__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* now + timeout, UINT64_MAX when that overflows (no deadline). */
static inline uint64_t pfr__deadline(uint64_t now, uint64_t timeout)
{
	return timeout > UINT64_MAX - now ? UINT64_MAX : now + timeout;
}

/* Sleeps while *word == val, for at most ns nanoseconds.  Shared (not
 * FUTEX_PRIVATE) so that it works across processes.  One sleep lasts at
 * most a day (the callers loop to their deadline): a 32-bit time_t cannot
 * hold more, and a negative one made FUTEX_WAIT fail at once and the
 * caller spin. */
static inline void pfr__futex_wait(uint32_t *word, uint32_t val, uint64_t ns)
{
	const uint64_t day = 86400ull * 1000000000ull;
	struct timespec ts;

	if (ns > day)
		ns = day;
	ts.tv_sec = (time_t)(ns / 1000000000ull);
	ts.tv_nsec = (long)(ns % 1000000000ull);
	syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Wakes every thread asleep on word, in any process. */
static inline void pfr__futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

#endif
