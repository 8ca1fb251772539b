/* SPDX-License-Identifier: MIT */
/*
 * Which DSOs the perf.data writer's BUILD_ID lists, by perf 6.1's rules
 * (perf record's build-id pass, compared with perf buildid-list in
 * tests/perf/t_record_buildid.sh): a file a sample's ip fell in, not one
 * that only appears on a sample's call chain; [vdso] whenever a process
 * mapped it, hit or not; with --buildid-all (PFR__BUILDID_ALL) every file
 * mapped; with -B (PFR__BUILDID_NONE) no BUILD_ID at all.  Hand-built
 * records, no perf privileges needed.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf/perf_header.h"
#include "perf_rec.h"
#include "tap.h"

static const uint64_t ST =
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;

/* A user sample at ip whose call chain is ip, then ret. */
static void sample(struct pfr_perf_file *f, uint32_t pid, uint64_t ip,
		   uint64_t ret)
{
	struct buf b = {.n = 0};

	put64(&b, ip);
	put32x2(&b, pid, pid);
	put64(&b, 3);
	put64(&b, PERF_CONTEXT_USER);
	put64(&b, ip);
	put64(&b, ret);
	write_rec(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &b);
}

/* Writes the workload's file with BUILD_ID mode mode; 0 or -1. */
static int write_file(const char *path, const char *exe, int mode)
{
	struct perf_event_attr a;
	struct pfr_perf_file *f;
	uint64_t ids[1] = {7};

	memset(&a, 0, sizeof(a));
	pfr_perf_event_parse("cpu-clock", &a, NULL, 0, 0);
	a.sample_type = ST;
	if (pfr_perf_file_create(&f, path))
		return -1;
	if (pfr__file_set_opts(f, mode, -1, 0) ||
	    pfr_perf_file_add_event(f, &a, "cpu-clock", ids, 1)) {
		pfr_perf_file_close(f);
		return -1;
	}
	write_mmap2(f, 100, 0x400000, 0x10000, exe);
	write_mmap2(f, 100, 0x800000, 0x10000, "/bin/sh"); /* chains only */
	write_mmap2(f, 100, 0x900000, 0x2000, "[vdso]"); /* never hit */
	for (int i = 0; i < 10; i++)
		sample(f, 100, 0x400100 + (uint64_t)i, 0x800200);
	return pfr_perf_file_close(f) ? -1 : 0;
}

/* The names BUILD_ID lists in the file at path, each followed by a
 * newline, into names (n bytes); the count, -1 when the file has no
 * BUILD_ID, -2 when it is malformed. */
static int listed(const char *path, char *names, size_t n)
{
	unsigned char h[104], sec[16];
	uint64_t feat, doff, dsize, off, size;
	unsigned char *p;
	int fd = open(path, O_RDONLY), nr = 0;

	names[0] = 0;
	if (fd < 0 || pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -2;
	memcpy(&doff, h + 40, 8);
	memcpy(&dsize, h + 48, 8);
	memcpy(&feat, h + 72, 8);
	if (!(feat & 4)) {
		close(fd);
		return -1;
	}
	if (pread(fd, sec, 16, (off_t)(doff + dsize + (feat & 2 ? 16 : 0))) !=
	    16)
		return -2;
	memcpy(&off, sec, 8);
	memcpy(&size, sec + 8, 8);
	p = malloc(size + 1);
	if (!p || pread(fd, p, size, (off_t)off) != (ssize_t)size)
		return -2;
	close(fd);
	for (uint64_t o = 0; o + 36 < size;) {
		uint16_t esz;

		memcpy(&esz, p + o + 6, 2);
		if (esz < 37 || o + esz > size)
			return -2;
		if (strlen(names) + strnlen((char *)p + o + 36, esz - 36) + 2 >
		    n)
			return -2;
		strncat(names, (char *)p + o + 36, esz - 36);
		strcat(names, "\n");
		nr++;
		o += esz;
	}
	free(p);
	return nr;
}

static int has(const char *names, const char *name)
{
	size_t l = strlen(name);

	for (const char *s = names; (s = strstr(s, name)); s += l)
		if ((s == names || s[-1] == '\n') && s[l] == '\n')
			return 1;
	return 0;
}

int main(void)
{
	char path[] = "/tmp/pfr-bid-XXXXXX", exe[4096], names[8192];
	int fd = mkstemp(path), nr;
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	unsigned char vid[20];
	int vdso = pfr__vdso_build_id(vid) > 0;

	if (fd < 0 || el <= 0) {
		ok(0, "mkstemp and /proc/self/exe");
		return tap_done();
	}
	exe[el] = 0;
	close(fd);

	ok(!write_file(path, exe, PFR__BUILDID_HIT), "default: written");
	nr = listed(path, names, sizeof(names));
	ok(nr > 0 && has(names, exe), "the file the samples' ip hit is listed");
	ok(nr > 0 && !has(names, "/bin/sh"),
	   "a file only on the call chains is not (as perf record)");
	if (vdso)
		ok(has(names, "[vdso]"), "[vdso], mapped but not hit, is");
	else
		ok(1, "[vdso] # SKIP this process's vdso has no build id");

	ok(!write_file(path, exe, PFR__BUILDID_ALL), "--buildid-all: written");
	nr = listed(path, names, sizeof(names));
	ok(nr > 0 && has(names, exe) && has(names, "/bin/sh"),
	   "--buildid-all: every file mapped is listed (%d entries)", nr);

	ok(!write_file(path, exe, PFR__BUILDID_NONE), "-B: written");
	is_int(listed(path, names, sizeof(names)), -1, "-B: no BUILD_ID");
	unlink(path);
	return tap_done();
}
