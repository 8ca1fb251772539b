/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/method.c - the method of the one-writer bench (see bench/spsc/spsc.h):
 * the contestants of this build, one verified run, the warm-up that sizes
 * the runs, the repetitions in interleaved rounds, and the statistics
 * (medians and ranges) the report uses.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/common.h>
#include <perfring/ring.h>

#include "../../util/util.h"
#include "spsc.h"

/* ---- small helpers ---- */

_Static_assert(MAX_REPS <= PFR_BENCH_MEDIAN_MAX, "medians of every run");

int cmp_d(const void *a, const void *b)
{
	return bench_cmp_d(a, b);
}

double median(const double *v, int n, double *lo, double *hi)
{
	return bench_median(v, n, lo, hi);
}

const char *ord_name(int o)
{
	return o < 0 ? "" : pfr_ordering_name((enum pfr_ordering)o);
}

const char *pol_name(int p)
{
	return p < 0 ? "" : pfr_policy_name((enum pfr_policy)p);
}

/* "perfring acqrel batch", "rte_ring burst", "perfring acqrel drop" ... */
void label(char *buf, size_t len, const struct bench_queue *q)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s%s", q->name,
		 q->ordering >= 0 ? " " : "", ord_name(q->ordering),
		 q->variant[0] ? " " : "", q->variant,
		 q->policy == PFR_POLICY_DROP ? " drop" : "",
		 q->processes ? " processes" : "", "");
}

/* Under ThreadSanitizer (which barrier.h answers with the C11 backend)
 * the orderings built on standalone fences - FULL, and CTRLDEP's A - are
 * left out: TSan does not model fences and reports races that are not
 * there.  ACQREL (acquire loads, release stores) it checks fully. */
int tsan_ok(int ordering)
{
#ifdef PFR__TSAN
	return ordering != PFR_ORDER_FULL && ordering != PFR_ORDER_CTRLDEP;
#else
	(void)ordering;
	return 1;
#endif
}

/* --wait-idle: waits up to secs seconds for the two CPUs to be less than
 * 10% busy over half a second; returns the last share measured. */
double wait_idle(double secs)
{
	uint64_t t0 = bench_now_ns();
	double share = busy_share(500);
	int said = 0;

	while (share > 0.10 && (double)(bench_now_ns() - t0) / 1e9 < secs) {
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

const struct bench_queue *all_queues[64];
int nqueues;

static void add_table(const struct bench_queue *t)
{
	for (; t && t->name; t++)
		if (nqueues < (int)(sizeof(all_queues) / sizeof(all_queues[0])))
			all_queues[nqueues++] = t;
}

void collect_queues(void)
{
	nqueues = 0;
	add_table(bench_perfring);
	add_table(bench_perfring_walimit);
#ifdef PFR_BENCH_HAVE_DPDK
	add_table(bench_dpdk);
#endif
#ifdef PFR_BENCH_HAVE_CK
	add_table(bench_ck);
#endif
#ifdef PFR_BENCH_HAVE_CXX
	add_table(bench_cxx);
#endif
	add_table(bench_mutex);
}

int name_selected(const char *list, const char *name)
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
const char *only_unknown(const char *list, char *buf, size_t len)
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

const uint64_t *msg_pattern;

/* A run of n messages of cell c through a queue of cap bytes (the
 * caller sets its warm-up). */
static void run_init(struct bench_run *run, const struct cell *c, size_t cap,
		     uint64_t n)
{
	memset(run, 0, sizeof(*run));
	run->n = n;
	run->payload = c->payload;
	run->capacity = cap;
	run->batch = c->q->batched ? c->batch : 1;
	run->rbatch = c->q->reader_single ? 1 : c->batch;
	run->ordering = c->q->ordering;
	run->policy = c->q->policy;
	run->msg = msg_pattern;
	run->body_sum = pfr__payload_body_sum(msg_pattern, c->payload / 8);
}

static int one_run(const struct cell *c, uint64_t n, size_t capacity,
		   struct run_out *o)
{
	struct bench_run run;
	struct bench_cpustat s0, s1;
	int err, have_stat;
	uint64_t w0;
	double wall;

	memset(o, 0, sizeof(*o));
	run_init(&run, c, capacity, n);
	/* DROP: the consumer may receive fewer than n/8 messages; its
	 * clock starts at the first one */
	run.warm = n / 8 && c->q->policy != PFR_POLICY_DROP ? n / 8 : 1;
	have_stat = bench_cpustat(&s0) == 0;
	w0 = bench_now_ns();
	if (c->q->run_pair)
		err = c->q->run_pair(c->q, &run);
	else
		err = bench_run_threads(c->q, &run);
	wall = (double)(bench_now_ns() - w0);
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
	if (have_stat && bench_cpustat(&s1) == 0) {
		double tot = (double)(s1.busy - s0.busy) +
			     (double)(s1.idle - s0.idle) +
			     (double)(s1.steal - s0.steal);

		if (tot > 0 && (double)(s1.steal - s0.steal) / tot > 0.05)
			o->busy = 1;
	}
	return 0;
}

double cell_rtt(const struct cell *c)
{
	return median(c->rtt, c->nreps, NULL, NULL);
}

void cell_stats(const struct cell *c, double *med, double *lo, double *hi)
{
	double v[MAX_REPS];
	int k = 0;

	for (int i = 0; i < c->nreps; i++)
		if (c->ok[i])
			v[k++] = c->mps[i];
	*med = median(v, k, lo, hi);
}

/* ---- --single-thread: instruction counts per message ---- */

/* The producer loop writes k messages, then the consumer loop reads them,
 * on this one thread, until op->single messages went through: under
 * callgrind, each loop's inclusive instruction count divided by the
 * messages is its cost per message, free of the other CPU's noise.  k is
 * a quarter of the queue, so neither side ever waits. */
int single_thread(struct cell *cells, int ncells, const struct opts *op)
{
	int rc = 0;

	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		struct bench_run run;
		size_t cap = PFR_BENCH_CAPACITY_FOR(op->capacity, c->payload);
		uint64_t k = cap / 4 / (c->payload + 8), done = 0;
		void *q;
		char lab[96];

		if (c->q->processes)
			continue;
		if (k > 1024)
			k = 1024;
		run_init(&run, c, cap, k);
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

/* ---- the machine's limits ---- */

void probe_limits(struct bench *b)
{
	const struct opts *op = &b->op;
	double p50, mean;

	util_progress("perfring bench: probes", 0, 0);
	bench_calibrate_ticks();
	if (bench_rtt(op->quick ? 20000 : 200000, &p50, &mean) == 0)
		b->rtt_mean0 = mean;
	b->nbar = bench_barriers(b->bar, 16, op->quick ? 200000 : 2000000);
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		size_t cap;

		if (!op->payload_on[p])
			continue;
		cap = PFR_BENCH_CAPACITY_FOR(op->capacity, bench_payloads[p]);
		b->memcpy_gbps[p] =
			bench_memcpy_gbps(bench_payloads[p], cap,
					  op->quick ? 10000000 : 100000000);
	}
	b->xcore_gbps[0] = bench_xcore_gbps(op->capacity, op->quick ? 50 : 400);
	b->xcore_gbps[1] = bench_xcore_gbps(
		PFR_BENCH_CAPACITY_FOR(op->capacity, PFR_BENCH_MAX_PAYLOAD),
		op->quick ? 20 : 100);
}

/* ---- warm-up: one run per cell, which also sizes the runs ---- */

struct warm_ctx {
	const struct cell *c;
	size_t cap;
	struct run_out o;
};

static int warm_run(void *ctx, uint64_t n, double *window_ms, double *mps)
{
	struct warm_ctx *w = (struct warm_ctx *)ctx;
	int err = one_run(w->c, n, w->cap, &w->o);

	*window_ms = w->o.window_ms;
	*mps = w->o.mps;
	return err;
}

static void warm_cell(struct cell *c, const struct opts *op)
{
	struct warm_ctx w = {
		.c = c,
		.cap = PFR_BENCH_CAPACITY_FOR(op->capacity, c->payload),
	};
	/* at least four passes over the queue per run */
	uint64_t nmin = 4 * (w.cap / (c->payload + 8));
	int err;

	if (nmin < 256)
		nmin = 256;
	err = bench_calibrate(warm_run, &w, nmin, op->quick, op->run_ms, &c->n);
	/* a refused setup is "not supported", not a failure */
	if (err == -2) {
		c->unsupported = 1;
	} else if (err) {
		c->failed = 1;
		snprintf(c->why, sizeof(c->why), "%s", w.o.why);
	}
}

void warm_up(struct bench *b)
{
	for (int i = 0; i < b->ncells; i++) {
		util_progress("perfring bench: warm-up",
			      (double)i / (double)(b->ncells + 1), 0);
		warm_cell(&b->cells[i], &b->op);
	}
}

/* ---- interleaved repetitions ---- */

/* One repetition of cell c between two round-trip probes, repeated while
 * it was preempted or moved (up to three tries); p50: the round's probe,
 * for a run whose own probes failed. */
static void cell_rep(struct cell *c, const struct opts *op, double p50)
{
	struct run_out o;
	size_t cap = PFR_BENCH_CAPACITY_FOR(op->capacity, c->payload);
	int tries = 0, moved = 0;
	double ra = 0, rb = 0;

	do {
		ra = probe_rtt(op->quick);
		if (one_run(c, c->n, cap, &o)) {
			c->failed = 1;
			snprintf(c->why, sizeof(c->why), "%s", o.why);
			return;
		}
		rb = probe_rtt(op->quick);
		moved = ra > RTT_MOVED * rb || rb > RTT_MOVED * ra;
	} while ((o.busy || moved) && ++tries < (op->quick ? 1 : 3));
	/* a run far over its time (a loaded machine, a blocked producer):
	 * shorten the next ones, down to the warm-up's minimum */
	if (o.wall_ms > 4 * op->run_ms) {
		uint64_t nmin = 4 * (cap / (c->payload + 8));

		c->n = (uint64_t)((double)c->n * op->run_ms / o.wall_ms);
		if (c->n < nmin)
			c->n = nmin;
		if (c->n < 256)
			c->n = 256;
	}
	c->mps[c->nreps] = o.mps;
	c->rtt[c->nreps] = ra > 0 && rb > 0 ? sqrt(ra * rb) : p50;
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

/* One latency repetition of l; p50: the round's probe. */
static void lat_rep(struct lat_cell *l, const struct opts *op, double p50)
{
	double a, b, rt, mean;
	int v = 0;

	/* the cache-line round trip right before, so that the two compare
	 * under the same vCPU placement */
	if (bench_rtt(op->quick ? 2000 : 10000, &rt, &mean))
		rt = p50;
	if (bench_perfring_latency(l->ordering, l->policy, l->flags, l->payload,
				   op->quick ? 1000 : 20000, &a, &b, &v)) {
		l->failed = 1;
		return;
	}
	l->p50[l->nreps] = a;
	l->p99[l->nreps] = b;
	l->rtt[l->nreps] = rt;
	l->nreps++;
	l->verified &= v;
}

static void progress(const struct bench *b, int r, int i, int extra,
		     int max_rounds)
{
	int per = b->ncells + b->nlats;

	util_progress(extra ? "perfring bench: extra rounds "
			      "(placement changed)"
			    : "perfring bench: runs",
		      ((double)r * per + i) /
			      ((double)(extra ? max_rounds : b->op.reps) * per),
		      0);
}

/* Round r: every cell, then every latency; an extra round (past --reps)
 * only those short of --reps runs in the reference placement. */
static void round_once(struct bench *b, int r, int extra, int max_rounds)
{
	const struct opts *op = &b->op;
	const struct band *ref = &b->m.bands[b->m.ref];
	double p50 = 0, mean = 0;

	if (op->wait_idle > 0 && busy_share(200) > 0.10)
		wait_idle(op->wait_idle);
	bench_rtt(op->quick ? 5000 : 50000, &p50, &mean);
	b->rtt_round[r] = p50;
	b->nrounds = r + 1;
	for (int i = 0; i < b->ncells; i++) {
		struct cell *c = &b->cells[i];

		progress(b, r, i, extra, max_rounds);
		if (c->unsupported || c->failed ||
		    (extra && cell_runs_in(c, ref) >= op->reps))
			continue;
		cell_rep(c, op, p50);
	}
	for (int i = 0; i < b->nlats; i++) {
		struct lat_cell *l = &b->lats[i];

		progress(b, r, b->ncells + i, extra, max_rounds);
		if (l->failed || (extra && lat_runs_in(l, ref) >= op->reps))
			continue;
		lat_rep(l, op, p50);
	}
}

void run_rounds(struct bench *b)
{
	const struct opts *op = &b->op;
	struct meta *m = &b->m;
	/* op->reps rounds, then extra rounds (not --quick) for contestants
	 * short of op->reps runs in the reference placement */
	int max_rounds = op->quick ? op->reps : 3 * op->reps;

	if (max_rounds > MAX_REPS)
		max_rounds = MAX_REPS;
	for (int r = 0; r < max_rounds; r++) {
		int extra = r >= op->reps;

		if (extra) {
			int nactive = 0;

			for (int i = 0; i < b->ncells; i++)
				nactive += !b->cells[i].unsupported &&
					   !b->cells[i].failed;
			for (int i = 0; i < b->nlats; i++)
				nactive += !b->lats[i].failed;
			m->nbands = find_bands(b->cells, b->ncells, b->lats,
					       b->nlats, op->reps, m->bands,
					       &m->ref);
			if (!m->nbands || m->bands[m->ref].full >= nactive)
				break;
		}
		round_once(b, r, extra, max_rounds);
	}
	util_progress("perfring bench: runs", 1, 1);
}
