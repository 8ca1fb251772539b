/* SPDX-License-Identifier: MIT */
/*
 * bench/targets.c - the targets of the one-writer bench, as ratios within
 * one run and one placement (see bench/spsc.h): perfring (acqrel, BLOCK,
 * threads) against the best peer, the memcpy bandwidth, the one-way
 * cache-line time, and its orderings against each other.
 */
#include <stdio.h>
#include <string.h>

#include <perfring/ring.h>

#include "spsc.h"

/* The rows the targets compare, found once. */
struct tcells {
	const struct cell *pr1[PFR_BENCH_NPAYLOADS], *prb[PFR_BENCH_NPAYLOADS];
	const struct cell *fu1[PFR_BENCH_NPAYLOADS], *fub[PFR_BENCH_NPAYLOADS];
	/* "single" (tail after every record): [policy][payload] */
	const struct cell *as[2][PFR_BENCH_NPAYLOADS];
	const struct cell *fs[2][PFR_BENCH_NPAYLOADS];
	const struct cell *best1, *bestb, *burst, *aq;
};

struct tout {
	FILE *out;
	const struct opts *op;
};

static double med_of(const struct cell *c)
{
	double v, lo, hi;

	cell_stats(c, &v, &lo, &hi);
	return v;
}

/* perfring's default rows (the other variants, "next": the old reader,
 * "wa-limit": the old write-ahead bound, are kept for comparison). */
static void find_perfring(struct tcells *t, const struct cell *c, int p)
{
	const struct pfr_bench_queue *q = c->q;

	if (strcmp(q->name, "perfring") || q->processes)
		return;
	if (!q->reader_single &&
	    (!strcmp(q->variant, "") || !strcmp(q->variant, "batch")) &&
	    q->policy == PFR_POLICY_BLOCK) {
		if (q->ordering == PFR_ORDER_ACQREL)
			*(q->batched ? &t->prb[p] : &t->pr1[p]) = c;
		if (q->ordering == PFR_ORDER_FULL)
			*(q->batched ? &t->fub[p] : &t->fu1[p]) = c;
	}
	if (q->reader_single && q->policy >= 0 && q->policy < 2) {
		if (q->ordering == PFR_ORDER_ACQREL)
			t->as[q->policy][p] = c;
		if (q->ordering == PFR_ORDER_FULL)
			t->fs[q->policy][p] = c;
	}
}

static void find_cells(struct tcells *t, const struct cell *cells, int ncells)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ncells; i++) {
		const struct cell *c = &cells[i];
		int p = pfr_bench_payload_index(c->payload);
		double v;

		/* no runs in this placement: no ratio either */
		if (c->unsupported || c->failed || p < 0 || !c->nreps)
			continue;
		if (!strncmp(c->q->name, "perfring", 8)) {
			find_perfring(t, c, p);
			continue;
		}
		if (c->payload != 8)
			continue;
		v = med_of(c);
		if (!c->q->batched) {
			if (!t->best1 || v > med_of(t->best1))
				t->best1 = c;
		} else if (!t->bestb || v > med_of(t->bestb)) {
			t->bestb = c;
		}
		if (!strcmp(c->q->name, "rte_ring") && c->q->batched)
			t->burst = c;
		if (!strcmp(c->q->name, "atomic_queue"))
			t->aq = c;
	}
}

/* The start of a target's JSON object. */
static void t_open(const struct tout *o, const char *name)
{
	if (o->op->json)
		fprintf(o->out,
			"{\"kind\":\"target\",\"target\":\"%s\","
			"\"placement\":%d,\"reference\":%s",
			name, o->op->placement,
			o->op->reference ? "true" : "false");
}

static void t_unbatched(const struct tout *o, const struct tcells *t)
{
	const struct cell *peer = t->best1;
	double a, b;
	char lab[96];

	if (!t->pr1[0] || !peer)
		return;
	a = med_of(t->pr1[0]);
	b = med_of(peer);
	label(lab, sizeof(lab), peer->q);
	t_open(o, "8B unbatched >= best unbatched peer");
	if (o->op->json)
		fprintf(o->out, ",\"ratio\":%.3f,\"peer\":\"%s\",\"met\":%s}\n",
			a / b, lab, a >= b ? "true" : "false");
	else if (!o->op->csv)
		fprintf(o->out,
			"  8 B per-record vs best unbatched peer (%s): "
			"%.1f / %.1f M/s = %.2fx %s\n",
			lab, a / 1e6, b / 1e6, a / b,
			a >= b ? "MET" : "missed");
	if (t->aq && t->aq != peer && !o->op->csv && !o->op->json)
		fprintf(o->out, "  8 B per-record vs atomic_queue: %.2fx\n",
			a / med_of(t->aq));
}

static void t_batched(const struct tout *o, const struct tcells *t)
{
	const struct cell *peer = t->burst ? t->burst : t->bestb;
	double a, b;
	char lab[96];

	if (!t->prb[0] || !peer)
		return;
	a = med_of(t->prb[0]);
	b = med_of(peer);
	label(lab, sizeof(lab), peer->q);
	t_open(o, "8B batched >= rte_ring burst");
	if (o->op->json)
		fprintf(o->out, ",\"ratio\":%.3f,\"peer\":\"%s\",\"met\":%s}\n",
			a / b, lab, a >= b ? "true" : "false");
	else if (!o->op->csv)
		fprintf(o->out,
			"  8 B batched vs %s: %.1f / %.1f M/s = %.2fx %s\n",
			lab, a / 1e6, b / 1e6, a / b,
			a >= b ? "MET" : "missed");
}

static void t_memcpy(const struct tout *o, const struct tcells *t,
		     const double *memcpy_gbps, const double *xcore_gbps)
{
	for (int p = 4; p < PFR_BENCH_NPAYLOADS; p++) {
		for (int bt = 0; bt < 2; bt++) {
			const struct cell *c = bt ? t->prb[p] : t->pr1[p];
			double g, x = xcore_gbps[p == 5], mc = memcpy_gbps[p];

			if (!c || mc <= 0)
				continue;
			g = med_of(c) * (double)c->payload / 1e9;
			t_open(o, ">= half memcpy bandwidth");
			if (o->op->json)
				fprintf(o->out,
					",\"payload_bytes\":%zu,\"batched\":%s,"
					"\"ratio\":%.3f,\"gbytes_per_s\":%.2f,"
					"\"memcpy_gbytes_per_s\":%.2f,"
					"\"xcore_gbytes_per_s\":%.2f,"
					"\"met\":%s}\n",
					c->payload, bt ? "true" : "false",
					g / mc, g, mc, x,
					g >= mc / 2 ? "true" : "false");
			else if (!o->op->csv)
				fprintf(o->out,
					"  %zu B %s: %.1f GB/s vs memcpy %.1f "
					"GB/s = %.2fx (target 0.5x) %s; vs "
					"cross-core read %.1f GB/s = %.2fx\n",
					c->payload,
					bt ? "batched" : "per-record", g, mc,
					g / mc, g >= mc / 2 ? "MET" : "missed",
					x, x > 0 ? g / x : 0);
		}
	}
}

static void t_latency(const struct tout *o, const struct lat_cell *lats,
		      int nlats)
{
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
		t_open(o, "latency p50 <= 1.5x one-way");
		if (o->op->json)
			fprintf(o->out,
				",\"policy\":\"%s\",\"ratio\":%.3f,"
				"\"latency_ns_p50\":%.1f,\"one_way_ns\":%.1f,"
				"\"met\":%s}\n",
				pol_name(l->policy), p50 / one, p50, one,
				p50 <= 1.5 * one ? "true" : "false");
		else if (!o->op->csv)
			fprintf(o->out,
				"  latency p50, 8 B, acqrel %s: %.1f ns vs "
				"one-way cache line %.1f ns = %.2fx (target "
				"1.5x) %s\n",
				pol_name(l->policy), p50, one, p50 / one,
				p50 <= 1.5 * one ? "MET" : "missed");
	}
}

static void t_orderings(const struct tout *o, const struct tcells *t)
{
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		for (int bt = 0; bt < 2; bt++) {
			const struct cell *a = bt ? t->prb[p] : t->pr1[p];
			const struct cell *f = bt ? t->fub[p] : t->fu1[p];
			double x, y;

			if (!a || !f)
				continue;
			x = med_of(a);
			y = med_of(f);
			t_open(o, "acqrel / full");
			if (o->op->json)
				fprintf(o->out,
					",\"payload_bytes\":%zu,\"batched\":%s,"
					"\"ratio\":%.3f}\n",
					a->payload, bt ? "true" : "false",
					x / y);
			else if (!o->op->csv)
				fprintf(o->out,
					"  acqrel / full, %zu B %s: %.2fx\n",
					a->payload,
					bt ? "batched" : "per-record", x / y);
		}
	}
	/* per-record on both sides: the reader publishes tail (D) after
	 * every record, as the 2013 code's reader did */
	for (int pol = 0; pol < 2; pol++) {
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
			const struct cell *a = t->as[pol][p],
					  *f = t->fs[pol][p];
			double x, y;

			if (!a || !f)
				continue;
			x = med_of(a);
			y = med_of(f);
			t_open(o, "acqrel / full, tail per record");
			if (o->op->json)
				fprintf(o->out,
					",\"payload_bytes\":%zu,\"policy\":"
					"\"%s\",\"ratio\":%.3f}\n",
					a->payload, pol_name(pol), x / y);
			else if (!o->op->csv)
				fprintf(o->out,
					"  acqrel / full, %zu B, tail per "
					"record, %s: %.2fx\n",
					a->payload, pol_name(pol), x / y);
		}
	}
}

void emit_targets(FILE *out, const struct opts *op, const struct cell *cells,
		  int ncells, const struct lat_cell *lats, int nlats,
		  const double *memcpy_gbps, const double *xcore_gbps)
{
	struct tcells t;
	struct tout o = {out, op};

	find_cells(&t, cells, ncells);
	if (!op->json && !op->csv)
		fprintf(out, "\ntargets (ratios within this run and placement; "
			     "perfring = acqrel, BLOCK, threads)\n");
	t_unbatched(&o, &t);
	t_batched(&o, &t);
	t_memcpy(&o, &t, memcpy_gbps, xcore_gbps);
	t_latency(&o, lats, nlats);
	t_orderings(&o, &t);
}
