/* SPDX-License-Identifier: MIT */
/*
 * The conventions of docs/api.md, run against each family that has the
 * operation: the ring (<perfring/ring.h>), the group (<perfring/group.h>),
 * the shared ring (<perfring/mpsc.h>) and, for the callback rule, the
 * session (<perfring/session.h>, over a fake perf ring in memory).
 *
 *  1. errors: negative PFR_E_* codes, each named by pfr_strerror(); a
 *     failed system call is -PFR_E_SYSTEM with errno the call's own
 *     (EBADF, ENOENT, EEXIST), however the function cleaned up after it;
 *  2. the callback stop rule: 0 goes on, nonzero stops after the record
 *     (consumed), a negative value is returned, after a positive one a
 *     count-returning call returns the records delivered so far and a
 *     session call returns the value (the group's and the session's
 *     callbacks used to ignore a positive value: the README's group
 *     example, whose callback returns 1 on failure, did not stop);
 *  3. join returns the slot (>= 0), "no free slot" is -PFR_E_FULL, leave
 *     returns 0 or -PFR_E_INVAL (the shared ring's join returned 0 and
 *     -PFR_E_BUSY, its leave nothing);
 *  4. wait: > 0 when there is something to read, -PFR_E_TIMEDOUT on a
 *     time-out (the group's returned 0);
 *  5. attach limits: an options struct with sz (struct
 *     pfr_ring_attach_opts) for all three, -PFR_E_TOOBIG past the limit,
 *     -PFR_E_INVAL for an sz too small or an unknown nonzero field;
 *  6. one name, one thing: the control-block and reader-open functions
 *     under names no struct has; named constants for the group's mode;
 *  7. a pollable fd (the ring's and the group's, one implementation):
 *     prepare returns 0 when armed, 1 when there is something to read;
 *     the eventfd becomes readable when a writer publishes to an armed
 *     reader, not before, and done empties it; -PFR_E_INVAL and -1 for
 *     the fd without an eventfd;
 *  8. the kernel ring's snapshot (pfr_perf_ring_snapshot()) follows the
 *     stop rule too: a callback's negative value is returned (it returned
 *     the count), a positive one stops with the count of records passed
 *     (skipped where the kernel refuses a perf event).
 */
#include <errno.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/perf.h>
#include <perfring/ring.h>

#include "tap.h"

/* A name no other process of the test run uses. */
static void shm_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "pfr-conf-%s-%ld", what, (long)getpid());
}

/* ---- 1. errors ---- */

/* -PFR_E_SYSTEM and errno `want` from a call, errno poisoned first. */
#define SYS_ERR(call, want, what)                                              \
	do {                                                                   \
		int rc_;                                                       \
		errno = 12345;                                                 \
		rc_ = (call);                                                  \
		ok(rc_ == -PFR_E_SYSTEM && errno == (want),                    \
		   "%s: -PFR_E_SYSTEM with errno %s (got %d, errno %d)", what, \
		   #want, rc_, errno);                                         \
	} while (0)

static void test_errors(void)
{
	struct pfr_ring_opts ro = {.sz = sizeof(ro), .data_size = 4096};
	struct pfr_group_opts go = {.sz = sizeof(go), .slots = 2,
				    .data_size = 4096};
	struct pfr_mpsc_opts mo = {.sz = sizeof(mo), .data_size = 4096};
	struct pfr_ring_attach_opts ao = {.sz = sizeof(ao)};
	struct pfr_ring *r, *r2;
	struct pfr_group *g, *g2;
	struct pfr_mpsc *m, *m2;
	char rn[64], gn[64], mn[64];
	int bad = dup(0);

	close(bad); /* a descriptor that is certainly not open */
	SYS_ERR(pfr_ring_attach_fd(&r, bad), EBADF, "ring attach_fd");
	SYS_ERR(pfr_ring_attach_fd_opts(&r, bad, &ao), EBADF,
		"ring attach_fd_opts");
	SYS_ERR(pfr_group_attach_fd(&g, bad, -1), EBADF, "group attach_fd");
	SYS_ERR(pfr_group_attach_fd_opts(&g, bad, -1, &ao), EBADF,
		"group attach_fd_opts");
	SYS_ERR(pfr_mpsc_attach_fd(&m, bad, 0), EBADF, "mpsc attach_fd");
	SYS_ERR(pfr_mpsc_attach_fd_opts(&m, bad, &ao), EBADF,
		"mpsc attach_fd_opts");
	shm_name(rn, sizeof(rn), "r");
	shm_name(gn, sizeof(gn), "g");
	shm_name(mn, sizeof(mn), "m");
	SYS_ERR(pfr_ring_attach_shm(&r, rn), ENOENT, "ring attach_shm");
	SYS_ERR(pfr_group_attach_shm(&g, gn), ENOENT, "group attach_shm");
	SYS_ERR(pfr_group_attach_shm_opts(&g, gn, &ao), ENOENT,
		"group attach_shm_opts");
	SYS_ERR(pfr_mpsc_attach_shm(&m, mn, 0), ENOENT, "mpsc attach_shm");
	SYS_ERR(pfr_mpsc_attach_shm_opts(&m, mn, &ao), ENOENT,
		"mpsc attach_shm_opts");
	if (pfr_ring_create_shm(&r, rn, &ro) == 0) {
		SYS_ERR(pfr_ring_create_shm(&r2, rn, &ro), EEXIST,
			"ring create_shm of an existing name");
		pfr_ring_close(r);
		pfr_ring_unlink(rn);
	} else {
		ok(0, "ring create_shm");
	}
	if (pfr_group_create_shm(&g, gn, &go) == 0) {
		SYS_ERR(pfr_group_create_shm(&g2, gn, &go), EEXIST,
			"group create_shm of an existing name");
		pfr_group_close(g);
		pfr_group_unlink(gn);
	} else {
		ok(0, "group create_shm");
	}
	if (pfr_mpsc_create_shm(&m, mn, &mo) == 0) {
		SYS_ERR(pfr_mpsc_create_shm(&m2, mn, &mo), EEXIST,
			"mpsc create_shm of an existing name");
		pfr_mpsc_close(m);
		pfr_mpsc_unlink(mn);
	} else {
		ok(0, "mpsc create_shm");
	}
	/* Every code the library returns is negative and has a name. */
	for (int e = 1; e < PFR_E__COUNT; e++)
		if (!strcmp(pfr_strerror(-e), "unknown perfring error"))
			ok(0, "code %d has no name", e);
	ok(strcmp(pfr_strerror(-PFR_E_FULL), "unknown perfring error") != 0,
	   "pfr_strerror() names every PFR_E_* code");
}

/* ---- 2. the callback stop rule ---- */

struct stopper {
	int n; /* records seen */
	int at; /* return `rc` at this record (1-based) */
	int rc;
};

static int stop_ring(void *arg, const struct pfr_record *rec)
{
	struct stopper *s = arg;

	(void)rec;
	return ++s->n == s->at ? s->rc : 0;
}

static int stop_group(void *arg, const struct pfr_group_rec *rec)
{
	struct stopper *s = arg;

	(void)rec;
	return ++s->n == s->at ? s->rc : 0;
}

/* The ring: 4 records, fn stops at the 2nd with rc. */
static void ring_stop_case(int rc, int64_t want, const char *what)
{
	struct pfr_ring_opts o = {.sz = sizeof(o), .data_size = 4096};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct stopper s = {0, 2, rc};
	uint64_t v = 0;
	int64_t got;

	if (pfr_ring_create(&ring, &o) || pfr_ring_writer(ring, &w) ||
	    pfr_ring_reader(ring, &r)) {
		ok(0, "ring for %s", what);
		return;
	}
	for (int i = 0; i < 4; i++)
		pfr_writer_write(&w, 1, &v, sizeof(v));
	pfr_reader_begin(&r);
	got = pfr_reader_consume(&r, stop_ring, &s, 0);
	pfr_reader_end(&r);
	ok(got == want && s.n == 2, "ring, %s: returns %lld (got %lld, %d seen)",
	   what, (long long)want, (long long)got, s.n);
	s.at = 0;
	pfr_reader_begin(&r);
	got = pfr_reader_consume(&r, stop_ring, &s, 0);
	ok(got == 2, "ring, %s: the stopping record was consumed (%lld left)",
	   what, (long long)got);
	pfr_ring_close(ring);
}

/* The group: 2 writers, 2 records each; fn stops at the 2nd with rc,
 * through pfr_group_drain() or pfr_group_consume(). */
static void group_stop_case(int consume, int ordered, int rc, int64_t want,
			    const char *what)
{
	struct pfr_group_opts o = {.sz = sizeof(o), .slots = 4,
				   .data_size = 4096};
	struct pfr_group *g;
	struct pfr_writer a, b;
	struct stopper s = {0, 2, rc};
	uint64_t t;
	int64_t got;

	if (pfr_group_create(&g, &o) ||
	    pfr_group_reader_open(g,
				  ordered ? PFR_GROUP_ORDERED
					  : PFR_GROUP_UNORDERED,
				  NULL, NULL) ||
	    pfr_group_join(g, &a, 1) < 0 || pfr_group_join(g, &b, 2) < 0) {
		ok(0, "group for %s", what);
		return;
	}
	for (t = 1; t <= 4; t++)
		pfr_writer_write(t & 1 ? &a : &b, 1, &t, sizeof(t));
	got = consume ? pfr_group_consume(g, stop_group, &s,
					  PFR_GROUP_DRAIN_ROUND)
		      : pfr_group_drain(g, stop_group, &s,
					ordered ? PFR_GROUP_DRAIN_ALL
						: PFR_GROUP_DRAIN_ROUND);
	ok(got == want && s.n == 2,
	   "group %s%s, %s: returns %lld (got %lld, %d seen)",
	   consume ? "consume" : "drain", ordered ? " ordered" : "", what,
	   (long long)want, (long long)got, s.n);
	/* the rest comes next, the stopping record not again */
	s.at = 0;
	got = 0;
	for (int i = 0; i < 4; i++) {
		int64_t n = pfr_group_drain(g, stop_group, &s,
					    PFR_GROUP_DRAIN_ALL);

		got += n > 0 ? n : 0;
	}
	ok(got == 2 && s.n == 4,
	   "group %s%s, %s: the stopping record was consumed (%lld after)",
	   consume ? "consume" : "drain", ordered ? " ordered" : "", what,
	   (long long)got);
	pfr_group_close(g);
}

static void test_stop_rule(void)
{
	ring_stop_case(1, 2, "positive stop");
	ring_stop_case(-77, -77, "negative stop");
	for (int c = 0; c < 2; c++) {
		group_stop_case(c, 0, 1, 2, "positive stop");
		group_stop_case(c, 0, -77, -77, "negative stop");
	}
	group_stop_case(0, 1, 1, 2, "positive stop");
	group_stop_case(0, 1, -77, -77, "negative stop");
}

/* The session, over a fake perf ring in memory (tests/unit/perf_session.c
 * draws the kernel's side). */
#define FAKE_DATA 4096u

static int stop_session(void *arg, const struct pfr_perf_session_rec *rec)
{
	struct stopper *s = arg;

	(void)rec;
	return ++s->n == s->at ? s->rc : 0;
}

static void session_stop_case(int rc, const char *what)
{
	struct pfr_perf_session_opts o = {.sz = sizeof(o)};
	struct pfr_perf_session *sess = NULL;
	struct perf_event_attr a;
	struct stopper s = {0, 2, rc};
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;
	unsigned char *mem;
	int got;

	if (posix_memalign((void **)&mem, (size_t)psz, (size_t)psz + FAKE_DATA))
		tap_skip_all("out of memory");
	memset(mem, 0, (size_t)psz + FAKE_DATA);
	pg = (struct perf_event_mmap_page *)mem;
	pg->data_offset = (uint64_t)psz;
	pg->data_size = FAKE_DATA;
	for (uint64_t i = 0; i < 4; i++) {
		struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0, 32};
		uint64_t id = 7, time = 10 * (i + 1);
		uint32_t tid = 1;
		unsigned char *p = mem + psz + 32 * i;

		memcpy(p, &h, 8);
		memcpy(p + 8, &id, 8);
		memcpy(p + 16, &tid, 4);
		memcpy(p + 20, &tid, 4);
		memcpy(p + 24, &time, 8);
	}
	pg->data_head = 4 * 32;
	o.on_record = stop_session;
	o.arg = &s;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME;
	if (pfr_perf_session_create(&sess, &o) ||
	    pfr_perf_session_add_event(sess, &a, NULL) != 0 ||
	    pfr_perf_session_add_ring(sess, mem, (size_t)psz + FAKE_DATA, 0)) {
		ok(0, "session for %s", what);
		pfr_perf_session_destroy(sess);
		free(mem);
		return;
	}
	got = pfr_perf_session_drain(sess, PFR_PERF_DRAIN_FINAL);
	ok(got == rc && s.n == 2,
	   "session drain, %s: returns the callback's %d (got %d, %d seen)",
	   what, rc, got, s.n);
	s.at = 0;
	got = pfr_perf_session_drain(sess, PFR_PERF_DRAIN_FINAL);
	ok(got == 0 && s.n == 4,
	   "session drain, %s: the rest after it, nothing repeated (%d)", what,
	   s.n);
	pfr_perf_session_destroy(sess);
	free(mem);
}

/* ---- 3. join, leave, no free slot ---- */

static void test_join(void)
{
	struct pfr_group_opts go = {.sz = sizeof(go), .slots = 2,
				    .data_size = 4096};
	struct pfr_mpsc_opts mo = {.sz = sizeof(mo), .data_size = 4096,
				   .max_producers = 2};
	struct pfr_group *g;
	struct pfr_mpsc *m;
	struct pfr_writer w[3];
	struct pfr_mpsc_producer p[3];

	if (pfr_group_create(&g, &go) || pfr_mpsc_create(&m, &mo)) {
		ok(0, "create group and shared ring");
		return;
	}
	is_int(pfr_group_join(g, &w[0], 0), 0, "group join: slot 0");
	is_int(pfr_group_join(g, &w[1], 0), 1, "group join: slot 1");
	is_int(pfr_group_join(g, &w[2], 0), -PFR_E_FULL,
	       "group join: no free slot is -PFR_E_FULL");
	is_int(pfr_mpsc_producer_join(m, &p[0]), 0, "mpsc join: slot 0");
	is_int(pfr_mpsc_producer_join(m, &p[1]), 1, "mpsc join: slot 1");
	is_int(pfr_mpsc_producer_join(m, &p[2]), -PFR_E_FULL,
	       "mpsc join: no free slot is -PFR_E_FULL, as the group's");
	is_int(pfr_group_leave(g, &w[1]), 0, "group leave: 0");
	is_int(pfr_mpsc_producer_leave(&p[1]), 0, "mpsc leave: 0");
	is_int(pfr_mpsc_producer_leave(&p[1]), -PFR_E_INVAL,
	       "mpsc leave twice: -PFR_E_INVAL");
	is_int(pfr_mpsc_producer_leave(NULL), -PFR_E_INVAL,
	       "mpsc leave NULL: -PFR_E_INVAL");
	is_int(pfr_group_leave(g, NULL), -PFR_E_INVAL,
	       "group leave NULL: -PFR_E_INVAL");
	/* the deprecated names keep 0.2's answers */
	is_int(pfr_mpsc_join(m, &p[1]), 0, "pfr_mpsc_join(): 0 (deprecated)");
	is_int(pfr_mpsc_join(m, &p[2]), -PFR_E_BUSY,
	       "pfr_mpsc_join(): -PFR_E_BUSY when full (deprecated)");
	pfr_mpsc_leave(&p[0]);
	pfr_mpsc_leave(&p[1]);
	pfr_group_leave(g, &w[0]);
	pfr_group_close(g);
	pfr_mpsc_close(m);
}

/* ---- 4. wait ---- */

static void test_wait(void)
{
	struct pfr_ring_opts ro = {.sz = sizeof(ro), .data_size = 4096,
				   .flags = PFR_RING_WAIT};
	struct pfr_group_opts go = {.sz = sizeof(go), .slots = 2,
				    .data_size = 4096, .flags = PFR_GROUP_WAIT};
	struct pfr_mpsc_opts mo = {.sz = sizeof(mo), .data_size = 4096,
				   .flags = PFR_MPSC_WAIT};
	struct pfr_ring *ring;
	struct pfr_group *g;
	struct pfr_mpsc *m;
	struct pfr_writer w, gw;
	struct pfr_reader r;
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader mr;
	uint64_t v = 1;

	if (pfr_ring_create(&ring, &ro) || pfr_ring_writer(ring, &w) ||
	    pfr_ring_reader(ring, &r) || pfr_group_create(&g, &go) ||
	    pfr_group_reader_open(g, PFR_GROUP_UNORDERED, NULL, NULL) ||
	    pfr_mpsc_create(&m, &mo) || pfr_mpsc_reader_open(m, &mr)) {
		ok(0, "create the three");
		return;
	}
	pfr_group_drain(g, NULL, NULL, PFR_GROUP_DRAIN_ROUND);
	is_int((int)pfr_reader_wait(&r, 1000000), -PFR_E_TIMEDOUT,
	       "ring wait: -PFR_E_TIMEDOUT");
	is_int(pfr_group_wait(g, 1000000), -PFR_E_TIMEDOUT,
	       "group wait: -PFR_E_TIMEDOUT, as the ring's");
	is_int((int)pfr_mpsc_wait(&mr, 1000000), -PFR_E_TIMEDOUT,
	       "mpsc wait: -PFR_E_TIMEDOUT, as the ring's");
	if (pfr_group_join(g, &gw, 0) < 0 || pfr_mpsc_producer_join(m, &p) < 0) {
		ok(0, "join");
	} else {
		pfr_writer_write(&w, 1, &v, sizeof(v));
		pfr_writer_flush(&w);
		pfr_writer_write(&gw, 1, &v, sizeof(v));
		pfr_writer_flush(&gw);
		pfr_mpsc_write(&p, 1, &v, sizeof(v));
		ok(pfr_reader_wait(&r, 1000000000) > 0, "ring wait: > 0");
		ok(pfr_group_wait(g, 1000000000) > 0, "group wait: > 0");
		ok(pfr_mpsc_wait(&mr, 1000000000) > 0, "mpsc wait: > 0");
		pfr_mpsc_producer_leave(&p);
	}
	pfr_ring_close(ring);
	pfr_group_close(g);
	pfr_mpsc_reader_close(&mr);
	pfr_mpsc_close(m);
}

/* ---- 5. attach limits ---- */

struct newer_opts {
	struct pfr_ring_attach_opts o;
	uint64_t unknown; /* a field of a newer header */
};

static void test_attach(void)
{
	struct pfr_ring_opts ro = {.sz = sizeof(ro), .data_size = 8192};
	struct pfr_group_opts go = {.sz = sizeof(go), .slots = 2,
				    .data_size = 8192};
	struct pfr_mpsc_opts mo = {.sz = sizeof(mo), .data_size = 8192};
	struct pfr_ring_attach_opts ao = {.sz = sizeof(ao)};
	struct newer_opts nw = {{sizeof(nw), 0, 0}, 1};
	struct pfr_ring *ring, *ra;
	struct pfr_group *g, *ga;
	struct pfr_mpsc *m, *ma;
	int rfd, gfd, mfd;

	if (pfr_ring_create_memfd(&ring, &ro) ||
	    pfr_group_create_memfd(&g, &go) || pfr_mpsc_create_memfd(&m, &mo)) {
		ok(0, "create the three (memfd)");
		return;
	}
	rfd = pfr_ring_fd(ring);
	gfd = pfr_group_fd(g);
	mfd = pfr_mpsc_fd(m);
	/* defaults (max_data_size 0): attach */
	is_int(pfr_ring_attach_fd_opts(&ra, rfd, &ao), 0, "ring: default");
	pfr_ring_close(ra);
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &ao), 0,
	       "group: default");
	pfr_group_close(ga);
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, &ao), 0, "mpsc: default");
	pfr_mpsc_close(ma);
	/* a limit below the data: -PFR_E_TOOBIG for all three */
	ao.max_data_size = 4096;
	is_int(pfr_ring_attach_fd_opts(&ra, rfd, &ao), -PFR_E_TOOBIG,
	       "ring: over the limit");
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &ao), -PFR_E_TOOBIG,
	       "group: over the limit");
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, &ao), -PFR_E_TOOBIG,
	       "mpsc: over the limit");
	/* the group's limit counts all its rings */
	ao.max_data_size = 8192;
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &ao), -PFR_E_TOOBIG,
	       "group: the limit counts every ring (2 x 8 KiB > 8 KiB)");
	ao.max_data_size = 16384;
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &ao), 0,
	       "group: 2 x 8 KiB within 16 KiB");
	pfr_group_close(ga);
	/* sz too small, and a newer caller's unknown field */
	ao.sz = 4;
	is_int(pfr_ring_attach_fd_opts(&ra, rfd, &ao), -PFR_E_INVAL,
	       "ring: sz too small");
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &ao), -PFR_E_INVAL,
	       "group: sz too small");
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, &ao), -PFR_E_INVAL,
	       "mpsc: sz too small");
	is_int(pfr_ring_attach_fd_opts(&ra, rfd, &nw.o), -PFR_E_INVAL,
	       "ring: an unknown field set");
	is_int(pfr_group_attach_fd_opts(&ga, gfd, -1, &nw.o), -PFR_E_INVAL,
	       "group: an unknown field set");
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, &nw.o), -PFR_E_INVAL,
	       "mpsc: an unknown field set");
	nw.unknown = 0;
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, &nw.o), 0,
	       "mpsc: a newer caller's struct, its new field 0");
	pfr_mpsc_close(ma);
	is_int(pfr_mpsc_attach_fd_opts(&ma, mfd, NULL), -PFR_E_INVAL,
	       "mpsc: NULL options");
	pfr_ring_close(ring);
	pfr_group_close(g);
	pfr_mpsc_close(m);
}

/* ---- 6. names ---- */

static void test_names(void)
{
	struct pfr_ring_opts ro = {.sz = sizeof(ro), .data_size = 4096};
	struct pfr_mpsc_opts mo = {.sz = sizeof(mo), .data_size = 4096};
	struct pfr_group_opts go = {.sz = sizeof(go), .slots = 2,
				    .data_size = 4096};
	struct pfr_ring *ring;
	struct pfr_mpsc *m;
	struct pfr_group *g;
	struct pfr_mpsc_reader r, r2;

	if (pfr_ring_create(&ring, &ro) || pfr_mpsc_create(&m, &mo) ||
	    pfr_group_create(&g, &go)) {
		ok(0, "create");
		return;
	}
	ok(pfr_ring_control(ring) && pfr_ring_control(ring) == pfr_ring_ctl(ring),
	   "pfr_ring_control(): the control block");
	ok(pfr_mpsc_control(m) && pfr_mpsc_control(m) == pfr_mpsc_ctl(m),
	   "pfr_mpsc_control(): the control block");
	ok(pfr_ring_control(NULL) == NULL && pfr_mpsc_control(NULL) == NULL,
	   "control of NULL: NULL");
	is_int(pfr_mpsc_reader_open(m, &r), 0, "pfr_mpsc_reader_open()");
	is_int(pfr_mpsc_reader_open(m, &r2), 0,
	       "the same thread opens it again (its own role)");
	is_int(pfr_mpsc_reader_open(NULL, &r2), -PFR_E_INVAL,
	       "pfr_mpsc_reader_open(NULL): -PFR_E_INVAL");
	is_int(pfr_group_reader_open(g, 2, NULL, NULL), -PFR_E_INVAL,
	       "group reader mode other than the two constants: -PFR_E_INVAL");
	is_int(pfr_group_reader_open(g, PFR_GROUP_ORDERED, NULL, NULL), 0,
	       "group reader: PFR_GROUP_ORDERED");
	pfr_mpsc_reader_close(&r);
	pfr_ring_close(ring);
	pfr_mpsc_close(m);
	pfr_group_close(g);
}

/* ---- 7. the pollable fd ---- */

static int fd_readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* prepare (0: armed), not readable, a publication, readable, done, and
 * prepare again (1: the record waits); for the ring (g NULL) or the group. */
static void poll_case(struct pfr_reader *r, struct pfr_group *g, int efd,
		      struct pfr_writer *w, const char *what)
{
	uint64_t v = 7;
	int armed = g ? pfr_group_poll_prepare(g) : pfr_reader_poll_prepare(r);

	ok(armed == 0, "%s: prepare on nothing to read: 0 (armed), got %d",
	   what, armed);
	ok(!fd_readable(efd), "%s: not readable before a publication", what);
	pfr_writer_write(w, 1, &v, sizeof(v));
	ok(fd_readable(efd), "%s: readable after one", what);
	if (g)
		pfr_group_poll_done(g);
	else
		pfr_reader_poll_done(r);
	ok(!fd_readable(efd), "%s: done empties it", what);
	armed = g ? pfr_group_poll_prepare(g) : pfr_reader_poll_prepare(r);
	ok(armed == 1, "%s: prepare with a record waiting: 1, got %d", what,
	   armed);
}

static void test_pollfd(void)
{
	struct pfr_ring_opts ro = {
		.sz = sizeof(ro), .data_size = 4096, .flags = PFR_RING_EVENTFD};
	struct pfr_group_opts go = {.sz = sizeof(go),
				    .slots = 2,
				    .data_size = 4096,
				    .flags = PFR_GROUP_EVENTFD};
	struct pfr_ring *ring, *plain;
	struct pfr_group *g, *gplain;
	struct pfr_writer w, gw;
	struct pfr_reader r, pr;

	if (pfr_ring_create(&ring, &ro) || pfr_ring_writer(ring, &w) ||
	    pfr_ring_reader(ring, &r) || pfr_group_create(&g, &go) ||
	    pfr_group_reader_open(g, PFR_GROUP_UNORDERED, NULL, NULL) ||
	    pfr_group_join(g, &gw, 0) < 0) {
		ok(0, "create the ring and the group with eventfds");
		return;
	}
	pfr_group_drain(g, NULL, NULL, PFR_GROUP_DRAIN_ROUND); /* the join */
	poll_case(&r, NULL, pfr_ring_eventfd(ring), &w, "ring");
	poll_case(NULL, g, pfr_group_eventfd(g), &gw, "group");
	ro.flags = PFR_RING_WAIT;
	go.flags = PFR_GROUP_WAIT;
	if (!pfr_ring_create(&plain, &ro) && !pfr_ring_reader(plain, &pr)) {
		is_int(pfr_reader_poll_prepare(&pr), -PFR_E_INVAL,
		       "ring without an eventfd: -PFR_E_INVAL");
		is_int(pfr_ring_eventfd(plain), -1, "ring: no eventfd is -1");
		pfr_ring_close(plain);
	}
	if (!pfr_group_create(&gplain, &go) &&
	    !pfr_group_reader_open(gplain, PFR_GROUP_UNORDERED, NULL, NULL)) {
		is_int(pfr_group_poll_prepare(gplain), -PFR_E_INVAL,
		       "group without an eventfd: -PFR_E_INVAL, as the ring's");
		is_int(pfr_group_eventfd(gplain), -1,
		       "group: no eventfd is -1, as the ring's");
		pfr_group_close(gplain);
	}
	pfr_group_leave(g, &gw);
	pfr_ring_close(ring);
	pfr_group_close(g);
}

/* ---- 8. the kernel ring's snapshot ---- */

struct snap_stop {
	int n, at, rc;
};

static int snap_cb(void *arg, const struct pfr_record *rec)
{
	struct snap_stop *s = arg;

	(void)rec;
	return ++s->n == s->at ? s->rc : 0;
}

static void test_perf_snapshot(void)
{
	struct perf_event_attr a;
	struct pfr_perf_ring pr;
	struct snap_stop s;
	int fd, i;
	int64_t all, got;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap_data = 1; /* a record per mmap() of data */
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.write_backward = 1;
	fd = pfr_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || pfr_perf_ring_map(&pr, fd, -1, 4, 1)) {
		for (i = 0; i < 4; i++)
			ok(1, "snapshot # SKIP no perf event here (%s)",
			   fd < 0 ? strerror(-fd) : "map");
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < 8; i++) {
		void *p = mmap(NULL, 4096 * (size_t)(i + 1),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096 * (size_t)(i + 1));
	}
	s = (struct snap_stop){0, 0, 0};
	all = pfr_perf_ring_snapshot(&pr, snap_cb, &s);
	ok(all >= 3, "snapshot: every record (%lld)", (long long)all);
	s = (struct snap_stop){0, 2, -77};
	got = pfr_perf_ring_snapshot(&pr, snap_cb, &s);
	ok(got == -77 && s.n == 2,
	   "snapshot: the callback's negative value is returned, as "
	   "pfr_reader_consume()'s (got %lld after %d)",
	   (long long)got, s.n);
	s = (struct snap_stop){0, 2, 1};
	got = pfr_perf_ring_snapshot(&pr, snap_cb, &s);
	ok(got == 2 && s.n == 2,
	   "snapshot: a positive value stops after its record, the count "
	   "returned (got %lld)",
	   (long long)got);
	got = pfr_perf_ring_snapshot(&pr, NULL, NULL);
	ok(got == -PFR_E_INVAL,
	   "snapshot: no callback is -PFR_E_INVAL, nothing called (got %lld)",
	   (long long)got);
	pfr_perf_ring_unmap(&pr);
	close(fd);
}

int main(void)
{
	test_errors();
	test_stop_rule();
	session_stop_case(1, "positive stop");
	session_stop_case(-77, "negative stop");
	test_join();
	test_wait();
	test_attach();
	test_names();
	test_pollfd();
	test_perf_snapshot();
	return tap_done();
}
