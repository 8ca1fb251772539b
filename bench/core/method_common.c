/* SPDX-License-Identifier: MIT */
/*
 * bench/core/method_common.c - the method's pieces that the one-writer bench
 * (bench/spsc/method.c) and --writers (bench/mw/method.c) share: the median of
 * the runs, the warm-up's sizing of a contestant's runs.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

int bench_cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(const double *v, int n, double *lo, double *hi)
{
	double t[PFR_BENCH_MEDIAN_MAX];

	if (lo)
		*lo = 0;
	if (hi)
		*hi = 0;
	if (n <= 0)
		return 0;
	memcpy(t, v, (size_t)n * sizeof(double));
	qsort(t, (size_t)n, sizeof(double), bench_cmp_d);
	if (lo)
		*lo = t[0];
	if (hi)
		*hi = t[n - 1];
	return n & 1 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int bench_calibrate(bench_sizing_fn run, void *ctx, uint64_t nmin, int quick,
		    double run_ms, uint64_t *n)
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
