/* SPDX-License-Identifier: MIT */
/*
 * The hardening tests' helper (tests/harden/t_*.sh build it, with the
 * sanitizers, linked with cli/script/script.c and cli/perfdata/out.c):
 *
 *   harden_tool forks N FILE     perf.data: N MMAP2 records in process 1,
 *                                then N FORK records from it
 *   harden_tool hostile FILE ELF perf.data whose COMM and MMAP2 names hold
 *                                terminal escapes and bytes that are not
 *                                UTF-8, and a SAMPLE in a mapping of ELF;
 *                                writes ELF too: an ELF64 file whose
 *                                headers and symbol table sit at odd
 *                                offsets, and ELF.nosym: the same without
 *                                a symbol table, also sampled
 *   harden_tool maps N S FILE    perf.data: N MMAP2 records in process 1,
 *                                each 64 KiB below the one before (as
 *                                mmap places them), then S samples at
 *                                addresses spread over them
 *   harden_tool empty FILE       perf.data with one event and no record
 *   harden_tool truncate FILE    opens FILE with pfr_perf_file_open(),
 *                                truncates it to 0 bytes, then reads
 *                                every record and every byte of it;
 *                                prints the record count
 *   harden_tool script ARGS...   runs `perfring script ARGS` in this
 *                                (sanitized) process
 *   harden_tool rss KIB CMD ARGS...
 *                                runs CMD with at most KIB KiB of address
 *                                space (0: no limit), prints its exit
 *                                status and its peak resident size in KiB
 *                                (getrusage)
 *   harden_tool json STRING      STRING as util_json_str() writes it
 *   harden_tool text STRING      STRING as util_text_str() writes it
 *   harden_tool u64 STRING       util_parse_u64(): the value, or "error"
 *   harden_tool size STRING      util_parse_size(): the value, or "error"
 *   harden_tool tracepoint FILE ID LEN LOC
 *                                perf.data with one tracepoint event,
 *                                "crafted:ev" (its format read from
 *                                $PFR_TRACEFS/events/crafted/ev/format),
 *                                and one sample whose raw data (28 bytes)
 *                                holds common_type ID, the u32 LEN at
 *                                offset 8, the u32 LOC at 12 (a
 *                                __data_loc: length << 16 | offset) and
 *                                bytes 1..8 at 16
 *   harden_tool orphan MS LIMIT CMD ARGS...
 *                                runs CMD as a child of this process,
 *                                which reaps orphans (a subreaper); when
 *                                CMD has a child of its own, waits MS ms,
 *                                kills CMD with SIGKILL, then waits up to
 *                                LIMIT s for that grandchild to end;
 *                                prints "exit N" (its status) or "hung"
 */
#include <elf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "cli.h"

/* What cmd_script.c needs from cli/main.c (not linked: it has main). */
int util_usage_error(const char *cmd, const char *fmt, ...)
{
	(void)fmt;
	fprintf(stderr, "perfring %s: usage error\n", cmd);
	return PFR_EXIT_USAGE;
}

static struct pfr_perf_file *start(const char *path)
{
	struct pfr_perf_file *f;
	struct perf_event_attr a;
	uint64_t id = 1;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	if (pfr_perf_file_create(&f, path) ||
	    pfr_perf_file_add_event(f, &a, "cpu-clock", &id, 1)) {
		perror(path);
		exit(1);
	}
	return f;
}

static void put(struct pfr_perf_file *f, uint32_t type, uint16_t misc,
		const void *p, size_t len)
{
	struct pfr_record_header h;
	unsigned char buf[4096];
	size_t padded = (len + 7) & ~(size_t)7;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, p, len);
	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(8 + padded);
	if (pfr_perf_file_write(f, &h, buf, (uint32_t)padded)) {
		perror("write");
		exit(1);
	}
}

static void mmap2(struct pfr_perf_file *f, uint32_t pid, uint64_t start,
		  uint64_t len, const char *name)
{
	unsigned char b[512];
	uint32_t pt[2] = {pid, pid}, pf[2] = {PROT_EXEC, 2};
	uint64_t v[3] = {start, len, 0};
	size_t n = strlen(name) + 1;

	memset(b, 0, sizeof(b));
	memcpy(b, pt, 8);
	memcpy(b + 8, v, 24);
	/* 24 bytes maj/min/ino/generation: zero */
	memcpy(b + 56, pf, 8);
	memcpy(b + 64, name, n);
	put(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, b, 64 + n);
}

static void fork_rec(struct pfr_perf_file *f, uint32_t child, uint32_t parent)
{
	uint32_t t[4] = {child, parent, child, parent};
	unsigned char b[24];

	memset(b, 0, sizeof(b));
	memcpy(b, t, 16);
	put(f, PERF_RECORD_FORK, 0, b, 24);
}

static void comm(struct pfr_perf_file *f, uint32_t pid, const char *name)
{
	unsigned char b[64];
	uint32_t t[2] = {pid, pid};
	size_t n = strlen(name) + 1;

	memset(b, 0, sizeof(b));
	memcpy(b, t, 8);
	memcpy(b + 8, name, n);
	put(f, PERF_RECORD_COMM, 0, b, 8 + n);
}

static void sample(struct pfr_perf_file *f, uint32_t pid, uint64_t ip)
{
	unsigned char b[16];
	uint32_t t[2] = {pid, pid};

	memcpy(b, &ip, 8);
	memcpy(b + 8, t, 8);
	put(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, b, 16);
}

static void finish(struct pfr_perf_file *f)
{
	if (pfr_perf_file_close(f)) {
		perror("close");
		exit(1);
	}
}

/* A tracepoint sample's raw data, as the tracepoint test's format lays
 * it out: the common fields, then len (u32), a __data_loc (u32) and an
 * 8-byte array. */
static void tracepoint(const char *path, uint16_t id, uint32_t len,
		       uint32_t loc)
{
	struct pfr_perf_file *f;
	struct perf_event_attr a;
	uint64_t eid = 1;
	unsigned char b[48];
	uint32_t t[2] = {7, 7}, rsz = 28;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	if (pfr_perf_file_create(&f, path) ||
	    pfr_perf_file_add_event(f, &a, "crafted:ev", &eid, 1)) {
		perror(path);
		exit(1);
	}
	memset(b, 0, sizeof(b));
	memcpy(b + 8, t, 8); /* ip 0, pid/tid 7 */
	memcpy(b + 16, &rsz, 4);
	memcpy(b + 20, &id, 2); /* common_type */
	memcpy(b + 20 + 8, &len, 4);
	memcpy(b + 20 + 12, &loc, 4);
	for (int i = 0; i < 8; i++)
		b[20 + 16 + i] = (unsigned char)(i + 1);
	put(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, b, 20 + rsz);
	finish(f);
}


/* An ELF64 file with its program headers, section headers, symbol table
 * and string table all at offsets that are not multiples of 8: every
 * Elf64_* structure in it is misaligned for a direct load. */
static void odd_elf(const char *path, int syms)
{
	unsigned char b[1024];
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Shdr sh[3];
	Elf64_Sym sy[2];
	static const char str[] = "\0odd_function";
	size_t ph_off = 67, sym_off = 131, str_off = 190, sh_off = 221;
	FILE *o;

	memset(b, 0, sizeof(b));
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = ph_off;
	eh.e_shoff = sh_off;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	memcpy(b, &eh, sizeof(eh));
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_offset = 0;
	ph.p_vaddr = 0;
	ph.p_filesz = 4096;
	ph.p_memsz = 4096;
	memcpy(b + ph_off, &ph, sizeof(ph));
	memset(sy, 0, sizeof(sy));
	sy[1].st_name = 1;
	sy[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sy[1].st_shndx = 1; /* defined (perf skips undefined symbols) */
	sy[1].st_value = 0x100;
	sy[1].st_size = 0x80;
	memcpy(b + sym_off, sy, sizeof(sy));
	memcpy(b + str_off, str, sizeof(str));
	memset(sh, 0, sizeof(sh));
	sh[1].sh_type = syms ? SHT_SYMTAB : SHT_PROGBITS;
	sh[1].sh_offset = sym_off;
	sh[1].sh_size = sizeof(sy);
	sh[1].sh_link = 2;
	sh[1].sh_entsize = sizeof(Elf64_Sym);
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = str_off;
	sh[2].sh_size = sizeof(str);
	memcpy(b + sh_off, sh, sizeof(sh));
	o = fopen(path, "wb");
	if (!o || fwrite(b, sh_off + sizeof(sh), 1, o) != 1 || fclose(o)) {
		perror(path);
		exit(1);
	}
}

static int rss(long kib, char **argv)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		struct rlimit rl = {(rlim_t)kib << 10, (rlim_t)kib << 10};

		if (kib > 0 && setrlimit(RLIMIT_AS, &rl))
			_exit(126);

		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid)
		return 1;
	printf("%d %ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
	       ru.ru_maxrss);
	return 0;
}

/* The first child of pid, from /proc (0 if none yet). */
static pid_t first_child(pid_t pid)
{
	char path[64];
	long c = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &c) != 1)
		c = 0;
	fclose(f);
	return (pid_t)c;
}

static int orphan(long ms, long limit, char **argv)
{
	pid_t cmd, grand = 0;
	int st;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	cmd = fork();
	if (cmd == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	printf("pid %d\n", (int)cmd);
	fflush(stdout);
	for (long i = 0; i < 100 * limit && !grand; i++) {
		if (waitpid(cmd, &st, WNOHANG) == cmd) {
			printf("no child: exit %d\n", st);
			return 1;
		}
		grand = first_child(cmd);
		usleep(10000);
	}
	if (!grand) {
		printf("no child\n");
		kill(cmd, SIGKILL);
		return 1;
	}
	usleep((useconds_t)ms * 1000);
	kill(cmd, SIGKILL);
	waitpid(cmd, &st, 0);
	for (long i = 0; i < 100 * limit; i++) {
		if (waitpid(grand, &st, WNOHANG) == grand) {
			printf("exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st)
							  : 128 + WTERMSIG(st));
			return 0;
		}
		usleep(10000);
	}
	printf("hung\n");
	kill(grand, SIGKILL);
	waitpid(grand, &st, 0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "forks")) {
		long n = atol(argv[2]);
		struct pfr_perf_file *f = start(argv[3]);

		comm(f, 1, "init");
		for (long i = 0; i < n; i++)
			mmap2(f, 1, 0x10000000ULL + (uint64_t)i * 0x10000,
			      0x1000, "/nonexistent/lib.so");
		for (long i = 0; i < n; i++)
			fork_rec(f, (uint32_t)(2 + i), 1);
		sample(f, (uint32_t)(n + 1), 0x10000000ULL);
		finish(f);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "maps")) {
		long n = atol(argv[2]), ns = atol(argv[3]);
		struct pfr_perf_file *f = start(argv[4]);
		uint64_t top = 0x7f0000000000ULL, x = 1;

		comm(f, 1, "maps");
		for (long i = 0; i < n; i++)
			mmap2(f, 1, top - (uint64_t)i * 0x10000, 0x1000,
			      "/nonexistent/lib.so");
		for (long i = 0; i < ns && n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			sample(f, 1, top - (x >> 33) % (uint64_t)n * 0x10000 + 8);
		}
		finish(f);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "hostile")) {
		struct pfr_perf_file *f = start(argv[2]);

		char nosym[4096];

		snprintf(nosym, sizeof(nosym), "%s.nosym", argv[3]);
		odd_elf(argv[3], 1);
		odd_elf(nosym, 0);
		/* ESC ] 0 ; title BEL, ESC [ 2 J, a C1 CSI, bad UTF-8 */
		comm(f, 7, "a\x1b]0;owned\x07\x1b[2J\xc2\x9b\xff\xfe");
		mmap2(f, 7, 0x400000, 0x1000, argv[3]);
		mmap2(f, 7, 0x800000, 0x1000,
		      "/tmp/\x1b[31mred\x80\xc0\xaf\xed\xa0\x80.so");
		sample(f, 7, 0x400000 + 0x110);
		sample(f, 7, 0x800010);
		mmap2(f, 7, 0xc00000, 0x1000, nosym);
		sample(f, 7, 0xc00010);
		finish(f);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "empty")) {
		finish(start(argv[2]));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "truncate")) {
		struct pfr_perf_file *f;
		struct pfr_record rec;
		unsigned long n = 0, sum = 0;
		int e = pfr_perf_file_open(&f, argv[2]);

		if (e) {
			fprintf(stderr, "open: %s\n", pfr_perf_strerror(e));
			return 1;
		}
		if (truncate(argv[2], 0)) {
			perror("truncate");
			return 1;
		}
		while ((e = pfr_perf_file_next(f, &rec)) == 1) {
			for (uint32_t i = 0; i < rec.len; i++)
				sum += ((const unsigned char *)rec.payload)[i];
			n++;
		}
		pfr_perf_file_close(f);
		printf("%lu records (%lu)\n", n, sum & 1);
		return e < 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "script"))
		return cli_cmd_script(argc - 1, argv + 1);
	if (argc >= 3 && !strcmp(argv[1], "json")) {
		util_json_str(stdout, argv[2]);
		putchar('\n');
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "text")) {
		util_text_str(stdout, argv[2]);
		putchar('\n');
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "u64")) {
		unsigned long long v;

		if (util_parse_u64(argv[2], &v))
			printf("error\n");
		else
			printf("%llu\n", v);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "size")) {
		unsigned long long v;

		if (util_parse_size(argv[2], &v))
			printf("error\n");
		else
			printf("%llu\n", v);
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "tracepoint")) {
		tracepoint(argv[2], (uint16_t)strtoul(argv[3], NULL, 0),
			   (uint32_t)strtoul(argv[4], NULL, 0),
			   (uint32_t)strtoul(argv[5], NULL, 0));
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "orphan"))
		return orphan(atol(argv[2]), atol(argv[3]), argv + 4);
	if (argc >= 4 && !strcmp(argv[1], "rss"))
		return rss(atol(argv[2]), argv + 3);
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}
