/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/method.c - the method of the many-writer bench (see
 * bench/mw/cmd.h): the contestants, one verified run, the warm-up that
 * sizes the runs, the interleaved repetitions and the placement the
 * results come from.
 */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../util/util.h"
#include "cmd.h"

const struct bench_mw_queue *mw_queues[64];
int mw_nqueues;
uint64_t *mw_pattern, *mw_body_sum;

static void add(const struct bench_mw_queue *t)
{
	for (; t && t->name; t++)
		if (mw_nqueues <
		    (int)(sizeof(mw_queues) / sizeof(mw_queues[0])))
			mw_queues[mw_nqueues++] = t;
}

void mw_collect(int peers)
{
	add(bench_mw_perfring);
	if (!peers)
		return;
#ifdef PFR_BENCH_HAVE_DPDK
	add(bench_mw_dpdk);
#endif
#ifdef PFR_BENCH_HAVE_CK
	add(bench_mw_ck);
#endif
#ifdef PFR_BENCH_HAVE_URCU
	add(bench_mw_urcu);
#endif
#ifdef PFR_BENCH_HAVE_MWCXX
	add(bench_mw_cxx);
#endif
	add(bench_mw_peers);
}

void mw_label(char *buf, size_t len, const struct bench_mw_queue *q)
{
	snprintf(buf, len, "%s%s%s", q->name, q->variant[0] ? " " : "",
		 q->variant);
}

int mw_selected(const char *list, const char *name, const char *lab)
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

_Static_assert(MW_MAX_REPS <= PFR_BENCH_MEDIAN_MAX, "medians of every run");

/* The median (and range) of field v over the runs the cell reports. */
double mw_cell_med(const struct mw_cell *c, const double *v, double *lo,
		   double *hi)
{
	double t[MW_MAX_REPS];
	int k = 0;

	for (int r = 0; r < c->nreps; r++)
		if (c->used[r])
			t[k++] = v[r];
	return bench_median(t, k, lo, hi);
}

double mw_cell_maxv(const struct mw_cell *c, const double *v)
{
	double m = 0;

	for (int r = 0; r < c->nreps; r++)
		if (c->used[r] && v[r] > m)
			m = v[r];
	return m;
}

const char *mw_payload_name(size_t p, char *buf, size_t len)
{
	if (p == PFR_MW_MIX)
		snprintf(buf, len, "mix");
	else
		snprintf(buf, len, "%zu", p);
	return buf;
}

/* ---- placement ---- */

/* The CPUs of the affinity mask, in order (at most max); 0 when it
 * cannot be read. */
static int mask_cpus(int *cpu, int max)
{
	cpu_set_t set;
	int n = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpu[n++] = c;
	return n;
}

void mw_place(const struct mw_opts *op, unsigned writers, int *cpus,
	      struct mw_place *pl)
{
	int mask[PFR_MW_MAX_WRITERS + 1];
	int nm = mask_cpus(mask, PFR_MW_MAX_WRITERS + 1);

	memset(pl, 0, sizeof(*pl));
	pl->pinned = bench_pinned && (op->ncpus || nm);
	for (unsigned w = 0; w <= writers; w++) {
		if (!pl->pinned)
			cpus[w] = -1;
		else if (op->ncpus == 1)
			cpus[w] = op->cpus[0];
		else if (op->ncpus)
			/* the reader's, then the writers' part in turn */
			cpus[w] = w ? op->cpus[1 +
					       (w - 1) % (unsigned)(op->ncpus -
								    1)]
				    : op->cpus[0];
		else
			/* the others while they last, then all in turn */
			cpus[w] = mask[w % (unsigned)nm];
	}
	for (unsigned w = 1; w <= writers; w++) {
		int others = 0;

		for (unsigned v = 1; v <= writers; v++)
			others += v != w && cpus[v] == cpus[w];
		pl->reader_shared |= !pl->pinned || cpus[w] == cpus[0];
		if (!pl->pinned || others)
			pl->timeshared++;
		else if (cpus[w] == cpus[0])
			pl->reader++;
		else
			pl->own++;
	}
}

const char *mw_place_name(const struct mw_place *pl)
{
	if (pl->timeshared)
		return MW_PLACE_TS;
	return pl->reader ? MW_PLACE_READER : MW_PLACE_OWN;
}

static double mw_probe_rtt(int quick)
{
	double p50 = 0, mean;

	if (bench_rtt(quick ? 500 : 2000, &p50, &mean))
		return 0;
	return p50;
}

/* ---- one run ---- */

static double hist_pct(const struct bench_mw_run *run, double p)
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
			return bench_ticks_to_ns(
				(double)bench_mw_bucket_low(b));
	}
	return 0;
}

int mw_one_run(const struct mw_cell *c, const struct mw_opts *op, uint64_t n,
	       struct mw_out *o)
{
	struct bench_mw_run *run;
	uint64_t w0;
	double wall;
	int err, rc = 0;

	memset(o, 0, sizeof(*o));
	run = (struct bench_mw_run *)mmap(NULL, sizeof(*run),
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
	run->msg = mw_pattern;
	run->body_sum = mw_body_sum;
	/* writers stop past 20 times the target (a writer spinning on a
	 * preempted one sharing its CPU can make a run last minutes) */
	run->deadline_ns = (uint64_t)(op->run_ms * 20 * 1e6) + 2000000000ull;
	w0 = bench_now_ns();
	err = bench_mw_run_once(c->q, run, c->cpus);
	wall = (double)(bench_now_ns() - w0);
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
		const struct bench_mw_writer *w = &run->w[i];
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
	o->fair = run->fair_max ? (double)run->fair_min / (double)run->fair_max
				: 1.0;
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
			o->smax = bench_ticks_to_ns(
				(double)bench_mw_bucket_low((unsigned)b));
			break;
		}
	o->share = wall > 0 ? bench_ticks_to_ns((double)run->stall_ticks) / wall
			    : 0;
	/* the reader lost its CPU: others' jobs (with one or more
	 * writers on the reader's CPU that is the method, not noise) */
	o->busy = !c->place.reader_shared && run->nivcsw[0] >= 2 &&
		  run->share[0] < 0.9;
out:
	munmap(run, sizeof(*run));
	return rc;
}

/* ---- placement: the band of round trips with most runs ---- */

void mw_choose_runs(struct mw_cell *cells, int ncells, double *ref_lo,
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
	qsort(v, (size_t)n, sizeof(double), bench_cmp_d);
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

struct warm_ctx {
	const struct mw_cell *c;
	const struct mw_opts *op;
	struct mw_out o;
};

static int warm_run(void *ctx, uint64_t n, double *window_ms, double *mps)
{
	struct warm_ctx *w = (struct warm_ctx *)ctx;
	int err = mw_one_run(w->c, w->op, n, &w->o);

	*window_ms = w->o.window_ms;
	*mps = w->o.mps;
	return err;
}

void mw_warm_up(struct mw_cell *cells, int ncells, const struct mw_opts *op)
{
	for (int i = 0; i < ncells; i++) {
		struct mw_cell *c = &cells[i];
		struct warm_ctx w = {.c = c, .op = op};
		int err;

		util_progress("perfring bench --writers: warm-up",
			      (double)i / (double)(ncells + 1), 0);
		err = bench_calibrate(warm_run, &w, 4096, op->quick, op->run_ms,
				      &c->n);
		if (err == -2) {
			c->unsupported = 1;
		} else if (err) {
			c->failed = 1;
			snprintf(c->why, sizeof(c->why), "%s", w.o.why);
		}
		if (!err)
			c->messages += w.o.delivered;
	}
}

/* One repetition of c between two round-trip probes (again once when
 * the probes disagree). */
static void mw_rep(struct mw_cell *c, const struct mw_opts *op)
{
	struct mw_out o;
	double a, b;
	int err, tries = 0;

	do {
		a = mw_probe_rtt(op->quick);
		err = mw_one_run(c, op, c->n, &o);
		b = mw_probe_rtt(op->quick);
	} while (!err && tries++ < 1 && a > 0 && b > 0 &&
		 (a > RTT_MOVED * b || b > RTT_MOVED * a));
	if (err) {
		c->failed = 1;
		snprintf(c->why, sizeof(c->why), "%s", o.why);
		return;
	}
	c->messages += o.delivered;
	c->mps[c->nreps] = o.mps;
	c->rtt[c->nreps] = a > 0 && b > 0 ? sqrt(a * b) : 0;
	c->p99[c->nreps] = o.p99;
	c->smax[c->nreps] = o.smax;
	c->stall_share[c->nreps] = o.share;
	c->wmin[c->nreps] = o.wmin;
	c->wmax[c->nreps] = o.wmax;
	c->fair[c->nreps] = o.fair;
	c->busy[c->nreps] = o.busy;
	c->capped += o.capped;
	c->nreps++;
}

void mw_rounds(struct mw_cell *cells, int ncells, const struct mw_opts *op)
{
	for (int r = 0; r < op->reps; r++) {
		for (int i = 0; i < ncells; i++) {
			if (cells[i].unsupported || cells[i].failed)
				continue;
			util_progress("perfring bench --writers: runs",
				      ((double)r * ncells + i) /
					      ((double)op->reps * ncells),
				      0);
			mw_rep(&cells[i], op);
		}
	}
	util_progress("perfring bench --writers", 1, 1);
}
