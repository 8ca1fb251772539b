// SPDX-License-Identifier: MIT
/*
 * Unit tests for <perfring/group.h>: options, join and leave, a full
 * group, tags, per-writer loss (written = read + lost, with the reader's
 * LOST record for a count a writer leaves behind), unordered and
 * time-ordered drains with writer threads, reclaim of a dead owner (a
 * forked child killed with SIGKILL), the futex wait and the eventfd (in
 * one process and from a child that attaches by memfd and eventfd), a
 * dead reader's role taken over, and hostile headers and directories.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/group.h>

#include "tap.h"

/* Layout facts the hostile tests poke at (src/writers/group.c). */
#define HDR_VERSION 8
#define HDR_NSLOTS 16
#define DIR_OFF 4096
#define ENT_SIZE 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- a checking consumer: per-tag sequence numbers and losses ---- */

#define MAXW 16
struct check {
	uint64_t next[MAXW]; /* next sequence number expected, per tag */
	uint64_t read[MAXW], lost[MAXW];
	uint64_t lost_since[MAXW]; /* lost since the last record */
	uint64_t last_time;
	int bad_seq, bad_sum, bad_order, bad_tag, bad_slot_id;
	int ordered;
};

struct msg {
	uint64_t time;
	uint64_t seq;
	uint64_t tag;
	uint64_t sum;
};

static uint64_t msg_sum(const struct msg *m)
{
	return (m->time * 31 + m->seq) ^ (m->tag * 0x9e3779b97f4a7c15ull);
}

static int consume(void *arg, const struct pfr_group_rec *r)
{
	struct check *c = arg;
	uint64_t t = r->tag;

	if (t >= MAXW) {
		c->bad_tag++;
		return 0;
	}
	if (r->hdr.type == PFR_RECORD_LOST) {
		uint64_t id, n;

		memcpy(&id, r->payload, 8);
		memcpy(&n, (const unsigned char *)r->payload + 8, 8);
		if ((uint32_t)id != r->slot)
			c->bad_slot_id++;
		c->lost[t] += n;
		c->lost_since[t] += n;
		return 0;
	}
	{
		struct msg m;

		if (r->len != sizeof(m)) {
			c->bad_sum++;
			return 0;
		}
		memcpy(&m, r->payload, sizeof(m));
		if (m.tag != t || m.sum != msg_sum(&m))
			c->bad_sum++;
		/* every sequence number is read, or covered by the LOST
		 * counts that came since the last record read */
		if (m.seq != c->next[t] + c->lost_since[t])
			c->bad_seq++;
		c->next[t] = m.seq + 1;
		c->lost_since[t] = 0;
		if (c->ordered) {
			if (r->time != m.time || m.time < c->last_time)
				c->bad_order++;
			c->last_time = m.time;
		}
		c->read[t]++;
	}
	return 0;
}

static int write_msg(struct pfr_writer *w, uint64_t tag, uint64_t seq)
{
	struct msg m;

	m.time = now_ns();
	m.seq = seq;
	m.tag = tag;
	m.sum = msg_sum(&m);
	return pfr_writer_write(w, 1, &m, sizeof(m));
}

/* ---- options ---- */

static void test_opts(void)
{
	struct pfr_group *g = NULL;
	struct pfr_group_opts o;

	memset(&o, 0, sizeof(o));
	o.slots = PFR_GROUP_SLOTS_MAX + 1;
	is_int(pfr_group_create(&g, &o), -PFR_E_INVAL, "4097 slots rejected");
	o.slots = 2;
	o.data_size = 6000;
	is_int(pfr_group_create(&g, &o), -PFR_E_INVAL, "data size not 2^n");
	o.data_size = 0;
	o.policy = PFR_POLICY_OVERWRITE;
	is_int(pfr_group_create(&g, &o), -PFR_E_INVAL, "OVERWRITE rejected");
	o.policy = PFR_POLICY_DROP;
	o.flags = 0x80;
	is_int(pfr_group_create(&g, &o), -PFR_E_INVAL, "unknown flag");
	ok(g == NULL, "failed creations leave the handle alone");
	is_int(pfr_group_create_shm(&g, "a/b", &o), -PFR_E_INVAL,
	       "shm name with a slash");
	memset(&o, 0, sizeof(o));
	if (ok(pfr_group_create(&g, &o) == 0, "defaults")) {
		is_uint(pfr_group_slots(g), 64, "64 slots by default");
		is_int(pfr_group_fd(g), -1, "private memory: no fd");
		is_int(pfr_group_eventfd(g), -1, "no eventfd unless asked");
		is_int(pfr_group_wait(g, 0), -PFR_E_INVAL,
		       "wait before reader_open");
		pfr_group_close(g);
	}
	ok(!strcmp(pfr_strerror(-PFR_E_FULL),
		   "no free writer slot in the group"),
	   "PFR_E_FULL has a message");
}

/* ---- join, leave, full, loss ---- */

static void test_join_leave(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_writer w[4], extra;
	struct check c;
	struct pfr_group_stats st;
	uint64_t written[4] = {0};
	int s;

	memset(&o, 0, sizeof(o));
	o.slots = 3;
	o.data_size = 4096;
	if (!ok(pfr_group_create(&g, &o) == 0, "create 3 slots"))
		return;
	memset(&c, 0, sizeof(c));
	is_int(pfr_group_reader_open(g, 0, NULL, NULL), 0, "reader open");
	is_int(pfr_group_reader_open(g, 0, NULL, NULL), -PFR_E_INVAL,
	       "reader open twice in one handle");
	for (int i = 0; i < 3; i++)
		is_int(pfr_group_join(g, &w[i], (uint64_t)i), i,
		       "join takes the lowest free slot");
	is_int(pfr_group_join(g, &extra, 9), -PFR_E_FULL,
	       "a full group: -PFR_E_FULL, no wait");
	/* writer 0 overfills its 4 KiB ring: DROP counts */
	for (uint64_t q = 0; q < 400; q++)
		written[0]++, write_msg(&w[0], 0, q);
	ok(pfr_writer_lost(&w[0]) > 0, "writer 0 dropped records");
	for (uint64_t q = 0; q < 10; q++)
		written[1]++, write_msg(&w[1], 1, q);
	is_int(pfr_group_drain(g, consume, &c, 0) > 0, 1, "drain");
	/* after the drain there is room: the LOST record goes first */
	for (uint64_t q = 400; q < 410; q++)
		written[0]++, write_msg(&w[0], 0, q);
	/* writer 2 fills its ring and leaves with losses it cannot write
	 * out: the reader's LOST record carries them */
	for (uint64_t q = 0; q < 400; q++)
		written[2]++, write_msg(&w[2], 2, q);
	is_int(pfr_group_leave(g, &w[2]), 0, "leave");
	is_int(pfr_group_leave(g, &w[2]), -PFR_E_INVAL, "leave twice");
	is_int(pfr_group_drain(g, consume, &c, 0) > 0, 1, "drain again");
	pfr_group_stats(g, &st);
	is_uint(st.freed, 1, "the leaver's slot freed once drained");
	s = pfr_group_join(g, &w[3], 3);
	is_int(s, 2, "its slot can be joined again");
	for (uint64_t q = 0; q < 5; q++)
		written[3]++, write_msg(&w[3], 3, q);
	is_int(pfr_group_leave(g, &w[0]), 0, "leave 0");
	is_int(pfr_group_leave(g, &w[1]), 0, "leave 1");
	is_int(pfr_group_leave(g, &w[3]), 0, "leave 3");
	pfr_group_drain(g, consume, &c, 0);
	for (int i = 0; i < 4; i++) {
		char name[80];

		snprintf(name, sizeof(name),
			 "writer %d: %llu written = read + lost", i,
			 (unsigned long long)written[i]);
		is_uint(c.read[i] + c.lost[i], written[i], name);
	}
	ok(c.lost[0] > 0 && c.lost[2] > 0, "losses reported for 0 and 2");
	ok(!c.bad_seq && !c.bad_sum && !c.bad_tag && !c.bad_slot_id,
	   "sequence, checksum, tag and LOST slot ids all right");
	pfr_group_stats(g, &st);
	is_uint(st.active, 0, "no slot held after everyone left");
	is_uint(st.freed, 4, "four slots freed");
	is_int(pfr_group_join(g, &w[0], 0), 0, "slot 0 free again");
	pfr_group_close(g);
}

/* ---- threads: unordered and ordered ---- */

/* ThreadSanitizer does not understand standalone fences (FULL's and
 * CTRLDEP's B and C): under it every threaded run uses ACQREL. */
#if defined(__SANITIZE_THREAD__)
#define GT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GT_TSAN 1
#endif
#endif

struct wctx {
	struct pfr_group *g;
	uint64_t tag, n, written; /* n written, `written` accepted */
	int slot;
	int *stop; /* set when the reader gave up: stop writing */
};

/* Every wait in these tests is bounded: a run that does not finish within
 * this long fails (it never decides a pass). */
#define BOUND_NS (120ull * 1000000000ull)

static void *writer_thread(void *arg)
{
	struct wctx *x = arg;
	struct pfr_writer w;

	x->slot = pfr_group_join(x->g, &w, x->tag);
	if (x->slot < 0)
		return NULL;
	for (uint64_t q = 0; q < x->n; q++) {
		if (__atomic_load_n(x->stop, __ATOMIC_RELAXED))
			break;
		x->written += write_msg(&w, x->tag, q) == 0;
	}
	pfr_group_leave(x->g, &w);
	return NULL;
}

static void run_threads(int ordered, enum pfr_policy pol, int nw,
			enum pfr_ordering ord)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	pthread_t th[MAXW];
	struct wctx x[MAXW];
	static struct check c;
	struct pfr_group_stats st;
	char name[120];
	int all = 1, stop = 0;
	uint64_t deadline;

	memset(&o, 0, sizeof(o));
	o.slots = 8;
	o.data_size = 8192;
	o.policy = pol;
	o.flags = PFR_GROUP_WAIT;
#if defined(GT_TSAN)
	ord = PFR_ORDER_ACQREL;
#endif
	o.ordering = ord;
	if (!ok(pfr_group_create(&g, &o) == 0, "create (%s)",
		pfr_ordering_name(ord)))
		return;
	memset(&c, 0, sizeof(c));
	c.ordered = ordered;
	pfr_group_reader_open(g, ordered, NULL, NULL);
	for (int i = 0; i < nw; i++) {
		x[i].g = g;
		x[i].tag = (uint64_t)i;
		x[i].n = 20000;
		x[i].written = 0;
		x[i].stop = &stop;
		pthread_create(&th[i], NULL, writer_thread, &x[i]);
	}
	/* drain until every writer joined, left and was freed (a BLOCK
	 * writer's reserve times out after 1 s: once stopped, they end) */
	deadline = now_ns() + BOUND_NS;
	for (;;) {
		int64_t n = pfr_group_drain(g, consume, &c, 0);

		pfr_group_stats(g, &st);
		if (n < 0) {
			all = 0;
			break;
		}
		if (st.freed == (uint64_t)nw)
			break;
		if (now_ns() > deadline) {
			ok(0,
			   "all %d slots freed within the bound (%llu freed, "
			   "%llu reclaimed)",
			   nw, (unsigned long long)st.freed,
			   (unsigned long long)st.reclaimed);
			all = 0;
			break;
		}
		pfr_group_wait(g, 10000000);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < nw; i++)
		pthread_join(th[i], NULL);
	pfr_group_drain(g, consume, &c, PFR_GROUP_DRAIN_ALL);
	for (int i = 0; i < nw; i++)
		all &= x[i].slot >= 0 && c.read[i] + c.lost[i] == x[i].n &&
		       c.read[i] == x[i].written;
	snprintf(name, sizeof(name),
		 "%s %s, %d threads: written = read + lost for each",
		 ordered ? "ordered" : "unordered", pfr_policy_name(pol), nw);
	ok(all, "%s", name);
	if (pol == PFR_POLICY_BLOCK)
		for (int i = 0; i < nw; i++)
			is_uint(c.read[i], x[i].n, "BLOCK: nothing lost");
	ok(!c.bad_seq && !c.bad_sum && !c.bad_tag && !c.bad_order,
	   "sequence %d, checksum %d, tag %d, time order %d errors", c.bad_seq,
	   c.bad_sum, c.bad_tag, c.bad_order);
	pfr_group_stats(g, &st);
	if (ordered)
		ok(st.merge_max_queued > 0 && st.merge_queued == 0,
		   "merge queue used, empty at the end (max %llu)",
		   (unsigned long long)st.merge_max_queued);
	pfr_group_close(g);
}

/* ---- a dead owner ---- */

static void test_dead_owner(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_group_stats st;
	struct pfr_writer w;
	struct check c;
	int pfd[2], status;
	pid_t pid;
	char ch;

	memset(&o, 0, sizeof(o));
	o.slots = 1;
	o.data_size = 4096;
	if (!ok(pfr_group_create_memfd(&g, &o) == 0, "memfd group") ||
	    pipe(pfd) < 0)
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_set_reclaim_interval(g, 0);
	pid = fork();
	if (pid == 0) {
		struct pfr_group *cg;
		uint64_t q = 0;

		close(pfd[0]);
		/* it waits for SIGKILL: never outlive a failed parent */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pfr_group_attach_fd(&cg, pfr_group_fd(g), -1) ||
		    pfr_group_join(cg, &w, 5) != 0)
			_exit(2);
		for (; q < 50; q++)
			write_msg(&w, 5, q);
		/* one record reserved, never committed: not published */
		{
			void *p;

			pfr_writer_reserve(&w, 1, 32, &p);
		}
		if (write(pfd[1], "x", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(pfd[1]);
	ok(read(pfd[0], &ch, 1) == 1, "child joined and wrote");
	close(pfd[0]);
	is_int(pfr_group_join(g, &w, 1), -PFR_E_FULL, "the child holds it");
	memset(&c, 0, sizeof(c));
	pfr_group_drain(g, consume, &c, 0);
	pfr_group_stats(g, &st);
	is_uint(st.reclaimed, 0, "a live owner's slot is not reclaimed");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	pfr_group_drain(g, consume, &c, 0);
	pfr_group_stats(g, &st);
	is_uint(st.reclaimed, 1, "a SIGKILLed owner's slot is reclaimed");
	is_uint(c.read[5], 50, "after its 50 published records were read");
	ok(!c.bad_seq && !c.bad_sum, "intact");
	is_int(pfr_group_join(g, &w, 1), 0, "and can be joined again");
	pfr_group_leave(g, &w);
	pfr_group_close(g);
}

/* ---- waiting ---- */

static void *late_writer(void *arg)
{
	struct pfr_group *g = arg;
	struct pfr_writer w;
	struct timespec ts = {0, 20000000};

	nanosleep(&ts, NULL);
	if (pfr_group_join(g, &w, 0) < 0)
		return NULL;
	nanosleep(&ts, NULL);
	write_msg(&w, 0, 0);
	nanosleep(&ts, NULL);
	pfr_group_leave(g, &w);
	return NULL;
}

static void test_wait(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_group_stats st;
	struct check c;
	pthread_t th;
	int woke = 0;
	uint64_t deadline;

	memset(&o, 0, sizeof(o));
	o.slots = 2;
	o.flags = PFR_GROUP_WAIT;
	o.ordering = PFR_ORDER_ACQREL; /* a writer thread: see GT_TSAN */
	if (!ok(pfr_group_create(&g, &o) == 0, "create (WAIT)"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	is_int(pfr_group_wait(g, 1000000), 1,
	       "a new reader has the directory to scan: no sleep");
	pfr_group_drain(g, NULL, NULL, 0);
	is_int(pfr_group_wait(g, 1000000), -PFR_E_TIMEDOUT,
	       "no writer: time-out (-PFR_E_TIMEDOUT, the ring's convention)");
	memset(&c, 0, sizeof(c));
	pthread_create(&th, NULL, late_writer, g);
	/* join, write, leave: each wakes the reader; the time-outs only
	 * guard against a hang */
	deadline = now_ns() + BOUND_NS;
	do {
		int r = pfr_group_wait(g, 30000000000ull);

		woke += r == 1;
		pfr_group_drain(g, consume, &c, 0);
		pfr_group_stats(g, &st);
	} while (st.freed < 1 && now_ns() < deadline);
	pthread_join(th, NULL);
	ok(woke >= 1 && c.read[0] == 1 && st.freed == 1,
	   "the waits were woken: record read, slot freed (%d wake-ups)", woke);
	pfr_group_close(g);
}

static void test_eventfd(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_group_stats st;
	struct pfr_writer w;
	struct check c;
	struct pollfd pf;
	pid_t pid;
	int status, r;

	memset(&o, 0, sizeof(o));
	o.slots = 2;
	o.flags = PFR_GROUP_EVENTFD;
	if (!ok(pfr_group_create_memfd(&g, &o) == 0, "create (EVENTFD)"))
		return;
	ok(pfr_group_eventfd(g) >= 0, "has an eventfd");
	pfr_group_reader_open(g, 0, NULL, NULL);
	memset(&c, 0, sizeof(c));
	/* in one process */
	is_int(pfr_group_join(g, &w, 0), 0, "join");
	pfr_group_drain(g, consume, &c, 0);
	is_int(pfr_group_poll_prepare(g), 0, "armed: nothing pending");
	write_msg(&w, 0, 0);
	pf.fd = pfr_group_eventfd(g);
	pf.events = POLLIN;
	is_int(poll(&pf, 1, 30000), 1, "the write made the eventfd readable");
	pfr_group_poll_done(g);
	pfr_group_drain(g, consume, &c, 0);
	is_uint(c.read[0], 1, "and the record is there");
	write_msg(&w, 0, 1);
	is_int(pfr_group_poll_prepare(g), 1, "pending data: do not poll");
	pfr_group_poll_done(g);
	pfr_group_drain(g, consume, &c, 0);
	pfr_group_leave(g, &w);
	pfr_group_drain(g, consume, &c, 0);
	/* from a child that attaches by memfd and eventfd */
	is_int(pfr_group_poll_prepare(g), 0, "armed again");
	pid = fork();
	if (pid == 0) {
		struct pfr_group *cg;
		struct pfr_writer cw;

		if (pfr_group_attach_fd(&cg, pfr_group_fd(g),
					pfr_group_eventfd(g)) ||
		    pfr_group_join(cg, &cw, 1) < 0)
			_exit(2);
		for (uint64_t q = 0; q < 3; q++)
			write_msg(&cw, 1, q);
		pfr_group_leave(cg, &cw);
		pfr_group_close(cg);
		_exit(0);
	}
	r = poll(&pf, 1, 30000);
	waitpid(pid, &status, 0);
	is_int(r, 1, "a child's join woke the poll");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child ok");
	pfr_group_poll_done(g);
	pfr_group_drain(g, consume, &c, 0);
	pfr_group_drain(g, consume, &c, 0);
	pfr_group_stats(g, &st);
	is_uint(c.read[1], 3, "the child's records");
	is_uint(st.freed, 2, "both slots freed");
	ok(!c.bad_seq && !c.bad_sum, "intact");
	pfr_group_close(g);
}

/* ---- the reader role ---- */

static void test_reader_role(void)
{
	struct pfr_group *g, *g2;
	struct pfr_group_opts o;
	struct pfr_writer w;
	struct check c;
	pid_t pid;
	int status;

	memset(&o, 0, sizeof(o));
	o.slots = 2;
	if (!ok(pfr_group_create_memfd(&g, &o) == 0, "create"))
		return;
	ok(!pfr_group_reader_alive(g), "no reader yet");
	is_int(pfr_group_join(g, &w, 0), 0, "join");
	for (uint64_t q = 0; q < 10; q++)
		write_msg(&w, 0, q);
	pid = fork();
	if (pid == 0) {
		struct pfr_group *cg;
		struct check cc;

		memset(&cc, 0, sizeof(cc));
		if (pfr_group_attach_fd(&cg, pfr_group_fd(g), -1) ||
		    pfr_group_reader_open(cg, 0, NULL, NULL))
			_exit(2);
		pfr_group_drain(cg, consume, &cc, 0);
		_exit(cc.read[0] == 10 ? 0 : 3);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a child reader read 10");
	ok(!pfr_group_reader_alive(g), "it is dead now");
	for (uint64_t q = 10; q < 15; q++)
		write_msg(&w, 0, q);
	is_int(pfr_group_attach_fd(&g2, pfr_group_fd(g), -1), 0, "attach");
	is_int(pfr_group_reader_open(g2, 0, NULL, NULL), 0,
	       "a dead reader's role is taken over");
	ok(pfr_group_reader_alive(g), "alive again");
	is_int(pfr_group_reader_open(g, 0, NULL, NULL), -PFR_E_BUSY,
	       "a live reader's role is not");
	memset(&c, 0, sizeof(c));
	c.next[0] = 10;
	pfr_group_drain(g2, consume, &c, 0);
	ok(c.read[0] == 5 && !c.bad_seq,
	   "the new reader resumes at the published tail");
	pfr_group_leave(g, &w);
	pfr_group_close(g2);
	pfr_group_close(g);
}

/* ---- hostile headers and directories ---- */

static unsigned char *map_fd(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void test_hostile(void)
{
	struct pfr_group *g, *g2;
	struct pfr_group_opts o;
	struct pfr_writer w;
	struct pfr_group_stats st;
	unsigned char *m;
	uint64_t word, rings_off = 4096 + 4096, stride = 4096 + 4096;
	uint32_t v32;
	int fd;

	memset(&o, 0, sizeof(o));
	o.slots = 4;
	o.data_size = 4096;
	if (!ok(pfr_group_create_memfd(&g, &o) == 0, "create"))
		return;
	fd = pfr_group_fd(g);
	m = map_fd(fd, 4096 + 4096 + 4 * stride);
	if (!ok(m != NULL, "map the object raw"))
		return;
	/* header: version, slot count */
	v32 = 99;
	memcpy(m + HDR_VERSION, &v32, 4);
	is_int(pfr_group_attach_fd(&g2, fd, -1), -PFR_E_VERSION,
	       "another version is rejected");
	v32 = 1;
	memcpy(m + HDR_VERSION, &v32, 4);
	v32 = 0;
	memcpy(m + HDR_NSLOTS, &v32, 4);
	is_int(pfr_group_attach_fd(&g2, fd, -1), -PFR_E_LAYOUT,
	       "0 slots is a layout error");
	v32 = 4000;
	memcpy(m + HDR_NSLOTS, &v32, 4);
	is_int(pfr_group_attach_fd(&g2, fd, -1), -PFR_E_LAYOUT,
	       "slot count that does not match the sizes");
	v32 = 4;
	memcpy(m + HDR_NSLOTS, &v32, 4);
	m[0] ^= 1;
	is_int(pfr_group_attach_fd(&g2, fd, -1), -PFR_E_MAGIC, "bad magic");
	m[0] ^= 1;
	{
		int small = memfd_create("small", 0);

		if (small >= 0 && ftruncate(small, 8192) == 0) {
			unsigned char *s = map_fd(small, 8192);

			if (s) {
				memcpy(s, m, 4096);
				munmap(s, 8192);
			}
			is_int(pfr_group_attach_fd(&g2, small, -1),
			       -PFR_E_MAPPING, "object smaller than it says");
		}
		if (small >= 0)
			close(small);
	}
	pfr_group_reader_open(g, 0, NULL, NULL);
	/* garbage state in slot 0 */
	word = 0x77;
	memcpy(m + DIR_OFF, &word, 8);
	v32 = 1; /* hint: slot 0 was claimed */
	memcpy(m + 256 + 8, &v32, 4);
	m[256] ^= 0x40; /* changes: rescan */
	is_int(pfr_group_drain(g, NULL, NULL, 0), -PFR_E_LAYOUT,
	       "garbage slot state: -PFR_E_LAYOUT");
	is_int(pfr_group_drain(g, NULL, NULL, 0), 0, "reported once");
	/* slot 1: ACTIVE with owner pid 0 */
	is_int(pfr_group_join(g, &w, 0), 1, "slot 0 is not free: join gets 1");
	pfr_group_leave(g, &w);
	pfr_group_drain(g, NULL, NULL, 0);
	word = 2 | (5u << 8); /* ACTIVE, gen 5, pid 0 */
	memcpy(m + DIR_OFF + ENT_SIZE, &word, 8);
	m[256] ^= 0x40;
	is_int(pfr_group_drain(g, NULL, NULL, 0), -PFR_E_LAYOUT,
	       "an active slot with owner pid 0: -PFR_E_LAYOUT");
	/* slot 2: a ring whose sizes lie */
	is_int(pfr_group_join(g, &w, 0), 2, "join slot 2");
	{
		uint64_t big = 1ull << 20;

		memcpy(m + rings_off + 2 * stride + 24, &big, 8);
	}
	m[256] ^= 0x40;
	is_int(pfr_group_drain(g, NULL, NULL, 0), -PFR_E_LAYOUT,
	       "a ring with a lying data_size: -PFR_E_LAYOUT");
	/* slot 3: a head far ahead */
	is_int(pfr_group_join(g, &w, 0), 3, "join slot 3");
	pfr_group_drain(g, NULL, NULL, 0);
	{
		uint64_t head = 1ull << 40;

		memcpy(m + rings_off + 3 * stride + 128, &head, 8);
	}
	is_int(pfr_group_drain(g, NULL, NULL, 0), -PFR_E_HEAD_AHEAD,
	       "a head far ahead: the ring's own error");
	is_int(pfr_group_drain(g, NULL, NULL, 0), 0, "then ignored");
	pfr_group_stats(g, &st);
	is_uint(st.bad_slots, 4, "four hostile slots counted");
	is_int(pfr_group_join(g, &w, 0), -PFR_E_FULL, "no free slot is left");
	munmap(m, 4096 + 4096 + 4 * stride);
	pfr_group_close(g);
}

/* An active slot that names another, live process (pid 1) with a start
 * time that is not that process's: a reused pid, treated as a dead owner -
 * drained and reclaimed, never trusted. */
static void test_foreign_owner(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_group_stats st;
	struct pfr_writer w;
	unsigned char *m;
	uint64_t word, start = 12345;
	int fd;

	memset(&o, 0, sizeof(o));
	o.slots = 1;
	o.data_size = 4096;
	if (!ok(pfr_group_create_memfd(&g, &o) == 0, "create"))
		return;
	fd = pfr_group_fd(g);
	m = map_fd(fd, 4096 * 3);
	if (!ok(m != NULL, "map the object raw"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_set_reclaim_interval(g, 0);
	is_int(pfr_group_join(g, &w, 0), 0, "join");
	/* the slot now claims pid 1, with a start time pid 1 does not have */
	word = 2 | (1u << 8) | (1ull << 32);
	memcpy(m + DIR_OFF + 8, &start, 8);
	memcpy(m + DIR_OFF, &word, 8);
	m[256] ^= 0x40;
	is_int(pfr_group_drain(g, NULL, NULL, 0), 0, "drained");
	pfr_group_stats(g, &st);
	is_uint(st.reclaimed, 1,
		"another process's pid, wrong start: "
		"reclaimed as a dead owner");
	is_int(pfr_group_join(g, &w, 0), 0, "the slot can be joined again");
	munmap(m, 4096 * 3);
	pfr_group_close(g);
}

/* A writer that goes on writing after it left (a copy of its handle kept
 * past pfr_group_leave()): one drain call still returns, and the slot is
 * freed only once it stops. */
struct zombie {
	struct check c;
	struct pfr_writer w; /* the copy */
	uint64_t seq, budget;
};

static int zombie_consume(void *arg, const struct pfr_group_rec *r)
{
	struct zombie *z = arg;

	if (z->budget) {
		z->budget--;
		write_msg(&z->w, 0, z->seq++);
	}
	return consume(&z->c, r);
}

static void test_write_after_leave(void)
{
	struct pfr_group *g;
	struct pfr_group_opts o;
	struct pfr_group_stats st;
	struct pfr_writer w;
	static struct zombie z;
	int64_t n;

	memset(&o, 0, sizeof(o));
	o.slots = 1;
	o.data_size = 4096;
	if (!ok(pfr_group_create(&g, &o) == 0, "create"))
		return;
	memset(&z, 0, sizeof(z));
	pfr_group_reader_open(g, 0, NULL, NULL);
	is_int(pfr_group_join(g, &w, 0), 0, "join");
	for (; z.seq < 20; z.seq++)
		write_msg(&w, 0, z.seq);
	z.w = w;
	is_int(pfr_group_leave(g, &w), 0, "leave (a copy of the handle kept)");
	z.budget = 1000000; /* a record written for every record read */
	n = pfr_group_drain(g, zombie_consume, &z, 0);
	pfr_group_stats(g, &st);
	ok(n > 0 && z.budget > 0 && st.freed == 0,
	   "a drain returns while the left writer goes on (%lld read, "
	   "slot not freed)",
	   (long long)n);
	z.budget = 0; /* it stops */
	for (int i = 0; i < 100 && st.freed == 0; i++) {
		pfr_group_drain(g, zombie_consume, &z, 0);
		pfr_group_stats(g, &st);
	}
	is_uint(st.freed, 1, "freed once it stopped and was drained");
	ok(!z.c.bad_seq && !z.c.bad_sum && z.c.read[0] + z.c.lost[0] == z.seq,
	   "every record read or counted lost (%llu + %llu of %llu)",
	   (unsigned long long)z.c.read[0], (unsigned long long)z.c.lost[0],
	   (unsigned long long)z.seq);
	pfr_group_close(g);
}

int main(void)
{
	test_opts();
	test_join_leave();
	run_threads(0, PFR_POLICY_DROP, 3, PFR_ORDER_FULL);
	run_threads(1, PFR_POLICY_DROP, 3, PFR_ORDER_ACQREL);
	run_threads(0, PFR_POLICY_BLOCK, 4, PFR_ORDER_CTRLDEP);
	run_threads(1, PFR_POLICY_BLOCK, 4, PFR_ORDER_ACQREL);
	test_dead_owner();
	test_wait();
	test_eventfd();
	test_reader_role();
	test_hostile();
	test_foreign_owner();
	test_write_after_leave();
	return tap_done();
}
