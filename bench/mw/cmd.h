/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/cmd.h - the many-writer bench of perfring-bench (--writers),
 * shared between its parts: the method (bench/mw/method.c: the
 * contestants, one verified run, warm-up, repetitions, the placement the
 * results come from), the report (bench/mw/report.c) and the command
 * (bench/mw/cmd.c: options).  Internal to the program.
 *
 * Method (as the one-writer bench): every contestant, payload and writer
 * count (a "cell") runs once as warm-up, which sizes its runs to --time;
 * then the repetitions go round all cells in turn, each run bracketed by
 * two cache-line round-trip probes; a run whose probes disagree by more
 * than RTT_MOVED (the host moved the vCPUs) is repeated once.  Results
 * come from one placement: the band of round trips holding most runs; a
 * cell with fewer than half its runs there reports all its runs and is
 * flagged "mixed".  Every message is verified (writer, its per-writer
 * sequence number, length and sum); a run with a bad or a missing
 * message, or a writer that sent nothing, fails the cell and the command
 * (exit 1).
 */
#ifndef PFR_BENCH_MW_CMD_H
#define PFR_BENCH_MW_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "mw.h"
#include "../core/probes.h"

#define MW_MAX_REPS 32
#define MW_MAX_WCOUNTS 8
#define RTT_MOVED 1.3
#define RTT_GAP 1.35

/* Where a cell's writers run: how many have a CPU of their own, share
 * the reader's (and no other writer's), or share a CPU with another
 * writer (time-shared: they interleave by preemption). */
struct mw_place {
	unsigned own, reader, timeshared;
	int reader_shared; /* a writer (any) runs on the reader's CPU */
	int pinned; /* 0: the CPUs were not available, nothing pinned */
};
#define MW_PLACE_OWN "own CPU"
#define MW_PLACE_READER "shared with reader"
#define MW_PLACE_TS "time-shared"

struct mw_cell {
	const struct bench_mw_queue *q;
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
	double fair[MW_MAX_REPS]; /* slowest writer's messages / fastest's */
	int busy[MW_MAX_REPS];
	int capped; /* runs stopped at the deadline */
	int mixed; /* results from more than one placement */
	int used[MW_MAX_REPS]; /* runs the results use */
	uint64_t messages; /* verified, all runs */
	int cpus[PFR_MW_MAX_WRITERS + 1]; /* reader's CPU, then writers' */
	struct mw_place place;
};

struct mw_opts {
	int quick, json, reps, processes, peers;
	/* the CPU list: the reader's, then the writers' (cycled when
	 * there are more writers); ncpus 0: the default (every CPU of the
	 * affinity mask, the reader on the first, writers on the others
	 * while they last, then on all of them in turn) */
	int cpus[PFR_MW_MAX_WRITERS + 1];
	int ncpus, cpus_given;
	const char *plot; /* --plot FILE, or NULL */
	int reader_only; /* --reader: the group's reader alone */
	unsigned wcount[MW_MAX_WCOUNTS];
	int nw;
	size_t payloads[4];
	int np;
	double run_ms;
	size_t capacity;
	const char *only;
};

struct mw_out {
	double mps, window_ms, p99, smax, share, wmin, wmax, fair;
	int busy, capped;
	uint64_t delivered;
	char why[128];
};

/* ---- method.c ---- */

/* The CPUs of a cell of `writers` writers (cpus[0] the reader's, then a
 * writer's each) and their placement. */
void mw_place(const struct mw_opts *op, unsigned writers, int *cpus,
	      struct mw_place *pl);
/* The placement's name: the most shared kind any writer has. */
const char *mw_place_name(const struct mw_place *pl);

extern const struct bench_mw_queue *mw_queues[64];
extern int mw_nqueues;
/* The message pattern, and the sum of its inner words per length. */
extern uint64_t *mw_pattern, *mw_body_sum;
void mw_collect(int peers);
void mw_label(char *buf, size_t len, const struct bench_mw_queue *q);
/* Whether --only (list) names the contestant (by name, label, or the
 * name's first word). */
int mw_selected(const char *list, const char *name, const char *lab);
/* The median (and range) of field v over the runs the cell reports. */
double mw_cell_med(const struct mw_cell *c, const double *v, double *lo,
		   double *hi);
double mw_cell_maxv(const struct mw_cell *c, const double *v);
const char *mw_payload_name(size_t p, char *buf, size_t len);
int mw_one_run(const struct mw_cell *c, const struct mw_opts *op, uint64_t n,
	       struct mw_out *o);
/* The reference placement: marks the runs each cell reports. */
void mw_choose_runs(struct mw_cell *cells, int ncells, double *ref_lo,
		    double *ref_hi);
/* One growing run per cell, which sizes its runs. */
void mw_warm_up(struct mw_cell *cells, int ncells, const struct mw_opts *op);
/* --reps interleaved rounds over every cell. */
void mw_rounds(struct mw_cell *cells, int ncells, const struct mw_opts *op);

/* ---- method_reader.c ---- */

/* --reader: the group's readers (drain, consume) against the single
 * ring's consume, one thread; returns the exit status. */
int mw_reader_only(const struct mw_opts *op);

/* ---- report.c ---- */

/* Every result, the targets and the readers' stalls; returns the exit
 * status (1 when a cell failed). */
int mw_report(FILE *out, const struct mw_cell *cells, int ncells,
	      const struct mw_opts *op, double rlo, double rhi, double bshare);
/* --plot: throughput against writers, a line per contestant, a panel
 * per payload (gnuplot); 0 or -1. */
int mw_plot(const char *file, const struct mw_cell *cells, int ncells,
	    const struct mw_opts *op, double rlo, double rhi);

#endif
