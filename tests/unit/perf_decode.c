/* SPDX-License-Identifier: MIT */
/*
 * <perfring/perf.h> without the kernel: the record decoder on hand-built
 * records (every sample_type field it decodes, the sample_id trailer,
 * strings, and the hostile sizes it must reject), the reader over a fake
 * perf mmap page with a record straddling the end of the data area, and a
 * perf.data write/read round trip.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf_rec.h"
#include "tap.h"

static struct pfr_record_header hdr(uint32_t type, uint32_t len)
{
	struct pfr_record_header h = { type, 0, (uint16_t)(len + 8) };

	return h;
}

static const uint64_t ST = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			   PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			   PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			   PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;

static void test_sample(void)
{
	struct pfr_perf_layout lay = { ST, 0, 1, 0 };
	struct pfr_perf_rec r;
	struct pfr_record_header h;
	struct buf b = { .n = 0 };
	uint32_t raw = 4;
	int err;

	put64(&b, 77);                  /* identifier */
	put64(&b, 0x401000);            /* ip */
	put32x2(&b, 100, 101);          /* pid, tid */
	put64(&b, 123456789);           /* time */
	put32x2(&b, 1, 0);              /* cpu, res */
	put64(&b, 1000);                /* period */
	put64(&b, 2);                   /* callchain nr */
	put64(&b, PERF_CONTEXT_USER);
	put64(&b, 0x401000);
	memcpy(b.b + b.n, &raw, 4);     /* raw: size, 4 bytes */
	memcpy(b.b + b.n + 4, "abcd", 4);
	b.n += 8;
	h = hdr(PERF_RECORD_SAMPLE, b.n);
	err = pfr_perf_decode(&lay, &h, b.b, b.n, &r);
	is_int(err, 0, "sample decodes");
	is_uint(r.id, 77, "identifier");
	is_uint(r.ip, 0x401000, "ip");
	is_uint(r.pid, 100, "pid");
	is_uint(r.tid, 101, "tid");
	is_uint(r.time, 123456789, "time");
	is_uint(r.cpu, 1, "cpu");
	is_uint(r.period, 1000, "period");
	is_uint(r.nr_callchain, 2, "callchain length");
	is_uint(pfr_perf_u64(r.callchain, 1), 0x401000, "callchain[1]");
	is_uint(r.raw_size, 4, "raw size");
	ok(r.raw && !memcmp(r.raw, "abcd", 4), "raw bytes");

	/* Every truncation of it is rejected, never read past. */
	for (uint32_t n = 0; n < b.n; n += 4) {
		h = hdr(PERF_RECORD_SAMPLE, n);
		if (pfr_perf_decode(&lay, &h, b.b, n, &r) == 0) {
			ok(0, "truncated sample (%u bytes) rejected", n);
			return;
		}
	}
	ok(1, "every truncated sample rejected");

	/* A callchain longer than the record. */
	{
		struct buf c = b;
		uint64_t huge = 1ULL << 60;

		memcpy(c.b + 48, &huge, 8);
		h = hdr(PERF_RECORD_SAMPLE, c.n);
		is_int(pfr_perf_decode(&lay, &h, c.b, c.n, &r),
		       -PFR_PERF_E_TRUNCATED, "callchain nr beyond record");
	}
	/* A raw size beyond the record. */
	{
		struct buf c = b;
		uint32_t huge = 0xfffffff0u;

		memcpy(c.b + b.n - 8, &huge, 4);
		h = hdr(PERF_RECORD_SAMPLE, c.n);
		is_int(pfr_perf_decode(&lay, &h, c.b, c.n, &r),
		       -PFR_PERF_E_TRUNCATED, "raw size beyond record");
	}
}

static void trailer(struct buf *b)
{
	put32x2(b, 200, 201); /* TID */
	put64(b, 999);        /* TIME */
	put32x2(b, 3, 0);     /* CPU */
	put64(b, 77);         /* IDENTIFIER */
}

static void test_sideband(void)
{
	struct pfr_perf_layout lay = { ST, 0, 1, 0 };
	struct pfr_perf_rec r;
	struct pfr_record_header h;
	struct buf b = { .n = 0 };
	uint64_t id = 0;

	put32x2(&b, 200, 201);
	put64(&b, 0x400000);
	put64(&b, 0x1000);
	put64(&b, 0);
	put64(&b, 0); /* maj, min */
	put64(&b, 42); /* ino */
	put64(&b, 0);  /* ino generation */
	put32x2(&b, 5, 2);
	putstr(&b, "/usr/bin/spin");
	trailer(&b);
	h = hdr(PERF_RECORD_MMAP2, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0, "MMAP2 decodes");
	ok(r.u.mmap.filename && !strcmp(r.u.mmap.filename, "/usr/bin/spin"),
	   "MMAP2 filename");
	is_uint(r.u.mmap.start, 0x400000, "MMAP2 start");
	is_uint(r.u.mmap.prot, 5, "MMAP2 prot");
	is_uint(r.time, 999, "trailer time");
	is_uint(r.cpu, 3, "trailer cpu");
	is_uint(r.tid, 201, "trailer tid");
	is_int(pfr_perf_record_id(ST, 1, &h, b.b, b.n, &id), 0,
	       "identifier of a side-band record");
	is_uint(id, 77, "identifier is the trailer's last word");

	/* The filename without its NUL: the padding overwritten. */
	{
		struct buf c = b;

		memset(c.b + 64, 'x', 16);
		h = hdr(PERF_RECORD_MMAP2, c.n);
		is_int(pfr_perf_decode(&lay, &h, c.b, c.n, &r),
		       -PFR_PERF_E_STRING, "unterminated filename rejected");
	}
	/* Shorter than the trailer. */
	h = hdr(PERF_RECORD_MMAP2, 16);
	is_int(pfr_perf_decode(&lay, &h, b.b, 16, &r), -PFR_PERF_E_TRUNCATED,
	       "record shorter than its sample_id trailer");

	b.n = 0;
	put64(&b, 5);  /* id */
	put64(&b, 17); /* lost */
	trailer(&b);
	h = hdr(PERF_RECORD_LOST, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0, "LOST decodes");
	is_uint(r.u.lost.lost, 17, "LOST count");

	b.n = 0;
	put32x2(&b, 300, 301);
	putstr(&b, "spin");
	trailer(&b);
	h = hdr(PERF_RECORD_COMM, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0, "COMM decodes");
	ok(r.u.comm.comm && !strcmp(r.u.comm.comm, "spin"), "COMM name");

	b.n = 0;
	put32x2(&b, 10, 1);
	put32x2(&b, 11, 1);
	put64(&b, 555);
	trailer(&b);
	h = hdr(PERF_RECORD_FORK, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0, "FORK decodes");
	is_uint(r.u.task.tid, 11, "FORK tid");

	b.n = 0;
	put32x2(&b, 400, 401);
	trailer(&b);
	h = hdr(PERF_RECORD_SWITCH_CPU_WIDE, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0,
	       "SWITCH_CPU_WIDE decodes");
	is_uint(r.u.sw.next_prev_tid, 401, "SWITCH_CPU_WIDE next/prev tid");

	b.n = 0;
	put64(&b, 9);
	trailer(&b);
	h = hdr(PERF_RECORD_LOST_SAMPLES, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0,
	       "LOST_SAMPLES decodes");
	is_uint(r.u.lost.lost, 9, "LOST_SAMPLES count");

	b.n = 0;
	put64(&b, 1);
	put64(&b, 2);
	put64(&b, 3);
	trailer(&b);
	h = hdr(PERF_RECORD_THROTTLE, b.n);
	is_int(pfr_perf_decode(&lay, &h, b.b, b.n, &r), 0, "THROTTLE decodes");
	is_uint(r.u.throttle.stream_id, 3, "THROTTLE stream id");

	h = hdr(1000, 16);
	is_int(pfr_perf_decode(&lay, &h, b.b, 16, &r), 0,
	       "unknown type: header only, skipped by size");
	ok(pfr_perf_record_name(PERF_RECORD_SAMPLE) &&
		   !strcmp(pfr_perf_record_name(PERF_RECORD_SAMPLE), "SAMPLE"),
	   "record names");
	ok(pfr_perf_record_name(68) &&
		   !strcmp(pfr_perf_record_name(68), "FINISHED_ROUND"),
	   "perf's own record names");
}

/* The reader over a fake mmap page: data_head/data_tail in a struct
 * perf_event_mmap_page, a record straddling the end of a 64-byte area. */
static void test_ring_straddle(void)
{
	static unsigned char scratch[PFR_RECORD_MAX + 8];
	struct perf_event_mmap_page pg;
	unsigned char data[64];
	struct pfr_reader r;
	struct pfr_record rec;
	struct pfr_record_header h = { PERF_RECORD_LOST, 0, 32 };
	uint64_t v[3] = { 0x1111, 0x2222, 0x3333 };
	unsigned char rec_bytes[32];

	memset(&pg, 0, sizeof(pg));
	memset(data, 0xee, sizeof(data));
	memcpy(rec_bytes, &h, 8);
	memcpy(rec_bytes + 8, v, 24);
	/* The record starts at 48: 16 bytes there, 16 at the start. */
	memcpy(data + 48, rec_bytes, 16);
	memcpy(data, rec_bytes + 16, 16);
	pg.data_tail = 48;
	pg.data_head = 80;
	is_int(pfr_reader_init(&r, (const uint64_t *)(void *)&pg.data_head,
			       (uint64_t *)(void *)&pg.data_tail, data,
			       sizeof(data), PFR_ORDER_ACQREL, 0, scratch),
	       0, "reader over a perf mmap page");
	is_int(pfr_reader_begin(&r), 32, "32 bytes available");
	is_int(pfr_reader_next(&r, &rec), 1, "straddling record read");
	ok(rec.len == 24 && !memcmp(rec.payload, v, 24),
	   "straddling record copied out in two pieces");
	is_int(pfr_reader_next(&r, &rec), 0, "then drained");
	pfr_reader_end(&r);
	is_uint(pg.data_tail, 80, "data_tail published");
	/* A hostile size. */
	h.size = 0;
	memcpy(data + 16, &h, 8);
	pg.data_head = 96;
	pfr_reader_begin(&r);
	is_int(pfr_reader_next(&r, &rec), -PFR_E_RECSIZE_ZERO,
	       "size-0 record is an error, not a loop");
}

static void test_file_roundtrip(void)
{
	char path[] = "/tmp/pfr-perf-decode-XXXXXX";
	int fd = mkstemp(path);
	struct pfr_perf_file *f;
	struct perf_event_attr a;
	struct pfr_record rec;
	struct pfr_record_header h;
	struct pfr_perf_layout lay;
	struct buf b = { .n = 0 };
	uint64_t ids[2] = { 77, 78 };
	char *argv[] = { (char *)"perfring", (char *)"record" };
	int n = 0, r;

	if (fd < 0) {
		ok(0, "mkstemp");
		return;
	}
	close(fd);
	is_int(pfr_perf_event_parse("task-clock", &a, NULL, 0, 0), 0,
	       "parse task-clock");
	is_int(pfr_perf_event_parse("no-such-event", &a, NULL, 0, 0),
	       -PFR_PERF_E_UNKNOWN_EVENT, "unknown event");
	is_int(pfr_perf_event_parse("cycles:u", &a, NULL, 0, 0), 0,
	       "hardware event with :u");
	ok(a.type == PERF_TYPE_HARDWARE && a.exclude_kernel, "cycles:u attr");
	pfr_perf_event_parse("cpu-clock", &a, NULL, 0, 0);
	a.sample_type = ST;
	a.sample_id_all = 1;
	is_int(pfr_perf_file_create(&f, path), 0, "create perf.data");
	is_int(pfr_perf_file_add_event(f, &a, "cpu-clock", ids, 2), 0,
	       "add event");
	pfr_perf_file_set_cmdline(f, 2, argv);
	put64(&b, 77);
	put64(&b, 0x401000);
	put32x2(&b, 100, 101);
	put64(&b, 5);
	put32x2(&b, 0, 0);
	put64(&b, 1);
	put64(&b, 0); /* callchain nr */
	put64(&b, 0); /* raw size 0 + pad */
	h = hdr(PERF_RECORD_SAMPLE, b.n);
	for (int i = 0; i < 3; i++)
		pfr_perf_file_write(f, &h, b.b, b.n);
	is_int(pfr_perf_file_close(f), 0, "close perf.data");
	is_int(pfr_perf_file_open(&f, path), 0, "open it again");
	is_uint(pfr_perf_file_nr_events(f), 1, "one event");
	ok(!strcmp(pfr_perf_file_event_name(f, 0), "cpu-clock"),
	   "event name from EVENT_DESC");
	pfr_perf_file_layout(f, 0, &lay);
	is_uint(lay.sample_type, ST, "sample_type round trip");
	while ((r = pfr_perf_file_next(f, &rec)) == 1)
		n++;
	is_int(r, 0, "data section ends cleanly");
	is_int(n, 3, "three records back");
	pfr_perf_file_close(f);
	/* Not a perf.data file. */
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd >= 0) {
		char junk[200];

		memset(junk, 'j', sizeof(junk));
		if (write(fd, junk, sizeof(junk)) < 0)
			ok(0, "write");
		close(fd);
	}
	is_int(pfr_perf_file_open(&f, path), -PFR_PERF_E_FILE_MAGIC,
	       "junk is not a perf.data file");
	unlink(path);
}

int main(void)
{
	test_sample();
	test_sideband();
	test_ring_straddle();
	test_file_roundtrip();
	return tap_done();
}
