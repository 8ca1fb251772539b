// SPDX-License-Identifier: MIT
/*
 * Crash behaviour (issue 3, point 10; docs/ring-crash.md): a writer or a
 * reader process is SIGKILLed mid-stream.
 *
 * Writer killed: the reader drains what was published, every record
 * intact, then times out in pfr_reader_wait() instead of hanging; a new
 * writer process attaches, continues at the published head (a pending
 * loss count comes out as a LOST record) and the reader goes on.
 *
 * Reader killed: a BLOCK writer that waits for space times out instead of
 * hanging; a new reader attaches at the published tail and gets exactly
 * the records from there: those the dead reader had read but not yet
 * freed with pfr_reader_end() come again (at-least-once), nothing before
 * them, nothing missing after them.
 *
 * Every record carries a sequence number and a checksum.
 */
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

#define MS 1000000ull
/* Loops that wait for the other side to make progress end on a count;
 * this only turns a hang into a failure (a loaded machine is slow, and
 * slowness must not be a verdict). */
#define HANG_GUARD (120000 * MS)
#define EPOCH2 (1ull << 40) /* the second writer's first seq */

/* Written by the child, read by the parent (a MAP_SHARED page). */
struct shared {
	volatile uint64_t read_seq; /* last seq the reader got from next */
	volatile uint64_t ending; /* tail about to be published up to */
	volatile uint64_t ended; /* tail published up to (seq) */
	volatile int64_t nread; /* records read */
	volatile uint64_t wseq; /* writer: next seq when done */
	volatile int holding; /* read, not yet ended, sleeping */
	volatile int ready;
	volatile int bad;
};

static struct shared *sh;

static size_t len_for(uint64_t seq)
{
	return RT_HDR + (size_t)((seq * 2654435761u) % 50) * 8;
}

/* ---- reading with verification ---- */

struct vreader {
	struct pfr_reader r;
	uint64_t expect, lost, records;
	int started, bad;
	uint64_t first_seq, first_pos, first_type, first_lost;
};

/* Drains once; returns records read or -1 on corruption. */
static long vdrain(struct vreader *v)
{
	struct pfr_record rec;
	long n = 0;
	int e;

	if (pfr_reader_begin(&v->r) < 0)
		return v->bad = 1, -1;
	while ((e = pfr_reader_next(&v->r, &rec)) == 1) {
		uint64_t seq;

		if (!v->started) {
			v->started = 1;
			v->first_pos = rec.pos;
			v->first_type = rec.hdr.type;
			v->first_lost = 0;
		}
		if (rec.hdr.type == PFR_RECORD_LOST) {
			uint64_t cnt;

			memcpy(&cnt, (const char *)rec.payload + 8, 8);
			if (!v->first_lost)
				v->first_lost = cnt;
			v->lost += cnt;
			v->expect += cnt;
			continue;
		}
		if (!rt_verify(rec.payload, rec.len, &seq) ||
		    rec.len != len_for(seq)) {
			tap_diag("corrupt record at %llu",
				 (unsigned long long)rec.pos);
			return v->bad = 1, -1;
		}
		if (!v->records)
			v->first_seq = seq;
		else if (seq != v->expect && seq != EPOCH2) {
			tap_diag("seq %llu, want %llu", (unsigned long long)seq,
				 (unsigned long long)v->expect);
			return v->bad = 1, -1;
		}
		v->expect = seq + 1;
		v->records++;
		n++;
	}
	pfr_reader_end(&v->r);
	return e < 0 ? (v->bad = 1, -1) : n;
}

static int write_one(struct pfr_writer *w, uint64_t seq)
{
	size_t len = len_for(seq);
	void *p;
	int err = pfr_writer_reserve(w, 1, len, &p);

	if (err)
		return err;
	rt_stamp(p, len, seq);
	pfr_writer_commit(w);
	return 0;
}

/* A writer process: attaches (by name or fd), writes from seq on; n = 0:
 * forever (until killed), with deferred batches now and then. */
static void writer_child(const char *name, int fd, uint64_t seq, long n)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	uint64_t rnd = seq + 3 + (uint64_t)getpid();

	if ((name ? pfr_ring_attach_shm(&ring, name)
		  : pfr_ring_attach_fd(&ring, fd)) ||
	    pfr_ring_writer(ring, &w))
		_exit(3);
	pfr_writer_set_timeout(&w, 50 * MS);
	sh->ready = 1;
	for (long i = 0; !n || i < n; i++) {
		if (rt_rand(&rnd) % 8 == 0) {
			/* a deferred batch: may die before publishing it */
			for (int k = 0; k < 4; k++) {
				size_t len = len_for(seq);
				void *p;

				if (pfr_writer_reserve(&w, 1, len, &p) == 0) {
					rt_stamp(p, len, seq);
					pfr_writer_commit_deferred(&w);
				}
				seq++;
			}
			pfr_writer_publish(&w);
		} else {
			write_one(&w, seq++);
		}
		if (rt_rand(&rnd) % 64 == 0)
			rt_sleep_ns(20 * 1000);
	}
	for (int i = 0; i < 2000; i++) {
		pfr_writer_flush(&w);
		if (!PFR_READ_ONCE(pfr_ring_ctl(ring)->lost_pending))
			break;
		rt_sleep_ns(1000 * 1000);
	}
	sh->wseq = seq;
	_exit(0);
}

static void test_writer_killed(enum pfr_ordering ord, enum pfr_policy pol)
{
	const char *on = pfr_ordering_name(ord), *pn = pfr_policy_name(pol);
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 16384,
				  .policy = pol,
				  .ordering = ord,
				  .flags = PFR_RING_WAIT,
				  .lost_id = 0x11};
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct vreader v;
	char name[64];
	pid_t pid;
	int st;
	uint64_t t0, dt, head_at_death, pending;
	int64_t got;

	snprintf(name, sizeof(name), "pfr-crash-%d-%d-%d", (int)getpid(), ord,
		 pol);
	pfr_ring_unlink(name);
	if (!ok(pfr_ring_create_shm(&ring, name, &o) == 0, "%s %s: create", on,
		pn))
		return;
	c = pfr_ring_ctl(ring);
	memset(&v, 0, sizeof(v));
	pfr_ring_reader(ring, &v.r);
	memset((void *)sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0)
		writer_child(name, -1, 0, 0);
	/* read a while (slowly enough for the ring to fill), then kill */
	t0 = rt_now_ns();
	while (v.records < 3000 && !v.bad && rt_now_ns() - t0 < HANG_GUARD) {
		pfr_reader_wait(&v.r, 100 * MS);
		vdrain(&v);
		if (pol == PFR_POLICY_BLOCK && v.records % 7 == 0)
			rt_sleep_ns(100 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && v.records >= 3000,
	   "%s %s: writer killed mid-stream after %llu records", on, pn,
	   (unsigned long long)v.records);
	/* the survivor: drains intact records, then times out */
	while (vdrain(&v) > 0)
		;
	ok(!v.bad, "every record up to the published head intact");
	head_at_death = c->head;
	is_uint(v.r.tail, head_at_death, "drained to the published head");
	t0 = rt_now_ns();
	got = pfr_reader_wait(&v.r, 100 * MS);
	dt = rt_now_ns() - t0;
	ok(got == -PFR_E_TIMEDOUT && dt >= 100 * MS,
	   "reader_wait times out, no hang (%.1f ms)", dt / 1e6);
	pending = c->lost_pending;
	/* a new writer process attaches by name and continues */
	v.started = 0;
	pid = fork();
	if (pid == 0)
		writer_child(name, -1, EPOCH2, 2000);
	{
		uint64_t before = v.records;

		/* read until it has finished (a BLOCK writer needs us) */
		t0 = rt_now_ns();
		while (!v.bad && rt_now_ns() - t0 < HANG_GUARD &&
		       waitpid(pid, &st, WNOHANG) == 0) {
			pfr_reader_wait(&v.r, 10 * MS);
			vdrain(&v);
		}
		while (vdrain(&v) > 0)
			;
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "second writer ran");
		ok(v.first_pos == head_at_death ||
			   ((v.first_pos & 16383) == 0 &&
			    v.first_pos - head_at_death < 16384),
		   "it continued at the published head (%llu, head %llu)",
		   (unsigned long long)v.first_pos,
		   (unsigned long long)head_at_death);
		ok(!v.bad && v.expect >= EPOCH2 + 2000 &&
			   v.records - before > 0,
		   "reader went on: %llu new records, %llu reported lost "
		   "(%llu pending at the crash)",
		   (unsigned long long)(v.records - before),
		   (unsigned long long)v.lost, (unsigned long long)pending);
		if (pending)
			ok(v.first_type == PFR_RECORD_LOST &&
				   v.first_lost == pending,
			   "the dead writer's pending loss (%llu) came first, "
			   "as LOST {%llu}",
			   (unsigned long long)pending,
			   (unsigned long long)v.first_lost);
		else
			ok(v.first_type == 1, "first record from the new "
					      "writer (no loss pending)");
		/* the second epoch's accounting is exact from its start */
		is_uint(v.expect, sh->wseq,
			"second writer: every seq read or reported lost");
	}
	pfr_ring_unlink(name);
	pfr_ring_close(ring);
}

/* ---- the reader killed ---- */

static void reader_child(int fd)
{
	struct pfr_ring *ring;
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t rnd = 5 + (uint64_t)getpid();

	if (pfr_ring_attach_fd(&ring, fd) || pfr_ring_reader(ring, &r))
		_exit(3);
	sh->ready = 1;
	for (;;) {
		int k = 1 + (int)(rt_rand(&rnd) % 6), got = 0;

		pfr_reader_wait(&r, 100 * MS);
		if (pfr_reader_begin(&r) <= 0)
			continue;
		while (got < k && pfr_reader_next(&r, &rec) == 1) {
			uint64_t seq;

			if (rec.hdr.type == PFR_RECORD_LOST ||
			    !rt_verify(rec.payload, rec.len, &seq) ||
			    seq != sh->read_seq + (sh->nread ? 1 : 0)) {
				sh->bad = 1;
				continue;
			}
			sh->read_seq = seq;
			sh->nread++;
			got++;
		}
		/* hold what was read for a while before freeing it */
		sh->holding = 1;
		rt_sleep_ns((rt_rand(&rnd) % 400) * 1000);
		sh->holding = 0;
		sh->ending = sh->read_seq;
		pfr_reader_end(&r);
		sh->ended = sh->read_seq;
	}
}

static void test_reader_killed(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 8192,
				  .policy = PFR_POLICY_BLOCK,
				  .ordering = ord,
				  .flags = PFR_RING_WAIT,
				  .lost_id = 0x22};
	struct pfr_ring *ring, *ring2;
	struct pfr_writer w;
	struct vreader v;
	uint64_t seq = 0, t0, dt, published_tail, read_seq, ended, ending;
	int held, st, err, timeouts = 0;
	pid_t pid;

	if (pfr_ring_create_memfd(&ring, &o))
		return (void)ok(0, "create");
	pfr_ring_writer(ring, &w);
	pfr_writer_set_timeout(&w, 2000 * MS);
	memset((void *)sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0)
		reader_child(pfr_ring_fd(ring));
	/* write until the reader has read a good amount, then kill it
	 * while it holds records it has read but not freed */
	t0 = rt_now_ns();
	while (sh->nread < 2000 && rt_now_ns() - t0 < HANG_GUARD)
		if (write_one(&w, seq) == 0)
			seq++;
	t0 = rt_now_ns();
	while (!sh->holding && rt_now_ns() - t0 < 2000 * MS)
		if (write_one(&w, seq) == 0)
			seq++;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	held = sh->holding;
	read_seq = sh->read_seq;
	ending = sh->ending;
	ended = sh->ended;
	ok(WIFSIGNALED(st) && !sh->bad && sh->nread >= 2000,
	   "%s: reader killed after %lld verified records (%s)", on,
	   (long long)sh->nread, held ? "holding records" : "between reads");
	/* the BLOCK writer now fills the ring and must time out */
	pfr_writer_set_timeout(&w, 100 * MS);
	t0 = rt_now_ns();
	for (;;) {
		uint64_t t1 = rt_now_ns();

		err = write_one(&w, seq++);
		dt = rt_now_ns() - t1;
		if (err) {
			timeouts++;
			break;
		}
		if (rt_now_ns() - t0 > HANG_GUARD)
			break;
	}
	ok(err == -PFR_E_TIMEDOUT && dt >= 100 * MS,
	   "BLOCK writer with a dead reader times out (%.1f ms), no hang",
	   dt / 1e6);
	/* a new reader attaches (by fd) at the published tail */
	published_tail = pfr_ring_ctl(ring)->tail;
	if (!ok(pfr_ring_attach_fd(&ring2, pfr_ring_fd(ring)) == 0,
		"new reader attaches"))
		goto out;
	memset(&v, 0, sizeof(v));
	pfr_ring_reader(ring2, &v.r);
	is_uint(v.r.tail, published_tail, "at the published tail");
	vdrain(&v);
	/* exactly from the first record not yet freed */
	ok(v.records > 0 && (v.first_seq == ended + 1 ||
			     (ending != ended && v.first_seq == ending + 1)),
	   "first record: seq %llu (dead reader had read %llu, freed up to "
	   "%llu)",
	   (unsigned long long)v.first_seq, (unsigned long long)read_seq,
	   (unsigned long long)ended);
	if (held)
		ok(v.first_seq <= read_seq && v.first_seq == ended + 1,
		   "records read but not freed are delivered again: %llu "
		   "(at-least-once)",
		   (unsigned long long)(read_seq - v.first_seq + 1));
	else
		tap_diag("killed between reads: nothing held");
	/* the writer goes on; LOST for the time-out comes first */
	pfr_writer_set_timeout(&w, 2000 * MS);
	t0 = rt_now_ns();
	for (int i = 0; i < 500 && !v.bad; i++) {
		while (write_one(&w, seq) != 0 && !v.bad &&
		       rt_now_ns() - t0 < HANG_GUARD)
			vdrain(&v);
		seq++;
		if (i % 16 == 0)
			vdrain(&v);
	}
	pfr_writer_flush(&w);
	while (vdrain(&v) > 0)
		;
	ok(!v.bad && v.expect == seq && v.lost == (uint64_t)timeouts,
	   "new reader continues: up to seq %llu of %llu, %llu lost (writer "
	   "%llu)",
	   (unsigned long long)v.expect, (unsigned long long)seq,
	   (unsigned long long)v.lost, (unsigned long long)pfr_writer_lost(&w));
	is_uint(pfr_writer_lost(&w), v.lost, "loss accounting exact");
	pfr_ring_close(ring2);
out:
	pfr_ring_close(ring);
}

/* A reader killed while asleep in pfr_reader_wait(): the writer must not
 * notice beyond a futex wake per publication; a new reader's wait works. */
static void test_reader_killed_waiting(enum pfr_ordering ord)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_DROP,
				  .ordering = ord,
				  .flags = PFR_RING_WAIT,
				  .lost_id = 0x33};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	pid_t pid;
	int st;
	uint64_t t0, dt;
	int64_t got;

	if (pfr_ring_create_memfd(&ring, &o))
		return (void)ok(0, "create");
	pfr_ring_writer(ring, &w);
	memset((void *)sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0) {
		struct pfr_ring *rr;
		struct pfr_reader cr;

		if (pfr_ring_attach_fd(&rr, pfr_ring_fd(ring)) ||
		    pfr_ring_reader(rr, &cr))
			_exit(3);
		pfr_reader_set_wakeup(&cr, 1000000, 0); /* never met */
		sh->ready = 1;
		pfr_reader_wait(&cr, UINT64_MAX);
		_exit(0);
	}
	t0 = rt_now_ns();
	while (!pfr_ring_ctl(ring)->reader_waiting &&
	       rt_now_ns() - t0 < 2000 * MS)
		rt_sleep_ns(100 * 1000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st), "%s: reader killed asleep in reader_wait",
	   pfr_ordering_name(ord));
	t0 = rt_now_ns();
	{
		uint64_t failed = 0, lost0 = pfr_writer_lost(&w);

		/* a DROP writer never waits: that the loop ends is the
		 * point (no hang waking a dead reader); each record is
		 * written or counted lost */
		for (uint64_t s = 0; s < 100; s++)
			failed += write_one(&w, s) != 0;
		dt = rt_now_ns() - t0;
		ok(failed < 100 && pfr_writer_lost(&w) - lost0 == failed,
		   "the writer goes on: %llu of 100 records written, the "
		   "rest counted lost (%.2f ms)",
		   (unsigned long long)(100 - failed), dt / 1e6);
	}
	pfr_ring_reader(ring, &r);
	pfr_reader_set_wakeup(&r, 0, 0); /* the dead reader's are stale */
	got = pfr_reader_wait(&r, 1000 * MS);
	ok(got > 0, "a new reader's wait returns the data (%lld)",
	   (long long)got);
	pfr_reader_end(&r);
	pfr_ring_close(ring);
}

/* An OVERWRITE writer killed: snapshots stay whole; a new writer resumes
 * at head with the old window, and snapshots go on into its records. */
static int64_t snap_newest(struct pfr_ring *ring, unsigned char *buf,
			   size_t len, int *bad)
{
	int64_t n = pfr_ring_snapshot(ring, buf, len), newest = -1;
	uint64_t p = 0, prev = 0;
	int first = 1;

	if (n == -PFR_E_OVERWRITTEN)
		return -2; /* overwritten while copied: try again */
	if (n < 0)
		return *bad = 1, -1;
	while (p < (uint64_t)n) {
		struct pfr_record_header h;
		uint64_t seq;

		memcpy(&h, buf + p, 8);
		if (h.size < 8 + RT_HDR || p + h.size > (uint64_t)n ||
		    !rt_verify(buf + p + 8, h.size - 8u, &seq) ||
		    (!first && seq != prev + 1 && seq != EPOCH2))
			return *bad = 1, -1;
		first = 0;
		prev = seq;
		newest = (int64_t)seq;
		p += h.size;
	}
	return newest;
}

static void test_overwrite_writer_killed(enum pfr_ordering ord)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 8192,
				  .policy = PFR_POLICY_OVERWRITE,
				  .ordering = ord};
	struct pfr_ring *ring;
	unsigned char buf[8192];
	int bad = 0, st, snaps = 0;
	int64_t newest = -1, n1;
	uint64_t t0;
	pid_t pid;

	if (pfr_ring_create_memfd(&ring, &o))
		return (void)ok(0, "create");
	memset((void *)sh, 0, sizeof(*sh));
	pid = fork();
	if (pid == 0)
		writer_child(NULL, pfr_ring_fd(ring), 0, 0);
	t0 = rt_now_ns();
	while (!bad && rt_now_ns() - t0 < HANG_GUARD && newest < 20000) {
		int64_t nn = snap_newest(ring, buf, sizeof(buf), &bad);

		if (nn >= 0)
			newest = nn, snaps++;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ok(!bad && newest >= 20000,
	   "%s overwrite: writer killed after %lld "
	   "records, %d snapshots whole",
	   pfr_ordering_name(ord), (long long)newest, snaps);
	n1 = snap_newest(ring, buf, sizeof(buf), &bad);
	ok(!bad && n1 >= newest,
	   "snapshot after the crash: whole, newest "
	   "%lld",
	   (long long)n1);
	pid = fork();
	if (pid == 0)
		writer_child(NULL, pfr_ring_fd(ring), EPOCH2, 3);
	waitpid(pid, &st, 0);
	n1 = snap_newest(ring, buf, sizeof(buf), &bad);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !bad &&
		   (uint64_t)n1 >= EPOCH2 + 2 && (uint64_t)n1 == sh->wseq - 1,
	   "a new writer continued: newest %#llx, whole and contiguous",
	   (unsigned long long)n1);
	pfr_ring_close(ring);
}

int main(void)
{
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	signal(SIGPIPE, SIG_IGN);
	/* PFR_LONG=1: kill at more (random) moments */
	for (int rep = 0; rep < (rt_long() ? 8 : 1); rep++) {
		for (int i = 0; i < PFR_ORDER__COUNT; i++) {
			test_writer_killed(rt_orders[i], PFR_POLICY_DROP);
			test_writer_killed(rt_orders[i], PFR_POLICY_BLOCK);
			test_reader_killed(rt_orders[i]);
			test_reader_killed_waiting(rt_orders[i]);
			test_overwrite_writer_killed(rt_orders[i]);
		}
	}
	return rt_done();
}
