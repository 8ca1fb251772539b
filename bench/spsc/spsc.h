/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/spsc.h - the one-writer bench of perfring-bench, shared between
 * its parts: the method (bench/spsc/method.c: runs, repetitions in rounds,
 * statistics; bench/spsc/placement.c: the vCPU placements the results are
 * grouped by), the report (bench/spsc/report.c: table, JSON Lines, CSV;
 * bench/spsc/targets.c: the ratios within a run; bench/spsc/plot.c: gnuplot) and
 * the command (bench/spsc/cmd.c: options, the order of the steps).  Internal
 * to the program.
 *
 * Method: the producer runs on one CPU, the consumer on another (pinned);
 * every contestant and payload (a "cell") first runs once as warm-up,
 * which also sizes the runs to a target duration; then the repetitions go
 * round all cells in turn (A B C ... A B C ...), each run bracketed by two
 * cache-line round-trip probes (the host moves the vCPUs, and every result
 * is taken from one placement: bench/spsc/placement.c).  Every delivered
 * message is verified (util/payload.h).  A run in which a bench thread
 * was preempted (involuntary context switches while it got less than 90%
 * of the CPU) or the host stole more than 5% of the CPUs, or whose
 * placement changed during it, is repeated, up to twice; "busy" flags a
 * result whose runs stayed preempted, "few-runs" one with fewer than
 * --reps runs in the reported placement.  Reported: the median and the
 * range over the repetitions.
 */
#ifndef PFR_BENCH_SPSC_H
#define PFR_BENCH_SPSC_H

#include <stdint.h>
#include <stdio.h>

#include "../core/bench.h"
#include "../core/probes.h"

#define MAX_REPS 64
#define MAX_BANDS 8
/* A run whose two round-trip probes differ by more than this factor
 * moved; placements are split where sorted round trips jump by more than
 * RTT_GAP. */
#define RTT_MOVED 1.3
#define RTT_GAP 1.35

/* One contestant at one payload: its runs. */
struct cell {
	const struct bench_queue *q;
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

/* perfring's one-way latency at one ordering, policy and payload. */
struct lat_cell {
	int ordering, policy;
	uint32_t flags; /* PFR_RING_* of both rings (PFR_RING_INBAND) */
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

/* A placement of the two vCPUs: a band of cache-line round trips. */
struct band {
	double lo, hi;
	int runs; /* runs (throughput and latency) in the band */
	int full; /* contestants with at least --reps runs in it */
};

struct meta {
	char cpu[256], kernel[256];
	int ncpu;
	double rtt_min, rtt_max;
	struct band bands[MAX_BANDS];
	int nbands, ref; /* ref: the placement the results come from */
	int busy_start;
	double busy_start_share;
};

/* Everything one run of the command measured. */
struct bench {
	struct opts op;
	struct meta m;
	struct cell *cells, *all_cells; /* all_*: every run, any placement */
	struct lat_cell *lats, *all_lats;
	int ncells, nlats;
	double memcpy_gbps[PFR_BENCH_NPAYLOADS];
	double xcore_gbps[2]; /* 256 KiB, 1 MiB working sets */
	double rtt_round[MAX_REPS], rtt_mean0;
	int nrounds;
	struct bench_barrier_cost bar[16];
	int nbar;
	FILE *out;
};

/* ---- method.c: statistics, names, the contestants, runs ---- */

/* Median of v[0..n-1], its minimum and maximum into *lo, *hi (may be
 * NULL); 0 for n <= 0. */
double median(const double *v, int n, double *lo, double *hi);
int cmp_d(const void *a, const void *b);
/* Median, minimum and maximum of a cell's runs in its placement. */
void cell_stats(const struct cell *c, double *med, double *lo, double *hi);
double cell_rtt(const struct cell *c);
const char *ord_name(int o);
const char *pol_name(int p);
/* "perfring acqrel batch", "rte_ring burst", "perfring acqrel drop" ... */
void label(char *buf, size_t len, const struct bench_queue *q);
int tsan_ok(int ordering);
/* --wait-idle: waits up to secs seconds for the CPUs to calm down. */
double wait_idle(double secs);

/* The contestants linked into this build. */
extern const struct bench_queue *all_queues[64];
extern int nqueues;
void collect_queues(void);
int name_selected(const char *list, const char *name);
/* The first name of an --only list that names no contestant, or NULL. */
const char *only_unknown(const char *list, char *buf, size_t len);

/* The message every producer sends (pattern words). */
extern const uint64_t *msg_pattern;
/* The machine's limits: round trip, barriers, memcpy, cross-core. */
void probe_limits(struct bench *b);
/* One warm-up per cell, which sizes its runs. */
void warm_up(struct bench *b);
/* The interleaved repetitions, then extra rounds for the cells short of
 * --reps runs in the reference placement. */
void run_rounds(struct bench *b);
/* --single-thread: instruction counts per message (callgrind). */
int single_thread(struct cell *cells, int ncells, const struct opts *op);

/* ---- placement.c ---- */

int cell_runs_in(const struct cell *c, const struct band *b);
int lat_runs_in(const struct lat_cell *l, const struct band *b);
/* Groups every run's round trip into placements; returns how many, with
 * the reference one in *ref. */
int find_bands(const struct cell *cells, int ncells,
	       const struct lat_cell *lats, int nlats, int need, struct band *b,
	       int *ref);
/* cells and lats <- the runs of all_* in band b (flags: few-runs). */
void use_band(struct cell *cells, const struct cell *all_cells, int ncells,
	      struct lat_cell *lats, const struct lat_cell *all_lats, int nlats,
	      const struct band *b, int reps);
int band_reportable(const struct cell *all_cells, int ncells,
		    const struct band *b);
double placement_rtt(const struct cell *cells, int ncells, double none);
double probe_rtt(int quick);
/* The reference placement, all_* keeping every run and cells, lats the
 * reference's; returns 0 or -1 (out of memory). */
int choose_placement(struct bench *b);

/* ---- report.c, targets.c, plot.c ---- */

/* Prints every result (--json, --csv or the table), the targets, and
 * draws --plot; returns the exit status. */
int report(struct bench *b);
void json_kv_str(FILE *f, const char *k, const char *v, int comma);
/* The targets, as ratios within this run and placement. */
void emit_targets(FILE *out, const struct opts *op, const struct cell *cells,
		  int ncells, const struct lat_cell *lats, int nlats,
		  const double *memcpy_gbps, const double *xcore_gbps);
/* Throughput against payload, PNG or SVG by gnuplot; 0 or -1. */
int write_plot(const char *file, struct cell *cells, int ncells,
	       const double *memcpy_gbps, const struct meta *m,
	       const struct opts *op);
/* --capacities: appends this run's medians to the sweep's data file. */
void sweep_rows(const char *file, const struct cell *cells, int ncells,
		const struct opts *op);
/* Runs gnuplot on script; returns 0 when it succeeded. */
int run_gnuplot(const char *script);

#endif
