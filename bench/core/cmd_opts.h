/* SPDX-License-Identifier: MIT */
/*
 * bench/core/cmd_opts.h - what both perfring-bench commands (the one-writer
 * bench, bench/spsc/cmd.c, and --writers, bench/mw/cmd.c) share: the options
 * both take (their getopt_long entries, their values and one parser, to
 * which each command adds its own options) and the look at the host
 * before a run.  Internal to the program.
 */
#ifndef PFR_BENCH_CMD_OPTS_H
#define PFR_BENCH_CMD_OPTS_H

#include <getopt.h>
#include <stddef.h>

/* The getopt_long entries of the common options, and of --payloads,
 * --threads, --processes and --help, which both commands take but read
 * each in its own way. */
#define PFR_BENCH_COMMON_LOPTS                                                 \
	{"quick", no_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},   \
		{"reps", required_argument, NULL, 'r'},                        \
		{"time", required_argument, NULL, 't'},                        \
		{"cpus", required_argument, NULL, 'C'},                        \
		{"capacity", required_argument, NULL, 'k'},                    \
		{"only", required_argument, NULL, 'o'},                        \
		{"no-peers", no_argument, NULL, 'N'},                          \
		{"payloads", required_argument, NULL, 'P'},                    \
		{"threads", no_argument, NULL, 'T'},                           \
		{"processes", no_argument, NULL, 'X'},                         \
	{                                                                      \
		"help", no_argument, NULL, 'h'                                 \
	}

/* The common options' values (--cpus goes to bench_cpu[]). */
struct bench_common {
	int quick, json, peers, reps;
	int max_reps; /* the most --reps accepts */
	int times_set; /* --time was given */
	double run_ms;
	size_t capacity;
	const char *only;
};

/* Copies the common values into a command's options (struct opts or
 * struct mw_opts: fields of the same names). */
#define PFR_BENCH_COMMON_TO(op, c)                                             \
	do {                                                                   \
		(op)->quick = (c)->quick;                                      \
		(op)->json = (c)->json;                                        \
		(op)->peers = (c)->peers;                                      \
		(op)->reps = (c)->reps;                                        \
		(op)->run_ms = (c)->run_ms;                                    \
		(op)->capacity = (c)->capacity;                                \
		(op)->only = (c)->only;                                        \
	} while (0)

/* A command's own option: returns -1 to go on, else the exit status. */
typedef int (*bench_opt_fn)(void *ctx, int opt, char **argv);

/*
 * bench_getopt - parse argv with lopts (PFR_BENCH_COMMON_LOPTS and
 * the command's own entries): sets c to the defaults (5 reps of 200 ms,
 * PFR_BENCH_CAPACITY, peers on), reads the common options into c and
 * hands every other one to own(ctx, opt, argv); refuses arguments that
 * are not options; with --quick and no --time, runs of 12 ms.
 * Returns -1 when the command runs, else its exit status (2 for a usage
 * error, or what own() returned).
 */
int bench_getopt(int argc, char **argv, const struct option *lopts,
		 struct bench_common *c, int max_reps, bench_opt_fn own,
		 void *ctx);

/* Whether pinning can work: both bench CPUs (bench_cpu[]) in this
 * process's affinity mask.  If not, clears bench_pinned and says so
 * on stderr ("running unpinned" and note).  Returns the number of CPUs in
 * the mask (0 when it cannot be read). */
int bench_check_cpus(const char *note);
/* Warns on stderr when the bench CPUs were busy (share of their time
 * above 10%) before the run; returns whether they were. */
int bench_warn_busy(double share);
/* The CPU's model from /proc/cpuinfo ("unknown" when it names none). */
void bench_cpu_model(char *buf, size_t len);

#endif
