/* SPDX-License-Identifier: MIT */
/*
 * mb-cost: what a full barrier costs on this x86-64 machine, the figures
 * behind the choice of pfr_smp_mb() in include/perfring/arch/x86_64.h and
 * docs/barriers.md.  Each variant is a loop of "store to a global, then the
 * barrier"; a barrier after a store is where a full fence costs (it must
 * drain the store buffer).  Variants run interleaved (A B C ... A B C ...),
 * REPS rounds, and the median and range of ns per iteration are printed.
 *
 *   inline variants: the barrier sits in the loop body.
 *   call variants:   the barrier is in a non-inlined function, so the
 *                    ret right after it loads the return address from
 *                    (%rsp) -- the slot the locked add just wrote.
 *
 * Build and run: make mb-cost && build/tools/mb-cost [ITERS [REPS]]
 * (or: cc -O2 -o mb-cost tools/mb-cost.c).  Single-threaded; nothing else
 * should run at the same time.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if !defined(__x86_64__)
int main(void)
{
	fprintf(stderr, "mb-cost: x86-64 only\n");
	return 77;
}
#else

static volatile uint64_t sink;

/* purpose: the candidates measured, each after a store */
#define CB() __asm__ __volatile__("" ::: "memory")
#define MFENCE() __asm__ __volatile__("mfence" ::: "memory")
#define LOCK_RSP() __asm__ __volatile__("lock; addl $0,(%%rsp)" ::: "memory", "cc")
#define LOCK_132() __asm__ __volatile__("lock; addl $0,-132(%%rsp)" ::: "memory", "cc")
#define LOCK_OR() __asm__ __volatile__("lock; orq $0,(%%rsp)" ::: "memory", "cc")

#define INLINE_LOOP(name, fence)                                               \
	static __attribute__((noinline)) void name(uint64_t n)                 \
	{                                                                      \
		for (uint64_t i = 0; i < n; i++) {                             \
			sink = i;                                              \
			fence();                                               \
		}                                                              \
	}

INLINE_LOOP(loop_cb, CB)
INLINE_LOOP(loop_mfence, MFENCE)
INLINE_LOOP(loop_lock_rsp, LOCK_RSP)
INLINE_LOOP(loop_lock_132, LOCK_132)
INLINE_LOOP(loop_lock_or, LOCK_OR)

#define CALLED(name, fence)                                                    \
	static __attribute__((noinline)) void name##_fn(void)                  \
	{                                                                      \
		fence();                                                       \
	}                                                                      \
	static __attribute__((noinline)) void name(uint64_t n)                 \
	{                                                                      \
		for (uint64_t i = 0; i < n; i++) {                             \
			sink = i;                                              \
			name##_fn();                                           \
		}                                                              \
	}

CALLED(call_cb, CB)
CALLED(call_mfence, MFENCE)
CALLED(call_lock_rsp, LOCK_RSP)
CALLED(call_lock_132, LOCK_132)

static const struct variant {
	const char *name;
	void (*fn)(uint64_t);
} variants[] = {
	{"store + compiler barrier (inline)", loop_cb},
	{"store + mfence (inline)", loop_mfence},
	{"store + lock addl $0,(%rsp) (inline)", loop_lock_rsp},
	{"store + lock addl $0,-132(%rsp) (inline)", loop_lock_132},
	{"store + lock orq $0,(%rsp) (inline, gcc C11)", loop_lock_or},
	{"store + call{compiler barrier}", call_cb},
	{"store + call{mfence}", call_mfence},
	{"store + call{lock addl $0,(%rsp)}", call_lock_rsp},
	{"store + call{lock addl $0,-132(%rsp)}", call_lock_132},
};
#define NV (sizeof(variants) / sizeof(variants[0]))

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t iters = argc > 1 ? strtoull(argv[1], NULL, 0) : 2000000;
	int reps = argc > 2 ? atoi(argv[2]) : 9;
	double *ns;

	if (reps < 1 || iters < 1)
		return 2;
	ns = calloc(NV * (size_t)reps, sizeof(*ns));
	if (!ns)
		return 1;
	for (size_t v = 0; v < NV; v++) /* warm-up */
		variants[v].fn(iters / 10 + 1);
	for (int r = 0; r < reps; r++)
		for (size_t v = 0; v < NV; v++) {
			double t0 = now_ns();

			variants[v].fn(iters);
			ns[v * reps + r] = (now_ns() - t0) / (double)iters;
		}
	printf("%-46s %8s %8s %8s   (%llu iterations x %d interleaved "
	       "rounds)\n",
	       "variant", "median", "min", "max", (unsigned long long)iters,
	       reps);
	for (size_t v = 0; v < NV; v++) {
		double *s = ns + v * reps;

		qsort(s, reps, sizeof(*s), cmp_double);
		printf("%-46s %8.2f %8.2f %8.2f ns/op\n", variants[v].name,
		       s[reps / 2], s[0], s[reps - 1]);
	}
	free(ns);
	return 0;
}
#endif
