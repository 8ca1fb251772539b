/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_ring.c - the ring's own code, compiled as C against
 * relacy-barrier.h, and the two threads the Relacy harness runs.
 *
 * src/ring/ring.c is included whole (its slow path, futex waits and the
 * struct pfr_ring it needs are static), and <perfring/ring.h> brings the
 * inline protocol of <perfring/ring-proto.h> and <perfring/ring-inline.h>:
 * every load, store, barrier, memcpy() and syscall() in that code reaches
 * the harness through the macros of relacy-barrier.h.  Nothing of the protocol is copied here;
 * this file only builds a small ring and drives its public API.
 *
 * The data area holds poison (0xa5 bytes) for the whole run: the harness
 * keeps the record bytes in its rl::var shadows, so an access that
 * bypassed the hooks would read poison and fail the record check.
 */

/* The BLOCK writer's spins before it sleeps (256 in the library).
 * Relacy's schedulers are fair: the reader runs during every spin and
 * frees space long before 256 spins end, so the sleep is never reached.
 * The cases that check the sleep's hand-shake set one spin. */
unsigned pfr_model_block_spins = 256;
#define PFR__BLOCK_SPINS ((int)pfr_model_block_spins)

/* The shared-memory object of creation and attachment (ATTACH): ring.c's
 * system calls on it, after the system headers that declare them. */
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define mmap pfr_model_mmap
#define munmap pfr_model_munmap
#define ftruncate pfr_model_ftruncate
#define fstat pfr_model_fstat
#define fcntl pfr_model_fcntl
static void *pfr_model_mmap(void *addr, size_t len, int prot, int flags, int fd,
			    off_t off);
static int pfr_model_munmap(void *addr, size_t len);
static int pfr_model_ftruncate(int fd, off_t len);
static int pfr_model_fstat(int fd, struct stat *st);
static int pfr_model_fcntl(int fd, int cmd, ...);

#include "../../src/ring/ring.c"

/* The single ring's role words (src/ring/task_int.h): the model's writer
 * and reader are threads of one process, which holds both roles and never
 * dies. */
uint64_t pfr__task_self_word(void)
{
	return 1 | (uint64_t)1 << PFR__TASK_WORD_PID_BITS;
}

int pfr__task_word_dead(uint64_t word)
{
	(void)word;
	return 0;
}

/* KERNEL: src/perf/perf.c's snapshot of the kernel's overwrite ring, with
 * its ioctl() (the pause of the kernel's output) a seam. */
#include <sys/ioctl.h>
#define ioctl pfr_model_ioctl
static int pfr_model_ioctl(int fd, unsigned long req, ...);
#include "../../src/perf/perf.c"

#include "model.h"

_Static_assert((int)PFR_MODEL_FULL == (int)PFR_ORDER_FULL &&
		       (int)PFR_MODEL_ACQREL == (int)PFR_ORDER_ACQREL &&
		       (int)PFR_MODEL_CTRLDEP == (int)PFR_ORDER_CTRLDEP,
	       "model.h orderings");

/* One 8-byte payload word: record sequence number and word index. */
#define PFR_MODEL_WORD(seq, k) (((uint64_t)(seq) << 16) | (uint64_t)(k))
#define PFR_MODEL_TYPE 7u

static struct pfr_model {
	struct pfr_model_cfg cfg;
	struct pfr_ring ring;
	struct pfr_writer w;
	struct pfr_reader r;
	unsigned char scratch[PFR_RECORD_MAX + 8];
	/* KERNEL: output paused (the ioctl) */
	int paused;
	/* ATTACH: the object's size (ftruncate), the rings made */
	uint64_t obj_size;
	struct pfr_ring *created, *attached;
	/* the shared memory: a control block, its data area a page after
	 * it, as pfr__ring_new() lays a ring out (4-KiB pages); the other
	 * scenarios use the first PFR_MODEL_DATA_MAX bytes of data */
	struct pfr_model_obj {
		struct pfr_ring_ctl ctl;
		unsigned char pad[4096 - sizeof(struct pfr_ring_ctl)];
		unsigned char data[4096];
	} obj __attribute__((aligned(4096)));
} pfr_model;

_Static_assert(offsetof(struct pfr_model_obj, data) == 4096,
	       "the data area a page after the control block");

#define PFR_MODEL_FD 1000 /* ATTACH: the object's descriptor */

/* ---- KERNEL: the kernel's side ---- */

/* perf.c names errors with the library's pfr_strerror() (src/abi/), which
 * the model does not link. */
const char *pfr_strerror(int err)
{
	(void)err;
	return "error";
}

/* PERF_EVENT_IOC_PAUSE_OUTPUT: a system call, so a plain variable (the
 * model's threads share one system thread).  A paused kernel begins no
 * record; one it has begun, it finishes and publishes. */
static int pfr_model_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);
	pfr_model_check(fd == PFR_MODEL_FD &&
				req == PERF_EVENT_IOC_PAUSE_OUTPUT,
			"unmodelled ioctl", PFR_MODEL_SITE);
	pfr_model.paused = (int)va_arg(ap, unsigned long);
	va_end(ap);
	return 0;
}

/* The kernel's mmap page.  Only data_head is ever accessed (by the
 * snapshot), so the page is placed where its data_head is the control
 * block's head field, which the harness models; the rest of it is
 * never touched. */
static struct perf_event_mmap_page *pfr_model_kpage(void)
{
	return (struct perf_event_mmap_page
			*)(void *)((unsigned char *)&pfr_model.obj.ctl.head -
				   offsetof(struct perf_event_mmap_page,
					    data_head));
}

/* KERNEL, the writer: records of 8 + payload bytes written backward from
 * head 0, as a write_backward ring: perf_output_begin() moves head down
 * by the record's size (after checking the pause), the record is copied
 * in, and perf_output_put_handle() publishes it: smp_wmb() (B), then
 * the store of data_head.  No more than the ring holds: a record the
 * kernel began before the pause may overwrite the oldest while the
 * snapshot reads it, which the snapshot reports as a cut record, not
 * what this case checks. */
static void pfr_model_kernel_writer(void)
{
	struct pfr_model *m = &pfr_model;
	struct perf_event_mmap_page *pg = pfr_model_kpage();
	uint64_t head = 0, size = 8 + m->cfg.payload, rec[1 + 32];

	pfr_model_check(m->cfg.records * size <= m->cfg.data_size,
			"KERNEL: more records than the ring holds",
			PFR_MODEL_SITE);
	for (unsigned i = 1; i <= m->cfg.records; i++) {
		struct perf_event_header h = {.type = PFR_MODEL_TYPE,
					      .misc = 0,
					      .size = (uint16_t)size};

		if (m->paused)
			return;
		head -= size;
		memcpy(&rec[0], &h, 8);
		for (unsigned k = 0; k < m->cfg.payload / 8; k++)
			rec[1 + k] = PFR_MODEL_WORD(i, k);
		memcpy(m->obj.data + (head & (m->cfg.data_size - 1)), rec,
		       size);
		/* B: pairs with C, as the kernel's smp_wmb() in
		 * perf_output_put_handle() */
		pfr_smp_wmb();
		PFR_WRITE_ONCE(pg->data_head, head);
	}
}

static void pfr_model_check_record(const struct pfr_record *rec, unsigned seq);

struct pfr_model_ksnap {
	unsigned next; /* the sequence number the next record must have */
	unsigned got;
};

/* Newest first: records i, i - 1, ... down to 1, each whole. */
static int pfr_model_ksnap_rec(void *arg, const struct pfr_record *rec)
{
	struct pfr_model_ksnap *k = arg;
	uint64_t w0 = 0;
	unsigned seq;

	pfr_model_check(rec->hdr.type == PFR_MODEL_TYPE &&
				rec->len == pfr_model.cfg.payload,
			"kernel snapshot: record header", PFR_MODEL_SITE);
	memcpy(&w0, rec->payload, 8);
	seq = (unsigned)(w0 >> 16);
	pfr_model_check(k->got ? seq == k->next : seq >= 1,
			"kernel snapshot: records out of order",
			PFR_MODEL_SITE);
	pfr_model_check_record(rec, seq);
	k->next = seq - 1;
	k->got++;
	return 0;
}

/* KERNEL, the reader: one snapshot, as `perfring record` of an overwrite
 * ring takes it.  Every record up to the head it loaded is the writer's
 * and whole, back to the first (the ring never wrapped). */
static void pfr_model_kernel_snapshot(void)
{
	struct pfr_model *m = &pfr_model;
	struct pfr_perf_ring kr;
	struct pfr_model_ksnap k = {0, 0};
	int64_t n;

	memset(&kr, 0, sizeof(kr));
	kr.fd = PFR_MODEL_FD;
	kr.cpu = -1;
	kr.overwrite = 1;
	kr.page = pfr_model_kpage();
	kr.data_size = m->cfg.data_size;
	kr.scratch = m->scratch;
	kr.reader.data = m->obj.data;
	n = pfr_perf_ring_snapshot(&kr, pfr_model_ksnap_rec, &k);
	pfr_model_check(
		n >= 0 && (uint64_t)n == k.got && (n == 0 || k.next == 0),
		"kernel snapshot: a record up to head missing", PFR_MODEL_SITE);
	pfr_model_check(!m->paused, "kernel snapshot: output not resumed",
			PFR_MODEL_SITE);
}

/* ---- ATTACH: the object's system calls ---- */

/* Both mappings (the creator's, read-write; the attacher's, of the header
 * read-only and then of the whole object) are the one static object. */
static void *pfr_model_mmap(void *addr, size_t len, int prot, int flags, int fd,
			    off_t off)
{
	(void)addr;
	(void)prot;
	(void)flags;
	pfr_model_check(fd == PFR_MODEL_FD && off == 0 &&
				len <= sizeof(pfr_model.obj),
			"unmodelled mmap", PFR_MODEL_SITE);
	return &pfr_model.obj;
}

static int pfr_model_munmap(void *addr, size_t len)
{
	(void)addr;
	(void)len;
	return 0;
}

/* The object's size: system calls, ordered as the kernel orders them (a
 * plain variable: the model's threads share one system thread). */
static int pfr_model_ftruncate(int fd, off_t len)
{
	pfr_model_check(fd == PFR_MODEL_FD, "unmodelled ftruncate",
			PFR_MODEL_SITE);
	pfr_model.obj_size = (uint64_t)len;
	return 0;
}

static int pfr_model_fstat(int fd, struct stat *st)
{
	pfr_model_check(fd == PFR_MODEL_FD, "unmodelled fstat", PFR_MODEL_SITE);
	(memset)(st, 0, sizeof(*st));
	st->st_size = (off_t)pfr_model.obj_size;
	return 0;
}

/* Seals: not supported (a POSIX shm object), so never sealed. */
static int pfr_model_fcntl(int fd, int cmd, ...)
{
	(void)fd;
	(void)cmd;
	errno = EINVAL;
	return -1;
}

void pfr_model_layout(struct pfr_model_layout *l)
{
	l->ctl = &pfr_model.obj.ctl;
	l->ctl_size = sizeof(pfr_model.obj.ctl);
	l->data = pfr_model.obj.data;
	l->data_size = PFR_MODEL_DATA_MAX;
	l->reader_futex = &pfr_model.obj.ctl.reader_waiting;
	l->writer_futex = &pfr_model.obj.ctl.writer_waiting;
}

void pfr_model_setup(const struct pfr_model_cfg *cfg)
{
	struct pfr_model *m = &pfr_model;
	struct pfr_ring_ctl *c = &m->obj.ctl;
	struct pfr_ring *ring = &m->ring;
	int wake = cfg->scenario == PFR_MODEL_WAKE;
	int both = cfg->scenario == PFR_MODEL_BOTH ||
		   cfg->scenario == PFR_MODEL_BOTH8;
	int snap = cfg->scenario == PFR_MODEL_SNAP;
	int inband = cfg->scenario == PFR_MODEL_INBAND;

	/* Plain stores: Relacy's before() happens before both threads. */
	m->cfg = *cfg;
	free(m->created);
	free(m->attached);
	m->created = m->attached = NULL;
	m->obj_size = 0;
	m->paused = 0;
	memset(c, 0, sizeof(*c));
	if (cfg->scenario == PFR_MODEL_ATTACH)
		return; /* a fresh object: zero, size 0; the writer creates */
	memset(m->obj.data, 0xa5, sizeof(m->obj.data));
	/* The ring as pfr__ring_new() builds it, in static memory and
	 * smaller than a real ring may be (a few records fill it). */
	memset(ring, 0, sizeof(*ring));
	ring->ctl = c;
	ring->data = m->obj.data;
	ring->data_size = cfg->data_size;
	ring->policy = wake   ? PFR_POLICY_DROP
		       : snap ? PFR_POLICY_OVERWRITE
			      : PFR_POLICY_BLOCK;
	ring->ordering = (uint32_t)cfg->ordering;
	ring->flags = wake || both ? PFR_RING_WAIT
		      : inband	  ? PFR_RING_INBAND
				  : 0;
	ring->max_record = pfr__max_record_of(cfg->data_size, ring->flags);
	ring->fd = -1;
	ring->scratch = m->scratch;
	c->magic = PFR_RING_MAGIC;
	c->version = PFR_RING_VERSION;
	c->ctl_size = sizeof(*c);
	c->data_size = cfg->data_size;
	c->policy = ring->policy;
	c->ordering = ring->ordering;
	c->flags = ring->flags;
	c->max_record = (uint32_t)ring->max_record;
}

int pfr_model_open(void)
{
	struct pfr_model *m = &pfr_model;
	int err = pfr_ring_writer(&m->ring, &m->w);

	if (err)
		return err;
	if (m->cfg.scenario == PFR_MODEL_SNAP)
		return 0; /* the reader takes snapshots */
	if (m->cfg.scenario == PFR_MODEL_ATTACH)
		return 0; /* the writer creates the ring, the reader attaches */
	if (m->cfg.scenario == PFR_MODEL_KERNEL)
		return 0; /* the kernel's writer, perf.c's snapshot */
	err = pfr_ring_reader(&m->ring, &m->r);
	if (err)
		return err;
	/* No time-outs: a lost wake-up must sleep forever, which Relacy
	 * reports as a deadlock. */
	pfr_writer_set_timeout(&m->w, UINT64_MAX);
	/* BOTH: the library caps it at half the data area (32 bytes). */
	if (m->cfg.scenario == PFR_MODEL_BOTH ||
	    m->cfg.scenario == PFR_MODEL_BOTH8)
		pfr_reader_set_wakeup(&m->r, 1024, 0);
	/* MARK: a real ring's stride is many records (a quarter of the
	 * ring); here the whole ring, so that only the check at head and
	 * the one prompted by writer_waiting remain */
	if (m->cfg.scenario == PFR_MODEL_MARK)
		m->r.wake_stride = m->cfg.data_size;
	return 0;
}

/* Record seq's payload bytes: cfg.payload, but for SNAP, where records
 * of 16 and 24 bytes alternate (cfg.payload 16 is the larger), so that
 * a record overwrites the middle of older ones: a snapshot that walks
 * the headers of what it read before the overwrite lands on a payload
 * word, which no header check accepts (size 0). */
static unsigned pfr_model_payload(unsigned seq)
{
	if (pfr_model.cfg.scenario == PFR_MODEL_SNAP)
		return seq % 2 ? pfr_model.cfg.payload / 2
			       : pfr_model.cfg.payload;
	/* MARK: 24, then 56-byte records (cfg.payload 48, the larger) */
	if (pfr_model.cfg.scenario == PFR_MODEL_MARK)
		return seq == 1 ? 16 : pfr_model.cfg.payload;
	/* BOTH8: the last record is a header alone */
	if (pfr_model.cfg.scenario == PFR_MODEL_BOTH8 &&
	    seq == pfr_model.cfg.records)
		return 0;
	return pfr_model.cfg.payload;
}

/* ATTACH: the options of the ring the writer creates (a 4-KiB data area,
 * the smallest an attacher accepts). */
static const struct pfr_ring_opts pfr_model_attach_opts = {
	.sz = sizeof(struct pfr_ring_opts),
	.data_size = 4096,
	.policy = PFR_POLICY_BLOCK,
	.ordering = PFR_ORDER_CTRLDEP,
	.flags = PFR_RING_WAIT,
	.lost_id = 42,
};

/* ATTACH, the writer: creates the ring in the object (pfr__ring_new(), as
 * pfr_ring_create_shm() does once the object is open). */
static void pfr_model_create(void)
{
	struct pfr_model *m = &pfr_model;

	pfr_model_check(pfr__ring_new(&m->created, PFR_MODEL_FD,
				      &pfr_model_attach_opts) == 0,
			"pfr__ring_new failed", PFR_MODEL_SITE);
}

/* ATTACH, the reader: attaches to the object while it is being created
 * (pfr__ring_map(), as pfr_ring_attach_fd() does).  It may find it too
 * small (not yet sized) or without its magic (not yet complete); once it
 * sees the magic, every field must be the creator's. */
static void pfr_model_attach(void)
{
	struct pfr_model *m = &pfr_model;
	const struct pfr_ring_opts *o = &pfr_model_attach_opts;
	struct pfr_ring *r = NULL;
	int err = pfr__ring_map(&r, PFR_MODEL_FD, 1u << 20);

	m->attached = r;
	if (err == -PFR_E_MAPPING || err == -PFR_E_MAGIC)
		return;
	pfr_model_check(err == 0,
			"attach: a ring seen half-created (version or layout "
			"refused)",
			PFR_MODEL_SITE);
	if (err)
		return;
	pfr_model_check(r->data_size == o->data_size &&
				r->policy == (uint32_t)o->policy &&
				r->ordering == (uint32_t)o->ordering &&
				r->flags == o->flags &&
				r->max_record == pfr__max_record(o->data_size),
			"attach: the ring's fields differ from the creator's",
			PFR_MODEL_SITE);
}

void pfr_model_writer(void)
{
	struct pfr_model *m = &pfr_model;
	uint64_t buf[PFR_MODEL_DATA_MAX / 8];

	if (m->cfg.scenario == PFR_MODEL_ATTACH) {
		pfr_model_create();
		return;
	}
	if (m->cfg.scenario == PFR_MODEL_KERNEL) {
		pfr_model_kernel_writer();
		return;
	}
	for (unsigned i = 1; i <= m->cfg.records; i++) {
		unsigned len = pfr_model_payload(i);
		int err;

		for (unsigned k = 0; k < len / 8; k++)
			buf[k] = PFR_MODEL_WORD(i, k);
		err = pfr_writer_write(&m->w, PFR_MODEL_TYPE, buf, len);
		pfr_model_check(err == 0, "pfr_writer_write failed",
				PFR_MODEL_SITE);
	}
	/* BOTH: the last records are below the reader's threshold. */
	if (m->cfg.scenario == PFR_MODEL_BOTH ||
	    m->cfg.scenario == PFR_MODEL_BOTH8)
		pfr_writer_flush(&m->w);
}

/* Reads one record's payload (through the hooked memcpy) and checks it is
 * record `seq`, whole. */
static void pfr_model_check_record(const struct pfr_record *rec, unsigned seq)
{
	struct pfr_model *m = &pfr_model;
	uint64_t buf[PFR_MODEL_DATA_MAX / 8];

	unsigned len = pfr_model_payload(seq);

	pfr_model_check(rec->hdr.type == PFR_MODEL_TYPE && rec->len == len,
			"record header", PFR_MODEL_SITE);
	memcpy(buf, rec->payload, len);
	for (unsigned k = 0; k < len / 8; k++)
		pfr_model_check(buf[k] == PFR_MODEL_WORD(seq, k),
				"record payload", PFR_MODEL_SITE);
}

/* Reads the records of one batch; returns how many. */
static unsigned pfr_model_drain(unsigned got)
{
	struct pfr_model *m = &pfr_model;
	struct pfr_record rec;
	unsigned n = 0;
	int rc;

	while ((rc = pfr_reader_next(&m->r, &rec)) == 1) {
		pfr_model_check(got + n < m->cfg.records, "too many records",
				PFR_MODEL_SITE);
		pfr_model_check_record(&rec, got + ++n);
	}
	pfr_model_check(rc == 0, "pfr_reader_next failed", PFR_MODEL_SITE);
	return n;
}

/* SNAP: checks what pfr_ring_snapshot() returned into buf (n bytes or an
 * error): whole records of the writer's, in order, without a gap; or
 * -PFR_E_OVERWRITTEN (the writer kept overwriting what it walked), the
 * only error a correct snapshot of this ring may give. */
static void pfr_model_check_snapshot(const unsigned char *buf, int64_t n)
{
	struct pfr_model *m = &pfr_model;
	uint64_t prev = 0;
	int64_t at = 0;

	if (n == -PFR_E_OVERWRITTEN)
		return;
	pfr_model_check(n >= 0, "pfr_ring_snapshot failed", PFR_MODEL_SITE);
	while (at < n) {
		struct pfr_record_header h;
		uint64_t w0, seq;
		unsigned len;

		pfr_model_check(n - at >= 16, "snapshot: part of a record",
				PFR_MODEL_SITE);
		if (n - at < 16)
			return;
		memcpy(&h, buf + at, sizeof(h));
		memcpy(&w0, buf + at + 8, 8);
		seq = w0 >> 16;
		pfr_model_check(seq >= 1 && seq <= m->cfg.records &&
					(!prev || seq == prev + 1),
				"snapshot: records out of order or missing",
				PFR_MODEL_SITE);
		if (seq < 1 || seq > m->cfg.records)
			return;
		len = pfr_model_payload((unsigned)seq);
		pfr_model_check(h.type == PFR_MODEL_TYPE && h.size == 8 + len &&
					(uint64_t)at + 8 + len <= (uint64_t)n,
				"snapshot: record header", PFR_MODEL_SITE);
		if ((uint64_t)at + 8 + len > (uint64_t)n)
			return;
		for (unsigned k = 0; k < len / 8; k++) {
			uint64_t v;

			memcpy(&v, buf + at + 8 + 8 * k, 8);
			pfr_model_check(v == PFR_MODEL_WORD(seq, k),
					"snapshot: record overwritten (torn)",
					PFR_MODEL_SITE);
		}
		prev = seq;
		at += 8 + len;
	}
}

/* SNAP: a snapshot of the whole ring, then one whose buffer holds one
 * record (it walks the headers from oldest to find the last record). */
static void pfr_model_snapshots(void)
{
	struct pfr_model *m = &pfr_model;
	uint64_t buf[PFR_MODEL_DATA_MAX / 8];
	size_t lens[2] = {m->cfg.data_size, 8 + m->cfg.payload};

	for (unsigned i = 0; i < 2; i++)
		pfr_model_check_snapshot(
			(const unsigned char *)buf,
			pfr_ring_snapshot(&m->ring, buf, lens[i]));
}

void pfr_model_reader(void)
{
	struct pfr_model *m = &pfr_model;
	unsigned got = 0;

	if (m->cfg.scenario == PFR_MODEL_SNAP) {
		pfr_model_snapshots();
		return;
	}
	if (m->cfg.scenario == PFR_MODEL_ATTACH) {
		pfr_model_attach();
		return;
	}
	if (m->cfg.scenario == PFR_MODEL_KERNEL) {
		pfr_model_kernel_snapshot();
		return;
	}

	while (got < m->cfg.records) {
		int64_t avail;

		if (m->cfg.scenario != PFR_MODEL_PROTO &&
		    m->cfg.scenario != PFR_MODEL_MARK &&
		    m->cfg.scenario != PFR_MODEL_INBAND) {
			/* Blocks until data is published (no time-out). */
			avail = pfr_reader_wait(&m->r, UINT64_MAX);
			pfr_model_check(avail > 0, "pfr_reader_wait failed",
					PFR_MODEL_SITE);
		} else {
			avail = pfr_reader_begin(&m->r);
			pfr_model_check(avail >= 0, "pfr_reader_begin failed",
					PFR_MODEL_SITE);
			if (!avail) {
				pfr_cpu_relax();
				continue;
			}
		}
		got += pfr_model_drain(got);
		if (m->cfg.scenario == PFR_MODEL_PROTO ||
		    m->cfg.scenario == PFR_MODEL_MARK ||
		    m->cfg.scenario == PFR_MODEL_INBAND)
			pfr_reader_end(&m->r);
	}
	pfr_reader_end(&m->r);
}
