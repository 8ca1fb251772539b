// SPDX-License-Identifier: MIT
/*
 * Unit tests of <perfring/mpsc.h>, the shared ring with many producers:
 * options and attachment (magic, version, layout, size limit, short
 * mapping), round trips of every length with wrap-around, reservation
 * order with several producers (the reader stops at a BUSY record),
 * discard, DROP and BLOCK loss accounting (written = read + lost per
 * producer, LOST records carrying the producer's index), the blocking
 * wait, stalls (-PFR_E_STALLED), the dead-producer rule (a thread that
 * exits; a process killed between its CAS on prod_pos and its header,
 * sized from its announcement; two dead announcements naming the same
 * place), a reader killed while zeroing, the producer table (full, reclaim of a dead slot), the reader
 * role, and hostile shared memory.
 */
#include <errno.h>
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

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000l};

	nanosleep(&ts, NULL);
}

static struct pfr_mpsc *mk(uint64_t size, enum pfr_policy pol, uint32_t flags,
			   uint32_t np)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;
	int err;

	memset(&o, 0, sizeof(o));
	o.data_size = size;
	o.policy = pol;
	o.flags = flags;
	o.max_producers = np;
	err = pfr_mpsc_create(&m, &o);
	if (err) {
		tap_diag("pfr_mpsc_create: %s", pfr_strerror(err));
		exit(1);
	}
	return m;
}

/* Copies of the first payload bytes of the records drain() returns: a
 * payload is valid until pfr_mpsc_end(), which zeroes what was read. */
static unsigned char drained[16][64];

/* Reads everything readable now; returns records read or a -error.
 * recs[i].payload points to a copy of (up to 64 bytes of) the payload. */
static int drain(struct pfr_mpsc_reader *r, struct pfr_record *recs, int max)
{
	int n = 0, rc;
	struct pfr_record rec;

	if (pfr_mpsc_begin(r) < 0)
		return -1000;
	while ((rc = pfr_mpsc_next(r, &rec)) == 1) {
		if (recs && n < max && n < 16) {
			memcpy(drained[n], rec.payload,
			       rec.len < 64 ? rec.len : 64);
			recs[n] = rec;
			recs[n].payload = drained[n];
		}
		n++;
	}
	pfr_mpsc_end(r);
	return rc < 0 ? rc : n;
}

static unsigned char *data_of(struct pfr_mpsc *m)
{
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);

	return (unsigned char *)c + c->data_offset;
}

/* ---- options and attachment ---- */

static void test_opts(void)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL, *a = NULL;
	static const uint64_t bad[] = {8, 2048, 4097, 1ull << 41};
	struct pfr_mpsc_ctl *c;
	int fd;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.data_size = bad[i];
		is_int(pfr_mpsc_create(&m, &o), -PFR_E_INVAL, "bad data size");
	}
	memset(&o, 0, sizeof(o));
	o.policy = PFR_POLICY_OVERWRITE;
	is_int(pfr_mpsc_create(&m, &o), -PFR_E_INVAL, "OVERWRITE refused");
	o.policy = PFR_POLICY_DROP;
	o.max_producers = PFR_MPSC_PRODUCERS_MAX + 1;
	is_int(pfr_mpsc_create(&m, &o), -PFR_E_INVAL, "too many producers");
	o.max_producers = 0;
	o.flags = 0x80;
	is_int(pfr_mpsc_create(&m, &o), -PFR_E_INVAL, "unknown flag");

	o.flags = PFR_MPSC_WAIT;
	o.data_size = 8192;
	o.max_producers = 8;
	is_int(pfr_mpsc_create_memfd(&m, &o), 0, "memfd ring created");
	ok(pfr_mpsc_sealed(m), "memfd sealed against shrinking");
	fd = pfr_mpsc_fd(m);
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), 0, "attach by fd");
	if (a) {
		ok(pfr_mpsc_ctl(a)->data_size == 8192, "attached sizes");
		pfr_mpsc_close(a);
	}
	is_int(pfr_mpsc_attach_fd(&a, fd, 4096), -PFR_E_LAYOUT,
	       "a mapping above the caller's limit is refused");
	c = pfr_mpsc_ctl(m);
	c->magic ^= 1;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_MAGIC, "bad magic");
	c->magic ^= 1;
	c->version = 99;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_VERSION, "bad version");
	c->version = PFR_MPSC_VERSION;
	c->max_producers = 0;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_LAYOUT,
	       "zero producers: layout");
	c->max_producers = 100;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_LAYOUT,
	       "producer count that moves the data offset: layout");
	c->max_producers = 8;
	c->data_size = 1ull << 20;
	c->max_record = 65528;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_MAPPING,
	       "sizes beyond the object: mapping");
	c->data_size = 8192;
	c->max_record = 4088;
	c->max_record = 100;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), -PFR_E_LAYOUT, "bad max_record");
	c->max_record = 4088;
	is_int(pfr_mpsc_attach_fd(&a, fd, 0), 0, "repaired ring attaches");
	pfr_mpsc_close(a);
	pfr_mpsc_close(m);

	is_int(pfr_mpsc_create_shm(&m, "pfr-t-mpsc-unit", &o), 0,
	       "shm ring created");
	if (m) {
		is_int(pfr_mpsc_attach_shm(&a, "pfr-t-mpsc-unit", 0), 0,
		       "attach by name");
		pfr_mpsc_close(a);
		pfr_mpsc_close(m);
		is_int(pfr_mpsc_unlink("pfr-t-mpsc-unit"), 0, "unlink");
	}
	ok(!strcmp(pfr_strerror(-PFR_E_STALLED),
		   "a live producer has held a reserved record past the stall "
		   "time-out"),
	   "PFR_E_STALLED has a message");
}

/* ---- round trips, wrap, order ---- */

static void fill(unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seed * 31 + i * 7);
}

static void test_roundtrip(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader r;
	unsigned char buf[2048], want[2048];
	struct pfr_record rec;
	int bad = 0, n = 0;
	size_t maxp;

	is_int(pfr_mpsc_join(m, &p), 0, "join");
	is_int(pfr_mpsc_reader(m, &r), 0, "reader");
	maxp = pfr_mpsc_max_payload(&p);
	is_uint(maxp, 2048 - 16, "max payload of a 4 KiB ring");
	is_int(pfr_mpsc_write(&p, T_TYPE, buf, maxp + 1), -PFR_E_INVAL,
	       "too large");
	is_int(pfr_mpsc_write(&p, PFR_RECORD_PAD, buf, 8), -PFR_E_INVAL,
	       "reserved type refused");
	/* every length 0..maxp, one record at a time: wraps many times */
	for (size_t len = 0; len <= maxp; len += (len < 64 ? 1 : 37)) {
		fill(want, len, (unsigned)len);
		if (pfr_mpsc_write(&p, T_TYPE, want, len)) {
			bad++;
			continue;
		}
		if (pfr_mpsc_begin(&r) <= 0 || pfr_mpsc_next(&r, &rec) != 1 ||
		    rec.hdr.type != T_TYPE || rec.len != ((len + 7) & ~7ul) ||
		    rec.hdr.misc != pfr_mpsc_producer_index(&p) ||
		    memcmp(rec.payload, want, len))
			bad++;
		if (pfr_mpsc_next(&r, &rec) != 0)
			bad++;
		pfr_mpsc_end(&r);
		n++;
	}
	is_int(bad, 0, "every length round-trips, with the producer index");
	ok(pfr_mpsc_ctl(m)->prod_pos > 8 * 4096, "the ring wrapped");
	/* zero-copy reserve + commit */
	{
		void *dst = NULL;

		is_int(pfr_mpsc_reserve(&p, T_TYPE, 16, &dst), 0, "reserve");
		is_int(pfr_mpsc_reserve(&p, T_TYPE, 16, &dst), -PFR_E_INVAL,
		       "one reservation at a time");
		memcpy(dst, "0123456789abcdef", 16);
		pfr_mpsc_commit(&p);
		is_int(drain(&r, &rec, 1), 1, "zero-copy record read");
		ok(!memcmp(rec.payload, "0123456789abcdef", 16),
		   "zero-copy payload");
	}
	(void)n;
	pfr_mpsc_leave(&p);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* ---- bursts ---- */

/* Reads one record and checks it is p's, `len` bytes rounded, equal to
 * want; returns 1 when it is. */
static int read_is(struct pfr_mpsc_reader *r, const struct pfr_mpsc_producer *p,
		   const unsigned char *want, size_t len)
{
	struct pfr_record rec;

	if (r->tail == r->head && pfr_mpsc_begin(r) <= 0)
		return 0;
	return pfr_mpsc_next(r, &rec) == 1 && rec.hdr.type == T_TYPE &&
	       rec.len == ((len + 7) & ~7ul) &&
	       rec.hdr.misc == pfr_mpsc_producer_index(p) &&
	       !memcmp(rec.payload, want, len);
}

static void test_burst(void)
{
	/* PFR_MPSC_WAIT: the ring counts reserved records (`records`) */
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, PFR_MPSC_WAIT, 4);
	struct pfr_mpsc_producer p, q;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
	unsigned char buf[4096];
	uint64_t pos0, recs0;
	void *dst = NULL;
	int bad = 0, rc;

	is_int(pfr_mpsc_join(m, &p), 0, "burst: join p");
	is_int(pfr_mpsc_join(m, &q), 0, "burst: join q");
	is_int(pfr_mpsc_reader(m, &r), 0, "burst: reader");
	fill(buf, sizeof(buf), 7);
	pos0 = c->prod_pos;
	recs0 = c->records;
	is_int(pfr_mpsc_write_burst(&p, T_TYPE, buf, 12, 5), 0,
	       "burst of 5 written");
	is_uint(c->prod_pos - pos0, 5 * 24, "one stretch of 5 records");
	is_uint(c->records - recs0, 5, "5 records counted");
	for (int i = 0; i < 5; i++)
		bad += !read_is(&r, &p, buf + i * 12, 12);
	is_int(bad, 0, "the 5 records read in order, each its own payload");
	is_int(drain(&r, NULL, 0), 0, "nothing more");
	/* LOST is the ring's own type: a producer may not forge one */
	is_int(pfr_mpsc_write(&p, PFR_RECORD_LOST, buf, 8), -PFR_E_INVAL,
	       "write of type LOST refused");
	is_int(pfr_mpsc_write_burst(&p, PFR_RECORD_LOST, buf, 8, 2),
	       -PFR_E_INVAL, "burst of type LOST refused");
	is_int(drain(&r, NULL, 0), 0, "nothing written, the reader not stuck");
	/* one record type on the way: 0 records, bad arguments */
	is_int(pfr_mpsc_write_burst(&p, T_TYPE, buf, 8, 0), 0, "n = 0");
	is_int(drain(&r, NULL, 0), 0, "n = 0 writes nothing");
	is_int(pfr_mpsc_write_burst(&p, T_TYPE, buf,
				    pfr_mpsc_max_payload(&p) + 1, 2),
	       -PFR_E_INVAL, "burst: too large");
	is_int(pfr_mpsc_write_burst(&p, PFR_RECORD_PAD, buf, 8, 2),
	       -PFR_E_INVAL, "burst: reserved type");
	is_int(pfr_mpsc_reserve(&p, T_TYPE, 8, &dst), 0, "p reserves");
	is_int(pfr_mpsc_write_burst(&p, T_TYPE, buf, 8, 2), -PFR_E_INVAL,
	       "burst with a reservation open");
	/* q's burst behind p's open reservation: read after it */
	is_int(pfr_mpsc_write_burst(&q, T_TYPE, buf + 100, 16, 3), 0,
	       "q bursts behind p's reservation");
	is_int(drain(&r, NULL, 0), 0, "the reader stops at p's BUSY record");
	memcpy(dst, buf + 50, 8);
	pfr_mpsc_commit(&p);
	bad = !read_is(&r, &p, buf + 50, 8);
	for (int i = 0; i < 3; i++)
		bad += !read_is(&r, &q, buf + 100 + i * 16, 16);
	is_int(bad, 0, "p's record, then q's 3 in order");
	pfr_mpsc_end(&r);
	/* bursts of every shape across many wraps (the stretch does not
	 * fit before the end: one by one) */
	bad = 0;
	for (unsigned k = 0; k < 3000; k++) {
		size_t len = (k * 13) % 200, n = 1 + k % 9;

		fill(buf, n * len, k);
		if (pfr_mpsc_write_burst(&p, T_TYPE, buf, len, n)) {
			bad++;
			continue;
		}
		for (size_t i = 0; i < n; i++)
			bad += !read_is(&r, &p, buf + i * len, len);
		pfr_mpsc_end(&r);
	}
	is_int(bad, 0, "3000 bursts of 1..9 records round-trip");
	ok(c->prod_pos > 100 * 4096, "the ring wrapped");
	/* a full ring: the burst's first record that does not fit fails */
	rc = 0;
	for (int i = 0; i < 1000 && !rc; i++)
		rc = pfr_mpsc_write_burst(&p, T_TYPE, buf, 56, 4);
	is_int(rc, -PFR_E_NOSPC, "burst into a full ring: -PFR_E_NOSPC");
	ok(pfr_mpsc_lost(&p) >= 1, "the record that did not fit is lost");
	ok(drain(&r, NULL, 0) > 0, "what fitted is readable");
	pfr_mpsc_leave(&p);
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

static void test_order_discard(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_producer a, b, c;
	struct pfr_mpsc_reader r;
	struct pfr_record recs[8];
	struct pfr_mpsc_stats st;
	void *pa = NULL, *pc = NULL;
	uint64_t v;

	pfr_mpsc_join(m, &a);
	pfr_mpsc_join(m, &b);
	pfr_mpsc_join(m, &c);
	ok(a.index != b.index && b.index != c.index && a.index != c.index,
	   "three producers, three slots");
	pfr_mpsc_reader(m, &r);
	is_int(pfr_mpsc_reserve(&a, T_TYPE, 8, &pa), 0, "a reserves");
	v = 2;
	is_int(pfr_mpsc_write(&b, T_TYPE, &v, 8), 0, "b writes after a");
	is_int(pfr_mpsc_reserve(&c, T_TYPE, 8, &pc), 0, "c reserves");
	is_int(drain(&r, recs, 8), 0,
	       "reader stops at a's BUSY record, never past it");
	v = 1;
	memcpy(pa, &v, 8);
	pfr_mpsc_commit(&a);
	is_int(drain(&r, recs, 8), 2, "a commits: a and b readable");
	{
		uint64_t v0, v1;

		memcpy(&v0, recs[0].payload, 8);
		memcpy(&v1, recs[1].payload, 8);
		ok(recs[0].hdr.misc == a.index && recs[1].hdr.misc == b.index &&
			   v0 == 1 && v1 == 2,
		   "reservation order, producer index in misc");
	}
	pfr_mpsc_discard(&c);
	v = 4;
	pfr_mpsc_write(&a, T_TYPE, &v, 8);
	is_int(drain(&r, recs, 8), 1, "c's discarded record skipped");
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.discarded, 1, "discarded counted");
	is_uint(st.records_read, 3, "records read counted");
	ok(st.busy_stops >= 1, "the BUSY stop counted");
	pfr_mpsc_leave(&a);
	pfr_mpsc_leave(&b);
	pfr_mpsc_leave(&c);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* ---- loss accounting ---- */

static void test_drop(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_producer p[2];
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	uint64_t written[2] = {0, 0}, read[2] = {0, 0}, lost[2] = {0, 0};
	unsigned char buf[200];
	int rc, bad = 0;

	pfr_mpsc_join(m, &p[0]);
	pfr_mpsc_join(m, &p[1]);
	pfr_mpsc_reader(m, &r);
	memset(buf, 0x5a, sizeof(buf));
	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 60; i++) {
			int k = i & 1;

			written[k]++;
			rc = pfr_mpsc_write(&p[k], T_TYPE, buf,
					    (size_t)(i * 3) % 200);
			if (rc && rc != -PFR_E_NOSPC)
				bad++;
		}
		if (pfr_mpsc_begin(&r) < 0)
			bad++;
		while ((rc = pfr_mpsc_next(&r, &rec)) == 1) {
			int k = rec.hdr.misc == p[0].index ? 0 : 1;

			if (rec.hdr.type == PFR_RECORD_LOST) {
				const struct pfr_lost_record *lr =
					(const void *)((const char *)
							       rec.payload -
						       8);

				if (lr->id != rec.hdr.misc)
					bad++;
				lost[k] += lr->lost;
			} else {
				read[k]++;
			}
		}
		if (rc)
			bad++;
		pfr_mpsc_end(&r);
	}
	for (int k = 0; k < 2; k++)
		pfr_mpsc_flush(&p[k]);
	if (pfr_mpsc_begin(&r) < 0)
		bad++;
	while (pfr_mpsc_next(&r, &rec) == 1) {
		int k = rec.hdr.misc == p[0].index ? 0 : 1;
		uint64_t l;

		if (rec.hdr.type != PFR_RECORD_LOST) {
			read[k]++;
			continue;
		}
		memcpy(&l, (const char *)rec.payload + 8, 8);
		lost[k] += l;
	}
	pfr_mpsc_end(&r);
	is_int(bad, 0, "DROP: no unexpected error");
	for (int k = 0; k < 2; k++) {
		ok(pfr_mpsc_lost(&p[k]) > 0, "producer %d dropped some", k);
		is_uint(lost[k], pfr_mpsc_lost(&p[k]),
			"LOST records carry exactly the producer's losses");
		is_uint(written[k], read[k] + lost[k],
			"written = read + lost, per producer");
	}
	pfr_mpsc_leave(&p[0]);
	pfr_mpsc_leave(&p[1]);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

struct reader_arg {
	struct pfr_mpsc *m;
	uint64_t want, got;
	int err;
	uint32_t wake_bytes;
};

static void *wait_reader(void *arg)
{
	struct reader_arg *a = arg;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	int rc;

	if (pfr_mpsc_reader(a->m, &r)) {
		a->err = -1;
		return NULL;
	}
	pfr_mpsc_set_wakeup(&r, a->wake_bytes, 0);
	while (a->got < a->want) {
		int64_t av = pfr_mpsc_wait(&r, 5000000000ull);

		if (av < 0) {
			a->err = (int)av;
			break;
		}
		while ((rc = pfr_mpsc_next(&r, &rec)) == 1) {
			uint64_t seq;

			memcpy(&seq, rec.payload, 8);
			if (seq != a->got)
				a->err = -2;
			a->got++;
		}
	}
	pfr_mpsc_reader_close(&r);
	return NULL;
}

static void test_block_wait(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_BLOCK, PFR_MPSC_WAIT, 4);
	struct pfr_mpsc_producer p;
	struct reader_arg a = {m, 3000, 0, 0, 0};
	pthread_t t;
	unsigned char buf[64];
	int bad = 0;

	pfr_mpsc_join(m, &p);
	pfr_mpsc_set_timeout(&p, 10000000000ull);
	pthread_create(&t, NULL, wait_reader, &a);
	for (uint64_t i = 0; i < a.want; i++) {
		memcpy(buf, &i, 8);
		if (pfr_mpsc_write(&p, T_TYPE, buf, 8 + (i % 7) * 8))
			bad++;
	}
	pthread_join(t, NULL);
	is_int(bad, 0, "BLOCK: every write waited for space, none lost");
	is_int(a.err, 0, "waiting reader: records in order");
	is_uint(a.got, a.want, "waiting reader got them all");
	is_uint(pfr_mpsc_lost(&p), 0, "nothing lost");

	/* BLOCK time-out with no reader: counted as lost */
	{
		struct pfr_mpsc_producer q;
		uint64_t t0;
		int rc = 0, n = 0;

		pfr_mpsc_join(m, &q);
		pfr_mpsc_set_timeout(&q, 20000000ull);
		t0 = now_ns();
		while (n < 1000 &&
		       (rc = pfr_mpsc_write(&q, T_TYPE, buf, 64)) == 0)
			n++;
		is_int(rc, -PFR_E_TIMEDOUT, "BLOCK with no reader: time-out");
		is_uint(pfr_mpsc_lost(&q), 1, "the timed-out record is lost");
		ok(now_ns() - t0 >= 20000000ull, "it waited its time-out");
		pfr_mpsc_leave(&q);
	}
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

/* ---- stalls and dead producers ---- */

static void test_stall(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, PFR_MPSC_WAIT, 4);
	struct pfr_mpsc_producer p, q;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	struct pfr_mpsc_stats st;
	void *dst = NULL;
	uint64_t v = 7;
	int rc;

	pfr_mpsc_join(m, &p);
	pfr_mpsc_join(m, &q);
	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 20000000ull);
	pfr_mpsc_reserve(&p, T_TYPE, 8, &dst);
	pfr_mpsc_write(&q, T_TYPE, &v, 8);
	pfr_mpsc_begin(&r);
	is_int(pfr_mpsc_next(&r, &rec), 0, "BUSY: 0 before the time-out");
	sleep_ms(30);
	is_int(pfr_mpsc_next(&r, &rec), -PFR_E_STALLED,
	       "a live owner past the time-out: -PFR_E_STALLED");
	is_int(pfr_mpsc_next(&r, &rec), -PFR_E_STALLED, "and again");
	is_int(pfr_mpsc_wait(&r, 1000000000ull), -PFR_E_STALLED,
	       "wait reports the stall too, without hanging");
	memcpy(dst, &v, 8);
	pfr_mpsc_commit(&p);
	is_int(drain(&r, NULL, 0), 2, "after the commit both records come");
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.stalls, 1, "one stall counted");
	ok(st.stall_ns >= 20000000ull && st.stall_max_ns >= 20000000ull,
	   "its duration accounted");
	is_uint(st.dead_skipped, 0, "nothing skipped");
	(void)rc;
	pfr_mpsc_leave(&p);
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

static void *exit_mid_record(void *arg)
{
	struct pfr_mpsc_producer p;
	void *dst = NULL;

	if (pfr_mpsc_join(arg, &p) || pfr_mpsc_reserve(&p, T_TYPE, 32, &dst))
		return (void *)1;
	memset(dst, 0xee, 16); /* half the record, then the thread ends */
	return NULL;
}

static void test_dead_thread(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	pthread_t t;
	void *res;
	uint64_t v = 5, t0;
	int rc, got = 0;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 10000000ull);
	pthread_create(&t, NULL, exit_mid_record, m);
	pthread_join(t, &res);
	ok(res == NULL, "the thread reserved and exited");
	pfr_mpsc_join(m, &q);
	pfr_mpsc_write(&q, T_TYPE, &v, 8);
	t0 = now_ns();
	while (now_ns() - t0 < 5000000000ull) {
		rc = drain(&r, NULL, 0);
		if (rc > 0) {
			got += rc;
			break;
		}
		if (rc < 0 && rc != -PFR_E_STALLED)
			break;
		sleep_ms(2);
	}
	is_int(got, 1, "the record behind the dead thread's is read");
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.dead_skipped, 1, "the dead thread's record skipped");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* Plants what a producer killed between its CAS on prod_pos (R) and its
 * BUSY header store leaves: the announcement [pos, pos + size) in its
 * slot, prod_pos moved past it, the header still zero.  Uses the
 * library's own announce and CAS, as pfr_mpsc_reserve() does. */
static uint64_t plant_unwritten(struct pfr_mpsc_producer *p, uint64_t size)
{
	uint64_t pos = PFR_READ_ONCE(p->ctl->prod_pos);

	pfr__mpsc_announce(p, pos, pos + size);
	if (!pfr__mpsc_cas_release(&p->ctl->prod_pos, &pos, pos + size))
		return UINT64_MAX;
	return pos;
}

/* Polls until a record comes or `ns` passes; counts -PFR_E_STALLED. */
static int poll_records(struct pfr_mpsc_reader *r, uint64_t ns, int *stalled)
{
	uint64_t t0 = now_ns();
	int rc;

	while (now_ns() - t0 < ns) {
		rc = drain(r, NULL, 0);
		if (rc == -PFR_E_STALLED && stalled)
			(*stalled)++;
		if (rc > 0)
			return rc;
		if (rc < 0 && rc != -PFR_E_STALLED)
			return rc;
		sleep_ms(1);
	}
	return 0;
}

/*
 * A producer process killed between its CAS on prod_pos and its BUSY
 * store: a zero header below prod_pos.  While it lives the reader reports
 * -PFR_E_STALLED and never skips; its slot is not reused before the
 * reader has passed its announcement; once it is dead the reader sizes
 * the hole from the announcement, skips it (dead_skipped 1) and reads the
 * record behind it.
 */
static void test_dead_process(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 2);
	struct pfr_mpsc_producer q, x;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	int pfd[2], status, rc, stalled = 0;
	uint64_t v = 3, hole = 0;
	unsigned char *d = data_of(m);
	pid_t pid;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 10000000ull);
	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		struct pfr_mpsc_producer p;
		uint64_t pos;

		if (pfr_mpsc_join(m, &p))
			_exit(1);
		pos = plant_unwritten(&p, 72);
		if (write(pfd[1], &pos, 8) != 8)
			_exit(1);
		for (;;)
			pause(); /* alive, never writes its header */
	}
	close(pfd[1]);
	ok(read(pfd[0], &hole, 8) == 8 && hole != UINT64_MAX,
	   "child announced and took 72 bytes, stopped before its header");
	close(pfd[0]);
	is_int(pfr_mpsc_join(m, &q), 0, "a second producer joins");
	is_int(pfr_mpsc_join(m, &x), -PFR_E_BUSY,
	       "table of two, both live: -PFR_E_BUSY");
	is_int(pfr_mpsc_write(&q, T_TYPE, &v, 8), 0, "q writes behind the hole");
	ok(!memcmp(d + (hole & 4095), "\0\0\0\0\0\0\0\0", 8),
	   "the hole's header is zero");
	is_int(poll_records(&r, 300000000ull, &stalled), 0,
	       "live owner of an unwritten reservation: nothing read");
	ok(stalled > 0, "the stall is reported (-PFR_E_STALLED)");
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.dead_skipped, 0, "a live announcement is never skipped");
	is_uint(st.stalls, 1, "one stall counted");
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status), "child killed with SIGKILL");
	is_int(pfr_mpsc_join(m, &x), -PFR_E_BUSY,
	       "the dead child's slot is not reused before the reader "
	       "passed its announcement");
	stalled = 0;
	rc = poll_records(&r, 5000000000ull, &stalled);
	is_int(rc, 1, "the dead child's hole skipped, q's record read");
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.dead_skipped, 1, "dead_skipped 1");
	is_uint(st.stalls, 1, "the stall counted once");
	is_uint(st.cons_pos, hole + 72 + 16, "consumed past the hole and q's");
	is_int(pfr_mpsc_join(m, &x), 0,
	       "past its announcement: the dead producer's slot reclaimed");
	ok(x.index != q.index, "the dead child's slot");
	is_int(pfr_mpsc_write(&x, T_TYPE, &v, 8), 0, "its next owner writes");
	is_int(drain(&r, NULL, 0), 1, "and is read");
	pfr_mpsc_leave(&x);
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* A child joins, runs fn on its producer, and exits without leaving:
 * a dead producer whose slot holds what fn planted. */
static void dead_child(struct pfr_mpsc *m, void (*fn)(struct pfr_mpsc_producer *,
						     uint64_t),
		       uint64_t arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		struct pfr_mpsc_producer p;

		if (pfr_mpsc_join(m, &p))
			_exit(1);
		fn(&p, arg);
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

/* A CAS lost to another producer: the announcement stays, prod_pos is
 * not moved (the producer died before announcing again). */
static uint64_t stale_base; /* the position the stale CAS expected */

static void announce_only(struct pfr_mpsc_producer *p, uint64_t size)
{
	pfr__mpsc_announce(p, stale_base, stale_base + size);
}

static void announce_take(struct pfr_mpsc_producer *p, uint64_t size)
{
	(void)plant_unwritten(p, size);
}

/*
 * Two dead announcements name the tail: one stale (its owner lost the CAS
 * and died before announcing again), one whose owner won the CAS and died
 * before its header.  The reader takes the announcement over zero words:
 * the stale one, longer, covers the next record's header.  Both orders of
 * the slots, and a stale one shorter than the real one.
 */
static void test_two_dead(void)
{
	static const struct {
		uint64_t first, second; /* sizes; 0 = stale in the first */
		int stale_first;
		uint64_t taken;
	} cases[] = {
		{64, 16, 1, 16}, /* stale longer, lower slot */
		{16, 64, 0, 16}, /* stale longer, higher slot */
		{16, 48, 1, 48}, /* stale shorter: the real one, longer */
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
		struct pfr_mpsc_producer q;
		struct pfr_mpsc_reader r;
		struct pfr_mpsc_stats st;
		struct pfr_record rec;
		uint64_t v = 11, base, t0;
		int rc = 0;

		pfr_mpsc_reader(m, &r);
		pfr_mpsc_set_stall(&r, 5000000ull);
		base = pfr_mpsc_ctl(m)->prod_pos;
		stale_base = base;
		if (cases[k].stale_first) {
			dead_child(m, announce_only, cases[k].first);
			dead_child(m, announce_take, cases[k].second);
		} else {
			dead_child(m, announce_take, cases[k].first);
			dead_child(m, announce_only, cases[k].second);
		}
		ok(pfr_mpsc_ctl(m)->prod_pos == base + cases[k].taken,
		   "case %zu: one CAS taken (%llu bytes)", k,
		   (unsigned long long)cases[k].taken);
		ok(pfr_mpsc_join(m, &q) == 0, "case %zu: q joins", k);
		ok(pfr_mpsc_write(&q, T_TYPE, &v, 8) == 0,
		   "case %zu: q writes after the hole", k);
		t0 = now_ns();
		while (now_ns() - t0 < 5000000000ull) {
			if (pfr_mpsc_begin(&r) < 0)
				break;
			rc = pfr_mpsc_next(&r, &rec);
			if (rc == 1 || (rc < 0 && rc != -PFR_E_STALLED))
				break;
			pfr_mpsc_end(&r);
			sleep_ms(1);
		}
		ok(rc == 1 && rec.pos == base + cases[k].taken &&
			   rec.hdr.misc == q.index,
		   "case %zu: the hole sized from the announcement over "
		   "zero words, q's record read at its place (rc %d)",
		   k, rc);
		pfr_mpsc_end(&r);
		pfr_mpsc_stats(m, &r, &st);
		ok(st.dead_skipped == 1, "case %zu: dead_skipped 1", k);
		pfr_mpsc_leave(&q);
		pfr_mpsc_reader_close(&r);
		pfr_mpsc_close(m);
	}
}

/*
 * A stale dead announcement longer than the dead owner's real one, with
 * nothing written behind the real one: (after 0) nothing reserved after
 * it, (after 1) a live producer's unwritten reservation right after it.
 * The words past the real record are all zero, yet the reader must not
 * take the stale end: it would skip past prod_pos, or over the live
 * producer's reservation (which it would then free under it).
 */
static void test_stale_overshoot(void)
{
	for (int after = 0; after < 2; after++) {
		struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
		struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
		struct pfr_mpsc_producer q;
		struct pfr_mpsc_reader r;
		struct pfr_mpsc_stats st;
		unsigned char *d = data_of(m);
		uint64_t base, t0, qpos = 0;
		int rc = 0, stalled = 0;

		pfr_mpsc_reader(m, &r);
		pfr_mpsc_set_stall(&r, 5000000ull);
		base = stale_base = c->prod_pos;
		dead_child(m, announce_only, 64); /* stale: lost its CAS */
		dead_child(m, announce_take, 16); /* real: died before header */
		pfr_mpsc_join(m, &q);
		if (after)
			qpos = plant_unwritten(&q, 32); /* live, not written */
		t0 = now_ns();
		while (now_ns() - t0 < 300000000ull) {
			rc = drain(&r, NULL, 0);
			stalled += rc == -PFR_E_STALLED;
			if (rc && rc != -PFR_E_STALLED)
				break;
			sleep_ms(1);
		}
		pfr_mpsc_stats(m, &r, &st);
		ok(st.dead_skipped == 1 && r.tail == base + 16,
		   "after %d: the dead owner's 16 bytes skipped, not the "
		   "stale 64 (tail at +%llu, rc %d)",
		   after, (unsigned long long)(r.tail - base), rc);
		ok(c->cons_pos <= c->prod_pos, "after %d: never past prod_pos",
		   after);
		if (after) {
			uint64_t h = pfr__mpsc_hdr(T_TYPE, q.index, 32);

			ok(rc == -PFR_E_STALLED && stalled > 0,
			   "after 1: the live reservation stalls the reader");
			/* q writes its record (as a commit would) */
			memset(d + (qpos & 4095) + 8, 0x5c, 24);
			/* B: pairs with C2, as in pfr__mpsc_finish() */
			pfr_smp_store_release((uint64_t *)(d + (qpos & 4095)),
					      h);
			rc = drain(&r, NULL, 0);
			is_int(rc, 1, "after 1: then its record is read");
		} else {
			uint64_t v = 1;

			ok(rc == 0 || rc == -PFR_E_STALLED,
			   "after 0: drained, no error (rc %d)", rc);
			pfr_mpsc_write(&q, T_TYPE, &v, 8);
			rc = drain(&r, NULL, 0);
			is_int(rc, 1, "after 0: the next record is read");
		}
		pfr_mpsc_reader_close(&r);
		pfr_mpsc_close(m);
	}
}

/* pfr_mpsc_wait() at a dead producer's unwritten reservation: it sleeps
 * no longer than the stall time-out, skips the hole, and returns with the
 * record behind it ready. */
static void test_wait_hole(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, PFR_MPSC_WAIT, 4);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	struct pfr_record rec;
	uint64_t v = 5, t0, base;
	int64_t av;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 20000000ull);
	base = pfr_mpsc_ctl(m)->prod_pos;
	dead_child(m, announce_take, 24);
	pfr_mpsc_join(m, &q);
	pfr_mpsc_write(&q, T_TYPE, &v, 8);
	t0 = now_ns();
	av = pfr_mpsc_wait(&r, 3000000000ull);
	ok(av > 0, "wait: returns with data after the hole (%lld)",
	   (long long)av);
	ok(now_ns() - t0 < 1500000000ull, "after about the stall time-out");
	is_int(pfr_mpsc_next(&r, &rec), 1, "q's record read");
	is_uint(rec.pos, base + 24, "at its place");
	pfr_mpsc_end(&r);
	pfr_mpsc_stats(m, &r, &st);
	is_uint(st.dead_skipped, 1, "wait: the hole skipped once");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* A dead producer's unwritten reservation across the end of the data
 * area (its PAD record not written either): skipped whole, the record
 * behind it read at the start of the next lap, the space zeroed. */
static void test_hole_wraps(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	unsigned char *d = data_of(m);
	uint64_t buf[8] = {0}, base;
	int rc, nz = 0;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 5000000ull);
	pfr_mpsc_join(m, &q);
	for (int i = 0; i < 63; i++) /* 63 * 64 = 4032 */
		pfr_mpsc_write(&q, T_TYPE, buf, 56);
	pfr_mpsc_write(&q, T_TYPE, buf, 40); /* 4080 */
	drain(&r, NULL, 0);
	base = c->prod_pos;
	is_uint(base & 4095, 4080, "16 bytes before the end");
	dead_child(m, announce_take, 16 + 64); /* PAD + record */
	buf[0] = 77;
	pfr_mpsc_write(&q, T_TYPE, buf, 8);
	rc = poll_records(&r, 5000000000ull, NULL);
	pfr_mpsc_stats(m, &r, &st);
	ok(rc == 1 && st.dead_skipped == 1 && r.tail == base + 80 + 16,
	   "the hole across the end skipped, the next record read (rc %d)",
	   rc);
	for (int i = 0; i < 4096; i += 8)
		nz += *(uint64_t *)(d + i) != 0;
	is_int(nz, 0, "everything read is zeroed");
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* The real owner of a hole had dropped records: its reservation holds a
 * LOST record and then its record.  Killed while writing the LOST record
 * (its BUSY header and payload stored, not its final header), with a
 * stale dead announcement naming the same place: the LOST record is
 * skipped as a dead producer's, then the unwritten record. */
static void die_in_lost(struct pfr_mpsc_producer *p, uint64_t size)
{
	struct pfr_mpsc_ctl *c = p->ctl;
	unsigned char *d = (unsigned char *)c + c->data_offset;
	uint64_t pos = plant_unwritten(p, 24 + size), id = p->index, lost = 3;

	/* as pfr__mpsc_reserve_slow() stores the LOST record, up to its
	 * final header: BUSY first, then the payload */
	if (pos == UINT64_MAX)
		_exit(1);
	PFR_WRITE_ONCE(*(uint64_t *)(d + (pos & 4095)),
		       pfr__mpsc_hdr(PFR_MPSC_BUSY | p->gen, p->index, 24));
	memcpy(d + (pos & 4095) + 8, &id, 8);
	memcpy(d + (pos & 4095) + 16, &lost, 8);
	PFR_WRITE_ONCE(p->slot->lost_due, 3);
}

static void test_dead_in_lost(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
	struct pfr_mpsc_producer q;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	uint64_t v = 9, base, t0;
	int rc = 0;

	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 5000000ull);
	base = stale_base = c->prod_pos;
	dead_child(m, announce_only, 16); /* stale, shorter */
	dead_child(m, die_in_lost, 16); /* real: LOST + 16 */
	pfr_mpsc_join(m, &q);
	pfr_mpsc_write(&q, T_TYPE, &v, 8);
	t0 = now_ns();
	while (now_ns() - t0 < 2000000000ull) {
		if (pfr_mpsc_begin(&r) < 0)
			break;
		rc = pfr_mpsc_next(&r, &rec);
		if (rc == 1 || (rc < 0 && rc != -PFR_E_STALLED))
			break;
		pfr_mpsc_end(&r);
		sleep_ms(1);
	}
	ok(rc == 1 && rec.pos == base + 40 && rec.hdr.type == T_TYPE &&
		   rec.hdr.misc == q.index,
	   "killed writing its LOST record: the hole skipped whole, the "
	   "next record read at its place (rc %d, at +%llu)",
	   rc, (unsigned long long)(rec.pos - base));
	pfr_mpsc_end(&r);
	{
		struct pfr_mpsc_stats st;
		struct pfr_mpsc_producer x, y, z;
		uint64_t l = 0;

		pfr_mpsc_stats(m, &r, &st);
		is_uint(st.dead_skipped, 2, "its BUSY LOST record, its record");
		/* its 3 drops were never read: the slot's next owner
		 * reports them (slot 1: the real owner's) */
		pfr_mpsc_join(m, &y); /* slot 3, free */
		pfr_mpsc_join(m, &x); /* slot 0, the stale announcer's */
		is_int(pfr_mpsc_join(m, &z), 0, "a dead owner's slot rejoined");
		is_uint(z.index, 1, "the real owner's");
		pfr_mpsc_write(&z, T_TYPE, &v, 8);
		pfr_mpsc_begin(&r);
		while (pfr_mpsc_next(&r, &rec) == 1)
			if (rec.hdr.type == PFR_RECORD_LOST &&
			    rec.hdr.misc == 1)
				memcpy(&l, (const char *)rec.payload + 8, 8);
		pfr_mpsc_end(&r);
		is_uint(l, 3, "the dead owner's 3 drops reported by slot 1's "
			      "next owner");
		pfr_mpsc_leave(&x);
		pfr_mpsc_leave(&y);
		pfr_mpsc_leave(&z);
	}
	pfr_mpsc_leave(&q);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/*
 * A reader killed while zeroing what it had read (pfr_mpsc_end(): free_pos
 * stored, part of the range zeroed, cons_pos not yet stored).  The next
 * reader finishes the zeroing, frees the range and resumes at free_pos:
 * nothing is read twice, and the producers get the space back.
 */
static void test_reader_killed_zeroing(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 2);
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader r;
	unsigned char *d = data_of(m);
	uint64_t v, freed = 0, cons0, nz = 0, buf[7] = {0};
	int pfd[2], status, bad = 0, n;
	pid_t pid;

	pfr_mpsc_join(m, &p);
	/* a lap in: the range being freed wraps around the end */
	for (v = 0; v < 60; v++)
		(buf[0] = v, pfr_mpsc_write(&p, T_TYPE, buf, 56));
	{
		struct pfr_mpsc_reader r0;

		pfr_mpsc_reader(m, &r0);
		drain(&r0, NULL, 0);
		pfr_mpsc_reader_close(&r0);
	}
	for (v = 0; v < 40; v++)
		if ((buf[0] = v, pfr_mpsc_write(&p, T_TYPE, buf, 56)))
			bad++;
	is_int(bad, 0, "40 records written across the end");
	cons0 = c->cons_pos;
	if (pipe(pfd))
		return;
	pid = fork();
	if (pid == 0) {
		struct pfr_mpsc_reader rk;
		struct pfr_record rec;
		int k = 0;

		if (pfr_mpsc_reader(m, &rk) || pfr_mpsc_begin(&rk) <= 0)
			_exit(1);
		while (k < 30 && pfr_mpsc_next(&rk, &rec) == 1)
			k++;
		/* pfr_mpsc_end() cut short: free_pos, half the zeroing */
		PFR_WRITE_ONCE(c->free_pos, rk.tail);
		pfr__mpsc_zero(d, rk.mask, rk.published,
			       rk.published + (rk.tail - rk.published) / 2);
		if (write(pfd[1], &rk.tail, 8) != 8)
			_exit(1);
		raise(SIGKILL);
		_exit(1);
	}
	close(pfd[1]);
	ok(read(pfd[0], &freed, 8) == 8 && freed == cons0 + 30 * 64,
	   "the reader read 30 records, died zeroing them");
	close(pfd[0]);
	waitpid(pid, &status, 0);
	ok(WIFSIGNALED(status), "killed");
	is_uint(c->cons_pos, cons0, "cons_pos not stored");
	for (uint64_t at = cons0; at < freed; at += 8)
		nz += *(uint64_t *)(d + (at & 4095)) != 0;
	ok(nz > 0, "the range is partly zeroed");
	is_int(pfr_mpsc_reader(m, &r), 0, "a new reader takes the role");
	is_uint(c->cons_pos, freed, "it freed up to free_pos");
	is_uint(r.tail, freed, "and resumes there");
	nz = 0;
	for (uint64_t at = cons0; at < freed; at += 8)
		nz += *(uint64_t *)(d + (at & 4095)) != 0;
	is_uint(nz, 0, "the killed reader's zeroing finished");
	{
		struct pfr_record recs[16];
		uint64_t first;

		n = drain(&r, recs, 16);
		memcpy(&first, recs[0].payload, 8);
		ok(n == 10 && first == 30,
		   "the 10 records not read are read, none twice (%d)", n);
	}
	bad = 0;
	for (v = 0; v < 63; v++)
		if ((buf[0] = v, pfr_mpsc_write(&p, T_TYPE, buf, 56)))
			bad++;
	is_int(bad, 0, "a whole lap of space is the producers' again");
	is_int(drain(&r, NULL, 0), 63, "and read");
	/* hostile free_pos: refused, the role not kept */
	pfr_mpsc_reader_close(&r);
	c->free_pos = c->cons_pos + 4;
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_RECSIZE_ALIGN,
	       "misaligned free_pos refused");
	c->free_pos = c->cons_pos + 8192;
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_LAYOUT,
	       "free_pos more than a lap ahead refused");
	c->free_pos = c->prod_pos + 64;
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_LAYOUT,
	       "free_pos past prod_pos refused");
	c->free_pos = c->cons_pos - 64;
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_LAYOUT,
	       "free_pos behind cons_pos refused");
	is_uint(c->reader_owner, 0, "no role kept");
	c->free_pos = c->cons_pos;
	is_int(pfr_mpsc_reader(m, &r), 0, "repaired: the reader opens");
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

static void test_roles(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 2);
	struct pfr_mpsc_producer p[3];
	struct pfr_mpsc_reader r, r2;
	pid_t pid;
	int status;

	is_int(pfr_mpsc_join(m, &p[0]), 0, "join 1 of 2");
	is_int(pfr_mpsc_join(m, &p[1]), 0, "join 2 of 2");
	is_int(pfr_mpsc_join(m, &p[2]), -PFR_E_BUSY, "full table: BUSY");
	pfr_mpsc_leave(&p[1]);
	is_int(pfr_mpsc_join(m, &p[2]), 0, "a left slot is free again");
	ok(p[2].index == p[1].index && p[2].gen != p[1].gen,
	   "same slot, next generation");
	is_int(pfr_mpsc_reader(m, &r), 0, "reader");
	ok(pfr_mpsc_reader_alive(m), "reader alive");
	pid = fork();
	if (pid == 0)
		_exit(pfr_mpsc_reader(m, &r2) == -PFR_E_BUSY ? 0 : 1);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "a second reader while one lives: BUSY");
	pfr_mpsc_reader_close(&r);
	ok(!pfr_mpsc_reader_alive(m), "no reader after close");
	/* a reader process that died: its role can be taken */
	pid = fork();
	if (pid == 0)
		_exit(pfr_mpsc_reader(m, &r2) == 0 ? 0 : 1);
	waitpid(pid, &status, 0);
	ok(!pfr_mpsc_reader_alive(m), "the reader process died: not alive");
	is_int(pfr_mpsc_reader(m, &r), 0, "its role taken over");
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_leave(&p[0]);
	pfr_mpsc_leave(&p[2]);
	pfr_mpsc_close(m);
}

/* ---- hostile shared memory ---- */

/* Polls begin until it loads prod_pos (every PFR__MPSC_IDLE_POLLS polls
 * of a zero header): its last return. */
static int64_t begin_polled(struct pfr_mpsc_reader *r)
{
	int64_t rc = 0;

	for (int i = 0; i < 1000 && rc == 0; i++)
		rc = pfr_mpsc_begin(r);
	return rc;
}

/* test_hostile()'s fairness flag: garbage, a live producer's, its own. */
static void hostile_flag(struct pfr_mpsc *m, struct pfr_mpsc_ctl *c,
			 struct pfr_mpsc_producer *p, struct pfr_mpsc_reader *r)
{
	uint64_t v = 1, t0;

	/* garbage in the fairness flag: a stamp naming no slot is cleared,
	 * no hang */
	c->starving = 0x1234567800000077ull;
	t0 = now_ns();
	is_int(pfr_mpsc_write(p, T_TYPE, &v, 8), 0,
	       "garbage starving flag: the write goes on");
	is_uint(c->starving, 0, "and the flag is cleared");
	c->starving = UINT64_MAX;
	is_int(pfr_mpsc_write(p, T_TYPE, &v, 8), 0, "starving ~0: writes");
	is_uint(c->starving, 0, "cleared");
	/* a flag naming a live producer that never reserves: deferred to
	 * for a bounded spin at each reservation, never a hang */
	{
		struct pfr_mpsc_producer q;
		int bad = 0;

		pfr_mpsc_join(m, &q);
		c->starving = q.lock_word;
		for (int i = 0; i < 20; i++)
			bad += pfr_mpsc_write(p, T_TYPE, &v, 8) != 0;
		is_int(bad, 0, "a live producer's flag: deferred, not stopped");
		ok(now_ns() - t0 < 2000000000ull, "quickly");
		is_uint(c->starving, q.lock_word, "a live producer's flag stays");
		pfr_mpsc_leave(&q);
		is_int(pfr_mpsc_write(p, T_TYPE, &v, 8), 0,
		       "its producer left: writes");
		is_uint(c->starving, 0, "the flag of a producer gone: cleared");
		c->starving = p->lock_word;
		is_int(pfr_mpsc_write(p, T_TYPE, &v, 8), 0,
		       "a flag naming the producer itself: writes");
		c->starving = 0;
	}
	ok(drain(r, NULL, 0) > 0, "the reader reads them");
}

static void test_hostile(void)
{
	struct pfr_mpsc *m = mk(4096, PFR_POLICY_DROP, 0, 4);
	struct pfr_mpsc_ctl *c = pfr_mpsc_ctl(m);
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	unsigned char *d = data_of(m);
	uint64_t v = 1, save, t0;
	int rc;

	pfr_mpsc_join(m, &p);
	pfr_mpsc_reader(m, &r);
	pfr_mpsc_set_stall(&r, 5000000ull);
	pfr_mpsc_write(&p, T_TYPE, &v, 8);

	/* forged lengths, on the record at the reader's tail */
	{
		uint64_t h0;

		memcpy(&h0, d, 8);
		((struct pfr_record_header *)d)->size = 0;
		pfr_mpsc_begin(&r);
		is_int(pfr_mpsc_next(&r, &rec), -PFR_E_RECSIZE_ZERO, "size 0");
		((struct pfr_record_header *)d)->size = 12;
		is_int(pfr_mpsc_next(&r, &rec), -PFR_E_RECSIZE_ALIGN,
		       "size 12");
		/* the reader does not load prod_pos per record: a size
		 * within the lap reads zeroed space; one past the end of
		 * the data area or the lap is refused */
		((struct pfr_record_header *)d)->size = 4104;
		is_int(pfr_mpsc_next(&r, &rec), -PFR_E_RECSIZE_PAST_HEAD,
		       "size past the lap");
		((struct pfr_record_header *)d)->size = 16;
		((struct pfr_record_header *)d)->type = PFR_MPSC_BUSY | 1;
		((struct pfr_record_header *)d)->misc = 999;
		is_int(pfr_mpsc_next(&r, &rec), -PFR_E_LAYOUT,
		       "BUSY naming a slot that does not exist");
		((struct pfr_record_header *)d)->type = PFR_RECORD_LOST;
		((struct pfr_record_header *)d)->misc = 0;
		is_int(pfr_mpsc_next(&r, &rec), -PFR_E_RECSIZE_SHORT,
		       "LOST record too short");
		/* a BUSY bit that never clears, stamped with a live owner */
		((struct pfr_record_header *)d)->type = PFR_MPSC_BUSY | p.gen;
		((struct pfr_record_header *)d)->misc = (uint16_t)p.index;
		t0 = now_ns();
		rc = 0;
		while (rc == 0 && now_ns() - t0 < 5000000000ull)
			rc = pfr_mpsc_next(&r, &rec);
		is_int(rc, -PFR_E_STALLED,
		       "a BUSY bit that never clears: "
		       "stall reported, no hang");
		/* its owner slot's identity garbage (tid beyond the pid
		 * range): proven not alive, skipped */
		save = p.slot->owner;
		p.slot->owner = (save & ~0xffffffffull) | 0xfffffff0u;
		sleep_ms(2);
		is_int(pfr_mpsc_next(&r, &rec), 0,
		       "owner slot garbage: the record is skipped");
		p.slot->owner = save;
		pfr_mpsc_end(&r);
		is_uint(c->cons_pos, 16, "skipped and freed");
		(void)h0;
	}

	/* hostile producer positions, seen when the reader polls an
	 * empty tail (it loads prod_pos every so many polls) */
	save = c->prod_pos;
	c->prod_pos = save + 8192;
	is_int(begin_polled(&r), -PFR_E_HEAD_AHEAD,
	       "producer position far ahead");
	is_int(pfr_mpsc_write(&p, T_TYPE, &v, 8), -PFR_E_HEAD_AHEAD,
	       "producer refuses it too");
	c->prod_pos = save - 8;
	is_int(begin_polled(&r), -PFR_E_HEAD_BEHIND, "position behind");
	c->prod_pos = save + 4;
	is_int(begin_polled(&r), -PFR_E_RECSIZE_ALIGN, "misaligned position");
	is_int(pfr_mpsc_write(&p, T_TYPE, &v, 8), -PFR_E_LAYOUT,
	       "producer refuses a misaligned position");
	c->prod_pos = save;
	is_int(pfr_mpsc_write(&p, T_TYPE, &v, 8), 0, "repaired: writes");
	is_int(drain(&r, NULL, 0), 1, "and reads");

	/* an unwritten reservation with no announcement (hostile): the
	 * reader reports the stall at every call, never guesses a size */
	{
		struct pfr_mpsc_stats st;
		uint64_t skipped0;
		int stalls = 0;

		pfr_mpsc_stats(m, &r, &st);
		skipped0 = st.dead_skipped;
		c->prod_pos += 32;
		t0 = now_ns();
		while (now_ns() - t0 < 100000000ull) {
			rc = drain(&r, NULL, 0);
			stalls += rc == -PFR_E_STALLED;
			if (rc && rc != -PFR_E_STALLED)
				break;
		}
		ok(rc == -PFR_E_STALLED && stalls > 1,
		   "a hole nobody announced: -PFR_E_STALLED, again (%d)", rc);
		pfr_mpsc_stats(m, &r, &st);
		is_uint(st.dead_skipped, skipped0, "and never skipped");
		c->prod_pos -= 32;
	}

	hostile_flag(m, c, &p, &r);

	/* a hostile consumer position */
	c->cons_pos = c->prod_pos + 4096;
	p.cons_cache = c->prod_pos + 4096;
	rc = pfr_mpsc_write(&p, T_TYPE, &v, 8);
	ok(rc == 0 || rc == -PFR_E_HEAD_BEHIND,
	   "consumer ahead of producer: no crash (%s)", pfr_strerror(rc));
	c->cons_pos = 3;
	p.cons_cache = c->prod_pos - 4096;
	is_int(pfr_mpsc_write(&p, T_TYPE, &v, 8), -PFR_E_LAYOUT,
	       "misaligned consumer position");
	/* a new reader on hostile consumer positions: refused or errors */
	pfr_mpsc_reader_close(&r);
	c->cons_pos = 3;
	c->free_pos = 3;
	is_int(pfr_mpsc_reader(m, &r), -PFR_E_RECSIZE_ALIGN,
	       "reader: misaligned cons_pos refused");
	c->cons_pos = c->free_pos = c->prod_pos + 8192;
	rc = pfr_mpsc_reader(m, &r);
	if (rc == 0) {
		is_int(begin_polled(&r), -PFR_E_HEAD_BEHIND,
		       "reader: cons_pos past prod_pos: -PFR_E_HEAD_BEHIND");
		pfr_mpsc_reader_close(&r);
	} else {
		ok(rc < 0, "reader: cons_pos past prod_pos refused");
	}
	c->cons_pos = c->free_pos = c->prod_pos - 8192;
	rc = pfr_mpsc_reader(m, &r);
	if (rc == 0) {
		int64_t b = begin_polled(&r);

		ok(b == -PFR_E_HEAD_AHEAD || (b > 0 && b <= 4096),
		   "reader: cons_pos a lap behind: an error, no crash");
		pfr_mpsc_reader_close(&r);
	} else {
		ok(rc < 0, "reader: cons_pos a lap behind refused");
	}
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

int main(void)
{
	test_opts();
	test_roundtrip();
	test_burst();
	test_order_discard();
	test_drop();
	test_block_wait();
	test_stall();
	test_dead_thread();
	test_dead_process();
	test_two_dead();
	test_stale_overshoot();
	test_wait_hole();
	test_hole_wraps();
	test_dead_in_lost();
	test_reader_killed_zeroing();
	test_roles();
	test_hostile();
	return tap_done();
}
