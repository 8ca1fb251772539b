/* SPDX-License-Identifier: MIT */
/* Printing perf records for `perfring record` and `perfring script`: one
 * line per record in perf script's default shape, or JSON Lines, with
 * command names, mappings and symbols tracked from the records themselves
 * (COMM, FORK, EXIT, MMAP, MMAP2) and ELF symbol tables / kallsyms. */
#ifndef PFR_CLI_PERF_OUT_H
#define PFR_CLI_PERF_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <perfring/perf.h>

struct pfr_out;
struct pfr_trace;

#define PFR_OUT_JSON 0x1u
#define PFR_OUT_SAMPLES_ONLY 0x2u /* side-band records are tracked only */
#define PFR_OUT_NO_SYMS 0x4u

struct pfr_out *pfr_out_new(FILE *f, unsigned flags);
/* Track (and print, unless out is NULL) one record of event `ev`. */
void pfr_out_record(struct pfr_out *o, const char *ev,
		    const struct pfr_perf_layout *lay,
		    const struct pfr_record_header *hdr, const void *payload,
		    uint32_t len);
/* Decode tracepoint samples' fields with t (perf_trace.h; not owned,
 * outlives o): text as perf script prints them, JSON as "fields". */
void pfr_out_set_trace(struct pfr_out *o, struct pfr_trace *t);
/* Records the decoder rejected so far. */
uint64_t pfr_out_bad(const struct pfr_out *o);
void pfr_out_free(struct pfr_out *o);

/* Resolves ip of pid (kernel when kernel != 0) to sym, offset and dso;
 * returns 1 if a symbol was found. */
int pfr_out_resolve(struct pfr_out *o, uint32_t pid, uint64_t ip, int kernel,
		    const char **sym, uint64_t *off, const char **dso);

#endif
