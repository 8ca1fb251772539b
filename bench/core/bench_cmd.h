/* SPDX-License-Identifier: MIT */
/*
 * bench/core/bench_cmd.h - the entry points of the perfring-bench program
 * (bench/core/main.c picks one from the command line).  Each parses argv as
 * given to `perfring-bench` (or `perfring bench`, which runs it) and
 * returns the exit status: 0, 1 when a run failed or a message did not
 * verify, 2 for a usage error.
 */
#ifndef PFR_BENCH_CMD_H
#define PFR_BENCH_CMD_H

#ifdef __cplusplus
extern "C" {
#endif

/* One writer, one reader: perfring against the peers and the machine's
 * limits (bench/spsc/cmd.c). */
int bench_main(int argc, char **argv);
/* --writers LIST: many writers, one reader (bench/mw/cmd.c). */
int bench_mw_main(int argc, char **argv);
/* --capacities LIST: bench_main() once per capacity in a child
 * process (the other options passed on), then --plot against capacity
 * (bench/spsc/sweep.c). */
int bench_sweep(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
