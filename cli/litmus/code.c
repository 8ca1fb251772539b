/* SPDX-License-Identifier: MIT */
/*
 * The code shapes of perfring litmus: litmus tests whose threads run the
 * library's own inline functions instead of hand-written barrier
 * sequences, so that a run on real Arm, Power or RISC-V hardware tests
 * the code users link.
 *
 *   RING-PUB    B with C: pfr_writer_write() publishes head; the reader's
 *               pfr_reader_begin()/next() must see each record's payload.
 *   RING-REUSE  A with D: records lap a 4 KiB ring; the reader copies each
 *               payload before pfr_reader_end() frees it, and the writer
 *               must not overwrite it before those loads.
 *   MPSC-PUB    two producers' pfr_mpsc_write() commits (B) against the
 *               reader's pfr_mpsc_begin()/next()/end() (C, D), BLOCK.
 *   GROUP-HANDOVER  writers pfr_group_join(), write, pfr_group_leave()
 *               every instance while the reader pfr_group_consume()s.
 *
 * As in litmus7, each test runs many small instances: the threads of an
 * instance start together (a spin on the instance's start counter), every
 * instance writes a few records whose words are a function of (writer,
 * instance, sequence), and the reader checks every record: type, length,
 * every payload word, and each writer's sequence (nothing out of order,
 * nothing missing).  A fresh ring (shared ring, group) is made for every
 * round of LC_ROUND instances.  An instance with any wrong record is a
 * positive witness; the library's claim is that there are none.
 *
 * The only synchronization of its own is a pthread barrier between rounds
 * and relaxed start counters (timing only): every ordering under test is
 * the library's.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfring/barrier.h>
#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/ring.h>

#include "litmus.h"

enum { LC_RING_PUB, LC_RING_REUSE, LC_MPSC, LC_GROUP };

#define LC_ROUND 100 /* instances per ring */
#define LC_TYPE 7u /* the records' type */
#define LC_MAXW 24 /* payload words at most */
#define LC_BATCH 64 /* records copied per reader batch */
#define LC_STALL_NS 10000000000ull /* no progress for 10 s: missing */
#define LC_DATA 4096 /* every ring's data area */

/* clang-format off */
const struct cli_lit_code cli_lit_codes[] = {
#define LC_PUB(ord, o)                                                         \
	{ "RING-PUB+" ord, "RING-PUB", 2,                                      \
	  { "pfr_reader_begin(); pfr_reader_next() ...; check; "               \
	    "pfr_reader_end();",                                               \
	    "pfr_writer_write() x 16 (8..48 bytes)" },                         \
	  "B with C: no stale payload under a published head (" ord ")",      \
	  LC_RING_PUB, o },
#define LC_REUSE(ord, o)                                                       \
	{ "RING-REUSE+" ord, "RING-REUSE", 2,                                  \
	  { "pfr_reader_begin(); pfr_reader_next(): copy ...; "                \
	    "pfr_reader_end(); check copies;",                                 \
	    "pfr_writer_write() x 96 (8..192 bytes, ~2 laps of 4 KiB)" },      \
	  "A with D: no payload overwritten before the reader's copy (" ord    \
	  ")", LC_RING_REUSE, o },
	LC_PUB("FULL", PFR_ORDER_FULL)
	LC_PUB("ACQREL", PFR_ORDER_ACQREL)
	LC_PUB("CTRLDEP", PFR_ORDER_CTRLDEP)
	LC_REUSE("FULL", PFR_ORDER_FULL)
	LC_REUSE("ACQREL", PFR_ORDER_ACQREL)
	LC_REUSE("CTRLDEP", PFR_ORDER_CTRLDEP)
	{ "MPSC-PUB", "MPSC-PUB", 3,
	  { "pfr_mpsc_begin(); pfr_mpsc_next() ...; check; pfr_mpsc_end();",
	    "pfr_mpsc_write() x 48 (8..96 bytes)",
	    "pfr_mpsc_write() x 48 (8..96 bytes)" },
	  "shared ring, BLOCK: every record right, in order, none missing",
	  LC_MPSC, 0 },
	{ "GROUP-HANDOVER", "GROUP-HANDOVER", 3,
	  { "pfr_group_consume(): check ...;",
	    "pfr_group_join(); pfr_writer_write() x 16; pfr_group_leave();",
	    "pfr_group_join(); pfr_writer_write() x 16; pfr_group_leave();" },
	  "writers join and leave each instance: right, in order, complete",
	  LC_GROUP, PFR_ORDER_DEFAULT },
#undef LC_PUB
#undef LC_REUSE
};
/* clang-format on */
const size_t cli_lit_ncodes = sizeof(cli_lit_codes) / sizeof(cli_lit_codes[0]);

/* Records per writer per instance. */
static uint32_t lc_records(int kind)
{
	static const uint32_t k[] = {16, 96, 48, 16};

	return k[kind];
}

/* Record j of writer wid in instance inst: its first word. */
static uint64_t lc_key(uint32_t wid, uint64_t inst, uint32_t j)
{
	return ((uint64_t)(wid + 1) << 56) | ((inst & 0xffffffffull) << 16) |
	       (j & 0xffff);
}

static uint32_t lc_words(int kind, uint64_t key)
{
	uint32_t j = key & 0xffff, inst = (key >> 16) & 0xffff;
	uint32_t wid = key >> 56;

	switch (kind) {
	case LC_RING_REUSE:
		return 1 + (j * 5 + inst) % LC_MAXW;
	case LC_MPSC:
		return 1 + (j * 3 + wid) % 12;
	default:
		return 1 + j % 6;
	}
}

static uint64_t lc_word(uint64_t key, uint32_t k)
{
	return k ? (key ^ (k * 0xbf58476d1ce4e5b9ull)) * 0x9e3779b97f4a7c15ull
		 : key;
}

static uint32_t lc_fill(uint64_t *buf, int kind, uint64_t key)
{
	uint32_t n = lc_words(kind, key);

	for (uint32_t k = 0; k < n; k++)
		buf[k] = lc_word(key, k);
	return n * 8;
}

/* A record as the reader saw it. */
struct lc_copy {
	uint32_t type, len;
	uint64_t tag; /* group: the writer's tag, else ~0 */
	uint64_t w[LC_MAXW];
};

static void lc_take(struct lc_copy *c, uint32_t type, const void *p,
		    uint32_t len, uint64_t tag)
{
	c->type = type;
	c->len = len;
	c->tag = tag;
	memcpy(c->w, p, len < sizeof(c->w) ? len : sizeof(c->w));
}

/* One instance, as the reader checks it. */
struct lc_inst {
	int kind, nw; /* writers */
	uint64_t inst;
	uint32_t exp[PFR_LIT_MAX_THREADS]; /* next sequence per writer */
	uint32_t need, got; /* records in all, and so far */
	int bad;
	char why[256];
};

static void lc_bad(struct lc_inst *in, const char *fmt, unsigned long long a,
		   unsigned long long b)
{
	if (!in->bad++)
		snprintf(in->why, sizeof(in->why), fmt, a, b);
}

/* Checks one record against what its writer must have written next. */
static void lc_verify(struct lc_inst *in, const struct lc_copy *c)
{
	uint64_t key, wid;
	uint32_t len;

	in->got++;
	if (c->type != LC_TYPE || c->len < 8 || c->len > sizeof(c->w)) {
		lc_bad(in, "record of type %llu, %llu bytes", c->type, c->len);
		return;
	}
	wid = (c->w[0] >> 56) - 1;
	if (wid >= (uint64_t)in->nw || in->exp[wid] >= lc_records(in->kind)) {
		lc_bad(in, "payload word 0 %#llx in instance %llu", c->w[0],
		       in->inst);
		return;
	}
	key = lc_key(wid, in->inst, in->exp[wid]++);
	if (c->w[0] != key) {
		lc_bad(in, "payload word 0 %#llx where %#llx was due", c->w[0],
		       key);
		return;
	}
	if (c->tag != ~0ull && c->tag != wid) {
		lc_bad(in, "tag %llu on writer %llu's record", c->tag, wid);
		return;
	}
	len = lc_words(in->kind, key) * 8;
	if (c->len != len) {
		lc_bad(in, "%llu bytes where %llu were written", c->len, len);
		return;
	}
	for (uint32_t k = 1; k < len / 8; k++)
		if (c->w[k] != lc_word(key, k)) {
			lc_bad(in, "record %#llx: payload word %llu stale", key,
			       k);
			return;
		}
}

/* The state of one test's run, shared by its threads. */
struct lc_run {
	const struct cli_lit_code *t;
	unsigned long long n;
	const int *cpus;
	int ncpu, oversub;
	pthread_barrier_t round;
	int err; /* sticky: a ring could not be made, or the run stalled */
	uint32_t start[LC_ROUND]; /* instance start counters */
	uint8_t bad[LC_ROUND];
	char why[256];
	uint64_t records;
	struct cli_lit_code_res *res;
	struct pfr_ring *ring;
	struct pfr_mpsc *mpsc;
	struct pfr_group *group;
	struct pfr_writer w;
	struct pfr_reader rd;
	struct pfr_mpsc_reader mrd;
};

struct lc_worker {
	struct lc_run *r;
	int tid;
	pthread_t th;
};

static uint64_t lc_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int lc_failed(struct lc_run *r)
{
	return __atomic_load_n(&r->err, __ATOMIC_RELAXED);
}

static void lc_pause(const struct lc_run *r, unsigned *spins)
{
	if (r->oversub || !(++*spins & 0xffff))
		sched_yield();
	else
		pfr_cpu_relax();
}

/* Starts instance i's threads together.  Timing only (relaxed): the
 * records carry everything the check needs.  1 when the run failed. */
static int lc_sync(struct lc_run *r, size_t i)
{
	unsigned spins = 0;

	if (lc_failed(r))
		return 1;
	__atomic_fetch_add(&r->start[i], 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&r->start[i], __ATOMIC_RELAXED) !=
	       (uint32_t)r->t->nthreads) {
		if (lc_failed(r))
			return 1;
		lc_pause(r, &spins);
	}
	return 0;
}

/* The reader waited too long: the instance lacks records. */
static int lc_stalled(struct lc_run *r, struct lc_inst *in, uint64_t *since,
		      unsigned *spins, uint32_t before)
{
	uint64_t now;

	if (in->got != before) {
		*since = 0;
		return 0;
	}
	lc_pause(r, spins);
	if (*spins & 0x3ff)
		return 0;
	now = lc_ns();
	if (!*since)
		*since = now;
	if (now - *since < LC_STALL_NS)
		return 0;
	lc_bad(in, "%llu of %llu records never arrived", in->need - in->got,
	       in->need);
	__atomic_store_n(&r->err, 1, __ATOMIC_RELAXED);
	return 1;
}

/* ---- the ring: one writer, one reader ---- */

static void lc_ring_write(struct lc_run *r, uint64_t inst)
{
	uint64_t buf[LC_MAXW];

	for (uint32_t j = 0; j < lc_records(r->t->kind); j++) {
		uint64_t key = lc_key(0, inst, j);
		uint32_t len = lc_fill(buf, r->t->kind, key);

		/* A lost record (time-out) shows as missing; after a stall
		 * the reader is gone: do not wait out every record. */
		if (pfr_writer_write(&r->w, LC_TYPE, buf, len) && lc_failed(r))
			return;
	}
}

/* One batch: copy up to LC_BATCH records, end (D), then check the copies:
 * a payload the writer overwrote before the copy's loads shows. */
static int lc_ring_batch(struct lc_run *r, struct lc_inst *in)
{
	static __thread struct lc_copy c[LC_BATCH];
	struct pfr_record rec;
	int64_t avail = pfr_reader_begin(&r->rd);
	int n = 0, rc = 0;

	if (avail < 0) {
		lc_bad(in, "pfr_reader_begin: error %lld (%llu)",
		       (long long)-avail, 0);
		return -1;
	}
	while (n < LC_BATCH && (rc = pfr_reader_next(&r->rd, &rec)) == 1)
		lc_take(&c[n++], rec.hdr.type, rec.payload, rec.len, ~0ull);
	pfr_reader_end(&r->rd);
	for (int k = 0; k < n; k++)
		lc_verify(in, &c[k]);
	if (rc < 0) {
		lc_bad(in, "pfr_reader_next: error %lld (%llu)", (long long)-rc,
		       0);
		return -1;
	}
	return 0;
}

static void lc_ring_read(struct lc_run *r, struct lc_inst *in)
{
	uint64_t since = 0;
	unsigned spins = 0;

	while (in->got < in->need) {
		uint32_t before = in->got;

		if (lc_ring_batch(r, in) ||
		    lc_stalled(r, in, &since, &spins, before))
			return;
	}
}

/* ---- the shared ring: two producers ---- */

static void lc_mpsc_write(struct lc_run *r, struct pfr_mpsc_producer *p,
			  uint32_t wid, uint64_t inst)
{
	uint64_t buf[LC_MAXW];

	for (uint32_t j = 0; j < lc_records(LC_MPSC); j++) {
		uint64_t key = lc_key(wid, inst, j);
		uint32_t len = lc_fill(buf, LC_MPSC, key);

		if (pfr_mpsc_write(p, LC_TYPE, buf, len) && lc_failed(r))
			return;
	}
}

static void lc_mpsc_read(struct lc_run *r, struct lc_inst *in)
{
	struct pfr_record rec;
	struct lc_copy c;
	uint64_t since = 0;
	unsigned spins = 0;
	int rc;

	while (in->got < in->need) {
		uint32_t before = in->got;
		int64_t avail = pfr_mpsc_begin(&r->mrd);

		if (avail < 0) {
			lc_bad(in, "pfr_mpsc_begin: error %lld (%llu)",
			       (long long)-avail, 0);
			return;
		}
		/* A producer preempted inside its reservation stops the
		 * reader (-PFR_E_STALLED): only for now. */
		while ((rc = pfr_mpsc_next(&r->mrd, &rec)) == 1) {
			lc_take(&c, rec.hdr.type, rec.payload, rec.len, ~0ull);
			lc_verify(in, &c);
		}
		pfr_mpsc_end(&r->mrd);
		if (rc < 0 && rc != -PFR_E_STALLED) {
			lc_bad(in, "pfr_mpsc_next: error %lld (%llu)",
			       (long long)-rc, 0);
			return;
		}
		if (lc_stalled(r, in, &since, &spins, before))
			return;
	}
}

/* ---- the group: writers that join and leave ---- */

static void lc_group_write(struct lc_run *r, uint32_t wid, uint64_t inst)
{
	struct pfr_writer w;
	uint64_t buf[LC_MAXW];
	unsigned spins = 0;
	int rc;

	/* A slot frees once the reader drained its last writer's ring. */
	while ((rc = pfr_group_join(r->group, &w, wid)) == -PFR_E_FULL) {
		if (lc_failed(r))
			return;
		lc_pause(r, &spins);
	}
	if (rc < 0)
		return; /* its records show as missing */
	pfr_writer_set_timeout(&w, 1000000000ull);
	for (uint32_t j = 0; j < lc_records(LC_GROUP); j++) {
		uint64_t key = lc_key(wid, inst, j);
		uint32_t len = lc_fill(buf, LC_GROUP, key);

		if (pfr_writer_write(&w, LC_TYPE, buf, len) && lc_failed(r))
			break;
	}
	pfr_group_leave(r->group, &w);
}

static int lc_group_fn(void *arg, const struct pfr_group_rec *rec)
{
	struct lc_copy c;

	lc_take(&c, rec->hdr.type, rec->payload, rec->len, rec->tag);
	lc_verify(arg, &c);
	return 0;
}

static void lc_group_read(struct lc_run *r, struct lc_inst *in)
{
	uint64_t since = 0;
	unsigned spins = 0;

	while (in->got < in->need) {
		uint32_t before = in->got;
		int64_t n = pfr_group_consume(r->group, lc_group_fn, in, 0);

		if (n < 0) {
			lc_bad(in, "pfr_group_consume: error %lld (%llu)",
			       (long long)-n, 0);
			return;
		}
		if (lc_stalled(r, in, &since, &spins, before))
			return;
	}
}

/* ---- rounds ---- */

/* Thread 0, before a round: a fresh ring (shared ring, group). */
static int lc_setup(struct lc_run *r)
{
	int kind = r->t->kind, rc;

	memset(r->start, 0, sizeof(r->start));
	memset(r->bad, 0, sizeof(r->bad));
	if (kind == LC_MPSC) {
		struct pfr_mpsc_opts o = {sizeof(o), LC_DATA, PFR_POLICY_BLOCK,
					  0,	     4,	      0};

		rc = pfr_mpsc_create(&r->mpsc, &o);
		if (!rc && (rc = pfr_mpsc_reader(r->mpsc, &r->mrd)) < 0)
			pfr_mpsc_close(r->mpsc);
	} else if (kind == LC_GROUP) {
		struct pfr_group_opts o = {
			sizeof(o),	8, LC_DATA, PFR_POLICY_BLOCK,
			r->t->ordering, 0, 0};

		rc = pfr_group_create(&r->group, &o);
		if (!rc &&
		    (rc = pfr_group_reader_open(r->group, 0, NULL, NULL)) < 0)
			pfr_group_close(r->group);
	} else {
		struct pfr_ring_opts o = {
			sizeof(o), LC_DATA, PFR_POLICY_BLOCK, r->t->ordering, 0,
			0,	   0};

		rc = pfr_ring_create(&r->ring, &o);
		if (!rc && ((rc = pfr_ring_writer(r->ring, &r->w)) < 0 ||
			    (rc = pfr_ring_reader(r->ring, &r->rd)) < 0))
			pfr_ring_close(r->ring);
		if (!rc)
			pfr_writer_set_timeout(&r->w, 1000000000ull);
	}
	if (rc < 0) {
		fprintf(stderr, "perfring litmus: %s: cannot make a ring: %s\n",
			r->t->name, pfr_strerror(rc));
		r->err = 1;
	}
	return rc < 0;
}

static void lc_tally(struct lc_run *r, size_t cnt)
{
	for (size_t i = 0; i < cnt; i++) {
		r->res->pos += r->bad[i] == 2;
		r->res->neg += r->bad[i] == 1;
	}
}

static void lc_teardown(struct lc_run *r)
{
	if (r->t->kind == LC_MPSC) {
		pfr_mpsc_reader_close(&r->mrd);
		pfr_mpsc_close(r->mpsc);
	} else if (r->t->kind == LC_GROUP) {
		pfr_group_reader_close(r->group);
		pfr_group_close(r->group);
	} else {
		pfr_ring_close(r->ring);
	}
}

/* The reader's side of instance inst (slot i of the round). */
static void lc_read(struct lc_run *r, size_t i, uint64_t inst)
{
	struct lc_inst in;

	memset(&in, 0, sizeof(in));
	in.kind = r->t->kind;
	in.nw = r->t->nthreads - 1;
	in.inst = inst;
	in.need = lc_records(in.kind) * in.nw;
	if (in.kind == LC_MPSC)
		lc_mpsc_read(r, &in);
	else if (in.kind == LC_GROUP)
		lc_group_read(r, &in);
	else
		lc_ring_read(r, &in);
	r->records += in.got;
	r->bad[i] = 1 + !!in.bad; /* 0: not run */
	if (in.bad && !r->why[0])
		snprintf(r->why, sizeof(r->why), "instance %llu: %.200s",
			 (unsigned long long)inst, in.why);
}

/* Thread tid's part of one round: cnt instances from base. */
static void lc_round(struct lc_run *r, int tid, uint64_t base, size_t cnt)
{
	struct pfr_mpsc_producer p;
	int kind = r->t->kind;

	if (kind == LC_MPSC && tid) {
		if (pfr_mpsc_join(r->mpsc, &p) < 0) {
			__atomic_store_n(&r->err, 1, __ATOMIC_RELAXED);
			return;
		}
		pfr_mpsc_set_timeout(&p, 1000000000ull);
	}
	for (size_t i = 0; i < cnt; i++) {
		if (lc_sync(r, i))
			break;
		if (!tid)
			lc_read(r, i, base + i);
		else if (kind == LC_MPSC)
			lc_mpsc_write(r, &p, tid - 1, base + i);
		else if (kind == LC_GROUP)
			lc_group_write(r, tid - 1, base + i);
		else
			lc_ring_write(r, base + i);
	}
	if (kind == LC_MPSC && tid)
		pfr_mpsc_leave(&p);
}

static void *lc_thread(void *arg)
{
	struct lc_worker *w = arg;
	struct lc_run *r = w->r;

	if (r->ncpu > 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(r->cpus[w->tid % r->ncpu], &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (uint64_t base = 0; base < r->n; base += LC_ROUND) {
		size_t cnt = r->n - base < LC_ROUND ? r->n - base : LC_ROUND;
		int failed, made = 0;

		if (w->tid == 0 && !r->err)
			made = !lc_setup(r);
		/* purpose: the round's ring is made before it is used and
		 * the round's results are written before they are read */
		pthread_barrier_wait(&r->round);
		failed = lc_failed(r);
		if (!failed)
			lc_round(r, w->tid, base, cnt);
		pthread_barrier_wait(&r->round);
		if (made) {
			lc_tally(r, cnt);
			lc_teardown(r);
		}
		if (failed)
			break;
	}
	return NULL;
}

int cli_lit_code_run(const struct cli_lit_code *t, unsigned long long n,
		     const int *cpus, int ncpu, struct cli_lit_code_res *res)
{
	struct lc_worker w[PFR_LIT_MAX_THREADS];
	struct lc_run *r = calloc(1, sizeof(*r));
	int started = 1, rc = 0;

	memset(res, 0, sizeof(*res));
	if (!r)
		return -1;
	r->t = t;
	r->res = res;
	r->n = n;
	r->cpus = cpus;
	r->ncpu = ncpu;
	r->oversub = t->nthreads > ncpu;
	pthread_barrier_init(&r->round, NULL, t->nthreads);
	for (int k = 0; k < t->nthreads; k++) {
		w[k].r = r;
		w[k].tid = k;
	}
	for (; started < t->nthreads; started++)
		if (pthread_create(&w[started].th, NULL, lc_thread,
				   &w[started])) {
			fprintf(stderr, "perfring litmus: cannot start "
					"threads\n");
			exit(1); /* the others wait in the round barrier */
		}
	lc_thread(&w[0]);
	for (int k = 1; k < started; k++)
		pthread_join(w[k].th, NULL);
	pthread_barrier_destroy(&r->round);
	res->records = r->records;
	snprintf(res->first, sizeof(res->first), "%s", r->why);
	if (r->err && !r->why[0])
		rc = -1;
	free(r);
	return rc;
}
