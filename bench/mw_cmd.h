/* SPDX-License-Identifier: MIT */
/* cli/bench_mw.h - `perfring bench --writers` (cli/bench_mw.c). */
#ifndef PFR_CLI_BENCH_MW_H
#define PFR_CLI_BENCH_MW_H

/* The multi-writer bench: parses its own options (argv as given to
 * `perfring bench`); returns the exit status. */
int pfr_cmd_bench_mw(int argc, char **argv);

#endif
