// SPDX-License-Identifier: MIT
/*
 * pfr_reader_wait() and the BLOCK writer's wait, with real threads: time-outs
 * with nothing to read, wake-ups by a writer, the byte and record
 * thresholds, pfr_writer_flush() waking past the thresholds, and a
 * lost-wake-up hunt (many short and long waits on both sides while the
 * other side publishes irregularly; every wait must return data or time out
 * correctly, and never sleep past its time-out).  Each for every ordering.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

#define MS 1000000ull

struct feeder {
	struct pfr_writer *w;
	uint64_t delay_ns; /* before the first record */
	uint64_t gap_ns; /* between records */
	int n; /* records */
	size_t len;
	int flush; /* pfr_writer_flush() after the last */
	int pause_at; /* > 0: after this many records, wait for `woke` */
	int woke; /* set by the test once its reader's wait returned */
};

static void *feed(void *arg)
{
	struct feeder *f = (struct feeder *)arg;
	unsigned char buf[512];

	rt_sleep_ns(f->delay_ns);
	for (int i = 0; i < f->n; i++) {
		if (i)
			rt_sleep_ns(f->gap_ns);
		/* The rest only once the reader woke: what the wait returned
		 * is then exact, however late the reader ran. */
		if (i && i == f->pause_at)
			/* purpose: pairs with the release store of woke */
			while (!__atomic_load_n(&f->woke, __ATOMIC_ACQUIRE))
				rt_sleep_ns(MS);
		rt_fill(buf, f->len, (uint64_t)i);
		pfr_writer_write(f->w, 1, buf, f->len);
	}
	if (f->flush)
		pfr_writer_flush(f->w);
	return NULL;
}

static long count_records(struct pfr_reader *r)
{
	struct pfr_record rec;
	long n = 0;

	if (pfr_reader_begin(r) < 0)
		return -1;
	while (pfr_reader_next(r, &rec) == 1)
		n++;
	return n;
}

/* A reader that drains once, 200 ms late. */
struct slow_reader {
	struct pfr_reader *r;
	long records, want;
};

static void *drain_late(void *arg)
{
	struct slow_reader *s = (struct slow_reader *)arg;

	rt_sleep_ns(200 * MS);
	s->records += count_records(s->r);
	pfr_reader_end(s->r);
	return NULL;
}

static void test_basic(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct feeder f;
	pthread_t th;
	uint64_t t0, dt;
	int64_t got;

	/* no WAIT flag: no waiting */
	rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, 0);
	pfr_ring_reader(ring, &r);
	is_intf(pfr_reader_wait(&r, MS), -PFR_E_INVAL,
		"%s: wait needs PFR_RING_WAIT", on);
	pfr_ring_close(ring);

	rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, PFR_RING_WAIT);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 30 * MS);
	dt = rt_now_ns() - t0;
	is_int(got, -PFR_E_TIMEDOUT, "nothing: -PFR_E_TIMEDOUT");
	ok(dt >= 30 * MS, "not before 30 ms (%.1f ms)", dt / 1e6);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 0);
	dt = rt_now_ns() - t0;
	ok(got == -PFR_E_TIMEDOUT, "time-out 0: -PFR_E_TIMEDOUT (%.3f ms)",
	   dt / 1e6);
	is_int(pfr_ring_ctl(ring)->reader_waiting, 0,
	       "reader_waiting cleared after a time-out");

	/* data already there: no sleep */
	pfr_writer_write(&w, 1, "12345678", 8);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 5000 * MS);
	dt = rt_now_ns() - t0;
	/* a sleep would last to the 5 s deadline: far from any delay a
	 * loaded machine adds */
	ok(got == 16 && dt < 4000 * MS, "data already there: no sleep");
	count_records(&r);
	pfr_reader_end(&r);

	/* a writer thread wakes the reader */
	f = (struct feeder){&w, 50 * MS, 0, 1, 40, 0, 0, 0};
	pthread_create(&th, NULL, feed, &f);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 5000 * MS);
	dt = rt_now_ns() - t0;
	pthread_join(th, NULL);
	is_int(got, 48, "woken with the record");
	ok(dt >= 40 * MS && dt < 4000 * MS,
	   "by the writer, not the 5 s time-out (%.1f ms)", dt / 1e6);
	is_int(count_records(&r), 1, "one record");
	pfr_reader_end(&r);

	/* byte threshold: 1000 bytes of 112-byte records: nine of them */
	pfr_reader_set_wakeup(&r, 1000, 0);
	f = (struct feeder){&w, 5 * MS, 3 * MS, 20, 100, 0, 9, 0};
	pthread_create(&th, NULL, feed, &f);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 5000 * MS);
	dt = rt_now_ns() - t0;
	/* purpose: the feeder goes on; pairs with its acquire load */
	__atomic_store_n(&f.woke, 1, __ATOMIC_RELEASE);
	ok(got >= 1000 && got < 2240 && dt < 4000 * MS,
	   "byte threshold: woken with %lld bytes after %.1f ms",
	   (long long)got, dt / 1e6);
	pthread_join(th, NULL);
	count_records(&r);
	pfr_reader_end(&r);

	/* record threshold: 5 records, bytes out of reach */
	pfr_reader_set_wakeup(&r, UINT32_MAX, 5);
	f = (struct feeder){&w, 5 * MS, 3 * MS, 12, 8, 0, 5, 0};
	pthread_create(&th, NULL, feed, &f);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 5000 * MS);
	dt = rt_now_ns() - t0;
	{
		long n = count_records(&r);

		/* purpose: the feeder goes on; pairs with its load */
		__atomic_store_n(&f.woke, 1, __ATOMIC_RELEASE);
		ok(got > 0 && n >= 5 && n < 12 && dt < 4000 * MS,
		   "record threshold: woken with %ld records after %.1f ms", n,
		   dt / 1e6);
	}
	pthread_join(th, NULL);
	count_records(&r);
	pfr_reader_end(&r);

	/* pfr_writer_flush() wakes the reader regardless of thresholds */
	pfr_reader_set_wakeup(&r, 3000, 0);
	f = (struct feeder){&w, 50 * MS, 0, 1, 8, 1, 0, 0};
	pthread_create(&th, NULL, feed, &f);
	t0 = rt_now_ns();
	got = pfr_reader_wait(&r, 5000 * MS);
	dt = rt_now_ns() - t0;
	pthread_join(th, NULL);
	ok(got == 16 && dt < 4000 * MS,
	   "flush wakes a reader below its threshold (%lld after %.1f ms)",
	   (long long)got, dt / 1e6);
	count_records(&r);
	pfr_reader_end(&r);
	pfr_reader_set_wakeup(&r, 0, 0);
	pfr_ring_close(ring);
}

static double cpu_s(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
	       (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* Waits with huge time-outs sleep, they do not spin (a 32-bit time_t in
 * the futex time-out once turned 3e18 ns into a negative time and
 * FUTEX_WAIT into an immediate error). */
static void test_long_timeouts(enum pfr_ordering ord)
{
	static const uint64_t tos[] = {UINT64_MAX, 3000000000000000000ull,
				       1ull << 62};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct feeder f;
	pthread_t th;

	rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, PFR_RING_WAIT);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	for (size_t i = 0; i < sizeof(tos) / sizeof(tos[0]); i++) {
		double c0;
		int64_t got;

		f = (struct feeder){&w, 200 * MS, 0, 1, 8, 0, 0, 0};
		pthread_create(&th, NULL, feed, &f);
		c0 = cpu_s();
		got = pfr_reader_wait(&r, tos[i]);
		c0 = cpu_s() - c0;
		pthread_join(th, NULL);
		ok(got == 16 && c0 < 0.03,
		   "%s: reader_wait(%#llx ns) sleeps (%.3f s CPU in 0.2 s)",
		   pfr_ordering_name(ord), (unsigned long long)tos[i], c0);
		count_records(&r);
		pfr_reader_end(&r);
	}
	/* the BLOCK writer too: fill, then wait for a late reader */
	while (pfr_writer_write(&w, 1, "abcdefgh", 8) == 0)
		;
	pfr_writer_set_timeout(&w, 3000000000000000000ull);
	{
		struct slow_reader s = {&r, 0, 1};
		double c0;
		int err;

		pthread_create(&th, NULL, drain_late, &s);
		c0 = cpu_s();
		err = pfr_writer_write(&w, 1, "abcdefgh", 8);
		c0 = cpu_s() - c0;
		pthread_join(th, NULL);
		ok(err == 0 && c0 < 0.03,
		   "BLOCK writer with a 3e18 ns time-out sleeps (%.3f s CPU)",
		   c0);
	}
	pfr_ring_close(ring);
}

/* BLOCK writer waits: time-out with no reader progress, and wake-up. */
static void test_block_wait(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	uint64_t t0, dt;
	int err;

	rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, PFR_RING_WAIT);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	pfr_writer_set_timeout(&w, 0);
	while ((err = pfr_writer_write(&w, 1, "abcdefgh", 8)) == 0)
		;
	is_intf(err, -PFR_E_TIMEDOUT, "%s: BLOCK time-out 0 on a full ring",
		pfr_ordering_name(ord));
	pfr_writer_set_timeout(&w, 20 * MS);
	t0 = rt_now_ns();
	err = pfr_writer_write(&w, 1, "abcdefgh", 8);
	dt = rt_now_ns() - t0;
	ok(err == -PFR_E_TIMEDOUT && dt >= 20 * MS,
	   "BLOCK time-out 20 ms, not before (%.1f ms)", dt / 1e6);
	is_uint(pfr_writer_lost(&w), 2, "both counted lost");
	pfr_ring_close(ring);
}

/* A reader asleep below a threshold the ring cannot reach while a BLOCK
 * writer waits for space: someone has to give way. */

static void *read_with_threshold(void *arg)
{
	struct slow_reader *s = (struct slow_reader *)arg;
	uint64_t t0 = rt_now_ns();

	pfr_reader_set_wakeup(s->r, 4000, 0);
	while (s->records < s->want && rt_now_ns() - t0 < 10000 * MS) {
		pfr_reader_wait(s->r, 3000 * MS);
		s->records += count_records(s->r);
		pfr_reader_end(s->r);
	}
	return NULL;
}

static void test_block_vs_threshold(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct slow_reader s;
	unsigned char buf[200];
	pthread_t th;
	uint64_t t0, dt;
	int timeouts = 0;

	rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, PFR_RING_WAIT);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	pfr_writer_set_timeout(&w, 2000 * MS);
	s = (struct slow_reader){&r, 0, 40};
	pthread_create(&th, NULL, read_with_threshold, &s);
	rt_sleep_ns(20 * MS); /* the reader is asleep */
	memset(buf, 1, sizeof(buf));
	t0 = rt_now_ns();
	for (int i = 0; i < 40; i++)
		timeouts += pfr_writer_write(&w, 1, buf, sizeof(buf)) != 0;
	pfr_writer_flush(&w);
	dt = rt_now_ns() - t0;
	pthread_join(th, NULL);
	/* 19 records of 208 bytes fill the ring to 3952 < 4000 bytes */
	ok(timeouts == 0 && s.records == 40,
	   "%s: a waiting BLOCK writer wakes a reader below its byte "
	   "threshold (%d time-outs, %ld records, %.1f ms)",
	   pfr_ordering_name(ord), timeouts, s.records, dt / 1e6);
	pfr_ring_close(ring);
}

/*
 * The hunt.  The writer publishes irregularly (single records, deferred
 * batches, flushes; gaps of nothing, spins, yields and sleeps) on a small
 * BLOCK ring, so it also waits for space often; the reader waits with long
 * and short time-outs and drains irregularly.  While the writer runs it
 * publishes at least every few milliseconds, so a long wait that lasts
 * close to its time-out is a lost wake-up, on either side.
 */
struct hunt {
	struct pfr_writer w;
	struct pfr_reader r;
	uint64_t until_ns;
	uint64_t written, writer_timeouts, writer_slow;
	int finished; /* the writer wrote its last record and flushed */
	uint64_t seed;
	int ord;
	int probe; /* thresholds 0/0: look for a stuck reader */
	uint64_t quiet, stuck; /* quiet periods; reader asleep on data */
};

#define HUNT_LONG (2000 * MS)
#define HUNT_END 99u

static void hunt_gap(uint64_t *rnd)
{
	uint64_t x = rt_rand(rnd) % 16;

	if (x < 5)
		return;
	if (x < 9) {
		uint64_t t0 = rt_now_ns(), d = rt_rand(rnd) % 30000;

		while (rt_now_ns() - t0 < d)
			;
	} else if (x < 12) {
		sched_yield();
	} else {
		rt_sleep_ns(rt_rand(rnd) % 300000);
	}
}

static void *hunt_writer(void *arg)
{
	struct hunt *h = (struct hunt *)arg;
	uint64_t rnd = h->seed;

	pfr_writer_set_timeout(&h->w, HUNT_LONG);
	while (rt_now_ns() < h->until_ns) {
		int k = 1 + (int)(rt_rand(&rnd) % 4),
		    mode = (int)(rt_rand(&rnd) % 4);

		for (int i = 0; i < k; i++) {
			size_t len = 8 * (size_t)(rt_rand(&rnd) % 40);
			uint64_t t0 = rt_now_ns();
			void *p;
			int err;

			if (len < 8)
				len = 8;
			err = pfr_writer_reserve(&h->w, 1, len, &p);
			if (rt_now_ns() - t0 > 500 * MS)
				h->writer_slow++;
			if (err) {
				h->writer_timeouts++;
				continue;
			}
			memset(p, 0, len);
			memcpy(p, &h->written, 8);
			h->written++;
			if (mode == 0)
				pfr_writer_commit_deferred(&h->w);
			else
				pfr_writer_commit(&h->w);
		}
		if (mode == 0)
			pfr_writer_publish(&h->w);
		else if (mode == 1)
			pfr_writer_flush(&h->w);
		if (h->probe && rt_rand(&rnd) % 150 == 0) {
			/* Go quiet after a publication.  A reader that stays
			 * asleep (reader_waiting) while unread data sits in
			 * the ring, with thresholds of one byte, missed its
			 * wake-up: without the quiet period the next
			 * publication would hide that. */
			struct pfr_ring_ctl *c = h->w.ctl;
			int n = 0;

			h->quiet++;
			/* asleep on data at 3 ms and 8 ms, then every 10 ms
			 * up to 500 ms: a woken reader that a loaded machine
			 * has not run yet gets that long to clear the flag */
			for (int i = 0; i < 51 && n == i; i++) {
				rt_sleep_ns(i == 0   ? 3 * MS
					    : i == 1 ? 5 * MS
						     : 10 * MS);
				n += PFR_READ_ONCE(c->reader_waiting) &&
				     PFR_READ_ONCE(c->head) !=
					     PFR_READ_ONCE(c->tail);
			}
			h->stuck += n == 51;
		}
		hunt_gap(&rnd);
	}
	/* purpose: waits that begin from here on may find their data
	 * below the thresholds after the last flush; pairs with the
	 * acquire load in hunt().  Waits that began before are woken by
	 * that flush. */
	__atomic_store_n(&h->finished, 1, __ATOMIC_RELEASE);
	while (pfr_writer_write(&h->w, HUNT_END, "end.....", 8))
		;
	pfr_writer_flush(&h->w);
	return NULL;
}

static void hunt(enum pfr_ordering ord, uint64_t ns, uint32_t wb, uint32_t wr,
		 int procs)
{
	/* shared with a writer process too */
	struct hunt *h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = 0;
	struct pfr_ring *ring;
	pthread_t th;
	uint64_t rnd = 7 + ord * 1000 + wb, next = 0, waits = 0, bad_to = 0;
	uint64_t late = 0, slow = 0, early = 0, lost = 0, corrupt = 0;
	uint64_t max_long = 0;
	int done = 0;

	rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, PFR_RING_WAIT);
	pfr_ring_writer(ring, &h->w);
	pfr_ring_reader(ring, &h->r);
	pfr_reader_set_wakeup(&h->r, wb, wr);
	h->seed = 99 + ord;
	h->probe = wb == 0 && wr == 0;
	h->until_ns = rt_now_ns() + ns;
	if (procs) {
		pid = fork();
		if (pid == 0) {
			hunt_writer(h);
			_exit(0);
		}
	} else {
		pthread_create(&th, NULL, hunt_writer, h);
	}
	while (!done) {
		int longw = rt_rand(&rnd) % 3 != 0;
		/* After the writer's last flush, data left below the
		 * thresholds legitimately waits for the time-out: only waits
		 * that began before it owe a wake-up.  purpose: pairs with
		 * the release store of `finished` in hunt_writer() */
		int owed = !__atomic_load_n(&h->finished, __ATOMIC_ACQUIRE);
		uint64_t to = longw ? HUNT_LONG : rt_rand(&rnd) % (2 * MS);
		uint64_t t0 = rt_now_ns(), dt;
		int64_t got = pfr_reader_wait(&h->r, to);
		struct pfr_record rec;

		dt = rt_now_ns() - t0;
		waits++;
		if (got == -PFR_E_TIMEDOUT) {
			if (dt < to)
				early++;
			if (longw && owed)
				bad_to++;
		} else if (got < 0) {
			corrupt++;
			break;
		}
		if (dt > to + 500 * MS)
			late++;
		if (longw && owed && dt > max_long)
			max_long = dt;
		if (longw && owed && dt > to / 2)
			slow++;
		/* drain all, some, or nothing */
		if (pfr_reader_begin(&h->r) < 0) {
			corrupt++;
			break;
		}
		int take = (int)(rt_rand(&rnd) % 8);

		while ((take || rt_rand(&rnd) % 4) &&
		       pfr_reader_next(&h->r, &rec) == 1) {
			uint64_t s;

			if (take)
				take--;
			if (rec.hdr.type == HUNT_END) {
				done = 1;
				break;
			}
			if (rec.hdr.type == PFR_RECORD_LOST) {
				uint64_t n;

				memcpy(&n, (const char *)rec.payload + 8, 8);
				next += n;
				lost += n;
				continue;
			}
			memcpy(&s, rec.payload, 8);
			if (s != next)
				corrupt++;
			next = s + 1;
		}
		pfr_reader_end(&h->r);
		if (rt_rand(&rnd) % 8 == 0)
			hunt_gap(&rnd);
	}
	if (procs)
		waitpid(pid, NULL, 0);
	else
		pthread_join(th, NULL);
	ok(!corrupt && next == h->written,
	   "%s wake %u/%u %s: %llu waits, %llu records, sequence intact",
	   pfr_ordering_name(ord), wb, wr, procs ? "processes" : "threads",
	   (unsigned long long)waits, (unsigned long long)h->written);
	is_uint(early, 0, "no time-out before its time");
	/* How late a wait returned is the machine's load, not a verdict:
	 * a lost wake-up shows as a long wait that timed out (2 s while
	 * the writer publishes every few ms). */
	tap_diag("%llu waits returned over 500 ms past their time-out, "
		 "%llu long waits over half their time-out",
		 (unsigned long long)late, (unsigned long long)slow);
	ok(bad_to == 0,
	   "reader: no lost wake-up (%llu long waits timed out; longest "
	   "%.1f ms)",
	   (unsigned long long)bad_to, max_long / 1e6);
	if (h->probe)
		ok(h->stuck == 0,
		   "no reader asleep on unread data in %llu "
		   "quiet periods of the writer",
		   (unsigned long long)h->quiet);
	ok(h->writer_timeouts == 0 && lost == 0,
	   "BLOCK writer: no lost wake-up (%llu time-outs; %llu waits over "
	   "500 ms)",
	   (unsigned long long)h->writer_timeouts,
	   (unsigned long long)h->writer_slow);
	pfr_ring_close(ring);
	munmap(h, sizeof(*h));
}

int main(void)
{
	uint64_t ns = (rt_long() ? 5000 : 250) * MS;

	for (int i = 0; i < PFR_ORDER__COUNT; i++) {
		test_basic(rt_orders[i]);
		test_block_wait(rt_orders[i]);
		test_block_vs_threshold(rt_orders[i]);
		test_long_timeouts(rt_orders[i]);
	}
	for (int i = 0; i < PFR_ORDER__COUNT; i++) {
		hunt(rt_orders[i], ns, 0, 0, 0);
		hunt(rt_orders[i], ns / 2, 256, 3, 0);
		hunt(rt_orders[i], ns / 2, 0, 0, 1);
	}
	return rt_done();
}
