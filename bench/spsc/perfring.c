/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/perfring.c - perfring's ring as a contestant: each ordering (FULL,
 * ACQREL, CTRLDEP), per-record and batched publication, DROP and BLOCK,
 * two threads or two processes over POSIX shared memory, and the one-way
 * latency ping-pong over two rings.
 *
 * Producer: stamps one prepared message and writes it as one record with
 * pfr_writer_write() (copy in, publish), or, when batched, stamps `batch`
 * messages in an array and writes them with one pfr_writer_write_burst()
 * (one publication), as the peers' burst enqueues take an array.
 * Consumer: loads head once (pfr_reader_begin) and verifies every record up
 * to it in place (zero copy), publishing tail (pfr_reader_end) after every
 * `rbatch` records and at the end: rbatch is the batch size (32, or fewer
 * for big records), or 1 for the "single" variant (tail after every
 * record, as the peers' single dequeue does).
 *
 * BLOCK rings are lossless (the producer waits for space, as the peers'
 * producers do); DROP rings never make the producer wait, so the consumer
 * receives what fits and LOST records account for every gap - the run
 * checks that delivered + lost equals sent and that each record's sequence
 * number is exactly where the LOST records say.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "../core/bench.h"
#include "../core/probes.h"

#define BENCH_TYPE 1u
/* A consumer that sees no progress for this long gives up (a dead
 * producer must not hang the bench). */
#define STALL_NS 10000000000ull

/* The writer's and the reader's private state on lines of their own: each
 * is written all the time by its own thread only. */
struct pr_q {
	struct pfr_ring *ring;
	struct bench_flag *done; /* producer finished (DROP end) */
	struct pfr_writer w __attribute__((aligned(128)));
	struct pfr_reader r __attribute__((aligned(128)));
	struct bench_flag done_local;
};

static int pr_ring_new_flags(struct bench_run *run, struct pfr_ring **ring,
			     const char *shm_name, uint32_t flags)
{
	struct pfr_ring_opts o;

	memset(&o, 0, sizeof(o));
	o.data_size = run->capacity;
	o.policy = (enum pfr_policy)run->policy;
	o.ordering = (enum pfr_ordering)run->ordering;
	o.flags = flags;
	if (shm_name)
		return pfr_ring_create_shm(ring, shm_name, &o);
	return pfr_ring_create(ring, &o);
}

static int pr_ring_new(struct bench_run *run, struct pfr_ring **ring,
		       const char *shm_name)
{
	return pr_ring_new_flags(run, ring, shm_name, 0);
}

static int pr_setup_flags(struct bench_run *run, void **qp, uint32_t flags)
{
	struct pr_q *q = (struct pr_q *)bench_alloc(128, sizeof(*q));

	if (!q)
		return -1;
	memset(q, 0, sizeof(*q));
	q->done = &q->done_local;
	if (pr_ring_new_flags(run, &q->ring, NULL, flags)) {
		free(q);
		return -1;
	}
	if (pfr_ring_writer(q->ring, &q->w) ||
	    pfr_ring_reader(q->ring, &q->r) ||
	    run->payload > pfr_writer_max_payload(&q->w)) {
		pfr_ring_close(q->ring);
		free(q);
		return -1;
	}
	pfr_writer_set_timeout(&q->w, STALL_NS);
	*qp = q;
	return 0;
}

static int pr_setup(struct bench_run *run, void **qp)
{
	return pr_setup_flags(run, qp, 0);
}

#ifndef PR_WA_ONLY
/* The "inband" rows: a PFR_RING_INBAND ring; the same producer and
 * consumers (the reader's begin walks the committed headers). */
static int pr_setup_inband(struct bench_run *run, void **qp)
{
	return pr_setup_flags(run, qp, PFR_RING_INBAND);
}
#endif

static void pr_teardown(void *p)
{
	struct pr_q *q = (struct pr_q *)p;

	pfr_ring_close(q->ring);
	free(q);
}

/* ---- producer ---- */

static inline __attribute__((always_inline)) void
pr_produce_body(struct pr_q *q, struct bench_run *run, size_t payload)
{
	struct pfr_writer *w = &q->w;
	size_t words = payload / 8;
	unsigned b = run->batch > 1 ? run->batch : 1;
	/* one prepared message, or one per record of a burst */
	uint64_t *m = (uint64_t *)bench_alloc(64, b * payload);

	if (!m) {
		run->error = -1;
		goto out;
	}
	for (unsigned i = 0; i < b; i++)
		memcpy((char *)m + i * payload, run->msg, payload);
	for (uint64_t seq = 0; seq < run->n;) {
		int err = 0;

		if (b == 1) {
			pfr__payload_stamp_ends(m, words, seq);
			err = pfr_writer_write(w, BENCH_TYPE, m, payload);
			seq++;
		} else {
			unsigned k =
				run->n - seq < b ? (unsigned)(run->n - seq) : b;
			int got;

			for (unsigned i = 0; i < k; i++)
				pfr__payload_stamp_ends(m + i * words, words,
							seq + i);
			got = pfr_writer_write_burst(w, BENCH_TYPE, m, payload,
						     k);
			if (got < 0) {
				err = got;
			} else if ((unsigned)got < k) {
				/* DROP: the record at got was counted lost;
				 * the rest of the burst is dropped too */
				for (unsigned i = (unsigned)got + 1; i < k; i++)
					pfr_writer_write(w, BENCH_TYPE,
							 m + i * words,
							 payload);
				err = -PFR_E_NOSPC;
			}
			seq += k;
		}
		if (__builtin_expect(err != 0, 0) && err != -PFR_E_NOSPC) {
			run->error = err;
			break;
		}
	}
	free(m);
out:
	pfr_writer_flush(w); /* a pending LOST count */
	run->lost = pfr_writer_lost(w);
	/* purpose: the counts above before `done`; pairs with the acquire
	 * load of done in pr_consume_body() */
	__atomic_store_n(&q->done->v, 1, __ATOMIC_RELEASE);
}

/* -DPFR_BENCH_FLATTEN: an experiment, not the default - inline every call
 * in the producer and consumer loops (the ring's inline functions included),
 * to measure what always_inline on the ring's fast paths would give. */
#ifdef PFR_BENCH_FLATTEN
#define PR_LOOP __attribute__((flatten))
#else
#define PR_LOOP
#endif

static PR_LOOP void pr_produce(void *p, struct bench_run *run)
{
	struct pr_q *q = (struct pr_q *)p;

	/* One instance per payload size, so that the copy into the ring is
	 * inlined for the small ones, as a caller's constant size would
	 * be (the peers' slot types are compile-time sizes too). */
	switch (run->payload) {
	case 8:
		pr_produce_body(q, run, 8);
		break;
	case 64:
		pr_produce_body(q, run, 64);
		break;
	case 256:
		pr_produce_body(q, run, 256);
		break;
	case 1024:
		pr_produce_body(q, run, 1024);
		break;
	case 4096:
		pr_produce_body(q, run, 4096);
		break;
	case PFR_BENCH_MAX_PAYLOAD:
		pr_produce_body(q, run, PFR_BENCH_MAX_PAYLOAD);
		break;
	default:
		pr_produce_body(q, run, run->payload);
		break;
	}
}

/* ---- consumer ---- */

/* Waits for records: the bytes readable (> 0), 0 once the producer is
 * done and everything is read, or < 0 (run->error set).  The reader waits
 * with pfr_reader_poll(); the "spin" rows loop on pfr_reader_begin()
 * with one pause between empty loads, as the peers' consumers spin (the
 * loop a user writes first: begin paces it as poll does); the "unpaced"
 * rows loop on pfr_reader_begin_unpaced(), to show what the pacing is
 * worth.  spin: PR_POLL, PR_SPIN or PR_UNPACED. */
enum { PR_POLL, PR_SPIN, PR_UNPACED };

static inline __attribute__((always_inline)) int64_t
pr_wait(struct pr_q *q, struct bench_run *run, int spin)
{
	uint64_t stall_t0 = 0, idle = 0;

	for (;;) {
		int64_t avail = spin == PR_SPIN ? pfr_reader_begin(&q->r)
				: spin == PR_UNPACED
					? pfr_reader_begin_unpaced(&q->r)
					: pfr_reader_poll(&q->r, 64);
		uint64_t now;

		if (__builtin_expect(avail > 0, 1))
			return avail;
		if (avail < 0) {
			run->error = (int)avail;
			return avail;
		}
		/* purpose: pairs with the release store of done in
		 * pr_produce_body(): everything published before it is
		 * visible to the begin below */
		if (__atomic_load_n(&q->done->v, __ATOMIC_ACQUIRE)) {
			avail = pfr_reader_begin(&q->r);
			if (avail < 0)
				run->error = (int)avail;
			return avail;
		}
		if (spin) {
			pfr_cpu_relax();
			if (__builtin_expect(++idle & 0xfffff, 1))
				continue;
		}
		now = bench_now_ns();
		if (!stall_t0) {
			stall_t0 = now;
		} else if (now - stall_t0 > STALL_NS) {
			run->error = -PFR_E_TIMEDOUT;
			return -PFR_E_TIMEDOUT;
		}
	}
}

static inline __attribute__((always_inline)) void
pr_consume_body(struct pr_q *q, struct bench_run *run, size_t payload)
{
	struct pfr_reader *r = &q->r;
	uint64_t expect = 0;
	unsigned k, rbatch = run->rbatch ? run->rbatch : 1;

	while (expect < run->n) {
		struct pfr_record rec;
		int rc;

		if (pr_wait(q, run, PR_POLL) <= 0)
			break;
		k = 0;
		while ((rc = pfr_reader_next(r, &rec)) == 1) {
			if (__builtin_expect(rec.hdr.type == PFR_RECORD_LOST,
					     0)) {
				uint64_t lost;

				memcpy(&lost, (const char *)rec.payload + 8, 8);
				expect += lost;
			} else if (__builtin_expect(rec.len != payload, 0)) {
				if (!run->bad++)
					run->bad_seq = expect;
				expect++;
			} else {
				bench_got(run, rec.payload, expect,
					  payload / 8);
				expect++;
			}
			/* tail goes out every rbatch records (after they are
			 * read: it frees them), not only when the batch is
			 * drained: a writer waiting for space (BLOCK) or
			 * dropping (DROP) gets it sooner */
			if (++k >= rbatch) {
				pfr_reader_end(r);
				k = 0;
			}
		}
		pfr_reader_end(r);
		if (rc < 0) {
			run->error = rc;
			break;
		}
	}
	bench_done(run);
}

/* The same consumer over pfr_reader_consume(): one call per rbatch
 * records, the check of each record in a callback the compiler inlines
 * (one instance per payload size, as above). */
struct pr_cb {
	struct bench_run *run;
	uint64_t expect;
};

static inline __attribute__((always_inline)) int
pr_cb_body(void *ctx, const struct pfr_record *rec, size_t payload)
{
	struct pr_cb *cb = (struct pr_cb *)ctx;

	/* One test in the common case: a LOST record's payload is 16 bytes,
	 * never a bench payload size, so a record of the payload's length
	 * is a message and anything else is looked at in detail. */
	if (__builtin_expect(rec->len == payload, 1)) {
		bench_got(cb->run, rec->payload, cb->expect, payload / 8);
		cb->expect++;
	} else if (rec->hdr.type == PFR_RECORD_LOST) {
		uint64_t lost;

		memcpy(&lost, (const char *)rec->payload + 8, 8);
		cb->expect += lost;
	} else {
		if (!cb->run->bad++)
			cb->run->bad_seq = cb->expect;
		cb->expect++;
	}
	return 0;
}

#define PR_CB(sz)                                                              \
	static inline __attribute__((always_inline)) int pr_cb_##sz(           \
		void *ctx, const struct pfr_record *rec)                       \
	{                                                                      \
		return pr_cb_body(ctx, rec, sz);                               \
	}
PR_CB(8)
PR_CB(64)
PR_CB(256)
PR_CB(1024)
PR_CB(4096)
PR_CB(65520)

static int pr_cb_any(void *ctx, const struct pfr_record *rec)
{
	struct pr_cb *cb = (struct pr_cb *)ctx;

	return pr_cb_body(ctx, rec, cb->run->payload);
}

static inline __attribute__((always_inline)) void
pr_consume_cb_body(struct pr_q *q, struct bench_run *run, pfr_record_fn fn,
		   int spin)
{
	struct pfr_reader *r = &q->r;
	struct pr_cb cb = {run, 0};
	unsigned rbatch = run->rbatch ? run->rbatch : 1;

	while (cb.expect < run->n) {
		int64_t got;

		if (pr_wait(q, run, spin) <= 0)
			break;
		/* tail goes out every rbatch records, as above */
		do {
			got = pfr_reader_consume(r, fn, &cb, rbatch);
			pfr_reader_end(r);
		} while (got == (int64_t)rbatch);
		if (got < 0) {
			run->error = (int)got;
			break;
		}
	}
	bench_done(run);
}

static inline __attribute__((always_inline)) void
pr_consume_cb_sel(void *p, struct bench_run *run, int spin)
{
	struct pr_q *q = (struct pr_q *)p;

	switch (run->payload) {
	case 8:
		pr_consume_cb_body(q, run, pr_cb_8, spin);
		break;
	case 64:
		pr_consume_cb_body(q, run, pr_cb_64, spin);
		break;
	case 256:
		pr_consume_cb_body(q, run, pr_cb_256, spin);
		break;
	case 1024:
		pr_consume_cb_body(q, run, pr_cb_1024, spin);
		break;
	case 4096:
		pr_consume_cb_body(q, run, pr_cb_4096, spin);
		break;
	case PFR_BENCH_MAX_PAYLOAD:
		pr_consume_cb_body(q, run, pr_cb_65520, spin);
		break;
	default:
		pr_consume_cb_body(q, run, pr_cb_any, spin);
		break;
	}
}

static PR_LOOP void pr_consume_cb(void *p, struct bench_run *run)
{
	pr_consume_cb_sel(p, run, PR_POLL);
}

static PR_LOOP __attribute__((unused)) void
pr_consume_cb_spin(void *p, struct bench_run *run)
{
	pr_consume_cb_sel(p, run, PR_SPIN);
}

static PR_LOOP __attribute__((unused)) void
pr_consume_cb_unpaced(void *p, struct bench_run *run)
{
	pr_consume_cb_sel(p, run, PR_UNPACED);
}

static PR_LOOP __attribute__((unused)) void pr_consume(void *p,
						       struct bench_run *run)
{
	struct pr_q *q = (struct pr_q *)p;

	switch (run->payload) {
	case 8:
		pr_consume_body(q, run, 8);
		break;
	case 64:
		pr_consume_body(q, run, 64);
		break;
	case 256:
		pr_consume_body(q, run, 256);
		break;
	case 1024:
		pr_consume_body(q, run, 1024);
		break;
	case 4096:
		pr_consume_body(q, run, 4096);
		break;
	case PFR_BENCH_MAX_PAYLOAD:
		pr_consume_body(q, run, PFR_BENCH_MAX_PAYLOAD);
		break;
	default:
		pr_consume_body(q, run, run->payload);
		break;
	}
}

/* ---- two processes over POSIX shared memory ---- */

struct pr_shared {
	struct bench_flag ready, go, done;
	struct bench_run run; /* the consumer's outputs */
	double share;
	long nivcsw, nvcsw;
	int err;
};

struct pr_parent {
	struct pr_q *q;
	struct pr_shared *sh;
	struct bench_run *run;
	double share;
	long nivcsw, nvcsw;
	int pin_err;
};

static void *pr_parent_main(void *p)
{
	struct pr_parent *a = (struct pr_parent *)p;
	uint64_t c0, w0, t0 = bench_now_ns();

	a->pin_err = bench_pin(0);
	/* purpose: pairs with the release store of ready in the child */
	while (!__atomic_load_n(&a->sh->ready.v, __ATOMIC_ACQUIRE)) {
		if (bench_now_ns() - t0 > STALL_NS) {
			a->run->error = -PFR_E_TIMEDOUT;
			/* purpose: pairs with the child's acquire of go */
			__atomic_store_n(&a->sh->go.v, 2, __ATOMIC_RELEASE);
			return NULL;
		}
		pfr_cpu_relax();
	}
	/* purpose: releases the child; pairs with its acquire load of go */
	__atomic_store_n(&a->sh->go.v, 1, __ATOMIC_RELEASE);
	a->nivcsw = bench_thread_nivcsw();
	a->nvcsw = bench_thread_nvcsw();
	c0 = bench_thread_cpu_ns();
	w0 = bench_now_ns();
	pr_produce(a->q, a->run);
	a->share = (double)(bench_thread_cpu_ns() - c0) /
		   (double)(bench_now_ns() - w0 + 1);
	a->nivcsw = bench_thread_nivcsw() - a->nivcsw;
	a->nvcsw = bench_thread_nvcsw() - a->nvcsw;
	return NULL;
}

static void pr_child(const char *name, struct pr_shared *sh)
{
	struct pfr_ring *ring;
	struct pr_q q;
	uint64_t c0, w0;

	memset(&q, 0, sizeof(q));
	q.done = &sh->done;
	if (pfr_ring_attach_shm(&ring, name) || pfr_ring_reader(ring, &q.r)) {
		sh->err = -1;
		/* purpose: pairs with the parent's acquire load of ready */
		__atomic_store_n(&sh->ready.v, 1, __ATOMIC_RELEASE);
		_exit(1);
	}
	sh->err = bench_pin(1);
	/* purpose: pairs with the parent's acquire load of ready */
	__atomic_store_n(&sh->ready.v, 1, __ATOMIC_RELEASE);
	/* purpose: pairs with the parent's release store of go */
	while (!__atomic_load_n(&sh->go.v, __ATOMIC_ACQUIRE))
		pfr_cpu_relax();
	if (sh->go.v == 1) {
		sh->nivcsw = bench_thread_nivcsw();
		sh->nvcsw = bench_thread_nvcsw();
		c0 = bench_thread_cpu_ns();
		w0 = bench_now_ns();
		pr_consume_cb(&q, &sh->run);
		sh->share = (double)(bench_thread_cpu_ns() - c0) /
			    (double)(bench_now_ns() - w0 + 1);
		sh->nivcsw = bench_thread_nivcsw() - sh->nivcsw;
		sh->nvcsw = bench_thread_nvcsw() - sh->nvcsw;
	}
	pfr_ring_close(ring);
	_exit(0);
}

static int pr_run_processes(const struct bench_queue *bq, struct bench_run *run)
{
	static unsigned seq;
	struct pr_parent a;
	struct pr_shared *sh;
	struct pr_q *q;
	char name[64];
	pthread_t t;
	pid_t pid;
	int status, err = 0;

	(void)bq;
	sh = (struct pr_shared *)mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	memset(sh, 0, sizeof(*sh));
	sh->run = *run;
	q = (struct pr_q *)bench_alloc(128, sizeof(*q));
	if (!q) {
		munmap(sh, sizeof(*sh));
		return -1;
	}
	memset(q, 0, sizeof(*q));
	q->done = &sh->done;
	snprintf(name, sizeof(name), "/perfring-bench-%d-%u", (int)getpid(),
		 seq++);
	if (pr_ring_new(run, &q->ring, name)) {
		free(q);
		munmap(sh, sizeof(*sh));
		return -1;
	}
	if (pfr_ring_writer(q->ring, &q->w)) {
		err = -1;
		goto out;
	}
	if (run->payload > pfr_writer_max_payload(&q->w)) {
		err = -2;
		goto out;
	}
	pfr_writer_set_timeout(&q->w, STALL_NS);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -1;
		goto out;
	}
	if (pid == 0)
		pr_child(name, sh); /* does not return */
	memset(&a, 0, sizeof(a));
	a.q = q;
	a.sh = sh;
	a.run = run;
	if (pthread_create(&t, NULL, pr_parent_main, &a)) {
		kill(pid, SIGKILL);
		err = -1;
	} else {
		pthread_join(t, NULL);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err || !WIFEXITED(status) || WEXITSTATUS(status) || sh->err ||
	    a.pin_err) {
		err = -1;
		if (!run->error)
			run->error = -1;
	}
	/* The consumer's outputs come back through the shared page. */
	run->t0 = sh->run.t0;
	run->t1 = sh->run.t1;
	run->timed = sh->run.timed;
	run->delivered = sh->run.delivered;
	run->bad = sh->run.bad;
	run->bad_seq = sh->run.bad_seq;
	if (sh->run.error && !run->error)
		run->error = sh->run.error;
	run->share[0] = a.share;
	run->share[1] = sh->share;
	run->nivcsw[0] = a.nivcsw;
	run->nivcsw[1] = sh->nivcsw;
	run->nvcsw[0] = a.nvcsw;
	run->nvcsw[1] = sh->nvcsw;
out:
	pfr_ring_close(q->ring);
	pfr_ring_unlink(name);
	free(q);
	munmap(sh, sizeof(*sh));
	return err;
}

/* cons: pr_consume_cb (pfr_reader_consume) or pr_consume (a loop of
 * pfr_reader_next, the "next" rows and the "single" ones) */
#define PRC(var, ord, pol, batched, proc, single, cons)                        \
	{                                                                      \
		"perfring", var, batched, pr_setup, pr_produce, cons,          \
			pr_teardown, proc ? pr_run_processes : NULL, ord, pol, \
			proc, single                                           \
	}
#define PRS(var, ord, pol, batched, proc, single)                              \
	PRC(var, ord, pol, batched, proc, single, pr_consume)
#define PR(var, ord, pol, batched, proc)                                       \
	PRC(var, ord, pol, batched, proc, 0, pr_consume_cb)
/* in band: threads, ACQREL, BLOCK */
#define PRI(var, batched, cons)                                                \
	{                                                                      \
		"perfring", var, batched, pr_setup_inband, pr_produce, cons,   \
			pr_teardown, NULL, PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, \
			0, 0                                                   \
	}

#ifndef PR_WA_ONLY
const struct bench_queue bench_perfring[] = {
	PR("", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0),
	PRC("spin", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0, 0,
	    pr_consume_cb_spin),
	PRC("unpaced", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0, 0,
	    pr_consume_cb_unpaced),
	PRS("next", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0, 0),
	PRS("single", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0, 1),
	PRS("single", PFR_ORDER_ACQREL, PFR_POLICY_DROP, 0, 0, 1),
	PRS("single", PFR_ORDER_FULL, PFR_POLICY_BLOCK, 0, 0, 1),
	PRS("single", PFR_ORDER_FULL, PFR_POLICY_DROP, 0, 0, 1),
	PR("batch", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 0),
	PRC("batch spin", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 0, 0,
	    pr_consume_cb_spin),
	PRC("batch unpaced", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 0, 0,
	    pr_consume_cb_unpaced),
	PRS("batch next", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 0, 0),
	PRI("inband", 0, pr_consume_cb),
	PRI("inband spin", 0, pr_consume_cb_spin),
	PRI("batch inband", 1, pr_consume_cb),
	PR("", PFR_ORDER_CTRLDEP, PFR_POLICY_BLOCK, 0, 0),
	PR("batch", PFR_ORDER_CTRLDEP, PFR_POLICY_BLOCK, 1, 0),
	PR("", PFR_ORDER_FULL, PFR_POLICY_BLOCK, 0, 0),
	PR("batch", PFR_ORDER_FULL, PFR_POLICY_BLOCK, 1, 0),
	PR("", PFR_ORDER_ACQREL, PFR_POLICY_DROP, 0, 0),
	PR("batch", PFR_ORDER_ACQREL, PFR_POLICY_DROP, 1, 0),
	PR("", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 1),
	PR("batch", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 1),
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0}};
#else
const struct bench_queue bench_perfring_walimit[] = {
	PR("wa-limit", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0, 0),
	PR("batch wa-limit", PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 1, 0),
	{NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0}};
#endif

#ifndef PR_WA_ONLY
/* ---- one-way latency: ping-pong over two rings ---- */

struct lat_side {
	/* this side's writer (request or reply), apart from the other side */
	struct pfr_writer w __attribute__((aligned(128)));
	struct pfr_reader r; /* this side's reader */
	struct bench_run *run;
	uint64_t n;
	uint64_t *ticks; /* client: round trips */
	uint64_t bad;
	int err;
	int *stop; /* set by the side that fails */
	uint8_t pad[128]; /* the next object (the other side) apart */
};

/* Client: write request i, spin until its echo arrives, verify it.  Pure
 * spinning on both sides, as in the cache-line probe. */
static void *lat_client(void *p)
{
	struct lat_side *s = (struct lat_side *)p;
	size_t payload = s->run->payload, words = payload / 8;
	uint64_t *m = (uint64_t *)bench_alloc(64, payload);

	if (!m) {
		s->err = -1;
		__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	memcpy(m, s->run->msg, payload);
	for (uint64_t i = 0; i < s->n && !s->err; i++) {
		struct pfr_record rec;
		uint64_t t;

		pfr__payload_stamp_ends(m, words, i);
		t = bench_ticks();
		if (pfr_writer_write(&s->w, BENCH_TYPE, m, payload)) {
			s->err = -1;
			__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		while (pfr_reader_begin(&s->r) == 0)
			if (__atomic_load_n(s->stop, __ATOMIC_RELAXED))
				break;
		if (pfr_reader_next(&s->r, &rec) != 1 || rec.len != payload ||
		    !pfr__payload_check_ends(rec.payload, words, i,
					     s->run->body_sum))
			s->bad++;
		pfr_reader_end(&s->r);
		s->ticks[i] = bench_ticks() - t;
	}
	free(m);
	return NULL;
}

/* Server: echo each request into the reply ring straight from the
 * request ring (one copy). */
static void *lat_server(void *p)
{
	struct lat_side *s = (struct lat_side *)p;

	for (uint64_t i = 0; i < s->n && !s->err; i++) {
		struct pfr_record rec;
		uint64_t spins = 0;
		int64_t a;

		while ((a = pfr_reader_begin(&s->r)) == 0)
			if (!(++spins & 0xfff) &&
			    __atomic_load_n(s->stop, __ATOMIC_RELAXED))
				return NULL;
		if (a < 0 || pfr_reader_next(&s->r, &rec) != 1 ||
		    pfr_writer_write(&s->w, BENCH_TYPE, rec.payload, rec.len)) {
			s->err = -1;
			__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		pfr_reader_end(&s->r);
	}
	return NULL;
}

int bench_perfring_latency(int ordering, int policy, uint32_t flags,
			   size_t payload, uint64_t n, double *p50, double *p99,
			   int *verified)
{
	struct bench_run run;
	struct pfr_ring *req = NULL, *rsp = NULL;
	struct lat_side c, s;
	uint64_t *pattern = NULL;
	double share[2], *v = NULL;
	uint64_t skip = n / 10;
	int err = -1, stop = 0;

	memset(&run, 0, sizeof(run));
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	run.payload = payload;
	run.ordering = ordering;
	run.policy = policy;
	run.capacity = 65536;
	while (run.capacity < 4 * (payload + 8))
		run.capacity *= 2;
	pattern = (uint64_t *)malloc(payload);
	c.ticks = (uint64_t *)calloc(n, sizeof(uint64_t));
	v = (double *)calloc(n, sizeof(double));
	if (!pattern || !c.ticks || !v || n < 10)
		goto out;
	for (size_t i = 0; i < payload / 8; i++) {
		pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
		if (i && i + 1 < payload / 8)
			run.body_sum += pattern[i];
	}
	run.msg = pattern;
	if (pr_ring_new_flags(&run, &req, NULL, flags) ||
	    pr_ring_new_flags(&run, &rsp, NULL, flags) ||
	    pfr_ring_writer(req, &c.w) || pfr_ring_reader(rsp, &c.r) ||
	    pfr_ring_writer(rsp, &s.w) || pfr_ring_reader(req, &s.r))
		goto out;
	c.run = s.run = &run;
	c.stop = s.stop = &stop;
	c.n = s.n = n;
	if (bench_pair(lat_client, &c, lat_server, &s, share, NULL, NULL) ||
	    c.err || s.err)
		goto out;
	for (uint64_t i = skip; i < n; i++)
		v[i - skip] = bench_ticks_to_ns((double)c.ticks[i]) / 2;
	*p50 = bench_percentile(v, n - skip, 0.5);
	*p99 = bench_percentile(v, n - skip, 0.99);
	*verified = c.bad == 0;
	err = 0;
out:
	if (req)
		pfr_ring_close(req);
	if (rsp)
		pfr_ring_close(rsp);
	free(pattern);
	free(c.ticks);
	free(v);
	return err;
}
#endif /* PR_WA_ONLY */
