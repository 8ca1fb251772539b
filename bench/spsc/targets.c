/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/targets.c - the targets of the one-writer bench, as ratios within
 * one run and one placement (see bench/spsc/spsc.h): perfring (acqrel, BLOCK,
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
	/* acqrel BLOCK, the naive loop on pfr_reader_begin() ("spin") */
	const struct cell *sp1[PFR_BENCH_NPAYLOADS], *spb[PFR_BENCH_NPAYLOADS];
	/* acqrel DROP, per-record and batched */
	const struct cell *pd1[PFR_BENCH_NPAYLOADS], *pdb[PFR_BENCH_NPAYLOADS];
	/* "single" (tail after every record): [policy][payload] */
	const struct cell *as[2][PFR_BENCH_NPAYLOADS];
	const struct cell *fs[2][PFR_BENCH_NPAYLOADS];
	/* the peers, per payload */
	/* best1: one dequeue per message; bestr: one enqueue per message and
	 * the library's batched dequeue (rte_ring "dequeue burst",
	 * boost_spsc "pop batch"), the shape of perfring's per-record rows */
	const struct cell *bestr[PFR_BENCH_NPAYLOADS];
	const struct cell *best1[PFR_BENCH_NPAYLOADS],
		*bestb[PFR_BENCH_NPAYLOADS], *burst[PFR_BENCH_NPAYLOADS],
		*aq[PFR_BENCH_NPAYLOADS];
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
	const struct bench_queue *q = c->q;

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
	if (!strcmp(q->variant, "spin") || !strcmp(q->variant, "batch spin"))
		*(q->batched ? &t->spb[p] : &t->sp1[p]) = c;
	if (!q->reader_single &&
	    (!strcmp(q->variant, "") || !strcmp(q->variant, "batch")) &&
	    q->policy == PFR_POLICY_DROP && q->ordering == PFR_ORDER_ACQREL)
		*(q->batched ? &t->pdb[p] : &t->pd1[p]) = c;
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
		int p = bench_payload_index(c->payload);
		double v;

		/* no runs in this placement: no ratio either */
		if (c->unsupported || c->failed || p < 0 || !c->nreps)
			continue;
		if (!strncmp(c->q->name, "perfring", 8)) {
			find_perfring(t, c, p);
			continue;
		}
		v = med_of(c);
		if (!c->q->batched && *c->q->variant) {
			if (!t->bestr[p] || v > med_of(t->bestr[p]))
				t->bestr[p] = c;
		} else if (!c->q->batched) {
			if (!t->best1[p] || v > med_of(t->best1[p]))
				t->best1[p] = c;
		} else if (!t->bestb[p] || v > med_of(t->bestb[p])) {
			t->bestb[p] = c;
		}
		if (!strcmp(c->q->name, "rte_ring") && c->q->batched)
			t->burst[p] = c;
		if (!strcmp(c->q->name, "atomic_queue"))
			t->aq[p] = c;
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

/* One "perfring against a peer" target: a / b >= 1.  The text line reads
 * "<payload> B <pre><peer's label><post>: ...". */
static void t_peer(const struct tout *o, const char *name, const char *pre,
		   const char *post, const struct cell *mine,
		   const struct cell *peer)
{
	double a = med_of(mine), b = med_of(peer);
	char lab[96];

	label(lab, sizeof(lab), peer->q);
	t_open(o, name);
	if (o->op->json)
		fprintf(o->out,
			",\"payload_bytes\":%zu,\"ratio\":%.3f,\"peer\":\"%s\","
			"\"met\":%s}\n",
			mine->payload, a / b, lab, a >= b ? "true" : "false");
	else if (!o->op->csv)
		fprintf(o->out, "  %zu B %s%s%s: %.1f / %.1f M/s = %.2fx %s\n",
			mine->payload, pre, lab, post, a / 1e6, b / 1e6, a / b,
			a >= b ? "MET" : "missed");
}

/* Per record (perfring's paced reader, and the naive loop on
 * pfr_reader_begin()) against the best unbatched peer (one dequeue per
 * message) and against the best peer whose reader uses its library's
 * batched dequeue; batched against rte_ring's burst (or the best batched
 * peer without it), at each payload both have. */
static void t_peers(const struct tout *o, const struct tcells *t)
{
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		const struct cell *bp = t->burst[p] ? t->burst[p] : t->bestb[p];

		if (t->pr1[p] && t->best1[p])
			t_peer(o, "unbatched >= best unbatched peer",
			       "per-record vs best unbatched peer (", ")",
			       t->pr1[p], t->best1[p]);
		if (t->sp1[p] && t->best1[p])
			t_peer(o, "naive >= best unbatched peer",
			       "naive begin loop (spin) vs best unbatched peer (",
			       ")", t->sp1[p], t->best1[p]);
		if (t->pr1[p] && t->bestr[p])
			t_peer(o, "unbatched >= best peer batched dequeue",
			       "per-record vs best peer, batched dequeue (",
			       ")", t->pr1[p], t->bestr[p]);
		if (t->pr1[p] && t->aq[p] && t->aq[p] != t->best1[p] &&
		    !o->op->csv && !o->op->json)
			fprintf(o->out,
				"  %zu B per-record vs atomic_queue: %.2fx\n",
				t->pr1[p]->payload,
				med_of(t->pr1[p]) / med_of(t->aq[p]));
		if (t->prb[p] && bp)
			t_peer(o, "batched >= rte_ring burst", "batched vs ",
			       "", t->prb[p], bp);
	}
}

/* The naive reader (a loop on pfr_reader_begin(), the "spin" rows)
 * against the one that waits with pfr_reader_poll() (target: >= 0.8x). */
static void t_naive(const struct tout *o, const struct tcells *t)
{
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		for (int bt = 0; bt < 2; bt++) {
			const struct cell *n = bt ? t->spb[p] : t->sp1[p];
			const struct cell *c = bt ? t->prb[p] : t->pr1[p];
			double r;

			if (!n || !c)
				continue;
			r = med_of(n) / med_of(c);
			t_open(o, "naive / paced >= 0.8");
			if (o->op->json)
				fprintf(o->out,
					",\"payload_bytes\":%zu,\"batched\":%s,"
					"\"ratio\":%.3f,\"met\":%s}\n",
					c->payload, bt ? "true" : "false", r,
					r >= 0.8 ? "true" : "false");
			else if (!o->op->csv)
				fprintf(o->out,
					"  naive begin loop (spin) / paced "
					"(poll), %zu B %s: %.2fx (target 0.8x) "
					"%s\n",
					c->payload,
					bt ? "batched" : "per-record", r,
					r >= 0.8 ? "MET" : "missed");
		}
	}
}

/* BLOCK against DROP in each shape the bench runs (target: >= 0.8x).
 * DROP's rate counts the records delivered. */
static void t_block_drop(const struct tout *o, const struct tcells *t)
{
	static const char *const shape[3] = {"per-record", "batched",
					     "tail per record"};

	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
		const struct cell *b[3] = {t->pr1[p], t->prb[p],
					   t->as[PFR_POLICY_BLOCK][p]};
		const struct cell *d[3] = {t->pd1[p], t->pdb[p],
					   t->as[PFR_POLICY_DROP][p]};

		for (int k = 0; k < 3; k++) {
			double r;

			if (!b[k] || !d[k])
				continue;
			r = med_of(b[k]) / med_of(d[k]);
			t_open(o, "block / drop >= 0.8");
			if (o->op->json)
				fprintf(o->out,
					",\"payload_bytes\":%zu,\"shape\":"
					"\"%s\",\"ratio\":%.3f,\"met\":%s}\n",
					b[k]->payload, shape[k], r,
					r >= 0.8 ? "true" : "false");
			else if (!o->op->csv)
				fprintf(o->out,
					"  BLOCK / DROP, %zu B %s: %.2fx "
					"(target 0.8x) %s\n",
					b[k]->payload, shape[k], r,
					r >= 0.8 ? "MET" : "missed");
		}
	}
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
		double p50, one, tgt, ratio[MAX_REPS];
		int inb;

		if (l->ordering != PFR_ORDER_ACQREL || l->payload != 8 ||
		    !l->nreps)
			continue;
		/* each repetition against the round trip measured just
		 * before it; the median of those ratios */
		for (int r = 0; r < l->nreps; r++)
			ratio[r] = l->p50[r] / (l->rtt[r] / 2);
		p50 = median(l->p50, l->nreps, NULL, NULL);
		one = p50 / median(ratio, l->nreps, NULL, NULL);
		/* in band: one line transfer per message, not two */
		inb = !!(l->flags & PFR_RING_INBAND);
		tgt = inb ? 1.3 : 1.5;
		t_open(o, inb ? "latency p50 <= 1.3x one-way (in band)"
			      : "latency p50 <= 1.5x one-way");
		if (o->op->json)
			fprintf(o->out,
				",\"policy\":\"%s\",\"inband\":%s,"
				"\"ratio\":%.3f,"
				"\"latency_ns_p50\":%.1f,\"one_way_ns\":%.1f,"
				"\"met\":%s}\n",
				pol_name(l->policy), inb ? "true" : "false",
				p50 / one, p50, one,
				p50 <= tgt * one ? "true" : "false");
		else if (!o->op->csv)
			fprintf(o->out,
				"  latency p50, 8 B, acqrel %s%s: %.1f ns vs "
				"one-way cache line %.1f ns = %.2fx (target "
				"%.1fx) %s\n",
				pol_name(l->policy), inb ? " inband" : "", p50,
				one, p50 / one, tgt,
				p50 <= tgt * one ? "MET" : "missed");
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
	t_peers(&o, &t);
	t_naive(&o, &t);
	t_block_drop(&o, &t);
	t_memcpy(&o, &t, memcpy_gbps, xcore_gbps);
	t_latency(&o, lats, nlats);
	t_orderings(&o, &t);
}
