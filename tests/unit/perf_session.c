/* SPDX-License-Identifier: MIT */
/*
 * The session API (<perfring/session.h>) without perf privileges:
 *  - the merge: three fake perf rings in memory (mmap page and data area,
 *    one record straddling the end of its data area), records in time
 *    order within each ring and out of order across them, drained in
 *    passes and delivered in time order by perf record's round rule;
 *  - synthesis from a /proc fixture directory (kallsyms, comm, task/,
 *    maps with a [vdso] line, status), checked record by record;
 *  - error paths: NULL, bad sz, bad cpu lists, calls out of order.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "tap.h"

#define ST (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define DATA 4096u

/* --- fake rings --- */

struct fake {
	unsigned char *mem;
	size_t len;
	struct perf_event_mmap_page *pg;
};

static void fake_init(struct fake *f, uint64_t start)
{
	long psz = sysconf(_SC_PAGESIZE);

	f->len = (size_t)psz + DATA;
	if (posix_memalign((void **)&f->mem, (size_t)psz, f->len))
		tap_skip_all("out of memory");
	memset(f->mem, 0, f->len);
	f->pg = (struct perf_event_mmap_page *)f->mem;
	f->pg->data_offset = (uint64_t)psz;
	f->pg->data_size = DATA;
	f->pg->data_head = f->pg->data_tail = start;
}

/* A SAMPLE (IDENTIFIER, TID, TIME) as the kernel writes it, wrapping at
 * the end of the data area. */
static void fake_sample(struct fake *f, uint64_t time, uint32_t tid)
{
	unsigned char rec[32], *data = f->mem + f->pg->data_offset;
	struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0, 32};
	uint64_t id = 7, head = f->pg->data_head;

	memcpy(rec, &h, 8);
	memcpy(rec + 8, &id, 8);
	memcpy(rec + 16, &tid, 4); /* pid */
	memcpy(rec + 20, &tid, 4);
	memcpy(rec + 24, &time, 8);
	for (int i = 0; i < 32; i++)
		data[(head + (uint64_t)i) % DATA] = rec[i];
	/* B: pairs with C, the acquire of data_head in pfr_reader_begin(),
	 * as the kernel's smp_wmb() in perf_output_put_handle() does */
	__atomic_store_n(&f->pg->data_head, head + 32, __ATOMIC_RELEASE);
}

struct got {
	uint64_t time[64];
	uint32_t tid[64];
	int n;
	int stop_at; /* return -77 at this record (0: never) */
};

static int collect(void *arg, const struct pfr_perf_session_rec *r)
{
	struct got *g = arg;
	struct pfr_perf_rec d;

	if (pfr_perf_decode(r->lay, r->hdr, r->payload, r->len, &d) ||
	    g->n >= 64)
		return -1;
	g->time[g->n] = r->time;
	g->tid[g->n] = d.tid;
	g->n++;
	return g->stop_at && g->n == g->stop_at ? -77 : 0;
}

static int sorted(const struct got *g)
{
	for (int i = 1; i < g->n; i++)
		if (g->time[i] < g->time[i - 1])
			return 0;
	return 1;
}

static struct pfr_perf_session *new_session(const char *proc, uint32_t flags,
					    pfr_perf_session_fn fn, void *arg)
{
	struct pfr_perf_session_opts o = {.sz = sizeof(o)};
	struct perf_event_attr a;
	struct pfr_perf_session *s = NULL;

	o.proc_root = proc;
	o.flags = flags;
	o.on_record = fn;
	o.arg = arg;
	if (pfr_perf_session_create(&s, &o))
		return NULL;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = ST;
	if (pfr_perf_session_add_event(s, &a, NULL) != 0) {
		pfr_perf_session_destroy(s);
		return NULL;
	}
	return s;
}

static void test_merge(void)
{
	struct fake f[3];
	struct got g = {.n = 0};
	struct pfr_perf_session *s = new_session(NULL, 0, collect, &g);
	struct pfr_perf_session_stats st = {.sz = sizeof(st)};
	int ok_all = 1;

	ok(s != NULL, "merge: session created");
	if (!s)
		return;
	fake_init(&f[0], 0);
	fake_init(&f[1], DATA - 16); /* its first record straddles the end */
	fake_init(&f[2], 0);
	fake_sample(&f[0], 10, 1);
	fake_sample(&f[0], 30, 1);
	fake_sample(&f[0], 50, 1);
	fake_sample(&f[1], 20, 2);
	fake_sample(&f[1], 40, 2);
	fake_sample(&f[2], 5, 3);
	fake_sample(&f[2], 45, 3);
	fake_sample(&f[2], 60, 3);
	for (int i = 0; i < 3; i++)
		ok_all &= pfr_perf_session_add_ring(s, f[i].mem, f[i].len, i) ==
			  0;
	ok(ok_all, "merge: three fake rings added");
	is_int(pfr_perf_session_drain(s, 0), 0, "merge: first pass");
	is_int(g.n, 0, "merge: nothing is final after the first pass");
	for (int i = 0; i < 3; i++)
		ok_all &= f[i].pg->data_tail == f[i].pg->data_head;
	ok(ok_all, "merge: every ring's data_tail released to its head");
	fake_sample(&f[0], 70, 1);
	fake_sample(&f[1], 65, 2);
	is_int(pfr_perf_session_drain(s, 0), 0, "merge: second pass");
	is_int(g.n, 8, "merge: the second pass delivers up to the first's max");
	ok(g.n == 8 && g.time[0] == 5 && g.time[7] == 60 && sorted(&g),
	   "merge: 5..60 in time order");
	ok(g.n == 8 && g.tid[0] == 3 && g.tid[1] == 1 && g.tid[2] == 2 &&
		   g.tid[3] == 1 && g.tid[4] == 2 && g.tid[5] == 3,
	   "merge: each record from its ring (tids 3 1 2 1 2 3 ...)");
	is_int(pfr_perf_session_drain(s, 1), 0, "merge: final pass");
	ok(g.n == 10 && sorted(&g) && g.time[8] == 65 && g.time[9] == 70,
	   "merge: the final pass delivers the rest, in order");
	pfr_perf_session_stats(s, &st);
	ok(st.records == 10 && st.samples == 10 && st.delivered == 10 &&
		   st.nr_rings == 3 && st.by_type[PERF_RECORD_SAMPLE] == 10 &&
		   st.decode_errors == 0,
	   "merge: stats count 10 records on 3 rings");
	/* A callback's error stops the delivery and comes back. */
	g.stop_at = 12;
	fake_sample(&f[2], 80, 3);
	fake_sample(&f[0], 90, 1);
	fake_sample(&f[1], 85, 2);
	is_int(pfr_perf_session_drain(s, 1), -77,
	       "merge: the callback's error is returned");
	is_int(g.n, 12, "merge: delivery stopped at the callback's error");
	g.stop_at = 0;
	is_int(pfr_perf_session_drain(s, 1), 0, "merge: the rest after it");
	ok(g.n == 13 && g.time[12] == 90, "merge: nothing lost or repeated");
	/* A corrupt ring: data_head behind data_tail. */
	f[0].pg->data_head = f[0].pg->data_tail - 8;
	ok(pfr_perf_session_drain(s, 0) < 0, "merge: a corrupt head is an error");
	pfr_perf_session_destroy(s);
	for (int i = 0; i < 3; i++)
		free(f[i].mem);
}

/* --- synthesis from a fixture --- */

static char fx[64];

static void put(const char *rel, const char *text)
{
	char p[256], *q;

	snprintf(p, sizeof(p), "%s/%s", fx, rel);
	for (q = p + strlen(fx) + 1; (q = strchr(q, '/')); q++) {
		*q = 0;
		mkdir(p, 0755);
		*q = '/';
	}
	if (text) {
		FILE *f = fopen(p, "w");

		fputs(text, f);
		fclose(f);
	} else {
		mkdir(p, 0755);
	}
}

static void make_fixture(void)
{
	snprintf(fx, sizeof(fx), "/tmp/pfr-sess.XXXXXX");
	if (!mkdtemp(fx))
		tap_skip_all("mkdtemp failed");
	put("kallsyms", "ffffffff81000000 T startup_64\n"
			"ffffffff81000000 T _text\n"
			"ffffffff81001000 t foo\n"
			"ffffffff81e00000 T _etext\n");
	put("100/comm", "bash\n");
	put("100/status", "Name:\tbash\nTgid:\t100\nUid:\t1000\t1000\t1000\t"
			  "1000\n");
	put("100/task/100", NULL);
	put("100/task/101", NULL);
	put("101/status", "Name:\tbash\nTgid:\t100\nUid:\t1000\n");
	put("100/maps",
	    "55d000000000-55d000001000 r--p 00000000 08:01 1234    "
	    "/usr/bin/bash\n"
	    "55d000001000-55d000002000 r-xp 00001000 08:01 1234    "
	    "/usr/bin/bash\n"
	    "55d000003000-55d000004000 rw-p 00000000 00:00 0       [heap]\n"
	    "7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0       [vdso]\n"
	    "7ffd00002000-7ffd00003000 r--p 00000000 00:00 0       [vvar]\n");
	put("200/comm", "sleep\n");
	put("200/status", "Name:\tsleep\nTgid:\t200\nUid:\t0\t0\t0\t0\n");
	put("200/task/200", NULL);
	put("200/maps", "400000-401000 r-xp 00000000 08:01 99 /usr/bin/sleep\n");
}

struct recs {
	struct pfr_perf_rec d[32];
	char name[32][64];
	int n;
};

static int keep(void *arg, const struct pfr_perf_session_rec *r)
{
	struct recs *k = arg;
	struct pfr_perf_rec *d = &k->d[k->n];

	if (k->n >= 32 || pfr_perf_decode(r->lay, r->hdr, r->payload, r->len,
					  d))
		return -1;
	k->name[k->n][0] = 0;
	if (d->type == PERF_RECORD_MMAP || d->type == PERF_RECORD_MMAP2)
		snprintf(k->name[k->n], 64, "%s", d->u.mmap.filename);
	if (d->type == PERF_RECORD_COMM)
		snprintf(k->name[k->n], 64, "%s", d->u.comm.comm);
	k->n++;
	return 0;
}

static int is_map(const struct recs *k, int i, const char *file,
		  uint64_t start, uint64_t len, uint64_t pgoff, uint32_t prot,
		  uint16_t misc)
{
	const struct pfr_perf_rec *d = &k->d[i];

	return i < k->n && d->type == PERF_RECORD_MMAP2 &&
	       !strcmp(k->name[i], file) && d->u.mmap.pid == 100 &&
	       d->u.mmap.start == start && d->u.mmap.len == len &&
	       d->u.mmap.pgoff == pgoff && d->u.mmap.prot == prot &&
	       d->misc == misc && d->pid == 100 && d->tid == 100 &&
	       (d->fields & PFR_PERF_F_TIME) && d->time == 0;
}

static void check_process(const struct recs *k, int data)
{
	const struct pfr_perf_rec *d = k->d;
	int comm_tids = 0, i = 3;

	ok(k->n >= 1 && d[0].type == PERF_RECORD_MMAP &&
		   d[0].misc == PERF_RECORD_MISC_KERNEL &&
		   d[0].u.mmap.pid == (uint32_t)-1 &&
		   d[0].u.mmap.start == 0xffffffff81000000ULL &&
		   d[0].u.mmap.len == 0xe00000 &&
		   !strcmp(k->name[0], "[kernel.kallsyms]_text"),
	   "synth: the kernel map from kallsyms (_text.._etext)");
	for (int j = 1; j < 3 && j < k->n; j++)
		if (d[j].type == PERF_RECORD_COMM && d[j].u.comm.pid == 100 &&
		    !strcmp(k->name[j], "bash") && d[j].tid == d[j].u.comm.tid)
			comm_tids |= d[j].u.comm.tid == 100   ? 1
				     : d[j].u.comm.tid == 101 ? 2
							      : 0;
	is_int(comm_tids, 3, "synth: a COMM 'bash' for threads 100 and 101");
	if (data)
		ok(is_map(k, i++, "/usr/bin/bash", 0x55d000000000ULL, 0x1000, 0,
			  PROT_READ,
			  PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA),
		   "synth: the read-only bash mapping as data (DATA_MAPS)");
	ok(is_map(k, i++, "/usr/bin/bash", 0x55d000001000ULL, 0x1000, 0x1000,
		  PROT_READ | PROT_EXEC, PERF_RECORD_MISC_USER),
	   "synth: MMAP2 of bash's text");
	ok(is_map(k, i++, "[vdso]", 0x7ffd00000000ULL, 0x2000, 0,
		  PROT_READ | PROT_EXEC, PERF_RECORD_MISC_USER),
	   "synth: MMAP2 of [vdso]");
	is_int(k->n, i, "synth: nothing for [heap], [vvar] (and no more)");
}

static void test_synth(void)
{
	struct recs k = {.n = 0};
	struct pfr_perf_session *s;
	struct pfr_perf_session_error e = {.sz = sizeof(e)};

	make_fixture();
	s = new_session(fx, 0, keep, &k);
	ok(s && pfr_perf_session_add_process(s, 100) == 0,
	   "synth: process 100 of the fixture");
	is_int(pfr_perf_session_synthesize(s), 5, "synth: 5 records queued");
	is_int(pfr_perf_session_drain(s, 1), 0, "synth: delivered");
	check_process(&k, 0);
	is_int(pfr_perf_session_add_process(s, 999), -PFR_PERF_E_NO_PROCESS,
	       "synth: a pid the fixture lacks");
	pfr_perf_session_last_error(s, &e);
	ok(e.step == PFR_PERF_STEP_PROCESS && e.pid == 999,
	   "synth: the error names the step and the pid");
	pfr_perf_session_destroy(s);

	memset(&k, 0, sizeof(k));
	s = new_session(fx, PFR_PERF_SESSION_DATA_MAPS, keep, &k);
	ok(s && pfr_perf_session_add_process(s, 100) == 0 &&
		   pfr_perf_session_synthesize(s) == 6 &&
		   pfr_perf_session_drain(s, 1) == 0,
	   "synth: DATA_MAPS adds readable data mappings");
	check_process(&k, 1);
	pfr_perf_session_destroy(s);

	/* A thread: its process, found through Tgid. */
	memset(&k, 0, sizeof(k));
	s = new_session(fx, 0, keep, &k);
	ok(s && pfr_perf_session_add_thread(s, 101) == 0 &&
		   pfr_perf_session_synthesize(s) == 5 &&
		   pfr_perf_session_drain(s, 1) == 0,
	   "synth: thread 101 synthesizes its process 100");
	check_process(&k, 0);
	pfr_perf_session_destroy(s);

	/* A user: every process (as CPU-wide). */
	memset(&k, 0, sizeof(k));
	s = new_session(fx, 0, keep, &k);
	is_int(pfr_perf_session_add_user(s, 4242), -PFR_PERF_E_NO_PROCESS,
	       "synth: a user without processes");
	is_int(pfr_perf_session_add_user(s, 1000), 0, "synth: user 1000");
	is_int(pfr_perf_session_synthesize(s), 7,
	       "synth: every process of the fixture (5 + 2 records)");
	pfr_perf_session_drain(s, 1);
	ok(k.n == 7 && k.d[6].type == PERF_RECORD_MMAP2 &&
		   k.d[6].u.mmap.pid == 200 &&
		   !strcmp(k.name[6], "/usr/bin/sleep"),
	   "synth: ... sleep's text among them");
	pfr_perf_session_destroy(s);
}

/* --- errors --- */

static void test_errors(void)
{
	struct pfr_perf_session *s = NULL;
	struct pfr_perf_session_error e = {.sz = sizeof(e)};
	struct pfr_perf_session_stats st;
	struct perf_event_attr a;
	struct {
		struct pfr_perf_session_opts o;
		uint64_t more;
	} big;
	struct pfr_perf_event_opts eo = {.sz = 1};
	char *argv0[] = {NULL};
	struct fake f;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	memset(&big, 0, sizeof(big));
	is_int(pfr_perf_session_create(NULL, NULL), -PFR_E_INVAL,
	       "create(NULL)");
	big.o.sz = 0;
	s = NULL;
	is_int(pfr_perf_session_create(&s, &big.o), 0,
	       "sz 0 is the current layout, as for every options struct");
	pfr_perf_session_destroy(s);
	big.o.sz = sizeof(big.o.sz) - 1;
	is_int(pfr_perf_session_create(&s, &big.o), -PFR_E_INVAL,
	       "sz smaller than the sz field itself");
	big.o.sz = sizeof(big);
	big.more = 1;
	is_int(pfr_perf_session_create(&s, &big.o), -PFR_E_INVAL,
	       "a larger struct with non-zero bytes past ours");
	big.more = 0;
	big.o.data_pages = 3;
	is_int(pfr_perf_session_create(&s, &big.o), -PFR_E_INVAL,
	       "data_pages not a power of two");
	/* An sz that stops before data_pages: the field is not read. */
	big.o.sz = offsetof(struct pfr_perf_session_opts, data_pages);
	is_int(pfr_perf_session_create(&s, &big.o), 0,
	       "a smaller sz: the fields past it are not read");
	pfr_perf_session_destroy(s);
	big.o.sz = sizeof(big);
	is_int(pfr_perf_session_create(&s, &big.o), -PFR_E_INVAL,
	       "a larger struct, zero past ours, data_pages 3 still refused");
	big.o.data_pages = 0;
	is_int(pfr_perf_session_create(&s, &big.o), 0,
	       "a larger struct, zero past ours");

	is_int(pfr_perf_session_add_event(NULL, &a, NULL), -PFR_E_INVAL,
	       "add_event(NULL)");
	is_int(pfr_perf_session_add_event(s, NULL, NULL), -PFR_E_INVAL,
	       "add_event(attr NULL)");
	is_int(pfr_perf_session_add_event(s, &a, &eo), -PFR_E_INVAL,
	       "add_event: bad sz");
	eo.sz = sizeof(eo);
	eo.flags = PFR_PERF_EVENT_GROUP_MEMBER;
	eo.leader = 0;
	is_int(pfr_perf_session_add_event(s, &a, &eo), -PFR_E_INVAL,
	       "add_event: a leader that is not an earlier event");
	is_int(pfr_perf_session_add_event(s, &a, NULL), 0, "add_event: 0");
	is_int(pfr_perf_session_add_event(s, &a, &eo), 1,
	       "add_event: a member of 0");
	ok(pfr_perf_session_attr(s, 0)->freq &&
		   pfr_perf_session_attr(s, 0)->sample_freq == 4000 &&
		   (pfr_perf_session_attr(s, 0)->sample_type & ST) == ST,
	   "add_event: 4000 Hz and the session's sample bits by default");
	ok(!strcmp(pfr_perf_session_event_name(s, 0), "cpu-clock") &&
		   !strcmp(pfr_perf_session_event_name(s, 9), "?") &&
		   !pfr_perf_session_attr(s, 9) &&
		   pfr_perf_session_nr_events(s) == 2 &&
		   pfr_perf_session_nr_events(NULL) == 0,
	   "event accessors, in and out of range");

	is_int(pfr_perf_session_set_cpus(NULL, "0"), -PFR_E_INVAL,
	       "set_cpus(NULL)");
	is_int(pfr_perf_session_set_cpus(s, "1-0"), -PFR_E_INVAL,
	       "set_cpus: a reversed range");
	is_int(pfr_perf_session_set_cpus(s, "x"), -PFR_E_INVAL,
	       "set_cpus: not a list");
	is_int(pfr_perf_session_set_cpus(s, "0,99999"), -PFR_PERF_E_CPU,
	       "set_cpus: a CPU that is not online");
	pfr_perf_session_last_error(s, &e);
	ok(e.step == PFR_PERF_STEP_CPU && e.cpu == 99999,
	   "set_cpus: the error names the CPU");
	is_int(pfr_perf_session_set_cpus(s, "0"), 0, "set_cpus: CPU 0");

	is_int(pfr_perf_session_add_thread(s, 0), -PFR_E_INVAL, "thread 0");
	is_int(pfr_perf_session_add_process(s, -5), -PFR_E_INVAL, "pid -5");
	is_int(pfr_perf_session_start_command(s, NULL), -PFR_E_INVAL,
	       "start_command(NULL)");
	is_int(pfr_perf_session_start_command(s, argv0), -PFR_E_INVAL,
	       "start_command: empty argv");
	is_int(pfr_perf_session_enable(s), -PFR_E_INVAL, "enable before open");
	is_int(pfr_perf_session_run(s), -PFR_E_INVAL, "run before open");
	is_int(pfr_perf_session_poll(s, 0), -PFR_E_INVAL, "poll before open");
	is_int(pfr_perf_session_write_file(s, "/dev/null", 0, NULL),
	       -PFR_E_INVAL, "write_file before open");
	fake_init(&f, 0);
	f.pg->data_size = 3000;
	is_int(pfr_perf_session_add_ring(s, f.mem, f.len, 0), -PFR_E_LAYOUT,
	       "add_ring: data_size not a power of two");
	is_int(pfr_perf_session_add_ring(s, f.mem, 64, 0), -PFR_E_INVAL,
	       "add_ring: shorter than the mmap page");
	free(f.mem);

	memset(&st, 0xa5, sizeof(st));
	st.sz = offsetof(struct pfr_perf_session_stats, bytes);
	is_int(pfr_perf_session_stats(s, &st), 0, "stats: a small sz");
	ok(st.records == 0 && st.bytes == 0xa5a5a5a5a5a5a5a5ULL,
	   "stats: only the fields within sz are written");
	memset(&st, 0xa5, sizeof(st));
	st.sz = 0;
	is_int(pfr_perf_session_stats(s, &st), 0, "stats: sz 0");
	ok(st.records == 0 && st.bytes == 0,
	   "stats: sz 0 fills the whole current struct");
	is_int(pfr_perf_session_stats(NULL, &st), -PFR_E_INVAL, "stats(NULL)");
	is_int(pfr_perf_session_drain(NULL, 1), -PFR_E_INVAL, "drain(NULL)");
	is_int(pfr_perf_session_synthesize(NULL), -PFR_E_INVAL,
	       "synthesize(NULL)");
	pfr_perf_session_request(NULL, PFR_PERF_REQ_STOP);
	pfr_perf_session_destroy(NULL);
	ok(strcmp(pfr_perf_strerror(-PFR_PERF_E_OPEN), "?") &&
		   strcmp(pfr_perf_strerror(-PFR_PERF_E_EXEC),
			  pfr_perf_strerror(-PFR_PERF_E_OPEN)),
	   "the session's errors have names");
	pfr_perf_session_destroy(s);
}

int main(void)
{
	test_merge();
	test_synth();
	test_errors();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx);
		if (system(cmd))
			tap_diag("could not remove %s", fx);
	}
	return tap_done();
}
