/* SPDX-License-Identifier: MIT */
/* Printing perf records for `perfring record` and `perfring script`: one
 * line per record in perf script's default shape, or JSON Lines, with
 * command names, mappings and symbols tracked from the records themselves
 * (COMM, FORK, EXIT, MMAP, MMAP2) and ELF symbol tables / kallsyms. */
#ifndef PFR_SRC_PERFDATA_OUT_H
#define PFR_SRC_PERFDATA_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

struct pfr__out;
struct pfr__trace;

#define PFR_OUT_JSON 0x1u
#define PFR_OUT_SAMPLES_ONLY 0x2u /* side-band records are tracked only */
#define PFR_OUT_NO_SYMS 0x4u
/* JSON for script -s (perf's Python scripts): samples also carry "misc",
 * "addr" and the raw data in hex ("raw"), which perf hands to scripts */
#define PFR_OUT_JSON_PY 0x8u

/* perf script's output fields (-F). */
enum {
	PFR_FLD_COMM = 1u << 0,
	PFR_FLD_TID = 1u << 1,
	PFR_FLD_PID = 1u << 2,
	PFR_FLD_TIME = 1u << 3,
	PFR_FLD_CPU = 1u << 4,
	PFR_FLD_EVENT = 1u << 5,
	PFR_FLD_TRACE = 1u << 6,
	PFR_FLD_IP = 1u << 7,
	PFR_FLD_SYM = 1u << 8,
	PFR_FLD_SYMOFF = 1u << 9,
	PFR_FLD_DSO = 1u << 10,
	PFR_FLD_PERIOD = 1u << 11,
	PFR_FLD_ADDR = 1u << 12,
};

/* perf script's output types, each with its own fields: the attr types
 * below PERF_TYPE_MAX, then any other (a dynamic PMU's). */
#define PFR_OUT_NTYPES 7
int pfr__out_type(uint32_t attr_type);

/* Side-band records perf script shows on request (--show-*-events). */
enum {
	PFR_SHOW_TASK = 1u << 0, /* COMM, FORK, EXIT */
	PFR_SHOW_MMAP = 1u << 1, /* MMAP, MMAP2 */
	PFR_SHOW_SWITCH = 1u << 2, /* SWITCH, SWITCH_CPU_WIDE */
	PFR_SHOW_NAMESPACE = 1u << 3,
	PFR_SHOW_LOST = 1u << 4, /* LOST, LOST_SAMPLES */
	PFR_SHOW_ROUND = 1u << 5, /* FINISHED_ROUND */
	PFR_SHOW_BPF = 1u << 6, /* KSYMBOL, BPF_EVENT */
	PFR_SHOW_CGROUP = 1u << 7,
	PFR_SHOW_TEXT_POKE = 1u << 8,
	PFR_SHOW_OTHER = 1u << 9, /* any other (perfring: --show-all) */
};

/* How `perfring script` prints (perf script's options). */
struct pfr__out_style {
	unsigned fields[PFR_OUT_NTYPES]; /* -F, per output type */
	unsigned user_set; /* bit t: fields[t] came from -F */
	unsigned show; /* PFR_SHOW_* */
	int ns, reltime, hide_callgraph;
	int name_width; /* event names' column: the longest name */
};

/* perf script's default fields of output type t. */
unsigned pfr__out_default_fields(int t);

/* One event of the file, as pfr__out_event() prints its records. */
struct pfr__out_ev {
	const char *name;
	const struct perf_event_attr *attr;
	struct pfr_perf_layout lay;
	unsigned fields; /* from pfr__out_fields() */
	int chain; /* call chains are printed */
};

/* The fields a sample of attr prints under style s: -F's for its type,
 * or the defaults less what the samples lack (perf's rules). */
void pfr__out_ev_init(struct pfr__out_ev *e, const struct pfr__out_style *s,
		      const char *name, const struct perf_event_attr *attr,
		      const struct pfr_perf_layout *lay, int any_chain);

struct pfr__out *pfr__out_new(FILE *f, unsigned flags);
/* Print as perf script does under style s (copied); without it, the
 * records print as pfr__out_record() documents. */
void pfr__out_set_style(struct pfr__out *o, const struct pfr__out_style *s);
/* Updates what later records are printed against (threads' names, maps)
 * from record r; call it for every record, printed or not. */
void pfr__out_track(struct pfr__out *o, const struct pfr_perf_rec *r);
/* Prints one record of event e, decoded as r from (hdr, payload), as perf
 * script does under the style set (side-band only when shown). */
void pfr__out_event(struct pfr__out *o, const struct pfr__out_ev *e,
		    const struct pfr_perf_rec *r,
		    const struct pfr_record_header *hdr, const void *payload);
/* The name of thread tid (":TID" when no record named it). */
const char *pfr__out_comm(struct pfr__out *o, uint32_t tid);
/* Track (and print, unless out is NULL) one record of event `ev`. */
void pfr__out_record(struct pfr__out *o, const char *ev,
		     const struct pfr_perf_layout *lay,
		     const struct pfr_record_header *hdr, const void *payload,
		     uint32_t len);
/* Resolves symbols as perf script does through the build-id cache
 * (buildid.h): the HEADER_BUILD_ID of the perf.data file at path, the
 * cache at dir (NULL: $PERF_BUILDID_DIR or ~/.debug).  A DSO whose file
 * is gone or rebuilt then loads the cache's copy, or no symbols.  Returns
 * the number of build ids read, or -1. */
int pfr__out_read_buildids(struct pfr__out *o, const char *path,
			   const char *dir);
/* Decode tracepoint samples' fields with t (perf_trace.h; not owned,
 * outlives o): text as perf script prints them, JSON as "fields". */
void pfr__out_set_trace(struct pfr__out *o, struct pfr__trace *t);
/* The same, t then freed with o (perfring record's output: formats from
 * tracefs, pfr__trace_open_tracefs()). */
void pfr__out_take_trace(struct pfr__out *o, struct pfr__trace *t);
/* Records the decoder rejected so far. */
uint64_t pfr__out_bad(const struct pfr__out *o);
void pfr__out_free(struct pfr__out *o);

/* Resolves ip of pid (kernel when kernel != 0) to sym, offset and dso;
 * returns 1 if a symbol was found. */
int pfr__out_resolve(struct pfr__out *o, uint32_t pid, uint64_t ip, int kernel,
		     const char **sym, uint64_t *off, const char **dso);

/* --- for the perf.data library (perfdata.c) --- */

/* Output to f with flags (PFR_OUT_JSON ...; NO_SYMS stays as created). */
void pfr__out_set_file(struct pfr__out *o, FILE *f, unsigned flags);
/* DWARF user stacks are unwound from now on (unless NO_SYMS). */
void pfr__out_use_unwind(struct pfr__out *o);
/* ip of pid (kernel: in the kernel) resolved into *fr. */
void pfr__out_frame_at(struct pfr__out *o, uint32_t pid, uint64_t ip,
		       int kernel, struct pfr_perfdata_frame *fr);

#define PFR_OUT_FR_NO_UNWIND 0x1u /* no DWARF user stack */
#define PFR_OUT_FR_NO_INLINE 0x2u /* no inlined functions */

/* The frames of sample r of event attr (payload, len: its record), as
 * perf script prints its call chain (pfr__style_chain()), into fr[max]:
 * the sample's ip alone when it has no chain.  The names of inlined
 * functions are malloc'ed, put in names[] (max entries suffice) and
 * counted in *nnames: the caller frees them.  Returns the frames. */
int pfr__out_frames(struct pfr__out *o, const struct perf_event_attr *attr,
		    const struct pfr_perf_rec *r, const void *payload,
		    uint32_t len, unsigned what, struct pfr_perfdata_frame *fr,
		    int max, char **names, int *nnames);

#endif
