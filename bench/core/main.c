/* SPDX-License-Identifier: MIT */
/*
 * perfring-bench - the benchmark as a program of its own, so that the
 * perfring command links none of the peers (DPDK, ck, liburcu, the C++
 * queues).  `perfring bench ARGS` runs this program with ARGS.
 */
#include <string.h>

#include "bench_cmd.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) /* many writers: a bench of its own */
		if (!strncmp(argv[i], "--writers", 9))
			return bench_mw_main(argc, argv);
	/* --capacities: one whole run per capacity, in children */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--capacities") ||
		    !strncmp(argv[i], "--capacities=", 13))
			return bench_sweep(argc, argv);
	return bench_main(argc, argv);
}
