// SPDX-License-Identifier: MIT
/*
 * The single ring's first-hour traps (issue 35), one regression test each:
 *  - a reserved record type (the ring's own LOST and PAD, anything above
 *    PFR_RECORD_USER_MAX) is refused by every write and reserve, in band
 *    too, and the reader is never wedged by one;
 *  - the payload's exact length round-trips (pfr_reader_next() and
 *    pfr_reader_consume(), head-polled and in band), a raw reader of a
 *    kernel-like ring keeps perf's misc as flags, and a padding longer
 *    than the record is an error, not a huge length;
 *  - roles across processes: a second writer or reader is -PFR_E_BUSY
 *    while the holder lives, and the role passes on when it closed or died;
 *  - liveness and the end of stream: pfr_reader_wait_end() returns
 *    -PFR_E_CLOSED and pfr_reader_eof() 1 once the writer closed or died
 *    and everything was read; a BLOCK writer whose reader closed or died
 *    gets -PFR_E_TIMEDOUT at once, not after its time-out (a time-out of
 *    an hour: alarm() ends a test that waits it);
 *  - close-on-exec: the memfd is close-on-exec, and pfr_ring_set_inherit()
 *    hands the ring to an exec'd program, which attaches and writes;
 *  - a pollable fd: with PFR_RING_EVENTFD a reader armed by
 *    pfr_reader_poll_prepare() finds the eventfd readable when a writer in
 *    another process (attached by fd, given the eventfd) publishes or
 *    closes, and not when the writer publishes while it is not armed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

#define TT_TYPE 7u

static const uint32_t bad_types[] = {PFR_RECORD_LOST, PFR_RECORD_PAD,
				     0x80000000u, 0xffffffffu};

/* One record of `type` through each write path of w: the return codes. */
static void try_writes(struct pfr_writer *w, uint32_t type, int rc[5])
{
	uint64_t v = 0x1122334455667788ull;
	void *p = NULL;

	rc[0] = pfr_writer_write(w, type, &v, sizeof(v));
	rc[1] = pfr_writer_write_deferred(w, type, &v, sizeof(v));
	pfr_writer_publish(w);
	rc[2] = pfr_writer_write_burst(w, type, &v, sizeof(v), 1);
	rc[3] = pfr_writer_reserve(w, type, sizeof(v), &p);
	if (!rc[3]) {
		memcpy(p, &v, sizeof(v));
		pfr_writer_commit(w);
	}
	rc[4] = pfr_writer_write(w, type, NULL, 0);
}

static void test_reserved_types(uint32_t flags, const char *what)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	int rc[5], n = 0, bad = 0;
	uint64_t v = 42;

	if (rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL, flags) ||
	    pfr_ring_writer(ring, &w) || pfr_ring_reader(ring, &r)) {
		ok(0, "%s: ring", what);
		return;
	}
	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		try_writes(&w, bad_types[i], rc);
		ok(rc[0] == -PFR_E_INVAL && rc[1] == -PFR_E_INVAL &&
			   rc[2] == -PFR_E_INVAL && rc[3] == -PFR_E_INVAL &&
			   rc[4] == -PFR_E_INVAL,
		   "%s: type 0x%x refused by write, write_deferred, "
		   "write_burst, reserve, empty write (%d %d %d %d %d)",
		   what, bad_types[i], rc[0], rc[1], rc[2], rc[3], rc[4]);
	}
	is_uint(pfr_writer_lost(&w), 0, "refused records are not counted lost");
	/* a reserve refused leaves no reservation: commit does nothing */
	pfr_writer_commit(&w);
	try_writes(&w, 0, rc);
	ok(!rc[0] && !rc[1] && rc[2] == 1 && !rc[3] && !rc[4],
	   "%s: type 0 accepted by every path", what);
	is_int(pfr_writer_write(&w, PFR_RECORD_USER_MAX, &v, 8), 0,
	       "PFR_RECORD_USER_MAX accepted");
	/* the reader reads the good records and is not wedged */
	if (pfr_reader_begin(&r) >= 0) {
		int got;

		while ((got = pfr_reader_next(&r, &rec)) == 1) {
			n++;
			bad += rec.hdr.type != 0 &&
			       rec.hdr.type != PFR_RECORD_USER_MAX;
		}
		bad += got != 0;
		pfr_reader_end(&r);
	}
	ok(n == 6 && !bad,
	   "%s: the reader reads the 6 good records, no error "
	   "(%d read, %d bad)",
	   what, n, bad);
	pfr_ring_close(ring);
}

/* ---- exact lengths ---- */

struct tt_len {
	size_t want;
	int good, seen;
};

static int tt_len_cb(void *ctx, const struct pfr_record *rec)
{
	struct tt_len *t = (struct tt_len *)ctx;

	t->seen++;
	if (rec->len == t->want &&
	    rt_check(rec->payload, rec->len, (uint64_t)t->want) < 0)
		t->good++;
	t->want++;
	return 0;
}

static void test_exact_len(uint32_t flags, const char *what)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec = {{0, 0, 0}, NULL, 0, 0};
	unsigned char buf[64];
	int good = 1;
	struct tt_len t = {0, 0, 0};

	if (rt_mkring(&ring, 8192, PFR_POLICY_DROP, PFR_ORDER_ACQREL, flags) ||
	    pfr_ring_writer(ring, &w) || pfr_ring_reader(ring, &r)) {
		ok(0, "%s: ring", what);
		return;
	}
	/* pfr_reader_next(): every length 0..40, written and reserved */
	for (size_t len = 0; len <= 40 && good; len++) {
		void *p;

		rt_fill(buf, len, len);
		if (len & 1) {
			good = !pfr_writer_write(&w, TT_TYPE, buf, len);
		} else {
			good = !pfr_writer_reserve(&w, TT_TYPE, len, &p);
			if (good) {
				memcpy(p, buf, len);
				pfr_writer_commit(&w);
			}
		}
		good = good && pfr_reader_begin(&r) > 0 &&
		       pfr_reader_next(&r, &rec) == 1 && rec.len == len &&
		       rt_check(rec.payload, len, len) < 0 &&
		       (rec.hdr.misc & ~PFR_RECORD_MISC_PAD) == 0;
		if (!good)
			tap_diag("  len %zu: got len %u", len, rec.len);
		pfr_reader_end(&r);
	}
	ok(good, "%s: pfr_reader_next() gives back every length 0..40", what);
	/* pfr_reader_consume(): the same, in bursts of one length too */
	for (size_t len = 0; len <= 40; len++) {
		rt_fill(buf, len, len);
		pfr_writer_write(&w, TT_TYPE, buf, len);
	}
	if (pfr_reader_begin(&r) > 0)
		pfr_reader_consume(&r, tt_len_cb, &t, 0);
	pfr_reader_end(&r);
	ok(t.seen == 41 && t.good == 41,
	   "%s: pfr_reader_consume() gives back every length (%d of %d)", what,
	   t.good, t.seen);
	{
		unsigned char b3[3 * 5];
		int n = 0;

		for (int i = 0; i < 3; i++)
			rt_fill(b3 + 5 * i, 5, 5);
		is_int(pfr_writer_write_burst(&w, TT_TYPE, b3, 5, 3), 3,
		       "burst of three 5-byte records");
		if (pfr_reader_begin(&r) > 0)
			while (pfr_reader_next(&r, &rec) == 1)
				n += rec.len == 5;
		pfr_reader_end(&r);
		is_int(n, 3, "each read back as 5 bytes");
	}
	pfr_ring_close(ring);
}

/* A raw reader over a kernel-like ring: misc is perf's (cpumode bits 0-2
 * set), the length is size - 8; with PFR_READER_PAYLOAD_LEN it is less the
 * padding, and a padding longer than the payload space is an error. */
static void test_raw_misc(void)
{
	static uint64_t data[512];
	static unsigned char scratch[PFR_RECORD_MAX + 8];
	uint64_t head = 0, tail = 0;
	struct pfr_record_header h = {9, 0x4002, 24}; /* EXACT_IP | USER */
	struct pfr_record_header bad = {9, 0x7, 8};
	struct pfr_reader r;
	struct pfr_record rec = {{0, 0, 0}, NULL, 0, 0};

	memcpy(&data[0], &h, 8);
	memcpy(&data[3], &bad, 8);
	head = 32;
	if (!ok(pfr_reader_init(&r, &head, &tail, data, sizeof(data),
				PFR_ORDER_ACQREL, 0, scratch) == 0,
		"raw reader"))
		return;
	ok(pfr_reader_begin(&r) == 32 && pfr_reader_next(&r, &rec) == 1 &&
		   rec.len == 16 && rec.hdr.misc == 0x4002,
	   "kernel ring: len is size - 8 whatever misc holds (%u)", rec.len);
	ok(pfr_reader_next(&r, &rec) == 1 && rec.len == 0,
	   "kernel ring: misc 7 on an 8-byte record is perf's flags");
	pfr_reader_end(&r);
	tail = 0;
	is_int(pfr_reader_init(&r, &head, &tail, data, sizeof(data),
			       PFR_ORDER_ACQREL, PFR_READER_PAYLOAD_LEN,
			       scratch),
	       0, "raw reader with PFR_READER_PAYLOAD_LEN");
	ok(pfr_reader_begin(&r) == 32 && pfr_reader_next(&r, &rec) == 1 &&
		   rec.len == 14,
	   "perfring ring: len less the padding (%u)", rec.len);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_SHORT,
	       "a padding longer than the record: an error, not a huge len");
	pfr_reader_end(&r);
	tail = 24;
	ok(pfr_reader_init(&r, &head, &tail, data, sizeof(data),
			   PFR_ORDER_ACQREL, PFR_READER_PAYLOAD_LEN,
			   scratch) == 0 &&
		   pfr_reader_begin(&r) == 8,
	   "reader at the bad record");
	{
		struct tt_len t = {0, 0, 0};

		is_int(pfr_reader_consume(&r, tt_len_cb, &t, 0),
		       -PFR_E_RECSIZE_SHORT, "consume: the same error");
		is_int(t.seen, 0, "consume passed nothing on");
	}
}

/* ---- roles across processes ---- */

static int child_open(struct pfr_ring *ring, int writer, int close_it)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct pfr_writer w;
		struct pfr_reader r;
		int rc = writer ? pfr_ring_writer(ring, &w)
				: pfr_ring_reader(ring, &r);

		if (!rc && close_it)
			rc = writer ? pfr_writer_close(&w)
				    : pfr_reader_close(&r);
		_exit(rc == -PFR_E_BUSY ? 3 : rc ? 2 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_roles(void)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;

	if (rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL, 0)) {
		ok(0, "ring");
		return;
	}
	is_int(pfr_ring_writer_alive(ring), 0, "no writer yet");
	is_int(pfr_ring_reader_alive(ring), 0, "no reader yet");
	is_int(pfr_ring_writer(ring, &w), 0, "writer");
	is_int(pfr_ring_reader(ring, &r), 0, "reader");
	is_int(pfr_ring_writer(ring, &w), 0, "the same process opens again");
	is_int(pfr_ring_writer_alive(ring), 1, "writer alive");
	is_int(pfr_ring_reader_alive(ring), 1, "reader alive");
	is_int(child_open(ring, 1, 0), 3,
	       "a second process's writer: -PFR_E_BUSY");
	is_int(child_open(ring, 0, 0), 3,
	       "a second process's reader: -PFR_E_BUSY");
	is_int(pfr_writer_close(&w), 0, "writer closed");
	is_int(pfr_reader_close(&r), 0, "reader closed");
	is_int(pfr_ring_writer_alive(ring), 0, "closed: no writer");
	is_int(child_open(ring, 1, 1), 0,
	       "closed: another process takes the writer (and closes it)");
	is_int(child_open(ring, 0, 0), 0,
	       "closed: another process takes the reader (and dies)");
	is_int(pfr_ring_reader_alive(ring), 0, "its holder died: no reader");
	is_int(pfr_ring_reader(ring, &r), 0,
	       "the dead holder's reader role taken over");
	is_int(child_open(ring, 1, 0), 0,
	       "another process takes the writer (and dies)");
	is_int(pfr_ring_writer(ring, &w), 0,
	       "the dead holder's writer role taken over");
	is_int(child_open(ring, 0, 0), 3, "and held again: -PFR_E_BUSY");
	pfr_ring_close(ring);
}

/* pfr_ring_close() gives the roles back. */
static void test_close_releases(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o), .data_size = 4096};
	struct pfr_ring *ring, *b;
	struct pfr_writer w;
	int fd;

	if (pfr_ring_create_memfd(&ring, &o) ||
	    pfr_ring_attach_fd(&b, pfr_ring_fd(ring))) {
		ok(0, "memfd ring");
		return;
	}
	fd = pfr_ring_fd(ring);
	is_int(pfr_ring_writer(b, &w), 0, "writer through a second handle");
	pfr_ring_close(b);
	is_int(pfr_ring_writer_alive(ring), 0,
	       "pfr_ring_close() of that handle gave the role back");
	(void)fd;
	pfr_ring_close(ring);
}

/* ---- end of stream ---- */

/* A child writes n records to a PFR_RING_WAIT ring, then closes its
 * writer (how 1), or dies without closing (how 0). */
static pid_t child_write(struct pfr_ring *ring, int n, int how)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct pfr_writer w;
		uint64_t v;

		if (pfr_ring_writer(ring, &w))
			_exit(2);
		for (v = 0; v < (uint64_t)n; v++)
			if (pfr_writer_write(&w, TT_TYPE, &v, sizeof(v)))
				_exit(3);
		pfr_writer_flush(&w);
		if (how == 1)
			pfr_writer_close(&w);
		_exit(0);
	}
	return pid;
}

static void test_eos(int how, const char *what)
{
	struct pfr_ring *ring;
	struct pfr_reader r;
	struct pfr_record rec;
	int64_t rc = 0;
	int n = 0, waits = 0, st;
	pid_t pid;

	if (rt_mkring(&ring, 65536, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
		      PFR_RING_WAIT) ||
	    pfr_ring_reader(ring, &r)) {
		ok(0, "ring");
		return;
	}
	is_int(pfr_reader_eof(&r), 0, "no writer yet: no end");
	pid = child_write(ring, 100, how);
	/* each wait returns records or the end; 200 waits is a bound on a
	 * loop that would otherwise go on over time-outs */
	while (waits++ < 200) {
		rc = pfr_reader_wait_end(&r, 10000000000ull);
		if (rc <= 0)
			break;
		while (pfr_reader_next(&r, &rec) == 1)
			n++;
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child wrote", what);
	is_int(n, 100, "every record read before the end");
	is_int(rc, -PFR_E_CLOSED, "pfr_reader_wait_end(): -PFR_E_CLOSED");
	is_int(pfr_reader_eof(&r), 1, "pfr_reader_eof(): 1");
	is_int(pfr_ring_writer_alive(ring), 0, "no live writer");
	pfr_ring_close(ring);
}

/* A BLOCK writer whose reader closed (how 1) or died (how 0). */
static void test_block_reader_gone(int how, const char *what)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	uint64_t v = 0;
	int rc = 0, i;

	if (rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, PFR_ORDER_ACQREL, 0) ||
	    pfr_ring_writer(ring, &w)) {
		ok(0, "ring");
		return;
	}
	if (how == 1) {
		struct pfr_reader r;

		ok(pfr_ring_reader(ring, &r) == 0 && pfr_reader_close(&r) == 0,
		   "%s: reader opened and closed", what);
	} else {
		is_int(child_open(ring, 0, 0), 0, "a child's reader died");
	}
	/* an hour: the old code waits that long for the first record that
	 * does not fit (the alarm ends the test: a failure) */
	pfr_writer_set_timeout(&w, 3600000000000ull);
	alarm(120);
	for (i = 0; i < 1000 && !rc; i++, v++)
		rc = pfr_writer_write(&w, TT_TYPE, &v, sizeof(v));
	is_int(rc, -PFR_E_TIMEDOUT,
	       "the write that finds the ring full: -PFR_E_TIMEDOUT at once");
	is_int(pfr_writer_write(&w, TT_TYPE, &v, sizeof(v)), -PFR_E_TIMEDOUT,
	       "and the next one");
	alarm(0);
	is_uint(pfr_writer_lost(&w), 2, "both counted lost");
	is_int(pfr_ring_reader_alive(ring), 0, "no live reader");
	pfr_ring_close(ring);
}

/* ---- close-on-exec ---- */

static int exec_child(const char *fdstr)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	uint64_t v = 0xe8ec;

	if (pfr_ring_attach_fd(&ring, atoi(fdstr)) ||
	    pfr_ring_writer(ring, &w) ||
	    pfr_writer_write(&w, TT_TYPE, &v, sizeof(v)) ||
	    pfr_writer_close(&w))
		return 1;
	pfr_ring_close(ring);
	return 0;
}

static void test_inherit(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o), .data_size = 4096};
	struct pfr_ring *ring, *priv;
	struct pfr_reader r;
	struct pfr_record rec = {{0, 0, 0}, NULL, 0, 0};
	char fdstr[16];
	int fd, st;
	pid_t pid;

	if (pfr_ring_create_memfd(&ring, &o) || pfr_ring_reader(ring, &r)) {
		ok(0, "memfd ring");
		return;
	}
	fd = pfr_ring_fd(ring);
	ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "the memfd is close-on-exec");
	is_int(pfr_ring_set_inherit(ring, 1), fd, "set_inherit(1): the fd");
	ok(!(fcntl(fd, F_GETFD) & FD_CLOEXEC), "FD_CLOEXEC cleared");
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "ring_traps", "--exec-child", fdstr,
		      (char *)NULL);
		/* ENOEXEC: a foreign architecture's binary under qemu-user
		 * with no binfmt handler, which cannot exec itself */
		_exit(errno == ENOEXEC ? 126 : 127);
	}
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 126) {
		for (int i = 0; i < 3; i++)
			ok(1, "the exec'd child # SKIP this machine cannot "
			      "exec its own binary (ENOEXEC: qemu-user "
			      "without binfmt)");
	} else {
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		   "an exec'd program attached at the fd and wrote "
		   "(status %d)",
		   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		ok(pfr_reader_begin(&r) > 0 &&
			   pfr_reader_next(&r, &rec) == 1 && rec.len == 8 &&
			   !memcmp(rec.payload, &(uint64_t){0xe8ec}, 8),
		   "its record read");
		is_int(pfr_reader_eof(&r), 1, "and its close seen as the end");
	}
	is_int(pfr_ring_set_inherit(ring, 0), fd, "set_inherit(0)");
	ok(fcntl(fd, F_GETFD) & FD_CLOEXEC, "FD_CLOEXEC set again");
	is_int(pfr_ring_set_inherit(ring, 2), -PFR_E_INVAL, "inherit 2");
	is_int(pfr_ring_set_inherit(NULL, 1), -PFR_E_INVAL, "NULL");
	if (!rt_mkring(&priv, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL, 0)) {
		is_int(pfr_ring_set_inherit(priv, 1), -PFR_E_INVAL,
		       "a private ring has no fd");
		pfr_ring_close(priv);
	}
	pfr_ring_close(ring);
}

/* ---- the pollable fd ---- */

/* 1 when fd is readable within ms milliseconds. */
static int readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* The child of test_pollfd(): attaches by fd, takes the eventfd, and on
 * each byte from `go` writes one record ('w') or closes its writer ('c'),
 * answering each on `ack`. */
static int poll_child(int fd, int efd, int go, int ack)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	uint64_t v = 0;
	char c;

	if (pfr_ring_attach_fd(&ring, fd) || pfr_ring_set_eventfd(ring, efd) ||
	    pfr_ring_writer(ring, &w))
		return 2;
	while (read(go, &c, 1) == 1) {
		if (c == 'w' && pfr_writer_write(&w, TT_TYPE, &v, sizeof(v)))
			return 3;
		v++;
		if (c == 'c' && pfr_writer_close(&w))
			return 4;
		if (write(ack, &c, 1) != 1)
			return 5;
		if (c == 'c')
			break;
	}
	pfr_ring_close(ring);
	return 0;
}

/* Sends c to the child and waits for its answer. */
static int step(int go, int ack, char c)
{
	char a;

	return write(go, &c, 1) == 1 && read(ack, &a, 1) == 1 && a == c;
}

static void test_pollfd(void)
{
	struct pfr_ring_opts o = {
		.sz = sizeof(o), .data_size = 4096, .flags = PFR_RING_EVENTFD};
	struct pfr_ring *ring, *plain;
	struct pfr_reader r, pr;
	struct pfr_record rec;
	int efd, go[2], ack[2], st, n = 0;
	pid_t pid;

	if (pfr_ring_create_memfd(&ring, &o) || pfr_ring_reader(ring, &r) ||
	    pipe(go) || pipe(ack)) {
		ok(0, "eventfd ring");
		return;
	}
	efd = pfr_ring_eventfd(ring);
	ok(efd >= 0 && (fcntl(efd, F_GETFD) & FD_CLOEXEC),
	   "PFR_RING_EVENTFD: an eventfd, close-on-exec");
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(ack[0]);
		_exit(poll_child(pfr_ring_fd(ring), efd, go[0], ack[1]));
	}
	close(go[0]);
	close(ack[1]);
	is_int(pfr_reader_poll_prepare(&r), 0, "empty: armed");
	ok(!readable(efd, 0), "nothing published: not readable");
	ok(step(go[1], ack[0], 'w'), "the child's writer published");
	ok(readable(efd, 10000), "a publication wakes the poll");
	is_int(pfr_reader_poll_done(&r), 0, "poll_done");
	while (pfr_reader_begin(&r) > 0 && pfr_reader_next(&r, &rec) == 1)
		n++;
	is_int(n, 1, "its record read");
	ok(step(go[1], ack[0], 'w'), "published again, the reader not armed");
	ok(!readable(efd, 0), "no eventfd write while the reader is not armed");
	is_int(pfr_reader_poll_prepare(&r), 1, "a record waiting: prepare 1");
	while (pfr_reader_begin(&r) > 0 && pfr_reader_next(&r, &rec) == 1)
		n++;
	is_int(n, 2, "read");
	is_int(pfr_reader_poll_prepare(&r), 0, "armed again");
	ok(step(go[1], ack[0], 'c'), "the child's writer closed");
	ok(readable(efd, 10000), "the writer's close wakes the poll");
	pfr_reader_poll_done(&r);
	is_int(pfr_reader_poll_prepare(&r), 1, "at the end: prepare 1");
	is_int(pfr_reader_eof(&r), 1, "and the end of stream");
	close(go[1]);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d",
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	close(ack[0]);

	is_int(pfr_ring_set_eventfd(ring, pfr_ring_fd(ring)), -PFR_E_INVAL,
	       "set_eventfd: a memfd is not an eventfd");
	o.flags = PFR_RING_EVENTFD | PFR_RING_INBAND;
	is_int(pfr_ring_create(&plain, &o), -PFR_E_INVAL,
	       "PFR_RING_EVENTFD with PFR_RING_INBAND");
	if (!rt_mkring(&plain, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
		       PFR_RING_WAIT) &&
	    !pfr_ring_reader(plain, &pr)) {
		is_int(pfr_ring_eventfd(plain), -1, "no eventfd: -1");
		is_int(pfr_reader_poll_prepare(&pr), -PFR_E_INVAL,
		       "prepare without an eventfd");
		is_int(pfr_ring_set_eventfd(plain, efd), 0,
		       "set_eventfd on a WAIT ring");
		is_int(pfr_reader_poll_prepare(&pr), 0, "then it arms");
		pfr_reader_poll_done(&pr);
		pfr_ring_close(plain);
	}
	if (!rt_mkring(&plain, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL, 0)) {
		is_int(pfr_ring_set_eventfd(plain, efd), -PFR_E_INVAL,
		       "set_eventfd without PFR_RING_WAIT");
		pfr_ring_close(plain);
	}
	is_int(pfr_ring_eventfd(NULL), -PFR_E_INVAL, "eventfd(NULL)");
	is_int(pfr_reader_poll_prepare(NULL), -PFR_E_INVAL, "prepare(NULL)");
	pfr_ring_close(ring);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exec-child"))
		return exec_child(argv[2]);
	test_reserved_types(0, "head-polled");
	test_reserved_types(PFR_RING_INBAND, "in band");
	test_exact_len(0, "head-polled");
	test_exact_len(PFR_RING_INBAND, "in band");
	test_raw_misc();
	test_roles();
	test_close_releases();
	test_eos(1, "writer closed");
	test_eos(0, "writer died");
	test_block_reader_gone(1, "reader closed");
	test_block_reader_gone(0, "reader died");
	test_inherit();
	test_pollfd();
	ok(!strcmp(pfr_strerror(-PFR_E_CLOSED),
		   "the ring's other side closed or died"),
	   "PFR_E_CLOSED has a message");
	return tap_done();
}
