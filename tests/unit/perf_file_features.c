/* SPDX-License-Identifier: MIT */
/*
 * The perf.data writer's header features, without perf privileges: a file
 * written through the API from hand-built records, then its feature
 * sections read back by offset.  SAMPLE_TIME holds the first and last
 * sample time; BUILD_ID lists the DSOs a sample hit -- a mapping followed
 * into a forked child, the kernel -- and not a file that was only mapped;
 * the machine's features are present and well formed; GROUP_DESC names
 * the group declared; a feature the machine cannot describe is left out
 * rather than written empty.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf_rec.h"
#include "tap.h"

static const uint64_t ST = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;

/* MMAP2 of path at start for pid (sample_id_all off: body only). */
static void mmap2(struct pfr_perf_file *f, uint32_t pid, uint64_t start,
		  const char *path)
{
	write_mmap2(f, pid, start, 0x10000, path);
}

static void sample(struct pfr_perf_file *f, uint16_t misc, uint32_t pid,
		   uint64_t ip, uint64_t time)
{
	struct buf b = {.n = 0};

	put64(&b, ip);
	put32x2(&b, pid, pid);
	put64(&b, time);
	write_rec(f, PERF_RECORD_SAMPLE, misc, &b);
}

static unsigned char *map;
static size_t map_len;
static uint64_t feats[4], feat_off;

/* The section of feature bit feat: 0 and its offset and size, or -1. */
static int section(int feat, uint64_t *off, uint64_t *size)
{
	uint64_t idx = feat_off;

	for (int b = 1; b < 256; b++) {
		if (!(feats[b / 64] >> (b % 64) & 1))
			continue;
		if (b == feat) {
			memcpy(off, map + idx, 8);
			memcpy(size, map + idx + 8, 8);
			return *off + *size <= map_len ? 0 : -1;
		}
		idx += 16;
	}
	return -1;
}

static int has(int feat)
{
	uint64_t o, s;

	return !section(feat, &o, &s) && s > 0;
}

/* 1 when the kernel's notes are in this ABI's byte order: their first
 * name size reads as a small number.  Under qemu-user for a target of the
 * other byte order they are the host kernel's, which no target kernel
 * would have. */
static int notes_native(void)
{
	uint32_t namesz = UINT32_MAX;
	int fd = open("/sys/kernel/notes", O_RDONLY);

	if (fd >= 0) {
		if (read(fd, &namesz, 4) != 4)
			namesz = UINT32_MAX;
		close(fd);
	}
	return namesz > 0 && namesz <= 64;
}

int main(void)
{
	char path[] = "/tmp/pfr-feat-XXXXXX", exe[4096];
	struct perf_event_attr a;
	struct pfr_perf_file *f;
	uint64_t ids[1] = {7}, off, size, v[2];
	int fd = mkstemp(path);
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct stat st;

	if (fd < 0 || el <= 0) {
		ok(0, "mkstemp and /proc/self/exe");
		return tap_done();
	}
	exe[el] = 0;
	close(fd);
	memset(&a, 0, sizeof(a));
	pfr_perf_event_parse("cpu-clock", &a, NULL, 0, 0);
	a.sample_type = ST;
	is_int(pfr_perf_file_create(&f, path), 0, "create");
	is_int(pfr_perf_file_add_event(f, &a, "cpu-clock", ids, 1), 0,
	       "event 0");
	is_int(pfr_perf_file_add_event(f, &a, "cpu-clock", ids, 1), 0,
	       "event 1");
	is_int(pfr_perf_file_add_group(f, "{anon_group}", 0, 2), 0, "group");
	ok(pfr_perf_file_add_group(f, "x", 1, 2) == -PFR_E_INVAL,
	   "a group past the last event is refused");
	mmap2(f, 100, 0x400000, exe);
	mmap2(f, 100, 0x800000, "/bin/sh"); /* mapped, never hit */
	{ /* FORK 200 from 100: the child inherits the maps */
		struct buf b = {.n = 0};

		put32x2(&b, 200, 100);
		put32x2(&b, 200, 100);
		put64(&b, 5);
		write_rec(f, PERF_RECORD_FORK, 0, &b);
	}
	/* Enough processes to grow the table of maps (old pointers into
	 * it must not survive the growth). */
	for (uint32_t pid = 1000; pid < 1600; pid++) {
		mmap2(f, pid, 0x900000, "/bin/sh");
		sample(f, PERF_RECORD_MISC_USER, 100, 0x1, 150);
	}
	sample(f, PERF_RECORD_MISC_USER, 200, 0x400100, 300);
	sample(f, PERF_RECORD_MISC_USER, 999, 0x800100, 100); /* no maps */
	sample(f, PERF_RECORD_MISC_KERNEL, 100, 0xffffffff81000000ULL, 200);
	is_int(pfr_perf_file_close(f), 0, "close");

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		ok(0, "reopen");
		return tap_done();
	}
	map_len = (size_t)st.st_size;
	map = malloc(map_len);
	if (!map || read(fd, map, map_len) != (ssize_t)map_len) {
		ok(0, "read back");
		return tap_done();
	}
	close(fd);
	{
		uint64_t doff, dsize;

		memcpy(&doff, map + 40, 8);
		memcpy(&dsize, map + 48, 8);
		memcpy(feats, map + 72, 32);
		feat_off = doff + dsize;
	}
	ok(!section(21, &off, &size) && size == 16, "SAMPLE_TIME present");
	memcpy(v, map + off, 16);
	ok(v[0] == 100 && v[1] == 300, "first and last sample: %llu, %llu",
	   (unsigned long long)v[0], (unsigned long long)v[1]);
	ok(!section(2, &off, &size), "BUILD_ID present");
	{
		int saw_exe = 0, saw_sh = 0, saw_kernel = 0;
		uint64_t p = off;

		while (p + 36 <= off + size) {
			uint16_t esz;

			memcpy(&esz, map + p + 6, 2);
			if (esz < 36 || p + esz > off + size)
				break;
			saw_exe |= !strcmp((char *)map + p + 36, exe);
			saw_sh |= !strcmp((char *)map + p + 36, "/bin/sh");
			saw_kernel |= !strcmp((char *)map + p + 36,
					      "[kernel.kallsyms]");
			p += esz;
		}
		ok(saw_exe, "the binary a forked child's sample hit is listed");
		ok(!saw_sh, "a file only mapped is not");
		if (access("/sys/kernel/notes", R_OK))
			ok(1, "kernel build id # SKIP no /sys/kernel/notes");
		else if (!notes_native())
			ok(1, "kernel build id # SKIP the kernel's notes are "
			      "in another byte order (an emulated target)");
		else
			ok(saw_kernel,
			   "the kernel (a kernel sample) is listed");
	}
	ok(has(3) && has(4) && has(6) && has(11) && has(12),
	   "HOSTNAME, OSRELEASE, ARCH, CMDLINE, EVENT_DESC");
	ok(!section(7, &off, &size) && size == 8, "NRCPUS: two u32");
	memcpy(v, map + off, 8);
	ok((uint32_t)v[0] >= (uint32_t)(v[0] >> 32) && (v[0] >> 32) > 0,
	   "nr_cpus_avail >= nr_cpus_online > 0");
#if defined(__x86_64__)
	ok(has(9), "CPUID on x86-64");
#endif
	ok(!section(10, &off, &size) && size == 8, "TOTAL_MEM: one u64");
	ok(!section(20, &off, &size) && size >= 8, "CACHE: version, count");
	ok(!section(17, &off, &size), "GROUP_DESC present");
	{
		uint32_t nr, l, leader, members;

		memcpy(&nr, map + off, 4);
		memcpy(&l, map + off + 4, 4);
		memcpy(&leader, map + off + 8 + l, 4);
		memcpy(&members, map + off + 12 + l, 4);
		ok(nr == 1 && l == 64 &&
			   !strcmp((char *)map + off + 8, "{anon_group}") &&
			   leader == 0 && members == 2,
		   "GROUP_DESC: {anon_group}, leader 0, 2 members");
	}
	for (int b = 1; b < 32; b++) {
		uint64_t o, s;

		if (!section(b, &o, &s) && !s) {
			ok(0, "feature %d has an empty section", b);
			break;
		}
	}
	ok(!(feats[0] >> 1 & 1), "no TRACING_DATA without tracepoints");
	unlink(path);
	free(map);
	return tap_done();
}
