/* SPDX-License-Identifier: MIT */
/*
 * perfring bench - perfring's ring against the peers and against the
 * machine's physical limits, in one run.
 *
 * Method: the producer runs on one CPU, the consumer on another (pinned);
 * every contestant and payload (a "cell") first runs once as warm-up, which
 * also sizes the runs to a target duration; then the repetitions go round
 * all cells in turn (A B C ... A B C ...), each run bracketed by two
 * cache-line round-trip probes (see "placement" below: the host moves the
 * vCPUs, and every result is taken from one placement).  Every delivered
 * message is verified (sequence number and a sum over all its words).  A
 * run in which a bench thread was preempted (involuntary context switches
 * while it got less than 90% of the CPU) or the host stole more than 5% of
 * the CPUs, or whose placement changed during it, is repeated, up to
 * twice; "busy" flags a result whose runs stayed preempted, "few-runs" one
 * with fewer than --reps runs in the reported placement.  Reported: the
 * median and the range over the repetitions.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/barrier.h>
#include <perfring/common.h>
#include <perfring/ring.h>

#include "../cli/cli.h"
#include "bench.h"
#include "bench_cmd.h"
#include "probes.h"

#ifndef PFR_BENCH_CFLAGS
#define PFR_BENCH_CFLAGS "unknown"
#endif

#define MAX_REPS 64

struct cell {
	const struct pfr_bench_queue *q;
	size_t payload;
	unsigned batch;
	uint64_t n; /* messages per run (from the warm-up) */
	int unsupported; /* setup refused this payload */
	int nreps;
	double mps[MAX_REPS]; /* msgs/s per repetition */
	double rtt[MAX_REPS]; /* round trip around the run (geometric mean of
			       * the probes right before and after it) */
	int ok[MAX_REPS]; /* 0: the placement changed during the run */
	int busy, drift; /* drift: fewer runs than --reps in the reference
			  * placement */
	int other; /* runs left out: another placement, or moved */
	uint64_t messages, lost, sent;
	double secs; /* measured run time, all repetitions */
	long sleeps[2]; /* producer, consumer: voluntary context
				    * switches (futex sleeps), all runs */
	int failed; /* a run failed or did not verify */
	char why[96];
};

struct lat_cell {
	int ordering, policy;
	size_t payload;
	int nreps;
	double p50[MAX_REPS], p99[MAX_REPS], rtt[MAX_REPS];
	int verified, failed, other;
};

struct opts {
	int quick, json, csv, reps, threads, processes, peers;
	unsigned long long single; /* --single-thread: messages */
	double wait_idle; /* --wait-idle: seconds, per round */
	int placement, reference; /* the placement being printed */
	double run_ms;
	size_t capacity;
	const char *plot;
	const char *sweep_data; /* --capacities' child: rows to append */
	const char *only;
	int payload_on[PFR_BENCH_NPAYLOADS];
};

/* ---- small helpers ---- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(const double *v, int n, double *lo, double *hi)
{
	double t[MAX_REPS];

	if (n <= 0) {
		if (lo)
			*lo = 0;
		if (hi)
			*hi = 0;
		return 0;
	}
	memcpy(t, v, (size_t)n * sizeof(double));
	qsort(t, (size_t)n, sizeof(double), cmp_d);
	if (lo)
		*lo = t[0];
	if (hi)
		*hi = t[n - 1];
	return n & 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static const char *ord_name(int o)
{
	return o < 0 ? "" : pfr_ordering_name((enum pfr_ordering)o);
}

static const char *pol_name(int p)
{
	return p < 0 ? "" : pfr_policy_name((enum pfr_policy)p);
}

/* "perfring acqrel batch", "rte_ring burst", "perfring acqrel drop" ... */
static void label(char *buf, size_t len, const struct pfr_bench_queue *q)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", q->name,
		 q->ordering >= 0 ? " " : "", ord_name(q->ordering),
		 q->variant[0] ? " " : "", q->variant,
		 q->policy == PFR_POLICY_DROP ? " drop" : "",
		 q->processes ? " processes" : "", "");
}

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c || (strncmp(line, "model name", 10) &&
			   strncmp(line, "Processor", 9) &&
			   strncmp(line, "cpu model", 9) &&
			   strncmp(line, "uarch", 5)))
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		c[strcspn(c, "\n")] = 0;
		snprintf(buf, len, "%s", c);
		break;
	}
	fclose(f);
}

static const char *compiler(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}

static uint64_t pattern_body_sum(const uint64_t *m, size_t words)
{
	uint64_t s = 0;

	for (size_t i = 1; i + 1 < words; i++)
		s += m[i];
	return s;
}

/* Under ThreadSanitizer (which barrier.h answers with the C11 backend)
 * the orderings built on standalone fences - FULL, and CTRLDEP's A - are
 * left out: TSan does not model fences and reports races that are not
 * there.  ACQREL (acquire loads, release stores) it checks fully. */
static int tsan_ok(int ordering)
{
#ifdef PFR__TSAN
	return ordering != PFR_ORDER_FULL && ordering != PFR_ORDER_CTRLDEP;
#else
	(void)ordering;
	return 1;
#endif
}

/* Share of the two bench CPUs' time spent busy (not idle) over ms
 * milliseconds while this process sleeps; 0 when /proc/stat is
 * unreadable. */
static double busy_share(int ms)
{
	struct pfr_bench_cpustat a, b;
	double busy, tot;

	if (pfr_bench_cpustat(&a))
		return 0;
	usleep((useconds_t)ms * 1000);
	if (pfr_bench_cpustat(&b))
		return 0;
	busy = (double)(b.busy - a.busy) + (double)(b.steal - a.steal);
	tot = busy + (double)(b.idle - a.idle);
	return tot > 0 ? busy / tot : 0;
}

/* --wait-idle: waits up to secs seconds for the two CPUs to be less than
 * 10% busy over half a second; returns the last share measured. */
static double wait_idle(double secs)
{
	uint64_t t0 = pfr_bench_now_ns();
	double share = busy_share(500);
	int said = 0;

	while (share > 0.10 && (double)(pfr_bench_now_ns() - t0) / 1e9 < secs) {
		if (!said++)
			fprintf(stderr,
				"perfring bench: the CPUs are %.0f%% busy: "
				"waiting up to %.0f s for them to be idle\n",
				100 * share, secs);
		share = busy_share(500);
	}
	return share;
}

/* ---- the contestants of this build ---- */

static const struct pfr_bench_queue *all_queues[64];
static int nqueues;

static void add_table(const struct pfr_bench_queue *t)
{
	for (; t && t->name; t++)
		if (nqueues < (int)(sizeof(all_queues) / sizeof(all_queues[0])))
			all_queues[nqueues++] = t;
}

static void collect_queues(void)
{
	nqueues = 0;
	add_table(pfr_bench_perfring);
	add_table(pfr_bench_perfring_walimit);
#ifdef PFR_BENCH_HAVE_DPDK
	add_table(pfr_bench_dpdk);
#endif
#ifdef PFR_BENCH_HAVE_CK
	add_table(pfr_bench_ck);
#endif
#ifdef PFR_BENCH_HAVE_CXX
	add_table(pfr_bench_cxx);
#endif
	add_table(pfr_bench_mutex);
}

static int name_selected(const char *list, const char *name)
{
	size_t n = strlen(name);

	if (!list)
		return 1;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return 1;
		p += k;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* The first name in an --only list that names no contestant (by name or
 * label) into buf, or NULL when all do.  An empty name is unknown too. */
static const char *only_unknown(const char *list, char *buf, size_t len)
{
	char lab[128];

	collect_queues();
	for (const char *p = list;;) {
		size_t k = strcspn(p, ",");
		int found = k == 8 && !strncmp(p, "perfring", 8);

		for (int i = 0; i < nqueues && !found; i++) {
			label(lab, sizeof(lab), all_queues[i]);
			found = (strlen(all_queues[i]->name) == k &&
				 !strncmp(p, all_queues[i]->name, k)) ||
				(strlen(lab) == k && !strncmp(p, lab, k));
		}
		if (!found) {
			snprintf(buf, len, "%.*s", (int)k, p);
			return buf;
		}
		p += k;
		if (!*p++)
			return NULL;
	}
}

/* ---- one run, with the busy check and retries ---- */

struct run_out {
	long sleeps[2];
	double mps, wall_ms, window_ms;
	int ok, busy;
	uint64_t delivered, lost, sent;
	char why[96];
};

static const uint64_t *msg_pattern;

static int one_run(const struct cell *c, uint64_t n, size_t capacity,
		   struct run_out *o)
{
	struct pfr_bench_run run;
	struct pfr_bench_cpustat s0, s1;
	int err, have_stat;
	uint64_t w0;
	double wall;

	memset(&run, 0, sizeof(run));
	memset(o, 0, sizeof(*o));
	run.n = n;
	/* DROP: the consumer may receive fewer than n/8 messages; its
	 * clock starts at the first one */
	run.warm = n / 8 && c->q->policy != PFR_POLICY_DROP ? n / 8 : 1;
	run.payload = c->payload;
	run.capacity = capacity;
	run.batch = c->q->batched ? c->batch : 1;
	run.rbatch = c->q->reader_single ? 1 : c->batch;
	run.ordering = c->q->ordering;
	run.policy = c->q->policy;
	run.msg = msg_pattern;
	run.body_sum = pattern_body_sum(msg_pattern, c->payload / 8);
	have_stat = pfr_bench_cpustat(&s0) == 0;
	w0 = pfr_bench_now_ns();
	if (c->q->run_pair)
		err = c->q->run_pair(c->q, &run);
	else
		err = pfr_bench_run_threads(c->q, &run);
	wall = (double)(pfr_bench_now_ns() - w0);
	o->wall_ms = wall / 1e6;
	o->sleeps[0] = run.nvcsw[0];
	o->sleeps[1] = run.nvcsw[1];
	o->delivered = run.delivered;
	o->lost = run.lost;
	o->sent = n;
	if (err == -2) {
		snprintf(o->why, sizeof(o->why), "unsupported");
		return -2;
	}
	if (err || run.error) {
		snprintf(o->why, sizeof(o->why), "run failed (%d: %s)",
			 run.error ? run.error : err,
			 run.error ? pfr_strerror(run.error) : "setup");
		return -1;
	}
	if (run.bad) {
		snprintf(o->why, sizeof(o->why),
			 "%llu messages failed verification (first: seq %llu)",
			 (unsigned long long)run.bad,
			 (unsigned long long)run.bad_seq);
		return -1;
	}
	if (run.delivered + run.lost != n ||
	    (c->q->policy != PFR_POLICY_DROP && run.lost)) {
		snprintf(o->why, sizeof(o->why),
			 "delivered %llu + lost %llu != sent %llu",
			 (unsigned long long)run.delivered,
			 (unsigned long long)run.lost, (unsigned long long)n);
		return -1;
	}
	o->ok = 1;
	if (run.t0 && run.t1 > run.t0 && run.timed &&
	    run.timed <= run.delivered) {
		o->mps = (double)run.timed * 1e9 / (double)(run.t1 - run.t0);
		o->window_ms = (double)(run.t1 - run.t0) / 1e6;
	} else {
		o->mps = (double)run.delivered * 1e9 / wall;
		o->window_ms = wall / 1e6;
	}
	for (int i = 0; i < 2; i++)
		if (run.nivcsw[i] >= 2 && run.share[i] < 0.9)
			o->busy = 1;
	if (have_stat && pfr_bench_cpustat(&s1) == 0) {
		double tot = (double)(s1.busy - s0.busy) +
			     (double)(s1.idle - s0.idle) +
			     (double)(s1.steal - s0.steal);

		if (tot > 0 && (double)(s1.steal - s0.steal) / tot > 0.05)
			o->busy = 1;
	}
	return 0;
}

/* ---- output ---- */

static void json_kv_str(FILE *f, const char *k, const char *v, int comma)
{
	fprintf(f, "%s\"%s\":", comma ? "," : "", k);
	pfr_cli_json_str(f, v);
}

/* A placement of the two vCPUs: a band of cache-line round trips. */
struct band {
	double lo, hi;
	int runs; /* runs (throughput and latency) in the band */
	int full; /* contestants with at least --reps runs in it */
};
#define MAX_BANDS 8

struct meta {
	char cpu[256], kernel[256];
	int ncpu;
	double rtt_min, rtt_max;
	struct band bands[MAX_BANDS];
	int nbands, ref; /* ref: the placement the results come from */
	int busy_start;
	double busy_start_share;
};

static double cell_rtt(const struct cell *c)
{
	return median(c->rtt, c->nreps, NULL, NULL);
}

static void cell_stats(const struct cell *c, double *med, double *lo,
		       double *hi)
{
	double v[MAX_REPS];
	int k = 0;

	for (int i = 0; i < c->nreps; i++)
		if (c->ok[i])
			v[k++] = c->mps[i];
	*med = median(v, k, lo, hi);
}

static void flags_str(char *buf, size_t len, int busy, int drift, int failed)
{
	snprintf(buf, len, "%s%s%s%s%s", busy ? "busy" : "",
		 busy && drift ? "," : "", drift ? "few-runs" : "",
		 (busy || drift) && failed ? "," : "", failed ? "failed" : "");
}

/* ---- plot ---- */

static int write_plot(const char *file, struct cell *cells, int ncells,
		      const double *memcpy_gbps, const struct meta *m,
		      const struct opts *op)
{
	char dir[] = "/tmp/perfring-plot.XXXXXX", path[512], lab[96];
	const char *ext = strrchr(file, '.');
	const char *term;
	FILE *gp;
	int series = 0, status;
	pid_t pid;

	if (ext && !strcmp(ext, ".svg"))
		term = "svg size 1400,640 dynamic font 'sans,11'";
	else
		term = "pngcairo size 1400,640 font 'sans,10'";
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	gp = fopen(path, "w");
	if (!gp)
		return -1;
	fprintf(gp, "set terminal %s noenhanced\nset output '%s'\n", term,
		file);
	fprintf(gp,
		"set multiplot layout 1,2 title 'perfring bench: %s, "
		"producer CPU%d, consumer CPU%d, capacity %zu KiB (1 MiB "
		"for 64 KiB); vCPU placement: round trip %.0f-%.0f ns'\n",
		m->cpu, pfr_bench_cpu[0], pfr_bench_cpu[1], op->capacity / 1024,
		m->nbands ? m->bands[m->ref].lo : 0,
		m->nbands ? m->bands[m->ref].hi : 0);
	fprintf(gp, "set logscale xy\nset grid\nset key outside bottom center "
		    "horizontal maxrows 6 font ',8'\n"
		    "set xlabel 'payload bytes'\n"
		    "set xtics ('8' 8, '64' 64, '256' 256, '1K' 1024, '4K' "
		    "4096, '64K' 65520)\n");
	/* one data file per series */
	for (int i = 0; i < ncells; i++) {
		FILE *d;

		if (i && cells[i].q == cells[i - 1].q)
			continue;
		snprintf(path, sizeof(path), "%s/s%d.dat", dir, series++);
		d = fopen(path, "w");
		if (!d)
			break;
		for (int j = i; j < ncells && cells[j].q == cells[i].q; j++) {
			double med, lo, hi;

			if (cells[j].unsupported || cells[j].failed)
				continue;
			cell_stats(&cells[j], &med, &lo, &hi);
			fprintf(d, "%zu %g %g %g %g\n", cells[j].payload,
				med / 1e6, lo / 1e6, hi / 1e6,
				med * (double)cells[j].payload / 1e9);
		}
		fclose(d);
	}
	snprintf(path, sizeof(path), "%s/memcpy.dat", dir);
	{
		FILE *d = fopen(path, "w");

		if (d) {
			for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
				if (op->payload_on[p] && memcpy_gbps[p] > 0)
					fprintf(d, "%zu %g\n",
						pfr_bench_payloads[p],
						memcpy_gbps[p]);
			fclose(d);
		}
	}
	for (int panel = 0; panel < 2; panel++) {
		int s = 0;

		fprintf(gp, "set ylabel '%s'\nplot ",
			panel ? "GB/s (payload bytes)"
			      : "million messages / s (median)");
		for (int i = 0; i < ncells; i++) {
			if (i && cells[i].q == cells[i - 1].q)
				continue;
			label(lab, sizeof(lab), cells[i].q);
			/* perfring solid, the peers dashed */
			fprintf(gp,
				"%s'%s/s%d.dat' using 1:%d with linespoints "
				"lw %s dt %d pt %d lc %d title '%s'",
				s ? ", " : "", dir, s, panel ? 5 : 2,
				strcmp(cells[i].q->name, "perfring") ? "1.5"
								     : "2",
				strcmp(cells[i].q->name, "perfring") ? 2 : 1,
				1 + s % 13, 1 + s % 8, lab);
			s++;
		}
		if (panel)
			fprintf(gp,
				", '%s/memcpy.dat' using 1:2 with lines "
				"lw 3 lc rgb 'black' title 'memcpy "
				"(one core)'",
				dir);
		fprintf(gp, "\n");
	}
	fprintf(gp, "unset multiplot\n");
	fclose(gp);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/plot.gp", dir);
		execlp("gnuplot", "gnuplot", path, (char *)NULL);
		_exit(127);
	}
	status = -1;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	/* leave the script and data next to nothing: remove them */
	for (int s = 0; s < series; s++) {
		snprintf(path, sizeof(path), "%s/s%d.dat", dir, s);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/memcpy.dat", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	unlink(path);
	rmdir(dir);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
									: -1;
}

/* --capacities: appends this run's medians (reported placement) to the
 * sweep's data file: capacity payload med lo hi label. */
static void sweep_rows(const char *file, const struct cell *cells, int ncells,
		       const struct opts *op)
{
	FILE *f = fopen(file, "a");
	char lab[96];

	if (!f)
		return;
	for (int i = 0; i < ncells; i++) {
		double med, lo, hi;

		if (cells[i].unsupported || cells[i].failed || !cells[i].nreps)
			continue;
		cell_stats(&cells[i], &med, &lo, &hi);
		label(lab, sizeof(lab), cells[i].q);
		fprintf(f, "%zu %zu %g %g %g %s\n",
			PFR_BENCH_CAPACITY_FOR(op->capacity, cells[i].payload),
			cells[i].payload, med / 1e6, lo / 1e6, hi / 1e6, lab);
	}
	fclose(f);
}

/* ---- --single-thread: instruction counts per message ---- */

/* The producer loop writes k messages, then the consumer loop reads them,
 * on this one thread, until op->single messages went through: under
 * callgrind, each loop's inclusive instruction count divided by the
 * messages is its cost per message, free of the other CPU's noise.  k is
 * a quarter of the queue, so neither side ever waits. */
static int single_thread(struct cell *cells, int ncells, const struct opts *op)
{
	int rc = 0;

	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		struct pfr_bench_run run;
		size_t cap = PFR_BENCH_CAPACITY_FOR(op->capacity, c->payload);
		uint64_t k = cap / 4 / (c->payload + 8), done = 0;
		void *q;
		char lab[96];

		if (c->q->processes)
			continue;
		if (k > 1024)
			k = 1024;
		memset(&run, 0, sizeof(run));
		run.payload = c->payload;
		run.capacity = cap;
		run.batch = c->q->batched ? c->batch : 1;
		run.rbatch = c->q->reader_single ? 1 : c->batch;
		run.ordering = c->q->ordering;
		run.policy = c->q->policy;
		run.msg = msg_pattern;
		run.body_sum = pattern_body_sum(msg_pattern, c->payload / 8);
		run.n = k;
		run.warm = 1;
		label(lab, sizeof(lab), c->q);
		if (c->q->setup(&run, &q))
			continue;
		while (done < op->single) {
			c->q->produce(q, &run);
			c->q->consume(q, &run);
			if (run.error || run.bad || run.lost)
				break;
			done += k;
		}
		printf("%-34s %7zu %12llu messages%s\n", lab, c->payload,
		       (unsigned long long)done,
		       run.error || run.bad || run.lost ? " FAILED" : "");
		if (run.error || run.bad || run.lost)
			rc = 1;
		c->q->teardown(q);
	}
	return rc;
}

/* The targets, as ratios within this run. */
static void emit_targets(FILE *out, const struct opts *opp,
			 const struct cell *cells, int ncells,
			 const struct lat_cell *lats, int nlats,
			 const double *memcpy_gbps, const double *xcore_gbps,
			 double rtt_med)
{
	const struct opts op = *opp;
	char lab[96];

	const struct cell *pr1[PFR_BENCH_NPAYLOADS] = {0},
			  *prb[PFR_BENCH_NPAYLOADS] = {0},
			  *fu1[PFR_BENCH_NPAYLOADS] = {0},
			  *fub[PFR_BENCH_NPAYLOADS] = {0};
	/* "single" (tail after every record): [policy][payload] */
	const struct cell *as[2][PFR_BENCH_NPAYLOADS] = {{0}},
			  *fs[2][PFR_BENCH_NPAYLOADS] = {{0}};
	const struct cell *best1 = NULL, *bestb = NULL, *burst = NULL,
			  *aq = NULL;
	double v, w, lo, hi;

	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		int p = pfr_bench_payload_index(c->payload);
		int pfr = !strncmp(c->q->name, "perfring", 8);

		/* no runs in this placement: no ratio either */
		if (c->unsupported || c->failed || p < 0 || !c->nreps)
			continue;
		/* the other variants ("next": the old reader, "wa-limit":
		 * the old write-ahead bound) are kept for comparison: the
		 * targets use the default rows */
		if (pfr && !strcmp(c->q->name, "perfring") &&
		    !c->q->processes && !c->q->reader_single &&
		    (!strcmp(c->q->variant, "") ||
		     !strcmp(c->q->variant, "batch")) &&
		    c->q->policy == PFR_POLICY_BLOCK) {
			if (c->q->ordering == PFR_ORDER_ACQREL)
				*(c->q->batched ? &prb[p] : &pr1[p]) = c;
			if (c->q->ordering == PFR_ORDER_FULL)
				*(c->q->batched ? &fub[p] : &fu1[p]) = c;
		}
		if (pfr && !strcmp(c->q->name, "perfring") &&
		    !c->q->processes && c->q->reader_single &&
		    c->q->policy >= 0 && c->q->policy < 2) {
			if (c->q->ordering == PFR_ORDER_ACQREL)
				as[c->q->policy][p] = c;
			if (c->q->ordering == PFR_ORDER_FULL)
				fs[c->q->policy][p] = c;
		}
		if (pfr || c->payload != 8)
			continue;
		cell_stats(c, &v, &lo, &hi);
		if (!c->q->batched) {
			if (!best1 || (cell_stats(best1, &w, &lo, &hi), v > w))
				best1 = c;
		} else if (!bestb || (cell_stats(bestb, &w, &lo, &hi), v > w)) {
			bestb = c;
		}
		if (!strcmp(c->q->name, "rte_ring") && c->q->batched)
			burst = c;
		if (!strcmp(c->q->name, "atomic_queue"))
			aq = c;
	}
#define T_OPEN(name)                                                           \
	do {                                                                   \
		if (op.json)                                                   \
			fprintf(out,                                           \
				"{\"kind\":\"target\",\"target\":\"%s\","      \
				"\"placement\":%d,\"reference\":%s",           \
				name, op.placement,                            \
				op.reference ? "true" : "false");              \
	} while (0)
	if (!op.json && !op.csv)
		fprintf(out, "\ntargets (ratios within this run and placement; "
			     "perfring = acqrel, BLOCK, threads)\n");
	if (pr1[0] && (best1 || aq)) {
		const struct cell *peer = best1;
		double a, b;

		cell_stats(pr1[0], &a, &lo, &hi);
		cell_stats(peer, &b, &lo, &hi);
		label(lab, sizeof(lab), peer->q);
		T_OPEN("8B unbatched >= best unbatched peer");
		if (op.json)
			fprintf(out,
				",\"ratio\":%.3f,"
				"\"peer\":\"%s\",\"met\":%s}\n",
				a / b, lab, a >= b ? "true" : "false");
		else if (!op.csv)
			fprintf(out,
				"  8 B per-record vs best "
				"unbatched peer (%s): "
				"%.1f / %.1f M/s = %.2fx "
				"%s\n",
				lab, a / 1e6, b / 1e6, a / b,
				a >= b ? "MET" : "missed");
		if (aq && aq != peer && !op.csv) {
			cell_stats(aq, &b, &lo, &hi);
			if (!op.json)
				fprintf(out,
					"  8 B per-record "
					"vs atomic_queue: "
					"%.2fx\n",
					a / b);
		}
	}
	if (prb[0] && (burst || bestb)) {
		const struct cell *peer = burst ? burst : bestb;
		double a, b;

		cell_stats(prb[0], &a, &lo, &hi);
		cell_stats(peer, &b, &lo, &hi);
		label(lab, sizeof(lab), peer->q);
		T_OPEN("8B batched >= rte_ring burst");
		if (op.json)
			fprintf(out,
				",\"ratio\":%.3f,"
				"\"peer\":\"%s\",\"met\":%s}\n",
				a / b, lab, a >= b ? "true" : "false");
		else if (!op.csv)
			fprintf(out,
				"  8 B batched vs %s: "
				"%.1f / %.1f M/s = %.2fx "
				"%s\n",
				lab, a / 1e6, b / 1e6, a / b,
				a >= b ? "MET" : "missed");
	}
	for (int p = 4; p < PFR_BENCH_NPAYLOADS; p++) {
		for (int bt = 0; bt < 2; bt++) {
			const struct cell *c = bt ? prb[p] : pr1[p];
			double a, g;

			if (!c || memcpy_gbps[p] <= 0)
				continue;
			cell_stats(c, &a, &lo, &hi);
			g = a * (double)c->payload / 1e9;
			T_OPEN(">= half memcpy bandwidth");
			if (op.json)
				fprintf(out,
					",\"payload_bytes\":%zu,"
					"\"batched\":%s,"
					"\"ratio\":%.3f,"
					"\"gbytes_per_s\":%.2f,"
					"\"memcpy_gbytes_per_s\""
					":%.2f,"
					"\"xcore_gbytes_per_s\""
					":%.2f,\"met\":%s}\n",
					c->payload, bt ? "true" : "false",
					g / memcpy_gbps[p], g, memcpy_gbps[p],
					xcore_gbps[p == 5],
					g >= memcpy_gbps[p] / 2 ? "true"
								: "false");
			else if (!op.csv)
				fprintf(out,
					"  %zu B %s: %.1f GB/s "
					"vs memcpy %.1f GB/s "
					"= %.2fx (target "
					"0.5x) %s; vs "
					"cross-core read %.1f "
					"GB/s = %.2fx\n",
					c->payload,
					bt ? "batched" : "per-record", g,
					memcpy_gbps[p], g / memcpy_gbps[p],
					g >= memcpy_gbps[p] / 2 ? "MET"
								: "missed",
					xcore_gbps[p == 5],
					xcore_gbps[p == 5] > 0
						? g / xcore_gbps[p == 5]
						: 0);
		}
	}
	for (int i = 0; i < nlats; i++) {
		const struct lat_cell *l = &lats[i];
		double p50, one, ratio[MAX_REPS];

		if (l->ordering != PFR_ORDER_ACQREL || l->payload != 8 ||
		    !l->nreps)
			continue;
		/* each repetition against the round trip measured just
		 * before it; the median of those ratios */
		for (int r = 0; r < l->nreps; r++)
			ratio[r] = l->p50[r] / (l->rtt[r] / 2);
		p50 = median(l->p50, l->nreps, NULL, NULL);
		one = p50 / median(ratio, l->nreps, NULL, NULL);
		(void)rtt_med;
		T_OPEN("latency p50 <= 1.5x one-way");
		if (op.json)
			fprintf(out,
				",\"policy\":\"%s\",\"ratio\":"
				"%.3f,\"latency_ns_p50\":%.1f,"
				"\"one_way_ns\":%.1f,\"met\":"
				"%s}\n",
				pol_name(l->policy), p50 / one, p50, one,
				p50 <= 1.5 * one ? "true" : "false");
		else if (!op.csv)
			fprintf(out,
				"  latency p50, 8 B, acqrel "
				"%s: %.1f ns vs one-way "
				"cache line %.1f ns = %.2fx "
				"(target 1.5x) %s\n",
				pol_name(l->policy), p50, one, p50 / one,
				p50 <= 1.5 * one ? "MET" : "missed");
	}
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		for (int bt = 0; bt < 2; bt++) {
			const struct cell *a = bt ? prb[p] : pr1[p];
			const struct cell *f = bt ? fub[p] : fu1[p];
			double x, y;

			if (!a || !f)
				continue;
			cell_stats(a, &x, &lo, &hi);
			cell_stats(f, &y, &lo, &hi);
			T_OPEN("acqrel / full");
			if (op.json)
				fprintf(out,
					",\"payload_bytes\":%zu,"
					"\"batched\":%s,"
					"\"ratio\":%.3f}\n",
					a->payload, bt ? "true" : "false",
					x / y);
			else if (!op.csv)
				fprintf(out,
					"  acqrel / full, %zu B "
					"%s: %.2fx\n",
					a->payload,
					bt ? "batched" : "per-record", x / y);
		}
	}
	/* per-record on both sides: the reader publishes tail (D) after
	 * every record, as the 2013 code's reader did */
	for (int pol = 0; pol < 2; pol++) {
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
			const struct cell *a = as[pol][p], *f = fs[pol][p];
			double x, y;

			if (!a || !f)
				continue;
			cell_stats(a, &x, &lo, &hi);
			cell_stats(f, &y, &lo, &hi);
			T_OPEN("acqrel / full, tail per record");
			if (op.json)
				fprintf(out,
					",\"payload_bytes\":%zu,\"policy\":"
					"\"%s\",\"ratio\":%.3f}\n",
					a->payload, pol_name(pol), x / y);
			else if (!op.csv)
				fprintf(out,
					"  acqrel / full, %zu B, tail per "
					"record, %s: %.2fx\n",
					a->payload, pol_name(pol), x / y);
		}
	}
}

/* ---- the command ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring bench [options]\n"
		"\n"
		"Throughput of perfring's ring (each ordering, per-record and "
		"batched\npublication, BLOCK and DROP, threads and processes) "
		"and of the peers\nlinked into this build, with payloads of 8, "
		"64, 256, 1024, 4096 and\n65520 bytes (the largest a perf "
		"record carries: its u16 size is 65528\nwith the 8-byte "
		"header); one-way latency over two rings; and the\nmachine's "
		"limits: cache-line round trip, memcpy bandwidth, barrier "
		"costs.\n"
		"\n"
		"  --quick            short runs (well under a minute)\n"
		"  --reps N           repetitions per result (default 5, "
		"minimum 1)\n"
		"  --time MS          target duration of one run (default "
		"200, quick 12)\n"
		"  --cpus A,B         producer and consumer CPUs (default "
		"0,1)\n"
		"  --capacity BYTES   queue capacity, a power of two (default "
		"256Ki;\n"
		"                     at least 16 records: 1 MiB for 65520 "
		"bytes)\n"
		"  --capacities LIST  the whole run once per capacity, e.g. "
		"32K,256K,4M\n"
		"                     (K, M: KiB, MiB); --plot then draws "
		"throughput\n"
		"                     against capacity\n"
		"  --payloads LIST    a subset of 8,64,256,1024,4096,65520\n"
		"  --only LIST        contestants by name (perfring,rte_ring,"
		"ck_ring,\n"
		"                     boost_spsc,atomic_queue,mutex_condvar) "
		"or by\n"
		"                     label as the table prints it (\"perfring "
		"acqrel batch\")\n"
		"  --threads          perfring between threads only\n"
		"  --processes        perfring between processes only (POSIX "
		"shared memory)\n"
		"  --no-peers         perfring only\n"
		"  --json             JSON Lines: a meta object, then one "
		"object per result\n"
		"  --csv              CSV, one row per result\n"
		"  --plot FILE        throughput against payload, PNG or SVG "
		"(gnuplot)\n"
		"  --single-thread N  no measurement: each contestant's "
		"producer and\n"
		"                     consumer loops alternate on one thread "
		"for N\n"
		"                     messages (for valgrind --tool=callgrind "
		"instruction\n"
		"                     counts per message)\n"
		"  --wait-idle S      before the run and before each round, "
		"wait up to S\n"
		"                     seconds for the two CPUs to be idle "
		"(others' jobs)\n"
		"  -h, --help         this text\n"
		"  --writers LIST     many writers, one reader: a bench of its "
		"own\n                     (perfring bench --writers 1 --help)\n"
		"\n"
		"Each run sits between two cache-line round-trip probes; a run "
		"during which\nthe host moved the vCPUs is repeated, and results "
		"are grouped by placement\n(round trip): ratios compare "
		"contestants within one placement.\n"
		"A progress line goes to stderr.  Exit status: 0, 1 when a "
		"run failed or\na message did not verify, 2 for a usage "
		"error.\n");
}

static int parse_payloads(const char *s, struct opts *o)
{
	memset(o->payload_on, 0, sizeof(o->payload_on));
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 0);
		int i;

		if (end == s)
			return -1;
		if (*end == 'K' || *end == 'k') {
			v *= 1024;
			end++;
		}
		if (v == 65536)
			v = PFR_BENCH_MAX_PAYLOAD;
		i = pfr_bench_payload_index(v);
		if (i < 0)
			return -1;
		o->payload_on[i] = 1;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

/* ---- placement ----
 *
 * The host moves the two vCPUs between physical cores: on the machines
 * this was written on, the cache-line round trip between them jumps
 * between about 55, 140 and 530 ns from one second to the next, and every
 * queue's throughput follows it (a cross-core transfer per cache line).
 * So each run is bracketed by two short round-trip probes; a run whose two
 * probes disagree by more than RTT_MOVED moved during the run and is not
 * used.  At the end the runs' round trips are grouped into placements (a
 * new group where the sorted values jump by more than RTT_GAP), and every
 * result, target and ratio comes from one placement: the one in which most
 * contestants have all their repetitions (then the most runs, then the
 * fastest).  Contestants short of repetitions there get extra rounds. */
#define RTT_MOVED 1.3
#define RTT_GAP 1.35

static int in_band(double rtt, const struct band *b)
{
	return rtt >= b->lo && rtt <= b->hi;
}

static int cell_runs_in(const struct cell *c, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < c->nreps; r++)
		k += c->ok[r] && in_band(c->rtt[r], b);
	return k;
}

static int lat_runs_in(const struct lat_cell *l, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < l->nreps; r++)
		k += in_band(l->rtt[r], b);
	return k;
}

/* Groups every run's round trip into placements; returns how many, with
 * the reference one in *ref. */
static int find_bands(const struct cell *cells, int ncells,
		      const struct lat_cell *lats, int nlats, int need,
		      struct band *b, int *ref)
{
	double *v;
	int n = 0, nb = 0, tot = 0;

	for (int i = 0; i < ncells; i++)
		tot += cells[i].nreps;
	for (int i = 0; i < nlats; i++)
		tot += lats[i].nreps;
	*ref = 0;
	v = (double *)malloc(((size_t)tot + 1) * sizeof(double));
	if (!v)
		return 0;
	for (int i = 0; i < ncells; i++)
		for (int r = 0; r < cells[i].nreps; r++)
			if (cells[i].ok[r])
				v[n++] = cells[i].rtt[r];
	for (int i = 0; i < nlats; i++)
		for (int r = 0; r < lats[i].nreps; r++)
			v[n++] = lats[i].rtt[r];
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	for (int i = 0; i < n; i++) {
		if (nb && (v[i] <= RTT_GAP * b[nb - 1].hi || nb == MAX_BANDS)) {
			b[nb - 1].hi = v[i];
			continue;
		}
		memset(&b[nb], 0, sizeof(b[nb]));
		b[nb].lo = b[nb].hi = v[i];
		nb++;
	}
	free(v);
	for (int k = 0; k < nb; k++) {
		for (int i = 0; i < ncells; i++) {
			int m = cell_runs_in(&cells[i], &b[k]);

			b[k].runs += m;
			b[k].full += m >= need;
		}
		for (int i = 0; i < nlats; i++) {
			int m = lat_runs_in(&lats[i], &b[k]);

			b[k].runs += m;
			b[k].full += m >= need;
		}
		if (b[k].full > b[*ref].full ||
		    (b[k].full == b[*ref].full && b[k].runs > b[*ref].runs))
			*ref = k; /* ties: the first, the fastest */
	}
	return nb;
}

/* Keeps the runs in band b only (at the front of the arrays). */
static void keep_band(struct cell *c, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < c->nreps; r++) {
		if (!c->ok[r] || !in_band(c->rtt[r], b))
			continue;
		c->mps[k] = c->mps[r];
		c->rtt[k] = c->rtt[r];
		c->ok[k] = 1;
		k++;
	}
	c->other = c->nreps - k;
	c->nreps = k;
}

static void keep_band_lat(struct lat_cell *l, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < l->nreps; r++) {
		if (!in_band(l->rtt[r], b))
			continue;
		l->p50[k] = l->p50[r];
		l->p99[k] = l->p99[r];
		l->rtt[k] = l->rtt[r];
		k++;
	}
	l->other = l->nreps - k;
	l->nreps = k;
}

/* cells and lats <- the runs of all_* in band b (flags: few-runs). */
static void use_band(struct cell *cells, const struct cell *all_cells,
		     int ncells, struct lat_cell *lats,
		     const struct lat_cell *all_lats, int nlats,
		     const struct band *b, int reps)
{
	memcpy(cells, all_cells, (size_t)ncells * sizeof(*cells));
	memcpy(lats, all_lats, (size_t)nlats * sizeof(*lats));
	for (int i = 0; i < ncells; i++) {
		keep_band(&cells[i], b);
		cells[i].drift = !cells[i].unsupported && !cells[i].failed &&
				 cells[i].nreps < reps;
	}
	for (int i = 0; i < nlats; i++)
		keep_band_lat(&lats[i], b);
}

/* A placement other than the reference is printed too when most
 * contestants ran in it at least three times. */
static int band_reportable(const struct cell *all_cells, int ncells,
			   const struct band *b)
{
	int have = 0, active = 0;

	for (int i = 0; i < ncells; i++) {
		if (all_cells[i].unsupported || all_cells[i].failed)
			continue;
		active++;
		have += cell_runs_in(&all_cells[i], b) >= 3;
	}
	return active && 2 * have > active;
}

/* The round trip of the placement cells were kept for: the median of
 * the contestants' own (each the median of its runs); `none` when no
 * contestant ran there. */
static double placement_rtt(const struct cell *cells, int ncells, double none)
{
	double v[MAX_REPS];
	int n = 0;

	for (int i = 0; i < ncells && n < MAX_REPS; i++)
		if (cells[i].nreps)
			v[n++] = cell_rtt(&cells[i]);
	return n ? median(v, n, NULL, NULL) : none;
}

/* One probe of the round trip (a short one: about a millisecond). */
static double probe_rtt(int quick)
{
	double p50 = 0, mean;

	if (pfr_bench_rtt(quick ? 500 : 2000, &p50, &mean))
		return 0;
	return p50;
}

int pfr_bench_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"quick", no_argument, NULL, 'q'},
		{"json", no_argument, NULL, 'j'},
		{"csv", no_argument, NULL, 'c'},
		{"plot", required_argument, NULL, 'p'},
		{"reps", required_argument, NULL, 'r'},
		{"time", required_argument, NULL, 't'},
		{"cpus", required_argument, NULL, 'C'},
		{"capacity", required_argument, NULL, 'k'},
		{"payloads", required_argument, NULL, 'P'},
		{"only", required_argument, NULL, 'o'},
		{"threads", no_argument, NULL, 'T'},
		{"processes", no_argument, NULL, 'X'},
		{"no-peers", no_argument, NULL, 'N'},
		{"single-thread", required_argument, NULL, 'S'},
		{"wait-idle", required_argument, NULL, 'W'},
		{"capacities", required_argument, NULL, 'K'},
		{"sweep-data", required_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct opts op;
	struct meta m;
	struct cell *cells = NULL;
	struct lat_cell *lats = NULL;
	int ncells = 0, nlats = 0, opt, rc = 0;
	double memcpy_gbps[PFR_BENCH_NPAYLOADS] = {0};
	double xcore_gbps[2] = {0}; /* 256 KiB, 1 MiB working sets */
	double rtt_round[MAX_REPS], rtt_mean0 = 0;
	int max_rounds, nrounds = 0, nactive = 0;
	struct cell *all_cells = NULL;
	struct lat_cell *all_lats = NULL;
	struct pfr_bench_barrier_cost bar[16];
	int nbar = 0;
	uint64_t *pattern = NULL;
	int times_set = 0;
	char lab[96];
	FILE *out = stdout;

	memset(&op, 0, sizeof(op));
	op.reps = 5;
	op.run_ms = 200;
	op.capacity = PFR_BENCH_CAPACITY;
	op.peers = 1;
	for (int i = 0; i < PFR_BENCH_NPAYLOADS; i++)
		op.payload_on[i] = 1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		unsigned long long v;

		switch (opt) {
		case 'q':
			op.quick = 1;
			break;
		case 'j':
			op.json = 1;
			break;
		case 'c':
			op.csv = 1;
			break;
		case 'p':
			op.plot = optarg;
			break;
		case 'T':
			op.threads = 1;
			break;
		case 'X':
			op.processes = 1;
			break;
		case 'N':
			op.peers = 0;
			break;
		case 'W':
			if (pfr_cli_parse_u64(optarg, &v) || v > 86400)
				return pfr_cli_usage_error(
					"bench", "--wait-idle wants seconds");
			op.wait_idle = (double)v;
			break;
		case 'S':
			if (pfr_cli_parse_u64(optarg, &v) || v < 1)
				return pfr_cli_usage_error(
					"bench",
					"--single-thread wants a count");
			op.single = v;
			break;
		case 'o':
			op.only = optarg;
			break;
		case 'r':
			if (pfr_cli_parse_u64(optarg, &v) || v < 1 ||
			    v > MAX_REPS)
				return pfr_cli_usage_error("bench",
							   "--reps wants 1..%d",
							   MAX_REPS);
			op.reps = (int)v;
			break;
		case 't':
			if (pfr_cli_parse_u64(optarg, &v) || v < 1 || v > 60000)
				return pfr_cli_usage_error(
					"bench", "--time wants 1..60000 ms");
			op.run_ms = (double)v;
			times_set = 1;
			break;
		case 'C': {
			int a, b;
			char extra;

			if (sscanf(optarg, "%d,%d%c", &a, &b, &extra) != 2 ||
			    a < 0 || b < 0 || a == b || a >= CPU_SETSIZE ||
			    b >= CPU_SETSIZE)
				return pfr_cli_usage_error(
					"bench", "--cpus wants two different "
						 "CPU numbers, e.g. 0,1");
			pfr_bench_cpu[0] = a;
			pfr_bench_cpu[1] = b;
			break;
		}
		case 'k':
			if (pfr_cli_parse_u64(optarg, &v) || v < 4096 ||
			    v > (1ull << 30) || (v & (v - 1)))
				return pfr_cli_usage_error(
					"bench", "--capacity wants a power of "
						 "two from 4096 to 1Gi");
			op.capacity = (size_t)v;
			break;
		case 'P':
			if (parse_payloads(optarg, &op))
				return pfr_cli_usage_error(
					"bench", "--payloads wants a list of "
						 "8,64,256,1024,4096,65520");
			break;
		case 'D':
			op.sweep_data = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				return pfr_cli_usage_error(
					"bench",
					"option '-%c' is unknown or "
					"needs a value",
					optopt);
			return pfr_cli_usage_error(
				"bench",
				"unknown option or missing value in "
				"'%s'",
				argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pfr_cli_usage_error("bench", "unexpected argument '%s'",
					   argv[optind]);
	if (op.json && op.csv)
		return pfr_cli_usage_error(
			"bench", "--json and --csv exclude each other");
	if (op.threads && op.processes)
		return pfr_cli_usage_error(
			"bench",
			"--threads and --processes exclude each other");
	if (op.quick && !times_set)
		op.run_ms = 12;
	if (op.only) {
		char bad[64];

		if (only_unknown(op.only, bad, sizeof(bad)))
			return pfr_cli_usage_error(
				"bench",
				"--only: '%s' names no contestant in this "
				"build (see --help)",
				bad);
	}

	/* CPUs: pinning needs both CPUs in our affinity mask. */
	{
		cpu_set_t set;

		memset(&m, 0, sizeof(m));
		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set) ||
		    !CPU_ISSET(pfr_bench_cpu[0], &set) ||
		    !CPU_ISSET(pfr_bench_cpu[1], &set)) {
			pfr_bench_pinned = 0;
			fprintf(stderr,
				"perfring bench: CPUs %d and %d are not "
				"both available: running unpinned "
				"(results flagged)\n",
				pfr_bench_cpu[0], pfr_bench_cpu[1]);
		}
		m.ncpu = CPU_COUNT(&set);
	}
	cpu_model(m.cpu, sizeof(m.cpu));
	{
		struct utsname u;

		if (!uname(&u))
			snprintf(m.kernel, sizeof(m.kernel), "%s %s %s",
				 u.sysname, u.release, u.machine);
	}

	/* Is anything else busy on the two CPUs?  /proc/stat while we
	 * sleep; with --wait-idle, wait for them to calm down first. */
	m.busy_start_share = busy_share(op.quick ? 100 : 300);
	if (op.wait_idle > 0 && m.busy_start_share > 0.10)
		m.busy_start_share = wait_idle(op.wait_idle);
	m.busy_start = m.busy_start_share > 0.10;
	if (m.busy_start)
		fprintf(stderr,
			"perfring bench: warning: the bench CPUs were %.0f%% "
			"busy before the run: results will be noisy\n",
			100 * m.busy_start_share);

	pattern = (uint64_t *)pfr_bench_alloc(64, PFR_BENCH_MAX_PAYLOAD);
	if (!pattern)
		return 1;
	for (size_t i = 0; i < PFR_BENCH_MAX_PAYLOAD / 8; i++)
		pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	msg_pattern = pattern;

	collect_queues();
	cells = (struct cell *)calloc((size_t)nqueues * PFR_BENCH_NPAYLOADS,
				      sizeof(*cells));
	lats = (struct lat_cell *)calloc(4 * PFR_BENCH_NPAYLOADS,
					 sizeof(*lats));
	if (!cells || !lats) {
		free(pattern);
		free(cells);
		free(lats);
		return 1;
	}
	for (int i = 0; i < nqueues; i++) {
		const struct pfr_bench_queue *q = all_queues[i];
		int is_pfr = !strncmp(q->name, "perfring", 8);

		if (!is_pfr && !op.peers)
			continue;
		label(lab, sizeof(lab), q);
		if (!name_selected(op.only, q->name) &&
		    !name_selected(op.only, lab))
			continue;
		if (is_pfr && q->processes && op.threads)
			continue;
		if (is_pfr && !q->processes && op.processes)
			continue;
		if (is_pfr && !tsan_ok(q->ordering))
			continue;
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
			struct cell *c = &cells[ncells];
			size_t cap;

			if (!op.payload_on[p])
				continue;
			c->q = q;
			c->payload = pfr_bench_payloads[p];
			cap = PFR_BENCH_CAPACITY_FOR(op.capacity, c->payload);
			/* batches fill at most half the queue */
			c->batch = (unsigned)(cap / 2 / (c->payload + 8));
			if (c->batch > 32)
				c->batch = 32;
			if (c->batch < 1)
				c->batch = 1;
			ncells++;
		}
	}
	if (name_selected(op.only, "perfring") && !op.processes) {
		static const int lo[4][2] = {
			{PFR_ORDER_ACQREL, PFR_POLICY_BLOCK},
			{PFR_ORDER_CTRLDEP, PFR_POLICY_BLOCK},
			{PFR_ORDER_FULL, PFR_POLICY_BLOCK},
			{PFR_ORDER_ACQREL, PFR_POLICY_DROP},
		};

		for (int k = 0; k < 4; k++)
			for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
				if (!op.payload_on[p] || !tsan_ok(lo[k][0]))
					continue;
				lats[nlats].ordering = lo[k][0];
				lats[nlats].policy = lo[k][1];
				lats[nlats].payload = pfr_bench_payloads[p];
				lats[nlats].verified = 1;
				nlats++;
			}
	}

	if (op.single) {
		rc = single_thread(cells, ncells, &op);
		free(pattern);
		free(cells);
		free(lats);
		return rc;
	}

	/* ---- physical probes ---- */
	pfr_cli_progress("perfring bench: probes", 0, 0);
	pfr_bench_calibrate_ticks();
	{
		double p50, mean;

		if (pfr_bench_rtt(op.quick ? 20000 : 200000, &p50, &mean) == 0)
			rtt_mean0 = mean;
	}
	nbar = pfr_bench_barriers(bar, 16, op.quick ? 200000 : 2000000);
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		size_t cap;

		if (!op.payload_on[p])
			continue;
		cap = PFR_BENCH_CAPACITY_FOR(op.capacity,
					     pfr_bench_payloads[p]);
		memcpy_gbps[p] =
			pfr_bench_memcpy_gbps(pfr_bench_payloads[p], cap,
					      op.quick ? 10000000 : 100000000);
	}

	xcore_gbps[0] = pfr_bench_xcore_gbps(op.capacity, op.quick ? 50 : 400);
	xcore_gbps[1] = pfr_bench_xcore_gbps(
		PFR_BENCH_CAPACITY_FOR(op.capacity, PFR_BENCH_MAX_PAYLOAD),
		op.quick ? 20 : 100);

	/* ---- warm-up: one run per cell, which also sizes the runs ---- */
	for (int i = 0; i < ncells; i++) {
		struct cell *c = &cells[i];
		struct run_out o;
		size_t cap = PFR_BENCH_CAPACITY_FOR(op.capacity, c->payload);
		/* at least four passes over the queue per run */
		uint64_t nmin = 4 * (cap / (c->payload + 8)), n0 = nmin;
		int err = 0;

		if (nmin < 256)
			nmin = n0 = 256;
		pfr_cli_progress("perfring bench: warm-up",
				 (double)i / (double)(ncells + 1), 0);
		/* Warm-up runs that grow until the consumer's timed window
		 * lasts a quarter of the target: the rate it measures (not
		 * the wall time, which includes starting the threads) sizes
		 * the measured runs. */
		for (int k = 0; k < (op.quick ? 3 : 8); k++) {
			err = one_run(c, n0, cap, &o);
			if (err || o.window_ms >= op.run_ms / 4 ||
			    n0 >= (1ull << 31))
				break;
			n0 *= 4;
		}
		if (err == -2) {
			/* a refused setup is "not supported", not a failure */
			c->unsupported = 1;
			continue;
		}
		if (err) {
			c->failed = 1;
			snprintf(c->why, sizeof(c->why), "%s", o.why);
			continue;
		}
		c->n = (uint64_t)(o.mps * op.run_ms / 1000.0);
		if (c->n < nmin)
			c->n = nmin;
		if (c->n > 2000000000ull)
			c->n = 2000000000ull;
	}

	/* ---- interleaved repetitions ---- */
	/* op.reps rounds, then extra rounds (not --quick) for contestants
	 * short of op.reps runs in the reference placement */
	max_rounds = op.quick ? op.reps : 3 * op.reps;
	if (max_rounds > MAX_REPS)
		max_rounds = MAX_REPS;
	for (int r = 0; r < max_rounds; r++) {
		double p50 = 0, mean = 0;
		int extra = r >= op.reps;

		if (extra) {
			nactive = 0;
			for (int i = 0; i < ncells; i++)
				nactive += !cells[i].unsupported &&
					   !cells[i].failed;
			for (int i = 0; i < nlats; i++)
				nactive += !lats[i].failed;
			m.nbands = find_bands(cells, ncells, lats, nlats,
					      op.reps, m.bands, &m.ref);
			if (!m.nbands || m.bands[m.ref].full >= nactive)
				break;
		}
		if (op.wait_idle > 0 && busy_share(200) > 0.10)
			wait_idle(op.wait_idle);
		pfr_bench_rtt(op.quick ? 5000 : 50000, &p50, &mean);
		rtt_round[r] = p50;
		nrounds = r + 1;
		for (int i = 0; i < ncells; i++) {
			struct cell *c = &cells[i];
			struct run_out o;
			size_t cap =
				PFR_BENCH_CAPACITY_FOR(op.capacity, c->payload);
			int tries = 0, moved = 0;
			double ra = 0, rb = 0;

			pfr_cli_progress(
				extra ? "perfring bench: extra rounds "
					"(placement changed)"
				      : "perfring bench: runs",
				((double)r * (ncells + nlats) +
				 i) / ((double)(extra ? max_rounds : op.reps) *
				       (ncells + nlats)),
				0);
			if (c->unsupported || c->failed ||
			    (extra &&
			     cell_runs_in(c, &m.bands[m.ref]) >= op.reps))
				continue;
			do {
				ra = probe_rtt(op.quick);
				if (one_run(c, c->n, cap, &o)) {
					c->failed = 1;
					snprintf(c->why, sizeof(c->why), "%s",
						 o.why);
					break;
				}
				rb = probe_rtt(op.quick);
				moved = ra > RTT_MOVED * rb ||
					rb > RTT_MOVED * ra;
			} while ((o.busy || moved) &&
				 ++tries < (op.quick ? 1 : 3));
			if (c->failed)
				continue;
			/* a run far over its time (a loaded machine, a
			 * blocked producer): shorten the next ones, down to
			 * the warm-up's minimum */
			if (o.wall_ms > 4 * op.run_ms) {
				uint64_t nmin = 4 * (cap / (c->payload + 8));

				c->n = (uint64_t)((double)c->n * op.run_ms /
						  o.wall_ms);
				if (c->n < nmin)
					c->n = nmin;
				if (c->n < 256)
					c->n = 256;
			}
			c->mps[c->nreps] = o.mps;
			c->rtt[c->nreps] =
				ra > 0 && rb > 0 ? sqrt(ra * rb) : p50;
			c->ok[c->nreps] = !moved;
			c->nreps++;
			c->busy |= o.busy;
			c->messages += o.delivered;
			c->lost += o.lost;
			c->sent += o.sent;
			c->secs += o.wall_ms / 1e3;
			c->sleeps[0] += o.sleeps[0];
			c->sleeps[1] += o.sleeps[1];
		}
		for (int i = 0; i < nlats; i++) {
			struct lat_cell *l = &lats[i];
			double a, b, rt;
			int v = 0;

			pfr_cli_progress(
				extra ? "perfring bench: extra rounds "
					"(placement changed)"
				      : "perfring bench: runs",
				((double)r * (ncells + nlats) + ncells +
				 i) / ((double)(extra ? max_rounds : op.reps) *
				       (ncells + nlats)),
				0);
			if (l->failed ||
			    (extra &&
			     lat_runs_in(l, &m.bands[m.ref]) >= op.reps))
				continue;
			/* the cache-line round trip right before, so that
			 * the two compare under the same vCPU placement */
			if (pfr_bench_rtt(op.quick ? 2000 : 10000, &rt, &mean))
				rt = p50;
			if (pfr_bench_perfring_latency(
				    l->ordering, l->policy, l->payload,
				    op.quick ? 1000 : 20000, &a, &b, &v)) {
				l->failed = 1;
				continue;
			}
			l->p50[l->nreps] = a;
			l->p99[l->nreps] = b;
			l->rtt[l->nreps] = rt;
			l->nreps++;
			l->verified &= v;
		}
	}
	pfr_cli_progress("perfring bench: runs", 1, 1);

	/* the reference placement; every result from it alone */
	m.rtt_min = m.rtt_max = rtt_round[0];
	for (int r = 1; r < nrounds; r++) {
		if (rtt_round[r] < m.rtt_min)
			m.rtt_min = rtt_round[r];
		if (rtt_round[r] > m.rtt_max)
			m.rtt_max = rtt_round[r];
	}
	m.nbands = find_bands(cells, ncells, lats, nlats, op.reps, m.bands,
			      &m.ref);
	/* every run, before each placement's copy keeps its own */
	all_cells =
		(struct cell *)malloc((size_t)(ncells + 1) * sizeof(*cells));
	all_lats =
		(struct lat_cell *)malloc((size_t)(nlats + 1) * sizeof(*lats));
	if (!all_cells || !all_lats) {
		fprintf(stderr, "perfring bench: out of memory\n");
		rc = 1;
		goto out;
	}
	memcpy(all_cells, cells, (size_t)ncells * sizeof(*cells));
	memcpy(all_lats, lats, (size_t)nlats * sizeof(*lats));
	if (m.nbands)
		use_band(cells, all_cells, ncells, lats, all_lats, nlats,
			 &m.bands[m.ref], op.reps);

	/* ---- results ---- */
	{
		double rtt_med = placement_rtt(
			cells, ncells, median(rtt_round, nrounds, NULL, NULL));
		int any_fail = 0;

		for (int i = 0; i < ncells; i++)
			if (cells[i].failed)
				any_fail = 1;
		for (int i = 0; i < nlats; i++)
			if (lats[i].failed || !lats[i].verified)
				any_fail = 1;
		rc = any_fail ? 1 : 0;

		if (op.json) {
			fprintf(out, "{\"kind\":\"meta\"");
			json_kv_str(out, "perfring", pfr_version(), 1);
			json_kv_str(out, "cpu", m.cpu, 1);
			fprintf(out, ",\"cpus_online\":%ld,\"cpus_allowed\":%d",
				sysconf(_SC_NPROCESSORS_ONLN), m.ncpu);
			fprintf(out,
				",\"producer_cpu\":%d,\"consumer_cpu\":%d,"
				"\"pinned\":%s",
				pfr_bench_cpu[0], pfr_bench_cpu[1],
				pfr_bench_pinned ? "true" : "false");
			json_kv_str(out, "kernel", m.kernel, 1);
			json_kv_str(out, "compiler", compiler(), 1);
			json_kv_str(out, "flags", PFR_BENCH_CFLAGS, 1);
			json_kv_str(out, "backend", PFR_BARRIER_BACKEND, 1);
			fprintf(out,
				",\"capacity_bytes\":%zu,\"reps\":%d,"
				"\"run_ms\":%g,\"quick\":%s",
				op.capacity, op.reps, op.run_ms,
				op.quick ? "true" : "false");
			fprintf(out,
				",\"busy_at_start\":%s,"
				"\"busy_at_start_share\":%.3f",
				m.busy_start ? "true" : "false",
				m.busy_start_share);
			fprintf(out, ",\"rtt_ns_min\":%.1f,\"rtt_ns_max\":%.1f",
				m.rtt_min, m.rtt_max);
			fprintf(out, ",\"rounds\":%d,\"placements\":[",
				nrounds);
			for (int k = 0; k < m.nbands; k++)
				fprintf(out,
					"%s{\"rtt_ns_lo\":%.1f,\"rtt_ns_hi\":"
					"%.1f,\"runs\":%d,\"reference\":%s}",
					k ? "," : "", m.bands[k].lo,
					m.bands[k].hi, m.bands[k].runs,
					k == m.ref ? "true" : "false");
			fprintf(out, "]");
			fprintf(out, ",\"contestants\":[");
			{
				int k = 0;

				for (int i = 0; i < ncells; i++) {
					if (i && cells[i].q == cells[i - 1].q)
						continue;
					if (i && !strcmp(cells[i].q->name,
							 cells[i - 1].q->name))
						continue;
					fprintf(out, "%s", k++ ? "," : "");
					pfr_cli_json_str(out, cells[i].q->name);
				}
			}
			fprintf(out, "]}\n");
			fprintf(out,
				"{\"kind\":\"rtt\",\"rtt_ns\":%.1f,"
				"\"rtt_ns_mean\":%.1f,\"one_way_ns\":%.1f}\n",
				rtt_med, rtt_mean0, rtt_med / 2);
			for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
				if (op.payload_on[p])
					fprintf(out,
						"{\"kind\":\"memcpy\","
						"\"payload_bytes\":%zu,"
						"\"gbytes_per_s\":%.2f}\n",
						pfr_bench_payloads[p],
						memcpy_gbps[p]);
			for (int k = 0; k < 2; k++)
				fprintf(out,
					"{\"kind\":\"xcore\","
					"\"working_set_bytes\":%zu,"
					"\"gbytes_per_s\":%.2f}\n",
					k ? PFR_BENCH_CAPACITY_FOR(
						    op.capacity,
						    PFR_BENCH_MAX_PAYLOAD)
					  : op.capacity,
					xcore_gbps[k]);
			for (int i = 0; i < nbar; i++) {
				fprintf(out, "{\"kind\":\"barrier\"");
				json_kv_str(out, "primitive", bar[i].name, 1);
				fprintf(out, ",\"ns_per_op\":%.3f}\n",
					bar[i].ns);
			}
		} else if (op.csv) {
			fprintf(out,
				"kind,contestant,variant,payload_bytes,batched,"
				"batch,ordering,policy,transport,"
				"msgs_per_s_median,msgs_per_s_min,"
				"msgs_per_s_max,gbytes_per_s_median,rtt_ns,"
				"verified,reps,messages,lost,latency_ns_p50,"
				"latency_ns_p99,flags,placement\n");
			fprintf(out, "rtt,,,,,,,,,,,,,%.1f,,,,,%.1f,,,%d\n",
				rtt_med, rtt_med / 2, m.ref);
			for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
				if (op.payload_on[p])
					fprintf(out,
						"memcpy,memcpy,,%zu,,,,,,,,,"
						"%.3f,,,,,,,,,\n",
						pfr_bench_payloads[p],
						memcpy_gbps[p]);
			fprintf(out, "xcore,xcore,,%zu,,,,,,,,,%.3f,,,,,,,,,\n",
				op.capacity, xcore_gbps[0]);
		} else {
			fprintf(out,
				"perfring bench %s: %s; producer CPU%d, "
				"consumer CPU%d%s; %s; %s %s; barrier "
				"backend %s\n",
				pfr_version(), m.cpu, pfr_bench_cpu[0],
				pfr_bench_cpu[1],
				pfr_bench_pinned ? " (pinned)"
						 : " (NOT pinned)",
				m.kernel, compiler(), PFR_BENCH_CFLAGS,
				PFR_BARRIER_BACKEND);
			fprintf(out,
				"capacity %zu KiB (1 MiB for 65520-byte "
				"payloads); %d interleaved repetitions of "
				"%g ms runs; median [min-max]\n",
				op.capacity / 1024, op.reps, op.run_ms);
			if (m.busy_start)
				fprintf(out,
					"WARNING: the CPUs were %.0f%% "
					"busy before the run\n",
					100 * m.busy_start_share);
			fprintf(out,
				"\ncache-line round trip CPU%d<->CPU%d, "
				"reported placement: %.1f ns median "
				"(one-way %.1f ns); all rounds %.1f..%.1f "
				"ns\n",
				pfr_bench_cpu[0], pfr_bench_cpu[1], rtt_med,
				rtt_med / 2, m.rtt_min, m.rtt_max);
			if (m.nbands > 1) {
				fprintf(out,
					"vCPU placements seen (round trip, "
					"runs):");
				for (int k = 0; k < m.nbands; k++)
					fprintf(out, "%s %.0f-%.0f ns %d%s",
						k ? ";" : "", m.bands[k].lo,
						m.bands[k].hi, m.bands[k].runs,
						k == m.ref ? " (reported)"
							   : "");
				fprintf(out, "\n");
			}
			fprintf(out, "memcpy, one core, GB/s:");
			for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
				if (op.payload_on[p])
					fprintf(out, "  %zu B %.1f",
						pfr_bench_payloads[p],
						memcpy_gbps[p]);
			fprintf(out,
				"\ncross-core read (CPU%d writes, CPU%d "
				"reads), GB/s: %zu KiB %.1f, %zu KiB "
				"%.1f",
				pfr_bench_cpu[0], pfr_bench_cpu[1],
				op.capacity / 1024, xcore_gbps[0],
				PFR_BENCH_CAPACITY_FOR(op.capacity,
						       PFR_BENCH_MAX_PAYLOAD) /
					1024,
				xcore_gbps[1]);
			fprintf(out, "\nbarriers, ns per operation:");
			for (int i = 0; i < nbar; i++)
				fprintf(out, "%s %s %.2f", i ? "," : "",
					bar[i].name, bar[i].ns);
			fprintf(out, "\n");
		}

		for (int pass = 0; pass <= m.nbands; pass++) {
			int k = pass ? pass - 1 : m.ref;

			if (pass &&
			    (k == m.ref ||
			     !band_reportable(all_cells, ncells, &m.bands[k])))
				continue;
			if (pass) {
				use_band(cells, all_cells, ncells, lats,
					 all_lats, nlats, &m.bands[k], op.reps);
				rtt_med = placement_rtt(cells, ncells, rtt_med);
			}
			op.placement = k;
			op.reference = k == m.ref;
			if (!op.json && !op.csv) {
				if (m.nbands)
					fprintf(out,
						"\n== placement %d: cache-line round "
						"trip %.0f-%.0f ns (%s) ==\n",
						k, m.bands[k].lo, m.bands[k].hi,
						k == m.ref
							? "reported: the most "
							  "contestants complete"
							: "also seen");
				fprintf(out,
					"\n%-34s %7s %9s %-21s %7s %5s %-4s %s\n",
					"contestant", "payload", "Mmsg/s",
					"[min-max]", "GB/s", "rtt", "ok",
					"flags");
			}

			for (int i = 0; i < ncells; i++) {
				struct cell *c = &cells[i];
				double med, lo, hi, gb;
				char fl[64];
				int verified = !c->failed && c->messages > 0;

				/* another placement lists what ran in it */
				if (c->unsupported || (pass && !c->nreps))
					continue;
				cell_stats(c, &med, &lo, &hi);
				gb = med * (double)c->payload / 1e9;
				flags_str(fl, sizeof(fl), c->busy, c->drift,
					  c->failed);
				label(lab, sizeof(lab), c->q);
				if (op.json) {
					fprintf(out,
						"{\"kind\":\"throughput\",\"placement\":%d,"
						"\"reference\":%s",
						k,
						k == m.ref ? "true" : "false");
					json_kv_str(out, "contestant",
						    c->q->name, 1);
					json_kv_str(out, "label", lab, 1);
					json_kv_str(out, "variant",
						    c->q->variant, 1);
					fprintf(out,
						",\"payload_bytes\":%zu,"
						"\"batched\":%s,\"batch\":%u",
						c->payload,
						c->q->batched ? "true"
							      : "false",
						c->q->batched ? c->batch : 1);
					if (c->q->ordering >= 0) {
						json_kv_str(
							out, "ordering",
							ord_name(
								c->q->ordering),
							1);
						json_kv_str(
							out, "policy",
							pol_name(c->q->policy),
							1);
					}
					json_kv_str(out, "transport",
						    c->q->processes
							    ? "processes"
							    : "threads",
						    1);
					fprintf(out,
						",\"msgs_per_s_median\":%.0f,"
						"\"msgs_per_s_min\":%.0f,"
						"\"msgs_per_s_max\":%.0f,"
						"\"gbytes_per_s_median\":%.3f,"
						"\"rtt_ns\":%.1f,\"verified\":%s,"
						"\"reps\":%d,\"messages\":%llu,"
						"\"lost\":%llu,\"busy\":%s,"
						"\"few_runs\":%s,\"runs_other_placement\":%d",
						med, lo, hi, gb, cell_rtt(c),
						verified ? "true" : "false",
						c->nreps,
						(unsigned long long)c->messages,
						(unsigned long long)c->lost,
						c->busy ? "true" : "false",
						c->drift ? "true" : "false",
						c->other);
					fprintf(out,
						",\"sleeps_per_s\":[%.0f,%.0f]",
						c->secs > 0
							? c->sleeps[0] / c->secs
							: 0,
						c->secs > 0
							? c->sleeps[1] / c->secs
							: 0);
					if (c->failed)
						json_kv_str(out, "error",
							    c->why, 1);
					fprintf(out, "}\n");
				} else if (op.csv) {
					fprintf(out,
						"throughput,%s,%s,%zu,%s,%u,%s,%s,%s,"
						"%.0f,%.0f,%.0f,%.3f,%.1f,%s,%d,%llu,"
						"%llu,,,\"%s\",%d\n",
						c->q->name, c->q->variant,
						c->payload,
						c->q->batched ? "true"
							      : "false",
						c->q->batched ? c->batch : 1,
						ord_name(c->q->ordering),
						pol_name(c->q->policy),
						c->q->processes ? "processes"
								: "threads",
						med, lo, hi, gb, cell_rtt(c),
						verified ? "true" : "false",
						c->nreps,
						(unsigned long long)c->messages,
						(unsigned long long)c->lost, fl,
						k);
				} else {
					char range[32];

					snprintf(range, sizeof(range),
						 "[%.1f-%.1f]", lo / 1e6,
						 hi / 1e6);
					fprintf(out,
						"%-34s %7zu %9.1f %-21s %7.2f %5.0f "
						"%-4s %s",
						lab, c->payload, med / 1e6,
						range, gb, cell_rtt(c),
						verified ? "yes" : "NO", fl);
					if (c->q->policy == PFR_POLICY_DROP &&
					    c->sent)
						fprintf(out, " lost %.1f%%",
							100.0 *
								(double)c
									->lost /
								(double)c
									->sent);
					if (c->failed)
						fprintf(out, " (%s)", c->why);
					fprintf(out, "\n");
				}
			}
			if (!op.json && !op.csv && nlats)
				fprintf(out,
					"\none-way latency, ping-pong over two "
					"rings (half the round trip), ns\n"
					"%-34s %7s %9s %9s %5s %s\n",
					"contestant", "payload", "p50", "p99",
					"rtt", "ok");
			for (int i = 0; i < nlats; i++) {
				struct lat_cell *l = &lats[i];
				double p50 =
					median(l->p50, l->nreps, NULL, NULL);
				double p99 =
					median(l->p99, l->nreps, NULL, NULL);
				double rt =
					median(l->rtt, l->nreps, NULL, NULL);
				int ok = !l->failed && l->verified &&
					 (l->nreps + l->other) > 0;

				if (pass && !l->nreps)
					continue;
				snprintf(lab, sizeof(lab), "perfring %s%s",
					 ord_name(l->ordering),
					 l->policy == PFR_POLICY_DROP ? " drop"
								      : "");
				if (op.json) {
					fprintf(out,
						"{\"kind\":\"latency\",\"placement\":%d,"
						"\"reference\":%s",
						k,
						k == m.ref ? "true" : "false");
					json_kv_str(out, "contestant",
						    "perfring", 1);
					json_kv_str(out, "label", lab, 1);
					fprintf(out,
						",\"payload_bytes\":%zu,"
						"\"batched\":false",
						l->payload);
					json_kv_str(out, "ordering",
						    ord_name(l->ordering), 1);
					json_kv_str(out, "policy",
						    pol_name(l->policy), 1);
					json_kv_str(out, "transport", "threads",
						    1);
					fprintf(out,
						",\"latency_ns_p50\":%.1f,"
						"\"latency_ns_p99\":%.1f,"
						"\"rtt_ns\":%.1f,\"verified\":%s,"
						"\"reps\":%d}\n",
						p50, p99, rt,
						ok ? "true" : "false",
						l->nreps);
				} else if (op.csv) {
					fprintf(out,
						"latency,perfring,,%zu,false,1,%s,%s,"
						"threads,,,,,%.1f,%s,%d,,,%.1f,%.1f,,%d\n",
						l->payload,
						ord_name(l->ordering),
						pol_name(l->policy), rt,
						ok ? "true" : "false", l->nreps,
						p50, p99, k);
				} else {
					fprintf(out,
						"%-34s %7zu %9.1f %9.1f %5.0f %s\n",
						lab, l->payload, p50, p99, rt,
						ok ? "yes" : "NO");
				}
			}

			emit_targets(out, &op, cells, ncells, lats, nlats,
				     memcpy_gbps, xcore_gbps, rtt_med);

			if (op.sweep_data && !pass)
				sweep_rows(op.sweep_data, cells, ncells, &op);
			if (op.plot && !pass) {
				if (write_plot(op.plot, cells, ncells,
					       memcpy_gbps, &m, &op)) {
					fprintf(stderr,
						"perfring bench: could not "
						"draw %s (is gnuplot "
						"installed?)\n",
						op.plot);
					rc = 1;
				}
			}
		}
	}
out:
	fflush(out);
	free(pattern);
	free(cells);
	free(lats);
	free(all_cells);
	free(all_lats);
	return rc;
}
