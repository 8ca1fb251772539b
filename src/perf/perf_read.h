/* SPDX-License-Identifier: MIT */
/*
 * Internal: the streaming perf.data reader's former internal names.
 */
#ifndef PFR_SRC_PERF_READ_H
#define PFR_SRC_PERF_READ_H

#include <stdint.h>

#include <perfring/perf.h>

/* The streaming reader, public since PERFRING_0.3 (<perfring/perf.h>):
 * pfr_perf_file_open_stream(), pfr_perf_file_tracing() and
 * pfr_perf_file_unfinished(); the internal names stay for the unit tests
 * written against them. */
#define pfr__perf_file_open_stream pfr_perf_file_open_stream
#define pfr__perf_file_tracing pfr_perf_file_tracing
#define pfr__perf_file_unfinished pfr_perf_file_unfinished

#endif
