/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the tests count in the perf.data reader
 * (src/perf/perf_data.c).
 */
#ifndef PFR_SRC_PERF_DATA_INT_H
#define PFR_SRC_PERF_DATA_INT_H

#include <stdint.h>

struct pfr_perf_file;

/* How many entries of f's sorted id index its lookups have looked at
 * (each a step of a binary search); 0 for NULL. */
uint64_t pfr__perf_file_id_probes(const struct pfr_perf_file *f);

#endif
