/* SPDX-License-Identifier: MIT */
/*
 * bench/core/bench.h - the pieces `perfring bench` shares between its harness
 * (bench/spsc/harness.c), its probes, perfring's contestants and the peers'
 * adapters (bench/peer_*.c, bench/spsc/peers_cxx.cc).  Internal: not installed,
 * and the library never includes it.  C and C++.
 *
 * Every message, whatever the queue, is `payload` bytes (a multiple of 8)
 * seen as 64-bit words: word 0 is the sequence number, the last word is
 * seq ^ PFR__PAYLOAD_KEY, the words between are a fixed pattern: the ends
 * form of util/payload.h.  The producer stamps the two ends of one
 * prepared message and hands it to the queue (one copy into the queue);
 * the consumer checks the sequence number and a sum over every word
 * (pfr__payload_check_ends()), in place where the queue allows it
 * (perfring) or after copying out (slot queues).
 */
#ifndef PFR_BENCH_H
#define PFR_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/barrier.h>

#include "../../util/payload.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PFR_BENCH_MAX_PAYLOAD 65520u /* PFR_RECORD_MAX - the 8-byte header */
#define PFR_BENCH_NPAYLOADS 6
/* The payload sizes every contestant runs: 8, 64, 256, 1 KiB, 4 KiB and
 * the largest a perf record can carry (its u16 size is 65528 with the
 * header, so 64 KiB itself does not fit). */
extern const size_t bench_payloads[PFR_BENCH_NPAYLOADS];
/* Queue capacity in bytes for a payload, the same for every contestant:
 * the base (default 256 KiB, --capacity) or 16 records, whichever is more,
 * a power of two.  (Slot queues get capacity / payload slots, rounded down
 * to a power of two.) */
#define PFR_BENCH_CAPACITY 262144u
#define PFR_BENCH_CAPACITY_FOR(base, payload)                                  \
	((base) >= 16 * ((payload) + 8)	    ? (size_t)(base)                   \
	 : 16 * ((payload) + 8) <= 1048576u ? (size_t)1048576u                 \
					    : (size_t)4194304u)
/* Index of payload in bench_payloads, or -1. */
int bench_payload_index(size_t payload);

/* One measured run of one contestant: the harness fills the inputs, the
 * producer and consumer the outputs. */
struct bench_run {
	/* inputs */
	uint64_t n; /* messages the producer sends */
	uint64_t warm; /* messages received before the clock starts */
	size_t payload; /* bytes, a multiple of 8 */
	size_t capacity; /* queue capacity in bytes */
	unsigned batch; /* messages per publication (1: unbatched) */
	unsigned rbatch; /* perfring: the reader publishes tail after
				* at most this many records */
	int ordering, policy; /* perfring only */
	const uint64_t *msg; /* a prepared message (pattern words) */
	uint64_t body_sum; /* sum of the pattern's inner words */
	/* outputs of the consumer, on lines of their own: the producer
	 * reads the inputs above all through the run (no false sharing) */
	uint64_t t0 __attribute__((aligned(128))); /* ns: after `warm`
						     * messages */
	uint64_t t1; /* ns: after the last */
	uint64_t timed; /* messages received in [t0, t1] */
	uint64_t delivered; /* messages received and verified */
	uint64_t bad; /* messages that failed verification */
	uint64_t bad_seq; /* the first one's expected sequence number */
	/* outputs of the producer */
	uint64_t lost __attribute__((aligned(128))); /* DROP: dropped */
	int error; /* setup or run failure (nonzero) */
	/* set by the harness */
	double share[2] __attribute__((
		aligned(128))); /* thread CPU time / wall time: producer,
				* consumer (below 1: sleeping or preempted) */
	long nvcsw[2]; /* voluntary context switches: sleeps (futex) */
	long nivcsw[2]; /* involuntary context switches: another
				* task took the CPU */
	double steal; /* steal time (host) share on the two CPUs */
};

/* A queue under test.  produce() and consume() run on the two pinned
 * threads; they loop over all n messages themselves (no call per message
 * through a pointer).  setup() allocates the queue for run->payload and
 * run->capacity and returns 0, or -1 when this payload is not supported. */
struct bench_queue {
	const char *name; /* "rte_ring" */
	const char *variant; /* "burst" or "" */
	int batched;
	int (*setup)(struct bench_run *run, void **q);
	void (*produce)(void *q, struct bench_run *run);
	void (*consume)(void *q, struct bench_run *run);
	void (*teardown)(void *q);
	/* A transport of its own (processes): replaces the thread pair. */
	int (*run_pair)(const struct bench_queue *bq, struct bench_run *run);
	int ordering; /* perfring: enum pfr_ordering, else -1 */
	int policy; /* perfring: enum pfr_policy, else -1 */
	int processes; /* 1: over shared memory between processes */
	int reader_single; /* perfring: tail published after every record */
};

/* The peers' tables (each ends with a zeroed entry); NULL-safe. */
extern const struct bench_queue bench_perfring[];
/* perfring's default rows built with the write-ahead's old bound
 * (bench/spsc/perfring.c built again by mk/bench.mk) */
extern const struct bench_queue bench_perfring_walimit[];
extern const struct bench_queue bench_mutex[];
extern const struct bench_queue bench_ck[];
extern const struct bench_queue bench_dpdk[];
extern const struct bench_queue bench_cxx[];

/* aligned_alloc() with the size rounded up to a multiple of the alignment,
 * as C11 requires (65520-byte messages are not a multiple of 64). */
static inline void *bench_alloc(size_t align, size_t size)
{
	return aligned_alloc(align, (size + align - 1) & ~(align - 1));
}

/* The power of two at or below x (1 for x = 0): a queue's slots for a
 * capacity. */
static inline size_t bench_pow2_floor(size_t x)
{
	size_t p = 1;

	while (p * 2 <= x)
		p *= 2;
	return p;
}

/* ---- time, CPUs ---- */

/* qsort()'s comparison of doubles, ascending. */
int bench_cmp_d(const void *a, const void *b);
/* The median of v[0..n) (n at most PFR_BENCH_MEDIAN_MAX), and its range
 * in *lo and *hi when they are not NULL; 0 (range 0) for n <= 0. */
#define PFR_BENCH_MEDIAN_MAX 64
double bench_median(const double *v, int n, double *lo, double *hi);

/* One sizing run of n messages: sets *window_ms (the consumer's timed
 * window) and *mps (its rate); returns 0, -2 when the contestant refused
 * the setup, else -1 (the run failed; its reason stays in ctx). */
typedef int (*bench_sizing_fn)(void *ctx, uint64_t n, double *window_ms,
			       double *mps);
/* The warm-up's sizing of a contestant's runs (bench/core/method_common.c): runs
 * of nmin, 4 nmin, 16 nmin ... messages (at most 3 with quick, else 8;
 * the last below 2^31) until one's timed window lasts a quarter of
 * run_ms; its rate gives *n, the messages for run_ms, within [nmin, 2e9].
 * Returns 0, or the failed run's error (-2: the setup was refused, so
 * the contestant does not support the cell; -1: it failed). */
int bench_calibrate(bench_sizing_fn run, void *ctx, uint64_t nmin, int quick,
		    double run_ms, uint64_t *n);

uint64_t bench_now_ns(void);
/* Cheap timestamps for per-sample latency: the TSC on x86-64, else the
 * monotonic clock; bench_ticks_to_ns() converts a difference. */
uint64_t bench_ticks(void);
double bench_ticks_to_ns(double ticks);
void bench_calibrate_ticks(void);
/* The two CPUs the producer and consumer run on, and whether pinning
 * worked. */
extern int bench_cpu[2];
extern int bench_pinned;
/* Pins the calling thread to CPU bench_cpu[side]. */
int bench_pin(int side);
/* Runs fn(arg0) on CPU 0's side and fn(arg1) on CPU 1's side, each in a
 * pinned thread, released together; returns 0 or -1. Thread CPU time
 * shares go to share[2]. */
int bench_pair(void *(*fn0)(void *), void *arg0, void *(*fn1)(void *),
	       void *arg1, double share[2], long nivcsw[2], long nvcsw[2]);
/* Involuntary context switches of the calling thread so far. */
long bench_thread_nivcsw(void);
/* Voluntary context switches (sleeps) of the calling thread so far. */
long bench_thread_nvcsw(void);
/* The default transport: setup, two pinned threads, teardown.  Returns 0,
 * -1 (the run failed) or -2 (setup refused: payload not supported). */
int bench_run_threads(const struct bench_queue *bq, struct bench_run *run);
/* CPU time of the calling thread, ns. */
uint64_t bench_thread_cpu_ns(void);
/* Sums of /proc/stat columns for the two bench CPUs: busy (user, nice,
 * system, irq, softirq), idle (idle, iowait) and steal, in clock ticks.
 * Returns -1 when /proc/stat cannot be read. */
struct bench_cpustat {
	unsigned long long busy, idle, steal;
};
int bench_cpustat(struct bench_cpustat *st);

/* ---- messages ---- */

/* The consumer's bookkeeping for one received message: verification,
 * counting, and the start of the timed window.  words: the payload in
 * 64-bit words, a constant where the caller can make it one. */
static inline void bench_got(struct bench_run *run, const void *p, uint64_t seq,
			     size_t words)
{
	if (__builtin_expect(
		    !pfr__payload_check_ends(p, words, seq, run->body_sum),
		    0)) {
		if (!run->bad++)
			run->bad_seq = seq;
	}
	if (__builtin_expect(++run->delivered == run->warm, 0))
		run->t0 = bench_now_ns();
}

/* Ends the consumer's timed window. */
static inline void bench_done(struct bench_run *run)
{
	run->t1 = bench_now_ns();
	run->timed = run->delivered - run->warm;
}

/* Flags shared between the producer and consumer of a run (own line). */
struct bench_flag {
	uint32_t v;
	uint8_t pad[124];
} __attribute__((aligned(128)));

#ifdef __cplusplus
}
#endif

#endif
