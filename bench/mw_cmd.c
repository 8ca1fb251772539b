/* SPDX-License-Identifier: MIT */
/*
 * perfring bench --writers - many writers, one reader: perfring's group
 * (one ring per writer, drained by one reader) and its shared MPSC ring
 * against the multi-producer queues linked into this build.
 *
 * Method (as the single-writer bench): every contestant, payload and
 * writer count (a "cell") runs once as warm-up, which sizes its runs to
 * --time; then the repetitions go round all cells in turn, each run
 * bracketed by two cache-line round-trip probes; a run whose probes
 * disagree by more than RTT_MOVED (the host moved the vCPUs) is repeated
 * once.  Results come from one placement: the band of round trips holding
 * most runs; a cell with fewer than half its runs there reports all its
 * runs and is flagged "mixed".  Every message is verified (writer, its
 * per-writer sequence number, length and sum); a run with a bad or a
 * missing message, or a writer that sent nothing, fails the cell and the
 * command (exit 1).
 */
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <perfring/common.h>

#include "../cli/cli.h"
#include "bench_cmd.h"
#include "mw.h"
#include "probes.h"

#define MW_MAX_REPS 32
#define MW_MAX_WCOUNTS 8
#define RTT_MOVED 1.3
#define RTT_GAP 1.35

struct mw_cell {
	const struct pfr_mw_queue *q;
	size_t payload; /* bytes or PFR_MW_MIX */
	unsigned writers;
	uint64_t n; /* messages per run */
	int unsupported, failed;
	char why[128];
	int nreps;
	double mps[MW_MAX_REPS], rtt[MW_MAX_REPS];
	double p99[MW_MAX_REPS], smax[MW_MAX_REPS]; /* stall, ns */
	double stall_share[MW_MAX_REPS]; /* stalled / window */
	double wmin[MW_MAX_REPS], wmax[MW_MAX_REPS]; /* per-writer M/s */
	int busy[MW_MAX_REPS];
	int capped; /* runs stopped at the deadline */
	int mixed; /* results from more than one placement */
	int used[MW_MAX_REPS]; /* runs the results use */
	uint64_t messages; /* verified, all runs */
};

struct mw_opts {
	int quick, json, reps, processes, placement, peers;
	unsigned wcount[MW_MAX_WCOUNTS];
	int nw;
	size_t payloads[4];
	int np;
	double run_ms;
	size_t capacity;
	const char *only;
};

static const struct pfr_mw_queue *queues[64];
static int nqueues;
static uint64_t *pattern, *body_sum;

static void add(const struct pfr_mw_queue *t)
{
	for (; t && t->name; t++)
		if (nqueues < (int)(sizeof(queues) / sizeof(queues[0])))
			queues[nqueues++] = t;
}

static void collect(int peers)
{
	add(pfr_mw_perfring);
	if (!peers)
		return;
#ifdef PFR_BENCH_HAVE_DPDK
	add(pfr_mw_dpdk);
#endif
#ifdef PFR_BENCH_HAVE_CK
	add(pfr_mw_ck);
#endif
#ifdef PFR_BENCH_HAVE_URCU
	add(pfr_mw_urcu);
#endif
#ifdef PFR_BENCH_HAVE_MWCXX
	add(pfr_mw_cxx);
#endif
	add(pfr_mw_peers);
}

static void label(char *buf, size_t len, const struct pfr_mw_queue *q)
{
	snprintf(buf, len, "%s%s%s", q->name, q->variant[0] ? " " : "",
		 q->variant);
}

static int selected(const char *list, const char *name, const char *lab)
{
	if (!list)
		return 1;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, ",");

		/* a name, a label, or a name's first word ("perfring") */
		if ((k == strlen(name) && !strncmp(p, name, k)) ||
		    (k == strlen(lab) && !strncmp(p, lab, k)) ||
		    (k < strlen(name) && name[k] == ' ' &&
		     !strncmp(p, name, k)))
			return 1;
		p += k;
		if (*p == ',')
			p++;
	}
	return 0;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double med(const double *v, int n, double *lo, double *hi)
{
	double t[MW_MAX_REPS];

	if (lo)
		*lo = 0;
	if (hi)
		*hi = 0;
	if (n <= 0)
		return 0;
	memcpy(t, v, (size_t)n * sizeof(double));
	qsort(t, (size_t)n, sizeof(double), cmp_d);
	if (lo)
		*lo = t[0];
	if (hi)
		*hi = t[n - 1];
	return n & 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* The median (and range) of field v over the runs the cell reports. */
static double cell_med(const struct mw_cell *c, const double *v, double *lo,
		       double *hi)
{
	double t[MW_MAX_REPS];
	int k = 0;

	for (int r = 0; r < c->nreps; r++)
		if (c->used[r])
			t[k++] = v[r];
	return med(t, k, lo, hi);
}

static double cell_maxv(const struct mw_cell *c, const double *v)
{
	double m = 0;

	for (int r = 0; r < c->nreps; r++)
		if (c->used[r] && v[r] > m)
			m = v[r];
	return m;
}

static const char *payload_name(size_t p, char *buf, size_t len)
{
	if (p == PFR_MW_MIX)
		snprintf(buf, len, "mix");
	else
		snprintf(buf, len, "%zu", p);
	return buf;
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

		if (!c || strncmp(line, "model name", 10))
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

static double probe_rtt(int quick)
{
	double p50 = 0, mean;

	if (pfr_bench_rtt(quick ? 500 : 2000, &p50, &mean))
		return 0;
	return p50;
}

/* ---- one run ---- */

struct mw_out {
	double mps, window_ms, p99, smax, share, wmin, wmax;
	int busy, capped;
	uint64_t delivered;
	char why[128];
};

static double hist_pct(const struct pfr_mw_run *run, double p)
{
	uint64_t want, acc = 0;

	if (!run->stalls)
		return 0;
	want = (uint64_t)ceil(p * (double)run->stalls);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < PFR_MW_HIST; b++) {
		acc += run->hist[b];
		if (acc >= want)
			return pfr_bench_ticks_to_ns(
				(double)pfr_mw_bucket_low(b));
	}
	return 0;
}

static int one_run(const struct mw_cell *c, const struct mw_opts *op,
		   uint64_t n, struct mw_out *o)
{
	struct pfr_mw_run *run;
	uint64_t w0;
	double wall;
	int err, rc = 0;

	memset(o, 0, sizeof(*o));
	run = (struct pfr_mw_run *)mmap(NULL, sizeof(*run),
					PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run == MAP_FAILED) {
		snprintf(o->why, sizeof(o->why), "out of memory");
		return -1;
	}
	n -= n % c->writers;
	run->n = n;
	run->warm = n / 8 ? n / 8 : 1;
	run->writers = c->writers;
	run->payload = c->payload;
	run->slot =
		c->payload == PFR_MW_MIX ? PFR_MW_MIX_WORDS * 8 : c->payload;
	run->capacity = op->capacity;
	run->batch = 32;
	run->processes = op->processes;
	run->msg = pattern;
	run->body_sum = body_sum;
	/* writers stop past 20 times the target (a writer spinning on a
	 * preempted one sharing its CPU can make a run last minutes) */
	run->deadline_ns = (uint64_t)(op->run_ms * 20 * 1e6) + 2000000000ull;
	w0 = pfr_bench_now_ns();
	err = pfr_mw_run_once(c->q, run, op->placement);
	wall = (double)(pfr_bench_now_ns() - w0);
	o->delivered = run->delivered;
	if (err == -2) {
		snprintf(o->why, sizeof(o->why), "unsupported");
		rc = -2;
		goto out;
	}
	if (err || run->error) {
		snprintf(o->why, sizeof(o->why), "run failed (%d%s)",
			 run->error ? run->error : err,
			 run->error == -2 ? ": reader gave up waiting" : "");
		rc = -1;
		goto out;
	}
	if (run->bad) {
		snprintf(o->why, sizeof(o->why),
			 "%llu messages failed verification (first: writer "
			 "%llu seq %llu)",
			 (unsigned long long)run->bad,
			 (unsigned long long)(run->bad_tag >> PFR_MW_SEQ_BITS),
			 (unsigned long long)(run->bad_tag &
					      ((1ull << PFR_MW_SEQ_BITS) - 1)));
		rc = -1;
		goto out;
	}
	o->wmin = 1e300;
	for (unsigned i = 0; i < c->writers; i++) {
		const struct pfr_mw_writer *w = &run->w[i];
		double d = (double)(w->t_end - w->t_start), r;

		if (!w->sent || (w->sent != w->n && !run->stop.v) ||
		    run->next[i] != w->sent ||
		    (run->unordered &&
		     run->seqsum[i] != w->sent * (w->sent - 1) / 2)) {
			snprintf(o->why, sizeof(o->why),
				 "writer %u: sent %llu of %llu, %llu "
				 "received",
				 i, (unsigned long long)w->sent,
				 (unsigned long long)w->n,
				 (unsigned long long)run->next[i]);
			rc = -1;
			goto out;
		}
		r = d > 0 ? (double)w->sent * 1e3 / d : 0; /* M/s */
		if (r < o->wmin)
			o->wmin = r;
		if (r > o->wmax)
			o->wmax = r;
	}
	o->capped = run->stop.v != 0;
	n = run->n;
	if (run->delivered != n) {
		snprintf(o->why, sizeof(o->why), "delivered %llu of %llu",
			 (unsigned long long)run->delivered,
			 (unsigned long long)n);
		rc = -1;
		goto out;
	}
	if (run->t0 && run->t1 > run->t0 && run->timed) {
		o->window_ms = (double)(run->t1 - run->t0) / 1e6;
		o->mps = (double)run->timed * 1e9 / (double)(run->t1 - run->t0);
	} else {
		o->window_ms = wall / 1e6;
		o->mps = (double)run->delivered * 1e9 / wall;
	}
	o->p99 = hist_pct(run, 0.99);
	o->smax = 0;
	for (int b = PFR_MW_HIST - 1; b >= 0; b--)
		if (run->hist[b]) {
			o->smax = pfr_bench_ticks_to_ns(
				(double)pfr_mw_bucket_low((unsigned)b));
			break;
		}
	o->share = wall > 0 ? pfr_bench_ticks_to_ns((double)run->stall_ticks) /
				      wall
			    : 0;
	/* the reader lost its CPU: others' jobs (with one or more
	 * writers on the reader's CPU that is the method, not noise) */
	o->busy = !op->placement && run->nivcsw[0] >= 2 && run->share[0] < 0.9;
out:
	munmap(run, sizeof(*run));
	return rc;
}

/* ---- placement: the band of round trips with most runs ---- */

static void choose_runs(struct mw_cell *cells, int ncells, double *ref_lo,
			double *ref_hi)
{
	double *v, blo = 0, bhi = 0, lo = 0, hi = 0;
	int n = 0, tot = 0, best = 0, cnt = 0;

	for (int i = 0; i < ncells; i++)
		tot += cells[i].nreps;
	v = (double *)malloc(((size_t)tot + 1) * sizeof(double));
	if (!v)
		return;
	for (int i = 0; i < ncells; i++)
		for (int r = 0; r < cells[i].nreps; r++)
			if (cells[i].rtt[r] > 0)
				v[n++] = cells[i].rtt[r];
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	for (int i = 0; i <= n; i++) {
		if (i < n && cnt && v[i] <= RTT_GAP * hi) {
			hi = v[i];
			cnt++;
			continue;
		}
		if (cnt > best) {
			best = cnt;
			blo = lo;
			bhi = hi;
		}
		if (i < n) {
			lo = hi = v[i];
			cnt = 1;
		}
	}
	free(v);
	*ref_lo = blo;
	*ref_hi = bhi;
	for (int i = 0; i < ncells; i++) {
		struct mw_cell *c = &cells[i];
		int in = 0;

		for (int r = 0; r < c->nreps; r++)
			in += c->rtt[r] >= blo && c->rtt[r] <= bhi;
		c->mixed = 2 * in < c->nreps || !best;
		for (int r = 0; r < c->nreps; r++)
			c->used[r] = c->mixed ||
				     (c->rtt[r] >= blo && c->rtt[r] <= bhi);
	}
}

/* ---- output ---- */

static void flags(char *buf, size_t len, const struct mw_cell *c)
{
	int busy = 0;

	for (int r = 0; r < c->nreps; r++)
		busy += c->used[r] && c->busy[r];
	snprintf(buf, len, "%s%s%s%s", c->failed ? "failed," : "",
		 busy * 2 > c->nreps ? "busy," : "", c->mixed ? "mixed," : "",
		 c->capped ? "capped," : "");
	if (*buf)
		buf[strlen(buf) - 1] = 0;
}

static const struct mw_cell *best_of(const struct mw_cell *cells, int ncells,
				     int kind, size_t payload, unsigned writers,
				     double *v)
{
	const struct mw_cell *b = NULL;
	double bv = 0, lo, hi;

	for (int i = 0; i < ncells; i++) {
		const struct mw_cell *c = &cells[i];
		double x;

		if ((c->q->kind & PFR_MW_KIND_MASK) != kind ||
		    c->payload != payload || c->writers != writers ||
		    c->failed || c->unsupported || !c->nreps)
			continue;
		x = cell_med(c, c->mps, &lo, &hi);
		if (!b || x > bv) {
			b = c;
			bv = x;
		}
	}
	*v = bv;
	return b;
}

static void targets(FILE *out, const struct mw_cell *cells, int ncells,
		    const struct mw_opts *op)
{
	static const struct {
		int mine, peer;
		const char *name, *peers;
	} t[2] = {
		{PFR_MW_KIND_GROUP, PFR_MW_KIND_SUBQ, "group",
		 "moodycamel ConcurrentQueue"},
		{PFR_MW_KIND_MPSC, PFR_MW_KIND_SHARED, "mpsc",
		 "rte_ring MP / ck_ring MPSC"},
	};
	static const size_t pl[2] = {8, 64};
	char la[96], lb[96];

	if (!op->json)
		fprintf(out, "\ntargets (ratios within this run and "
			     "placement)\n");
	for (int k = 0; k < 2; k++)
		for (unsigned w = 1; w <= 2; w++)
			for (int p = 0; p < 2; p++) {
				const struct mw_cell *a, *b;
				double va, vb;

				a = best_of(cells, ncells, t[k].mine, pl[p], w,
					    &va);
				b = best_of(cells, ncells, t[k].peer, pl[p], w,
					    &vb);
				if (!a || !b || vb <= 0)
					continue;
				label(la, sizeof(la), a->q);
				label(lb, sizeof(lb), b->q);
				if (op->json) {
					fprintf(out,
						"{\"kind\":\"target\","
						"\"target\":\"%s >= best %s\","
						"\"writers\":%u,\"payload\":%zu,"
						"\"perfring\":",
						t[k].name, t[k].peers, w,
						pl[p]);
					pfr_cli_json_str(out, la);
					fprintf(out, ",\"peer\":");
					pfr_cli_json_str(out, lb);
					fprintf(out,
						",\"perfring_mps\":%.0f,"
						"\"peer_mps\":%.0f,"
						"\"ratio\":%.3f,\"met\":%s}\n",
						va, vb, va / vb,
						va >= vb ? "true" : "false");
				} else {
					fprintf(out,
						"  %-5s %u writer%s %2zu B: %s "
						"%.1f / %s %.1f M/s = %.2fx "
						"%s\n",
						t[k].name, w, w > 1 ? "s" : " ",
						pl[p], la, va / 1e6, lb,
						vb / 1e6, va / vb,
						va >= vb ? "MET" : "missed");
				}
			}
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

#ifndef PFR_BENCH_CFLAGS
#define PFR_BENCH_CFLAGS "unknown"
#endif

static void print_meta(FILE *out, const struct mw_opts *op, double rlo,
		       double rhi, double busy_share,
		       const struct mw_cell *cells, int ncells)
{
	char cpu[256], kern[256] = "unknown", pn[24];
	struct utsname u;
	cpu_set_t set;
	int ncpu = 0;

	cpu_model(cpu, sizeof(cpu));
	if (!uname(&u))
		snprintf(kern, sizeof(kern), "%s %s %s", u.sysname, u.release,
			 u.machine);
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set))
		ncpu = CPU_COUNT(&set);
	if (!op->json) {
		printf("perfring bench --writers: %s, %d CPUs, reader on "
		       "CPU%d, writers %s; %s; capacity %zu KiB in all\n",
		       cpu, ncpu, pfr_bench_cpu[1],
		       op->placement ? "spread over both CPUs"
				     : "sharing the other CPU",
		       op->processes ? "writers are processes"
				     : "writers are threads",
		       op->capacity / 1024);
		printf("vCPU placement of the results: cache-line round trip "
		       "%.0f-%.0f ns; CPUs %.0f%% busy before the run\n",
		       rlo, rhi, 100 * busy_share);
		return;
	}
	fprintf(out, "{\"kind\":\"meta\",\"bench\":\"writers\",\"cpu\":");
	pfr_cli_json_str(out, cpu);
	fprintf(out, ",\"kernel\":");
	pfr_cli_json_str(out, kern);
	fprintf(out,
		",\"ncpu\":%d,\"reader_cpu\":%d,\"writer_cpus\":\"%s\","
		"\"processes\":%s,\"capacity\":%zu,\"reps\":%d,"
		"\"time_ms\":%.0f,\"quick\":%s,\"writers\":[",
		ncpu, pfr_bench_cpu[1], op->placement ? "spread" : "shared",
		op->processes ? "true" : "false", op->capacity, op->reps,
		op->run_ms, op->quick ? "true" : "false");
	for (int i = 0; i < op->nw; i++)
		fprintf(out, "%s%u", i ? "," : "", op->wcount[i]);
	fprintf(out, "],\"payloads\":[");
	for (int i = 0; i < op->np; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "",
			payload_name(op->payloads[i], pn, sizeof(pn)));
	fprintf(out,
		"],\"rtt_ns\":[%.1f,%.1f],\"busy_before\":%.3f,"
		"\"stall\":\"reader polls found nothing while a writer was "
		"still sending: from the first empty poll to the next "
		"message\",\"compiler\":",
		rlo, rhi, busy_share);
	pfr_cli_json_str(out, compiler());
	fprintf(out, ",\"flags\":");
	pfr_cli_json_str(out, PFR_BENCH_CFLAGS);
	/* the contestants of this run (a cell per writer count and
	 * payload each) */
	fprintf(out, ",\"contestants\":[");
	for (int i = 0; i < ncells; i++) {
		char lab[96];

		if (i && cells[i].q == cells[i - 1].q)
			continue;
		label(lab, sizeof(lab), cells[i].q);
		if (i)
			fputc(',', out);
		pfr_cli_json_str(out, lab);
	}
	fprintf(out, "]}\n");
}

static void print_cell(FILE *out, const struct mw_cell *c,
		       const struct mw_opts *op)
{
	char lab[96], fl[64], pn[24];
	double m = 0, lo = 0, hi = 0, p99 = 0, smax = 0, wmin = 0, wmax = 0,
	       share = 0, rtt = 0;

	label(lab, sizeof(lab), c->q);
	flags(fl, sizeof(fl), c);
	payload_name(c->payload, pn, sizeof(pn));
	if (!c->failed && !c->unsupported) {
		m = cell_med(c, c->mps, &lo, &hi);
		p99 = cell_med(c, c->p99, NULL, NULL);
		smax = cell_maxv(c, c->smax);
		wmin = cell_med(c, c->wmin, NULL, NULL);
		wmax = cell_med(c, c->wmax, NULL, NULL);
		share = cell_med(c, c->stall_share, NULL, NULL);
		rtt = cell_med(c, c->rtt, NULL, NULL);
	}
	if (op->json) {
		fprintf(out, "{\"kind\":\"writers\",\"queue\":");
		pfr_cli_json_str(out, c->q->name);
		fprintf(out, ",\"variant\":");
		pfr_cli_json_str(out, c->q->variant);
		fprintf(out, ",\"label\":");
		pfr_cli_json_str(out, lab);
		fprintf(out,
			",\"writers\":%u,\"payload\":\"%s\","
			"\"processes\":%s,\"supported\":%s",
			c->writers, pn, op->processes ? "true" : "false",
			c->unsupported ? "false" : "true");
		if (c->unsupported) {
			fprintf(out, "}\n");
			return;
		}
		fprintf(out, ",\"per_writer_order\":%s",
			c->q->kind & PFR_MW_UNORDERED ? "false" : "true");
		fprintf(out,
			",\"runs\":%d,\"messages_per_run\":%llu,"
			"\"verified\":%s,\"messages_verified\":%llu",
			c->nreps, (unsigned long long)c->n,
			c->failed ? "false" : "true",
			(unsigned long long)c->messages);
		if (!c->failed)
			fprintf(out,
				",\"mps\":%.0f,\"mps_min\":%.0f,"
				"\"mps_max\":%.0f,\"writer_mps_min\":%.3f,"
				"\"writer_mps_max\":%.3f,"
				"\"stall_p99_ns\":%.0f,\"stall_max_ns\":%.0f,"
				"\"stall_share\":%.4f,\"rtt_ns\":%.1f",
				m, lo, hi, wmin * 1e6, wmax * 1e6, p99, smax,
				share, rtt);
		fprintf(out, ",\"flags\":\"%s\"", fl);
		if (c->failed) {
			fprintf(out, ",\"error\":");
			pfr_cli_json_str(out, c->why);
		}
		fprintf(out, "}\n");
		return;
	}
	if (c->unsupported)
		return;
	if (c->failed) {
		fprintf(out, "%-26s %2u %4s  FAILED: %s\n", lab, c->writers, pn,
			c->why);
		return;
	}
	fprintf(out,
		"%-26s %2u %4s %8.2f  %7.2f-%-7.2f %7.2f %7.2f %9.1f %9.1f "
		"%5.1f%% %s\n",
		lab, c->writers, pn, m / 1e6, lo / 1e6, hi / 1e6, wmin, wmax,
		p99 / 1e3, smax / 1e3, 100 * share, fl);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring bench --writers LIST [options]\n"
		"\n"
		"Many writers, one reader: every writer count in LIST, each "
		"writer sending\nits share of the messages, all started "
		"together; aggregate messages/s\nas the reader receives them, "
		"every message verified (writer, per-writer\nsequence number, "
		"length, sum).  Contestants: perfring group (a ring per\n"
		"writer, unordered drain), perfring mpsc (one shared ring), "
		"and the peers\nlinked into this build: rte_ring MP/SC "
		"(single, burst), ck_ring MPSC,\nmoodycamel ConcurrentQueue "
		"(producer tokens, implicit producers),\natomic_queue MPMC, "
		"boost::lockfree::queue, liburcu wfcqueue, a mutex.\n"
		"\n"
		"  --writers LIST     writer counts, e.g. 1,2,4,8 (1..%d)\n"
		"  --payloads LIST    8, 64 and/or mix (default all three); "
		"mix: 8 to 256\n"
		"                     bytes per message (132 on average); "
		"slot queues carry\n"
		"                     it in 256-byte slots\n"
		"  --processes        writers are processes (queues in shared "
		"memory; only\n"
		"                     the contestants that can)\n"
		"  --spread           writers on both CPUs (default: all "
		"writers share the\n"
		"                     CPU that is not the reader's)\n"
		"  --reps N           repetitions (default 5)\n"
		"  --time MS          target duration of one run (default "
		"200, quick 12)\n"
		"  --quick            short runs\n"
		"  --cpus A,B         writers' CPU and reader's CPU (default "
		"0,1)\n"
		"  --capacity BYTES   queue capacity in all, a power of two "
		"(default\n"
		"                     256Ki; a group splits it between its "
		"writers)\n"
		"  --only LIST        contestants by name or label\n"
		"  --no-peers         perfring only\n"
		"  --json             JSON Lines: a meta object, one object "
		"per result,\n"
		"                     then the targets\n"
		"  -h, --help         this text\n"
		"\n"
		"Reader stall: an interval from a poll of the reader that "
		"finds nothing to\nread to the next message it receives, "
		"counted while a writer is still\nsending.  Reported: its "
		"99th percentile (median over the runs), its\nlongest, and "
		"the share of the run spent stalled.  Per-writer M/s: each\n"
		"writer's messages over its own time (min and max over the "
		"writers).\nExit status: 0; 1 when a run failed, a message "
		"did not verify or a writer\nsent nothing; 2 for a usage "
		"error.\n",
		PFR_MW_MAX_WRITERS);
}

static int parse_list(const char *s, struct mw_opts *op)
{
	op->nw = 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v < 1 || v > PFR_MW_MAX_WRITERS ||
		    op->nw == MW_MAX_WCOUNTS)
			return -1;
		op->wcount[op->nw++] = (unsigned)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return op->nw ? 0 : -1;
}

static int parse_payloads(const char *s, struct mw_opts *op)
{
	op->np = 0;
	while (*s) {
		size_t k = strcspn(s, ",");

		if (op->np == 3)
			return -1;
		if (k == 1 && s[0] == '8')
			op->payloads[op->np++] = 8;
		else if (k == 2 && !strncmp(s, "64", 2))
			op->payloads[op->np++] = 64;
		else if (k == 3 && !strncmp(s, "mix", 3))
			op->payloads[op->np++] = PFR_MW_MIX;
		else
			return -1;
		s += k;
		if (*s == ',')
			s++;
	}
	return op->np ? 0 : -1;
}

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

int pfr_bench_mw_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"writers", required_argument, NULL, 'w'},
		{"payloads", required_argument, NULL, 'P'},
		{"processes", no_argument, NULL, 'X'},
		{"threads", no_argument, NULL, 'T'},
		{"spread", no_argument, NULL, 's'},
		{"reps", required_argument, NULL, 'r'},
		{"time", required_argument, NULL, 't'},
		{"quick", no_argument, NULL, 'q'},
		{"cpus", required_argument, NULL, 'C'},
		{"capacity", required_argument, NULL, 'k'},
		{"only", required_argument, NULL, 'o'},
		{"no-peers", no_argument, NULL, 'N'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct mw_opts op;
	struct mw_cell *cells;
	int ncells = 0, opt, rc = 0, times_set = 0;
	double rlo = 0, rhi = 0, bshare;
	FILE *out = stdout;

	memset(&op, 0, sizeof(op));
	op.reps = 5;
	op.run_ms = 200;
	op.capacity = PFR_BENCH_CAPACITY;
	op.peers = 1;
	op.payloads[0] = 8;
	op.payloads[1] = 64;
	op.payloads[2] = PFR_MW_MIX;
	op.np = 3;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		unsigned long long v;

		switch (opt) {
		case 'w':
			if (parse_list(optarg, &op))
				return pfr_cli_usage_error(
					"bench",
					"--writers wants a list of 1..%d",
					PFR_MW_MAX_WRITERS);
			break;
		case 'P':
			if (parse_payloads(optarg, &op))
				return pfr_cli_usage_error(
					"bench", "with --writers, --payloads "
						 "wants a list of 8,64,mix");
			break;
		case 'X':
			op.processes = 1;
			break;
		case 'T':
			op.processes = 0;
			break;
		case 's':
			op.placement = 1;
			break;
		case 'r':
			if (pfr_cli_parse_u64(optarg, &v) || v < 1 ||
			    v > MW_MAX_REPS)
				return pfr_cli_usage_error("bench",
							   "--reps wants 1..%d",
							   MW_MAX_REPS);
			op.reps = (int)v;
			break;
		case 't':
			if (pfr_cli_parse_u64(optarg, &v) || v < 1 || v > 60000)
				return pfr_cli_usage_error(
					"bench", "--time wants 1..60000 ms");
			op.run_ms = (double)v;
			times_set = 1;
			break;
		case 'q':
			op.quick = 1;
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
		case 'o':
			op.only = optarg;
			break;
		case 'N':
			op.peers = 0;
			break;
		case 'j':
			op.json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return pfr_cli_usage_error(
				"bench",
				"with --writers: unknown option or missing "
				"value in '%s'",
				argv[optind - 1]);
		}
	}
	if (optind < argc)
		return pfr_cli_usage_error("bench", "unexpected argument '%s'",
					   argv[optind]);
	if (!op.nw)
		return pfr_cli_usage_error("bench", "--writers wants a list");
	if (op.quick && !times_set)
		op.run_ms = 12;
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		if (sched_getaffinity(0, sizeof(set), &set) ||
		    !CPU_ISSET(pfr_bench_cpu[0], &set) ||
		    !CPU_ISSET(pfr_bench_cpu[1], &set)) {
			pfr_bench_pinned = 0;
			fprintf(stderr,
				"perfring bench: CPUs %d and %d are not "
				"both available: running unpinned\n",
				pfr_bench_cpu[0], pfr_bench_cpu[1]);
		}
	}
	bshare = busy_share(op.quick ? 100 : 300);
	if (bshare > 0.10)
		fprintf(stderr,
			"perfring bench: warning: the bench CPUs were %.0f%% "
			"busy before the run: results will be noisy\n",
			100 * bshare);

	pattern = (uint64_t *)pfr_bench_alloc(64, PFR_BENCH_MAX_PAYLOAD);
	body_sum = (uint64_t *)calloc(PFR_BENCH_MAX_PAYLOAD / 8 + 1, 8);
	collect(op.peers);
	cells = (struct mw_cell *)calloc(
		(size_t)nqueues * (size_t)op.np * (size_t)op.nw + 1,
		sizeof(*cells));
	if (!pattern || !body_sum || !cells) {
		free(pattern);
		free(body_sum);
		free(cells);
		return 1;
	}
	for (size_t i = 0; i < PFR_BENCH_MAX_PAYLOAD / 8; i++)
		pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	for (size_t k = 3; k <= PFR_BENCH_MAX_PAYLOAD / 8; k++)
		body_sum[k] = body_sum[k - 1] + pattern[k - 2];

	for (int i = 0; i < nqueues; i++) {
		char lab[96];

		label(lab, sizeof(lab), queues[i]);
		if (!selected(op.only, queues[i]->name, lab))
			continue;
		if (op.processes && !queues[i]->processes_ok)
			continue;
		for (int w = 0; w < op.nw; w++)
			for (int p = 0; p < op.np; p++) {
				struct mw_cell *c = &cells[ncells++];

				c->q = queues[i];
				c->writers = op.wcount[w];
				c->payload = op.payloads[p];
			}
	}

	pfr_bench_calibrate_ticks();
	/* warm-up: one growing run per cell sizes its runs */
	for (int i = 0; i < ncells; i++) {
		struct mw_cell *c = &cells[i];
		struct mw_out o;
		uint64_t n0 = 4096;
		int err = 0;

		pfr_cli_progress("perfring bench --writers: warm-up",
				 (double)i / (double)(ncells + 1), 0);
		for (int k = 0; k < (op.quick ? 3 : 8); k++) {
			err = one_run(c, &op, n0, &o);
			if (err || o.window_ms >= op.run_ms / 4 ||
			    n0 >= (1ull << 31))
				break;
			n0 *= 4;
		}
		if (err == -2) {
			c->unsupported = 1;
			continue;
		}
		if (err) {
			c->failed = 1;
			snprintf(c->why, sizeof(c->why), "%s", o.why);
			continue;
		}
		c->messages += o.delivered;
		c->n = (uint64_t)(o.mps * op.run_ms / 1000.0);
		if (c->n < 4096)
			c->n = 4096;
		if (c->n > 2000000000ull)
			c->n = 2000000000ull;
	}

	/* interleaved repetitions, each between two round-trip probes */
	for (int r = 0; r < op.reps; r++) {
		for (int i = 0; i < ncells; i++) {
			struct mw_cell *c = &cells[i];
			struct mw_out o;
			double a, b;
			int err, tries = 0;

			if (c->unsupported || c->failed)
				continue;
			pfr_cli_progress("perfring bench --writers: runs",
					 ((double)r * ncells + i) /
						 ((double)op.reps * ncells),
					 0);
			do {
				a = probe_rtt(op.quick);
				err = one_run(c, &op, c->n, &o);
				b = probe_rtt(op.quick);
			} while (!err && tries++ < 1 && a > 0 && b > 0 &&
				 (a > RTT_MOVED * b || b > RTT_MOVED * a));
			if (err) {
				c->failed = 1;
				snprintf(c->why, sizeof(c->why), "%s", o.why);
				continue;
			}
			c->messages += o.delivered;
			c->mps[c->nreps] = o.mps;
			c->rtt[c->nreps] = a > 0 && b > 0 ? sqrt(a * b) : 0;
			c->p99[c->nreps] = o.p99;
			c->smax[c->nreps] = o.smax;
			c->stall_share[c->nreps] = o.share;
			c->wmin[c->nreps] = o.wmin;
			c->wmax[c->nreps] = o.wmax;
			c->busy[c->nreps] = o.busy;
			c->capped += o.capped;
			c->nreps++;
		}
	}
	pfr_cli_progress("perfring bench --writers", 1, 1);
	choose_runs(cells, ncells, &rlo, &rhi);

	print_meta(out, &op, rlo, rhi, bshare, cells, ncells);
	if (!op.json)
		fprintf(out,
			"\n%-26s %2s %4s %8s  %-15s %7s %7s %9s %9s %6s "
			"%s\n",
			"contestant", "w", "B", "M msg/s", "  range", "wr min",
			"wr max", "stall p99", "stall max", "stall", "flags");
	if (!op.json)
		fprintf(out, "%-26s %2s %4s %8s  %-15s %7s %7s %9s %9s %6s\n",
			"", "", "", "(median)", "", "M/s", "M/s", "us", "us",
			"share");
	for (int i = 0; i < ncells; i++) {
		print_cell(out, &cells[i], &op);
		if (cells[i].failed)
			rc = 1;
	}
	targets(out, cells, ncells, &op);
	if (!op.json) {
		/* 8 writers on 2 CPUs: the reader's stall */
		for (int i = 0; i < ncells; i++) {
			const struct mw_cell *c = &cells[i];
			char lab[96], pn[24];

			if (((c->q->kind & PFR_MW_KIND_MASK) !=
				     PFR_MW_KIND_GROUP &&
			     (c->q->kind & PFR_MW_KIND_MASK) !=
				     PFR_MW_KIND_MPSC) ||
			    c->writers < 3 || c->failed || c->unsupported)
				continue;
			label(lab, sizeof(lab), c->q);
			fprintf(out,
				"  %s, %u writers on 2 CPUs, %s B: reader "
				"stall p99 %.1f us, max %.1f us; slowest "
				"writer %.2f M/s (none starved)\n",
				lab, c->writers,
				payload_name(c->payload, pn, sizeof(pn)),
				cell_med(c, c->p99, NULL, NULL) / 1e3,
				cell_maxv(c, c->smax) / 1e3,
				cell_med(c, c->wmin, NULL, NULL));
		}
	}
	free(pattern);
	free(body_sum);
	free(cells);
	return rc;
}
