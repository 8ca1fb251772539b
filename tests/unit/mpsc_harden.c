// SPDX-License-Identifier: MIT
/*
 * Hardening of <perfring/mpsc.h>: loss counts that survive a producer's
 * death (a killed producer's pending drops go out in the LOST record of
 * the slot's next owner, also when it died between its CAS and its LOST
 * record; a LOST record already read is not counted twice; the slot is
 * not reused before the reader passed the dead owner's announcement),
 * wake-up thresholds read from shared memory are clamped (a
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

static void put(int fd)
{
	char c = 1;

	if (write(fd, &c, 1) != 1)
		_exit(90);
}

static void get(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		_exit(91);
}

enum lost_death {
	LD_READ_THEN_DIE, /* its LOST record read, then killed */
	LD_DIE_THEN_READ, /* LOST record written, killed, then read */
	LD_DIE_IN_HOLE, /* killed between its CAS and its LOST record */
	LD_DIE_ANNOUNCED, /* killed after announcing, before its CAS */
};

/* A producer process drops 5 records; after the parent has drained, it
 * goes on as `how` says and is killed.  Returns its pid. */
static pid_t lost_child(struct pfr_mpsc *m, enum lost_death how, int c2p,
			int p2c)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct pfr_mpsc_producer p;
		unsigned char buf[56] = {0};
		uint64_t n = 0, w = 0, v = 1, pos;

		if (pfr_mpsc_join(m, &p))
			_exit(1);
		while (n < 5 && w < 1000)
			if (pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf)) ==
			    -PFR_E_NOSPC)
				n++;
			else
				w++;
		put(c2p);
		get(p2c); /* the parent drained */
		pos = PFR_READ_ONCE(p.ctl->prod_pos);
		switch (how) {
		case LD_READ_THEN_DIE:
		case LD_DIE_THEN_READ:
			if (pfr_mpsc_write(&p, T_TYPE, &v, 8))
				_exit(2);
			put(c2p);
			if (how == LD_READ_THEN_DIE)
				get(p2c); /* the parent read it */
			break;
		case LD_DIE_IN_HOLE:
			/* the LOST record and the record announced and
			 * taken; nothing written */
			pfr__mpsc_announce(&p, pos,
					   pos + sizeof(struct pfr_lost_record) +
						   16);
			if (!pfr__mpsc_cas_release(
				    &p.ctl->prod_pos, &pos,
				    pos + sizeof(struct pfr_lost_record) + 16))
				_exit(3);
			put(c2p);
			break;
		case LD_DIE_ANNOUNCED:
			pfr__mpsc_announce(&p, pos,
					   pos + sizeof(struct pfr_lost_record) +
						   16);
			put(c2p);
			break;
		}
		raise(SIGKILL); /* no flush, no leave */
		_exit(1);
	}
	return pid;
}

/*
 * The lost accounting across a producer's death, against the slot's
 * lost_due/lost_reported/lost_left: a LOST record read (before or after
 * its producer died) is not reported again by the slot's next owner; a
 * LOST record that never went out (the producer killed between its CAS
 * and the record, or before its CAS) is reported by the next owner; and
 * the slot is not reused before the reader has passed the dead owner's
 * announcement.
 */
static void test_lost_across_death(void)
{
	static const char *const names[] = {
		"LOST record read, then killed",
		"LOST record written, killed, then read",
		"killed between its CAS and its LOST record",
		"killed after announcing, before its CAS",
	};

	for (int how = LD_READ_THEN_DIE; how <= LD_DIE_ANNOUNCED; how++) {
		struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
		struct pfr_mpsc_producer q;
		struct pfr_mpsc_reader r;
		struct pfr_mpsc_stats st;
		uint64_t recs = 0, lost = 0, total_lost = 0, v = 2, t0;
		int c2p[2], p2c[2], status;
		pid_t pid;

		tap_diag("%s", names[how]);
		pfr_mpsc_reader(m, &r);
		pfr_mpsc_set_stall(&r, 5000000ull);
		if (pipe(c2p) || pipe(p2c))
			return;
		pid = lost_child(m, (enum lost_death)how, c2p[1], p2c[0]);
		get(c2p[0]); /* 5 dropped */
		drain(&r, &recs, &lost);
		ok(recs > 0 && lost == 0, "its records read, no LOST yet");
		put(p2c[1]);
		get(c2p[0]); /* it went on */
		if (how == LD_READ_THEN_DIE) {
			recs = 0;
			drain(&r, &recs, &lost);
			is_uint(lost, 5, "its LOST record read: 5");
			total_lost = lost;
			put(p2c[1]);
		}
		waitpid(pid, &status, 0);
		ok(WIFSIGNALED(status), "killed");
		if (how == LD_DIE_THEN_READ || how == LD_DIE_IN_HOLE) {
			is_int(pfr_mpsc_join(m, &q), -PFR_E_BUSY,
			       "its slot is not reused before the reader "
			       "passed its announcement");
			lost = 0;
			t0 = now_ns();
			while (now_ns() - t0 < 5000000000ull &&
			       r.tail != pfr_mpsc_ctl(m)->prod_pos) {
				if (drain(&r, &recs, &lost) < 0 &&
				    how != LD_DIE_IN_HOLE)
					break;
				sleep_us(500);
			}
			is_uint(r.tail, pfr_mpsc_ctl(m)->prod_pos,
				"the reader passed it");
			pfr_mpsc_stats(m, &r, &st);
			is_uint(st.dead_skipped, how == LD_DIE_IN_HOLE,
				"the hole skipped (in-hole death only)");
			is_uint(lost, how == LD_DIE_THEN_READ ? 5 : 0,
				"the LOST record read (if written)");
			total_lost += lost;
		}
		is_int(pfr_mpsc_join(m, &q), 0, "the slot rejoined");
		is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0,
		       "the new owner writes");
		recs = lost = 0;
		ok(drain(&r, &recs, &lost) == 0, "read");
		total_lost += lost;
		is_uint(recs, 1, "the new owner's record");
		is_uint(total_lost, 5,
			"the 5 drops reported exactly once in all");
		pfr_mpsc_leave(&q);
		pfr_mpsc_reader_close(&r);
		pfr_mpsc_close(m);
		close(c2p[0]);
		close(c2p[1]);
		close(p2c[0]);
		close(p2c[1]);
	}
}

/*
 * A reader killed after reading a LOST record, before pfr_mpsc_end():
 * the next reader reads the batch again (at least once), LOST record
 * included.  The slot's drops must still count once: when the producer
 * dies, the slot's next owner reports none (not lost_due - lost_reported
 * gone negative: a LOST record of 2^64 - 5).
 */
static void test_reader_killed_after_lost(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	uint64_t recs = 0, lost = 0, v = 2;
	int c2p[2], p2c[2], status;
	pid_t pid, rpid;

	pfr_mpsc_reader(m, &r);
	if (pipe(c2p) || pipe(p2c))
		return;
	pid = lost_child(m, LD_READ_THEN_DIE, c2p[1], p2c[0]);
	get(c2p[0]); /* 5 dropped */
	drain(&r, &recs, &lost);
	pfr_mpsc_reader_close(&r);
	put(p2c[1]);
	get(c2p[0]); /* LOST record + record written */
	rpid = fork();
	if (rpid == 0) {
		struct pfr_mpsc_reader rk;
		struct pfr_record rec;

		if (pfr_mpsc_reader(m, &rk) || pfr_mpsc_begin(&rk) <= 0)
			_exit(1);
		while (pfr_mpsc_next(&rk, &rec) == 1)
			;
		raise(SIGKILL); /* read, never ended */
		_exit(1);
	}
	waitpid(rpid, &status, 0);
	ok(WIFSIGNALED(status), "a reader read the LOST record and was killed");
	put(p2c[1]);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status), "then the producer was killed");
	is_int(pfr_mpsc_reader(m, &r), 0, "a new reader");
	lost = recs = 0;
	drain(&r, &recs, &lost);
	is_uint(lost, 5, "it reads the batch again, LOST record included");
	is_int(pfr_mpsc_join(m, &q), 0, "the slot rejoined");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "the new owner writes");
	lost = recs = 0;
	drain(&r, &recs, &lost);
	is_uint(lost, 0, "no drop reported again, no negative count");
	is_uint(recs, 1, "its record");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
	close(c2p[0]);
	close(c2p[1]);
	close(p2c[0]);
	close(p2c[1]);
}

/* A slot left by its owner hands its unreported drops (lost_left) to the
 * next owner, who reports them. */
static void test_left_drops(void)
{
	struct pfr_mpsc *m = mk(PFR_POLICY_DROP, 0, 1);
	struct pfr_mpsc_producer p, q;
	struct pfr_mpsc_reader r;
	unsigned char buf[56] = {0};
	uint64_t recs = 0, lost = 0, n = 0, w = 0, v = 3;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_join(m, &p);
	while (n < 4 && w < 1000)
		if (pfr_mpsc_write(&p, T_TYPE, buf, sizeof(buf)) ==
		    -PFR_E_NOSPC)
			n++;
		else
			w++;
	pfr_mpsc_leave(&p); /* its flush finds no room: left pending */
	is_uint(((struct pfr_mpsc_slot *)((char *)pfr_mpsc_ctl(m) +
					  pfr_mpsc_ctl(m)->table_offset))
			->lost_left,
		4,
		"4 drops left for the next owner");
	drain(&r, &recs, &lost);
	is_uint(lost, 0, "no LOST record went out");
	is_int(pfr_mpsc_join(m, &q), 0, "rejoined");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "the next owner writes");
	recs = 0;
	drain(&r, &recs, &lost);
	is_uint(lost, 4, "the left drops reported by the next owner");
	is_uint(recs, 1, "then its record");
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
	test_lost_across_death();
	test_left_drops();
	test_reader_killed_after_lost();
	test_wake_clamped();
	test_reader_fail();
	test_block_deadline();
	return tap_done();
}
