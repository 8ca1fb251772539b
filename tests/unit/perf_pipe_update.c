/* SPDX-License-Identifier: MIT */
/*
 * perf's pipe format names events with EVENT_UPDATE records that carry
 * one of the event's ids.  A stream of 100 attrs of 8,000 ids each and
 * 100,002 EVENT_UPDATE records must name each event after the last
 * update carrying one of its ids, ignore an update that comes before the
 * attr holding its id (perf knows only the events read so far), and give
 * an id two events share to the first.  The cost is counted, not timed:
 * the reader's id lookups may look at no more than log2(ids) + 2 index
 * entries per update (a scan of every event's ids looks at up to
 * 800,000).  With a path as argument, the stream is also written there.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf/perf_data_int.h"
#include "tap.h"

#define NEV 100
#define NIDS 8000
#define NUPD 100000
#define ASZ PERF_ATTR_SIZE_VER5

static unsigned char *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
	if (len + n > cap) {
		cap = 2 * (len + n);
		buf = realloc(buf, cap);
		if (!buf)
			exit(1);
	}
	memcpy(buf + len, p, n);
	len += n;
}

static void hdr(uint32_t type, size_t body)
{
	struct perf_event_header h = {type, 0, (uint16_t)(8 + body)};

	put(&h, sizeof(h));
}

static uint64_t id_of(int ev, int j)
{
	if (ev == NEV - 2 && j == NIDS - 1)
		return 3 * 10000 + 1; /* event 3's first id, shared */
	return (uint64_t)ev * 10000 + 1 + (uint64_t)j;
}

static void attr(int ev)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = ASZ;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	hdr(64 /* PERF_RECORD_HEADER_ATTR */, ASZ + 8 * NIDS);
	put(&a, ASZ);
	for (int j = 0; j < NIDS; j++) {
		uint64_t id = id_of(ev, j);

		put(&id, 8);
	}
}

static void update(uint64_t id, const char *name)
{
	unsigned char b[64] = {0};
	uint64_t t = 2; /* PERF_EVENT_UPDATE__NAME */
	size_t n = (16 + strlen(name) + 1 + 7) & ~(size_t)7;

	memcpy(b, &t, 8);
	memcpy(b + 8, &id, 8);
	memcpy(b + 16, name, strlen(name) + 1);
	hdr(78 /* PERF_RECORD_EVENT_UPDATE */, n);
	put(b, n);
}

int main(int argc, char **argv)
{
	static char want[NEV][32];
	char path[] = "/tmp/pfr-pipe-update-XXXXXX", name[32];
	const char *out = argc > 1 ? argv[1] : path;
	struct pfr_perf_file *f;
	uint64_t x = 7, probes;
	int fd, bad = 0, err;

	/* the magic is a u64 in the writer's byte order ("PERFILE2" as
	 * bytes on a little-endian host only) */
	put(&(uint64_t){0x32454c4946524550ULL}, 8);
	put(&(uint64_t){16}, 8);
	attr(0);
	update(id_of(NEV - 1, 5), "early"); /* before event 99's attr */
	for (int ev = 1; ev < NEV; ev++)
		attr(ev);
	for (int k = 0; k < NUPD; k++) {
		int ev, j;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ev = (int)((x >> 33) % (NEV - 1)); /* 0..98 */
		j = (int)((x >> 17) % (NIDS - 1)); /* not the shared one */
		snprintf(name, sizeof(name), "u%d-%d", ev, k);
		update(id_of(ev, j), name);
		memcpy(want[ev], name, sizeof(name));
	}
	update(3 * 10000 + 1, "shared"); /* events 3 and 98 have it */
	memcpy(want[3], "shared", 7);
	fd = argc > 1 ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600)
		      : mkstemp(path);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror(out);
		return 1;
	}
	close(fd);
	err = pfr_perf_file_open(&f, out);
	if (argc <= 1)
		unlink(path);
	if (!ok(!err, "the stream opens (%s)",
		err ? pfr_perf_strerror(err) : "ok"))
		return tap_done();
	ok(pfr_perf_file_nr_events(f) == NEV, "%u events",
	   pfr_perf_file_nr_events(f));
	for (int ev = 0; ev < NEV - 1; ev++)
		if (strcmp(pfr_perf_file_event_name(f, (uint32_t)ev),
			   want[ev])) {
			tap_diag("event %d: %s, want %s", ev,
				 pfr_perf_file_event_name(f, (uint32_t)ev),
				 want[ev]);
			bad++;
		}
	ok(!bad,
	   "each event named by the last update carrying one of its "
	   "ids, a shared id naming the first event (%d wrong)",
	   bad);
	ok(strcmp(pfr_perf_file_event_name(f, NEV - 1), "early") != 0,
	   "an update before its event's attr is ignored (event %d: %s)",
	   NEV - 1, pfr_perf_file_event_name(f, NEV - 1));
	probes = pfr__perf_file_id_probes(f);
	ok(probes <= (uint64_t)(NUPD + 2) * 22,
	   "%llu index entries looked at for %d updates of %d ids: at most "
	   "log2(ids) + 2 = 22 each",
	   (unsigned long long)probes, NUPD + 2, NEV * NIDS);
	pfr_perf_file_close(f);
	free(buf);
	return tap_done();
}
