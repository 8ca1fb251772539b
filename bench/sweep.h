/* SPDX-License-Identifier: MIT */
/* cli/bench_sweep.h - `perfring bench --capacities LIST` (bench_sweep.c). */
#ifndef PFR_CLI_BENCH_SWEEP_H
#define PFR_CLI_BENCH_SWEEP_H

/* Runs pfr_cmd_bench() once per capacity of --capacities in a child
 * process (the other options passed on), then draws --plot against
 * capacity.  Returns the command's exit status. */
int pfr_bench_sweep(int argc, char **argv);

#endif
