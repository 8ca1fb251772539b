/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/placement.c - the vCPU placements of the one-writer bench (see
 * bench/spsc/spsc.h): which runs came from which placement, and the one the
 * results are taken from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spsc.h"

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
static int in_band(double rtt, const struct band *b)
{
	return rtt >= b->lo && rtt <= b->hi;
}

int cell_runs_in(const struct cell *c, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < c->nreps; r++)
		k += c->ok[r] && in_band(c->rtt[r], b);
	return k;
}

int lat_runs_in(const struct lat_cell *l, const struct band *b)
{
	int k = 0;

	for (int r = 0; r < l->nreps; r++)
		k += in_band(l->rtt[r], b);
	return k;
}

/* Groups every run's round trip into placements; returns how many, with
 * the reference one in *ref. */
int find_bands(const struct cell *cells, int ncells,
	       const struct lat_cell *lats, int nlats, int need, struct band *b,
	       int *ref)
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
void use_band(struct cell *cells, const struct cell *all_cells, int ncells,
	      struct lat_cell *lats, const struct lat_cell *all_lats, int nlats,
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
int band_reportable(const struct cell *all_cells, int ncells,
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
double placement_rtt(const struct cell *cells, int ncells, double none)
{
	double v[MAX_REPS];
	int n = 0;

	for (int i = 0; i < ncells && n < MAX_REPS; i++)
		if (cells[i].nreps)
			v[n++] = cell_rtt(&cells[i]);
	return n ? median(v, n, NULL, NULL) : none;
}

/* One probe of the round trip (a short one: about a millisecond). */
double probe_rtt(int quick)
{
	double p50 = 0, mean;

	if (bench_rtt(quick ? 500 : 2000, &p50, &mean))
		return 0;
	return p50;
}

int choose_placement(struct bench *b)
{
	struct meta *m = &b->m;

	m->rtt_min = m->rtt_max = b->rtt_round[0];
	for (int r = 1; r < b->nrounds; r++) {
		if (b->rtt_round[r] < m->rtt_min)
			m->rtt_min = b->rtt_round[r];
		if (b->rtt_round[r] > m->rtt_max)
			m->rtt_max = b->rtt_round[r];
	}
	m->nbands = find_bands(b->cells, b->ncells, b->lats, b->nlats,
			       b->op.reps, m->bands, &m->ref);
	/* every run, before each placement's copy keeps its own */
	b->all_cells = (struct cell *)malloc((size_t)(b->ncells + 1) *
					     sizeof(*b->cells));
	b->all_lats = (struct lat_cell *)malloc((size_t)(b->nlats + 1) *
						sizeof(*b->lats));
	if (!b->all_cells || !b->all_lats)
		return -1;
	memcpy(b->all_cells, b->cells, (size_t)b->ncells * sizeof(*b->cells));
	memcpy(b->all_lats, b->lats, (size_t)b->nlats * sizeof(*b->lats));
	if (m->nbands)
		use_band(b->cells, b->all_cells, b->ncells, b->lats,
			 b->all_lats, b->nlats, &m->bands[m->ref], b->op.reps);
	return 0;
}
