// SPDX-License-Identifier: MIT
/*
 * Hardening of <perfring/mpsc.h>: loss counts that survive a producer's
 * death (a killed producer's pending drops go out in the LOST record of
 * the slot's next owner; a LOST record already published is not counted
 * twice), wake-up thresholds read from shared memory are clamped (a
 * peer's wake_bytes = ~0 cannot keep the reader asleep), a failed
 * pfr_mpsc_reader() keeps no reader role, and the BLOCK deadline holds
 * while cons_pos moves without freeing enough space.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "tap.h"

#define T_TYPE 9u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_us(unsigned us)
{
	struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000l};

	nanosleep(&ts, NULL);
}

static struct pfr_mpsc *mk(enum pfr_policy pol, uint32_t flags, uint32_t np)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;

	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.policy = pol;
	o.flags = flags;
	o.max_producers = np;
	if (pfr_mpsc_create(&m, &o))
		exit(1);
	return m;
}

/* Drains r: records of T_TYPE counted in *recs, LOST counts summed into
 * *lost; returns -1 on a reader error. */
static int drain(struct pfr_mpsc_reader *r, uint64_t *recs, uint64_t *lost)
{
	struct pfr_record rec;
	int rc;

	if (pfr_mpsc_begin(r) < 0)
		return -1;
	while ((rc = pfr_mpsc_next(r, &rec)) == 1) {
		uint64_t l;

		if (rec.hdr.type == PFR_RECORD_LOST) {
			memcpy(&l, (const char *)rec.payload + 8, 8);
			*lost += l;
		} else if (rec.hdr.type == T_TYPE) {
			(*recs)++;
		}
	}
	pfr_mpsc_end(r);
	return rc < 0 ? -1 : 0;
}

/* A producer process drops records, then dies with them pending; the
 * slot's next owner reports them in its first LOST record. */
static void test_killed_pending(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	uint64_t dropped = 0, recs = 0, lost = 0, v = 7;
	int pfd[2], status;
	pid_t pid;

	pfr_mpsc_reader(m, &r);
	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		struct pfr_mpsc_producer p;
		uint64_t n = 0, w = 0;
		unsigned char buf[56] = {0};

		if (pfr_mpsc_join(m, &p))
			_exit(1);
		while (n < 10 && w < 1000)
			if (pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf)) ==
			    -PFR_E_NOSPC)
				n++;
			else
				w++;
		if (write(pfd[1], &n, 8) != 8)
			_exit(1);
		raise(SIGKILL); /* no flush, no leave */
		_exit(1);
	}
	close(pfd[1]);
	ok(read(pfd[0], &dropped, 8) == 8 && dropped == 10,
	   "the producer dropped 10 records");
	close(pfd[0]);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status), "and was killed with them pending");
	ok(drain(&r, &recs, &lost) == 0 && recs > 0 && lost == 0,
	   "its records read, no LOST record yet");
	is_int(pfr_mpsc_join(m, &q), 0, "the dead producer's slot rejoined");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "the new owner writes");
	recs = 0;
	ok(drain(&r, &recs, &lost) == 0, "read");
	is_uint(lost, dropped, "the dead producer's drops in a LOST record");
	is_uint(recs, 1, "then the new owner's record");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* A producer whose LOST record went out but which died before clearing
 * lost_pending (forged here: the counters as that kill leaves them): the
 * next owner reports nothing twice. */
static void test_published_not_twice(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
	struct pfr_mpsc_producer p, q;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_slot *s;
	uint64_t recs = 0, lost = 0, n = 0, pos, v = 1;
	unsigned char buf[56] = {0};

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_join(m, &p);
	s = p.slot;
	while (n < 5)
		if (pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf)) ==
		    -PFR_E_NOSPC)
			n++;
	drain(&r, &recs, &lost);
	pos = pfr_mpsc_ctl(m)->prod_pos;
	is_int(pfr_mpsc_write(&p, T_TYPE, &v, 8), 0, "LOST record + record");
	/* as a kill between R and the clearing leaves the slot */
	s->lost_pending = 5;
	s->lost_pos = pos + 1;
	s->owner &= ~0xffffffffull; /* and the slot free */
	memset(&p, 0, sizeof(p));
	is_int(pfr_mpsc_join(m, &q), 0, "rejoined");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "the next owner writes");
	recs = lost = 0;
	drain(&r, &recs, &lost);
	is_uint(lost, 5, "5 drops reported once, not twice");
	is_uint(recs, 2, "both records read");
	/* and one that died in its critical section before R: lost_pos at
	 * prod_pos, never published: reported by the next owner */
	s->lost_pending = 3;
	s->lost_pos = pfr_mpsc_ctl(m)->prod_pos + 1;
	s->owner &= ~0xffffffffull;
	memset(&q, 0, sizeof(q));
	is_int(pfr_mpsc_join(m, &q), 0, "rejoined");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "the next owner writes");
	recs = lost = 0;
	drain(&r, &recs, &lost);
	is_uint(lost, 3, "unpublished LOST record: its 3 drops reported");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

struct waiter {
	struct pfr_mpsc *m;
	int64_t rc;
	uint64_t ns;
	int ready;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct pfr_mpsc_reader r;
	uint64_t t0;

	if (pfr_mpsc_reader(w->m, &r)) {
		w->rc = -1000;
		/* purpose: pairs with the load_acquire in test_wake_clamped() */
		pfr_smp_store_release(&w->ready, 1);
		return NULL;
	}
	/* a hostile peer's thresholds */
	PFR_WRITE_ONCE(pfr_mpsc_ctl(w->m)->wake_bytes, UINT32_MAX);
	PFR_WRITE_ONCE(pfr_mpsc_ctl(w->m)->wake_records, UINT32_MAX);
	/* purpose: the thresholds before ready; pairs with the
	 * load_acquire in test_wake_clamped() */
	pfr_smp_store_release(&w->ready, 1);
	t0 = now_ns();
	w->rc = pfr_mpsc_wait(&r, 3000000000ull);
	w->ns = now_ns() - t0;
	pfr_mpsc_reader_close(&r);
	return NULL;
}

static void test_wake_clamped(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, PFR_MPSC_WAIT, 1);
	struct pfr_mpsc_producer p;
	struct waiter w = {m, 0, 0, 0};
	unsigned char buf[56] = {0};
	pthread_t t;

	pfr_mpsc_join(m, &p);
	pthread_create(&t, NULL, wait_thread, &w);
	/* purpose: pairs with the store_release in wait_thread() */
	while (!pfr_smp_load_acquire(&w.ready))
		sleep_us(100);
	sleep_us(20000); /* asleep by now, most likely */
	for (int i = 0; i < 48; i++) {
		pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf));
		sleep_us(200);
	}
	pthread_join(t, NULL);
	ok(w.rc > 0,
	   "wake_bytes = ~0 in shared memory: the reader woke "
	   "(%lld)",
	   (long long)w.rc);
	ok(w.ns < 2000000000ull, "before its 3 s time-out (%llu ms)",
	   (unsigned long long)(w.ns / 1000000));
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

static void test_reader_fail(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);

	c->cons_pos = 4; /* hostile */
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_RECSIZE_ALIGN,
	       "a misaligned consumer position: refused");
	is_uint(c->reader_owner, 0, "and the reader role is not kept");
	is_int(pfr_mpsc_reader_alive(m), 0, "no reader alive");
	c->cons_pos = 0;
	pfr_mpsc_close(m);
}

struct toggler {
	struct pfr_mpsc_ctl *c;
	uint64_t base;
	int stop;
};

static void *toggle_cons(void *arg)
{
	struct toggler *t = arg;
	uint64_t i = 0;

	while (!PFR_READ_ONCE(t->stop))
		PFR_WRITE_ONCE(t->c->cons_pos, t->base + 8 * (i++ & 1));
	return NULL;
}

static void test_block_deadline(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_BLOCK, 0, 1);
	struct pfr_mpsc_producer p;
	struct toggler tg;
	unsigned char buf[56] = {0};
	uint64_t t0, dt;
	pthread_t t;
	int rc;

	pfr_mpsc_join(m, &p);
	pfr_mpsc_set_timeout(&p, 1000000ull);
	while (pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf)) == 0)
		;
	/* the ring is full; cons_pos keeps moving by 8 bytes, never
	 * enough for a 64-byte record */
	tg.c = pfr_mpsc_ctl(m);
	tg.base = tg.c->cons_pos;
	tg.stop = 0;
	pthread_create(&t, NULL, toggle_cons, &tg);
	pfr_mpsc_set_timeout(&p, 20000000ull);
	t0 = now_ns();
	rc = 0;
	while (now_ns() - t0 < 1500000000ull) {
		rc = pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf));
		if (rc)
			break;
	}
	dt = now_ns() - t0;
	PFR_WRITE_ONCE(tg.stop, 1);
	pthread_join(t, NULL);
	is_int(rc, -PFR_E_TIMEDOUT, "BLOCK: timed out");
	ok(dt < 1000000000ull,
	   "20 ms deadline kept while cons_pos moves (%llu ms)",
	   (unsigned long long)(dt / 1000000));
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

int main(void)
{
	test_killed_pending();
	test_published_not_twice();
	test_wake_clamped();
	test_reader_fail();
	test_block_deadline();
	return tap_done();
}
