// SPDX-License-Identifier: MIT
/*
 * PFR_RING_INBAND: the rings it may be made with (ACQREL; DROP or BLOCK;
 * no PFR_RING_WAIT) and attach's check of them; the writer's word after
 * the last record is zero and the reader's begin shows exactly the
 * committed records, whatever head says; the wrap (PAD), LOST records,
 * deferred commits and bursts, pfr_reader_consume(); a writer that
 * replaces a dead one resumes after the last committed record; the
 * largest record fits an empty ring; a wrap's PAD is shown only with the
 * record after it; a writer thread and a reader thread (paced begin,
 * unpaced begin, poll) pass every record, in order, with its contents,
 * through DROP and BLOCK rings; and two threads ping-pong records of up
 * to 65520 bytes over two rings, one at a time, as the bench's latency
 * cell does.
 */
#include <pthread.h>

#include "ring_common.h"

static uint64_t n_threaded = 200000;

static uint64_t word_at(struct pfr_ring *ring, uint64_t pos)
{
	struct pfr_ring_ctl *c = pfr_ring_ctl(ring);
	uint64_t v;

	memcpy(&v,
	       (unsigned char *)c + c->data_offset + (pos & (c->data_size - 1)),
	       8);
	return v;
}

static void test_opts(void)
{
	struct pfr_ring *ring;
	static const struct {
		enum pfr_policy pol;
		enum pfr_ordering ord;
		uint32_t flags;
		int want;
		const char *what;
	} cases[] = {
		{PFR_POLICY_DROP, PFR_ORDER_ACQREL, PFR_RING_INBAND, 0,
		 "DROP, ACQREL"},
		{PFR_POLICY_BLOCK, PFR_ORDER_ACQREL, PFR_RING_INBAND, 0,
		 "BLOCK, ACQREL"},
		{PFR_POLICY_OVERWRITE, PFR_ORDER_ACQREL, PFR_RING_INBAND,
		 -PFR_E_INVAL, "OVERWRITE refused"},
		{PFR_POLICY_DROP, PFR_ORDER_FULL, PFR_RING_INBAND, -PFR_E_INVAL,
		 "FULL refused"},
		{PFR_POLICY_DROP, PFR_ORDER_CTRLDEP, PFR_RING_INBAND,
		 -PFR_E_INVAL, "CTRLDEP refused"},
		{PFR_POLICY_DROP, PFR_ORDER_ACQREL,
		 PFR_RING_INBAND | PFR_RING_WAIT, -PFR_E_INVAL,
		 "with PFR_RING_WAIT refused"},
		{PFR_POLICY_DROP, PFR_ORDER_ACQREL, 0x8, -PFR_E_INVAL,
		 "an unknown flag refused"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = rt_mkring(&ring, 8192, cases[i].pol, cases[i].ord,
				    cases[i].flags);

		is_intf(err, cases[i].want, "create in band: %s",
			cases[i].what);
		if (!err)
			pfr_ring_close(ring);
	}
	/* the largest record: 8 bytes less in small rings */
	if (ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			 PFR_RING_INBAND) == 0,
	       "4 KiB in-band ring")) {
		struct pfr_writer w;

		pfr_ring_writer(ring, &w);
		is_int((int)pfr_writer_max_payload(&w), 2048 - 16 - 8,
		       "largest payload: data_size / 2 - 16 - 8");
		is_int((int)pfr_ring_ctl(ring)->max_record, 2048 - 16,
		       "ctl->max_record");
		pfr_ring_close(ring);
	}
}

/* attach checks the flag's conditions: a control block that claims
 * in-band with another ordering, policy or WAIT, or with the max_record
 * of a head-polled ring, is -PFR_E_LAYOUT */
static void test_attach(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 8192,
				  .policy = PFR_POLICY_DROP,
				  .ordering = PFR_ORDER_ACQREL,
				  .flags = PFR_RING_INBAND};
	struct pfr_ring *ring, *r2;
	struct pfr_ring_ctl *c;
	uint32_t save;

	if (!ok(pfr_ring_create_memfd(&ring, &o) == 0, "memfd in-band ring"))
		return;
	c = pfr_ring_ctl(ring);
	if (ok(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)) == 0,
	       "attach an in-band ring")) {
		struct pfr_reader r;
		struct pfr_writer w;

		pfr_ring_reader(r2, &r);
		pfr_ring_writer(ring, &w);
		ok(pfr_writer_write(&w, 5, "abcdefgh", 8) == 0 &&
			   pfr_reader_begin(&r) == 16,
		   "the attached reader reads in band");
		pfr_ring_close(r2);
	}
	save = c->ordering;
	c->ordering = PFR_ORDER_FULL;
	is_int(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)), -PFR_E_LAYOUT,
	       "attach: in band with FULL");
	c->ordering = save;
	save = c->policy;
	c->policy = PFR_POLICY_OVERWRITE;
	is_int(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)), -PFR_E_LAYOUT,
	       "attach: in band with OVERWRITE");
	c->policy = save;
	c->flags |= PFR_RING_WAIT;
	is_int(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)), -PFR_E_LAYOUT,
	       "attach: in band with WAIT");
	c->flags = PFR_RING_INBAND;
	c->max_record += 8;
	is_int(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)), -PFR_E_LAYOUT,
	       "attach: in band with a head-polled ring's max_record");
	c->max_record -= 8;
	c->flags = 0;
	is_int(pfr_ring_attach_fd(&r2, pfr_ring_fd(ring)), -PFR_E_LAYOUT,
	       "attach: the flag cleared, max_record left in band");
	c->flags = PFR_RING_INBAND;
	pfr_ring_close(ring);
}

/* The reader sees committed headers, not head; the word after them is 0. */
static void test_basic(void)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	void *p = NULL;
	uint64_t v = 0x1122334455667788ull;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			  PFR_RING_INBAND) == 0,
		"in-band ring"))
		return;
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	is_int(pfr_reader_begin(&r), 0, "empty: begin 0");
	/* deferred: visible in band before any publication of head */
	pfr_writer_write_deferred(&w, 9, &v, 8);
	is_int((int)pfr_ring_ctl(ring)->head, 0, "head not published");
	is_int(pfr_reader_begin_unpaced(&r), 16,
	       "a deferred record is seen in band");
	is_int(pfr_reader_next(&r, &rec), 1, "next");
	ok(rec.hdr.type == 9 && rec.len == 8 && !memcmp(rec.payload, &v, 8),
	   "its type, length and payload");
	is_int(pfr_reader_next(&r, &rec), 0, "then nothing");
	ok(word_at(ring, 16) == 0, "the word after it is zero");
	/* reserve: nothing visible before commit */
	ok(pfr_writer_reserve(&w, 10, 16, &p) == 0, "reserve");
	memset(p, 0xee, 16);
	is_int(pfr_reader_begin_unpaced(&r), 0,
	       "a reserved record is not seen");
	pfr_writer_commit_deferred(&w);
	is_int(pfr_reader_begin_unpaced(&r), 24, "committed: seen");
	pfr_reader_next(&r, &rec);
	ok(rec.hdr.type == 10 && rec.len == 16 && rec.pos == 16,
	   "the committed record");
	pfr_reader_end(&r);
	is_int((int)pfr_ring_ctl(ring)->tail, 40, "tail published");
	/* a burst */
	{
		uint64_t buf[8];

		for (int i = 0; i < 8; i++)
			buf[i] = (uint64_t)i * 3;
		is_int(pfr_writer_write_burst(&w, 11, buf, 8, 8), 8, "burst");
		is_int(pfr_reader_begin(&r), 128, "burst: 8 records");
		ok(word_at(ring, 40 + 128) == 0, "zero after the burst");
		for (int i = 0; i < 8; i++) {
			pfr_reader_next(&r, &rec);
			if (rec.len != 8 || memcmp(rec.payload, &buf[i], 8))
				break;
			if (i == 7)
				ok(1, "burst: every record");
		}
		pfr_reader_end(&r);
	}
	pfr_ring_close(ring);
}

static int count_cb(void *ctx, const struct pfr_record *rec)
{
	uint64_t *n = (uint64_t *)ctx;
	uint64_t v;

	if (rec->hdr.type == PFR_RECORD_LOST) {
		memcpy(&v, (const char *)rec->payload + 8, 8);
		*n += v;
		return 0;
	}
	memcpy(&v, rec->payload, 8);
	if (v != *n)
		return 1;
	++*n;
	return 0;
}

/* Many laps of a small ring: PAD at the end of each lap, consume, and
 * a LOST record after drops. */
static void test_laps(void)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	uint64_t seq = 0, got = 0, lost = 0, s = 7;
	int bad = 0;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			  PFR_RING_INBAND) == 0,
		"in-band ring for laps"))
		return;
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	for (int round = 0; round < 4000; round++) {
		unsigned n = (unsigned)(rt_rand(&s) % 20);

		for (unsigned i = 0; i < n; i++) {
			unsigned char buf[200];
			size_t len = 8 + (size_t)(rt_rand(&s) % 150);

			memset(buf, 0, sizeof(buf));
			memcpy(buf, &seq, 8);
			if (pfr_writer_write(&w, 3, buf, len) == 0)
				seq++;
			else
				seq++, lost++;
		}
		if (round % 3 != 1)
			continue; /* let it fill: drops */
		if (pfr_reader_begin(&r) < 0) {
			bad++;
			break;
		}
		if (round & 1) {
			struct pfr_record rec;
			int rc;

			while ((rc = pfr_reader_next(&r, &rec)) == 1) {
				uint64_t v;

				if (rec.hdr.type == PFR_RECORD_LOST) {
					const struct pfr_lost_record *lr =
						(const void *)((const char *)
								       rec.payload -
							       8);

					got += lr->lost;
					continue;
				}
				memcpy(&v, rec.payload, 8);
				if (v != got)
					bad++;
				got = v + 1;
			}
			if (rc < 0)
				bad++;
		} else {
			/* count_cb adds LOST counts and stops at a
			 * record out of sequence */
			uint64_t before = got;
			int64_t n2 = pfr_reader_consume(&r, count_cb, &got, 0);

			if (n2 < 0 || pfr_reader_pending(&r) ||
			    (n2 == 0 && before != got))
				bad++;
		}
		pfr_reader_end(&r);
	}
	ok(bad == 0, "4000 rounds: every record in order, LOST counts right");
	ok(lost > 0 && pfr_writer_lost(&w) == lost, "drops happened (%llu)",
	   (unsigned long long)lost);
	ok(got <= seq && got + 200 > seq,
	   "read up to what was written (%llu of %llu)",
	   (unsigned long long)got, (unsigned long long)seq);
	pfr_ring_close(ring);
}

/* A writer that commits in band but dies before publishing head: its
 * replacement resumes after the last committed record. */
static void test_resume(void)
{
	struct pfr_ring *ring;
	struct pfr_writer w, w2;
	struct pfr_reader r;
	struct pfr_record rec;
	uint64_t v = 1;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			  PFR_RING_INBAND) == 0,
		"in-band ring for resume"))
		return;
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	pfr_writer_write(&w, 1, &v, 8);
	v = 2;
	pfr_writer_write_deferred(&w, 1, &v, 8);
	v = 3;
	pfr_writer_write_deferred(&w, 1, &v, 8);
	/* dies: head published at 16, records committed to 48 */
	is_int((int)pfr_ring_ctl(ring)->head, 16, "head at the first record");
	is_int(pfr_reader_begin(&r), 48, "the reader sees all three");
	while (pfr_reader_next(&r, &rec) == 1)
		;
	pfr_reader_end(&r);
	is_int(pfr_ring_writer(ring, &w2), 0, "a new writer");
	is_int((int)w2.head, 48, "resumes after the last committed record");
	v = 4;
	pfr_writer_write(&w2, 1, &v, 8);
	is_int(pfr_reader_begin(&r), 16, "the reader goes on");
	pfr_reader_next(&r, &rec);
	ok(rec.pos == 48 && !memcmp(rec.payload, &v, 8), "with record 4");
	pfr_ring_close(ring);
}

/* The largest record fits an empty ring wherever head is, with a LOST
 * record in front of it. */
static void test_largest(void)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	static unsigned char big[4096];
	int bad = 0;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL,
			  PFR_RING_INBAND) == 0,
		"in-band ring for the largest record"))
		return;
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	for (int i = 0; i < 600; i++) {
		size_t max = pfr_writer_max_payload(&w);
		size_t small = 8 * (size_t)(i % 37);

		if (pfr_writer_write(&w, 1, big, small))
			bad++;
		/* fill until a record drops: a LOST record goes in front of
		 * the largest below (LOST + PAD + record + zero word) */
		if (i % 2)
			while (pfr_writer_write(&w, 1, big, 8 * (i % 5)) == 0)
				;
		pfr_reader_begin(&r);
		while (pfr_reader_next(&r, &rec) == 1)
			;
		pfr_reader_end(&r);
		if (pfr_writer_write(&w, 1, big, max))
			bad++;
		if (pfr_reader_begin(&r) <= 0)
			bad++;
		while (pfr_reader_next(&r, &rec) == 1)
			;
		pfr_reader_end(&r);
	}
	is_int(bad, 0, "the largest record always fits an empty ring");
	pfr_ring_close(ring);
}

/* A wrap's PAD is shown only with the record after it, as one store of
 * head shows both on a head-polled ring: a reader that waits for one
 * record (a ping-pong) and finds begin > 0 has that record.  The PAD is
 * committed when the slow path reserves the record after it, so the
 * record is held between its reserve and its commit here, across many
 * wraps of records up to the largest. */
static void test_pad_alone(void)
{
	static const size_t lens[] = {256, 1024, 4096, 0};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;

	if (!ok(rt_mkring(&ring, 65536, PFR_POLICY_BLOCK, PFR_ORDER_ACQREL,
			  PFR_RING_INBAND) == 0,
		"in-band ring for one record at a time"))
		return;
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t len = lens[k] ? lens[k] : pfr_writer_max_payload(&w);
		long early = 0, bad = 0, wraps = 0;

		for (uint64_t i = 0; wraps < 4 && i < 4000; i++) {
			uint64_t head = w.head;
			void *p;
			int64_t a;

			if (pfr_writer_reserve(&w, 1, len, &p)) {
				bad++;
				break;
			}
			/* reserved, not committed: nothing to show, not
			 * even the PAD in front of it */
			if (pfr_reader_begin_unpaced(&r) != 0)
				early++;
			rt_fill(p, len, i);
			pfr_writer_commit(&w);
			wraps += w.head - head != pfr__record_size(len);
			a = pfr_reader_begin(&r);
			if (a <= 0 || pfr_reader_next(&r, &rec) != 1 ||
			    rec.len != len ||
			    rt_check(rec.payload, len, i) >= 0 ||
			    pfr_reader_next(&r, &rec) != 0)
				bad++;
			pfr_reader_end(&r);
		}
		ok(!early && !bad && wraps == 4,
		   "%zu-byte records one at a time, %ld wraps: the PAD shown "
		   "with its record (%ld early, %ld wrong)",
		   len, wraps, early, bad);
	}
	pfr_ring_close(ring);
}

/* ---- two threads ---- */

/* A ping-pong over two in-band rings, as the bench's latency cell runs
 * it: the client writes request i and waits for its echo, the server
 * waits for a request and echoes it from the request ring into the reply
 * ring.  Each side takes begin > 0 to mean a record: one record at a
 * time, and a wrap's PAD must not be shown before the record after it. */
struct pp_side {
	struct pfr_writer w;
	struct pfr_reader r;
	size_t len;
	uint64_t n;
	long bad;
	int *stop;
};

static int pp_wait(struct pp_side *s, struct pfr_record *rec)
{
	int64_t a;

	while ((a = pfr_reader_begin(&s->r)) == 0)
		if (__atomic_load_n(s->stop, __ATOMIC_RELAXED))
			return 0;
	if (a < 0 || pfr_reader_next(&s->r, rec) != 1) {
		s->bad++;
		__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

static void *pp_server(void *p)
{
	struct pp_side *s = (struct pp_side *)p;
	struct pfr_record rec;

	for (uint64_t i = 0; i < s->n && pp_wait(s, &rec); i++) {
		if (pfr_writer_write(&s->w, 1, rec.payload, rec.len)) {
			s->bad++;
			__atomic_store_n(s->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		pfr_reader_end(&s->r);
	}
	return NULL;
}

static void ping_pong(size_t len)
{
	struct pfr_ring *req, *rsp;
	struct pp_side c, s;
	unsigned char *m = malloc(len ? len : 1);
	uint64_t cap = 65536, i = 0;
	pthread_t th;
	int stop = 0;

	while (cap < 4 * (len + 8))
		cap *= 2;
	if (!m ||
	    rt_mkring(&req, cap, PFR_POLICY_BLOCK, PFR_ORDER_ACQREL,
		      PFR_RING_INBAND) ||
	    rt_mkring(&rsp, cap, PFR_POLICY_BLOCK, PFR_ORDER_ACQREL,
		      PFR_RING_INBAND))
		return (void)ok(0, "ping-pong rings");
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	pfr_ring_writer(req, &c.w);
	pfr_ring_reader(rsp, &c.r);
	pfr_ring_writer(rsp, &s.w);
	pfr_ring_reader(req, &s.r);
	c.len = s.len = len;
	/* eight laps of each ring or more */
	c.n = s.n = 8 * cap / pfr__record_size(len) + 64;
	c.stop = s.stop = &stop;
	if (pthread_create(&th, NULL, pp_server, &s))
		return (void)ok(0, "pthread_create");
	for (; i < c.n; i++) {
		struct pfr_record rec;

		rt_stamp(m, len, i);
		if (pfr_writer_write(&c.w, 1, m, len) || !pp_wait(&c, &rec)) {
			c.bad++;
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			break;
		}
		{
			uint64_t seq;

			if (rec.len != len ||
			    !rt_verify(rec.payload, len, &seq) || seq != i) {
				c.bad++;
				__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
				break;
			}
		}
		pfr_reader_end(&c.r);
	}
	pthread_join(th, NULL);
	ok(!c.bad && !s.bad && i == c.n,
	   "ping-pong, %zu-byte payload: %llu of %llu echoes, in order", len,
	   (unsigned long long)i, (unsigned long long)c.n);
	pfr_ring_close(req);
	pfr_ring_close(rsp);
	free(m);
}

struct thr {
	struct pfr_writer w;
	uint64_t n;
	size_t len;
	int burst;
};

static void *writer(void *p)
{
	struct thr *t = (struct thr *)p;
	unsigned char buf[4 * 64];

	for (uint64_t seq = 0; seq < t->n;) {
		if (t->burst) {
			unsigned k = 4;

			if (t->n - seq < k)
				k = (unsigned)(t->n - seq);
			for (unsigned i = 0; i < k; i++)
				rt_stamp(buf + i * t->len, t->len, seq + i);
			int rc = pfr_writer_write_burst(&t->w, 1, buf, t->len,
							k);
			if (rc > 0)
				seq += (uint64_t)rc;
		} else {
			rt_stamp(buf, t->len, seq);
			if (pfr_writer_write(&t->w, 1, buf, t->len) == 0)
				seq++;
		}
	}
	return NULL;
}

static void threaded(enum pfr_policy pol, int mode, size_t len, int burst)
{
	static const char *const modes[] = {"begin", "unpaced", "poll"};
	struct pfr_ring *ring;
	struct pfr_reader r;
	struct thr t;
	pthread_t th;
	uint64_t seq = 0;
	long bad = 0;

	if (rt_mkring(&ring, 8192, pol, PFR_ORDER_ACQREL, PFR_RING_INBAND))
		return (void)ok(0, "create");
	memset(&t, 0, sizeof(t));
	pfr_ring_writer(ring, &t.w);
	pfr_writer_set_timeout(&t.w, UINT64_MAX);
	pfr_ring_reader(ring, &r);
	t.n = n_threaded;
	t.len = len;
	t.burst = burst;
	if (pol == PFR_POLICY_DROP) {
		/* DROP: count drops as delivered (the writer retries) */
	}
	if (pthread_create(&th, NULL, writer, &t))
		return (void)ok(0, "pthread_create");
	while (seq < t.n && !bad) {
		struct pfr_record rec;
		int64_t a = mode == 0   ? pfr_reader_begin(&r)
			    : mode == 1 ? pfr_reader_begin_unpaced(&r)
					: pfr_reader_poll(&r, 100);
		int rc;

		if (a < 0) {
			bad = a;
			break;
		}
		while ((rc = pfr_reader_next(&r, &rec)) == 1) {
			uint64_t s2;

			if (rec.hdr.type == PFR_RECORD_LOST)
				continue;
			if (!rt_verify(rec.payload, rec.len, &s2) ||
			    s2 != seq) {
				bad = -1000;
				break;
			}
			seq++;
		}
		if (rc < 0)
			bad = rc;
		pfr_reader_end(&r);
	}
	pthread_join(th, NULL);
	ok(!bad && seq == t.n,
	   "threads, %s, %s, %zu-byte payload%s: %llu records in order "
	   "(error %ld)",
	   pfr_policy_name(pol), modes[mode], len, burst ? ", bursts" : "",
	   (unsigned long long)seq, bad);
	pfr_ring_close(ring);
}

int main(void)
{
	if (rt_long())
		n_threaded = 2000000;
	test_opts();
	test_attach();
	test_basic();
	test_laps();
	test_resume();
	test_largest();
	test_pad_alone();
	for (int mode = 0; mode < 3; mode++)
		threaded(PFR_POLICY_BLOCK, mode, 16, 0);
	threaded(PFR_POLICY_DROP, 0, 24, 0);
	threaded(PFR_POLICY_BLOCK, 0, 16, 1);
	threaded(PFR_POLICY_BLOCK, 1, 56, 1);
	ping_pong(256);
	ping_pong(1024);
	ping_pong(4096);
	ping_pong(65520);
	return rt_done();
}
