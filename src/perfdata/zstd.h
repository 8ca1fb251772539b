/* SPDX-License-Identifier: MIT */
/*
 * perfring script's decompressor for perf record -z files: Debian's
 * libzstd, loaded (dlopen) on the first compressed file, handed to the
 * library's reader (pfr_perf_file_set_inflate()), which links none.
 */
#ifndef PFR_SRC_PERFDATA_ZSTD_H
#define PFR_SRC_PERFDATA_ZSTD_H

#include <perfring/perf.h>

/* One file's zstd stream (perf record -z), state of its own: files read
 * at once do not share it. */
struct pfr__zstd;

/* Sets f's decompressor to a new zstd stream and returns it, or NULL
 * with *why saying what is missing (as pfr__zstd_reader()). */
struct pfr__zstd *pfr__zstd_new(struct pfr_perf_file *f, const char **why);
/* As pfr__zstd_cut_frame(), for z (NULL: 0). */
unsigned long long pfr__zstd_cut(const struct pfr__zstd *z);
/* Frees z (NULL: nothing); after the file it decompresses is closed. */
void pfr__zstd_free(struct pfr__zstd *z);

/* The same for one file at a time (perfring script):
 * Sets f's decompressor to a zstd stream.  Returns 0, or -1 with *why
 * saying what is missing (this build has no zstd.h, or libzstd.so.1
 * cannot be loaded): f then reads as without one, and stops at its first
 * compressed record with -PFR_PERF_E_COMPRESSED.
 */
int pfr__zstd_reader(struct pfr_perf_file *f, const char **why);

/*
 * After the last compressed record: 0 when the stream ends where a frame
 * does (or where a flushed frame awaits its next block, as perf leaves
 * it, unless the frame's header gives a content size not reached), else
 * the number
 * (from 1) of the zstd frame it ends inside: a frame cut short, or one
 * whose size field (a skippable frame's) runs past what the file holds,
 * so that the records in it, or in the frames it swallowed, are lost.
 */
unsigned long long pfr__zstd_cut_frame(void);

/* Frees what pfr__zstd_reader() set up (NULL: none). */
void pfr__zstd_reader_free(void);

#endif
