// SPDX-License-Identifier: MIT
/*
 * Unit tests for every call of <perfring/ring.h> in one process: options,
 * single-record round trips for every payload length up to the maximum,
 * wrap with PAD records, batched publication, the DROP, BLOCK and
 * OVERWRITE policies, a raw reader over a kernel-like ring with a record
 * straddling the end, and rings in POSIX shared memory and memfds (also
 * from a second process).  Every test runs for each of the three orderings.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring_common.h"

static unsigned char *ring_data(struct pfr_ring *ring)
{
	struct pfr_ring_ctl *c = pfr_ring_ctl(ring);

	return (unsigned char *)c + c->data_offset;
}

/* ---- options, names, errors ---- */

static void test_opts(void)
{
	struct pfr_ring_opts o;
	struct pfr_ring *ring = NULL;
	static const uint64_t bad_sizes[] = {
		8, 2048, 4095, 4097, 12288, (1ull << 41), (1ull << 40) + 4096};

	for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.data_size = bad_sizes[i];
		is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
		       "data size rejected");
		is_int(pfr_ring_create_memfd(&ring, &o), -PFR_E_INVAL,
		       "data size rejected (memfd)");
	}
	if (SIZE_MAX <= UINT32_MAX) {
		/* 32-bit targets: a data area the address space cannot hold
		 * (its mapping length once wrapped to a page) */
		memset(&o, 0, sizeof(o));
		o.data_size = 1ull << 32;
		is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
		       "32-bit: a 4 GiB ring is -PFR_E_INVAL");
		o.data_size = 1ull << 40;
		is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
		       "32-bit: a 1 TiB ring is -PFR_E_INVAL");
	}
	memset(&o, 0, sizeof(o));
	o.policy = (enum pfr_policy)PFR_POLICY__COUNT;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "bad policy");
	o.policy = (enum pfr_policy) - 1;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "negative policy");
	memset(&o, 0, sizeof(o));
	o.ordering = (enum pfr_ordering)PFR_ORDER__COUNT;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "bad ordering");
	memset(&o, 0, sizeof(o));
	o.flags = 0x2;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL, "unknown flag");
	ok(ring == NULL, "failed creations leave the handle alone");
	is_int(pfr_ring_create_shm(&ring, "", &o), -PFR_E_INVAL, "empty name");
	is_int(pfr_ring_create_shm(&ring, "a/b", &o), -PFR_E_INVAL,
	       "name with a slash inside");
	is_int(pfr_ring_create_shm(&ring, NULL, &o), -PFR_E_INVAL, "NULL name");
	is_int(pfr_ring_attach_shm(&ring, "x/y"), -PFR_E_INVAL,
	       "attach: name with a slash");

	/* data_size 0 is the 1 MiB default; 4096 and 2^n are fine */
	memset(&o, 0, sizeof(o));
	if (ok(pfr_ring_create(&ring, &o) == 0, "default options")) {
		struct pfr_ring_stats st;

		pfr_ring_stats(ring, &st);
		is_uint(st.data_size, 1u << 20, "default data size is 1 MiB");
		is_int(pfr_ring_fd(ring), -1, "private ring has no fd");
		pfr_ring_close(ring);
	}
	pfr_ring_close(NULL);

	/* stats after a quiet writer: records published, on rings with
	 * PFR_RING_WAIT at once, on rings without it after the writer's
	 * flush (publication there stores head alone) */
	for (uint32_t fl = 0; fl <= PFR_RING_WAIT; fl += PFR_RING_WAIT) {
		struct pfr_writer w;
		struct pfr_ring_stats st;

		rt_mkring(&ring, 4096, PFR_POLICY_DROP, PFR_ORDER_ACQREL, fl);
		pfr_ring_writer(ring, &w);
		for (int i = 0; i < 10; i++)
			pfr_writer_write(&w, 1, "12345678", 8);
		if (!fl) {
			pfr_ring_stats(ring, &st);
			is_uint(st.head, 160, "stats: head before the flush");
			pfr_writer_flush(&w);
		}
		pfr_ring_stats(ring, &st);
		is_uint(st.head, 160, "stats: head");
		is_uint(st.tail, 0, "stats: tail");
		is_uintf(st.records, 10, "stats: records (%s)",
			 fl ? "WAIT ring" : "ring without WAIT");
		pfr_ring_close(ring);
	}
}

static void test_names(void)
{
	const char *seen[PFR_E__COUNT];

	for (int o = 0; o < PFR_ORDER__COUNT; o++)
		is_int(pfr_ordering_parse(
			       pfr_ordering_name((enum pfr_ordering)o)),
		       o, "ordering name round trip");
	for (int p = 0; p < PFR_POLICY__COUNT; p++)
		is_int(pfr_policy_parse(pfr_policy_name((enum pfr_policy)p)), p,
		       "policy name round trip");
	is_int(pfr_ordering_parse("seqcst"), -1, "unknown ordering");
	is_int(pfr_policy_parse("Drop"), -1, "policy names are exact");
	ok(!strcmp(pfr_ordering_name((enum pfr_ordering)7), "?"),
	   "out-of-range ordering name");
	for (int e = 0; e < PFR_E__COUNT; e++) {
		const char *s = pfr_strerror(-e);
		int dup = 0;

		for (int j = 0; j < e; j++)
			dup |= !strcmp(seen[j], s);
		seen[e] = s;
		ok(s && *s && !dup && !strcmp(s, pfr_strerror(e)),
		   "strerror(%d) distinct: %s", e, s);
	}
	ok(!strcmp(pfr_strerror(PFR_E__COUNT), "unknown perfring error"),
	   "strerror of an unknown code");
}

/* ---- round trips ---- */

/* Writes one record of len payload bytes with writer_write (or
 * reserve/commit), reads it back and checks everything about it. */
static int round_trip(struct pfr_writer *w, struct pfr_reader *r,
		      unsigned char *data, uint64_t dsize, size_t len,
		      uint64_t seq, unsigned char *buf, int zero_copy)
{
	struct pfr_record rec;
	uint64_t want = ((uint64_t)len + 8 + 7) & ~7ull;
	int64_t avail;
	int err;

	if (zero_copy) {
		void *p;

		err = pfr_writer_reserve(w, 7, len, &p);
		if (err)
			return tap_diag("len %zu: reserve %d", len, err), 0;
		rt_fill(p, len, seq);
		pfr_writer_commit(w);
	} else {
		rt_fill(buf, len, seq);
		err = pfr_writer_write(w, 7, buf, len);
		if (err)
			return tap_diag("len %zu: write %d", len, err), 0;
	}
	avail = pfr_reader_begin(r);
	/* a PAD record may precede it */
	if (avail < (int64_t)want || avail >= (int64_t)(want + want))
		return tap_diag("len %zu: avail %lld", len, (long long)avail),
		       0;
	if (pfr_reader_next(r, &rec) != 1)
		return tap_diag("len %zu: no record", len), 0;
	if (rec.hdr.type != 7 || rec.hdr.size != want || rec.len != len ||
	    rec.hdr.misc != want - 8 - len)
		return tap_diag("len %zu: header %u/%u/%u", len, rec.hdr.type,
				rec.hdr.size, rec.len),
		       0;
	if ((rec.pos & (dsize - 1)) + rec.hdr.size > dsize ||
	    (const unsigned char *)rec.payload !=
		    data + (rec.pos & (dsize - 1)) + 8)
		return tap_diag("len %zu: straddles or copied", len), 0;
	if (rt_check(rec.payload, len, seq) >= 0)
		return tap_diag("len %zu: payload differs at %ld", len,
				rt_check(rec.payload, len, seq)),
		       0;
	if (pfr_reader_next(r, &rec) != 0)
		return tap_diag("len %zu: extra record", len), 0;
	pfr_reader_end(r);
	return 1;
}

static void test_round_trips(enum pfr_ordering ord, uint64_t dsize)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	unsigned char *buf, *data;
	size_t max;
	int good = 1;
	uint64_t seq = 0, lost;
	void *p;

	if (!ok(rt_mkring(&ring, dsize, PFR_POLICY_DROP, ord, 0) == 0,
		"%s %llu: create", pfr_ordering_name(ord),
		(unsigned long long)dsize))
		return;
	is_int(pfr_ring_writer(ring, &w), 0, "writer");
	is_int(pfr_ring_reader(ring, &r), 0, "reader");
	data = ring_data(ring);
	max = pfr_writer_max_payload(&w);
	/* the largest record of the header's u16, or what an empty ring
	 * holds with a LOST record and padding in front: data/2 - 8 */
	is_uint(max + 8,
		dsize / 2 - 8 < PFR_RECORD_MAX ? dsize / 2 - 8 : PFR_RECORD_MAX,
		"max record");
	buf = malloc(max + 64);
	for (size_t len = 0; len <= max && good; len++) {
		if (dsize > 8192 && len == 300)
			len = max - 300; /* the middle of a big ring: skip */
		good = round_trip(&w, &r, data, dsize, len, seq++, buf,
				  (int)(len & 1));
	}
	ok(good, "%s %llu: round trip of every payload length 0..%zu",
	   pfr_ordering_name(ord), (unsigned long long)dsize, max);
	/* the maximum again, both ways, at several offsets */
	for (int i = 0; i < 8 && good; i++)
		good = round_trip(&w, &r, data, dsize, max, seq++, buf, i & 1);
	ok(good, "maximum-size records at several offsets");
	lost = pfr_writer_lost(&w);
	for (size_t len = max + 1; len <= max + 9; len++)
		is_int(pfr_writer_reserve(&w, 7, len, &p), -PFR_E_INVAL,
		       "one byte too many is -PFR_E_INVAL");
	is_int(pfr_writer_write(&w, 7, buf, SIZE_MAX), -PFR_E_INVAL,
	       "SIZE_MAX is -PFR_E_INVAL");
	is_int(pfr_writer_reserve(&w, 7, SIZE_MAX - 7, &p), -PFR_E_INVAL,
	       "SIZE_MAX - 7 is -PFR_E_INVAL (no wrap in the rounding)");
	is_int(pfr_writer_write(&w, 7, buf, max + 1), -PFR_E_INVAL,
	       "write: one byte too many is -PFR_E_INVAL");
	is_int(pfr_writer_write_deferred(&w, 7, buf, SIZE_MAX - 7),
	       -PFR_E_INVAL, "write_deferred: SIZE_MAX - 7 is -PFR_E_INVAL");
	is_uint(pfr_writer_lost(&w), lost, "too-large records not counted");
	is_int(pfr_reader_begin(&r), 0, "nothing published by them");
	ok(round_trip(&w, &r, data, dsize, 5, seq++, buf, 0),
	   "ring still works");
	{
		/* an empty record from no buffer at all (UBSan: no memcpy
		 * from NULL) */
		struct pfr_record rec;

		is_int(pfr_writer_write(&w, 11, NULL, 0), 0,
		       "write(NULL, 0): an empty record");
		ok(pfr_reader_begin(&r) >= 8 &&
			   pfr_reader_next(&r, &rec) == 1 &&
			   rec.hdr.type == 11 && rec.len == 0,
		   "read back: 8 bytes, type 11");
		pfr_reader_end(&r);
	}
	free(buf);
	pfr_ring_close(ring);
}

/* ---- wrap: PAD records and no straddling ---- */

/* Reads everything the ring's head shows: records of `type` carrying
 * rt_fill() payloads of len bytes (the record rounded up to 8, the length exact), numbered from
 * *rseq on.  Reports each wrong one; returns 0 if any was. */
static int read_back(struct pfr_reader *r, uint32_t type, size_t len,
		     uint64_t *rseq)
{
	struct pfr_record rec;
	int good = 1;

	pfr_reader_begin(r);
	while (pfr_reader_next(r, &rec) == 1) {
		if (rec.hdr.type != type || rec.len != len ||
		    rt_check(rec.payload, len, *rseq) >= 0)
			good = ok(0, "record %llu wrong",
				  (unsigned long long)*rseq);
		(*rseq)++;
	}
	pfr_reader_end(r);
	return good;
}

static void test_wrap(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r, raw;
	struct pfr_ring_ctl *c;
	struct pfr_record rec;
	unsigned char *data, *scratch = malloc(PFR_RECORD_MAX + 8);
	const uint64_t ds = 4096;
	uint64_t rs = 1000 + 8, pads = 0, recs = 0, seq = 0, rseq = 0;
	unsigned char buf[1000];
	int good = 1;

	if (rt_mkring(&ring, ds, PFR_POLICY_DROP, ord, 0))
		return (void)ok(0, "create");
	c = pfr_ring_ctl(ring);
	data = ring_data(ring);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	/* a raw reader without SKIP_PAD, on a private tail, sees the PADs */
	uint64_t raw_tail = 0;
	is_int(pfr_reader_init(&raw, &c->head, &raw_tail, data, ds, ord, 0,
			       scratch),
	       0, "raw reader over the same ring");
	for (int round = 0; round < 40 && good; round++) {
		int n = 1 + round % 3;

		for (int i = 0; i < n; i++) {
			rt_fill(buf, sizeof(buf), seq);
			if (pfr_writer_write(&w, 9, buf, sizeof(buf))) {
				good = ok(0, "write %d failed", round);
				break;
			}
			seq++;
		}
		/* raw view: records and PADs */
		pfr_reader_begin(&raw);
		while (pfr_reader_next(&raw, &rec) == 1) {
			uint64_t off = rec.pos & (ds - 1);

			if (off + rec.hdr.size > ds)
				good = ok(0, "record straddles the end");
			if (rec.hdr.type == PFR_RECORD_PAD) {
				pads++;
				/* a PAD fills exactly to the end of the area */
				if (off + rec.hdr.size != ds || ds - off >= rs)
					good = ok(0, "PAD at %llu size %u",
						  (unsigned long long)off,
						  rec.hdr.size);
			} else {
				recs++;
			}
		}
		pfr_reader_end(&raw);
		raw.published = raw.tail; /* private tail: keep it ours */
		/* the ring's reader skips them */
		if (!read_back(&r, 9, 1000, &rseq))
			good = 0;
	}
	ok(good, "%s: 40 rounds of wrapping records", pfr_ordering_name(ord));
	is_uint(recs, seq, "raw reader saw every record");
	is_uint(rseq, seq, "ring reader saw every record, no PAD");
	ok(pads >= seq * rs / ds - 1, "PAD records at every wrap (%llu)",
	   (unsigned long long)pads);
	free(scratch);
	pfr_ring_close(ring);
}

/* ---- batched publication ---- */

static void test_batch(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	struct pfr_ring_ctl *c;
	int good = 1;
	uint64_t seq = 0, rseq = 0;

	if (rt_mkring(&ring, 8192, PFR_POLICY_DROP, ord, 0))
		return (void)ok(0, "create");
	c = pfr_ring_ctl(ring);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	for (int round = 0; round < 20; round++) {
		uint64_t h0 = c->head, bytes = 0;
		int n = 1 + round % 7;

		for (int i = 0; i < n; i++) {
			size_t len = (size_t)(seq * 37 % 400);
			void *p;

			if (round & 1) {
				/* the copying form, same batch semantics */
				unsigned char buf[400];

				rt_fill(buf, len, seq++);
				if (pfr_writer_write_deferred(&w, 3, buf,
							      len)) {
					good = ok(0, "write_deferred");
					break;
				}
			} else {
				if (pfr_writer_reserve(&w, 3, len, &p)) {
					good = ok(0, "reserve");
					break;
				}
				rt_fill(p, len, seq++);
				pfr_writer_commit_deferred(&w);
			}
			bytes += (len + 15) & ~7ul;
			if (c->head != h0 || pfr_reader_begin(&r) != 0)
				good = ok(0, "visible before publish");
		}
		pfr_writer_publish(&w);
		if (c->head - h0 < bytes)
			good = ok(0, "head did not move by the batch");
		if (pfr_reader_begin(&r) != (int64_t)(c->head - h0))
			good = ok(0, "begin sees the whole batch");
		while (pfr_reader_next(&r, &rec) == 1) {
			size_t len = (size_t)(rseq * 37 % 400);

			if (rec.len != len ||
			    rt_check(rec.payload, len, rseq) >= 0)
				good = ok(0, "batch record %llu",
					  (unsigned long long)rseq);
			rseq++;
		}
		pfr_reader_end(&r);
		if (rseq != seq)
			good = ok(0, "round %d: read %llu of %llu", round,
				  (unsigned long long)rseq,
				  (unsigned long long)seq);
	}
	ok(good,
	   "%s: batches (reserve and write_deferred) invisible until "
	   "publish, then all there",
	   pfr_ordering_name(ord));
	/* publish with nothing committed does nothing */
	{
		uint64_t h = c->head;

		pfr_writer_publish(&w);
		pfr_writer_commit(&w); /* no reservation: no-op */
		is_uint(c->head, h, "empty publish and commit change nothing");
	}
	pfr_ring_close(ring);
}

/* pfr_writer_write_burst(): all at once or up to the first that does not
 * fit, one publication, across the wrap, and the DROP accounting. */
static void test_burst(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_ring_ctl *c;
	unsigned char buf[7 * 100];
	uint64_t seq = 0, rseq = 0;
	int good = 1, got;

	if (rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, 0))
		return (void)ok(0, "create");
	c = pfr_ring_ctl(ring);
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	/* 60 bursts of 1..7 records of 100 bytes (108 in the ring), read
	 * after each: the ring wraps many times, through the slow path */
	for (int round = 0; round < 60 && good; round++) {
		unsigned n = 1 + (unsigned)round % 7;
		uint64_t h0 = c->head;

		for (unsigned i = 0; i < n; i++)
			rt_fill(buf + i * 100, 100, seq + i);
		got = pfr_writer_write_burst(&w, 5, buf, 100, n);
		if (got != (int)n)
			good = ok(0, "round %d: burst wrote %d of %u", round,
				  got, n);
		seq += n;
		if (c->head - h0 < n * 112ull)
			good = ok(0,
				  "round %d: head moved by less than the "
				  "burst",
				  round);
		if (!read_back(&r, 5, 100, &rseq))
			good = 0;
	}
	ok(good && rseq == seq,
	   "%s: bursts published at once, read back whole across the wrap "
	   "(%llu records)",
	   pfr_ordering_name(ord), (unsigned long long)rseq);
	/* a full DROP ring: the burst stops at the first record that does
	 * not fit, which is counted lost; the rest are the caller's */
	{
		uint64_t lost0 = pfr_writer_lost(&w);
		int total = 0;

		for (int i = 0; i < 10; i++) {
			got = pfr_writer_write_burst(&w, 5, buf, 100, 7);
			total += got;
			if (got < 7)
				break;
		}
		ok(got >= 0 && got < 7 && total * 112 <= 4096 &&
			   total * 112 > 4096 - 2 * 112,
		   "full DROP ring: burst wrote %d of 7 (%d in all)", got,
		   total);
		is_uint(pfr_writer_lost(&w) - lost0, 1,
			"the first record that did not fit is counted lost");
	}
	is_int(pfr_writer_write_burst(&w, 5, buf,
				      pfr_writer_max_payload(&w) + 1, 1),
	       -PFR_E_INVAL, "burst: a record too large is -PFR_E_INVAL");
	is_int(pfr_writer_write_burst(&w, 5, buf, 8, 0x80000000u), -PFR_E_INVAL,
	       "burst: n > INT_MAX is -PFR_E_INVAL");
	pfr_ring_close(ring);
}

/* ---- DROP ---- */

/* Reads everything; returns records read (not LOST), adds LOST counts to
 * *lost and checks seq continuity across them.  Returns -1 on error. */
static long drain(struct pfr_reader *r, uint64_t *next_seq, uint64_t *lost,
		  uint64_t lost_id, size_t len)
{
	struct pfr_record rec;
	long n = 0;
	int err;

	if (pfr_reader_begin(r) < 0)
		return -1;
	while ((err = pfr_reader_next(r, &rec)) == 1) {
		if (rec.hdr.type == PFR_RECORD_LOST) {
			struct pfr_lost_record lr;

			if (rec.len != 16)
				return -1;
			memcpy(&lr.id, rec.payload, 16);
			if (lr.id != lost_id || lr.lost == 0)
				return -1;
			*lost += lr.lost;
			*next_seq += lr.lost;
			continue;
		}
		if (rec.len != len ||
		    rt_check(rec.payload, len, *next_seq) >= 0) {
			tap_diag("record seq %llu wrong",
				 (unsigned long long)*next_seq);
			return -1;
		}
		(*next_seq)++;
		n++;
	}
	pfr_reader_end(r);
	return err < 0 ? -1 : n;
}

static void test_drop(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_ring_stats st;
	const uint64_t ds = 4096;
	const size_t len = 100; /* a 112-byte record */
	uint64_t seq = 0, rseq = 0, lost = 0, fit = 0, id = 0x1d00 + ord;
	unsigned char buf[128];
	long n;
	int err;

	if (rt_mkring(&ring, ds, PFR_POLICY_DROP, ord, 0))
		return (void)ok(0, "create");
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	/* fill: records fit until the next one would pass tail + size */
	for (;;) {
		rt_fill(buf, len, seq);
		err = pfr_writer_write(&w, 1, buf, len);
		seq++;
		if (err)
			break;
		fit++;
	}
	is_intf(err, -PFR_E_NOSPC, "%s: full ring gives -PFR_E_NOSPC",
		pfr_ordering_name(ord));
	is_uint(fit, ds / 112, "as many records as fit");
	for (int i = 0; i < 4; i++) {
		rt_fill(buf, len, seq++);
		is_int(pfr_writer_write(&w, 1, buf, len), -PFR_E_NOSPC,
		       "still full");
	}
	is_uint(pfr_writer_lost(&w), 5, "five dropped, five counted");
	pfr_ring_stats(ring, &st);
	is_uint(st.lost_total, 5, "lost_total in shared memory");
	is_uint(pfr_ring_ctl(ring)->lost_pending, 5, "lost_pending");
	n = drain(&r, &rseq, &lost, id, len);
	is_int(n, (long)fit, "reader gets the records that fit");
	is_uint(lost, 0, "no LOST record yet");
	/* the next record that fits comes behind LOST {id, 5} */
	rt_fill(buf, len, seq);
	is_int(pfr_writer_write(&w, 1, buf, len), 0, "room again");
	seq++;
	n = drain(&r, &rseq, &lost, id, len);
	is_int(n, 1, "one record after the LOST record");
	is_uint(lost, 5, "LOST {id, 5} in front of it");
	is_uint(rseq, seq, "sequence continuous across the loss");
	is_uint(pfr_ring_ctl(ring)->lost_pending, 0, "nothing pending");
	/* LOST + record must both fit: with room for the record alone the
	 * record is dropped too (and the count grows) */
	fit = 0;
	for (;;) {
		rt_fill(buf, len, seq);
		err = pfr_writer_write(&w, 1, buf, len);
		seq++;
		if (err)
			break;
	}
	{
		/* free exactly one record's worth */
		struct pfr_record rec;

		pfr_reader_begin(&r);
		is_int(pfr_reader_next(&r, &rec), 1, "read one");
		ok(rt_check(rec.payload, len, rseq) < 0, "its payload");
		rseq++;
		pfr_reader_end(&r);
	}
	rt_fill(buf, len, seq++);
	err = pfr_writer_write(&w, 1, buf, len);
	is_int(err, -PFR_E_NOSPC,
	       "room for the record but not for LOST + record: dropped");
	n = drain(&r, &rseq, &lost, id, len);
	ok(n > 0, "drain");
	rt_fill(buf, len, seq++);
	is_int(pfr_writer_write(&w, 1, buf, len), 0, "room again");
	n = drain(&r, &rseq, &lost, id, len);
	is_int(n, 1, "the record");
	is_uint(lost, 7, "LOST {id, 2} for the two drops");
	is_uint(rseq, seq, "sequence continuous");
	is_uint(pfr_writer_lost(&w), lost, "written == read + lost");
	pfr_ring_close(ring);
}

/* pfr_writer_flush emits a pending LOST record with no record behind it */
static void test_flush_lost(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	uint64_t seq = 0, rseq = 0, lost = 0, id = 0x1d00 + ord;
	unsigned char buf[512];

	if (rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, 0))
		return (void)ok(0, "create");
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	while (rt_fill(buf, 500, seq), pfr_writer_write(&w, 1, buf, 500) == 0)
		seq++;
	seq++;
	for (int i = 0; i < 2; i++) {
		rt_fill(buf, 500, seq++);
		pfr_writer_write(&w, 1, buf, 500);
	}
	ok(drain(&r, &rseq, &lost, id, 500) > 0, "drain");
	is_uint(lost, 0, "no LOST yet");
	pfr_writer_flush(&w);
	is_int(drain(&r, &rseq, &lost, id, 500), 0,
	       "flush: no record (the PAD behind LOST is skipped)");
	is_uintf(lost, 3, "%s: flush emitted LOST {id, 3}",
		 pfr_ordering_name(ord));
	is_uint(rseq, seq, "sequence accounted");
	is_uint(pfr_ring_ctl(ring)->lost_pending, 0, "nothing pending");
	pfr_writer_flush(&w);
	is_int(pfr_reader_begin(&r), 0, "second flush adds nothing");
	/* a flush on a full ring keeps the count pending, never drops:
	 * fill with 8-byte records (no gap left) until one is dropped */
	while (pfr_writer_write(&w, 1, buf, 0) == 0)
		seq++;
	seq++;
	pfr_writer_flush(&w);
	is_uint(pfr_ring_ctl(ring)->lost_pending, 1, "full: LOST pending");
	{
		/* free 16 bytes: LOST + PAD (32) still do not fit */
		struct pfr_record rec;

		pfr_reader_begin(&r);
		pfr_reader_next(&r, &rec);
		pfr_reader_next(&r, &rec);
		pfr_reader_end(&r);
		rseq += 2;
	}
	pfr_writer_flush(&w);
	is_uint(pfr_ring_ctl(ring)->lost_pending, 1, "16 bytes free: pending");
	is_uint(pfr_writer_lost(&w), 4, "and not dropped again");
	ok(drain(&r, &rseq, &lost, id, 0) > 0, "drain");
	pfr_writer_flush(&w);
	ok(drain(&r, &rseq, &lost, id, 0) == 0 && lost == 4,
	   "then flushed once there is room");
	is_uint(rseq, seq, "sequence accounted");
	pfr_ring_close(ring);
}

/* ---- BLOCK ---- */

struct drainer {
	struct pfr_reader *r;
	uint64_t delay_ns;
	long records;
};

static void *drain_later(void *arg)
{
	struct drainer *d = (struct drainer *)arg;
	struct pfr_record rec;

	rt_sleep_ns(d->delay_ns);
	pfr_reader_begin(d->r);
	while (pfr_reader_next(d->r, &rec) == 1)
		d->records++;
	pfr_reader_end(d->r);
	return NULL;
}

static void test_block(enum pfr_ordering ord, uint32_t flags)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct drainer d;
	pthread_t th;
	unsigned char buf[600];
	uint64_t seq = 0, rseq = 0, lost = 0, t0, dt, id = 0x1d00 + ord;
	long fit = 0;
	int err;

	if (rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, flags))
		return (void)ok(0, "create");
	pfr_ring_writer(ring, &w);
	pfr_ring_reader(ring, &r);
	pfr_writer_set_timeout(&w, 50 * 1000000ull);
	for (;;) {
		rt_fill(buf, 600, seq);
		t0 = rt_now_ns();
		err = pfr_writer_write(&w, 1, buf, 600);
		dt = rt_now_ns() - t0;
		seq++;
		if (err)
			break;
		fit++;
	}
	is_intf(err, -PFR_E_TIMEDOUT, "%s%s: full BLOCK ring times out",
		pfr_ordering_name(ord), flags ? " wait" : "");
	is_int(fit, 4096 / 608, "records that fit");
	ok(dt >= 50 * 1000000ull, "not before the time-out (%.1f ms)",
	   dt / 1e6);
	is_uint(pfr_writer_lost(&w), 1, "the timed-out record counts lost");
	/* now a reader drains after 100 ms while the writer waits up to 5 s */
	pfr_writer_set_timeout(&w, 5000 * 1000000ull);
	d.r = &r;
	d.delay_ns = 100 * 1000000ull;
	d.records = 0;
	pthread_create(&th, NULL, drain_later, &d);
	rt_fill(buf, 600, seq);
	t0 = rt_now_ns();
	err = pfr_writer_write(&w, 1, buf, 600);
	dt = rt_now_ns() - t0;
	seq++;
	pthread_join(th, NULL);
	/* 0, not -PFR_E_TIMEDOUT: woken by the reader, not the time-out */
	is_int(err, 0, "the blocked writer proceeds once the reader drains");
	ok(dt >= 90 * 1000000ull, "not before the reader drained (%.1f ms)",
	   dt / 1e6);
	is_int(d.records, fit, "reader drained what was there");
	rseq = (uint64_t)fit;
	is_int(drain(&r, &rseq, &lost, id, 600), 1, "the new record");
	is_uint(lost, 1, "behind a LOST {id, 1}");
	is_uint(rseq, seq, "sequence accounted");
	/* a deferred batch that fills the ring: the reader cannot free
	 * space it cannot see, so the waiting writer must publish it */
	{
		struct pfr_ring_ctl *c = pfr_ring_ctl(ring);
		uint64_t h0 = c->head;
		void *p = NULL;
		int n = 0;

		pfr_writer_set_timeout(&w, 0);
		while (pfr_writer_reserve(&w, 1, 600, &p) == 0) {
			rt_fill(p, 600, seq++);
			pfr_writer_commit_deferred(&w);
			n++;
		}
		seq++; /* the one that timed out */
		ok(c->head != h0,
		   "a full deferred batch was published "
		   "when the writer had to wait (%d records)",
		   n);
		pfr_writer_set_timeout(&w, 5000 * 1000000ull);
		d.records = 0;
		d.delay_ns = 30 * 1000000ull;
		pthread_create(&th, NULL, drain_later, &d);
		t0 = rt_now_ns();
		rt_fill(buf, 600, seq);
		err = pfr_writer_write(&w, 1, buf, 600);
		dt = rt_now_ns() - t0;
		seq++;
		pthread_join(th, NULL);
		ok(err == 0 && d.records == n,
		   "then the reader drained it and the writer went on "
		   "(%.1f ms)",
		   dt / 1e6);
	}
	pfr_ring_close(ring);
}

/* ---- OVERWRITE ---- */

/* Checks a snapshot: whole records, seq contiguous, the newest = last.
 * Returns the number of records or -1. */
static long check_snapshot(const unsigned char *buf, int64_t n, uint64_t last,
			   int want_last)
{
	uint64_t p = 0, prev = 0;
	long recs = 0;

	while (p < (uint64_t)n) {
		struct pfr_record_header h;
		uint64_t s;

		memcpy(&h, buf + p, 8);
		if (h.size < 8 + RT_HDR || (h.size & 7) ||
		    p + h.size > (uint64_t)n || h.type == PFR_RECORD_PAD)
			return tap_diag("bad header at %llu",
					(unsigned long long)p),
			       -1;
		if (!rt_verify(buf + p + 8, h.size - 8, &s))
			return tap_diag("torn record at %llu",
					(unsigned long long)p),
			       -1;
		if (recs && s != prev + 1)
			return tap_diag("seq %llu after %llu",
					(unsigned long long)s,
					(unsigned long long)prev),
			       -1;
		prev = s;
		p += h.size;
		recs++;
	}
	if (want_last && recs && prev != last)
		return tap_diag("newest %llu, want %llu",
				(unsigned long long)prev,
				(unsigned long long)last),
		       -1;
	return recs;
}

static void test_overwrite(enum pfr_ordering ord)
{
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	unsigned char *snap = malloc(8192), buf[2048];
	uint64_t rnd = 42 + ord, seq;
	int64_t n;
	long recs;
	int good = 1;

	if (rt_mkring(&ring, 4096, PFR_POLICY_OVERWRITE, ord, 0))
		return (void)ok(0, "create");
	is_int(pfr_ring_reader(ring, &r), -PFR_E_INVAL,
	       "no consuming reader on an OVERWRITE ring");
	pfr_ring_writer(ring, &w);
	is_int(pfr_ring_snapshot(ring, snap, 8192), 0, "empty: nothing");
	for (seq = 0; seq < 20000 && good; seq++) {
		size_t len = RT_HDR + (size_t)(rt_rand(&rnd) % 300 & ~7ull);

		if (seq % 97 == 0)
			len = pfr_writer_max_payload(&w);
		rt_stamp(buf, len, seq);
		if (pfr_writer_write(&w, 5, buf, len)) {
			good = ok(0, "write %llu", (unsigned long long)seq);
			break;
		}
		if (seq % 13 == 0 || seq < 50) {
			n = pfr_ring_snapshot(ring, snap, 8192);
			recs = check_snapshot(snap, n, seq, 1);
			if (n <= 0 || recs <= 0) {
				good = ok(0, "snapshot at %llu: %lld",
					  (unsigned long long)seq,
					  (long long)n);
			}
		}
	}
	ok(good, "%s: 20000 records, snapshots newest, whole, contiguous",
	   pfr_ordering_name(ord));
	is_uint(pfr_writer_lost(&w), 0, "OVERWRITE loses nothing it counts");
	n = pfr_ring_snapshot(ring, snap, 8192);
	recs = check_snapshot(snap, n, seq - 1, 1);
	ok(recs > 0 && n > 4096 - 2 * 2048 - 8,
	   "final snapshot: %ld records, %lld bytes", recs, (long long)n);
	/* a small buffer gets only the newest records that fit: a suffix
	 * of the full snapshot */
	for (size_t bl = 0; bl < 700 && n > 0; bl += 50) {
		unsigned char small[700];
		int64_t m = pfr_ring_snapshot(ring, small, bl);

		if (m < 0 || (size_t)m > bl || m > n ||
		    check_snapshot(small, m, seq - 1, 1) < 0 ||
		    memcmp(small, snap + n - m, (size_t)m) != 0 ||
		    (m == 0 && bl >= 2 * 8 + 2 * 300 + 2 * RT_HDR))
			good = ok(0, "buflen %zu: %lld", bl, (long long)m);
	}
	ok(good, "small buffers: newest whole records only");
	/* batched writes: nothing new before publish */
	{
		int64_t before = pfr_ring_snapshot(ring, snap, 8192);
		uint64_t newest_before = 0, s;
		void *p = NULL;

		if (before > 0) {
			uint64_t q = 0;
			struct pfr_record_header h;

			while (q < (uint64_t)before) {
				memcpy(&h, snap + q, 8);
				rt_verify(snap + q + 8, h.size - 8,
					  &newest_before);
				q += h.size;
			}
		}
		pfr_writer_reserve(&w, 5, 64, &p);
		rt_stamp(p, 64, seq);
		pfr_writer_commit_deferred(&w);
		n = pfr_ring_snapshot(ring, snap, 8192);
		s = 0;
		if (n > 0) {
			uint64_t q = 0;
			struct pfr_record_header h;

			while (q < (uint64_t)n) {
				memcpy(&h, snap + q, 8);
				rt_verify(snap + q + 8, h.size - 8, &s);
				q += h.size;
			}
		}
		ok(n >= 0 && s == newest_before,
		   "deferred record invisible to snapshots");
		pfr_writer_publish(&w);
		n = pfr_ring_snapshot(ring, snap, 8192);
		ok(check_snapshot(snap, n, seq, 1) > 0,
		   "visible after publish");
	}
	free(snap);
	pfr_ring_close(ring);
	{
		struct pfr_ring *dr;

		rt_mkring(&dr, 4096, PFR_POLICY_DROP, ord, 0);
		is_int(pfr_ring_snapshot(dr, buf, sizeof(buf)), -PFR_E_INVAL,
		       "snapshot of a DROP ring is -PFR_E_INVAL");
		pfr_ring_close(dr);
	}
}

/* ---- a raw reader over a kernel-like ring ---- */

static void test_kernel_layout(enum pfr_ordering ord)
{
	long pg = sysconf(_SC_PAGESIZE);
	const uint64_t ds = 4096;
	unsigned char *map, *data;
	struct perf_event_mmap_page *mp;
	struct pfr_reader r;
	struct pfr_record rec;
	unsigned char *scratch = malloc(PFR_RECORD_MAX + 8);
	/* counters near 2^64: the straddling record also wraps them */
	const uint64_t base = (uint64_t)0 - 96;
	static const uint16_t sizes[] = {48, 96, 24, 3800, 8, 64};
	uint64_t pos = base, epos = base;
	int good = 1, i = 0;

	map = mmap(NULL, (size_t)pg + ds, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mp = (struct perf_event_mmap_page *)map;
	data = map + pg;
	mp->data_offset = (uint64_t)pg;
	mp->data_size = ds;
	mp->data_tail = base;
	for (i = 0; i < 6; i++) {
		struct pfr_record_header h = {100u + (uint32_t)i, 0, sizes[i]};
		unsigned char tmp[4096];

		memcpy(tmp, &h, 8);
		rt_fill(tmp + 8, sizes[i] - 8u, (uint64_t)i);
		for (unsigned j = 0; j < sizes[i]; j++)
			data[(pos + j) & (ds - 1)] = tmp[j];
		pos += sizes[i];
	}
	mp->data_head = pos;
	is_intf(pfr_reader_init(&r, (const uint64_t *)&mp->data_head,
				(uint64_t *)&mp->data_tail, data, ds, ord, 0,
				scratch),
		0, "%s: reader over a perf_event_mmap_page",
		pfr_ordering_name(ord));
	is_int(pfr_reader_begin(&r), (int64_t)(pos - base), "bytes available");
	for (i = 0; i < 6; i++) {
		if (pfr_reader_next(&r, &rec) != 1) {
			good = ok(0, "record %d missing", i);
			break;
		}
		if (rec.hdr.type != 100u + (uint32_t)i ||
		    rec.hdr.size != sizes[i] || rec.len != sizes[i] - 8u ||
		    rec.pos != epos ||
		    rt_check(rec.payload, rec.len, (uint64_t)i) >= 0)
			good = ok(0, "record %d wrong", i);
		epos += sizes[i];
		if (i == 1 && (const unsigned char *)rec.payload != scratch + 8)
			good = ok(0, "the straddling record was not copied");
		if (i != 1 && ((const unsigned char *)rec.payload < data ||
			       (const unsigned char *)rec.payload >= data + ds))
			good = ok(0, "record %d not in place", i);
	}
	ok(good, "six records, one straddling the end, two-piece copy");
	is_int(pfr_reader_next(&r, &rec), 0, "then drained");
	pfr_reader_end(&r);
	is_uint(mp->data_tail, pos, "tail published at head (wrapped)");
	/* a straddling record of the largest size */
	{
		struct pfr_record_header h = {200, 0, 4096 - 48};
		uint64_t at = pos + 48;

		/* a filler record of 48 bytes first */
		struct pfr_record_header f = {201, 0, 48};

		memcpy(data + (pos & (ds - 1)), &f, 8);
		for (unsigned j = 0; j < h.size; j++)
			data[(at + j) & (ds - 1)] =
				j < 8 ? ((unsigned char *)&h)[j]
				      : rt_byte(77, j - 8);
		mp->data_head = at + h.size;
		ok(pfr_reader_begin(&r) == (int64_t)(at + h.size - pos),
		   "begin");
		ok(pfr_reader_next(&r, &rec) == 1 && rec.hdr.type == 201,
		   "filler");
		ok(pfr_reader_next(&r, &rec) == 1 && rec.hdr.type == 200 &&
			   rec.len == 4096 - 56 && rec.payload == scratch + 8 &&
			   rt_check(rec.payload, rec.len, 77) < 0,
		   "a record filling the ring, straddling");
		pfr_reader_end(&r);
	}
	free(scratch);
	munmap(map, (size_t)pg + ds);
}

/* ---- shared memory ---- */

static void shm_name(char *buf, size_t n, const char *what)
{
	snprintf(buf, n, "pfr-test-%s-%d", what, (int)getpid());
}

static int write_n(struct pfr_ring *ring, uint64_t from, int n)
{
	struct pfr_writer w;
	unsigned char buf[256];

	if (pfr_ring_writer(ring, &w))
		return -1;
	for (int i = 0; i < n; i++) {
		rt_fill(buf, 200, from + (uint64_t)i);
		if (pfr_writer_write(&w, 1, buf, 200))
			return -1;
	}
	/* the role goes back, for the next process's writer */
	return pfr_writer_close(&w);
}

static int read_n(struct pfr_ring *ring, uint64_t from, int n)
{
	struct pfr_reader r;
	struct pfr_record rec;
	int got = 0;

	if (pfr_ring_reader(ring, &r))
		return -1;
	if (pfr_reader_begin(&r) < 0)
		return -1;
	while (pfr_reader_next(&r, &rec) == 1) {
		if (rec.len != 200 ||
		    rt_check(rec.payload, 200, from + (uint64_t)got) >= 0)
			return -1;
		got++;
	}
	/* the role goes back, for the next process's reader */
	pfr_reader_close(&r);
	return got == n ? 0 : -1;
}

static void test_shm(enum pfr_ordering ord)
{
	char name[64], path[96];
	struct pfr_ring_opts o;
	struct pfr_ring *a, *b;
	struct stat st;
	pid_t pid;
	int status;

	shm_name(name, sizeof(name), pfr_ordering_name(ord));
	snprintf(path, sizeof(path), "/dev/shm/%s", name);
	pfr_ring_unlink(name);
	memset(&o, 0, sizeof(o));
	o.data_size = 16384;
	o.ordering = ord;
	if (!ok(pfr_ring_create_shm(&a, name, &o) == 0, "%s: create shm",
		pfr_ordering_name(ord)))
		return;
	ok(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600,
	   "mode 0600 by default (%o)", (unsigned)(st.st_mode & 07777));
	ok(pfr_ring_fd(a) >= 0 && fstat(pfr_ring_fd(a), &st) == 0 &&
		   (uint64_t)st.st_size == pfr_ring_ctl(a)->data_offset + 16384,
	   "object sized control block + data");
	is_int(pfr_ring_create_shm(&b, name, &o), -PFR_E_SYSTEM,
	       "second create of the same name fails (O_EXCL)");
	is_int(pfr_ring_attach_shm(&b, name), 0, "attach by name");
	ok(write_n(a, 0, 30) == 0, "write through one mapping");
	ok(read_n(b, 0, 30) == 0, "read through the other");
	pfr_ring_close(b);
	/* a second process attaches by name and writes */
	pid = fork();
	if (pid == 0) {
		struct pfr_ring *c;

		if (pfr_ring_attach_shm(&c, name) || write_n(c, 100, 50))
			_exit(1);
		pfr_ring_close(c);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "child attached by name and wrote");
	ok(read_n(a, 100, 50) == 0, "parent read the child's records");
	/* and reads what the parent writes */
	ok(write_n(a, 300, 40) == 0, "parent writes");
	pid = fork();
	if (pid == 0) {
		struct pfr_ring *c;

		if (pfr_ring_attach_shm(&c, "/dummy-not-there") !=
		    -PFR_E_SYSTEM)
			_exit(2);
		if (pfr_ring_attach_shm(&c, name) || read_n(c, 300, 40))
			_exit(1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "child attached by name and read");
	is_int(pfr_ring_unlink(name), 0, "unlink");
	is_int(pfr_ring_attach_shm(&b, name), -PFR_E_SYSTEM,
	       "attach after unlink fails");
	ok(write_n(a, 0, 1) == 0, "the creator's mapping still works");
	pfr_ring_close(a);
	/* mode on request */
	o.mode = 0640;
	if (ok(pfr_ring_create_shm(&a, "/x-mode-test-pfr", &o) == 0,
	       "create with a leading slash and mode 0640")) {
		ok(stat("/dev/shm/x-mode-test-pfr", &st) == 0 &&
			   (st.st_mode & 07777) == 0640,
		   "mode 0640 as asked (%o)", (unsigned)(st.st_mode & 07777));
		pfr_ring_unlink("x-mode-test-pfr");
		pfr_ring_close(a);
	}
}

static void test_memfd(enum pfr_ordering ord)
{
	struct pfr_ring_opts o;
	struct pfr_ring *a, *b;
	int fd, seals, status;
	pid_t pid;

	memset(&o, 0, sizeof(o));
	o.data_size = 8192;
	o.ordering = ord;
	o.policy = PFR_POLICY_BLOCK;
	if (!ok(pfr_ring_create_memfd(&a, &o) == 0, "%s: create memfd",
		pfr_ordering_name(ord)))
		return;
	fd = pfr_ring_fd(a);
	seals = fcntl(fd, F_GET_SEALS);
	ok(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) &&
		   (seals & F_SEAL_SEAL),
	   "sealed against shrink, grow and more seals (0x%x)", seals);
	ok(ftruncate(fd, 4096) < 0 && errno == EPERM, "cannot be shrunk");
	is_int(pfr_ring_attach_fd(&b, fd), 0, "attach by fd");
	ok(pfr_ring_fd(b) != fd && pfr_ring_fd(b) >= 0, "fd was dup'ed");
	ok(write_n(a, 0, 20) == 0 && read_n(b, 0, 20) == 0,
	   "round trip across two attachments");
	pfr_ring_close(b);
	is_int(pfr_ring_attach_fd(&b, -1), -PFR_E_SYSTEM, "bad fd");
	pid = fork();
	if (pid == 0) {
		struct pfr_ring *c;

		if (pfr_ring_attach_fd(&c, fd) || write_n(c, 500, 25))
			_exit(1);
		pfr_ring_close(c);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "child attached by inherited fd and wrote");
	ok(read_n(a, 500, 25) == 0, "parent read them");
	pfr_ring_close(a);
}

/* ---- free-running counters across 2^64 ---- */

static void test_counter_wrap(enum pfr_ordering ord, enum pfr_policy pol)
{
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	struct pfr_reader r;
	unsigned char buf[700], *snap = malloc(4096);
	const uint64_t start = (uint64_t)0 - 3 * 4096 + 24;
	uint64_t seq = 0, rseq = 0, lost = 0, rnd = 3;
	int good = 1;

	if (rt_mkring(&ring, 4096, pol, ord, 0))
		return (void)ok(0, "create");
	c = pfr_ring_ctl(ring);
	/* a ring that has carried 2^64 - 12 KiB bytes already */
	c->head = c->tail = c->oldest = start;
	is_int(pfr_ring_writer(ring, &w), 0, "writer resumes near 2^64");
	pfr_writer_set_timeout(&w, 1000000);
	if (pol != PFR_POLICY_OVERWRITE)
		is_int(pfr_ring_reader(ring, &r), 0, "reader too");
	for (int i = 0; i < 400 && good; i++) {
		size_t len = RT_HDR + (size_t)(rt_rand(&rnd) % 600 & ~7ull);

		rt_stamp(buf, len, seq++);
		pfr_writer_write(&w, 1, buf, len);
		if (pol == PFR_POLICY_OVERWRITE) {
			int64_t n = pfr_ring_snapshot(ring, snap, 4096);
			uint64_t p = 0, s = 0;

			while (n > 0 && p < (uint64_t)n) {
				struct pfr_record_header h;

				memcpy(&h, snap + p, 8);
				if (!rt_verify(snap + p + 8, h.size - 8u, &s))
					good = 0;
				p += h.size;
			}
			if (n <= 0 || s != seq - 1)
				good = ok(0, "snapshot %d: %lld", i,
					  (long long)n);
			continue;
		}
		if (rt_rand(&rnd) % 3 == 0) {
			struct pfr_record rec;
			uint64_t s = 0;

			if (pfr_reader_begin(&r) < 0)
				good = ok(0, "begin");
			while (pfr_reader_next(&r, &rec) == 1) {
				if (rec.hdr.type == PFR_RECORD_LOST) {
					uint64_t n;

					memcpy(&n,
					       (const char *)rec.payload + 8,
					       8);
					lost += n;
					rseq += n;
					continue;
				}
				if (!rt_verify(rec.payload, rec.len, &s) ||
				    s != rseq++)
					good = ok(0, "record %llu",
						  (unsigned long long)s);
			}
			pfr_reader_end(&r);
		}
	}
	ok(good && c->head < start,
	   "%s %s: 400 records across 2^64 (head "
	   "%#llx)",
	   pfr_ordering_name(ord), pfr_policy_name(pol),
	   (unsigned long long)c->head);
	if (pol != PFR_POLICY_OVERWRITE) {
		struct pfr_record rec;
		uint64_t s;

		/* drain, report pending drops, drain again */
		for (int k = 0; k < 2; k++) {
			pfr_reader_begin(&r);
			while (pfr_reader_next(&r, &rec) == 1) {
				if (rec.hdr.type == PFR_RECORD_LOST) {
					uint64_t n;

					memcpy(&n,
					       (const char *)rec.payload + 8,
					       8);
					lost += n;
					rseq += n;
				} else if (!rt_verify(rec.payload, rec.len,
						      &s) ||
					   s != rseq++) {
					good = 0;
				}
			}
			pfr_reader_end(&r);
			pfr_writer_flush(&w);
		}
		ok(good && rseq == seq && lost == pfr_writer_lost(&w),
		   "written %llu == read + lost %llu, exactly",
		   (unsigned long long)seq, (unsigned long long)lost);
	}
	free(snap);
	pfr_ring_close(ring);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_opts();
	test_names();
	for (int i = 0; i < PFR_ORDER__COUNT; i++) {
		enum pfr_ordering o = rt_orders[i];

		test_round_trips(o, 4096);
		test_round_trips(o, 1u << 17);
		test_wrap(o);
		test_batch(o);
		test_burst(o);
		test_drop(o);
		test_flush_lost(o);
		test_block(o, 0);
		test_block(o, PFR_RING_WAIT);
		test_overwrite(o);
		test_kernel_layout(o);
		test_shm(o);
		test_memfd(o);
		for (int p = 0; p < PFR_POLICY__COUNT; p++)
			test_counter_wrap(o, (enum pfr_policy)p);
	}
	return rt_done();
}
