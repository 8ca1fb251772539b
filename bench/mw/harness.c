/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/harness.c - one run of the multi-writer bench: the reader and
 * the writers (threads, or processes forked before any thread starts),
 * each pinned to the CPU its cell's list gives it, all released together
 * by one start flag.  The first writer to finish takes the fairness
 * snapshot: the smallest and largest of the reader's per-writer counts.  A watchdog ends a run whose reader still
 * waits ten seconds after every writer finished (a lost message): the run
 * fails instead of hanging.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mw.h"

void *bench_mw_alloc(const struct bench_mw_run *run, size_t size)
{
	void *p;

	size = (size + 4095) & ~(size_t)4095;
	if (run->processes) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	p = aligned_alloc(4096, size);
	if (p)
		memset(p, 0, size);
	return p;
}

void bench_mw_free(const struct bench_mw_run *run, void *p, size_t size)
{
	if (!p)
		return;
	size = (size + 4095) & ~(size_t)4095;
	if (run->processes)
		munmap(p, size);
	else
		free(p);
}

uint64_t bench_mw_bucket_low(unsigned b)
{
	unsigned msb;

	if (b < 16)
		return b;
	msb = b / 16 + 3;
	return (1ull << msb) | ((uint64_t)(b & 15) << (msb - 4));
}

void bench_mw__stall(struct bench_mw_run *run)
{
	uint64_t d = bench_ticks() - run->empty_since;

	run->empty_since = 0;
	/* only while writers are still sending: the reader waiting for a
	 * writer that has finished is not a stall */
	if (__atomic_load_n(&run->wdone.v, __ATOMIC_RELAXED) >= run->writers)
		return;
	run->stalls++;
	run->stall_ticks += d;
	run->hist[bench_mw_bucket(d)]++;
}

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	if (!bench_pinned || cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1
									 : 0;
}

struct side {
	const struct bench_mw_queue *q;
	void *qp;
	struct bench_mw_run *run;
	unsigned w; /* writer, or ~0u: the reader */
	uint64_t cpu_ns, wall_ns;
	long nivcsw;
};

static void wait_go(struct bench_mw_run *run)
{
	__atomic_fetch_add(&run->ready.v, 1, __ATOMIC_ACQ_REL); /* purpose:
		* start hand-shake; pairs with the loads in bench_mw_run_once() */
	while (!__atomic_load_n(&run->go.v, __ATOMIC_ACQUIRE)) /* purpose:
		* pairs with the release store of go in bench_mw_run_once() */
		pfr_cpu_relax();
}

/* The first writer to finish: how many messages each writer had sent by
 * then (smallest and largest). */
static void fair_snapshot(struct bench_mw_run *run)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (unsigned i = 0; i < run->writers; i++) {
		/* purpose: a count (bench_mw_wmore()'s relaxed store) */
		uint64_t v =
			__atomic_load_n(&run->w[i].progress, __ATOMIC_RELAXED);

		if (v < lo)
			lo = v;
		if (v > hi)
			hi = v;
	}
	run->fair_min = lo;
	run->fair_max = hi;
}

static void writer_body(struct side *s)
{
	struct bench_mw_writer *me = &s->run->w[s->w];

	if (pin_cpu(me->cpu))
		me->error = -1;
	wait_go(s->run);
	me->t_start = bench_now_ns();
	s->q->produce(s->qp, s->run, s->w);
	me->t_end = bench_now_ns();
	/* only the first to finish gets 0 (the snapshot's fields are its
	 * own; the harness reads them after joining every writer) */
	if (!__atomic_load_n(&s->run->wdone.v, __ATOMIC_RELAXED) &&
	    !__atomic_exchange_n(&s->run->fair_taken, 1, __ATOMIC_RELAXED))
		fair_snapshot(s->run);
	/* purpose: the writer's counts before its end; pairs with the
	 * acquire loads in bench_mw_run_once() */
	__atomic_fetch_add(&s->run->wdone.v, 1, __ATOMIC_RELEASE);
}

static void *thread_main(void *p)
{
	struct side *s = (struct side *)p;
	uint64_t c0, w0;
	long v0;

	if (s->w != ~0u) {
		v0 = bench_thread_nivcsw();
		c0 = bench_thread_cpu_ns();
		w0 = bench_now_ns();
		writer_body(s);
	} else {
		if (pin_cpu(s->run->reader_cpu))
			s->run->error = -1;
		wait_go(s->run);
		v0 = bench_thread_nivcsw();
		c0 = bench_thread_cpu_ns();
		w0 = bench_now_ns();
		s->q->consume(s->qp, s->run);
	}
	s->wall_ns = bench_now_ns() - w0;
	s->cpu_ns = bench_thread_cpu_ns() - c0;
	s->nivcsw = bench_thread_nivcsw() - v0;
	return NULL;
}

/* Writers that finished. */
static unsigned writers_done(struct bench_mw_run *run)
{
	/* purpose: pairs with the release add in writer_body() */
	return __atomic_load_n(&run->wdone.v, __ATOMIC_ACQUIRE);
}

/* 1 when the reader returned. */
static int reader_finished(const int *done)
{
	/* purpose: pairs with the release store in reader_main() */
	return __atomic_load_n(done, __ATOMIC_ACQUIRE);
}

/* Waits for the writers' end (past run->deadline_ns after the start, it
 * tells them to stop, then gives the reader what they sent as its n),
 * then up to ten seconds for the reader; then tells it to give up. */
static void watchdog(struct bench_mw_run *run, const int *reader_done)
{
	uint64_t t = 0, t0 = bench_now_ns(), sent = 0;

	while (writers_done(run) < run->writers) {
		usleep(1000);
		if (run->deadline_ns && !run->stop.v &&
		    bench_now_ns() - t0 > run->deadline_ns)
			/* purpose: a plain flag (bench_mw_wmore()) */
			__atomic_store_n(&run->stop.v, 1, __ATOMIC_RELAXED);
	}
	if (run->stop.v) {
		for (unsigned i = 0; i < run->writers; i++)
			sent += run->w[i].sent;
		/* purpose: the reader's new end (bench_mw_more()); the
		 * messages themselves are published by the queue */
		__atomic_store_n(&run->n, sent, __ATOMIC_RELAXED);
	}
	while (!reader_finished(reader_done) && t < 10000) {
		usleep(1000);
		t++;
	}
	if (!reader_finished(reader_done))
		/* purpose: no data to publish, a plain flag */
		__atomic_store_n(&run->abort.v, 1, __ATOMIC_RELAXED);
}

struct reader_wrap {
	struct side *s;
	int done;
};

static void *reader_main(void *p)
{
	struct reader_wrap *r = (struct reader_wrap *)p;

	thread_main(r->s);
	/* purpose: pairs with the acquire in reader_finished() */
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int bench_mw_run_once(const struct bench_mw_queue *q, struct bench_mw_run *run,
		      const int *cpus)
{
	struct side sides[PFR_MW_MAX_WRITERS + 1];
	struct reader_wrap rw;
	pthread_t t[PFR_MW_MAX_WRITERS + 1], rt;
	pid_t pids[PFR_MW_MAX_WRITERS];
	unsigned nw = run->writers, started = 0;
	double wshare = 0;
	long wniv = 0;
	void *qp = NULL;
	int err = 0;

	if (nw < 1 || nw > PFR_MW_MAX_WRITERS ||
	    (run->processes && !q->processes_ok))
		return -2;
	for (unsigned i = 0; i < nw; i++) {
		memset(&run->w[i], 0, sizeof(run->w[i]));
		run->w[i].n = run->n / nw;
		run->w[i].sent = 0;
		run->w[i].cpu = cpus[1 + i];
		/* the reader waits as the writers do when one shares its
		 * CPU (or when nothing is pinned) */
		if (cpus[1 + i] == cpus[0] || cpus[0] < 0)
			run->reader_yields = 1;
	}
	run->reader_cpu = cpus[0];
	run->fair_taken = 0;
	run->unordered = !!(q->kind & PFR_MW_UNORDERED);
	if (q->setup(run, &qp))
		return -2;
	memset(sides, 0, sizeof(sides));
	for (unsigned i = 0; i <= nw; i++) {
		sides[i].q = q;
		sides[i].qp = qp;
		sides[i].run = run;
		sides[i].w = i < nw ? i : ~0u;
	}
	fflush(NULL);
	for (unsigned i = 0; i < nw; i++) {
		if (run->processes) {
			pid_t pid = fork();

			if (pid == 0) {
				writer_body(&sides[i]);
				_exit(0);
			}
			if (pid < 0)
				break;
			pids[i] = pid;
		} else if (pthread_create(&t[i], NULL, thread_main,
					  &sides[i])) {
			break;
		}
		started++;
	}
	rw.s = &sides[nw];
	rw.done = 0;
	if (started == nw && pthread_create(&rt, NULL, reader_main, &rw) == 0) {
		/* purpose: pairs with the fetch_add in wait_go() */
		while (__atomic_load_n(&run->ready.v, __ATOMIC_ACQUIRE) <
		       nw + 1)
			sched_yield();
		/* purpose: releases everyone; pairs with wait_go()'s loads */
		__atomic_store_n(&run->go.v, 1, __ATOMIC_RELEASE);
		watchdog(run, &rw.done);
		pthread_join(rt, NULL);
	} else {
		/* a failed start: release whoever waits, let them end */
		err = -1;
		/* purpose: plain flags; nothing to publish */
		__atomic_store_n(&run->abort.v, 1, __ATOMIC_RELAXED);
		/* purpose: releases whoever waits in wait_go() */
		__atomic_store_n(&run->go.v, 1, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < started; i++) {
		if (run->processes) {
			int st;

			while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
				;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				err = -1;
		} else {
			pthread_join(t[i], NULL);
			wshare += sides[i].wall_ns
					  ? (double)sides[i].cpu_ns /
						    (double)sides[i].wall_ns
					  : 1.0;
			wniv += sides[i].nivcsw;
		}
	}
	q->teardown(qp, run);
	run->share[0] = sides[nw].wall_ns ? (double)sides[nw].cpu_ns /
						    (double)sides[nw].wall_ns
					  : 1.0;
	run->share[1] = started ? wshare / started : 0;
	run->nivcsw[0] = sides[nw].nivcsw;
	run->nivcsw[1] = wniv;
	if (run->abort.v && !run->error)
		run->error = -2;
	for (unsigned i = 0; i < nw; i++)
		if (run->w[i].error && !run->error)
			run->error = run->w[i].error;
	return err || run->error ? -1 : 0;
}
