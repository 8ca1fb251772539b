/* SPDX-License-Identifier: MIT */
/* bench/core/probes.h - physical probes and perfring's latency ping-pong. */
#ifndef PFR_BENCH_PROBES_H
#define PFR_BENCH_PROBES_H

#include <stddef.h>
#include <stdint.h>

/* p-quantile (0..1) of v[0..n), sorting v. */
double bench_percentile(double *v, size_t n, double p);

/* Cache-line ping-pong between the two bench CPUs, n round trips: the
 * median and mean round trip in ns.  0 or -1. */
int bench_rtt(uint64_t n, double *p50_ns, double *mean_ns);

/* Single-core memcpy of `size`-byte blocks cycling through a working set,
 * for at least ns nanoseconds: GB/s (1e9 bytes/s). */
double bench_memcpy_gbps(size_t size, size_t working_set, uint64_t ns);

/* One core writes a working set, the other reads it all (timed), rounds
 * times: GB/s at which lines move from one core's cache to the other's. */
double bench_xcore_gbps(size_t ws, uint64_t rounds);

struct bench_barrier_cost {
	const char *name;
	double ns; /* per loop iteration */
};
/* Costs of the barrier primitives; returns how many were filled. */
int bench_barriers(struct bench_barrier_cost *out, int max, uint64_t n);

/* One-way latency over two perfring rings (ping-pong, n round trips):
 * p50 and p99 of half the round trip, ns.  *verified = 1 when every echo
 * matched.  0 or -1. */
int bench_perfring_latency(int ordering, int policy, uint32_t flags,
			   size_t payload, uint64_t n, double *p50, double *p99,
			   int *verified);

/* Share of the two bench CPUs' time spent busy (not idle) over ms
 * milliseconds while this process sleeps; 0 when /proc/stat is unreadable. */
double busy_share(int ms);

#endif
