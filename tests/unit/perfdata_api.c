/* SPDX-License-Identifier: MIT */
/*
 * The perf.data library's API (<perfring/perfdata.h>, issue 33) on a file
 * written here record by record: its errors (NULL arguments, a missing
 * path, a directory, a file that is no perf.data, options with a bad sz,
 * a nonzero byte past the known fields, an unknown flag), the records in
 * time order a round at a time (FINISHED_ROUND) or in file order, the
 * side-band records tracked (a sample's comm from COMM, its frames from
 * MMAP2: this program's own function, found by its symbol), the samples
 * only, the header's features (hostname, command line), the build id of
 * the file the samples hit, the stats and the printer.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "perf_rec.h"
#include "tap.h"

#define PID 4242u

static char dir[64], path[128], exe[4096];
static uint64_t map_start, map_end, map_off;

__attribute__((noinline)) int pd_target(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int pd_caller(int x)
{
	return pd_target(x) + 1;
}

/* A build for a target without elfutils (a cross build: mk/script.mk)
 * resolves no symbol and reads no build id: those checks say SKIP. */
#ifdef PFR_NO_SCRIPT_LIBS
#define NO_ELF " # SKIP built without elfutils"
static const int have_elf = 0;
#else
#define NO_ELF ""
static const int have_elf = 1;
#endif

/* The mapping of this program's text holding pd_target. */
static int find_map(void)
{
	uint64_t a = (uint64_t)(uintptr_t)&pd_target;
	char line[4608];
	FILE *m = fopen("/proc/self/maps", "r");

	while (m && fgets(line, sizeof(line), m)) {
		unsigned long long s, e, off;
		char perm[8], p[4096];

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %4095s", &s, &e,
			   perm, &off, p) == 5 &&
		    a >= s && a < e) {
			map_start = s;
			map_end = e;
			map_off = off;
			snprintf(exe, sizeof(exe), "%s", p);
			fclose(m);
			return 0;
		}
	}
	if (m)
		fclose(m);
	return -1;
}

static int comm_rec(struct pfr_perf_file *f, const char *name)
{
	struct buf b = {.n = 0};

	put32x2(&b, PID, PID);
	putstr(&b, name);
	return write_rec(f, PERF_RECORD_COMM, 0, &b);
}

static int mmap_rec(struct pfr_perf_file *f)
{
	struct buf b = {.n = 0};

	put32x2(&b, PID, PID);
	put64(&b, map_start);
	put64(&b, map_end - map_start);
	put64(&b, map_off);
	put32x2(&b, 0, 0);
	put64(&b, 0);
	put64(&b, 0);
	put32x2(&b, 5, 2);
	putstr(&b, exe);
	return write_rec(f, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, &b);
}

/* A user sample at time t: ip in pd_target, its caller pd_caller. */
static int sample_rec(struct pfr_perf_file *f, uint64_t t)
{
	struct buf b = {.n = 0};
	uint64_t ip = (uint64_t)(uintptr_t)&pd_target + 4;

	put64(&b, ip);
	put32x2(&b, PID, PID);
	put64(&b, t);
	put64(&b, 1000); /* period */
	put64(&b, 3);
	put64(&b, (uint64_t)PERF_CONTEXT_USER);
	put64(&b, ip);
	put64(&b, (uint64_t)(uintptr_t)&pd_caller + 2);
	return write_rec(f, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, &b);
}

static int round_rec(struct pfr_perf_file *f)
{
	struct buf b = {.n = 0};

	return write_rec(f, 68 /* FINISHED_ROUND */, 0, &b);
}

/* COMM, MMAP2, samples at 300 and 200, a round, one at 400, a round. */
static int make_file(void)
{
	struct perf_event_attr a;
	struct pfr_perf_file *f;
	char *argv[] = {"pd", "--test", "x"};
	uint64_t id = 7;
	int err;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	err = pfr_perf_file_create(&f, path);
	if (err)
		return err;
	err = pfr_perf_file_add_event(f, &a, "cpu-clock", &id, 1);
	err = err ? err : pfr_perf_file_set_cmdline(f, 3, argv);
	err = err ? err : comm_rec(f, "pdtest");
	err = err ? err : mmap_rec(f);
	err = err ? err : sample_rec(f, 300);
	err = err ? err : sample_rec(f, 200);
	err = err ? err : round_rec(f);
	err = err ? err : sample_rec(f, 400);
	err = err ? err : round_rec(f);
	if (err) {
		pfr_perf_file_close(f);
		return err;
	}
	return pfr_perf_file_close(f);
}

static void test_errors(void)
{
	struct pfr_perfdata *pd = (struct pfr_perfdata *)1;
	struct pfr_perfdata_opts o;
	unsigned char big[sizeof(o) + 16];
	const struct pfr_perfdata_event *ev;
	char junk[] = "/junk";

	is_int(pfr_perfdata_open(NULL, path, NULL), -PFR_E_INVAL, "pd NULL");
	is_int(pfr_perfdata_open(&pd, NULL, NULL), -PFR_E_INVAL, "path NULL");
	ok(pd == NULL, "*pd is NULL after a failed open");
	errno = 0;
	is_int(pfr_perfdata_open(&pd, "/nonexistent/perf.data", NULL),
	       -PFR_E_SYSTEM, "a missing file: -PFR_E_SYSTEM");
	is_int(errno, ENOENT, "errno ENOENT kept");
	errno = 0;
	is_int(pfr_perfdata_open(&pd, dir, NULL), -PFR_E_SYSTEM,
	       "a directory: -PFR_E_SYSTEM");
	ok(errno == EISDIR || errno == EINVAL, "errno EISDIR (%d)", errno);
	{
		char p[128];
		int fd;

		snprintf(p, sizeof(p), "%s/fifo", dir);
		ok(!mkfifo(p, 0600), "a FIFO made");
		errno = 0;
		is_int(pfr_perfdata_open(&pd, p, NULL), -PFR_E_SYSTEM,
		       "a FIFO: -PFR_E_SYSTEM at once (no blocking open)");
		is_int(errno, EINVAL, "errno EINVAL (not a regular file)");
		unlink(p);

		snprintf(p, sizeof(p), "%s%s", dir, junk);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		ok(fd >= 0 && write(fd, "not a perf.data file at all, no\n",
				    32) == 32,
		   "junk file written");
		close(fd);
		is_int(pfr_perfdata_open(&pd, p, NULL), -PFR_PERF_E_FILE_MAGIC,
		       "junk: -PFR_PERF_E_FILE_MAGIC");
	}
	memset(&o, 0, sizeof(o));
	o.sz = 3;
	is_int(pfr_perfdata_open(&pd, path, &o), -PFR_E_INVAL,
	       "opts sz smaller than sz itself");
	o.sz = sizeof(o);
	o.flags = 0x80000000u;
	is_int(pfr_perfdata_open(&pd, path, &o), -PFR_E_INVAL,
	       "an unknown flag");
	o.flags = 0;
	o.max_frames = 1u << 30;
	is_int(pfr_perfdata_open(&pd, path, &o), -PFR_E_INVAL,
	       "max_frames past the limit");
	memset(big, 0, sizeof(big));
	((struct pfr_perfdata_opts *)big)->sz = sizeof(big);
	big[sizeof(o) + 3] = 1;
	is_int(pfr_perfdata_open(&pd, path,
				 (const struct pfr_perfdata_opts *)big),
	       -PFR_E_INVAL, "a nonzero byte past the known fields");
	big[sizeof(o) + 3] = 0;
	is_int(pfr_perfdata_open(&pd, path,
				 (const struct pfr_perfdata_opts *)big),
	       0, "a larger sz with zeros past the fields opens");
	is_int(pfr_perfdata_next(NULL, &ev), -PFR_E_INVAL, "next(NULL)");
	is_int(pfr_perfdata_next(pd, NULL), -PFR_E_INVAL, "next(pd, NULL)");
	ok(pfr_perfdata_comm(NULL, 1) == NULL, "comm(NULL): NULL");
	ok(pfr_perfdata_feature(NULL, PFR_PERFDATA_FEAT_HOSTNAME) == NULL,
	   "feature(NULL): NULL");
	ok(pfr_perfdata_feature(pd, 99) == NULL, "an unknown feature: NULL");
	ok(pfr_perfdata_file(NULL) == NULL, "file(NULL): NULL");
	is_int(pfr_perfdata_resolve(pd, 1, 0, 0x100,
				    &(struct pfr_perfdata_frame){0}),
	       -PFR_E_INVAL, "resolve with an unknown flag");
	is_int(pfr_perfdata_stats(NULL, NULL), -PFR_E_INVAL, "stats(NULL)");
	is_int(pfr_perfdata_close(pd), 0, "close");
	is_int(pfr_perfdata_close(NULL), 0, "close(NULL) is a no-op");
}

/* Reads the file under flags; the types and times in order into
 * types[], times[] (at most 16); returns how many, or the error. */
static int read_all(unsigned flags, uint32_t *types, uint64_t *times)
{
	struct pfr_perfdata_opts o = {.sz = sizeof(o), .flags = flags};
	const struct pfr_perfdata_event *ev;
	struct pfr_perfdata *pd;
	int n = 0, r, err = pfr_perfdata_open(&pd, path, &o);

	if (err)
		return err;
	while ((r = pfr_perfdata_next(pd, &ev)) == 1 && n < 16) {
		types[n] = ev->type;
		times[n++] = ev->rec.time;
	}
	pfr_perfdata_close(pd);
	return r < 0 ? r : n;
}

static void test_order(void)
{
	uint32_t ty[16];
	uint64_t tm[16];
	int n = read_all(0, ty, tm);
	static const uint32_t want_ty[] = {3, 10, 68, 9, 9, 68, 9};
	static const uint64_t want_tm[] = {0, 0, 0, 200, 300, 0, 400};
	int same = n == 7;

	for (int i = 0; same && i < n; i++)
		same = ty[i] == want_ty[i] && tm[i] == want_tm[i];
	ok(same,
	   "time order: COMM, MMAP2, round, samples 200 and 300 at "
	   "the second round, round, 400 (%d records)",
	   n);
	n = read_all(PFR_PERFDATA_FILE_ORDER, ty, tm);
	same = n == 7 && ty[2] == 9 && tm[2] == 300 && ty[3] == 9 &&
	       tm[3] == 200 && ty[4] == 68 && tm[5] == 400;
	ok(same, "FILE_ORDER: as stored, 300 before 200 (%d records)", n);
	n = read_all(PFR_PERFDATA_SAMPLES_ONLY, ty, tm);
	same = n == 3 && ty[0] == 9 && ty[1] == 9 && ty[2] == 9 &&
	       tm[0] == 200 && tm[1] == 300 && tm[2] == 400;
	ok(same, "SAMPLES_ONLY: the three samples, in time order (%d)", n);
}

static void test_sample(void)
{
	struct pfr_perfdata_opts o = {.sz = sizeof(o),
				      .flags = PFR_PERFDATA_SAMPLES_ONLY};
	const struct pfr_perfdata_event *ev = NULL;
	struct pfr_perfdata_stats st = {.sz = sizeof(st)};
	struct pfr_perfdata_frame fr;
	struct pfr_perfdata *pd;
	unsigned char id[20];
	size_t len = sizeof(id);
	const char *h;
	char host[256] = "";
	FILE *out;
	char *text = NULL;
	size_t tl = 0;

	if (!ok(!pfr_perfdata_open(&pd, path, &o), "open"))
		return;
	is_int(pfr_perfdata_next(pd, &ev), 1, "a sample");
	if (!ev)
		return;
	ok(ev->sz == sizeof(*ev), "event sz");
	ok(!strcmp(ev->comm, "pdtest"), "its comm from COMM: %s", ev->comm);
	ok(!strcmp(ev->name, "cpu-clock") && ev->evidx == 0 && ev->attr,
	   "its event: %s", ev->name);
	ok(ev->rec.pid == PID && ev->rec.period == 1000,
	   "decoded: pid %u period %llu", ev->rec.pid,
	   (unsigned long long)ev->rec.period);
	is_int(ev->nr_frames, 2, "two frames (the context marker left out)");
	if (!have_elf) {
		ok(1, "frame 0: pd_target" NO_ELF);
		ok(1, "frame 1: pd_caller" NO_ELF);
	} else if (ev->nr_frames == 2) {
		ok(!strcmp(ev->frames[0].sym, "pd_target") &&
			   ev->frames[0].symoff == 4 &&
			   (ev->frames[0].flags & PFR_PERFDATA_FRAME_FOUND) &&
			   !(ev->frames[0].flags & PFR_PERFDATA_FRAME_KERNEL),
		   "frame 0: pd_target+0x%llx (%s)",
		   (unsigned long long)ev->frames[0].symoff, ev->frames[0].sym);
		ok(!strcmp(ev->frames[1].sym, "pd_caller") &&
			   ev->frames[1].symoff == 2 &&
			   !strcmp(ev->frames[1].dso, exe),
		   "frame 1: pd_caller+0x%llx (%s)",
		   (unsigned long long)ev->frames[1].symoff, ev->frames[1].dso);
	}
	is_int(pfr_perfdata_nr_fields(pd, ev), 0,
	       "no tracepoint fields in a cpu-clock sample");
	is_int(pfr_perfdata_field(pd, ev, 0, &(struct pfr_perfdata_value){0}),
	       -PFR_E_INVAL, "field of a cpu-clock sample: -PFR_E_INVAL");
	ok(!strcmp(pfr_perfdata_comm(pd, PID), "pdtest") &&
		   !strcmp(pfr_perfdata_comm(pd, 77), ":77"),
	   "comm(): a named thread, an unnamed one");
	if (!have_elf) {
		ok(1, "resolve() finds pd_caller" NO_ELF);
		ok(1, "as pd_caller+0x1" NO_ELF);
	} else {
		is_int(pfr_perfdata_resolve(pd, PID,
					    (uint64_t)(uintptr_t)&pd_caller +
						    1,
					    0, &fr),
		       1, "resolve() finds pd_caller");
		ok(!strcmp(fr.sym, "pd_caller") && fr.symoff == 1,
		   "as %s+0x%llx", fr.sym, (unsigned long long)fr.symoff);
	}
	is_int(pfr_perfdata_resolve(pd, PID + 1, 0x1000, 0, &fr), 0,
	       "resolve() in an unknown process: 0, [unknown]");
	out = open_memstream(&text, &tl);
	is_int(pfr_perfdata_print(pd, ev, out, NULL), 0, "print");
	fclose(out);
	ok(text && strstr(text, "pdtest") &&
		   (!have_elf || strstr(text, "pd_target+0x4")),
	   "print: perf script's lines (comm, pd_target+0x4%s)",
	   have_elf ? "" : ": no symbols without elfutils");
	free(text);
	is_int(pfr_perfdata_print(
		       pd, ev, stdout,
		       &(struct pfr_perfdata_print_opts){
			       .sz = sizeof(struct pfr_perfdata_print_opts),
			       .flags = 0x100}),
	       -PFR_E_INVAL, "print with an unknown flag");
	while (pfr_perfdata_next(pd, &ev) == 1)
		;
	is_int(pfr_perfdata_next(pd, &ev), 0, "0 at the end, and again");
	ok(!pfr_perfdata_stats(pd, &st) && st.records == 7 && st.bad == 0 &&
		   !st.unfinished,
	   "stats: %llu records, %llu bad", (unsigned long long)st.records,
	   (unsigned long long)st.bad);
	gethostname(host, sizeof(host) - 1);
	h = pfr_perfdata_feature(pd, PFR_PERFDATA_FEAT_HOSTNAME);
	ok(h && !strcmp(h, host), "HOSTNAME: %s", h ? h : "(none)");
	h = pfr_perfdata_feature(pd, PFR_PERFDATA_FEAT_CMDLINE);
	ok(h && !strcmp(h, "pd --test x"), "CMDLINE: %s", h ? h : "(none)");
	is_int(pfr_perfdata_buildid(pd, exe, id, &len), 0,
	       "the build id of this program, which the samples hit");
	is_int((int)len, 20, "20 bytes");
	len = 4;
	is_int(pfr_perfdata_buildid(pd, exe, id, &len), -PFR_E_NOSPC,
	       "4 bytes of room: -PFR_E_NOSPC");
	is_int((int)len, 20, "*len says 20");
	is_int(pfr_perfdata_buildid(pd, "/no/such/file", id, &len),
	       -PFR_E_AGAIN, "no build id recorded: -PFR_E_AGAIN");
	pfr_perfdata_close(pd);
}

/* The build-id cache: this program, which the samples hit, is added
 * under perf's layout (the .build-id link to it). */
static void test_cache(void)
{
	char cache[256], link[512], cmd[300], hex[41];
	unsigned char id[20];
	size_t len = sizeof(id);
	struct pfr_perfdata *pd;
	struct stat st;

	snprintf(cache, sizeof(cache), "%s/cache", dir);
	is_int(pfr_perfdata_buildid_cache_add(NULL, cache), -PFR_E_INVAL,
	       "cache_add: path NULL");
	ok(pfr_perfdata_buildid_cache_add(path, cache) >= 1,
	   "cache_add: the objects the file records");
	if (pfr_perfdata_open(&pd, path, NULL) ||
	    pfr_perfdata_buildid(pd, exe, id, &len))
		len = 0;
	else
		pfr_perfdata_close(pd);
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", cache, hex,
		 hex + 2);
	if (!have_elf)
		ok(1, "cache_add: the .build-id link" NO_ELF);
	else
		ok(len && !lstat(link, &st) && S_ISLNK(st.st_mode) &&
			   !stat(link, &st),
		   "cache_add: %s is a link to this program's entry", link);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache);
	ok(!system(cmd), "cache removed");
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/pfr-pd.XXXXXX");
	if (!mkdtemp(dir) || find_map()) {
		ok(0, "temp dir and this program's mapping");
		return tap_done();
	}
	snprintf(path, sizeof(path), "%s/perf.data", dir);
	is_int(make_file(), 0, "a perf.data written record by record");
	test_errors();
	test_order();
	test_sample();
	test_cache();
	unlink(path);
	snprintf(path, sizeof(path), "%s/junk", dir);
	unlink(path);
	rmdir(dir);
	return tap_done() + 0 * pd_caller(1);
}
