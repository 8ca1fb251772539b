/* SPDX-License-Identifier: MIT */
/*
 * <perfring/perf.h> - the Linux kernel's own perf ring, read with perfring's
 * reader, and the perf.data file format that perf(1) reads.
 *
 * The kernel is the writer of this ring; perfring is the reader:
 *
 *        KERNEL (perf_output_*)                 perfring
 *   tail = READ_ONCE(->data_tail)          head = ->data_head
 *   (A) control dependency                 (C) smp_load_acquire
 *   if (space) STORE records               LOAD records up to head
 *   (B) smp_wmb()                          (D) smp_store_release
 *   STORE(->data_head, new head)           STORE(->data_tail, new tail)
 *
 * A pairs with D: the kernel's perf_output_begin() loads data_tail and only
 * writes into space our release of data_tail (D, pfr_reader_end()) freed, so
 * it never overwrites a record we are still reading.  B pairs with C: the
 * kernel's smp_wmb() in perf_output_put_handle() orders the record bytes
 * before the new data_head, and our acquire load of data_head
 * (pfr_reader_begin()) orders it before our loads of the records.  The ring
 * is read with the same struct pfr_reader as perfring's own rings
 * (<perfring/ring.h>), over the mmap page's data_head, data_tail,
 * data_offset and data_size; records that straddle the end of the data
 * area are copied out in two pieces.
 *
 * NULL pointers: the rule of <perfring/ring.h> holds here too.  Every
 * function checks its pointer arguments: a NULL that its comment does not
 * allow returns -PFR_E_INVAL (pfr_perf_open() passes it to the kernel,
 * whose answer is -EFAULT); functions without an error return give a
 * neutral result (0, NULL, "?", an empty string or a zeroed layout) or do
 * nothing; pfr_perf_file_close(NULL) and pfr_perf_ring_unmap(NULL) are
 * no-ops, as free(NULL) is.  A data pointer with a count or length of 0
 * may be NULL, and so may an event's or a group's name.  The inline
 * pfr_perf_u64() does not check.
 *
 * This header does not include <linux/perf_event.h> (its __u64 bit-fields
 * are not ISO C); functions take struct perf_event_attr by pointer.  Include
 * <linux/perf_event.h> yourself to fill one in.
 */
#ifndef PERFRING_PERF_H
#define PERFRING_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <perfring/common.h>
#include <perfring/ring.h>

PFR__EXTERN_C_BEGIN

struct perf_event_attr;
struct perf_event_mmap_page;

/* Errors of this header, returned negated like PFR_E_*.  One error space:
 * PFR_E_* take 1..99 and these 100..199, and pfr_strerror() names every
 * code of both (pfr_perf_strerror() is the same function). */
enum pfr_perf_error {
	PFR_PERF_E_BASE = 100,
	PFR_PERF_E_UNKNOWN_EVENT = 100, /* no such event name */
	PFR_PERF_E_NO_TRACEFS, /* tracefs not mounted (and could not be) */
	PFR_PERF_E_NO_TRACEPOINT, /* tracefs has no such tracepoint */
	PFR_PERF_E_SAMPLE_TYPE, /* sample_type bits this decoder lacks */
	PFR_PERF_E_TRUNCATED, /* a field runs past the end of its record */
	PFR_PERF_E_STRING, /* a string without its terminating NUL */
	PFR_PERF_E_FILE_MAGIC, /* not a perf.data file (or other endian) */
	PFR_PERF_E_FILE_LAYOUT, /* perf.data sections out of bounds */
	PFR_PERF_E_EVENT_SYNTAX, /* malformed event list, group or terms */
	PFR_PERF_E_TOO_MANY, /* more events or CPUs than the array holds */
	PFR_PERF_E_CPU, /* a CPU that is not online */
	PFR_PERF_E_NO_PROCESS, /* no such process (or none of a user) */
	PFR_PERF_E_OPEN, /* perf_event_open refused an event */
	PFR_PERF_E_FILTER, /* the kernel refused a tracepoint filter */
	PFR_PERF_E_MMAP, /* a ring could not be mapped */
	PFR_PERF_E_EXEC, /* the command could not be executed */
	PFR_PERF_E_COMPRESSED, /* compressed records, no decompressor set */
	PFR_PERF_E__END
};

/* Names a PFR_E_* or PFR_PERF_E_* code (either sign), as pfr_strerror()
 * does: a constant string.
 * Concurrency: any thread.  Progress: wait-free. */
PFR_API const char *pfr_perf_strerror(int err);

/* --- events --- */

/* Parses one event into *attr (which it zeroes first), in perf's
 * grammar: a name -- the software events cpu-clock, task-clock,
 * page-faults (faults), minor-faults, major-faults, context-switches (cs),
 * cpu-migrations (migrations), alignment-faults, emulation-faults, dummy;
 * the generic hardware events (cycles, instructions, cache-references,
 * cache-misses, branches, branch-misses, bus-cycles, ref-cycles); a raw
 * event rHEX -- optionally followed by /TERMS/ and by :MODIFIERS; a PMU
 * of /sys/bus/event_source/devices with its terms (PMU/event=0x3c/,
 * PMU/alias/); or a tracepoint "subsystem:name", whose id is read from
 * tracefs.  Terms: period=N, freq=N, name=S, call-graph=fp|no, time=0|1,
 * inherit, no-inherit, config=N, config1=N, config2=N and the PMU's own
 * format fields.  Modifiers: u, k, h (privilege levels), G, H (guest,
 * host), p, pp, ppp (precision), D (pinned), e (exclusive), I (exclude
 * idle); without modifiers exclude_guest is set, as perf does.  tracefs is
 * looked up at $PFR_TRACEFS, /sys/kernel/tracing and
 * /sys/kernel/debug/tracing; when none is mounted and mount_tracefs is set
 * (and $PFR_TRACEFS is not), it mounts tracefs on /sys/kernel/tracing
 * (root only).  perf's name for the event into name[namelen].  Returns 0,
 * -PFR_PERF_E_UNKNOWN_EVENT, -PFR_PERF_E_EVENT_SYNTAX,
 * -PFR_PERF_E_NO_TRACEFS, -PFR_PERF_E_NO_TRACEPOINT or -PFR_E_INVAL.
 * Concurrency: any thread.  Progress: blocking (file system). */
PFR_API int pfr_perf_event_parse(const char *spec, struct perf_event_attr *attr,
				 char *name, size_t namelen, int mount_tracefs);

/* What an event list said about each event beyond its attr. */
#define PFR_PERF_TERM_PERIOD 0x1u /* period=N: keep sample_period */
#define PFR_PERF_TERM_FREQ 0x2u /* freq=N: keep sample_freq */
#define PFR_PERF_TERM_CALLGRAPH_FP 0x4u /* call-graph=fp */
#define PFR_PERF_TERM_CALLGRAPH_NO 0x8u /* call-graph=no */
#define PFR_PERF_TERM_INHERIT 0x10u /* inherit */
#define PFR_PERF_TERM_NO_INHERIT 0x20u /* no-inherit */
#define PFR_PERF_TERM_TIME 0x40u /* time=1 */
#define PFR_PERF_TERM_NO_TIME 0x80u /* time=0 */

struct pfr_perf_evinfo {
	char name[160]; /* perf's name: the spec as written, or name= */
	uint32_t leader; /* index of the group leader (itself if alone) */
	uint32_t nr_members; /* on a leader: its group's size; else 0 */
	uint32_t terms; /* PFR_PERF_TERM_* */
	uint32_t pad;
};

/* Parses a list as perf's -e takes it -- events separated by commas,
 * groups "{a,b}[:MODIFIERS]" (the modifiers apply to every member) --
 * appending to attrs[] and info[] from index *nr (at most max in all)
 * and advancing *nr.  Each event as pfr_perf_event_parse() reads it.
 * Returns 0 or the first error (then *nr is unchanged), including
 * -PFR_PERF_E_TOO_MANY.
 * Concurrency: any thread.  Progress: blocking (file system). */
PFR_API int pfr_perf_event_list_parse(const char *list,
				      struct perf_event_attr *attrs,
				      struct pfr_perf_evinfo *info,
				      uint32_t max, uint32_t *nr,
				      int mount_tracefs);

/* A cpu list as perf writes it ("0-3,8,10-11") into cpus[max], in the
 * order given, without duplicates; returns how many, -PFR_E_INVAL for a
 * malformed list, -PFR_PERF_E_TOO_MANY.
 * Concurrency: pure function.  Progress: wait-free. */
PFR_API int pfr_perf_cpu_list(const char *s, int *cpus, int max);

/* Where tracefs is (or would be mounted): a constant string.
 * Concurrency: any thread.  Progress: blocking (stat). */
PFR_API const char *pfr_perf_tracefs_path(void);

/* The event names pfr_perf_event_parse() knows, NULL-terminated (without
 * tracepoints).  Concurrency: any thread after the first call.
 * Progress: wait-free. */
PFR_API const char *const *pfr_perf_event_names(void);

/* perf_event_open(2).  Returns the fd or -errno.
 * Concurrency: any thread.  Progress: blocking (system call). */
PFR_API int pfr_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			  int group_fd, unsigned long flags);

/* The online CPUs (from /sys/devices/system/cpu/online) into cpus[max];
 * returns how many, or -PFR_E_SYSTEM.
 * Concurrency: any thread.  Progress: blocking (file system). */
PFR_API int pfr_perf_online_cpus(int *cpus, int max);

/* --- the mmap ring --- */

struct pfr_perf_ring {
	int fd; /* the event that owns the ring */
	int cpu; /* -1 for a per-task ring */
	int overwrite; /* read-only mapping, written backward */
	int pad;
	struct perf_event_mmap_page *page;
	void *base;
	size_t map_len;
	uint64_t data_size;
	unsigned char *scratch; /* PFR_RECORD_MAX bytes for straddlers */
	struct pfr_reader reader;
	uint64_t snap_head; /* overwrite: head of the last snapshot */
};

/* mmap 1 + data_pages pages of fd's ring (data_pages a power of two) and
 * set up the reader over data_head/data_tail/data_offset/data_size, after
 * checking them against the mapping.  overwrite: a read-only mapping, so
 * the kernel overwrites the oldest records (the event must have been
 * opened with write_backward).  Returns 0, -PFR_E_INVAL, -PFR_E_LAYOUT or
 * -PFR_E_SYSTEM (errno set: EPERM past perf_event_mlock_kb, ENOMEM).
 * Concurrency: one thread per ring.  Progress: blocking. */
PFR_API int pfr_perf_ring_map(struct pfr_perf_ring *ring, int fd, int cpu,
			      uint32_t data_pages, int overwrite);
/* Unmaps (does not close fd).
 * Concurrency: not while the ring is read.  Progress: blocking. */
PFR_API void pfr_perf_ring_unmap(struct pfr_perf_ring *ring);

/* Overwrite rings: pause the kernel's output (PERF_EVENT_IOC_PAUSE_OUTPUT),
 * call fn for each intact record from the newest back to the oldest (at
 * most one ring's worth; a record cut by the oldest edge is left out), and
 * resume.  fn returns 0 to continue.  Returns the records passed to fn or
 * a negative error.  Progress: blocking (two ioctls). */
PFR_API int64_t pfr_perf_ring_snapshot(struct pfr_perf_ring *ring,
				       int (*fn)(void *arg,
						 const struct pfr_record *rec),
				       void *arg);

/* --- records --- */

/* How the records of one event are laid out: the attr fields that matter. */
struct pfr_perf_layout {
	uint64_t sample_type;
	uint64_t read_format;
	uint32_t sample_id_all;
	uint32_t pad;
};

/* Which fields of struct pfr_perf_rec are present. */
#define PFR_PERF_F_IP 0x1u
#define PFR_PERF_F_TID 0x2u /* pid, tid */
#define PFR_PERF_F_TIME 0x4u
#define PFR_PERF_F_ADDR 0x8u
#define PFR_PERF_F_ID 0x10u /* id (ID or IDENTIFIER) */
#define PFR_PERF_F_STREAM 0x20u
#define PFR_PERF_F_CPU 0x40u
#define PFR_PERF_F_PERIOD 0x80u
#define PFR_PERF_F_CALLCHAIN 0x100u
#define PFR_PERF_F_RAW 0x200u

/* A decoded record.  Pointers point into the record passed to
 * pfr_perf_decode().  Which union member is valid depends on type. */
struct pfr_perf_rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	uint32_t fields; /* PFR_PERF_F_* */
	uint32_t cpu;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id, stream_id;
	/* SAMPLE */
	uint64_t ip, addr, period;
	uint64_t nr_callchain;
	const uint64_t *callchain; /* maybe unaligned: read with pfr_perf_u64 */
	uint32_t raw_size;
	const void *raw;
	union {
		struct { /* MMAP, MMAP2 */
			uint32_t pid, tid;
			uint64_t start, len, pgoff;
			uint32_t prot, flags; /* MMAP2 */
			const char *filename;
		} mmap;
		struct { /* COMM */
			uint32_t pid, tid;
			const char *comm;
		} comm;
		struct { /* FORK, EXIT */
			uint32_t pid, ppid, tid, ptid;
			uint64_t time;
		} task;
		struct { /* LOST: id, lost; LOST_SAMPLES: lost */
			uint64_t id, lost;
		} lost;
		struct { /* THROTTLE, UNTHROTTLE */
			uint64_t time, id, stream_id;
		} throttle;
		struct { /* SWITCH_CPU_WIDE */
			uint32_t next_prev_pid, next_prev_tid;
		} sw;
		struct { /* KSYMBOL */
			uint64_t addr;
			uint32_t len;
			uint16_t ksym_type, flags;
			const char *name;
		} ksymbol;
	} u;
};

/* Decodes one record (hdr, then len payload bytes at payload, as
 * pfr_reader_next() or pfr_perf_file_next() give it) laid out as lay says.
 * Every field is bounds-checked against len, every string against the
 * record; unknown types decode to their header only (skip them by size).
 * Sample fields after RAW (branch stack, registers, user stack, ...) are
 * not decoded (PFR_PERF_E_SAMPLE_TYPE is reserved for them).  Returns 0,
 * -PFR_PERF_E_TRUNCATED or -PFR_PERF_E_STRING.  Never reads outside
 * [payload, payload+len).
 * Concurrency: pure function.  Progress: wait-free. */
PFR_API int pfr_perf_decode(const struct pfr_perf_layout *lay,
			    const struct pfr_record_header *hdr,
			    const void *payload, uint32_t len,
			    struct pfr_perf_rec *out);

/* The event id of a record when sample_type has PERF_SAMPLE_IDENTIFIER
 * (first u64 of a SAMPLE, last u64 of others with sample_id_all).
 * Returns 0 and *id, or -PFR_E_INVAL when there is none.
 * Concurrency: pure function.  Progress: wait-free. */
PFR_API int pfr_perf_record_id(uint64_t sample_type, uint32_t sample_id_all,
			       const struct pfr_record_header *hdr,
			       const void *payload, uint32_t len, uint64_t *id);

/* perf's name for a record type ("SAMPLE", "MMAP2", "FINISHED_ROUND"...),
 * or NULL for one it does not know.
 * Concurrency: pure function.  Progress: wait-free. */
PFR_API const char *pfr_perf_record_name(uint32_t type);

/* Element i of a callchain (the array may be unaligned in a file). */
static inline uint64_t pfr_perf_u64(const uint64_t *p, uint64_t i)
{
	uint64_t v;

	memcpy(&v, (const unsigned char *)p + 8 * i, 8);
	return v;
}

/* --- perf.data files ---
 *
 * For every function below: Concurrency: one thread per struct
 * pfr_perf_file (distinct files are independent).  Progress: blocking
 * (file I/O), except the accessors of an opened file, which are
 * wait-free. */

struct pfr_perf_file;

/* Start writing a perf.data file: its header is valid from the first
 * record (no features yet), its data size follows each write of records
 * (whole records, every 64 KiB and every 100 ms at a round), and the close
 * completes it, so that a writer killed at any moment leaves a file read
 * up to its last complete record.  The file at path is opened without
 * following a link (ELOOP), only as a regular file (EINVAL), not when
 * another user owns it (EPERM) or it has other hard links (EMLINK); it is
 * truncated and made 0600 whatever its mode was.  "/dev/null" by that name
 * (the null device) discards the records.  path
 * "-" writes perf's pipe format to standard output instead: the attrs,
 * event names, the features known at the start and the tracepoint
 * formats go ahead of the data as records (no build ids, no sample
 * times), for perf report -i -; pfr_perf_file_open() reads it back.
 * Returns 0 or -PFR_E_SYSTEM (errno set). */
PFR_API int pfr_perf_file_create(struct pfr_perf_file **f, const char *path);
/* Declare an event: its attr, name, and the ids of its fds
 * (PERF_EVENT_IOC_ID).  Before any record is written; -PFR_E_INVAL after,
 * or on a file opened for reading. */
PFR_API int pfr_perf_file_add_event(struct pfr_perf_file *f,
				    const struct perf_event_attr *attr,
				    const char *name, const uint64_t *ids,
				    uint32_t nr_ids);
/* Declare a group (GROUP_DESC feature): events leader .. leader +
 * nr_members - 1, as added, under name (perf's "{a,b}" groups get an
 * empty name).  Returns 0, -PFR_E_INVAL or -PFR_E_SYSTEM. */
PFR_API int pfr_perf_file_add_group(struct pfr_perf_file *f, const char *name,
				    uint32_t leader, uint32_t nr_members);
/* The command line for the CMDLINE header feature: argc strings, none of
 * them NULL.  Returns 0, -PFR_E_INVAL or -PFR_E_SYSTEM. */
PFR_API int pfr_perf_file_set_cmdline(struct pfr_perf_file *f, int argc,
				      char *const *argv);
/* Append one record: its header, then len payload bytes (hdr->size must
 * be len + 8).  Returns 0, -PFR_E_INVAL (also for a file opened for
 * reading) or -PFR_E_SYSTEM.  MMAP, MMAP2, FORK and exec COMM records are
 * followed to know each process's mappings for BUILD_ID: a forked child
 * shares its parent's, so the memory this takes grows with the number of
 * records, not with forks times mappings. */
PFR_API int pfr_perf_file_write(struct pfr_perf_file *f,
				const struct pfr_record_header *hdr,
				const void *payload, uint32_t len);
/* Write the attrs, the header and the feature sections, close.  The
 * features: the machine (hostname, OS release, arch, CPU description and
 * id, CPU and NUMA topology, memory, caches, PMU types and capabilities,
 * where this machine shows them), the command line, the events and
 * groups, the first and last sample time, the tracepoints' formats, and
 * the build ids of the DSOs that samples hit (the kernel, [vdso] and every
 * mapped file, followed through the MMAP, FORK and COMM records written).
 * Returns 0 or -PFR_E_SYSTEM; frees f either way.  Also closes a file
 * opened with pfr_perf_file_open() (returns 0).  NULL: returns 0. */
PFR_API int pfr_perf_file_close(struct pfr_perf_file *f);

/* Open a perf.data file (perfring's or perf's own) for reading; validates
 * the header and every section against the file size.  perf's pipe
 * format (a 16-byte header, then records) is read too: the attrs and ids
 * from its HEADER_ATTR records, names from EVENT_UPDATE, HEADER_EVENT_TYPE
 * or the EVENT_DESC feature; pfr_perf_file_next() passes over perf's own
 * records (type 64 and up, and the bytes that follow HEADER_TRACING_DATA)
 * and reports a truncated or malformed one as an error.  path "-" reads
 * standard input to its end (at most 1 GiB; EFBIG past it).  Returns 0,
 * -PFR_PERF_E_FILE_MAGIC, -PFR_PERF_E_FILE_LAYOUT or -PFR_E_SYSTEM. */
PFR_API int pfr_perf_file_open(struct pfr_perf_file **f, const char *path);
PFR_API uint32_t pfr_perf_file_nr_events(const struct pfr_perf_file *f);
/* Event i's attr (as stored, zero-extended to this header's size), its
 * name (from the EVENT_DESC feature, else derived from the attr) and its
 * layout.  For an i out of range (or f NULL): NULL, "?" and a zeroed
 * layout.  pfr_perf_file_nr_events(NULL) is 0. */
PFR_API const struct perf_event_attr *
pfr_perf_file_attr(const struct pfr_perf_file *f, uint32_t i);
PFR_API const char *pfr_perf_file_event_name(const struct pfr_perf_file *f,
					     uint32_t i);
PFR_API void pfr_perf_file_layout(const struct pfr_perf_file *f, uint32_t i,
				  struct pfr_perf_layout *lay);
/* The event a record belongs to (by its id when records carry one),
 * or 0. */
PFR_API uint32_t pfr_perf_file_event_of(const struct pfr_perf_file *f,
					const struct pfr_record_header *hdr,
					const void *payload, uint32_t len);
/* Next record of the data section: 1 with *rec filled (payload valid until
 * the file is closed), 0 at the end, -PFR_E_RECSIZE_* for a record that
 * is too small or runs past the section, -PFR_PERF_E_COMPRESSED for a
 * compressed record (perf record -z) and no decompressor
 * (pfr_perf_file_set_inflate()), or -PFR_E_INVAL (also for a file opened
 * for writing). */
PFR_API int pfr_perf_file_next(struct pfr_perf_file *f, struct pfr_record *rec);

/* Opens path as pfr_perf_file_open() does, but streams a regular file's
 * data section: only the bytes before it (header, ids, attrs) and after
 * it (the feature sections) are held, and the records are read through a
 * window of 1 MiB or one record, so that a file of any size is read in
 * bounded memory.  A record's payload from pfr_perf_file_next() is then
 * valid until the next call only.  The pipe format is streamed too
 * (perf's own records, the attrs, names, features and tracing data, are
 * copied first); "-" is read from a temporary file it is copied into
 * (standard input itself when that is a regular file).  COMPRESSED
 * records are decompressed by steps into one 256 KiB buffer, whatever a
 * frame expands to.  A file whose header or feature sections are huge
 * (64 MiB before its data, 256 MiB after) is read whole as
 * pfr_perf_file_open() reads it.  Same returns as pfr_perf_file_open().
 * (PERFRING_0.3) */
PFR_API int pfr_perf_file_open_stream(struct pfr_perf_file **f,
				      const char *path);
/* The tracing data (HEADER_TRACING_DATA's contents: the tracepoints'
 * formats) the file holds, from its header feature or its pipe record:
 * a pointer valid until close, its length in *len (len may be NULL);
 * NULL (and 0) when there is none or f is NULL.  (PERFRING_0.3) */
PFR_API const void *pfr_perf_file_tracing(const struct pfr_perf_file *f,
					  uint64_t *len);
/* 1 when the file's header was never completed (no features; its data
 * size 0 or behind the file's end: a recorder killed before its close):
 * the data is then read to the file's end, up to its last complete
 * record.  *cut (cut may be NULL): the bytes of a last record cut short,
 * skipped (known once the records are read).  0 for a completed file or
 * f NULL.  (PERFRING_0.3) */
PFR_API int pfr_perf_file_unfinished(const struct pfr_perf_file *f,
				     uint64_t *cut);

/* A decompressor for the PERF_RECORD_COMPRESSED records that perf record
 * -z and perfring record -z write: one zstd stream for the whole file, fed
 * record by record.  It decompresses what it can of in_len bytes at in
 * into out_cap bytes at out, stores how many input bytes it took in
 * *in_used, and returns how many bytes it wrote, or -1 on an error.  The
 * library calls it again with the rest of the input, with more room, and
 * with no input while it fills all the room it was given (the stream may
 * hold more). */
typedef long (*pfr_perf_inflate_fn)(void *arg, const void *in, size_t in_len,
				    size_t *in_used, void *out, size_t out_cap);
/* Sets the decompressor pfr_perf_file_next() uses for f (NULL: none).  The
 * library links no compression library: without a decompressor,
 * pfr_perf_file_next() stops at a compressed record with
 * -PFR_PERF_E_COMPRESSED, and stays there (one may be set, and the call
 * repeated); with one, it returns the records inside, as if stored
 * uncompressed (rec->pos: the compressed record's position), and
 * -PFR_PERF_E_FILE_LAYOUT when the decompressor fails, a record is cut
 * off at the end of the compressed stream, or (the records' payloads
 * staying valid until close) more than 1 GiB would stay decompressed.  Returns 0, or -PFR_E_INVAL (f
 * NULL, opened for writing, or a compressed record already decompressed:
 * the stream cannot change decompressor in its middle). */
PFR_API int pfr_perf_file_set_inflate(struct pfr_perf_file *f,
				      pfr_perf_inflate_fn fn, void *arg);

/* Builds the name perf derives for an attr without a name ("cpu-clock",
 * "raw 0x..."), into buf.  Concurrency: pure function.
 * Progress: wait-free. */
PFR_API void pfr_perf_attr_name(const struct perf_event_attr *attr, char *buf,
				size_t len);

PFR__EXTERN_C_END

/* The recording session (events x CPUs x threads, rings, time order). */
#include <perfring/session.h>

#endif /* PERFRING_PERF_H */
