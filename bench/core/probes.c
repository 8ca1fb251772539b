/* SPDX-License-Identifier: MIT */
/*
 * bench/core/probes.c - the machine's physical limits, measured in the same run
 * as the queues: the cache-line round trip between the two bench CPUs
 * (ping-pong on one line), single-core memcpy bandwidth at each payload
 * size, and the cost of each barrier primitive (with x86's mfence next to
 * the locked add that pfr_smp_mb() uses, to show why it is the locked add).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "probes.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_percentile(double *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/* ---- cache-line round trip ---- */

struct rtt_arg {
	struct bench_flag *line;
	uint64_t n;
	uint64_t *ticks;
};

/* Side 0 writes an odd value and waits for side 1's even answer: one
 * round trip of the line per iteration.  Pure spinning, no pause, as the
 * latency ping-pong over the rings does.  Relaxed atomics: only the value
 * is exchanged, nothing is published through it. */
static void *rtt_side0(void *p)
{
	struct rtt_arg *a = (struct rtt_arg *)p;

	for (uint64_t i = 0; i < a->n; i++) {
		uint64_t t = bench_ticks();
		uint32_t want = (uint32_t)(2 * i + 2);

		__atomic_store_n(&a->line->v, (uint32_t)(2 * i + 1),
				 __ATOMIC_RELAXED);
		while (__atomic_load_n(&a->line->v, __ATOMIC_RELAXED) != want)
			;
		a->ticks[i] = bench_ticks() - t;
	}
	return NULL;
}

static void *rtt_side1(void *p)
{
	struct rtt_arg *a = (struct rtt_arg *)p;

	for (uint64_t i = 0; i < a->n; i++) {
		uint32_t want = (uint32_t)(2 * i + 1);

		while (__atomic_load_n(&a->line->v, __ATOMIC_RELAXED) != want)
			;
		__atomic_store_n(&a->line->v, (uint32_t)(2 * i + 2),
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

int bench_rtt(uint64_t n, double *p50_ns, double *mean_ns)
{
	static struct bench_flag line;
	struct rtt_arg a = {&line, n, NULL};
	double share[2], *v, sum = 0;
	uint64_t skip = n / 10, m = n - skip;

	a.ticks = (uint64_t *)calloc(n, sizeof(uint64_t));
	v = (double *)calloc(n, sizeof(double));
	if (!a.ticks || !v || n < 10) {
		free(a.ticks);
		free(v);
		return -1;
	}
	line.v = 0;
	if (bench_pair(rtt_side0, &a, rtt_side1, &a, share, NULL, NULL)) {
		free(a.ticks);
		free(v);
		return -1;
	}
	for (uint64_t i = 0; i < m; i++) {
		v[i] = bench_ticks_to_ns((double)a.ticks[skip + i]);
		sum += v[i];
	}
	*mean_ns = sum / (double)m;
	*p50_ns = bench_percentile(v, m, 0.5);
	free(a.ticks);
	free(v);
	return 0;
}

/* ---- memcpy bandwidth ---- */

/* memcpy through a pointer the compiler cannot see through: the library
 * call a ring's copy makes for a runtime size. */
static void *(*volatile memcpy_p)(void *, const void *, size_t) = memcpy;

double bench_memcpy_gbps(size_t size, size_t working_set, uint64_t ns)
{
	size_t ws = working_set < 2 * size ? 2 * size : working_set;
	unsigned char *src = (unsigned char *)bench_alloc(4096, ws);
	unsigned char *dst = (unsigned char *)bench_alloc(4096, ws);
	uint64_t bytes = 0, t0, t;
	size_t off = 0;
	int pin_ok;

	if (!src || !dst) {
		free(src);
		free(dst);
		return 0;
	}
	memset(src, 0x5a, ws);
	memset(dst, 0xa5, ws);
	pin_ok = bench_pin(0) == 0;
	(void)pin_ok;
	t0 = bench_now_ns();
	do {
		for (int k = 0; k < 64; k++) {
			memcpy_p(dst + off, src + off, size);
			off += size;
			if (off + size > ws)
				off = 0;
		}
		bytes += 64 * (uint64_t)size;
		t = bench_now_ns();
	} while (t - t0 < ns);
	free(src);
	free(dst);
	return (double)bytes / (double)(t - t0);
}

/* ---- cross-core read bandwidth ---- */

struct xcore_arg {
	struct bench_flag *turn;
	unsigned char *buf;
	size_t ws;
	uint64_t rounds, read_ns;
	uint64_t sum;
};

/* Side 0 writes the whole buffer (the lines end up modified in its cache),
 * then hands it over; side 1 reads it all, timed: the rate at which one
 * core pulls freshly written lines out of the other's cache - what any
 * queue's payload must go through. */
static void *xcore_writer(void *p)
{
	struct xcore_arg *a = (struct xcore_arg *)p;

	for (uint64_t i = 0; i < a->rounds; i++) {
		/* purpose: waits for the reader's hand-back; pairs with its
		 * release store below */
		while (__atomic_load_n(&a->turn->v, __ATOMIC_ACQUIRE) !=
		       (uint32_t)(2 * i))
			pfr_cpu_relax();
		memset(a->buf, (int)(i & 0xff), a->ws);
		__atomic_store_n(&a->turn->v, (uint32_t)(2 * i + 1),
				 __ATOMIC_RELEASE); /* purpose: the buffer
			* before the hand-over; pairs with the acquire load
			* in xcore_reader() */
	}
	return NULL;
}

static void *xcore_reader(void *p)
{
	struct xcore_arg *a = (struct xcore_arg *)p;

	for (uint64_t i = 0; i < a->rounds; i++) {
		uint64_t t0;

		/* purpose: pairs with the writer's release store */
		while (__atomic_load_n(&a->turn->v, __ATOMIC_ACQUIRE) !=
		       (uint32_t)(2 * i + 1))
			pfr_cpu_relax();
		t0 = bench_now_ns();
		a->sum += pfr__payload_sum64(a->buf, a->ws / 8);
		a->read_ns += bench_now_ns() - t0;
		__atomic_store_n(&a->turn->v, (uint32_t)(2 * i + 2),
				 __ATOMIC_RELEASE); /* purpose: the reads
			* before the hand-back; pairs with the acquire load
			* in xcore_writer() */
	}
	return NULL;
}

double bench_xcore_gbps(size_t ws, uint64_t rounds)
{
	static struct bench_flag turn;
	struct xcore_arg a;
	double share[2];

	memset(&a, 0, sizeof(a));
	a.turn = &turn;
	a.ws = ws & ~(size_t)63;
	a.rounds = rounds;
	a.buf = (unsigned char *)bench_alloc(4096, ws);
	if (!a.buf)
		return 0;
	memset(a.buf, 0, ws);
	turn.v = 0;
	if (bench_pair(xcore_writer, &a, xcore_reader, &a, share, NULL, NULL) ||
	    !a.read_ns) {
		free(a.buf);
		return 0;
	}
	free(a.buf);
	return (double)a.ws * (double)rounds / (double)a.read_ns;
}

/* ---- barrier costs ---- */

static uint64_t probe_x;

#define PFR__PROBE(fn, body)                                                   \
	static __attribute__((noinline)) uint64_t fn(uint64_t n)               \
	{                                                                      \
		uint64_t t0 = bench_now_ns(), v = 0;                           \
		for (uint64_t i = 0; i < n; i++) {                             \
			body;                                                  \
		}                                                              \
		PFR_WRITE_ONCE(probe_x, probe_x + (v & 1));                    \
		return bench_now_ns() - t0;                                    \
	}

PFR__PROBE(p_barrier, pfr_barrier())
PFR__PROBE(p_rmb, pfr_smp_rmb()) /* purpose: cost probe */
PFR__PROBE(p_wmb, pfr_smp_wmb()) /* purpose: cost probe */
PFR__PROBE(p_tmb, pfr_smp_tmb()) /* purpose: cost probe */
PFR__PROBE(p_mb, pfr_smp_mb()) /* purpose: cost probe */
PFR__PROBE(p_ctrl, pfr_smp_acquire__after_ctrl_dep()) /* purpose: probe */
PFR__PROBE(p_acq, v += pfr_smp_load_acquire(&probe_x)) /* purpose: probe */
PFR__PROBE(p_rel, pfr_smp_store_release(&probe_x, i)) /* purpose: probe */
PFR__PROBE(p_st, PFR_WRITE_ONCE(probe_x, i); pfr_barrier())
PFR__PROBE(p_st_mb, PFR_WRITE_ONCE(probe_x, i);
	   pfr_smp_mb()) /* purpose: probe */
#if defined(__x86_64__) && !defined(PFR__TSAN)
#define PFR__MFENCE() __asm__ __volatile__("mfence" ::: "memory")
PFR__PROBE(p_mfence, PFR__MFENCE())
PFR__PROBE(p_st_mfence, PFR_WRITE_ONCE(probe_x, i); PFR__MFENCE())
#endif

static const struct {
	const char *name;
	uint64_t (*fn)(uint64_t);
	uint64_t scale; /* cheap primitives run this many times more */
} probes[] = {
	{"compiler barrier", p_barrier, 16},
	{"smp_rmb", p_rmb, 16},
	{"smp_wmb", p_wmb, 16},
	{"smp_tmb", p_tmb, 16},
	{"acquire__after_ctrl_dep", p_ctrl, 16},
	{"load_acquire", p_acq, 16},
	{"store_release", p_rel, 16},
	{"smp_mb", p_mb, 1},
	{"store", p_st, 16},
	{"store + smp_mb", p_st_mb, 1},
#if defined(__x86_64__) && !defined(PFR__TSAN)
	{"mfence", p_mfence, 1},
	{"store + mfence", p_st_mfence, 1},
#endif
};

int bench_barriers(struct bench_barrier_cost *out, int max, uint64_t n)
{
	int k = 0;

	bench_pin(0);
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]) && k < max;
	     i++, k++) {
		uint64_t iters = n * probes[i].scale, best = UINT64_MAX;

		/* best of three: the cost of the primitive, not of an
		 * interrupt that hit one pass */
		for (int r = 0; r < 3; r++) {
			uint64_t t = probes[i].fn(iters);

			if (t < best)
				best = t;
		}
		out[k].name = probes[i].name;
		out[k].ns = (double)best / (double)iters;
	}
	return k;
}

/* Share of the two bench CPUs' time spent busy (not idle) over ms
 * milliseconds while this process sleeps; 0 when /proc/stat is
 * unreadable. */
double busy_share(int ms)
{
	struct bench_cpustat a, b;
	double busy, tot;

	if (bench_cpustat(&a))
		return 0;
	usleep((useconds_t)ms * 1000);
	if (bench_cpustat(&b))
		return 0;
	busy = (double)(b.busy - a.busy) + (double)(b.steal - a.steal);
	tot = busy + (double)(b.idle - a.idle);
	return tot > 0 ? busy / tot : 0;
}
