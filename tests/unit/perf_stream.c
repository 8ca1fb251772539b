/* SPDX-License-Identifier: MIT */
/*
 * The streaming reader perfring script uses (pfr__perf_file_open_stream,
 * src/perf/perf_read.h) gives the records the whole-file reader gives:
 * the same headers, bytes and positions, for records of every size across
 * its 1 MiB window's edges; the same event names; the tracing data; a
 * pipe-format file read whole; and a file truncated after it was opened
 * ends in an error, not a crash or a short read passed off as data.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf/perf_read.h"
#include "tap.h"

#define N 20000

/* Record i's payload length: 8 to 4,000 bytes, a multiple of 8. */
static uint32_t len_of(uint32_t i)
{
	return 8 * (1 + (i * 2654435761u) % 500);
}

static void write_file(const char *path)
{
	struct perf_event_attr a;
	struct pfr_perf_file *f;
	static unsigned char b[4096];
	uint64_t ids[1] = {7};

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IP;
	if (pfr_perf_file_create(&f, path) ||
	    pfr_perf_file_add_event(f, &a, "stream-test", ids, 1)) {
		ok(0, "create %s", path);
		return;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t len = len_of(i);
		struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0,
					      (uint16_t)(len + 8)};

		for (uint32_t k = 0; k < len; k++)
			b[k] = (unsigned char)(i + k);
		if (pfr_perf_file_write(f, &h, b, len))
			break;
	}
	is_int(pfr_perf_file_close(f), 0, "a file of 20000 records written");
}

static void compare(const char *path)
{
	struct pfr_perf_file *w = NULL, *s = NULL;
	struct pfr_record rw, rs;
	int n = 0, bad = 0, a, b;

	is_int(pfr_perf_file_open(&w, path), 0, "whole-file reader opens");
	is_int(pfr__perf_file_open_stream(&s, path), 0, "stream opens");
	if (!w || !s)
		return;
	ok(!strcmp(pfr_perf_file_event_name(s, 0), "stream-test"),
	   "the event's name from EVENT_DESC (in the tail)");
	for (;;) {
		a = pfr_perf_file_next(w, &rw);
		b = pfr_perf_file_next(s, &rs);
		if (a != 1 || b != 1)
			break;
		if (rw.hdr.size != rs.hdr.size || rw.pos != rs.pos ||
		    rw.len != rs.len || memcmp(rw.payload, rs.payload, rw.len))
			bad++;
		n++;
	}
	is_int(a, 0, "the whole-file reader ends cleanly");
	is_int(b, 0, "the stream ends cleanly too");
	is_int(n, N, "both give every record");
	is_int(bad, 0, "the same headers, bytes and positions");
	pfr_perf_file_close(w);
	pfr_perf_file_close(s);
	/* truncated after open: an error, never a record past the end */
	is_int(pfr__perf_file_open_stream(&s, path), 0, "stream opens again");
	if (!s)
		return;
	if (truncate(path, 4096) == 0) {
		n = 0;
		while ((b = pfr_perf_file_next(s, &rs)) == 1)
			n++;
		ok(b < 0 && n > 0 && n < N,
		   "truncated after open: the %d records before the cut, then "
		   "error %d",
		   n, b);
	}
	pfr_perf_file_close(s);
}

int main(void)
{
	char path[] = "/tmp/pfr-stream-XXXXXX";
	int fd = mkstemp(path);
	struct pfr_perf_file *s = NULL;
	uint64_t len = 1;

	if (fd < 0)
		tap_skip_all("no temporary file");
	close(fd);
	write_file(path);
	compare(path);
	/* a pipe-format stream is read whole, as pfr_perf_file_open() does */
	{
		/* magic and size: u64s in this host's byte order */
		const uint64_t pipe_hdr[2] = {0x32454c4946524550ULL, 16};
		FILE *p = fopen(path, "wb");

		ok(p && fwrite(pipe_hdr, 16, 1, p) == 1 && !fclose(p),
		   "a pipe stream with no record");
		is_int(pfr__perf_file_open_stream(&s, path), 0,
		       "the stream reader opens it (read whole)");
		ok(!pfr__perf_file_tracing(s, &len) && len == 0,
		   "no tracing data there");
		pfr_perf_file_close(s);
	}
	unlink(path);
	return tap_done();
}
