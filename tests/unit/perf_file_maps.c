/* SPDX-License-Identifier: MIT */
/*
 * The perf.data writer follows each process's mappings (to list in
 * BUILD_ID the files samples hit) through MMAP2, FORK and exec COMM
 * records.  A crafted stream makes that cost explode when a FORK copies
 * its parent's mappings: here a chain of N processes, each mapping one
 * more file and forking the next, so the last has N mappings.  Written
 * for N = 1000 and N = 8000 (each in a child process), the heap in use
 * after the stream and the peak RSS must grow about linearly with N (8x,
 * with a generous factor of 3 on top; copying grows them 64x).  The
 * BUILD_ID section must list exactly the files the samples hit, through
 * the inherited mappings.  A small stream checks the rules themselves:
 * the newest mapping of an address wins, exec drops the mappings, a child
 * does not see its parent's later mappings.  No timing is asserted.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "perf_rec.h"
#include "tap.h"

#define NMAX 8000
#define BASE 0x10000000ULL
#define STEP 0x10000ULL

static char dir[64], exe[4096];

static int mmap2(struct pfr_perf_file *f, uint32_t pid, uint64_t start,
		 const char *path)
{
	return write_mmap2(f, pid, start, STEP, path);
}

static int fork_rec(struct pfr_perf_file *f, uint32_t child, uint32_t parent)
{
	struct buf b = {.n = 0};

	put32x2(&b, child, parent);
	put32x2(&b, child, parent);
	put64(&b, 1);
	return write_rec(f, PERF_RECORD_FORK, 0, &b);
}

static int exec_rec(struct pfr_perf_file *f, uint32_t pid)
{
	struct buf b = {.n = 0};

	put32x2(&b, pid, pid);
	putstr(&b, "new");
	return write_rec(f, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &b);
}

static int sample(struct pfr_perf_file *f, uint32_t pid, uint64_t ip)
{
	struct buf b = {.n = 0};

	put64(&b, ip);
	put32x2(&b, pid, pid);
	put64(&b, 1000);
	return write_rec(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &b);
}

static struct pfr_perf_file *create(const char *path)
{
	struct perf_event_attr a;
	struct pfr_perf_file *f = NULL;
	uint64_t id = 1;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (pfr_perf_file_create(&f, path) ||
	    pfr_perf_file_add_event(f, &a, "cpu-clock", &id, 1))
		return NULL;
	return f;
}

static void lib_name(char *p, size_t len, unsigned i)
{
	snprintf(p, len, "%s/l%u", dir, i);
}

/* Which of the chain's files its samples hit: every third process's
 * sample lands in the mapping its ancestor i/2 made. */
static int chain_hit(unsigned j, unsigned n)
{
	for (unsigned i = 2 * j; i < 2 * j + 2 && i < n; i++)
		if (i % 3 == 0)
			return 1;
	return 0;
}

/* The chain: pid 10 + i maps file i at BASE + i * STEP, then forks pid
 * 11 + i, which inherits all i + 1 mappings. */
static int write_chain(const char *path, unsigned n, size_t *heap)
{
	struct pfr_perf_file *f = create(path);
	char name[128];
	int err = !f;

	for (unsigned i = 0; i < n && !err; i++) {
		uint32_t pid = 10 + i;

		lib_name(name, sizeof(name), i);
		err |= mmap2(f, pid, BASE + i * STEP, name);
		err |= fork_rec(f, pid + 1, pid);
		if (i % 3 == 0)
			err |= sample(f, pid + 1, BASE + (i / 2) * STEP + 8);
		err |= sample(f, pid + 1, 0x1000); /* in no mapping */
	}
	*heap = mallinfo2().uordblks;
	if (f && pfr_perf_file_close(f))
		err = 1;
	return err;
}

static unsigned char *file;
static size_t file_len;

/* The names BUILD_ID lists, NUL-separated into names[len]; their count,
 * or -1 for a malformed file. */
static int build_ids(const char *path, char *names, size_t len)
{
	struct stat st;
	uint64_t doff, dsize, feats, off, size, idx, p;
	int fd = open(path, O_RDONLY), nr = 0;
	size_t used = 0;

	free(file);
	file = NULL;
	if (fd < 0 || fstat(fd, &st) || st.st_size < 104)
		return -1;
	file_len = (size_t)st.st_size;
	file = malloc(file_len);
	if (!file || read(fd, file, file_len) != (ssize_t)file_len) {
		close(fd);
		return -1;
	}
	close(fd);
	memcpy(&doff, file + 40, 8);
	memcpy(&dsize, file + 48, 8);
	memcpy(&feats, file + 72, 8);
	if (!(feats >> 2 & 1))
		return 0; /* no DSO with a build id hit */
	idx = doff + dsize + (feats >> 1 & 1 ? 16 : 0);
	if (idx + 16 > file_len)
		return -1;
	memcpy(&off, file + idx, 8);
	memcpy(&size, file + idx + 8, 8);
	if (off > file_len || size > file_len - off)
		return -1;
	for (p = off; p + 36 <= off + size;) {
		uint16_t esz;
		const char *nm = (const char *)file + p + 36;
		size_t l;

		memcpy(&esz, file + p + 6, 2);
		if (esz <= 36 || p + esz > off + size)
			return -1;
		l = strnlen(nm, esz - 36);
		if (l == esz - 36u || used + l + 1 > len)
			return -1;
		memcpy(names + used, nm, l + 1);
		used += l + 1;
		nr++;
		p += esz;
	}
	return nr;
}

static int listed(const char *names, int nr, const char *name)
{
	for (int i = 0; i < nr; i++, names += strlen(names) + 1)
		if (!strcmp(names, name))
			return 1;
	return 0;
}

struct run {
	size_t heap0, heap; /* bytes in use before and after the stream */
	long maxrss_kb;
	int err;
};

/* The chain of n processes, written in a child: its heap growth and peak
 * RSS. */
static int run_chain(const char *path, unsigned n, struct run *r)
{
	int pfd[2], status;
	struct rusage ru;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct run c = {0, 0, 0, 0};

		close(pfd[0]);
		c.heap0 = mallinfo2().uordblks;
		c.err = write_chain(path, n, &c.heap);
		if (write(pfd[1], &c, sizeof(c)) != (ssize_t)sizeof(c))
			_exit(2);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], r, sizeof(*r)) != (ssize_t)sizeof(*r))
		r->err = 1;
	close(pfd[0]);
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	r->maxrss_kb = ru.ru_maxrss;
	return 0;
}

static void check_chain(const char *path, unsigned n, struct run *r)
{
	static char names[NMAX * 80];
	char name[128];
	int nr, wrong = 0, want = 0, missing = 0;
	int bad = run_chain(path, n, r) || r->err;

	ok(!bad, "N=%u: the chain is written (%zu heap bytes, max RSS %ld KiB)",
	   n, r->heap - r->heap0, r->maxrss_kb);
	nr = build_ids(path, names, sizeof(names));
	ok(nr >= 0, "N=%u: the BUILD_ID section is well formed", n);
	if (nr < 0)
		return;
	for (unsigned j = 0; j < n; j++) {
		lib_name(name, sizeof(name), j);
		if (chain_hit(j, n)) {
			want++;
			missing += !listed(names, nr, name);
		} else {
			wrong += listed(names, nr, name);
		}
	}
	ok(want > 0 && nr == want && !missing && !wrong,
	   "N=%u: BUILD_ID lists the %d files hit (got %d, %d missing, "
	   "%d not hit)",
	   n, want, nr, missing, wrong);
}

/* The rules, on a few processes. */
static void check_rules(const char *path)
{
	static char names[4096];
	char a[128], b[128], c[128], d[128], e[128], g[128];
	struct pfr_perf_file *f = create(path);
	int nr, err = !f;

	if (err) {
		ok(0, "create");
		return;
	}
	lib_name(a, sizeof(a), 0); /* hidden by b at the same address */
	lib_name(b, sizeof(b), 1);
	lib_name(c, sizeof(c), 2); /* dropped by exec */
	lib_name(d, sizeof(d), 3); /* inherited, then hidden by g */
	lib_name(e, sizeof(e), 4); /* the parent's, after the fork */
	lib_name(g, sizeof(g), 5);
	err |= mmap2(f, 5, BASE, a);
	err |= mmap2(f, 5, BASE, b);
	err |= sample(f, 5, BASE + 8);
	err |= mmap2(f, 6, BASE, c);
	err |= exec_rec(f, 6);
	err |= sample(f, 6, BASE + 8);
	err |= mmap2(f, 7, BASE, d);
	err |= fork_rec(f, 8, 7);
	err |= mmap2(f, 7, BASE + STEP, e);
	err |= sample(f, 8, BASE + STEP + 8);
	err |= mmap2(f, 8, BASE, g);
	err |= sample(f, 8, BASE + 8);
	err |= pfr_perf_file_close(f);
	ok(!err, "the rules' stream is written");
	nr = build_ids(path, names, sizeof(names));
	ok(nr == 2 && listed(names, nr, b) && listed(names, nr, g),
	   "the newest mapping wins; exec drops the mappings; a child does "
	   "not see its parent's later ones (%d listed)",
	   nr);
}

/* Which event a record belongs to, by its id, with many ids declared:
 * the first event that has it, 0 for an id none has. */
static void check_event_of(const char *path)
{
	static uint64_t ids[2][2000];
	struct perf_event_attr a;
	struct pfr_perf_file *f = NULL;
	struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0, 24};
	uint64_t probe[] = {5, 9, 1003, 1004, 3999, 4998, 4999, 1001, 77777};
	uint32_t want[] = {0, 0, 1, 0, 1, 0, 1, 0, 0}, bad = 0;
	int err;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
	for (unsigned i = 0; i < 2000; i++) { /* event 0 even, 1 odd */
		ids[0][i] = 1000 + 2 * i;
		ids[1][i] = 1001 + 2 * i;
	}
	ids[0][0] = 5; /* 1000 is no one's */
	ids[1][0] = 9; /* 1001 neither */
	ids[0][1] = 9; /* both have 9: the first event wins */
	err = pfr_perf_file_create(&f, path) ||
	      pfr_perf_file_add_event(f, &a, "a", ids[0], 2000) ||
	      pfr_perf_file_add_event(f, &a, "b", ids[1], 2000);
	for (unsigned i = 0; !err && i < 9; i++) {
		uint64_t rec[2] = {probe[i], 0x1000};

		err = pfr_perf_file_write(f, &h, rec, 16);
	}
	if (f && pfr_perf_file_close(f))
		err = 1;
	f = NULL;
	if (err || pfr_perf_file_open(&f, path)) {
		ok(0, "a file with two events of 2000 ids each");
		return;
	}
	for (unsigned i = 0; i < 9; i++) {
		struct pfr_record r;
		uint32_t ev;

		if (pfr_perf_file_next(f, &r) != 1) {
			bad++;
			break;
		}
		ev = pfr_perf_file_event_of(f, &r.hdr, r.payload, r.len);
		if (ev != want[i]) {
			tap_diag("  id %llu: event %u, want %u",
				 (unsigned long long)probe[i], ev, want[i]);
			bad++;
		}
	}
	ok(!bad, "each record's event is found by its id among 4000");
	pfr_perf_file_close(f);
}

int main(void)
{
	char path[128], name[128];
	struct run small, big;
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	snprintf(dir, sizeof(dir), "/tmp/pfr-maps-XXXXXX");
	if (el <= 0 || !mkdtemp(dir)) {
		ok(0, "a temporary directory and /proc/self/exe");
		return tap_done();
	}
	exe[el] = 0;
	/* NMAX names of one ELF file with a build id (this program). */
	for (unsigned i = 0; i < NMAX; i++) {
		lib_name(name, sizeof(name), i);
		if (symlink(exe, name)) {
			ok(0, "symlink %s: %s", name, strerror(errno));
			return tap_done();
		}
	}
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	check_rules(path);
	check_event_of(path);
	check_chain(path, 1000, &small);
	check_chain(path, NMAX, &big);
	if (small.heap > small.heap0 && big.heap > big.heap0) {
		size_t s = small.heap - small.heap0, b = big.heap - big.heap0;

		ok(b <= 3 * 8 * s,
		   "heap growth is linear: %zu bytes for N=1000, %zu for "
		   "N=8000 (limit %zu)",
		   s, b, 3 * 8 * s);
	} else {
		ok(1, "heap growth # SKIP mallinfo2 does not count this "
		      "allocator");
	}
	ok(big.maxrss_kb <= 3 * 8 * small.maxrss_kb,
	   "peak RSS is linear: %ld KiB for N=1000, %ld KiB for N=8000",
	   small.maxrss_kb, big.maxrss_kb);
	unlink(path);
	for (unsigned i = 0; i < NMAX; i++) {
		lib_name(name, sizeof(name), i);
		unlink(name);
	}
	rmdir(dir);
	free(file);
	return tap_done();
}
