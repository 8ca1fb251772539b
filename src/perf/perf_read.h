/* SPDX-License-Identifier: MIT */
/*
 * Internal: reading perf.data for perfring script (src/perf/perf_data.c)
 * without holding the file in memory.
 */
#ifndef PFR_SRC_PERF_READ_H
#define PFR_SRC_PERF_READ_H

#include <stdint.h>

#include <perfring/perf.h>

/*
 * Opens path as pfr_perf_file_open() does, but streams a regular file's
 * data section: only the bytes before it (header, ids, attrs) and after
 * it (the feature sections) are held, and the records are read through a
 * window of 1 MiB or one record.  A record's payload from
 * pfr_perf_file_next() is then valid until the next call only.  The pipe
 * format is streamed too (perf's own records, the attrs, names, features
 * and tracing data, are copied first); "-" is read from a temporary file
 * it is copied into (standard input itself when that is a regular file).
 * COMPRESSED records are decompressed by steps into one 256 KiB buffer,
 * whatever a frame expands to.  A file whose header or feature sections
 * are huge (64 MiB before its data, 256 MiB after) is read whole as
 * pfr_perf_file_open() reads it.  Same returns as pfr_perf_file_open().
 */
int pfr__perf_file_open_stream(struct pfr_perf_file **f, const char *path);

/* The tracing data (HEADER_TRACING_DATA's contents: the event formats) the
 * file holds, from its header feature or its pipe record: a pointer valid
 * until close, and its length in *len; NULL (and 0) when there is none. */
const void *pfr__perf_file_tracing(const struct pfr_perf_file *f,
				   uint64_t *len);

/* 1 when the file's header was never completed (no features; its data
 * size 0 or behind the file's end: a recorder killed before its close):
 * the data is read to the file's end, up to its last complete record.
 * *cut (if not NULL): the bytes of a last record cut short, skipped (known
 * once the records are read).  0 for a completed file. */
int pfr__perf_file_unfinished(const struct pfr_perf_file *f, uint64_t *cut);

#endif
