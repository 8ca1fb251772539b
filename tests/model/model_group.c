/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_group.c - a group's own code (src/writers/group.c,
 * with src/ring/ring.c for the slot rings and src/writers/merge.c for the
 * ordered reader), compiled as C against relacy-group-barrier.h, and the
 * threads the Relacy harness runs: 2 or 3 writer processes joining a 1- or
 * 2-slot group, writing a few records and leaving (or dying), and the
 * reader draining, freeing and reclaiming slots.
 *
 * Only what the model cannot run is replaced, outside group.c: the
 * processes (getpid(), kill(), and pfr__task_check()/_state()/_dead(),
 * which read /proc in the library: here one pid per writer thread, alive
 * until it dies), and the shared object (built here in static memory as
 * pfr__group_new() lays it out, smaller: no mmap, no eventfd).  Every
 * access to the header's reader and joiner lines, the directory and the
 * rings' positions reaches the harness's shadows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ---- ATTACH: the object's system calls, named before ring.c and
 * shm_int.h use them (their headers are included above) ---- */

#include "model_group.h"

#define PFR_MODEL_FD 1000 /* ATTACH: the object's descriptor */

/* One group of one slot with a 4-KiB data area: the header's page, the
 * directory's, the ring's control block and its data area. */
static struct pfr_model_gobj {
	unsigned char page[4][4096];
} pfr_model_gobj __attribute__((aligned(4096)));
static uint64_t pfr_model_gobj_size;

static void *pfr_model_mmap(void *addr, size_t len, int prot, int flags, int fd,
			    off_t off)
{
	if (fd != PFR_MODEL_FD)
		return (mmap)(addr, len, prot, flags, fd, off);
	pfr_model_check(off == 0 && len <= sizeof(pfr_model_gobj),
			"unmodelled mmap", PFR_MODEL_SITE);
	return &pfr_model_gobj;
}

static int pfr_model_munmap(void *addr, size_t len)
{
	if (addr == (void *)&pfr_model_gobj)
		return 0;
	return (munmap)(addr, len);
}

/* The object's size: system calls, ordered as the kernel orders them (a
 * plain variable: the model's threads share one system thread). */
static int pfr_model_ftruncate(int fd, off_t len)
{
	pfr_model_check(fd == PFR_MODEL_FD, "unmodelled ftruncate",
			PFR_MODEL_SITE);
	pfr_model_gobj_size = (uint64_t)len;
	return 0;
}

static int pfr_model_fstat(int fd, struct stat *st)
{
	pfr_model_check(fd == PFR_MODEL_FD, "unmodelled fstat", PFR_MODEL_SITE);
	(memset)(st, 0, sizeof(*st));
	st->st_size = (off_t)pfr_model_gobj_size;
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

#define mmap pfr_model_mmap
#define munmap pfr_model_munmap
#define ftruncate pfr_model_ftruncate
#define fstat pfr_model_fstat
#define fcntl pfr_model_fcntl

#include "../../src/ring/ring.c"
#include "../../src/writers/merge.c"

#include "model_group.h"

/* ---- a fault seam: the ring of a claimed slot cannot be opened ---- */

#define PFR_MODEL_OPEN_FAILED (-PFR_E_SYSTEM)

static int pfr_model_group_fail_open(void);

/* group.c's pfr__writer_open_at() (ring.c's, above), failing once for
 * the writer pfr_model_group_fail_open() names: the error path of
 * pfr_group_join() that gives the claimed slot back. */
static int pfr_model_writer_open_at(struct pfr_writer *w,
				    struct pfr_ring_ctl *c, unsigned char *data,
				    uint64_t data_size, uint32_t policy,
				    uint32_t ordering, uint32_t flags)
{
	if (pfr_model_group_fail_open())
		return PFR_MODEL_OPEN_FAILED;
	return pfr__writer_open_at(w, c, data, data_size, policy, ordering,
				   flags);
}
#define pfr__writer_open_at pfr_model_writer_open_at

#include "../../src/writers/group.c"

/* ---- /proc, as the model's processes ---- */

/* A process asking about itself (pfr__self_start()) is alive, and is
 * answered without a scheduling point: the model's threads share one
 * system thread, hence pfr__self_start()'s __thread cache, which must not
 * be switched away from half filled. */
int pfr__task_state(uint32_t id, int what, uint64_t *start)
{
	(void)what;
	*start = 1000 + id;
	if (id == pfr_model_group_pid())
		return 0;
	return pfr_model_group_dead(id);
}

/* The three-way answer (0 may run, 1 proven gone, -1 unreadable): the
 * model's /proc is always readable. */
int pfr__task_check(uint32_t id, int what, uint64_t *start)
{
	return pfr__task_state(id, what, start);
}

int pfr__task_dead(uint32_t id, int what, uint64_t start)
{
	(void)what;
	return pfr_model_group_dead(id) || start != 1000 + id;
}

/* The single ring's role words (src/ring/task_int.h), which a group's slot
 * rings never take: the same answers in the word's form. */
uint64_t pfr__task_self_word(void)
{
	uint32_t me = pfr_model_group_pid();

	return me | (uint64_t)(1000 + me) << PFR__TASK_WORD_PID_BITS;
}

int pfr__task_word_dead(uint64_t word)
{
	return pfr__task_dead(PFR__TASK_WORD_PID(word), PFR__TASK_PROCESS,
			      word >> PFR__TASK_WORD_PID_BITS);
}

/* ---- the group ---- */

#define MTYPE 7u
#define MWORD(i, k) (((uint64_t)(i) << 16) | (uint64_t)(k))

struct pfr_model_slotmem {
	struct pfr_ring_ctl ctl;
	unsigned char data[PFR_MODEL_GROUP_DATA];
};

struct pfr_model_region {
	struct pfr__ghdr h;
	struct pfr__gent dir[PFR_MODEL_GROUP_SLOTS];
	struct pfr_model_slotmem ring[PFR_MODEL_GROUP_SLOTS];
} __attribute__((aligned(128)));

static struct pfr_model_group {
	struct pfr_model_group_cfg cfg;
	int failed; /* FAIL: the injected failure happened */
	struct pfr_group g;
	struct pfr_writer w[PFR_MODEL_GROUP_MAXW];
	struct pfr_model_region region;
	/* the reader's view: next record per writer, records, frees */
	unsigned next[PFR_MODEL_GROUP_MAXW];
	unsigned got;
	uint64_t last_time;
} pfr_model_group;

/* FAIL: the first open of the first writer (pid 100) fails.  Called by
 * that writer's thread only before it returns, so a plain flag. */
static int pfr_model_group_fail_open(void)
{
	if (pfr_model_group.cfg.scenario != PFR_MODEL_GROUP_FAIL ||
	    pfr_model_group_pid() != 100 || pfr_model_group.failed)
		return 0;
	pfr_model_group.failed = 1;
	return 1;
}

size_t pfr_model_group_fields(struct pfr_model_gfield *f, size_t max)
{
	size_t n = 0;
#define F(base, type, field)                                                   \
	do {                                                                   \
		if (n < max) {                                                 \
			f[n].off = (base) + offsetof(type, field);             \
			f[n].size = sizeof(((type *)0)->field);                \
			n++;                                                   \
		}                                                              \
	} while (0)
	F(0, struct pfr__ghdr, sleep);
	F(0, struct pfr__ghdr, reader_pid);
	F(0, struct pfr__ghdr, reader_start);
	F(0, struct pfr__ghdr, changes);
	F(0, struct pfr__ghdr, hint);
	for (size_t i = 0; i < PFR_MODEL_GROUP_SLOTS; i++) {
		size_t e = offsetof(struct pfr_model_region, dir) +
			   i * sizeof(struct pfr__gent);
		size_t c = offsetof(struct pfr_model_region, ring) +
			   i * sizeof(struct pfr_model_slotmem);

		F(e, struct pfr__gent, word);
		F(e, struct pfr__gent, start);
		F(e, struct pfr__gent, tag);
		F(e, struct pfr__gent, tid);
		/* line 0 of a ring (magic ... lost_id) is written with
		 * plain stores by pfr__ring_reset() and stays real memory;
		 * its other two lines are shadowed */
		F(c, struct pfr_ring_ctl, head);
		F(c, struct pfr_ring_ctl, oldest);
		F(c, struct pfr_ring_ctl, records);
		F(c, struct pfr_ring_ctl, lost_total);
		F(c, struct pfr_ring_ctl, lost_pending);
		F(c, struct pfr_ring_ctl, reader_waiting);
		F(c, struct pfr_ring_ctl, writer_pid);
		F(c, struct pfr_ring_ctl, flush_head);
		F(c, struct pfr_ring_ctl, tail);
		F(c, struct pfr_ring_ctl, wake_mark);
		F(c, struct pfr_ring_ctl, writer_waiting);
		F(c, struct pfr_ring_ctl, wake_bytes);
		F(c, struct pfr_ring_ctl, wake_records);
		F(c, struct pfr_ring_ctl, reader_pid);
		F(c, struct pfr_ring_ctl, writer_wake_tail);
	}
#undef F
	return n;
}

void pfr_model_group_layout(struct pfr_model_glayout *l)
{
	struct pfr_model_region *r = &pfr_model_group.region;

	l->region = r;
	l->region_size = sizeof(*r);
	l->data_size = PFR_MODEL_GROUP_DATA;
	l->futex[0] = &r->h.sleep;
	for (unsigned i = 0; i < PFR_MODEL_GROUP_SLOTS; i++) {
		l->data[i] = r->ring[i].data;
		l->futex[1 + 2 * i] = &r->ring[i].ctl.reader_waiting;
		l->futex[2 + 2 * i] = &r->ring[i].ctl.writer_waiting;
	}
}

void *pfr_model_group_obj(size_t *size)
{
	*size = sizeof(pfr_model_gobj);
	return &pfr_model_gobj;
}

size_t pfr_model_group_obj_fields(struct pfr_model_gfield *f, size_t max)
{
	size_t n = 0;
#define F(field)                                                               \
	do {                                                                   \
		if (n < max) {                                                 \
			f[n].off = offsetof(struct pfr__ghdr, field);          \
			f[n].size = sizeof(((struct pfr__ghdr *)0)->field);    \
			n++;                                                   \
		}                                                              \
	} while (0)
	F(magic);
	F(version);
	F(hdr_size);
	F(nslots);
	F(entry_size);
	F(dir_off);
	F(rings_off);
	F(stride);
	F(data_off);
	F(data_size);
	F(total_size);
	F(policy);
	F(ordering);
	F(flags);
#undef F
	return n;
}

/* ATTACH: the group the first writer creates. */
static const struct pfr_group_opts pfr_model_attach_gopts = {
	.sz = sizeof(struct pfr_group_opts),
	.slots = 1,
	.data_size = 4096,
	.policy = PFR_POLICY_BLOCK,
	.ordering = PFR_ORDER_CTRLDEP,
};

/* ATTACH, the first writer: creates the group in the object
 * (pfr__group_new(), as pfr_group_create_shm() does once the object is
 * open), then leaves the process's registry. */
static void pfr_model_group_create(void)
{
	struct pfr_group *g = NULL;

	pfr_model_check(
		pfr__group_new(&g, PFR_MODEL_FD, &pfr_model_attach_gopts) == 0,
		"pfr__group_new failed", PFR_MODEL_SITE);
	if (g) {
		pfr__greg_del(g);
		free(g);
	}
}

/* ATTACH, the second: attaches (pfr__group_map(), as
 * pfr_group_attach_fd() does) while the group is being created.  It may
 * find the object too small (not yet sized) or without its magic (not
 * yet complete); once it sees the magic, the whole header must be the
 * creator's. */
static void pfr_model_group_attach(void)
{
	const struct pfr_group_opts *o = &pfr_model_attach_gopts;
	struct pfr_group *g = NULL;
	int err = pfr__group_map(&g, PFR_MODEL_FD, -1);

	if (err == -PFR_E_MAPPING || err == -PFR_E_MAGIC)
		return;
	pfr_model_check(err == 0,
			"attach: a group seen half-created (version or layout "
			"refused)",
			PFR_MODEL_SITE);
	if (err)
		return;
	pfr_model_check(g->nslots == o->slots && g->data_size == o->data_size &&
				g->policy == (uint32_t)o->policy &&
				g->ordering == (uint32_t)o->ordering &&
				g->map_len == sizeof(pfr_model_gobj),
			"attach: the group differs from the creator's",
			PFR_MODEL_SITE);
	pfr__greg_del(g);
	free(g);
}

/* Before every iteration, with plain stores (Relacy's before() happens
 * before every thread): the object as pfr__group_new() leaves it. */
void pfr_model_group_setup(const struct pfr_model_group_cfg *cfg)
{
	struct pfr_model_group *x = &pfr_model_group;
	struct pfr_group *g = &x->g;
	struct pfr_model_region *r = &x->region;

	if (g->reader) {
		pfr_merge_destroy(g->merge);
		g->merge = NULL;
		pfr__reader_free(g);
		pfr__greg_del(g);
	}
	x->cfg = *cfg;
	x->failed = 0;
	(memset)(&pfr_model_gobj, 0, sizeof(pfr_model_gobj));
	pfr_model_gobj_size = 0;
	x->got = 0;
	x->last_time = 0;
	for (unsigned i = 0; i < PFR_MODEL_GROUP_MAXW; i++)
		x->next[i] = 1;
	/* real memory first: the harness copies the shadowed fields */
	(memset)(r, 0, sizeof(*r));
	(memset)(g, 0, sizeof(*g));
	(memset)(x->w, 0, sizeof(x->w));
	g->h = &r->h;
	g->base = (unsigned char *)r;
	g->map_len = sizeof(*r);
	g->fd = -1;
	g->efd = -1;
	g->nslots = cfg->slots;
	g->policy = PFR_POLICY_DROP;
	g->ordering = PFR_ORDER_ACQREL;
	g->flags = cfg->scenario == PFR_MODEL_GROUP_WAIT ? PFR_GROUP_WAIT : 0;
	g->dir_off = offsetof(struct pfr_model_region, dir);
	g->rings_off = offsetof(struct pfr_model_region, ring);
	g->stride = sizeof(struct pfr_model_slotmem);
	g->data_off = offsetof(struct pfr_model_slotmem, data);
	g->data_size = PFR_MODEL_GROUP_DATA;
	g->max_record = pfr__ring_max_record(PFR_MODEL_GROUP_DATA);
	for (uint32_t i = 0; i < cfg->slots; i++) {
		struct pfr_ring_ctl *c = pfr__ctl(g, i);

		(memset)(c, 0, sizeof(*c));
		c->magic = PFR_RING_MAGIC;
		c->version = PFR_RING_VERSION;
		c->ctl_size = sizeof(*c);
		c->data_offset = g->data_off;
		c->data_size = g->data_size;
		c->policy = g->policy;
		c->ordering = g->ordering;
		c->flags = pfr__ring_flags(g);
		c->max_record = (uint32_t)g->max_record;
		(memset)(pfr__data(g, i), 0xa5, PFR_MODEL_GROUP_DATA);
	}
	r->h.magic = PFR__GROUP_MAGIC;
	r->h.nslots = cfg->slots;
}

/* The reader opens, through the hooks (after the shadows are set). */
int pfr_model_group_open(void)
{
	struct pfr_group *g = &pfr_model_group.g;
	int err;

	if (pfr_model_group.cfg.scenario == PFR_MODEL_GROUP_ATTACH)
		return 0; /* no reader: a creator and an attacher */
	if (pfr__greg_add(g))
		return -PFR_E_SYSTEM;
	err = pfr_group_reader_open(
		g, pfr_model_group.cfg.scenario == PFR_MODEL_GROUP_ORDERED,
		NULL, NULL);
	if (!err)
		pfr_group_set_reclaim_interval(g, 0); /* every drain */
	return err;
}

static int pfr_model_group_round(unsigned i, unsigned round);

/* Joins per writer: 2 in REJOIN, else 1. */
static unsigned pfr_model_group_rounds(void)
{
	return pfr_model_group.cfg.scenario == PFR_MODEL_GROUP_REJOIN ? 2 : 1;
}

void pfr_model_group_writer(unsigned i)
{
	struct pfr_model_group *x = &pfr_model_group;
	struct pfr_writer *w = &x->w[i];
	int slot;

	if (x->cfg.scenario == PFR_MODEL_GROUP_ATTACH) {
		if (i == 0)
			pfr_model_group_create();
		else
			pfr_model_group_attach();
		return;
	}
	if (x->cfg.scenario == PFR_MODEL_GROUP_FAIL && i == 0) {
		/* claims the slot, cannot open its ring, gives it back */
		while ((slot = pfr_group_join(&x->g, w, i + 1)) == -PFR_E_FULL)
			pfr_cpu_relax();
		pfr_model_check(slot == PFR_MODEL_OPEN_FAILED,
				"pfr_group_join: the injected failure",
				PFR_MODEL_SITE);
		return;
	}
	for (unsigned round = 0; round < pfr_model_group_rounds(); round++)
		if (pfr_model_group_round(i, round))
			return;
}

/* One join, its records and (but for DEAD's first writer) its leave;
 * 1 when the writer is done (died or failed). */
static int pfr_model_group_round(unsigned i, unsigned round)
{
	struct pfr_model_group *x = &pfr_model_group;
	struct pfr_writer *w = &x->w[i];
	int slot;

	/* join, retrying while every slot is taken (it frees when the
	 * reader has drained a leaver or reclaimed a dead writer) */
	while ((slot = pfr_group_join(&x->g, w, i + 1)) == -PFR_E_FULL)
		pfr_cpu_relax();
	pfr_model_check(slot >= 0 && (unsigned)slot < x->cfg.slots,
			"pfr_group_join failed", PFR_MODEL_SITE);
	if (slot < 0)
		return 1;
	for (unsigned k = round * x->cfg.records + 1;
	     k <= (round + 1) * x->cfg.records; k++) {
		uint64_t p = MWORD(i + 1, k);

		/* ordered: the record's time, taken after the join */
		if (x->cfg.scenario == PFR_MODEL_GROUP_ORDERED)
			p |= pfr_model_group_clock() << 32;
		pfr_model_check(pfr_writer_write(w, MTYPE, &p, 8) == 0,
				"pfr_write failed", PFR_MODEL_SITE);
	}
	if (x->cfg.scenario == PFR_MODEL_GROUP_DEAD && i == 0) {
		/* publishes (B) and dies without leaving */
		pfr_writer_flush(w);
		pfr_model_group_die();
		return 1;
	}
	pfr_model_check(pfr_group_leave(&x->g, w) == 0,
			"pfr_group_leave failed", PFR_MODEL_SITE);
	return 0;
}

static int pfr_model_group_rec(void *arg, const struct pfr_group_rec *r)
{
	struct pfr_model_group *x = arg;
	uint64_t v;
	unsigned i;

	pfr_model_check(r->hdr.type == MTYPE && r->len == 8, "record header",
			PFR_MODEL_SITE);
	if (r->len != 8)
		return 0;
	memcpy(&v, r->payload, 8);
	i = (unsigned)((v >> 16) & 0xffff) - 1;
	pfr_model_check(i < x->cfg.writers && (v & 0xffff) == x->next[i] &&
				r->tag == i + 1,
			"record payload (writer, order, the slot's tag)",
			PFR_MODEL_SITE);
	if (i < PFR_MODEL_GROUP_MAXW)
		x->next[i]++;
	if (x->cfg.scenario == PFR_MODEL_GROUP_ORDERED) {
		/* the time is the payload word (clock << 32 | writer, k) */
		pfr_model_check(r->time == v && v >= x->last_time,
				"ordered reader: records out of time order",
				PFR_MODEL_SITE);
		x->last_time = v;
	}
	x->got++;
	return 0;
}

void pfr_model_group_reader(void)
{
	struct pfr_model_group *x = &pfr_model_group;
	struct pfr_group *g = &x->g;
	/* FAIL: the first writer never holds the slot */
	unsigned live =
		x->cfg.writers - (x->cfg.scenario == PFR_MODEL_GROUP_FAIL);
	unsigned total = live * x->cfg.records * pfr_model_group_rounds();
	uint64_t frees = live * pfr_model_group_rounds();

	if (x->cfg.scenario == PFR_MODEL_GROUP_ATTACH)
		return;

	for (;;) {
		struct pfr_group_stats st;
		int64_t n = pfr_group_drain(g, pfr_model_group_rec, x, 0);

		pfr_model_check(n >= 0, "pfr_group_drain failed",
				PFR_MODEL_SITE);
		pfr_model_check(x->got <= total, "too many records",
				PFR_MODEL_SITE);
		pfr_group_stats(g, &st);
		if (n < 0 || (x->got == total &&
			      st.freed + st.reclaimed == frees && !st.active))
			break;
		if (x->cfg.scenario == PFR_MODEL_GROUP_WAIT)
			pfr_model_check(pfr_group_wait(g, UINT64_MAX) >= 0,
					"pfr_group_wait failed",
					PFR_MODEL_SITE);
		else
			pfr_cpu_relax();
	}
}
