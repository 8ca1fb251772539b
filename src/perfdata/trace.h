/* SPDX-License-Identifier: MIT */
/* Tracepoint fields of perf samples, decoded with libtraceevent from the
 * event formats a perf.data file stores (its HEADER_TRACING_DATA). */
#ifndef PFR_SRC_PERFDATA_TRACE_H
#define PFR_SRC_PERFDATA_TRACE_H

#include <stdint.h>
#include <stdio.h>

struct pfr__trace;

/*
 * The tracepoint formats of the perf.data file at path.  Returns NULL
 * when the file has none (no tracepoint event) or they do not parse;
 * *why then says which ("" for none).
 */
struct pfr__trace *pfr__trace_open(const char *path, const char **why);
/* The same from tracing data in memory (b, n bytes: HEADER_TRACING_DATA's
 * contents, as a file stores them or a pipe stream carries them after its
 * record), which stays the caller's. */
struct pfr__trace *pfr__trace_open_mem(const void *b, size_t n,
				       const char **why);
/* The formats of this machine's tracepoints events[n] ("sys:name"; other
 * names are skipped), read from tracefs: for `perfring record`'s own
 * output, which has no file to take them from.  NULL when none parses
 * (*why: "" when there was no tracepoint). */
struct pfr__trace *pfr__trace_open_tracefs(const char *const *events,
					   unsigned n, const char **why);
void pfr__trace_free(struct pfr__trace *t);

/*
 * Writes the fields of the raw tracepoint data (raw, size) to f: text as
 * the event's print format has it (perf script's text), or, with json, as
 * `,"fields":{"name":value,...}` (json 2, for perf's Python scripts:
 * pointers as numbers, arrays that are no string as {"hex":"..."}).
 * Returns 1 when written, 0 when the
 * event is not in the formats or the data is too short or malformed
 * (nothing written).  With f NULL, only says whether it would write.
 */
int pfr__trace_print(struct pfr__trace *t, FILE *f, int json, const void *raw,
		     uint32_t size);

struct pfr_perfdata_value;

/* The fields (common_* first) of the tracepoint data (raw, size): how
 * many, 0 when the event is not in the formats or the data does not hold
 * every field. */
int pfr__trace_nr_fields(struct pfr__trace *t, const void *raw, uint32_t size);
/* Field i, or the one called name when name is not NULL, into *v (its
 * pointers into raw).  0, or -1 (no such field or event, data short). */
int pfr__trace_field(struct pfr__trace *t, const void *raw, uint32_t size,
		     int i, const char *name, struct pfr_perfdata_value *v);

#endif
