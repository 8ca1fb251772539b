// SPDX-License-Identifier: MIT
/*
 * Two-sided stress of the ring for every ordering x policy: a writer and a
 * reader (two threads, and for DROP and BLOCK also two processes over
 * shared memory), random record sizes up to the maximum, zero-copy and
 * copying writes, deferred batches and flushes, a reader that sometimes
 * waits, sometimes polls and sometimes dawdles so that the ring fills.
 * Every record carries a sequence number and a checksum; the test stops at
 * the first mismatch.  Loss accounting is exact: written == read + lost,
 * with lost summed from the PERF_RECORD_LOST records the reader receives,
 * and equal to the writer's own count.  OVERWRITE runs a snapshotting
 * reader: every snapshot must be whole records with contiguous sequence
 * numbers, the newest never older than the previous snapshot's newest.
 *
 * About a second in `make check`; PFR_LONG=1 runs each case for seconds.
 * What a run must do is counted, not timed: the writer's clock starts
 * when the reader runs, and a writer runs until both its time is up and
 * it has written RT_MIN_RECORDS records (an OVERWRITE writer: until the
 * reader has taken RT_MIN_SNAPS good snapshots), so a loaded machine
 * makes a case slower, never a failure.
 * The name contains "stress": the ThreadSanitizer run (C11 backend) picks
 * it up.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

#define MS 1000000ull
#define RT_MIN_RECORDS 2000
#define RT_MIN_SNAPS 10

/*
 * Under ThreadSanitizer (C11 backend) only what TSan can judge runs in
 * threads: it does not model stand-alone fences, so FULL (all four points
 * are fences) and CTRLDEP (B is the kernel's smp_wmb) would be reported
 * as races that the fences prevent; those run as processes,
 * out of TSan's sight, like the rest of the project's fence tests
 * (docs/barriers.md).  OVERWRITE snapshots are a seqlock: the snapshot
 * may copy bytes the writer is overwriting with plain stores and throws
 * them away afterwards, which C11 calls a data race; that is a reported
 * design question, so they do not run under TSan either.
 */
#if defined(__SANITIZE_THREAD__)
#define RT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RT_TSAN 1
#endif
#endif
#if defined(RT_TSAN)
static const int rt_tsan = 1;
#else
static const int rt_tsan = 0;
#endif

/* Shared between the two sides (a MAP_SHARED page for processes). */
struct side {
	struct pfr_ring *ring;
	uint64_t run_ns;
	uint64_t seed;
	/* written by the writer when it is done */
	uint64_t written; /* records attempted, seq 0..written-1 */
	uint64_t lost; /* the writer's pfr_writer_lost() */
	uint64_t batches, flushes;
	int done; /* release: the counts above are final */
	int werr;
	int reader_running; /* release: the writer's clock may start */
	int reader_quit; /* the reader gave up: stop without RT_MIN_RECORDS */
};

static size_t rand_len(uint64_t *rnd, size_t max)
{
	uint64_t x = rt_rand(rnd), c = x % 100;
	size_t len;

	if (c < 70)
		len = RT_HDR + (size_t)(x >> 8) % 64;
	else if (c < 97)
		len = RT_HDR + (size_t)(x >> 8) % 600;
	else
		len = max - (size_t)(x >> 8) % 64;
	len &= ~(size_t)7;
	if (len < RT_HDR)
		len = RT_HDR;
	return len > max ? max & ~(size_t)7 : len;
}

static void writer_side(struct side *s)
{
	struct pfr_writer w;
	uint64_t rnd = s->seed, seq = 0, end;
	size_t max;
	unsigned char *buf;

	if (pfr_ring_writer(s->ring, &w)) {
		s->werr = 1;
		goto out;
	}
	pfr_writer_set_timeout(&w, 2000 * MS);
	max = pfr_writer_max_payload(&w);
	buf = malloc(max + 8);
	/* purpose: start when the reader runs; pairs with the release
	 * store in reader_side() */
	while (!__atomic_load_n(&s->reader_running, __ATOMIC_ACQUIRE))
		sched_yield();
	end = rt_now_ns() + s->run_ns;
	while (rt_now_ns() < end ||
	       (seq < RT_MIN_RECORDS &&
		!__atomic_load_n(&s->reader_quit, __ATOMIC_RELAXED))) {
		int mode = (int)(rt_rand(&rnd) % 8);
		int k = mode == 0 ? 1 + (int)(rt_rand(&rnd) % 8) : 1;

		for (int i = 0; i < k; i++) {
			size_t len = rand_len(&rnd, max);
			void *p;

			if (mode == 1) {
				rt_stamp(buf, len, seq);
				pfr_writer_write(&w, 1, buf, len);
			} else if (pfr_writer_reserve(&w, 1, len, &p) == 0) {
				rt_stamp(p, len, seq);
				if (mode == 0)
					pfr_writer_commit_deferred(&w);
				else
					pfr_writer_commit(&w);
			}
			seq++;
		}
		if (mode == 0) {
			pfr_writer_publish(&w);
			s->batches++;
		} else if (mode == 2 && rt_rand(&rnd) % 16 == 0) {
			pfr_writer_flush(&w);
			s->flushes++;
		}
		if (rt_rand(&rnd) % 512 == 0)
			rt_sleep_ns(rt_rand(&rnd) % (200 * 1000));
	}
	/* report a pending loss: flush until the LOST record went out */
	for (;;) {
		pfr_writer_flush(&w);
		if (!PFR_READ_ONCE(pfr_ring_ctl(s->ring)->lost_pending))
			break;
		rt_sleep_ns(100 * 1000);
	}
	free(buf);
	s->written = seq;
	s->lost = pfr_writer_lost(&w);
out:
	/* purpose: the counts above before `done`; pairs with the
	 * acquire load of `done` in reader_side() */
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
}

static void *writer_thread(void *arg)
{
	writer_side((struct side *)arg);
	return NULL;
}

struct result {
	uint64_t read, lost, waits, errors;
	int mismatch;
};

static void reader_side(struct side *s, int can_wait, struct result *res)
{
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t rnd = s->seed ^ 0x5555, expect = 0;
	int last = 0;

	memset(res, 0, sizeof(*res));
	/* purpose: the writer's clock starts now; pairs with the acquire
	 * load in writer_side() */
	__atomic_store_n(&s->reader_running, 1, __ATOMIC_RELEASE);
	if (pfr_ring_reader(s->ring, &r)) {
		res->mismatch = 1;
		return;
	}
	for (;;) {
		int64_t avail;
		int e;

		if (!last &&
		    /* purpose: the writer's final counts and records before
		     * our last drain; pairs with the release store of
		     * `done` in writer_side() */
		    __atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
			last = 1;
		if (can_wait && rt_rand(&rnd) % 2)
			avail = pfr_reader_wait(&r, 20 * MS), res->waits++;
		avail = pfr_reader_begin(&r);
		if (avail < 0) {
			tap_diag("begin: %s", pfr_strerror((int)avail));
			res->mismatch = 1;
			return;
		}
		while ((e = pfr_reader_next(&r, &rec)) == 1) {
			uint64_t seq = 0;

			if (rec.hdr.type == PFR_RECORD_LOST) {
				struct pfr_lost_record lr;

				memcpy(&lr.id, rec.payload, 16);
				if (rec.len != 16 || lr.lost == 0 ||
				    lr.id != 0xfeed) {
					tap_diag("bad LOST record");
					res->mismatch = 1;
					return;
				}
				res->lost += lr.lost;
				expect += lr.lost;
				continue;
			}
			if (!rt_verify(rec.payload, rec.len, &seq) ||
			    seq != expect || rec.hdr.type != 1) {
				tap_diag("record at %llu: seq %llu, want %llu, "
					 "len %u, checksum %s",
					 (unsigned long long)rec.pos,
					 (unsigned long long)seq,
					 (unsigned long long)expect, rec.len,
					 rt_verify(rec.payload, rec.len, &seq)
						 ? "ok"
						 : "WRONG");
				res->mismatch = 1;
				return;
			}
			expect++;
			res->read++;
			/* dawdle now and then so that the ring fills */
			if (rt_rand(&rnd) % 4096 == 0)
				rt_sleep_ns(rt_rand(&rnd) % (500 * 1000));
		}
		if (e < 0) {
			tap_diag("next: %s", pfr_strerror(e));
			res->mismatch = 1;
			return;
		}
		pfr_reader_end(&r);
		if (last && avail == 0)
			break;
		if (!avail)
			sched_yield();
	}
}

static void run_case(enum pfr_ordering ord, enum pfr_policy pol, int procs,
		     uint64_t run_ns, uint64_t dsize)
{
	const char *what = procs ? "processes" : "threads";
	struct side *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = dsize,
				  .policy = pol,
				  .ordering = ord,
				  .flags = PFR_RING_WAIT,
				  .lost_id = 0xfeed};
	struct result res;
	pthread_t th;
	pid_t pid = 0;
	int can_wait = 1;

	memset(s, 0, sizeof(*s));
	if (pfr_ring_create(&s->ring, &o)) {
		ok(0, "create");
		return;
	}
	s->run_ns = run_ns;
	s->seed = 1234567 + (uint64_t)ord * 31 + (uint64_t)pol * 7 +
		  (uint64_t)procs;
	if (procs) {
		pid = fork();
		if (pid == 0) {
			writer_side(s);
			_exit(s->werr);
		}
	} else {
		pthread_create(&th, NULL, writer_thread, s);
	}
	reader_side(s, can_wait, &res);
	if (res.mismatch) {
		__atomic_store_n(&s->reader_quit, 1, __ATOMIC_RELAXED);
		/* stop the writer: it may be blocked on a ring we left */
		if (procs)
			kill(pid, SIGKILL);
	}
	if (procs) {
		int st;

		waitpid(pid, &st, 0);
	} else {
		if (res.mismatch) {
			/* the writer finishes on its own (time-outs) */
		}
		pthread_join(th, NULL);
	}
	if (!ok(!res.mismatch && !s->werr,
		"%s %s %s: %llu written, %llu read, %llu lost, %llu batches, "
		"every record verified",
		pfr_ordering_name(ord), pfr_policy_name(pol), what,
		(unsigned long long)s->written, (unsigned long long)res.read,
		(unsigned long long)res.lost, (unsigned long long)s->batches))
		goto out;
	is_uint(res.read + res.lost, s->written, "written == read + lost");
	is_uint(res.lost, s->lost, "LOST records sum to the writer's count");
	ok(s->written >= RT_MIN_RECORDS, "it ran (%llu records, at least %d)",
	   (unsigned long long)s->written, RT_MIN_RECORDS);
	if (pol == PFR_POLICY_DROP)
		tap_diag("  %llu of %llu dropped", (unsigned long long)res.lost,
			 (unsigned long long)s->written);
out:
	pfr_ring_close(s->ring);
	munmap(s, sizeof(*s));
}

/* ---- OVERWRITE with a snapshotting reader ---- */

struct ow {
	struct pfr_ring *ring;
	uint64_t run_ns, seed, written;
	int done;
	int good_snaps; /* snapshots the reader verified so far */
};

static void *ow_writer(void *arg)
{
	struct ow *s = (struct ow *)arg;
	struct pfr_writer w;
	uint64_t rnd = s->seed, seq = 0, end;
	size_t max;

	pfr_ring_writer(s->ring, &w);
	max = pfr_writer_max_payload(&w);
	end = rt_now_ns() + s->run_ns;
	while (rt_now_ns() < end ||
	       /* purpose: the reader's count; pairs with the release
		* store in run_overwrite() */
	       __atomic_load_n(&s->good_snaps, __ATOMIC_ACQUIRE) <
		       RT_MIN_SNAPS) {
		/* now and then a deferred batch: `oldest` may then run
		 * ahead of the published head for a while */
		int k = rt_rand(&rnd) % 16 == 0 ? 2 + (int)(rt_rand(&rnd) % 4)
						: 1;

		for (int i = 0; i < k; i++) {
			size_t len = rand_len(&rnd, max);
			void *p;

			if (pfr_writer_reserve(&w, 1, len, &p) == 0) {
				rt_stamp(p, len, seq++);
				if (k > 1)
					pfr_writer_commit_deferred(&w);
				else
					pfr_writer_commit(&w);
			}
		}
		if (k > 1)
			pfr_writer_publish(&w);
		if (rt_rand(&rnd) % 1024 == 0)
			rt_sleep_ns(rt_rand(&rnd) % (100 * 1000));
	}
	s->written = seq;
	/* purpose: `written` before `done`; pairs with the acquire load
	 * of `done` in run_overwrite() */
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Returns the newest seq in the snapshot (or prev if empty), or -1 with
 * *bad set on a broken one. */
static int64_t check_snap(const unsigned char *b, int64_t n, int64_t prev,
			  int *bad, uint64_t *recs)
{
	uint64_t p = 0, last = 0;
	int first = 1;

	while (p < (uint64_t)n) {
		struct pfr_record_header h;
		uint64_t seq;

		memcpy(&h, b + p, 8);
		if (h.size < 8 + RT_HDR || (h.size & 7) ||
		    p + h.size > (uint64_t)n || h.type != 1 ||
		    !rt_verify(b + p + 8, h.size - 8u, &seq) ||
		    (!first && seq != last + 1)) {
			tap_diag("snapshot broken at byte %llu of %lld",
				 (unsigned long long)p, (long long)n);
			*bad = 1;
			return -1;
		}
		first = 0;
		last = seq;
		p += h.size;
		(*recs)++;
	}
	if (first)
		return prev;
	if ((int64_t)last < prev) {
		tap_diag("newest %llu older than before (%lld)",
			 (unsigned long long)last, (long long)prev);
		*bad = 1;
	}
	return (int64_t)last;
}

static void run_overwrite(enum pfr_ordering ord, uint64_t run_ns,
			  uint64_t dsize)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = dsize,
				  .policy = PFR_POLICY_OVERWRITE,
				  .ordering = ord};
	struct ow s;
	pthread_t th;
	unsigned char *buf = malloc(dsize);
	uint64_t snaps = 0, overwritten = 0, recs = 0, rnd = 77 + ord;
	int64_t newest = -1;
	int bad = 0, fin = 0;

	memset(&s, 0, sizeof(s));
	if (pfr_ring_create(&s.ring, &o))
		return (void)ok(0, "create");
	s.run_ns = run_ns;
	s.seed = 4242 + ord;
	pthread_create(&th, NULL, ow_writer, &s);
	while (!bad) {
		size_t bl = rt_rand(&rnd) % 4 ? dsize : rt_rand(&rnd) % dsize;
		int64_t n;

		/* purpose: `written` and every record published before
		 * `done`; pairs with the release store in ow_writer() */
		fin = __atomic_load_n(&s.done, __ATOMIC_ACQUIRE);
		n = pfr_ring_snapshot(s.ring, buf, bl);
		if (n == -PFR_E_OVERWRITTEN) {
			overwritten++;
		} else if (n < 0 || (size_t)n > bl) {
			tap_diag("snapshot: %lld", (long long)n);
			bad = 1;
		} else {
			snaps++;
			newest = check_snap(buf, n, newest, &bad, &recs);
			/* purpose: pairs with the acquire load in
			 * ow_writer() */
			if (n > 0)
				__atomic_store_n(&s.good_snaps,
						 s.good_snaps + 1,
						 /* purpose: pairs with the
						  * load in ow_writer() */
						 __ATOMIC_RELEASE);
		}
		if (fin)
			break;
	}
	pthread_join(th, NULL);
	ok(!bad,
	   "%s overwrite threads: %llu snapshots (%llu records), "
	   "whole, contiguous, never older; %llu overwritten during copy",
	   pfr_ordering_name(ord), (unsigned long long)snaps,
	   (unsigned long long)recs, (unsigned long long)overwritten);
	{
		int64_t n = pfr_ring_snapshot(s.ring, buf, dsize);
		int64_t last = check_snap(buf, n, -1, &bad, &recs);

		ok(!bad && s.written > 0 && last == (int64_t)s.written - 1,
		   "final snapshot ends at the last record written (%lld of "
		   "%llu)",
		   (long long)last, (unsigned long long)s.written);
	}
	ok(snaps >= RT_MIN_SNAPS,
	   "%llu snapshots succeeded while the writer ran (%llu overwritten "
	   "during the copy)",
	   (unsigned long long)snaps, (unsigned long long)overwritten);
	pfr_ring_close(s.ring);
	free(buf);
}

int main(void)
{
	uint64_t ns = (rt_long() ? 3000 : 60) * MS;

	signal(SIGPIPE, SIG_IGN);
	if (rt_tsan)
		tap_diag("ThreadSanitizer: FULL and CTRLDEP as processes only, "
			 "OVERWRITE not run (fences, seqlock)");
	for (int i = 0; i < PFR_ORDER__COUNT; i++) {
		enum pfr_ordering o = rt_orders[i];
		int threads = !rt_tsan || o == PFR_ORDER_ACQREL;

		if (threads) {
			run_case(o, PFR_POLICY_DROP, 0, ns, 8192);
			run_case(o, PFR_POLICY_BLOCK, 0, ns, 8192);
		}
		run_case(o, PFR_POLICY_DROP, 1, ns, 65536);
		run_case(o, PFR_POLICY_BLOCK, 1, ns, 4096);
		if (!rt_tsan) {
			run_overwrite(o, ns, 4096);
			run_overwrite(o, ns, 65536);
		}
	}
	return rt_done();
}
