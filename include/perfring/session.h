/* SPDX-License-Identifier: MIT */
/*
 * <perfring/session.h> - a perf recording session: the events of a set of
 * CPUs x threads, their rings, and the records in time order (what perf's
 * evlist, evsel, mmap and ordered events do).  Included by <perfring/perf.h>.
 *
 * A session, in the order of the calls:
 *
 *   pfr_perf_session_create()        options: ring size, callbacks, /proc
 *   pfr_perf_session_add_event()     each event (an attr, a name, a group)
 *   pfr_perf_session_set_cpus()      the CPUs (default: every online one)
 *   pfr_perf_session_add_thread()    targets: -1 for CPU-wide, threads,
 *   pfr_perf_session_add_process()     every thread of a process, every
 *   pfr_perf_session_add_user()        process of a user,
 *   pfr_perf_session_start_command()   or a command, held before exec
 *   pfr_perf_session_open()          perf_event_open for every event x CPU
 *                                    x thread, one ring per CPU (the other
 *                                    fds write into it: SET_OUTPUT)
 *   pfr_perf_session_synthesize()    records for what exists already
 *   pfr_perf_session_write_file()    optional: perf.data as well
 *   pfr_perf_session_enable()        start; the command execs
 *   pfr_perf_session_run()           poll, drain, deliver until stopped;
 *                                    then disable, drain, account losses,
 *                                    reap the command, close the file
 *   pfr_perf_session_stats()         what was seen
 *   pfr_perf_session_destroy()
 *
 * pfr_perf_session_run() is pfr_perf_session_poll() and
 * pfr_perf_session_drain() in a loop, then pfr_perf_session_finish(); a
 * caller with its own loop calls those.  Records reach the on_record
 * callback in time order: every ring is drained with perfring's reader
 * (the pairings with the kernel are drawn in <perfring/perf.h>) into the
 * ordered merge of <perfring/merge.h>, which is flushed by perf record's
 * rule: after a pass over every ring, up to the newest time the previous
 * pass saw.  With a file, each record is written to it before the
 * callback sees it.
 *
 * Children are followed as perf record follows them: the event the session
 * adds when the caller adds none (cpu-clock) has inherit set unless the
 * targets are threads or processes named one by one (perf record -t, -p).
 * An event the caller adds keeps the caller's attr.inherit: set it to
 * follow the children of a command (perf record's default; perfring
 * record sets it), leave it 0 to record the command alone.
 *
 * The library prints nothing, never exits and installs no signal handler:
 * errors are negative PFR_E_* or PFR_PERF_E_* codes, and
 * pfr_perf_session_last_error() says which call failed on which event,
 * CPU and thread, with its errno.  A caller's signal handler asks the
 * session to stop or to take a snapshot with pfr_perf_session_request(),
 * which is async-signal-safe.
 *
 * Options structs carry their size as the first member (sz): set it to
 * sizeof the struct you compiled against, or leave it 0 (this layout, as
 * for every perfring options struct); the library reads only the fields
 * within sz, treats the others as zero, and refuses (-PFR_E_INVAL) an sz
 * smaller than a size_t or a larger struct whose bytes past its own size
 * are not zero.  The stats and error structs are filled the same way, up
 * to sz (0: this layout).
 *
 * Concurrency (for every function unless it says otherwise): one thread
 * per session; distinct sessions are independent.
 */
#ifndef PERFRING_SESSION_H
#define PERFRING_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <perfring/common.h>
#include <perfring/perf.h>

PFR__EXTERN_C_BEGIN

struct pfr_perf_session;

/* One record as the session delivers it.  hdr and payload are valid
 * during the callback only. */
struct pfr_perf_session_rec {
	const struct pfr_record_header *hdr;
	const void *payload;
	uint32_t len; /* hdr->size - 8 */
	uint32_t event; /* the event it belongs to (by its id), else 0 */
	uint64_t time; /* 0 for records without one (synthesized ones) */
	const struct pfr_perf_layout *lay; /* for pfr_perf_decode() */
};

/* Called for each record in time order.  The callback stop rule of every
 * perfring callback (docs/api.md): returns 0 to go on, or nonzero to stop
 * the delivery after this record; the value is returned by the call that
 * delivered (pfr_perf_session_drain(), _run(), _finish(), ...), and a
 * run it stopped finishes as after an error (the command reaped, the file
 * closed).  (Before PERFRING_0.3 a positive value acted as 0: binaries
 * linked then keep that rule.) */
typedef int (*pfr_perf_session_fn)(void *arg,
				   const struct pfr_perf_session_rec *rec);

/* Log levels of the log callback. */
#define PFR_PERF_LOG_WARN 1
#define PFR_PERF_LOG_INFO 2
#define PFR_PERF_LOG_DEBUG 3
typedef void (*pfr_perf_log_fn)(void *arg, int level, const char *msg);

/* Session flags. */
#define PFR_PERF_SESSION_OVERWRITE 0x1u /* flight recorder: see below */
#define PFR_PERF_SESSION_SWITCH_EVENTS 0x2u /* PERF_RECORD_SWITCH* */
#define PFR_PERF_SESSION_DATA_MAPS 0x4u /* data mappings too (-d, dwarf) */
/* A "dummy:HG" event carries the side-band (mmap, comm, task, ksymbol,
 * bpf_event), enabled at once, as perf record adds for CPU-wide and
 * delayed recording. */
#define PFR_PERF_SESSION_TRACKING 0x8u
#define PFR_PERF_SESSION_NO_BUILDID 0x10u /* the file without BUILD_ID */
/* No PERF_RECORD_KSYMBOL / BPF_EVENT (set where the kernel has them). */
#define PFR_PERF_SESSION_NO_BPF_EVENT 0x20u
/* BUILD_ID lists every DSO mapped, not only those the samples hit (perf
 * record --buildid-all); NO_BUILDID wins over it. */
#define PFR_PERF_SESSION_BUILDID_ALL 0x40u

struct pfr_perf_session_opts {
	size_t sz; /* sizeof(struct pfr_perf_session_opts) */
	uint32_t flags; /* PFR_PERF_SESSION_* */
	/* Data pages per ring, a power of two; 0: 128.  A ring wakes the
	 * reader when half of it is full. */
	uint32_t data_pages;
	/* pfr_perf_session_run() drains every tick_ms even when no ring
	 * woke it (a stream to a reader); 0: only on wake-ups. */
	int tick_ms;
	int pad;
	/* Where /proc is (synthesis, thread lists, kallsyms); NULL: /proc. */
	const char *proc_root;
	pfr_perf_session_fn on_record; /* NULL: records are only counted */
	void *arg;
	/* Called after each delivery pass (a drain or a snapshot), with arg:
	 * where a stream flushes its buffer.  NULL: none. */
	void (*on_drained)(void *arg);
	pfr_perf_log_fn log; /* NULL: no log */
	void *log_arg;
	/* The file's records zstd-compressed at this level (1-22; 0: none),
	 * as perf record -z writes them (PERF_RECORD_COMPRESSED). */
	int compress_level;
	/* Milliseconds after pfr_perf_session_enable() (the command's exec)
	 * before the events are enabled; -1: never (only the tracking event
	 * records); 0: at once.  As perf record -D. */
	int delay_ms;
	/* PFR_PERF_REQ_SWITCH asks for this (from pfr_perf_session_run()):
	 * the caller moves to a new file with pfr_perf_session_switch_file();
	 * a nonzero return stops the run, which returns it (the callback
	 * stop rule, docs/api.md).  NULL: ignored. */
	int (*on_switch)(void *arg);
};

/*
 * PFR_PERF_SESSION_OVERWRITE: the events write backward into read-only
 * rings that keep the newest data; the side-band (mmap, comm, task) goes
 * to an event with ordinary rings: the one added with
 * PFR_PERF_EVENT_TRACKING, else a "dummy" the session adds.  Their records are
 * delivered at each pfr_perf_session_snapshot() (and at the end), each
 * record once.
 */

/* Creates an empty session.  opts may be NULL (all defaults).  Returns 0,
 * -PFR_E_INVAL (bad sz, data_pages not a power of two) or -PFR_E_SYSTEM
 * (out of memory).  Progress: blocking (allocates). */
PFR_API int pfr_perf_session_create(struct pfr_perf_session **s,
				    const struct pfr_perf_session_opts *opts);

/* Closes every fd and ring, kills a command that still runs (SIGTERM) and
 * reaps it, writes and closes a file still open, frees.  NULL: nothing.
 * Progress: blocking. */
PFR_API void pfr_perf_session_destroy(struct pfr_perf_session *s);

/* Event flags. */
#define PFR_PERF_EVENT_GROUP_MEMBER 0x1u /* in the group of .leader */
/* Overwrite mode: the event that carries the side-band, in ordinary
 * rings (without one, the session adds a "dummy" that samples as the
 * first event). */
#define PFR_PERF_EVENT_TRACKING 0x2u

struct pfr_perf_event_opts {
	size_t sz; /* sizeof(struct pfr_perf_event_opts) */
	const char *name; /* NULL: perf's name for the attr */
	uint32_t flags; /* PFR_PERF_EVENT_* */
	uint32_t leader; /* GROUP_MEMBER: its leader's index */
	uint32_t nr_members; /* on a leader: its group's size (0 or 1 alone) */
	int cgroup_fd; /* > 0: a cgroup directory; CPU-wide only */
	const char *filter; /* tracepoint filter (copied), or NULL */
};

/*
 * Adds an event.  attr is copied and completed at pfr_perf_session_open():
 * PERF_SAMPLE_IDENTIFIER, _TID and _TIME are added to sample_type (an
 * empty sample_type gets perf's IP, TID, TIME, CPU and PERIOD too), and
 * every event gets the union of the sample types (one layout per session);
 * an attr without a period or frequency samples at 4000 Hz (a tracepoint:
 * every hit), as perf does; read_format is PERF_FORMAT_ID (and _LOST where
 * the kernel has it); sample_id_all is set; a group member is enabled
 * with its leader, everything else starts disabled (or enable_on_exec for
 * a command recorded alone); the first event (in overwrite mode the
 * dummy) carries the side-band: mmap, mmap2, comm, task, and the switch
 * and data-map records the session flags ask for.  inherit, exclude_* and
 * the rest are the caller's.  opts may be NULL.  Returns the event's
 * index (>= 0), -PFR_E_INVAL (NULL attr, bad sz, a leader that is not an
 * earlier event, after pfr_perf_session_open()) or -PFR_E_SYSTEM.
 * Progress: blocking (allocates).
 */
PFR_API int pfr_perf_session_add_event(struct pfr_perf_session *s,
				       const struct perf_event_attr *attr,
				       const struct pfr_perf_event_opts *opts);

/* The CPUs to open the events on, as perf writes a list ("0-3,8"); NULL:
 * every online CPU (also the default).  Returns 0, -PFR_E_INVAL for a
 * malformed list, -PFR_PERF_E_CPU for a CPU that is not online (the error
 * info names it), -PFR_PERF_E_TOO_MANY, or -PFR_E_SYSTEM.
 * Progress: blocking (reads sysfs). */
PFR_API int pfr_perf_session_set_cpus(struct pfr_perf_session *s,
				      const char *list);

/* Adds one target thread; -1: CPU-wide (every task on the CPUs).
 * Returns 0, -PFR_E_INVAL (after open) or -PFR_E_SYSTEM.
 * Progress: blocking (allocates). */
PFR_API int pfr_perf_session_add_thread(struct pfr_perf_session *s, pid_t tid);

/* Adds every thread of process pid (its <proc>/pid/task now); its threads
 * that exit before pfr_perf_session_open() are skipped there.  Returns 0,
 * -PFR_PERF_E_NO_PROCESS (error info: the pid and errno), -PFR_E_INVAL or
 * -PFR_E_SYSTEM.  Progress: blocking (reads /proc). */
PFR_API int pfr_perf_session_add_process(struct pfr_perf_session *s, pid_t pid);

/* Adds every thread of every process that user uid owns now (but this
 * process).  Returns 0, -PFR_PERF_E_NO_PROCESS when there is none,
 * -PFR_E_INVAL or -PFR_E_SYSTEM.  Progress: blocking (reads /proc). */
PFR_API int pfr_perf_session_add_user(struct pfr_perf_session *s, uid_t uid);

/* Forks argv[0] (searched in $PATH) with argv, held before its exec until
 * pfr_perf_session_enable().  Without other targets the command is the
 * target (its events are enabled by its exec); with them it only times
 * the recording, which ends when it exits.  Its exit ends
 * pfr_perf_session_run() once the caller passes PFR_PERF_REQ_CHILD (from
 * SIGCHLD) or its rings hang up.  Returns 0, -PFR_E_INVAL (NULL or empty
 * argv, a command already started, after open) or -PFR_E_SYSTEM.
 * Progress: blocking (fork). */
PFR_API int pfr_perf_session_start_command(struct pfr_perf_session *s,
					   char *const argv[]);

/* Opens every event on every CPU for every target, maps one ring per CPU
 * (two in overwrite mode), redirects the other fds into it
 * (PERF_EVENT_IOC_SET_OUTPUT), sets filters and reads the event ids.
 * Without an event: cpu-clock; without a target: CPU-wide.  Returns 0,
 * -PFR_PERF_E_OPEN (perf_event_open refused: the error info gives errno,
 * event, CPU and thread), -PFR_PERF_E_FILTER, -PFR_PERF_E_MMAP (errno
 * set), -PFR_E_INVAL (twice) or -PFR_E_SYSTEM.
 * Progress: blocking (system calls). */
PFR_API int pfr_perf_session_open(struct pfr_perf_session *s);

/* Adds a ring the caller mapped, or built in memory: map_len bytes at
 * base, a struct perf_event_mmap_page with its data area (data_offset,
 * data_size; both zero: the rest of the mapping after one page), checked
 * against map_len.  It is drained with the others; it is not polled.
 * Returns 0, -PFR_E_INVAL, -PFR_E_LAYOUT or -PFR_E_SYSTEM.
 * Progress: blocking (allocates). */
PFR_API int pfr_perf_session_add_ring(struct pfr_perf_session *s, void *base,
				      size_t map_len, int cpu);

/* Queues the records perf synthesizes for what already runs (at time 0,
 * ahead of everything): the kernel's map from <proc>/kallsyms (when its
 * addresses are visible), and for each process the targets cover (every
 * process for CPU-wide or user targets) a COMM per thread and an MMAP2 per
 * executable file mapping and for [vdso] (readable data mappings too with
 * PFR_PERF_SESSION_DATA_MAPS).  Processes that vanish meanwhile are
 * skipped.  Returns the number of records queued, or -PFR_E_SYSTEM.
 * Progress: blocking (reads /proc). */
PFR_API int pfr_perf_session_synthesize(struct pfr_perf_session *s);

/* Writes perf.data at path as well ("-": perf's pipe format on standard
 * output): the events with their ids (so after pfr_perf_session_open()),
 * groups, the command line argv[0..argc) for CMDLINE (argv may be NULL),
 * every delivered record, and at the end one LOST_SAMPLES record per fd
 * that lost samples.  Returns 0, -PFR_E_INVAL (before open, twice) or
 * -PFR_E_SYSTEM (errno set).  Progress: blocking (file I/O). */
PFR_API int pfr_perf_session_write_file(struct pfr_perf_session *s,
					const char *path, int argc,
					char *const *argv);

/* Finishes the file being written (every record queued so far delivered
 * into it) and goes on in a new one at path, with the same events and
 * options, the records of pfr_perf_session_synthesize() again first (as
 * perf record --switch-output does).  The command line given to
 * pfr_perf_session_write_file() must still be valid.  Returns 0,
 * -PFR_E_INVAL (no file being written) or an error as _drain() and
 * _write_file() return them.  Progress: blocking (file I/O). */
PFR_API int pfr_perf_session_switch_file(struct pfr_perf_session *s,
					 const char *path);
/* The data bytes written to the current file so far (0 without one).
 * Progress: wait-free. */
PFR_API uint64_t pfr_perf_session_file_bytes(const struct pfr_perf_session *s);

/* Reader threads for pfr_perf_session_run(), as perf record --threads:
 * nr threads (1 to 4096), the ring of CPU c read by thread
 * reader_of_cpu[c] (CPUs from len on: thread 0).  Each thread polls and
 * drains its rings into a buffer of its own; the session's thread merges
 * them into time order and delivers (callbacks run on the session's
 * thread).  Events without a clock get CLOCK_MONOTONIC (use_clockid):
 * the threads read the events' clock to know which records can no longer
 * be preceded.  Not with PFR_PERF_SESSION_OVERWRITE; the loop of
 * pfr_perf_session_poll() and _drain() stays single-threaded.  Call
 * before pfr_perf_session_open().  Returns 0, -PFR_E_INVAL or
 * -PFR_E_SYSTEM.  Progress: blocking (allocates). */
PFR_API int pfr_perf_session_set_readers(struct pfr_perf_session *s,
					 uint32_t nr,
					 const uint32_t *reader_of_cpu,
					 uint32_t len);

/* Enables every event (but those that wait for the command's exec), then
 * lets the command exec.  Returns 0, -PFR_PERF_E_EXEC (the command could
 * not run: the error info's errno says why; it has been reaped),
 * -PFR_E_INVAL (not open) or -PFR_E_SYSTEM.  Progress: blocking. */
PFR_API int pfr_perf_session_enable(struct pfr_perf_session *s);
/* Disables every event.  Returns 0 or -PFR_E_INVAL. */
PFR_API int pfr_perf_session_disable(struct pfr_perf_session *s);

/* Waits up to timeout_ms (-1: no limit) for a ring to wake the reader or
 * for a request.  Returns the number of rings ready (counted as a wake-up;
 * rings whose target is gone stop being polled), 0 on time-out or
 * request, -PFR_E_SYSTEM (errno set), or -PFR_E_INVAL.  A signal
 * interrupts it (returns 0).  Progress: blocking. */
PFR_API int pfr_perf_session_poll(struct pfr_perf_session *s, int timeout_ms);

/* pfr_perf_session_drain()'s final: a pass by perf's rule, or the last
 * (everything queued delivered). */
#define PFR_PERF_DRAIN_PASS 0
#define PFR_PERF_DRAIN_FINAL 1

/* One pass: drains every ring (not the overwrite ones) into the merge,
 * then delivers by perf's rule, or everything when final
 * (PFR_PERF_DRAIN_PASS or PFR_PERF_DRAIN_FINAL).  Returns 0, the
 * callback's nonzero value (it stopped the delivery), -PFR_E_SYSTEM (file write or memory) or a
 * ring's error (-PFR_E_HEAD_*, -PFR_E_RECSIZE_*: a ring the kernel
 * corrupted, or a bad fake).  Progress: blocking. */
PFR_API int pfr_perf_session_drain(struct pfr_perf_session *s, int final);

/* Overwrite mode: drains the side-band, then delivers what the overwrite
 * rings hold that no earlier snapshot delivered (the kernel pauses while
 * they are read).  Without overwrite rings: pfr_perf_session_drain(s, 1).
 * Returns as pfr_perf_session_drain().  Progress: blocking. */
PFR_API int pfr_perf_session_snapshot(struct pfr_perf_session *s);

/* Requests for pfr_perf_session_run() (and _poll(), which they wake). */
#define PFR_PERF_REQ_STOP 0x1u /* stop (SIGINT, SIGTERM, SIGHUP) */
#define PFR_PERF_REQ_SNAPSHOT 0x2u /* overwrite mode: snapshot (SIGUSR2) */
#define PFR_PERF_REQ_CHILD 0x4u /* a child may have exited (SIGCHLD) */
#define PFR_PERF_REQ_SWITCH 0x8u /* call opts.on_switch (a new file) */

/* Posts requests.  Async-signal-safe: call it from a signal handler.
 * Concurrency: any thread or signal handler, at any time between create
 * and destroy.  Progress: wait-free (one write(2) to a pipe). */
PFR_API void pfr_perf_session_request(struct pfr_perf_session *s,
				      unsigned int what);

/* Runs the session: until PFR_PERF_REQ_STOP, the command's exit or every
 * ring's hang-up, takes snapshots on request, drains and delivers after
 * each wake-up (and tick); then pfr_perf_session_finish().  Returns 0,
 * on_record's nonzero value that stopped it, or the first error (as
 * pfr_perf_session_drain(), -PFR_E_SYSTEM from poll);
 * after an error the command is still reaped and the file closed.
 * Progress: blocking. */
PFR_API int pfr_perf_session_run(struct pfr_perf_session *s);

/* The end: disables the events, drains (or snapshots) and delivers
 * everything, counts the samples the kernel could not write
 * (PERF_FORMAT_LOST; into the file as LOST_SAMPLES), stops (SIGTERM) and
 * reaps the command, writes and closes the file.  Returns 0 or the first
 * error.  Progress: blocking. */
PFR_API int pfr_perf_session_finish(struct pfr_perf_session *s);

struct pfr_perf_session_stats {
	size_t sz; /* sizeof(struct pfr_perf_session_stats) */
	uint64_t records; /* taken from the rings */
	uint64_t bytes; /* their bytes */
	uint64_t samples; /* PERF_RECORD_SAMPLE among them */
	uint64_t lost; /* summed over the LOST records */
	uint64_t lost_records; /* LOST records */
	uint64_t lost_samples; /* summed over LOST_SAMPLES records */
	uint64_t lost_counted; /* PERF_FORMAT_LOST, summed over the fds */
	uint64_t throttle, unthrottle; /* THROTTLE, UNTHROTTLE records */
	uint64_t wakeups; /* polls that found a ring ready */
	uint64_t snapshots;
	uint64_t decode_errors; /* malformed records skipped */
	uint64_t delivered; /* records delivered (synthesized included) */
	uint64_t by_type[32]; /* records by PERF_RECORD_* type */
	uint64_t other_types; /* records of a type >= 32 */
	uint64_t ring_bytes; /* data bytes per ring */
	uint32_t nr_rings;
	uint32_t nr_fds;
	int child_status; /* the command's wait status, once reaped */
	int child_reaped; /* 1 once it was */
};

/* Copies the counters into st (up to st->sz).  Returns 0 or -PFR_E_INVAL.
 * Progress: wait-free. */
PFR_API int pfr_perf_session_stats(const struct pfr_perf_session *s,
				   struct pfr_perf_session_stats *st);

/* What failed. */
#define PFR_PERF_STEP_NONE 0
#define PFR_PERF_STEP_OPEN 1 /* perf_event_open */
#define PFR_PERF_STEP_FILTER 2 /* PERF_EVENT_IOC_SET_FILTER */
#define PFR_PERF_STEP_ID 3 /* PERF_EVENT_IOC_ID */
#define PFR_PERF_STEP_OUTPUT 4 /* PERF_EVENT_IOC_SET_OUTPUT */
#define PFR_PERF_STEP_MMAP 5 /* mapping a ring */
#define PFR_PERF_STEP_CPU 6 /* a CPU list */
#define PFR_PERF_STEP_PROCESS 7 /* reading a process's threads */
#define PFR_PERF_STEP_EXEC 8 /* the command's exec */
#define PFR_PERF_STEP_FILE 9 /* creating or writing the file */
#define PFR_PERF_STEP_RING 10 /* reading a ring */
#define PFR_PERF_STEP_POLL 11
#define PFR_PERF_STEP_MEMORY 12 /* out of memory */

struct pfr_perf_session_error {
	size_t sz; /* sizeof(struct pfr_perf_session_error) */
	int step; /* PFR_PERF_STEP_* */
	int code; /* the negative code returned */
	int sys_errno; /* errno of the system call, or 0 */
	int event; /* the event's index, or -1 */
	int cpu; /* the CPU, or -1 */
	int pid; /* the thread or process (-1: CPU-wide; 0: none) */
};

/* The last error (step PFR_PERF_STEP_NONE when there was none) into e (up
 * to e->sz).  Returns 0 or -PFR_E_INVAL.  Progress: wait-free. */
PFR_API int pfr_perf_session_last_error(const struct pfr_perf_session *s,
					struct pfr_perf_session_error *e);

/* The events as opened (attr completed), in the order added (the
 * overwrite dummy last): their number, attr, name.  Out of range or NULL:
 * 0, NULL, "?".  Progress: wait-free. */
PFR_API uint32_t pfr_perf_session_nr_events(const struct pfr_perf_session *s);
PFR_API const struct perf_event_attr *
pfr_perf_session_attr(const struct pfr_perf_session *s, uint32_t i);
PFR_API const char *
pfr_perf_session_event_name(const struct pfr_perf_session *s, uint32_t i);
/* The layout every record of the session has (zeroed for NULL). */
PFR_API void pfr_perf_session_layout(const struct pfr_perf_session *s,
				     struct pfr_perf_layout *lay);
/* The command's pid, 0 when there is none or it has been reaped. */
PFR_API pid_t pfr_perf_session_child(const struct pfr_perf_session *s);

PFR__EXTERN_C_END

#endif /* PERFRING_SESSION_H */
