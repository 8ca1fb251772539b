/* SPDX-License-Identifier: MIT */
/*
 * bench/method_cal.c - the warm-up's sizing of a contestant's runs,
 * shared by the one-writer bench (bench/method.c) and --writers
 * (bench/mw_method.c).
 */
#include "bench.h"

int pfr_bench_calibrate(pfr_bench_sizing_fn run, void *ctx, uint64_t nmin,
			int quick, double run_ms, uint64_t *n)
{
	uint64_t n0 = nmin;
	double window_ms = 0, mps = 0;
	int err = 0;

	/* Runs that grow until the consumer's timed window lasts a quarter
	 * of the target: the rate it measures (not the wall time, which
	 * includes starting the threads) sizes the measured runs. */
	for (int k = 0; k < (quick ? 3 : 8); k++) {
		err = run(ctx, n0, &window_ms, &mps);
		if (err || window_ms >= run_ms / 4 || n0 >= (1ull << 31))
			break;
		n0 *= 4;
	}
	if (err)
		return err;
	*n = (uint64_t)(mps * run_ms / 1000.0);
	if (*n < nmin)
		*n = nmin;
	if (*n > 2000000000ull)
		*n = 2000000000ull;
	return 0;
}
