/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/harness.c - clocks, CPU pinning and the two-thread run of
 * `perfring bench`.  Each run puts the producer on bench_cpu[0] and the
 * consumer on bench_cpu[1], releases both together, and records each
 * thread's CPU time against the wall time: a share well below 1 means
 * something else ran on that CPU during the run (the run is flagged).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../core/bench.h"

const size_t bench_payloads[PFR_BENCH_NPAYLOADS] = {
	8, 64, 256, 1024, 4096, PFR_BENCH_MAX_PAYLOAD};

int bench_payload_index(size_t payload)
{
	for (int i = 0; i < PFR_BENCH_NPAYLOADS; i++)
		if (bench_payloads[i] == payload)
			return i;
	return -1;
}

int bench_cpu[2] = {0, 1};
int bench_pinned = 1;

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t bench_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

long bench_thread_nivcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nivcsw;
}

long bench_thread_nvcsw(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_nvcsw;
}

static double ns_per_tick = 1.0;

uint64_t bench_ticks(void)
{
#if defined(__x86_64__) && !defined(PFR__TSAN)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return bench_now_ns();
#endif
}

double bench_ticks_to_ns(double ticks)
{
	return ticks * ns_per_tick;
}

void bench_calibrate_ticks(void)
{
#if defined(__x86_64__) && !defined(PFR__TSAN)
	uint64_t t0 = bench_now_ns(), k0 = bench_ticks(), t1, k1;

	do
		t1 = bench_now_ns();
	while (t1 - t0 < 20000000);
	k1 = bench_ticks();
	ns_per_tick = (double)(t1 - t0) / (double)(k1 - k0);
#endif
}

int bench_pin(int side)
{
	cpu_set_t set;

	if (!bench_pinned)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(bench_cpu[side], &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1
									 : 0;
}

int bench_cpustat(struct bench_cpustat *st)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = {0};
		int cpu;

		if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
			continue;
		if (sscanf(line + 3,
			   "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu,
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) < 9)
			continue;
		if (cpu != bench_cpu[0] && cpu != bench_cpu[1])
			continue;
		st->busy += v[0] + v[1] + v[2] + v[5] + v[6];
		st->idle += v[3] + v[4];
		st->steal += v[7];
	}
	fclose(f);
	return 0;
}

/* ---- the thread pair ---- */

struct bench_side {
	void *(*fn)(void *);
	void *arg;
	int side;
	struct bench_flag *ready;
	struct bench_flag *go;
	uint64_t cpu_ns, wall_ns;
	long nivcsw, nvcsw;
	int pin_err;
};

static void *side_main(void *p)
{
	struct bench_side *s = (struct bench_side *)p;
	uint64_t c0, w0;

	s->pin_err = bench_pin(s->side);
	__atomic_fetch_add(&s->ready->v, 1, __ATOMIC_ACQ_REL); /* purpose:
		* start hand-shake; pairs with the loads in bench_pair() */
	while (!__atomic_load_n(&s->go->v, __ATOMIC_ACQUIRE)) /* purpose:
		* pairs with the release store of go in bench_pair() */
		pfr_cpu_relax();
	s->nivcsw = bench_thread_nivcsw();
	s->nvcsw = bench_thread_nvcsw();
	c0 = bench_thread_cpu_ns();
	w0 = bench_now_ns();
	s->fn(s->arg);
	s->wall_ns = bench_now_ns() - w0;
	s->cpu_ns = bench_thread_cpu_ns() - c0;
	s->nivcsw = bench_thread_nivcsw() - s->nivcsw;
	s->nvcsw = bench_thread_nvcsw() - s->nvcsw;
	return NULL;
}

int bench_pair(void *(*fn0)(void *), void *arg0, void *(*fn1)(void *),
	       void *arg1, double share[2], long nivcsw[2], long nvcsw[2])
{
	static struct bench_flag ready, go;
	struct bench_side s[2] = {
		{fn0, arg0, 0, &ready, &go, 0, 0, 0, 0, 0},
		{fn1, arg1, 1, &ready, &go, 0, 0, 0, 0, 0},
	};
	pthread_t t[2];
	int i, started = 0;

	ready.v = 0;
	go.v = 0;
	for (i = 0; i < 2; i++) {
		if (pthread_create(&t[i], NULL, side_main, &s[i]))
			break;
		started++;
	}
	/* purpose: pairs with the fetch_add in side_main() */
	while (started == 2 && __atomic_load_n(&ready.v, __ATOMIC_ACQUIRE) < 2)
		sched_yield();
	/* purpose: releases both sides; pairs with their acquire loads */
	__atomic_store_n(&go.v, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	if (started < 2)
		return -1;
	for (i = 0; i < 2; i++) {
		share[i] = s[i].wall_ns
				   ? (double)s[i].cpu_ns / (double)s[i].wall_ns
				   : 1.0;
		if (nivcsw)
			nivcsw[i] = s[i].nivcsw;
		if (nvcsw)
			nvcsw[i] = s[i].nvcsw;
	}
	return s[0].pin_err || s[1].pin_err ? -1 : 0;
}

struct bench_arg {
	const struct bench_queue *bq;
	void *q;
	struct bench_run *run;
};

static void *produce_main(void *p)
{
	struct bench_arg *a = (struct bench_arg *)p;

	a->bq->produce(a->q, a->run);
	return NULL;
}

static void *consume_main(void *p)
{
	struct bench_arg *a = (struct bench_arg *)p;

	a->bq->consume(a->q, a->run);
	return NULL;
}

int bench_run_threads(const struct bench_queue *bq, struct bench_run *run)
{
	struct bench_arg a = {bq, NULL, run};
	int err;

	if (bq->setup(run, &a.q))
		return -2;
	err = bench_pair(produce_main, &a, consume_main, &a, run->share,
			 run->nivcsw, run->nvcsw);
	bq->teardown(a.q);
	return err;
}
