// SPDX-License-Identifier: MIT
/*
 * The out-of-line twins of the inline API (src/abi/ffi.c), called as an FFI
 * calls them: looked up by name with dlsym in the shared library next to
 * this test, never through the headers' inline functions.  Every twin is
 * there at PERFRING_0.2, and each does what its inline function does: a
 * ring written and read through the twins alone (every writer and reader
 * twin, verified payloads), DROP's loss count, an MPSC ring with a
 * discarded record, a group drained by the pfr_group_consume twin,
 * pfr_perf_u64 on an unaligned array, and pfr_ffi_sizeof against the
 * header's sizeof.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/perf.h>
#include <perfring/ring.h>

#include "abi_common.h"
#include "tap.h"

static const char *const twins[] = {
	"pfr_writer_reserve",
	"pfr_writer_commit",
	"pfr_writer_commit_deferred",
	"pfr_writer_publish",
	"pfr_writer_write",
	"pfr_writer_write_deferred",
	"pfr_writer_write_burst",
	"pfr_writer_max_payload",
	"pfr_writer_lost",
	"pfr_reader_begin",
	"pfr_reader_begin_unpaced",
	"pfr_reader_poll",
	"pfr_reader_next",
	"pfr_reader_consume",
	"pfr_reader_end",
	"pfr_reader_pending",
	"pfr_mpsc_reserve",
	"pfr_mpsc_commit",
	"pfr_mpsc_discard",
	"pfr_mpsc_write",
	"pfr_mpsc_producer_index",
	"pfr_mpsc_lost",
	"pfr_mpsc_max_payload",
	"pfr_mpsc_begin",
	"pfr_mpsc_next",
	"pfr_mpsc_end",
	"pfr_group_consume",
	"pfr_perf_u64",
	"pfr_ffi_sizeof",
};

/* The library's functions, as an FFI sees them. */
static struct {
	int (*ring_create)(struct pfr_ring **, const struct pfr_ring_opts *);
	int (*ring_writer)(struct pfr_ring *, struct pfr_writer *);
	int (*ring_reader)(struct pfr_ring *, struct pfr_reader *);
	void (*ring_close)(struct pfr_ring *);
	int (*reserve)(struct pfr_writer *, uint32_t, size_t, void **);
	void (*commit)(struct pfr_writer *);
	void (*commit_deferred)(struct pfr_writer *);
	void (*publish)(struct pfr_writer *);
	int (*write)(struct pfr_writer *, uint32_t, const void *, size_t);
	int (*write_deferred)(struct pfr_writer *, uint32_t, const void *,
			      size_t);
	int (*write_burst)(struct pfr_writer *, uint32_t, const void *, size_t,
			   unsigned);
	size_t (*max_payload)(const struct pfr_writer *);
	uint64_t (*lost)(const struct pfr_writer *);
	int64_t (*begin)(struct pfr_reader *);
	int64_t (*begin_unpaced)(struct pfr_reader *);
	int64_t (*poll)(struct pfr_reader *, uint32_t);
	int (*next)(struct pfr_reader *, struct pfr_record *);
	int64_t (*consume)(struct pfr_reader *, pfr_record_fn, void *,
			   uint64_t);
	void (*end)(struct pfr_reader *);
	uint64_t (*pending)(const struct pfr_reader *);
	int (*mpsc_create)(struct pfr_mpsc **, const struct pfr_mpsc_opts *);
	int (*mpsc_join)(struct pfr_mpsc *, struct pfr_mpsc_producer *);
	void (*mpsc_leave)(struct pfr_mpsc_producer *);
	int (*mpsc_reader)(struct pfr_mpsc *, struct pfr_mpsc_reader *);
	void (*mpsc_reader_close)(struct pfr_mpsc_reader *);
	void (*mpsc_close)(struct pfr_mpsc *);
	int (*mpsc_reserve)(struct pfr_mpsc_producer *, uint32_t, size_t,
			    void **);
	void (*mpsc_commit)(struct pfr_mpsc_producer *);
	void (*mpsc_discard)(struct pfr_mpsc_producer *);
	int (*mpsc_write)(struct pfr_mpsc_producer *, uint32_t, const void *,
			  size_t);
	unsigned (*mpsc_index)(const struct pfr_mpsc_producer *);
	uint64_t (*mpsc_lost)(const struct pfr_mpsc_producer *);
	size_t (*mpsc_max_payload)(const struct pfr_mpsc_producer *);
	int64_t (*mpsc_begin)(struct pfr_mpsc_reader *);
	int (*mpsc_next)(struct pfr_mpsc_reader *, struct pfr_record *);
	void (*mpsc_end)(struct pfr_mpsc_reader *);
	int64_t (*group_consume)(struct pfr_group *, pfr_group_fn, void *,
				 uint32_t);
	uint64_t (*perf_u64)(const uint64_t *, uint64_t);
	size_t (*ffi_sizeof)(const char *);
} F;

#define SYM(field, name) (*(void **)&F.field = dlsym(h, name))

static int resolve(void *h)
{
	void **p = (void **)&F;
	int n = 0;

	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++)
		n += !ok(dlvsym(h, twins[i], "PERFRING_0.2") != NULL,
			 "%s@PERFRING_0.2 exported", twins[i]);
	SYM(ring_create, "pfr_ring_create");
	SYM(ring_writer, "pfr_ring_writer");
	SYM(ring_reader, "pfr_ring_reader");
	SYM(ring_close, "pfr_ring_close");
	SYM(reserve, "pfr_writer_reserve");
	SYM(commit, "pfr_writer_commit");
	SYM(commit_deferred, "pfr_writer_commit_deferred");
	SYM(publish, "pfr_writer_publish");
	SYM(write, "pfr_writer_write");
	SYM(write_deferred, "pfr_writer_write_deferred");
	SYM(write_burst, "pfr_writer_write_burst");
	SYM(max_payload, "pfr_writer_max_payload");
	SYM(lost, "pfr_writer_lost");
	SYM(begin, "pfr_reader_begin");
	SYM(begin_unpaced, "pfr_reader_begin_unpaced");
	SYM(poll, "pfr_reader_poll");
	SYM(next, "pfr_reader_next");
	SYM(consume, "pfr_reader_consume");
	SYM(end, "pfr_reader_end");
	SYM(pending, "pfr_reader_pending");
	SYM(mpsc_create, "pfr_mpsc_create");
	SYM(mpsc_join, "pfr_mpsc_join");
	SYM(mpsc_leave, "pfr_mpsc_leave");
	SYM(mpsc_reader, "pfr_mpsc_reader");
	SYM(mpsc_reader_close, "pfr_mpsc_reader_close");
	SYM(mpsc_close, "pfr_mpsc_close");
	SYM(mpsc_reserve, "pfr_mpsc_reserve");
	SYM(mpsc_commit, "pfr_mpsc_commit");
	SYM(mpsc_discard, "pfr_mpsc_discard");
	SYM(mpsc_write, "pfr_mpsc_write");
	SYM(mpsc_index, "pfr_mpsc_producer_index");
	SYM(mpsc_lost, "pfr_mpsc_lost");
	SYM(mpsc_max_payload, "pfr_mpsc_max_payload");
	SYM(mpsc_begin, "pfr_mpsc_begin");
	SYM(mpsc_next, "pfr_mpsc_next");
	SYM(mpsc_end, "pfr_mpsc_end");
	SYM(group_consume, "pfr_group_consume");
	SYM(perf_u64, "pfr_perf_u64");
	SYM(ffi_sizeof, "pfr_ffi_sizeof");
	for (size_t i = 0; i < sizeof(F) / sizeof(void *); i++)
		n += !p[i];
	return ok(n == 0, "every function resolved") ? 0 : -1;
}

/* Payload of record seq: len bytes, each a function of seq and position. */
static void fill(unsigned char *b, size_t len, uint64_t seq)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (unsigned char)(seq * 131 + i * 7 + 1);
}

static int check(const struct pfr_record *rec, size_t len, uint64_t seq)
{
	unsigned char want[256];

	if (rec->hdr.type != 10 + seq % 5 || rec->len < len || len > 256)
		return 0;
	fill(want, len, seq);
	return !memcmp(rec->payload, want, len);
}

struct cctx {
	uint64_t seq, bad;
};

static int count_fn(void *ctx, const struct pfr_record *rec)
{
	struct cctx *c = (struct cctx *)ctx;

	c->bad += !check(rec, 24, c->seq);
	c->seq++;
	return 0;
}

static uint32_t type_of(uint64_t seq)
{
	return (uint32_t)(10 + seq % 5);
}

/* Writes records 0..9 through each writer twin in turn. */
static int write_ten(struct pfr_writer *w)
{
	unsigned char b[4 * 24];
	uint64_t seq = 0;
	void *p;
	int bad = 0;

	for (int i = 0; i < 2; i++, seq++) { /* reserve + commit */
		bad |= F.reserve(w, type_of(seq), 24, &p);
		fill(p, 24, seq);
		F.commit(w);
	}
	for (int i = 0; i < 2; i++, seq++) { /* reserve + deferred */
		bad |= F.reserve(w, type_of(seq), 24, &p);
		fill(p, 24, seq);
		F.commit_deferred(w);
	}
	F.publish(w);
	fill(b, 24, seq);
	bad |= F.write(w, type_of(seq), b, 24);
	seq++;
	fill(b, 24, seq);
	bad |= F.write_deferred(w, type_of(seq), b, 24);
	seq++;
	F.publish(w);
	/* a burst has one type: records 6..9 are written one by one with
	 * their own types, then the burst path is checked below */
	for (; seq < 10; seq++) {
		fill(b, 24, seq);
		bad |= F.write(w, type_of(seq), b, 24);
	}
	return bad;
}

static void test_ring(void)
{
	struct pfr_ring_opts o = {.sz = sizeof(o), .data_size = 4096};
	struct pfr_ring *ring = NULL;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	struct cctx c = {0, 0};
	unsigned char burst[3 * 24];
	uint64_t seq, got;
	int rc;

	if (!ok(F.ring_create(&ring, &o) == 0 && F.ring_writer(ring, &w) == 0 &&
			F.ring_reader(ring, &r) == 0,
		"ring, writer and reader"))
		return;
	is_uint(F.max_payload(&w), pfr_writer_max_payload(&w),
		"max_payload twin = inline");
	is_int(write_ten(&w), 0, "ten records through the writer twins");
	is_int(F.begin_unpaced(&r), 10 * 32,
	       "begin_unpaced twin: 10 records of 32 bytes");
	is_int(F.begin(&r), 10 * 32, "begin twin: 10 records of 32 bytes");
	is_uint(F.pending(&r), pfr_reader_pending(&r), "pending twin = inline");
	for (seq = 0, got = 0; seq < 5; seq++)
		got += F.next(&r, &rec) == 1 && check(&rec, 24, seq);
	is_uint(got, 5, "next twin: records 0..4 verified");
	c.seq = 5;
	is_int(F.consume(&r, count_fn, &c, 0), 5, "consume twin: 5 more");
	ok(c.seq == 10 && c.bad == 0, "consume twin: 5..9 verified");
	is_int(F.next(&r, &rec), 0, "batch drained");
	F.end(&r);
	is_int(F.begin(&r), 0, "end twin published the tail");
	is_int(F.poll(&r, 3), 0, "poll twin: nothing after 3 loads");

	for (int i = 0; i < 3; i++)
		fill(burst + 24 * i, 24, 100 + (uint64_t)i);
	is_int(F.write_burst(&w, 3, burst, 24, 3), 3, "write_burst twin: 3");
	is_int(F.poll(&r, 1), 3 * 32, "poll twin: the burst's 3 records");
	for (got = 0; F.next(&r, &rec) == 1;)
		got += rec.hdr.type == 3 &&
		       !memcmp(rec.payload, burst + 24 * got, 24);
	is_uint(got, 3, "burst records verified");
	F.end(&r);

	/* DROP: fill the ring, the loss counted alike */
	while ((rc = F.write(&w, 1, burst, 24)) == 0)
		;
	is_int(rc, -PFR_E_NOSPC, "write twin: -PFR_E_NOSPC when full");
	ok(F.lost(&w) == 1 && F.lost(&w) == pfr_writer_lost(&w),
	   "lost twin = inline = 1");
	is_int(F.reserve(&w, 1, 1 << 20, (void **)&rec.payload), -PFR_E_INVAL,
	       "reserve twin: too large is -PFR_E_INVAL");
	F.ring_close(ring);
}

static void test_mpsc(void)
{
	struct pfr_mpsc_opts o = {.sz = sizeof(o), .data_size = 4096};
	struct pfr_mpsc *m = NULL;
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	unsigned char b[24];
	void *pl;
	int got = 0;

	if (!ok(F.mpsc_create(&m, &o) == 0 && F.mpsc_join(m, &p) == 0 &&
			F.mpsc_reader(m, &r) == 0,
		"mpsc ring, producer and reader"))
		return;
	is_uint(F.mpsc_index(&p), pfr_mpsc_producer_index(&p),
		"producer_index twin = inline");
	is_uint(F.mpsc_max_payload(&p), pfr_mpsc_max_payload(&p),
		"mpsc max_payload twin = inline");
	fill(b, 24, 0);
	is_int(F.mpsc_write(&p, 1, b, 24), 0, "mpsc write twin");
	is_int(F.mpsc_reserve(&p, 4, 24, &pl), 0, "mpsc reserve twin");
	F.mpsc_discard(&p);
	is_int(F.mpsc_reserve(&p, 3, 24, &pl), 0, "mpsc reserve again");
	fill(pl, 24, 2);
	F.mpsc_commit(&p);
	is_int(F.mpsc_begin(&r), 32,
	       "mpsc begin twin: the size of the header at the tail");
	while (F.mpsc_next(&r, &rec) == 1) {
		uint64_t seq = got ? 2 : 0;
		unsigned char want[24];

		fill(want, 24, seq);
		got += rec.hdr.type == (got ? 3u : 1u) &&
		       !memcmp(rec.payload, want, 24);
	}
	is_int(got, 2, "mpsc next twin: 2 records, the discarded one skipped");
	F.mpsc_end(&r);
	{
		const unsigned char *d =
			(const unsigned char *)pfr_mpsc_ctl(m) +
			pfr_mpsc_ctl(m)->data_offset;
		int nz = 0;

		for (int i = 0; i < 3 * 32; i++)
			nz += d[i] != 0;
		is_int(nz, 0, "mpsc end twin: what was read is zeroed");
		is_uint(pfr_mpsc_ctl(m)->cons_pos, 96,
			"mpsc end twin: and freed");
	}
	is_int(F.mpsc_begin(&r), 0, "mpsc begin twin: nothing at the tail");
	is_uint(F.mpsc_lost(&p), 0, "mpsc lost twin");
	F.mpsc_reader_close(&r);
	F.mpsc_leave(&p);
	F.mpsc_close(m);
}

/* The group's records, counted and checked (type and tag). */
static int group_fn(void *arg, const struct pfr_group_rec *r)
{
	uint64_t *n = arg;

	if (r->hdr.type == 7 && r->tag == 5 && r->len == 8)
		n[0]++;
	else
		n[1]++;
	return 0;
}

/* The group API itself comes from the static library; the batched
 * reader's twin from the shared one (an FFI's view of it). */
static void test_group(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o), .slots = 2};
	struct pfr_group *g = NULL;
	struct pfr_writer w;
	uint64_t n[2] = {0, 0};

	if (!ok(pfr_group_create(&g, &o) == 0, "group created"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_join(g, &w, 5);
	for (uint64_t i = 0; i < 10; i++)
		pfr_writer_write(&w, 7, &i, 8);
	is_int((int)F.group_consume(g, group_fn, n, 0), 10,
	       "group_consume twin: ten records");
	ok(n[0] == 10 && n[1] == 0, "with their type, tag and length");
	is_int((int)F.group_consume(NULL, group_fn, n, 0), -PFR_E_INVAL,
	       "group_consume twin: NULL group is -PFR_E_INVAL");
	is_uint(F.ffi_sizeof("pfr_group_iter"), sizeof(struct pfr_group_iter),
		"ffi_sizeof pfr_group_iter");
	pfr_group_close(g);
}

static void test_misc(void)
{
	unsigned char raw[3 * 8 + 1];
	uint64_t v[3] = {1, 0x1122334455667788ull, 3};

	memcpy(raw + 1, v, sizeof(v)); /* unaligned */
	is_uint(F.perf_u64((const uint64_t *)(void *)(raw + 1), 1), v[1],
		"perf_u64 twin on an unaligned array");
	is_uint(F.ffi_sizeof("pfr_writer"), sizeof(struct pfr_writer),
		"ffi_sizeof pfr_writer");
	is_uint(F.ffi_sizeof("pfr_reader"), sizeof(struct pfr_reader),
		"ffi_sizeof pfr_reader");
	is_uint(F.ffi_sizeof("pfr_record"), sizeof(struct pfr_record),
		"ffi_sizeof pfr_record");
	is_uint(F.ffi_sizeof("pfr_ring_opts"), sizeof(struct pfr_ring_opts),
		"ffi_sizeof pfr_ring_opts");
	is_uint(F.ffi_sizeof("pfr_mpsc_producer"),
		sizeof(struct pfr_mpsc_producer),
		"ffi_sizeof pfr_mpsc_producer");
	is_uint(F.ffi_sizeof("pfr_nothing"), 0, "ffi_sizeof unknown: 0");
	is_uint(F.ffi_sizeof(NULL), 0, "ffi_sizeof NULL: 0");
}

int main(void)
{
	void *h = open_shared();

	if (!ok(h != NULL, "the shared library loads") || resolve(h))
		return tap_done();
	test_ring();
	test_mpsc();
	test_group();
	test_misc();
	dlclose(h);
	return tap_done();
}
