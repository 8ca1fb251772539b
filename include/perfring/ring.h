/* SPDX-License-Identifier: MIT */
/*
 * <perfring/ring.h> - the perf ring buffer protocol in user space.
 *
 * One writer and one reader share a control block and a data area of 2^n
 * bytes.  Records are perf records: an 8-byte header
 * { u32 type; u16 misc; u16 size; } then the payload, size counting the
 * header, every record 8-byte aligned.  head (written by the writer) and
 * tail (written by the reader) are free-running 64-bit byte counters: the
 * byte at counter c lives at data[c & (size - 1)], head - tail bytes are in
 * use, and unsigned subtraction makes counter wrap-around harmless.
 *
 *        WRITER                                READER
 *   tail = LOAD(->tail)                  head = LOAD(->head)
 *   (A)                                  (C)
 *   if (space) STORE records             LOAD records up to head
 *   (B)                                  (D)
 *   STORE(->head, new head)              STORE(->tail, new tail)
 *
 * A pairs with D: the writer must not overwrite a record before the reader
 * has finished reading it (load-buffering shape).  B pairs with C: the
 * reader must not see the new head before the record bytes
 * (message-passing shape).  The orderings that implement A-D are in
 * <perfring/ring-proto.h>, one function per barrier with the ordering as
 * an argument; the inline fast paths are in <perfring/ring-inline.h>.
 *
 * The reader is written once against (head, tail, data, size), so the same
 * code reads perfring's own rings and the kernel's perf mmap page
 * (<perfring/perf.h>).  The reader treats everything in shared memory as
 * hostile: it validates every value it loads (each load once, and a value
 * loaded again is validated again) and reports a distinct error code
 * instead of crashing, looping or reading outside the mapping.
 *
 * NULL pointers.  Every out-of-line function (PFR_API) checks its pointer
 * arguments: a NULL that the function's comment does not allow returns
 * -PFR_E_INVAL (functions without an error return do nothing, and
 * pfr_ring_close(NULL) is a no-op, as free(NULL) is).  A data pointer with
 * a length of 0 may be NULL.  The inline fast paths (pfr_writer_* and
 * pfr_reader_begin/next/end/pending) do not check: a NULL writer, reader or
 * record there is a precondition violation, as are a writer or reader not
 * opened by pfr_ring_writer(), pfr_ring_reader() or pfr_reader_init(), and
 * one used after its ring was closed.
 *
 * Truncation.  A peer that can shrink the object under a mapping turns this
 * process's accesses past the new end into SIGBUS: no check in the library
 * can catch that.  A memfd ring (pfr_ring_create_memfd()) is sealed against
 * shrinking, and attaching by fd seals a sealable memfd; a POSIX
 * shared-memory object (pfr_ring_create_shm()) cannot be sealed, so with
 * one every peer with write access must be trusted not to truncate it
 * (pfr_ring_sealed() tells which).  Between a parent and its child, pass a
 * memfd: it is the safe default.
 */
#ifndef PERFRING_RING_H
#define PERFRING_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <perfring/barrier.h>
#include <perfring/common.h>

PFR__EXTERN_C_BEGIN

/* The perf record header (struct perf_event_header's layout). */
struct pfr_record_header {
	uint32_t type;
	uint16_t misc;
	uint16_t size; /* bytes, header included, a multiple of 8 */
};

/* In a record that perfring's writer wrote, misc's low three bits hold the
 * padding after the payload (0..7: size - 8 - the payload's length), so
 * that the exact length round-trips; its other bits are 0.  The readers of
 * perfring's rings subtract it (struct pfr_record's len); a raw reader
 * (pfr_reader_init()) does so with PFR_READER_PAYLOAD_LEN.  Writers
 * before PERFRING_0.3 stored 0 (the length then reads rounded up to 8);
 * the kernel's ring uses misc for perf's flags. */
#define PFR_RECORD_MISC_PAD 0x7u

/* Record types perfring itself writes.  LOST is perf's PERF_RECORD_LOST,
 * payload { u64 id; u64 lost; }.  PAD fills the end of the data area when
 * a record would straddle it; readers skip it.  Types with the top bit set
 * are reserved for perfring.  The caller's types are 0..PFR_RECORD_USER_MAX
 * but PFR_RECORD_LOST: every write and reserve refuses the others with
 * -PFR_E_INVAL (as the shared ring's do). */
#define PFR_RECORD_LOST 2u
#define PFR_RECORD_PAD 0x80000001u
#define PFR_RECORD_USER_MAX 0x7fffffffu

struct pfr_lost_record {
	struct pfr_record_header hdr;
	uint64_t id;
	uint64_t lost;
};

/* Largest record (header included) the header's u16 size can express. */
#define PFR_RECORD_MAX 65528u

/* Errors: returned negated (e.g. -PFR_E_NOSPC), in 1..99; the perf
 * reader's PFR_PERF_E_* (<perfring/perf.h>) take 100..199.  pfr_strerror()
 * names every code of both. */
enum pfr_error {
	PFR_OK = 0,
	PFR_E_AGAIN = 1, /* nothing to read / no space right now */
	PFR_E_NOSPC, /* DROP: record dropped and counted */
	PFR_E_TIMEDOUT, /* a wait timed out */
	PFR_E_INVAL, /* bad argument (e.g. record larger than max) */
	PFR_E_HEAD_AHEAD, /* shared head beyond tail + data size */
	PFR_E_HEAD_BEHIND, /* shared head before the reader's tail */
	PFR_E_RECSIZE_ZERO, /* a record header with size 0 */
	PFR_E_RECSIZE_ALIGN, /* record size not a multiple of 8 */
	PFR_E_RECSIZE_SHORT, /* record size smaller than its type needs */
	PFR_E_RECSIZE_PAST_HEAD, /* record extends past head */
	PFR_E_MAGIC, /* control block: wrong magic number */
	PFR_E_VERSION, /* control block: other layout version */
	PFR_E_LAYOUT, /* control block: sizes/offsets inconsistent */
	PFR_E_MAPPING, /* shared object smaller than its sizes say */
	PFR_E_OVERWRITTEN, /* OVERWRITE snapshot: all data overwritten */
	PFR_E_SYSTEM, /* a system call failed: errno is its own errno
		       * (kept through the clean-up; docs/api.md) */
	PFR_E_BUSY, /* the writer or reader role is already taken */
	PFR_E_TOOBIG, /* attach: ring larger than the caller's limit */
	PFR_E_FULL, /* a group has no free writer slot */
	PFR_E_STALLED, /* MPSC: a live producer holds a BUSY record too long */
	PFR_E_CLOSED, /* the ring's other side closed or died (PERFRING_0.3) */
	PFR_E__COUNT
};

/* Returns a constant string describing a PFR_E_* or PFR_PERF_E_* code
 * (either sign); "unknown perfring error" for any other number. */
PFR_API const char *pfr_strerror(int err);

/* The orderings of A-D, all compiled in, selectable per ring:
 *   FULL     A smp_mb, B smp_wmb, C smp_rmb, D smp_mb (the 2013 code)
 *   ACQREL   A load_acquire(tail), B store_release(head),
 *            C load_acquire(head), D store_release(tail) (Linux 3.14)
 *   CTRLDEP  the kernel's writer today: A the branch on the loaded tail,
 *            B smp_wmb; C, D as ACQREL.  The tail is loaded with acquire,
 *            because C11 and the Linux-kernel memory model do not order
 *            plain stores after a control dependency (see ring-proto.h). */
enum pfr_ordering {
	PFR_ORDER_FULL = 0,
	PFR_ORDER_ACQREL = 1,
	PFR_ORDER_CTRLDEP = 2,
	PFR_ORDER__COUNT
};
#define PFR_ORDER_DEFAULT PFR_ORDER_ACQREL

/* What the writer does when a record does not fit. */
enum pfr_policy {
	PFR_POLICY_DROP = 0, /* discard, count, LOST record later (perf) */
	PFR_POLICY_BLOCK = 1, /* wait for space, with a time-out */
	PFR_POLICY_OVERWRITE = 2, /* flight recorder: keep the newest */
	PFR_POLICY__COUNT
};

PFR_API const char *pfr_ordering_name(enum pfr_ordering o);
PFR_API const char *pfr_policy_name(enum pfr_policy p);
/* Parses "full", "acqrel", "ctrldep" (or "drop", "block", "overwrite");
 * returns the value or -1. */
PFR_API int pfr_ordering_parse(const char *s);
PFR_API int pfr_policy_parse(const char *s);

/* Ring flags. */
/* The reader may block in pfr_reader_wait(): the writer then checks for a
 * sleeping reader after each publication (one smp_mb each). */
#define PFR_RING_WAIT 0x1u
/* In-band publication, for latency-bound readers: the writer also commits
 * every record by a release store of its header, after it has stored an
 * invalid (zero) word where the next header will go, and the reader's
 * pfr_reader_begin() waits on the header at its tail instead of loading
 * head (one cache line per message, not two: the record's).  The writer
 * still publishes head (waits, stats and crash recovery use it).  Needs
 * the ACQREL ordering, a DROP or BLOCK policy and no PFR_RING_WAIT
 * (-PFR_E_INVAL otherwise); the largest record is 8 bytes smaller in
 * small rings (data_size / 2 - 16).  perfring's own rings only: the
 * kernel's ring has no such mode (docs/ring.md, "In-band publication"). */
#define PFR_RING_INBAND 0x2u
/* Also create an eventfd that the reader can poll(2) or epoll for POLLIN
 * (implies PFR_RING_WAIT; not with PFR_RING_INBAND): see
 * pfr_reader_poll_prepare().  The eventfd is the creating handle's (and
 * its forked children's), not the ring's: pfr_ring_eventfd() gives it,
 * pfr_ring_set_eventfd() hands it to an attaching process; the control
 * block says PFR_RING_WAIT only.  (PERFRING_0.3) */
#define PFR_RING_EVENTFD 0x4u

#define PFR_RING_MAGIC 0x31474e4952524650ull /* "PFRRING1" little-endian */
#define PFR_RING_VERSION 2u /* 2: the sleep flags swapped lines */
#define PFR_RING_LINE 128 /* two 64-byte lines: adjacent-line prefetch */

/*
 * The control block at the start of every perfring ring (shared memory).
 * Line 0 is written once at creation; line 1 by the writer, line 2 by the
 * reader, but for the two sleep flags: each sits on the line of the side
 * that loads it after every publication, so that load hits that side's
 * cache - reader_waiting (stored by a reader going to sleep, loaded by the
 * writer of a PFR_RING_WAIT ring after each head store) on line 1, and
 * writer_waiting (stored by a BLOCK writer going to sleep, loaded by the
 * reader after each tail store) on line 2.  The data area starts at
 * data_offset (a page multiple).
 */
struct pfr_ring_ctl {
	/* line 0: immutable after creation, but for the role words */
	uint64_t magic;
	uint32_t version;
	uint32_t ctl_size;
	uint64_t data_offset;
	uint64_t data_size;
	uint32_t policy;
	uint32_t ordering;
	uint32_t flags;
	uint32_t max_record;
	uint64_t lost_id;
	/* The roles (PERFRING_0.3; 0 in a ring no such library opened): who
	 * holds the writer's and the reader's side, each the holder's pid
	 * and its start time as one word, stored (by CAS) at open and close
	 * only, never on a fast path.  0: never held; pid 0 with other bits
	 * set: closed cleanly.  src/ring/ring.c, "Roles". */
	uint64_t writer_owner;
	uint64_t reader_owner;
	uint8_t pad0[PFR_RING_LINE - 72];

	/* line 1: the writer's */
	uint64_t head; /* published head (B -> C) */
	uint64_t oldest; /* OVERWRITE: first intact record */
	uint64_t records; /* records published, ever: at every publication
			   * on PFR_RING_WAIT rings, else at each flush */
	uint64_t lost_total; /* records dropped, ever */
	uint64_t lost_pending; /* dropped, not yet reported by a LOST record */
	uint32_t reader_waiting; /* futex: reader asleep (writer clears) */
	uint32_t writer_pid;
	uint64_t flush_head; /* head at the last flush (or BLOCK kick) */
	uint64_t lost_end; /* where the LOST record carrying lost_pending
			    * ends, 0 while it is not written: a count
			    * whose record is below head is no longer
			    * pending (a writer killed in between) */
	uint8_t pad1[PFR_RING_LINE - 64];

	/* line 2: the reader's */
	uint64_t tail; /* published tail (D -> A) */
	uint64_t wake_mark; /* `records` when the reader went to sleep */
	uint32_t
		writer_waiting; /* futex: BLOCK writer asleep (reader clears) */
	uint32_t wake_bytes; /* wake the reader at this many bytes ... */
	uint32_t wake_records; /* ... or this many records */
	uint32_t reader_pid;
	uint64_t writer_wake_tail; /* BLOCK: wake the writer once tail has
				    * reached this (its watermark) */
	uint8_t pad2[PFR_RING_LINE - 40];
};

#if defined(__cplusplus)
#define PFR__STATIC_ASSERT static_assert
#else
#define PFR__STATIC_ASSERT _Static_assert
#endif
PFR__STATIC_ASSERT(sizeof(struct pfr_record_header) == 8, "perf header");
PFR__STATIC_ASSERT(offsetof(struct pfr_ring_ctl, reader_owner) == 64,
		   "the role words on line 0");
PFR__STATIC_ASSERT(offsetof(struct pfr_ring_ctl, head) == PFR_RING_LINE,
		   "head starts line 1");
PFR__STATIC_ASSERT(offsetof(struct pfr_ring_ctl, tail) == 2 * PFR_RING_LINE,
		   "tail starts line 2, away from head");
PFR__STATIC_ASSERT(sizeof(struct pfr_ring_ctl) == 3 * PFR_RING_LINE,
		   "three lines");

/* The writer's private state.  Fields are private: use the functions. */
struct pfr_writer {
	struct pfr_ring_ctl *ctl;
	unsigned char *data;
	uint64_t mask; /* data_size - 1 */
	uint64_t head; /* next byte to write, >= published */
	/* The fast path's one test: a record of `size` bytes may go at head
	 * when it fits below limit, as a signed distance from head
	 * (pfr__fits(): positions run across 2^64) - the lower of the cached
	 * tail's bound and the end of the data area, head itself (no room)
	 * while a LOST record is pending and on in-band rings.  The slow
	 * path and the open compute it (pfr__writer_limit()). */
	uint64_t limit;
	/* the cached tail's bound (tail + data size): bytes below it are
	 * free; the write-ahead asks for lines up to it, across the wrap */
	uint64_t free_end;
	union {
		/* PFR_RING_WAIT: head as last published (B) */
		uint64_t published;
		/* PFR_RING_INBAND (never with PFR_RING_WAIT): the in-band
		 * fast path's limit, as `limit` is the other rings' (which
		 * is 0 in band) less the zero word after the record */
		uint64_t inband_limit;
	};
	uint64_t tail_cache; /* tail as last loaded (A) */
	uint64_t records; /* records committed, ever */
	uint64_t lost; /* dropped since the last LOST record */
	uint64_t lost_total;
	uint64_t oldest; /* OVERWRITE: first intact record */
	uint64_t timeout_ns; /* BLOCK: longest wait in reserve */
	uint32_t res_size; /* reserved record's size (0: none); it starts at
			    * head (the slow path pads up to it) */
	uint32_t res_type;
	uint32_t max_record;
	uint8_t policy, ordering, wait_flag;
	uint8_t inband; /* PFR_RING_INBAND: headers are committed in band */
};

/* The reader's private state: the same for perfring's rings and the
 * kernel's.  Fields are private: use the functions. */
struct pfr_reader {
	const uint64_t *head_p;
	uint64_t *tail_p;
	const unsigned char *data;
	struct pfr_ring_ctl *ctl; /* NULL for a raw (e.g. kernel) ring */
	uint64_t mask;
	uint64_t head; /* loaded by begin (C) */
	uint64_t tail; /* consumed so far (private) */
	uint64_t published; /* tail as last published (D) */
	unsigned char *scratch; /* copy of a record straddling the end */
	uint64_t wake_checked; /* BLOCK: tail at the last wake-up check */
	uint64_t wake_stride; /* BLOCK: bytes between unprompted checks */
	uint32_t flags; /* PFR_READER_* */
	uint8_t ordering;
	uint8_t iflags; /* internal: PFR__READER_* (ring-proto.h) */
	uint8_t pace; /* pfr_reader_begin()'s pacing (private) */
	uint8_t len_mask; /* PFR_RECORD_MISC_PAD with PFR_READER_PAYLOAD_LEN,
			   * else 0 (was padding before PERFRING_0.3) */
};

/* Reader flags for pfr_reader_init(). */
#define PFR_READER_SKIP_PAD 0x1u /* skip PFR_RECORD_PAD (perfring rings) */
/* The ring is perfring's: a record's misc holds its payload's padding
 * (PFR_RECORD_MISC_PAD) and struct pfr_record's len is the payload's
 * exact length.  Never for the kernel's ring, whose misc is perf's flags.
 * pfr_ring_reader() sets it.  (PERFRING_0.3) */
#define PFR_READER_PAYLOAD_LEN 0x2u

/* One record, as pfr_reader_next() returns it.  hdr is a validated private
 * copy; payload points into the ring (or into the reader's scratch buffer
 * when the record straddled the end of the data area) and stays valid until
 * pfr_reader_end(). */
struct pfr_record {
	struct pfr_record_header hdr;
	const void *payload;
	uint32_t len; /* the payload's length: hdr.size - 8, less the
		       * padding (PFR_RECORD_MISC_PAD) on perfring's rings */
	uint64_t pos; /* free-running position of the header */
};

/* Ring handle: a mapping of one ring (private, POSIX shm or memfd). */
struct pfr_ring;

/* Every field is checked: an unknown policy, ordering or flag, a data
 * size that is not a power of two in [4096, 2^40], or a mode with bits
 * other than the permission bits 0777 (no setuid, setgid or sticky bit,
 * no file type) is -PFR_E_INVAL.
 *
 * sz: set it to sizeof(struct pfr_ring_opts) (or leave it 0, read as the
 * size of the fields below as of PERFRING_0.2).  Fields are only ever
 * added at the end: the library reads the fields that lie within sz,
 * takes those beyond it as 0 (a caller built against an older header),
 * and refuses with -PFR_E_INVAL a nonzero byte past the fields it knows (a
 * caller built against a newer header asking for something this library
 * cannot do).  Every perfring *_opts struct follows this rule. */
struct pfr_ring_opts {
	size_t sz; /* sizeof(struct pfr_ring_opts), or 0 */
	uint64_t data_size; /* power of two >= 4096; 0: 1 MiB */
	enum pfr_policy policy;
	enum pfr_ordering ordering;
	uint32_t flags; /* PFR_RING_* */
	uint64_t lost_id; /* id in LOST records */
	uint32_t mode; /* shm permission bits, at most 0777; 0: 0600 */
};

/* Create a ring in private memory (one process, two threads). 0 or -err.
 * Concurrency: any thread.  Progress: blocking (allocates). */
PFR_API int pfr_ring_create(struct pfr_ring **ring,
			    const struct pfr_ring_opts *opts);
/* Create a ring in a new POSIX shared-memory object /NAME (O_EXCL).  Such
 * an object cannot be sealed: a peer with write access can truncate it and
 * turn this process's accesses into SIGBUS (see the top of this file);
 * prefer pfr_ring_create_memfd() where the peer can inherit or receive an
 * fd. */
PFR_API int pfr_ring_create_shm(struct pfr_ring **ring, const char *name,
				const struct pfr_ring_opts *opts);
/* Create a ring in a new memfd, sealed against shrinking and growing;
 * pfr_ring_fd() gives the fd to pass on (to a child, or over a socket).
 * The safe default for rings shared between processes.  The fd is
 * close-on-exec (as every fd the library opens, the dup of
 * pfr_ring_attach_fd() too): a forked child has it, a program it execs
 * does not, unless pfr_ring_set_inherit() clears the flag. */
PFR_API int pfr_ring_create_memfd(struct pfr_ring **ring,
				  const struct pfr_ring_opts *opts);

/* Options for attaching to a ring made by another process.  Set sz to
 * sizeof(struct pfr_ring_attach_opts): fields may be added at the end, and
 * a caller built against a newer header is accepted when the bytes this
 * library does not know are zero.  (This struct had its size field before
 * the others; it is a uint32_t and may not be 0.) */
struct pfr_ring_attach_opts {
	uint32_t sz; /* sizeof(struct pfr_ring_attach_opts) */
	uint32_t flags; /* none defined yet: 0 */
	/* The largest data area to accept (bytes; 0: the default).  The
	 * peer declares the ring's size; this caps what it can make the
	 * attacher map and walk. */
	uint64_t max_data_size;
};
/* The attach functions' default limit on a ring's data area: 1 GiB. */
#define PFR_RING_ATTACH_MAX_DEFAULT (1ull << 30)

/* Attach to an existing ring by shm name or by fd (dup'ed).  Validates
 * magic, version and every size before trusting them: -PFR_E_MAGIC,
 * -PFR_E_VERSION, -PFR_E_LAYOUT, -PFR_E_MAPPING, and -PFR_E_TOOBIG for a
 * data area larger than PFR_RING_ATTACH_MAX_DEFAULT.
 * Concurrency: any thread.  Progress: blocking (system calls). */
PFR_API int pfr_ring_attach_shm(struct pfr_ring **ring, const char *name);
PFR_API int pfr_ring_attach_fd(struct pfr_ring **ring, int fd);
/* The same with options: opts->max_data_size sets the limit.  opts must
 * not be NULL; -PFR_E_INVAL for an sz too small or unknown flags. */
PFR_API int pfr_ring_attach_shm_opts(struct pfr_ring **ring, const char *name,
				     const struct pfr_ring_attach_opts *opts);
PFR_API int pfr_ring_attach_fd_opts(struct pfr_ring **ring, int fd,
				    const struct pfr_ring_attach_opts *opts);
/* Unmap and free (does not unlink).  NULL: nothing to do.
 * Concurrency: not while the ring's writer, reader or a snapshot runs in
 * this process.  Progress: blocking (munmap). */
PFR_API void pfr_ring_close(struct pfr_ring *ring);
/* Remove a POSIX shared-memory ring's name. */
PFR_API int pfr_ring_unlink(const char *name);
/* The ring's fd (-1 for a private ring; -PFR_E_INVAL for NULL). */
PFR_API int pfr_ring_fd(const struct pfr_ring *ring);
/* The eventfd a poll/epoll reader waits on (PFR_RING_EVENTFD, or the one
 * given with pfr_ring_set_eventfd()): the fd, -1 when the ring has none in
 * this process, -PFR_E_INVAL for NULL.  The handle owns it
 * (pfr_ring_close() closes it).  (PERFRING_0.3) */
PFR_API int pfr_ring_eventfd(const struct pfr_ring *ring);
/* Give an attached ring the creator's eventfd, received with the ring's
 * fd (SCM_RIGHTS) or inherited: it is dup'ed (close-on-exec) and from then
 * on this process's writer writes it to wake a reader armed for poll, and
 * this process's reader can poll it.  A writer process without it wakes
 * futex sleepers only (as a group's: pfr_group_poll_prepare()): a poll
 * reader whose writer has not got the eventfd must poll with a time-out.
 * Replaces an eventfd the handle had.  Returns 0, -PFR_E_INVAL (NULL, a
 * ring without PFR_RING_WAIT, or efd not an eventfd: the wake-up would
 * write 8 bytes into it) or -PFR_E_SYSTEM (dup failed, or this process
 * holds 64 rings and groups with eventfds already: errno).
 * Concurrency: not while this process's writer or reader of the ring runs.
 * Progress: blocking (system calls).  (PERFRING_0.3) */
PFR_API int pfr_ring_set_eventfd(struct pfr_ring *ring, int efd);
/* Hand the ring to a program this process execs: inherit 1 clears the
 * ring's fd's FD_CLOEXEC (the exec'd program finds the ring at the same
 * fd number: pass the number on, in an argument or the environment, and
 * attach there with pfr_ring_attach_fd()), inherit 0 sets it again.
 * Returns the fd, or -PFR_E_INVAL (NULL, a private ring, which has no fd,
 * or inherit not 0 or 1) or -PFR_E_SYSTEM (fcntl() failed: errno).
 * Concurrency: any thread; a thread that forks and execs at the same time
 * gets the fd or not.  Progress: blocking (system calls).  (PERFRING_0.3) */
PFR_API int pfr_ring_set_inherit(struct pfr_ring *ring, int inherit);
/* 1 when no peer can shrink the ring's object under this mapping (private
 * memory, or a memfd sealed with F_SEAL_SHRINK: pfr_ring_create_memfd()
 * seals its memfd, and attaching by fd seals a sealable one); 0 for POSIX
 * shared memory, which cannot be sealed: a peer with write access could
 * truncate it and turn this process's accesses into SIGBUS.  NULL: 0. */
PFR_API int pfr_ring_sealed(const struct pfr_ring *ring);
/* The ring's control block (NULL for NULL).  pfr_ring_ctl() is the same
 * function under the struct's own name (deprecated: one name, one thing;
 * docs/api.md). */
PFR_API struct pfr_ring_ctl *pfr_ring_control(const struct pfr_ring *ring);
PFR_API struct pfr_ring_ctl *pfr_ring_ctl(const struct pfr_ring *ring);

/* Open the writer or reader side of a ring; continues from the published
 * positions (a writer or reader that replaces a dead one resumes there).
 * Each side is a role held by one process at a time, across processes:
 * -PFR_E_BUSY while another live process holds it (it opened the side and
 * has not closed it with pfr_writer_close(), pfr_reader_close() or
 * pfr_ring_close()).  A holder proven dead (its pid gone, a zombie, or
 * reused by another process) gives the role up to the next opener: the
 * recovery.  The holding process may open its side again (the role is a
 * process's, not a thread's: two threads of one process must not write at
 * once).  Returns 0, -PFR_E_BUSY, -PFR_E_INVAL, -PFR_E_LAYOUT (hostile
 * positions) or -PFR_E_SYSTEM (the reader's buffer).
 * Concurrency: any thread; at most one writer and one reader per ring at a
 * time.  Progress: blocking (reads /proc when the role is held). */
PFR_API int pfr_ring_writer(struct pfr_ring *ring, struct pfr_writer *w);
PFR_API int pfr_ring_reader(struct pfr_ring *ring, struct pfr_reader *r);

/* Close the writer: publish and flush (pfr_writer_flush()), then give the
 * writer's role up as closed, and wake the reader: its
 * pfr_reader_wait_end() returns -PFR_E_CLOSED and pfr_reader_eof() 1 once
 * it has read every record.  The writer may not be used after (open it again with
 * pfr_ring_writer()).  Returns 0 or -PFR_E_INVAL (NULL, never opened).
 * Concurrency: the writer only.  Progress: blocking (a futex wake).
 * (PERFRING_0.3) */
PFR_API int pfr_writer_close(struct pfr_writer *w);
/* Close the reader: publish tail (pfr_reader_end()), give the reader's
 * role up as closed, and wake a BLOCK writer waiting for space: from then
 * on a BLOCK writer that finds no space gets -PFR_E_TIMEDOUT (counted as
 * lost) at once instead of after its time-out.  The reader may not be
 * used after.  Returns 0 or -PFR_E_INVAL.
 * Concurrency: the reader only.  Progress: blocking (a futex wake).
 * (PERFRING_0.3) */
PFR_API int pfr_reader_close(struct pfr_reader *r);
/* Whether a live process holds the ring's writer (reader) role: 1, or 0
 * when none does (never opened, closed, or its holder is proven dead);
 * -PFR_E_INVAL for NULL.  As pfr_group_reader_alive() and
 * pfr_mpsc_reader_alive(): a process whose state /proc cannot tell counts
 * as alive.  Concurrency: any thread.  Progress: blocking (reads /proc).
 * (PERFRING_0.3) */
PFR_API int pfr_ring_writer_alive(const struct pfr_ring *ring);
PFR_API int pfr_ring_reader_alive(const struct pfr_ring *ring);
/* End of stream: 1 when the ring's writer closed (pfr_writer_close(),
 * pfr_ring_close()) or died, and the reader has read everything it
 * published; 0 while it may write on, or records are left (it loads head
 * again, as pfr_reader_begin_unpaced() does: call it when a batch is
 * drained, and read on when it returns 0); a negative error for a hostile
 * head, or -PFR_E_INVAL (NULL, or a raw reader: pfr_reader_init()).  A
 * ring whose writer never opened (or opened it with a library before
 * PERFRING_0.3) has no end.  Concurrency: the reader only.
 * Progress: blocking (reads /proc while the writer's role is held). */
PFR_API int pfr_reader_eof(struct pfr_reader *r);

/* A reader over any ring given by head, tail, data and size (a power of
 * two): the kernel's perf mmap page, for one.  scratch must hold
 * PFR_RECORD_MAX bytes (records straddling the end are copied there).
 * Returns 0 or -PFR_E_INVAL. */
PFR_API int pfr_reader_init(struct pfr_reader *r, const uint64_t *head,
			    uint64_t *tail, const void *data, uint64_t size,
			    enum pfr_ordering ordering, uint32_t flags,
			    void *scratch);

/* --- writer --- */

/* BLOCK policy: how long pfr_writer_reserve() waits for space. */
PFR_API void pfr_writer_set_timeout(struct pfr_writer *w, uint64_t ns);

/* Reserve space for a record of `len` payload bytes (the record is
 * rounded up to 8; the reader gets len back, PFR_RECORD_MISC_PAD) of
 * `type` (0..PFR_RECORD_USER_MAX, not PFR_RECORD_LOST) and return a
 * pointer to its payload in *payload.  Nothing is visible to the
 * reader until commit and publication.  Returns 0, -PFR_E_NOSPC (DROP: the
 * record is counted as lost), -PFR_E_TIMEDOUT (BLOCK: also counted as
 * lost; at once, not after the time-out, when the reader closed or died:
 * a close is seen at once, a death after about 100 ms of waiting, and
 * pfr_ring_reader_alive() tells it from a slow reader) or -PFR_E_INVAL (too large for this ring, or a reserved type: not
 * counted).  The same for every write below.
 * Concurrency: the writer only.  Progress: wait-free (DROP, OVERWRITE),
 * blocking (BLOCK). */
static inline int pfr_writer_reserve(struct pfr_writer *w, uint32_t type,
				     size_t len, void **payload);
/* Commit the reserved record and publish head (B). */
static inline void pfr_writer_commit(struct pfr_writer *w);
/* Commit the reserved record without publishing: several records can be
 * committed and then published at once with pfr_writer_publish().  A
 * BLOCK writer that has to wait for space publishes what it has committed
 * first (the reader cannot free space it cannot see).  On a
 * PFR_RING_INBAND ring the commit itself makes the record visible to the
 * reader (its header is the publication); publish then only stores head. */
static inline void pfr_writer_commit_deferred(struct pfr_writer *w);
/* Publish every committed record (B).  Wakes a sleeping reader if the ring
 * has PFR_RING_WAIT and its threshold is met (no syscall otherwise). */
static inline void pfr_writer_publish(struct pfr_writer *w);
/* reserve + copy + commit (+ publish): 0 or a reserve error. */
static inline int pfr_writer_write(struct pfr_writer *w, uint32_t type,
				   const void *buf, size_t len);
/* reserve + copy + commit_deferred: the same without publishing (a batch
 * goes out with one pfr_writer_publish()). */
static inline int pfr_writer_write_deferred(struct pfr_writer *w, uint32_t type,
					    const void *buf, size_t len);
/* n records of len payload bytes each, record i from buf + i * len, then
 * one publication (B): the burst form of pfr_writer_write().  Returns the
 * number written; fewer than n when a record did not fit (it is counted
 * as lost, as pfr_writer_write() would; the rest are not written), or
 * -PFR_E_INVAL (len too large, or n > INT_MAX: nothing written). */
static inline int pfr_writer_write_burst(struct pfr_writer *w, uint32_t type,
					 const void *buf, size_t len,
					 unsigned n);
/* Largest payload this ring accepts in one record. */
static inline size_t pfr_writer_max_payload(const struct pfr_writer *w)
{
	return w->max_record - sizeof(struct pfr_record_header);
}
/* Records dropped, ever (DROP, BLOCK time-outs). */
static inline uint64_t pfr_writer_lost(const struct pfr_writer *w)
{
	return w->lost_total;
}
/* Publish and wake the reader regardless of its thresholds. */
PFR_API void pfr_writer_flush(struct pfr_writer *w);

/* --- reader --- */

/* Start a batch: load head once (C), paced.  Returns the bytes available
 * (>= 0) or -PFR_E_HEAD_AHEAD / -PFR_E_HEAD_BEHIND for a hostile head.
 * On a PFR_RING_INBAND ring it loads no head: it walks the committed
 * record headers from where the reader stands (acquire loads, Ci; at
 * most 4 KiB per call) up to the first zero word, and returns what it
 * walked, or a -PFR_E_RECSIZE_* / -PFR_E_HEAD_AHEAD error for a header no
 * honest writer stores when nothing readable comes before it.  As with
 * head polling, the PAD at the end of the data area is shown only with
 * the record committed after it.
 * A reader that loops on begin (begin, next or consume, end, begin
 * again) is paced: while its loads keep finding records in small batches
 * (a writer faster than the reader's polls), begin waits a few pauses
 * before it loads head, so that the reader takes batches of about a
 * sixteenth of the ring (at most 2 KiB) instead of a few records at a
 * time.  Each load of head takes head's cache line from a writer that
 * stores it per record, and a reader that loads it as fast as it can
 * holds such a writer to a few records per cache-line round trip.  The
 * wait adapts (docs/ring.md): it grows while the batches stay small,
 * shrinks while they are large, and is none after a load that found
 * nothing, so a reader spinning on an empty ring loads head at every
 * call.  Its cost in latency is bounded: a record that lands while the
 * reader is paced is seen at most 2^7 - 1 = 127 pauses later than by
 * pfr_reader_begin_unpaced().
 * Concurrency: the reader only.  Progress: wait-free. */
static inline int64_t pfr_reader_begin(struct pfr_reader *r);
/* pfr_reader_begin() without the pacing: head is loaded at once, every
 * call.  For a reader that must see each record at the earliest even
 * while the writer streams (a ping-pong sees no difference: its loads
 * find nothing between messages, which turns the pacing off).  Leaves the
 * pacing as it was.
 * Concurrency: the reader only.  Progress: wait-free. */
static inline int64_t pfr_reader_begin_unpaced(struct pfr_reader *r);
/* Wait for records by spinning: pfr_reader_begin(), then, while it finds
 * nothing, loads of head one pause apart, at most `polls` loads in all
 * (0 counts as 1).  Returns what pfr_reader_begin() returns: the bytes
 * available (0 when `polls` loads found nothing) or a negative error.
 * Concurrency: the reader only.  Progress: wait-free (bounded by polls). */
static inline int64_t pfr_reader_poll(struct pfr_reader *r, uint32_t polls);
/* Next record before the head loaded by begin.  Returns 1 with *rec filled,
 * 0 when the batch is drained, or a negative PFR_E_RECSIZE_* error (the
 * reader then stays at the bad record; a LOST record shorter than
 * struct pfr_lost_record is -PFR_E_RECSIZE_SHORT); *rec is zeroed on
 * both.  Skips PAD records on perfring rings.  Progress: wait-free. */
static inline int pfr_reader_next(struct pfr_reader *r, struct pfr_record *rec);
/* A consumer's callback for pfr_reader_consume(): one record (valid until
 * pfr_reader_end()); returns 0 to go on, nonzero to stop after it (the
 * callback stop rule of every perfring callback, docs/api.md: a negative
 * value is also what pfr_reader_consume() returns). */
typedef int (*pfr_record_fn)(void *ctx, const struct pfr_record *rec);
/* Drain: call fn(ctx, rec) for each record before the head loaded by
 * begin, at most max of them (0: no limit), as pfr_reader_next() would
 * return them (PAD skipped on perfring rings, LOST records passed on),
 * with every header check of pfr_reader_next() and the same error for the
 * same bad header.  The per-record work (header load, checks, position)
 * runs in one pass over each contiguous stretch; always inlined, so a fn
 * known at the call site is inlined too.  Does not publish tail: call
 * pfr_reader_end().  Returns the records passed to fn (>= 0), or a
 * negative PFR_E_RECSIZE_* error (the reader then stays at the bad record,
 * past the ones already passed to fn), or fn's negative return (the record
 * it was given, and those before, are consumed).
 * Concurrency: the reader only.  Progress: wait-free (fn aside). */
static inline int64_t pfr_reader_consume(struct pfr_reader *r, pfr_record_fn fn,
					 void *ctx, uint64_t max);
/* End the batch: publish tail (D), freeing everything read so far. */
static inline void pfr_reader_end(struct pfr_reader *r);
/* Bytes available without loading head again. */
static inline uint64_t pfr_reader_pending(const struct pfr_reader *r)
{
	return r->head - r->tail;
}
/* End the current batch, then block until the writer has published at
 * least the reader's threshold (pfr_reader_set_wakeup), or there is unread
 * data up to the head of the writer's last pfr_writer_flush() (or of a
 * BLOCK writer waiting for space), or timeout_ns passed (UINT64_MAX:
 * forever).
 * Works across processes (futex on the shared word).  Needs a perfring
 * ring created with PFR_RING_WAIT.  Returns the bytes available,
 * -PFR_E_TIMEDOUT, or -PFR_E_INVAL (its returns of 0.x: at the end of
 * stream it waits its time-out; pfr_reader_wait_end() ends there).
 * Progress: blocking. */
PFR_API int64_t pfr_reader_wait(struct pfr_reader *r, uint64_t timeout_ns);
/* pfr_reader_wait() that also ends at the end of stream: -PFR_E_CLOSED
 * once the writer closed (pfr_writer_close(), pfr_ring_close()) or died
 * and every record it published was read (records left unread are
 * returned first, thresholds aside).  A close wakes it at once; a death,
 * which wakes nobody, is noticed after at most about 100 ms of sleep (it
 * sleeps in slices of that length and then looks at /proc).  Returns the
 * bytes available, -PFR_E_CLOSED, -PFR_E_TIMEDOUT or -PFR_E_INVAL.
 * Progress: blocking.  (PERFRING_0.3) */
PFR_API int64_t pfr_reader_wait_end(struct pfr_reader *r, uint64_t timeout_ns);
/*
 * poll/epoll readers (the ring's eventfd in this process:
 * pfr_ring_eventfd()): call pfr_reader_poll_prepare() before polling the
 * eventfd for POLLIN.  It ends the batch (pfr_reader_end()) and returns 1
 * when there is something to do already - records that meet the
 * thresholds (pfr_reader_set_wakeup()) or were flushed, or the end of
 * stream (the writer closed) - so do not poll then; 0 when armed: the
 * next publication that meets the thresholds, pfr_writer_flush(), a BLOCK
 * writer waiting for room, or pfr_writer_close() (pfr_ring_close() of the
 * writer's handle) writes the eventfd, as they wake pfr_reader_wait_end().
 * After the poll (or instead of it) call pfr_reader_poll_done(), then
 * read; a reader that finds nothing after a wake-up with the writer gone
 * is at the end (pfr_reader_eof()).  A writer that dies wakes nobody: a
 * poll reader that must see it polls with a time-out and calls
 * pfr_reader_eof() (which looks at /proc).  The writer's fast path is
 * unchanged: it makes the one system call (the eventfd write) only when
 * it finds the reader armed, as for a futex sleeper.  Returns 1, 0, or
 * -PFR_E_INVAL (NULL, a raw reader, a ring without PFR_RING_WAIT, or no
 * eventfd in this process).  pfr_reader_poll_done() returns 0 or
 * -PFR_E_INVAL.  The group's twin: pfr_group_poll_prepare().
 * Concurrency: the reader only.  Progress: wait-free (prepare), blocking
 * (done: reads the eventfd).  (PERFRING_0.3)
 */
PFR_API int pfr_reader_poll_prepare(struct pfr_reader *r);
PFR_API int pfr_reader_poll_done(struct pfr_reader *r);
/* Wake-up thresholds: bytes available to the reader (capped at half the
 * data area) and/or records published since the wait began (0 = any data /
 * no record threshold). */
PFR_API void pfr_reader_set_wakeup(struct pfr_reader *r, uint32_t bytes,
				   uint32_t records);

/* OVERWRITE rings: copy the newest intact records into buf (at most
 * buflen bytes, whole records only, PAD records left out) without
 * consuming anything.  Never returns a torn or half-overwritten record.
 * Uses no memory but buf: it walks the record headers from the oldest
 * record to find the newest records that fit, then copies at most buflen
 * bytes.  Returns bytes copied (a sequence of records), or a negative
 * error: -PFR_E_INVAL (not an OVERWRITE ring; ring NULL; buf NULL with a
 * buflen), a hostile head, oldest or record header (-PFR_E_RECSIZE_*,
 * -PFR_E_HEAD_AHEAD), or -PFR_E_OVERWRITTEN when the writer overwrote what
 * was being read faster than the snapshot could follow: call again.
 * Concurrency: safe while the writer runs; any number of snapshots at a
 * time.  Progress: wait-free (bounded by the ring's size). */
PFR_API int64_t pfr_ring_snapshot(struct pfr_ring *ring, void *buf,
				  size_t buflen);

/* Counters for a ring, read from shared memory (approximate while the
 * writer and reader run).  records is exact on PFR_RING_WAIT rings; on
 * others it is the count at the writer's last pfr_writer_flush() (the
 * writer does not store it at every publication: see publish). */
struct pfr_ring_stats {
	uint64_t head, tail, records, lost_total, data_size;
};
/* Fills *st (zeroes it when ring is NULL; does nothing when st is). */
PFR_API void pfr_ring_stats(const struct pfr_ring *ring,
			    struct pfr_ring_stats *st);

PFR__EXTERN_C_END

/* The internals (A-D, pfr__ helpers and slow paths), then the inline fast
 * paths declared above. */
#include <perfring/ring-proto.h>
#include <perfring/ring-inline.h>

#endif /* PERFRING_RING_H */
