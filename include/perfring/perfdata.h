/* SPDX-License-Identifier: MIT */
/*
 * <perfring/perfdata.h> - perf.data files read as `perfring script` reads
 * them: in time order with bounded memory, samples with their call chains
 * symbolized (ELF symbol tables, kallsyms, frame pointers and DWARF user
 * stacks with inlined frames), tracepoint fields by name and type, the
 * header's features, the threads' names and the processes' mappings, and
 * the build ids the file records.
 *
 * This is libperfring-perfdata (pkg-config perfring-perfdata), a second
 * library beside the core: it links elfutils (libelf, libdw),
 * libtraceevent and libiberty's demangler, and loads libzstd when a file
 * is compressed, while libperfring itself stays libc-only.  The records,
 * attrs and layouts are the core's (<perfring/perf.h>).
 *
 * Conventions (docs/api.md): a function that can fail returns a negative
 * PFR_E_* or PFR_PERF_E_* code (pfr_strerror() names it), -PFR_E_SYSTEM
 * with errno kept; a NULL the comment does not allow is -PFR_E_INVAL (or
 * a neutral answer: NULL, 0); closing NULL is a no-op; an options struct
 * begins with its size sz (0: the fields of the first version), and a
 * nonzero byte past the fields this library knows is -PFR_E_INVAL; flags
 * are named constants, an unknown one is -PFR_E_INVAL.
 *
 * Concurrency, for every function below: one thread at a time per struct
 * pfr_perfdata (distinct handles are independent).  Progress: blocking
 * (file I/O, symbol tables loaded on first use), unless said otherwise.
 *
 * This header does not include <linux/perf_event.h>: attrs are passed by
 * pointer, record types are perf's PERF_RECORD_* numbers.
 */
#ifndef PERFRING_PERFDATA_H
#define PERFRING_PERFDATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <perfring/common.h>
#include <perfring/perf.h>

PFR__EXTERN_C_BEGIN

struct perf_event_attr;

/* An open perf.data file with what it tracks (opaque). */
struct pfr_perfdata;

/* --- opening --- */

/* pfr_perfdata_opts.flags */
#define PFR_PERFDATA_FILE_ORDER 0x1u /* records as stored, not time order */
#define PFR_PERFDATA_NO_SYMBOLS 0x2u /* frames without symbols ("[unknown]") */
#define PFR_PERFDATA_NO_INLINE 0x4u /* no inlined frames from DWARF */
#define PFR_PERFDATA_NO_UNWIND 0x8u /* DWARF user stacks not unwound */
#define PFR_PERFDATA_SAMPLES_ONLY 0x10u /* side-band tracked, not returned */
/* perf's own records (type 64 and up) returned as read, ahead of the
 * records their FINISHED_ROUND releases (perf script -D's order) */
#define PFR_PERFDATA_OWN_AS_READ 0x20u
/* no frames computed (nr_frames 0): for a caller that prints with
 * pfr_perfdata_print(), which resolves them itself */
#define PFR_PERFDATA_NO_FRAMES 0x40u

struct pfr_perfdata_opts {
	size_t sz; /* sizeof(struct pfr_perfdata_opts), or 0 */
	unsigned flags; /* PFR_PERFDATA_* above */
	unsigned max_frames; /* frames per sample; 0: 512 */
	/* The build-id cache (perf's layout) symbols are looked up in when
	 * a mapped path no longer holds the recorded object; NULL:
	 * $PERF_BUILDID_DIR, else ~/.debug. */
	const char *buildid_dir;
	/* Memory for putting records in time order (perf's ordered events,
	 * a round at a time); 0: 64 MiB.  Past it, the oldest half goes out
	 * early. */
	uint64_t queue_bytes;
};

/*
 * Opens the perf.data file at path (perfring's or perf's, the file
 * format or the pipe format, compressed (record -z) or not; "-": standard
 * input) for reading as a stream: the header and features are read, the
 * records through a window, so memory stays bounded by o->queue_bytes
 * whatever the file's size.  o may be NULL (the defaults).  A file whose
 * header was never completed (a recorder killed) is read up to its last
 * complete record.  *pd is set to the handle, or NULL on failure.
 * Returns 0, -PFR_E_INVAL (pd or path NULL, a bad o->sz, an unknown
 * flag, a nonzero byte past the known fields), -PFR_PERF_E_FILE_MAGIC,
 * -PFR_PERF_E_FILE_LAYOUT or -PFR_E_SYSTEM (errno: ENOENT, EACCES,
 * EINVAL for a FIFO, device or socket, ENOMEM).
 */
PFR_API int pfr_perfdata_open(struct pfr_perfdata **pd, const char *path,
			      const struct pfr_perfdata_opts *o);

/* Closes pd and frees everything it gave out (events, names, frames).
 * Returns 0.  NULL: a no-op returning 0. */
PFR_API int pfr_perfdata_close(struct pfr_perfdata *pd);

/* The core's reader underneath: the events' attrs, names and layouts
 * (pfr_perf_file_nr_events(), pfr_perf_file_attr(),
 * pfr_perf_file_event_name()).  Valid until close; do not read records
 * from it yourself.  NULL for NULL.  Progress: wait-free. */
PFR_API struct pfr_perf_file *pfr_perfdata_file(const struct pfr_perfdata *pd);

/* --- events --- */

/* pfr_perfdata_frame.flags */
#define PFR_PERFDATA_FRAME_KERNEL 0x1u /* a kernel address */
#define PFR_PERFDATA_FRAME_FOUND 0x2u /* sym is a symbol holding ip */
/* a function inlined at the next frame's address (dso NULL) */
#define PFR_PERFDATA_FRAME_INLINED 0x4u
#define PFR_PERFDATA_FRAME_UNWOUND 0x8u /* from the DWARF user stack */

/* One frame of a sample's call chain, as perf script prints it. */
struct pfr_perfdata_frame {
	uint64_t ip; /* the address as recorded */
	uint64_t addr; /* as perf script shows it: a user frame's address as
			* an offset into its file, a kernel frame's as ip */
	const char *sym; /* the function ("[unknown]" when not found) */
	uint64_t symoff; /* addr - the symbol's start (FOUND) */
	const char *dso; /* the mapped file, "[kernel.kallsyms]",
			  * "[unknown]"; NULL for an INLINED frame */
	unsigned flags; /* PFR_PERFDATA_FRAME_* */
	unsigned pad;
};

/*
 * One record of the file, as pfr_perfdata_next() returns it.  The struct
 * only grows at its end; sz says how many bytes of it this library
 * filled.  Every pointer is valid until the next pfr_perfdata_next() or
 * the close, except sym and dso of frames, name and attr, which stay
 * until the close.
 */
struct pfr_perfdata_event {
	size_t sz; /* sizeof(struct pfr_perfdata_event) of the library */
	uint32_t type; /* PERF_RECORD_* (also perf's own, 64 and up) */
	uint32_t evidx; /* the event (attr) the record belongs to */
	const char *name; /* that event's name */
	const struct perf_event_attr *attr; /* that event's attr */
	/* The decoded record (pid/tid/cpu/time/ip/addr/period/callchain,
	 * raw data, side-band fields): 0 in decoded, or the decoder's
	 * error (-PFR_PERF_E_TRUNCATED, -PFR_PERF_E_STRING) and rec then
	 * holds the header only. */
	struct pfr_perf_rec rec;
	int decoded;
	uint32_t len; /* payload bytes (hdr.size - 8) */
	struct pfr_record_header hdr; /* the raw record */
	const void *payload;
	uint64_t pos; /* its offset in the file (of its COMPRESSED record) */
	/* The command of the thread (a sample's tid; a side-band record's
	 * thread), after this record is tracked: ":TID" if none named it. */
	const char *comm;
	/* A sample's call chain, symbolized: frame 0 is the sample's ip
	 * (the chain's first entry when the sample has a chain), then its
	 * callers; kernel then user frames (context markers left out), then
	 * the user frames unwound from a DWARF stack copy, each user frame
	 * preceded by the functions inlined there (DWARF samples, as perf
	 * script shows them).  0 frames for a side-band record. */
	uint32_t nr_frames;
	const struct pfr_perfdata_frame *frames;
};

/*
 * The next record in time order (file order under
 * PFR_PERFDATA_FILE_ORDER): samples of every event, and the side-band
 * records (COMM, MMAP, MMAP2, FORK, EXIT, SWITCH, LOST, ...; none with
 * PFR_PERFDATA_SAMPLES_ONLY), each tracked first (thread names, process
 * maps) so the samples after it resolve against it.  perf's own records
 * of the file's data (FINISHED_ROUND, ...) are returned too.  *ev points
 * at an event the library owns.  Returns 1, 0 at the end, or a negative
 * error: -PFR_E_RECSIZE_* or -PFR_PERF_E_FILE_LAYOUT for a malformed
 * record (the records before it were all returned), -PFR_PERF_E_COMPRESSED
 * for a compressed file when libzstd cannot be loaded, -PFR_E_SYSTEM
 * (ENOMEM), -PFR_E_INVAL (NULL).  After 0 or an error, next returns the
 * same again.
 */
PFR_API int pfr_perfdata_next(struct pfr_perfdata *pd,
			      const struct pfr_perfdata_event **ev);

/* What went past during the reading so far. */
struct pfr_perfdata_stats {
	size_t sz; /* sizeof(struct pfr_perfdata_stats), or 0 */
	uint64_t records; /* returned by pfr_perfdata_next() */
	uint64_t bad; /* records the decoder refused (decoded != 0) */
	uint64_t late; /* records older than one already returned: the
			* queue was too small to sort them */
	uint64_t capped; /* times the queue's cap forced an early flush */
	uint64_t cut; /* bytes of a last record cut short (skipped) */
	int unfinished; /* the header was never completed */
	int pad;
	/* Added after the first version (read it when sz covers it): the
	 * compressed stream ended inside this zstd frame (from 1; 0: at a
	 * frame's end), so that its records are lost; next() then returned
	 * -PFR_PERF_E_FILE_LAYOUT. */
	uint64_t zstd_cut_frame;
};

/* Fills *st (st->sz set by the caller, or 0).  Returns 0 or
 * -PFR_E_INVAL.  Progress: wait-free. */
PFR_API int pfr_perfdata_stats(const struct pfr_perfdata *pd,
			       struct pfr_perfdata_stats *st);

/* --- tracepoint fields --- */

/* pfr_perfdata_value.kind */
enum pfr_perfdata_kind {
	PFR_PERFDATA_SIGNED = 1, /* i */
	PFR_PERFDATA_UNSIGNED, /* u (pointers too) */
	PFR_PERFDATA_STRING, /* str, len bytes (without the NUL) */
	PFR_PERFDATA_BYTES, /* bytes, len: an array that is no string */
};

/* One field of a tracepoint sample. */
struct pfr_perfdata_value {
	const char *name; /* the field's name in the event's format */
	const char *type; /* its C type as the format writes it */
	unsigned kind; /* enum pfr_perfdata_kind */
	unsigned elem_size; /* BYTES: the size of one element */
	int64_t i; /* SIGNED */
	uint64_t u; /* UNSIGNED; SIGNED too, as bits */
	const char *str; /* STRING: not always NUL-terminated: use len */
	const void *bytes; /* BYTES */
	uint32_t len; /* STRING, BYTES: bytes */
	uint32_t common; /* 1 for the common_* fields */
};

/* The number of fields of ev's tracepoint format (the common_* fields
 * first), 0 when ev is not a tracepoint sample or its format is not in
 * the file.  Progress: wait-free. */
PFR_API int pfr_perfdata_nr_fields(struct pfr_perfdata *pd,
				   const struct pfr_perfdata_event *ev);

/* Field i (0 .. pfr_perfdata_nr_fields() - 1) of ev into *v, its
 * pointers into ev's record or the format (valid as ev's).  Returns 0,
 * -PFR_E_INVAL (NULL, not a tracepoint sample, i out of range) or
 * -PFR_PERF_E_TRUNCATED (the field runs past the raw data).
 * Progress: wait-free. */
PFR_API int pfr_perfdata_field(struct pfr_perfdata *pd,
			       const struct pfr_perfdata_event *ev, int i,
			       struct pfr_perfdata_value *v);

/* The same for the field called name; -PFR_E_INVAL also when ev's format
 * has no such field.  Progress: wait-free. */
PFR_API int pfr_perfdata_field_by_name(struct pfr_perfdata *pd,
				       const struct pfr_perfdata_event *ev,
				       const char *name,
				       struct pfr_perfdata_value *v);

/* perf script's text of ev's tracepoint fields (the format's print
 * format, as libtraceevent prints it) into buf[len], NUL-terminated,
 * truncated to fit.  Returns the length the whole text has (as snprintf),
 * or -PFR_E_INVAL (NULL, not a tracepoint sample, format not in the
 * file, malformed data). */
PFR_API int pfr_perfdata_trace_text(struct pfr_perfdata *pd,
				    const struct pfr_perfdata_event *ev,
				    char *buf, size_t len);

/* --- the header --- */

/* Header features (perf's HEADER_* numbers) pfr_perfdata_feature()
 * gives as text. */
enum pfr_perfdata_feat {
	PFR_PERFDATA_FEAT_HOSTNAME = 3,
	PFR_PERFDATA_FEAT_OSRELEASE = 4,
	PFR_PERFDATA_FEAT_VERSION = 5, /* the recorder's perf version */
	PFR_PERFDATA_FEAT_ARCH = 6,
	PFR_PERFDATA_FEAT_NRCPUS = 7, /* "ONLINE AVAIL", two numbers */
	PFR_PERFDATA_FEAT_CPUDESC = 8,
	PFR_PERFDATA_FEAT_CPUID = 9,
	PFR_PERFDATA_FEAT_TOTAL_MEM = 10, /* kB, a number */
	PFR_PERFDATA_FEAT_CMDLINE = 11, /* the words joined by spaces */
};

/* The text of header feature feat (enum pfr_perfdata_feat), valid until
 * close; NULL when the file lacks it (a pipe carries none this library
 * reads), feat is not one of the above, or pd is NULL. */
PFR_API const char *pfr_perfdata_feature(struct pfr_perfdata *pd,
					 unsigned feat);

/* The build id HEADER_BUILD_ID records for the object at path (as the
 * MMAP records name it, or "[kernel.kallsyms]"): copied into id[*len]
 * (20 bytes hold any), *len set to its length.  Returns 0,
 * -PFR_E_AGAIN when the file records none for path, -PFR_E_NOSPC when
 * *len is too small (*len then the length needed), -PFR_E_INVAL. */
PFR_API int pfr_perfdata_buildid(struct pfr_perfdata *pd, const char *path,
				 unsigned char *id, size_t *len);

/*
 * Adds the objects whose build ids the perf.data file at path records
 * (HEADER_BUILD_ID) to the build-id cache at dir, as perf record's
 * post-pass does, with perf's layout: DIR/<real path>/<build id>/elf (a
 * hard link to the file, else a copy), debug (the installed separate
 * debug file, if any), probes (the object's SDT probes), the kernel's
 * kallsyms and the vdso's image, and DIR/.build-id/<2 hex>/<rest> links.
 * An object rebuilt since the recording (its build id differs) is left
 * out.  dir NULL: $PERF_BUILDID_DIR, else $HOME/.debug; dir itself is
 * created when missing (its parents are not).  Returns the number of
 * objects the file records (0: none, or no HEADER_BUILD_ID), or
 * -PFR_E_INVAL (path NULL), -PFR_PERF_E_FILE_LAYOUT (the feature is
 * malformed or the file unreadable) or -PFR_E_SYSTEM (errno: from the
 * first object that could not be added; the others are still tried).
 * Progress: blocking (file I/O).
 */
PFR_API int pfr_perfdata_buildid_cache_add(const char *path, const char *dir);

/* --- the process model --- */

/* The command of thread tid as the records read so far name it (":TID"
 * when none did, "swapper" for 0), valid until the next call of any
 * function on pd.  NULL for NULL.  Progress: wait-free. */
PFR_API const char *pfr_perfdata_comm(struct pfr_perfdata *pd, uint32_t tid);

/* Resolves addr in process pid (with PFR_PERFDATA_FRAME_KERNEL in flags:
 * in the kernel) against the mappings the records read so far made, into
 * *fr (ip, addr, sym, symoff, dso, flags).  Returns 1 when a symbol holds
 * addr, 0 when not (sym "[unknown]"), -PFR_E_INVAL. */
PFR_API int pfr_perfdata_resolve(struct pfr_perfdata *pd, uint32_t pid,
				 uint64_t addr, unsigned flags,
				 struct pfr_perfdata_frame *fr);

/* --- perf script's printer --- */

/* pfr_perfdata_print_opts.flags */
#define PFR_PERFDATA_PRINT_JSON 0x1u /* JSON Lines (perfring script --json) */
#define PFR_PERFDATA_PRINT_NS 0x2u /* times in nanoseconds (--ns) */
#define PFR_PERFDATA_PRINT_RELTIME 0x4u /* from the first record (--reltime) */
#define PFR_PERFDATA_PRINT_NO_CALLCHAIN 0x8u /* -G */
/* JSON for perf's Python scripts (perfring script -s): samples also
 * carry misc, addr and the raw data in hex; with PRINT_JSON */
#define PFR_PERFDATA_PRINT_JSON_PY 0x10u

/* perf script's output fields (-F), per output type */
#define PFR_PERFDATA_FLD_COMM 0x1u
#define PFR_PERFDATA_FLD_TID 0x2u
#define PFR_PERFDATA_FLD_PID 0x4u
#define PFR_PERFDATA_FLD_TIME 0x8u
#define PFR_PERFDATA_FLD_CPU 0x10u
#define PFR_PERFDATA_FLD_EVENT 0x20u
#define PFR_PERFDATA_FLD_TRACE 0x40u
#define PFR_PERFDATA_FLD_IP 0x80u
#define PFR_PERFDATA_FLD_SYM 0x100u
#define PFR_PERFDATA_FLD_SYMOFF 0x200u
#define PFR_PERFDATA_FLD_DSO 0x400u
#define PFR_PERFDATA_FLD_PERIOD 0x800u
#define PFR_PERFDATA_FLD_ADDR 0x1000u
/* perf script's output types: an event's attr type when below 6
 * (PERF_TYPE_HARDWARE .. PERF_TYPE_BREAKPOINT), else 6 (a dynamic
 * PMU's) */
#define PFR_PERFDATA_NTYPES 7

/* pfr_perfdata_print_opts.show: side-band records printed */
#define PFR_PERFDATA_SHOW_TASK 0x1u /* COMM, FORK, EXIT */
#define PFR_PERFDATA_SHOW_MMAP 0x2u /* MMAP, MMAP2 */
#define PFR_PERFDATA_SHOW_SWITCH 0x4u
#define PFR_PERFDATA_SHOW_NAMESPACE 0x8u
#define PFR_PERFDATA_SHOW_LOST 0x10u
#define PFR_PERFDATA_SHOW_ROUND 0x20u /* FINISHED_ROUND */
#define PFR_PERFDATA_SHOW_BPF 0x40u
#define PFR_PERFDATA_SHOW_CGROUP 0x80u
#define PFR_PERFDATA_SHOW_TEXT_POKE 0x100u
#define PFR_PERFDATA_SHOW_OTHER 0x200u /* any other type */

struct pfr_perfdata_print_opts {
	size_t sz; /* sizeof(struct pfr_perfdata_print_opts), or 0 */
	unsigned flags; /* PFR_PERFDATA_PRINT_* */
	unsigned show; /* PFR_PERFDATA_SHOW_* */
	/* Added after the first version (sz covers them): perf script's
	 * -F.  Output type t prints fields[t] (PFR_PERFDATA_FLD_*) when bit
	 * t of fields_set is set, else perf script's defaults for the
	 * event; either way less what its samples lack. */
	unsigned fields[PFR_PERFDATA_NTYPES];
	unsigned fields_set;
};

/*
 * Writes ev to f as `perfring script` prints it by default (perf script's
 * default fields for its event's type; JSON Lines with
 * PFR_PERFDATA_PRINT_JSON): a sample with its call chain, a side-band
 * record only when o->show has its class.  o may be NULL.  Returns 0,
 * -PFR_E_INVAL, or -PFR_E_SYSTEM when writing to f failed (errno kept).
 */
PFR_API int pfr_perfdata_print(struct pfr_perfdata *pd,
			       const struct pfr_perfdata_event *ev, FILE *f,
			       const struct pfr_perfdata_print_opts *o);

/* perf script's default fields (PFR_PERFDATA_FLD_*) of output type t
 * (< PFR_PERFDATA_NTYPES; 0 for another).
 * Concurrency: pure function.  Progress: wait-free. */
PFR_API unsigned pfr_perfdata_default_fields(unsigned t);

/* The fields (PFR_PERFDATA_FLD_*) pfr_perfdata_print() prints for the
 * samples of event evidx under o (NULL: the defaults): o's or the
 * defaults, less what the event's samples lack (perf's rule; a caller
 * may refuse a field it asked for that is dropped, as perf script -F
 * does).  Returns them (>= 0), or -PFR_E_INVAL. */
PFR_API int pfr_perfdata_print_fields(struct pfr_perfdata *pd, uint32_t evidx,
				      const struct pfr_perfdata_print_opts *o);

/* --- printing records as they come (no file) --- */

/* A printer of records that do not come from a file (a recorder's own,
 * as `perfring record --print` shows them): tracks their side-band
 * records and prints each, as the lines of pfr_perfdata_print(). */
struct pfr_perfdata_printer;

/* pfr_perfdata_printer_new() flags: PFR_PERFDATA_PRINT_JSON, and */
#define PFR_PERFDATA_PRINT_NO_SYMBOLS 0x20u /* addresses only */

/* A printer writing to f under flags; tracepoints[n] ("sys:name"; other
 * names are skipped, n may be 0) are decoded with this machine's formats
 * (tracefs).  Returns 0, -PFR_E_INVAL or -PFR_E_SYSTEM (ENOMEM). */
PFR_API int pfr_perfdata_printer_new(struct pfr_perfdata_printer **p, FILE *f,
				     unsigned flags,
				     const char *const *tracepoints,
				     unsigned n);

/* Tracks and prints one record of the event named event (hdr, then len
 * payload bytes, laid out as lay says).  Returns 0, or -PFR_E_INVAL (a
 * NULL; a record the decoder refuses, counted and skipped). */
PFR_API int pfr_perfdata_printer_record(struct pfr_perfdata_printer *p,
					const char *event,
					const struct pfr_perf_layout *lay,
					const struct pfr_record_header *hdr,
					const void *payload, uint32_t len);

/* The records the decoder refused so far (0 for NULL).
 * Progress: wait-free. */
PFR_API uint64_t pfr_perfdata_printer_bad(const struct pfr_perfdata_printer *p);

/* Frees p (NULL: nothing). */
PFR_API void pfr_perfdata_printer_free(struct pfr_perfdata_printer *p);

PFR__EXTERN_C_END

#endif /* PERFRING_PERFDATA_H */
