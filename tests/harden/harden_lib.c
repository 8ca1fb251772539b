/* SPDX-License-Identifier: MIT */
/*
 * The library under attack (tests/harden/t_harden_lib.sh builds and runs
 * it, TAP):
 *
 *   lost      a writer killed between the reserve that carries its
 *             pending LOST record and the commit: the count still
 *             reaches the reader (a single ring: through the next writer;
 *             a group: through the reader's reclaim of the dead slot)
 *   emfile    a reader out of file descriptors takes no live writer for
 *             a dead one: a group slot is not reclaimed, a shared-ring
 *             producer's reserved record is not skipped
 *   eventfd   pfr_group_attach_fd() refuses an "eventfd" that is not one
 *             and never writes over the group
 *   merge     the merge queue's cap: pushes past it fail with
 *             -PFR_E_NOSPC, nothing queued is lost; an ordered group
 *             reader with an idle writer stops queueing at the cap
 *   queue-rss N
 *             not a test: the peak resident size of an ordered reader
 *             with one idle writer while another writes N records
 *
 * With no argument, all of them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/merge.h>
#include <perfring/mpsc.h>
#include <perfring/ring.h>

#include "tap.h"

#define NDROPS 10

/* ---- helpers ---- */

static void put(int fd, uint64_t v)
{
	if (write(fd, &v, sizeof(v)) != sizeof(v))
		_exit(90);
}

static uint64_t get(int fd)
{
	uint64_t v = ~0ull;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ull;
	return v;
}

/* Fills a DROP writer's ring with 64-byte records, then drops NDROPS
 * more; returns how many went in. */
static uint64_t fill_and_drop(struct pfr_writer *w)
{
	unsigned char buf[56];
	uint64_t n = 0;
	int drops = 0;

	memset(buf, 0x5a, sizeof(buf));
	while (drops < NDROPS) {
		memcpy(buf, &n, 8);
		if (pfr_writer_write(w, 1, buf, sizeof(buf)) == 0)
			n++;
		else
			drops++;
	}
	return n;
}

/* The child's end: reserve (the slow path writes the pending LOST record
 * in front of the reservation), then die before the commit. */
static void reserve_and_die(struct pfr_writer *w)
{
	void *p;

	if (pfr_writer_reserve(w, 1, 56, &p) != 0)
		_exit(91);
	memset(p, 0x77, 56);
	kill(getpid(), SIGKILL);
	_exit(92);
}

struct tally {
	uint64_t records, lost, lost_records;
};

static void count_rec(struct tally *t, uint32_t type, const void *payload,
		      uint32_t len)
{
	if (type == PFR_RECORD_LOST && len >= 16) {
		uint64_t n;

		memcpy(&n, (const unsigned char *)payload + 8, 8);
		t->lost += n;
		t->lost_records++;
	} else {
		t->records++;
	}
}

static int64_t drain_ring(struct pfr_reader *r, struct tally *t)
{
	struct pfr_record rec;
	int64_t n = 0;
	int rc;

	pfr_reader_begin(r);
	while ((rc = pfr_reader_next(r, &rec)) == 1) {
		count_rec(t, rec.hdr.type, rec.payload, rec.len);
		n++;
	}
	pfr_reader_end(r);
	return rc < 0 ? rc : n;
}

static int group_cb(void *arg, const struct pfr_group_rec *rec)
{
	count_rec(arg, rec->hdr.type, rec->payload, rec->len);
	return 0;
}

/* ---- lost: a kill between reserve and commit ---- */

static void lost_ring(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_DROP,
				  .lost_id = 7};
	struct pfr_ring *ring;
	struct pfr_reader r;
	struct pfr_writer w;
	struct tally t = {0};
	int c2p[2], p2c[2], st;
	uint64_t wrote;
	pid_t pid;

	if (!ok(pfr_ring_create_memfd(&ring, &o) == 0 &&
			pfr_ring_reader(ring, &r) == 0 && pipe(c2p) == 0 &&
			pipe(p2c) == 0,
		"ring: create"))
		return;
	pid = fork();
	if (pid == 0) {
		if (pfr_ring_writer(ring, &w))
			_exit(93);
		put(c2p[1], fill_and_drop(&w));
		get(p2c[0]);
		reserve_and_die(&w);
	}
	wrote = get(c2p[0]);
	drain_ring(&r, &t);
	put(p2c[1], 1);
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	   "ring: writer killed after its reserve, before its commit");
	/* the next writer continues the ring, and reports the count */
	if (ok(pfr_ring_writer(ring, &w) == 0, "ring: a new writer")) {
		uint64_t v = 0;

		pfr_writer_write(&w, 1, &v, 8);
		pfr_writer_flush(&w);
	}
	drain_ring(&r, &t);
	is_uint(t.records, wrote + 1, "ring: every committed record read");
	ok(t.lost == NDROPS,
	   "ring: the %d drops of the killed writer are reported (got %llu)",
	   NDROPS, (unsigned long long)t.lost);
	/* A writer killed after publishing its LOST record but before
	 * clearing lost_pending leaves the count behind, with lost_end (the
	 * record's end) at or below head: the next writer must see that it
	 * was delivered. */
	PFR_WRITE_ONCE(pfr_ring_ctl(ring)->lost_end,
		       PFR_READ_ONCE(pfr_ring_ctl(ring)->head));
	PFR_WRITE_ONCE(pfr_ring_ctl(ring)->lost_pending, NDROPS);
	if (ok(pfr_ring_writer(ring, &w) == 0, "ring: a third writer")) {
		uint64_t v = 1;

		pfr_writer_write(&w, 1, &v, 8);
		pfr_writer_flush(&w);
	}
	drain_ring(&r, &t);
	ok(t.lost == NDROPS && t.records == wrote + 2,
	   "ring: a count left behind its published LOST record is not "
	   "reported twice (lost %llu, records %llu)",
	   (unsigned long long)t.lost, (unsigned long long)t.records);
	pfr_ring_close(ring);
}

static void lost_group(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP};
	struct pfr_group_stats gs;
	struct pfr_group *g;
	struct pfr_writer w;
	struct tally t = {0};
	int c2p[2], p2c[2], st;
	uint64_t wrote;
	pid_t pid;

	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 0, NULL, NULL) == 0 &&
			pipe(c2p) == 0 && pipe(p2c) == 0,
		"group: create"))
		return;
	pid = fork();
	if (pid == 0) {
		if (pfr_group_join(g, &w, 1) < 0)
			_exit(93);
		put(c2p[1], fill_and_drop(&w));
		get(p2c[0]);
		reserve_and_die(&w);
	}
	wrote = get(c2p[0]);
	pfr_group_drain(g, group_cb, &t, 0);
	put(p2c[1], 1);
	waitpid(pid, &st, 0);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
	   "group: writer killed after its reserve, before its commit");
	pfr_group_set_reclaim_interval(g, 0);
	for (int i = 0; i < 100; i++) {
		pfr_group_drain(g, group_cb, &t, 0);
		pfr_group_stats(g, &gs);
		if (gs.reclaimed)
			break;
	}
	is_uint(gs.reclaimed, 1, "group: the dead writer's slot reclaimed");
	is_uint(t.records, wrote, "group: every committed record read");
	ok(t.lost == NDROPS,
	   "group: the %d drops of the killed writer are reported (got %llu)",
	   NDROPS, (unsigned long long)t.lost);
	is_uint(gs.lost, NDROPS, "group: stats.lost agrees");
	pfr_group_close(g);
}

/* ---- emfile: a reader out of file descriptors ---- */

/* Uses up this process's file descriptors: a low limit, then dups. */
static void exhaust_fds(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = 64;
	setrlimit(RLIMIT_NOFILE, &rl);
	while (dup(0) >= 0 || errno != EMFILE)
		if (errno == EBADF)
			break;
}

static int emfile_fds_gone(void)
{
	int fd = open("/proc/self/stat", O_RDONLY);

	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == EMFILE;
}

static void emfile_group(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP};
	struct pfr_group *g;
	struct pfr_writer w;
	int c2p[2], p2c[2], st;
	pid_t wp, rp;

	if (!ok(pfr_group_create(&g, &o) == 0 && pipe(c2p) == 0 &&
			pipe(p2c) == 0,
		"group: create"))
		return;
	wp = fork();
	if (wp == 0) {
		/* a live writer: 11 records, then it waits */
		if (pfr_group_join(g, &w, 1) < 0)
			_exit(93);
		for (uint64_t i = 0; i < 11; i++)
			pfr_writer_write(&w, 1, &i, 8);
		pfr_writer_flush(&w);
		put(c2p[1], 11);
		get(p2c[0]);
		pfr_group_leave(g, &w);
		_exit(0);
	}
	get(c2p[0]);
	rp = fork();
	if (rp == 0) {
		struct pfr_group_stats gs;
		struct tally t = {0};

		if (pfr_group_reader_open(g, 0, NULL, NULL))
			_exit(10);
		pfr_group_set_reclaim_interval(g, 0);
		exhaust_fds();
		if (!emfile_fds_gone())
			_exit(11);
		for (int i = 0; i < 20; i++)
			pfr_group_drain(g, group_cb, &t, 0);
		pfr_group_stats(g, &gs);
		if (gs.reclaimed)
			_exit(12); /* the live writer taken for dead */
		if (t.records != 11 || gs.active != 1)
			_exit(13);
		_exit(0);
	}
	waitpid(rp, &st, 0);
	put(p2c[1], 1);
	waitpid(wp, NULL, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) != 10 && WEXITSTATUS(st) != 11,
	   "group: the reader ran out of file descriptors (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(WIFEXITED(st) && WEXITSTATUS(st) != 12,
	   "group: a live writer's slot is not reclaimed by a reader with "
	   "no file descriptor left");
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "group: its 11 records delivered, the slot still held (status %d)",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	pfr_group_close(g);
}

/* hole: the producer holds a reservation it has taken (announcement, CAS
 * on prod_pos) but not written (its header zero), which the reader sizes
 * from the announcements; otherwise a BUSY record. */
static void emfile_mpsc(int hole)
{
	struct pfr_mpsc_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_DROP,
				  .max_producers = 4};
	struct pfr_mpsc *m;
	int c2p[2], p2c[2], st;
	pid_t wp, rp;

	if (!ok(pfr_mpsc_create(&m, &o) == 0 && pipe(c2p) == 0 &&
			pipe(p2c) == 0,
		"mpsc: create"))
		return;
	wp = fork();
	if (wp == 0) {
		/* a live producer holding a reserved record */
		struct pfr_mpsc_producer p;
		void *pl;

		if (pfr_mpsc_join(m, &p))
			_exit(93);
		if (hole) {
			uint64_t pos = PFR_READ_ONCE(p.ctl->prod_pos);

			pfr__mpsc_announce(&p, pos, pos + 16);
			if (!pfr__mpsc_cas_release(&p.ctl->prod_pos, &pos,
						   pos + 16))
				_exit(93);
			put(c2p[1], 1);
			get(p2c[0]);
			_exit(0);
		}
		if (pfr_mpsc_reserve(&p, 1, 8, &pl) != 0)
			_exit(93);
		memset(pl, 0x11, 8);
		put(c2p[1], 1);
		get(p2c[0]);
		pfr_mpsc_commit(&p);
		pfr_mpsc_leave(&p);
		_exit(0);
	}
	get(c2p[0]);
	rp = fork();
	if (rp == 0) {
		struct pfr_mpsc_reader r;
		struct pfr_mpsc_stats ms;
		struct pfr_record rec;
		int stalled = 0, got = 0, rc;

		if (pfr_mpsc_reader(m, &r))
			_exit(10);
		pfr_mpsc_set_stall(&r, 1000000); /* 1 ms */
		exhaust_fds();
		if (!emfile_fds_gone())
			_exit(11);
		for (int i = 0; i < 50; i++) {
			pfr_mpsc_begin(&r);
			while ((rc = pfr_mpsc_next(&r, &rec)) == 1)
				got++;
			pfr_mpsc_end(&r);
			if (rc == -PFR_E_STALLED)
				stalled++;
			usleep(1000);
		}
		pfr_mpsc_stats(m, &r, &ms);
		if (ms.dead_skipped || got)
			_exit(12); /* the live producer's record skipped */
		if (!stalled)
			_exit(13);
		_exit(0);
	}
	waitpid(rp, &st, 0);
	put(p2c[1], 1);
	waitpid(wp, NULL, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) != 10 && WEXITSTATUS(st) != 11,
	   "mpsc%s: the reader ran out of file descriptors (status %d)",
	   hole ? " (unwritten reservation)" : "",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "mpsc%s: a live producer's reserved record is not skipped, the "
	   "reader reports the stall (status %d)",
	   hole ? " (unwritten reservation)" : "",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	pfr_mpsc_close(m);
}

/* ---- eventfd: a wrong one is refused ---- */

static void eventfd_check(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP,
				   .flags = PFR_GROUP_EVENTFD};
	struct pfr_group *g, *g2;
	struct pfr_writer w;
	int fd, pp[2], efd, rc;

	if (!ok(pfr_group_create_memfd(&g, &o) == 0 && pipe(pp) == 0,
		"eventfd: create a memfd group"))
		return;
	fd = pfr_group_fd(g);
	is_int(pfr_group_attach_fd(&g2, fd, fd), -PFR_E_INVAL,
	       "eventfd: the group's own memfd as the eventfd is refused");
	is_int(pfr_group_attach_fd(&g2, fd, pp[1]), -PFR_E_INVAL,
	       "eventfd: a pipe as the eventfd is refused");
	is_int(pfr_group_attach_fd(&g2, fd, pp[0]), -PFR_E_INVAL,
	       "eventfd: a pipe's read end is refused");
	/* a real eventfd of another group is an eventfd: accepted */
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rc = pfr_group_attach_fd(&g2, fd, efd);
	is_int(rc, 0, "eventfd: an eventfd is accepted");
	if (rc == 0)
		pfr_group_close(g2);
	/* the group is intact: a writer attached with the real eventfd
	 * joins, wakes a polling reader, and another attach still works */
	rc = pfr_group_attach_fd(&g2, fd, pfr_group_eventfd(g));
	is_int(rc, 0, "eventfd: the group's eventfd is accepted");
	if (rc == 0) {
		ok(pfr_group_reader_open(g, 0, NULL, NULL) == 0 &&
			   pfr_group_poll_prepare(g) >= 0,
		   "eventfd: reader armed for poll");
		ok(pfr_group_join(g2, &w, 3) >= 0, "eventfd: a writer joins");
		pfr_group_poll_done(g);
		pfr_group_close(g2);
	}
	rc = pfr_group_attach_fd(&g2, fd, -1);
	is_int(rc, 0, "eventfd: the group's header intact afterwards");
	if (rc == 0)
		pfr_group_close(g2);
	close(efd);
	close(pp[0]);
	close(pp[1]);
	pfr_group_close(g);
}

/* ---- merge: the queue's cap ---- */

static int count_merge(void *arg, const struct pfr_merge_rec *r)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

static void merge_cap(void)
{
	struct pfr_record_header h = {.type = 1, .size = 64};
	struct pfr_merge_stats ms;
	struct pfr_merge *m;
	unsigned char buf[56] = {0};
	uint64_t pushed = 0, got = 0;
	int rc = 0;

	if (!ok(pfr_merge_create(&m, 1) == 0 &&
			pfr_merge_set_max_bytes(m, 1 << 20) == 0,
		"merge: create, cap 1 MiB"))
		return;
	while (pushed < 100000 &&
	       (rc = pfr_merge_push(m, &h, buf, 56, pushed, 0)) == 0)
		pushed++;
	is_int(rc, -PFR_E_NOSPC, "merge: a push past the cap: -PFR_E_NOSPC");
	pfr_merge_stats(m, &ms);
	ok(ms.queued == pushed && ms.max_queued_bytes + pushed * 64 <= 1 << 20,
	   "merge: %llu records queued, %llu bytes + their index within the "
	   "cap",
	   (unsigned long long)ms.queued,
	   (unsigned long long)ms.max_queued_bytes);
	is_int(pfr_merge_flush_all(m, count_merge, &got), (long long)pushed,
	       "merge: every queued record delivered");
	is_int(pfr_merge_push(m, &h, buf, 56, pushed, 0), 0,
	       "merge: pushes again after a flush");
	pfr_merge_destroy(m);
}

struct gq_writer {
	struct pfr_group *g;
	uint64_t n, written, lost;
};

/* An ordered group reader with one idle joined writer: the busy writer's
 * records can never be delivered in order.  The queue must stop at its
 * default cap with -PFR_E_NOSPC, and once the idle writer leaves every
 * record is delivered or counted lost. */
static void group_queue_cap(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 1 << 20,
				   .policy = PFR_POLICY_DROP};
	struct pfr_group_stats gs;
	struct pfr_group *g;
	struct pfr_writer idle, busy;
	struct tally t = {0};
	unsigned char buf[248];
	uint64_t written = 0, attempted = 0;
	int64_t rc = 0;
	int nospc = 0;

	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 1, NULL, NULL) == 0 &&
			pfr_group_join(g, &idle, 1) >= 0 &&
			pfr_group_join(g, &busy, 2) >= 0,
		"group queue: create, ordered reader, two writers"))
		return;
	memset(buf, 0, sizeof(buf));
	/* 400,000 records of 256 bytes (98 MiB): past the 64 MiB cap */
	while (attempted < 400000) {
		for (int k = 0; k < 1000; k++, attempted++) {
			uint64_t time = attempted + 1;

			memcpy(buf, &time, 8);
			if (pfr_writer_write(&busy, 1, buf, sizeof(buf)) == 0)
				written++;
		}
		rc = pfr_group_drain(g, group_cb, &t, 0);
		if (rc == -PFR_E_NOSPC)
			nospc++;
		else if (rc < 0)
			break;
	}
	pfr_group_stats(g, &gs);
	ok(nospc > 0,
	   "group queue: the drain reports -PFR_E_NOSPC at the cap "
	   "(%d times)",
	   nospc);
	ok(gs.merge_max_queued_bytes + gs.merge_max_queued * 64 <=
		   PFR_GROUP_QUEUE_MAX_DEFAULT,
	   "group queue: at most %llu MiB queued (%llu bytes, %llu records)",
	   PFR_GROUP_QUEUE_MAX_DEFAULT >> 20,
	   (unsigned long long)gs.merge_max_queued_bytes,
	   (unsigned long long)gs.merge_max_queued);
	is_int(t.records, 0, "group queue: nothing delivered out of order");
	pfr_writer_flush(&busy);
	pfr_group_leave(g, &idle);
	for (int i = 0; i < 10000; i++) {
		rc = pfr_group_drain(g, group_cb, &t, 0);
		if (rc <= 0 && rc != -PFR_E_NOSPC && i > 2)
			break;
	}
	pfr_group_leave(g, &busy);
	for (int i = 0; i < 100; i++)
		pfr_group_drain(g, group_cb, &t, PFR_GROUP_DRAIN_ALL);
	ok(t.records == written && t.records + t.lost == attempted,
	   "group queue: once the idle writer left, every record delivered "
	   "or counted lost (read %llu + lost %llu of %llu, %llu written)",
	   (unsigned long long)t.records, (unsigned long long)t.lost,
	   (unsigned long long)attempted, (unsigned long long)written);
	pfr_group_close(g);
}

/* queue-rss N: the figure behind the cap - an ordered reader with one
 * idle writer while another writes N records of 256 bytes (one drain per
 * 1,000): its peak resident size and the queue's peak. */
static int queue_rss(uint64_t n)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 1 << 20,
				   .policy = PFR_POLICY_DROP};
	struct pfr_group_stats gs;
	struct pfr_group *g;
	struct pfr_writer idle, busy;
	struct tally t = {0};
	struct rusage ru;
	unsigned char buf[248] = {0};
	int nospc = 0;

	if (pfr_group_create(&g, &o) ||
	    pfr_group_reader_open(g, 1, NULL, NULL) ||
	    pfr_group_join(g, &idle, 1) < 0 || pfr_group_join(g, &busy, 2) < 0)
		return 1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t time = i + 1;

		memcpy(buf, &time, 8);
		pfr_writer_write(&busy, 1, buf, sizeof(buf));
		if (i % 1000 == 999 &&
		    pfr_group_drain(g, group_cb, &t, 0) == -PFR_E_NOSPC)
			nospc++;
	}
	pfr_group_stats(g, &gs);
	getrusage(RUSAGE_SELF, &ru);
	printf("records %llu queued_max %llu (%llu bytes) nospc %d "
	       "maxrss_kib %ld\n",
	       (unsigned long long)n, (unsigned long long)gs.merge_max_queued,
	       (unsigned long long)gs.merge_max_queued_bytes, nospc,
	       ru.ru_maxrss);
	pfr_group_close(g);
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "all";
	int all = !strcmp(what, "all");

	signal(SIGPIPE, SIG_IGN);
	if (argc > 2 && !strcmp(what, "queue-rss"))
		return queue_rss(strtoull(argv[2], NULL, 10));
	if (all || !strcmp(what, "lost")) {
		lost_ring();
		lost_group();
	}
	if (all || !strcmp(what, "emfile")) {
		emfile_group();
		emfile_mpsc(0);
		emfile_mpsc(1);
	}
	if (all || !strcmp(what, "eventfd"))
		eventfd_check();
	if (all || !strcmp(what, "merge")) {
		merge_cap();
		group_queue_cap();
	}
	return tap_done();
}
