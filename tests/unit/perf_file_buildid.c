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
#include <elf.h>
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

/* A file of the other byte order hit by samples: foreign[0] when none. */
static char foreign[64];

/* v's size bytes at p in the other byte order than this machine's. */
static void put_other(unsigned char *p, uint64_t v, int size)
{
	for (int i = 0; i < size; i++) {
		int sh = 8 * i;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		p[i] = (unsigned char)(v >> sh);
#else
		p[size - 1 - i] = (unsigned char)(v >> sh);
#endif
	}
}

/* An ELF64 file of the other byte order, one PT_NOTE with a 20-byte GNU
 * build id, at path; 0 or -1. */
static int write_foreign(const char *path)
{
	unsigned char e[64 + 56 + 36];
	int fd, rc;

	memset(e, 0, sizeof(e));
	memcpy(e, ELFMAG, SELFMAG);
	e[EI_CLASS] = ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	e[EI_DATA] = ELFDATA2LSB;
#else
	e[EI_DATA] = ELFDATA2MSB;
#endif
	e[EI_VERSION] = EV_CURRENT;
	put_other(e + 16, ET_DYN, 2);		   /* e_type */
	put_other(e + 32, 64, 8);		   /* e_phoff */
	put_other(e + 52, 64, 2);		   /* e_ehsize */
	put_other(e + 54, 56, 2);		   /* e_phentsize */
	put_other(e + 56, 1, 2);		   /* e_phnum */
	put_other(e + 64, PT_NOTE, 4);		   /* p_type */
	put_other(e + 64 + 8, 120, 8);		   /* p_offset */
	put_other(e + 64 + 32, 36, 8);		   /* p_filesz */
	put_other(e + 120, 4, 4);		   /* n_namesz */
	put_other(e + 124, 20, 4);		   /* n_descsz */
	put_other(e + 128, NT_GNU_BUILD_ID, 4); /* n_type */
	memcpy(e + 132, "GNU", 4);
	memset(e + 136, 0xab, 20);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -1;
	rc = write(fd, e, sizeof(e)) == (ssize_t)sizeof(e) ? 0 : -1;
	close(fd);
	return rc;
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
	if (foreign[0]) {
		write_mmap2(f, 100, 0xa00000, 0x1000, foreign);
		sample(f, 100, 0xa00010, 0x400100);
	}
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

	strcpy(foreign, "/tmp/pfr-bid-elf-XXXXXX");
	fd = mkstemp(foreign);
	if (fd >= 0)
		close(fd);
	ok(fd >= 0 && !write_foreign(foreign), "an other-order ELF written");
	ok(!write_file(path, exe, PFR__BUILDID_HIT), "default: written again");
	nr = listed(path, names, sizeof(names));
	ok(nr > 0 && has(names, foreign),
	   "a hit file of the other byte order is listed");
	unlink(foreign);
	foreign[0] = 0;

	ok(!write_file(path, exe, PFR__BUILDID_ALL), "--buildid-all: written");
	nr = listed(path, names, sizeof(names));
	ok(nr > 0 && has(names, exe) && has(names, "/bin/sh"),
	   "--buildid-all: every file mapped is listed (%d entries)", nr);

	ok(!write_file(path, exe, PFR__BUILDID_NONE), "-B: written");
	is_int(listed(path, names, sizeof(names)), -1, "-B: no BUILD_ID");
	unlink(path);
	return tap_done();
}
