/* SPDX-License-Identifier: MIT */
/*
 * The shared ring's out-of-line parts (<perfring/mpsc.h> draws the
 * protocol and its pairings): creation and attachment, the producer
 * table (join, leave, liveness), the fairness flag, the reservation's
 * slow path (wrap padding, LOST records, DROP and BLOCK), the reader's
 * slow path (BUSY, PAD, DISCARD and LOST records, unwritten reservations
 * and the sizing of a dead owner's hole, stalls, dead producers, hostile
 * headers), the futex waits and the counters.
 *
 * The two blocking hand-shakes are the store-buffering shape, as in the
 * single ring (src/ring/ring.c): a side going to sleep stores its "waiting"
 * word and then loads the other side's progress; the other side stores
 * its progress (a committed header, or cons_pos) and then loads
 * "waiting?".  Each side needs smp_mb() between the two.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "ring/compiler.h"
#include "ring/futex_int.h"
#include "ring/opts.h"
#include "ring/shm_int.h"
#include "ring/task_int.h"

struct pfr_mpsc {
	struct pfr_mpsc_ctl *ctl;
	struct pfr_mpsc_slot *table;
	unsigned char *data;
	size_t map_len;
	uint64_t data_size;
	uint32_t max_producers, policy, flags, max_record;
	int fd;
	int sealed;
	uint64_t swept_at; /* the reader's last sweep (pfr__mpsc_sweep()) */
};

/* The slot claim's CAS (acquire and release: the claim orders the slot's
 * earlier state before our stores to it, and our stores after it). */
#define pfr__mpsc_cas_acqrel(p, expp, v)                                       \
	/* the leave with the claim: litmus/mpsc-slot-handover.litmus */       \
	/* purpose: the slot claim, pairs with itself and with the leave */    \
	pfr__mpsc_cas((p), (expp), (v), __ATOMIC_ACQ_REL)

/* Liveness checks of a stalled owner, and the reader's sweep for drops
 * nobody reports (pfr__mpsc_sweep()): at most once per this long. */
#define PFR__MPSC_CHECK_NS 1000000ull
/* Fairness: CASes on prod_pos a producer loses before it raises the flag
 * that makes the others let it go first, and how long (spins) the others
 * defer to a raised flag. */
#ifndef PFR__MPSC_FAIR_TRIES
#define PFR__MPSC_FAIR_TRIES 16
#endif
#ifndef PFR__MPSC_DEFER_SPINS
#define PFR__MPSC_DEFER_SPINS 1024
#endif
/* Polls of an unwritten header before the reader looks at prod_pos. */
#ifndef PFR__MPSC_IDLE_POLLS
#define PFR__MPSC_IDLE_POLLS 64
#endif
/* BLOCK: checks for space before the producer sleeps. */
#ifndef PFR__MPSC_BLOCK_SPINS
#define PFR__MPSC_BLOCK_SPINS 256
#endif

#define PFR__MPSC_DATA_MIN 4096ull
#define PFR__MPSC_DATA_MAX (1ull << 40)
#define PFR__MPSC_ALIGN 4096ull
#define PFR__MPSC_DEFAULT_LIMIT ((1ull << 30) + (1ull << 20))
#define PFR__MPSC_NO_STALL UINT64_MAX
/* The slot's start_time word: start time bits, generation tag bits. */
#define PFR__MPSC_START_BITS 40
#define PFR__MPSC_START_MASK ((1ull << PFR__MPSC_START_BITS) - 1)
#define PFR__MPSC_TAG_MASK 0xffffffu

/* ---- time, thread identity (the model build supplies its own) ---- */

#ifndef PFR__MPSC_MODEL
static uint64_t pfr__mpsc_now(void)
{
	return pfr__now_ns();
}

static uint32_t pfr__mpsc_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* The state of thread `tid` (src/ring/task_int.h): 0 alive, its start time in
 * *start; 1 gone or a zombie. */
static int pfr__mpsc_tid_state(uint32_t tid, uint64_t *start)
{
	return pfr__task_state(tid, PFR__TASK_THREAD, start);
}

/* The inode of this process's pid namespace, 0 when unknown. */
static uint64_t pfr__mpsc_pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}
#endif

/* 1 when the thread recorded as (tid, start) is proven dead: gone, a
 * zombie, or the tid now names a thread with another start time. */
static int pfr__mpsc_tid_dead(uint32_t tid, uint64_t start)
{
	uint64_t now_start;

	if (pfr__mpsc_tid_state(tid, &now_start))
		return 1;
	return start && now_start && now_start != start;
}

/* ---- layout, creation, attachment ---- */

/* The largest record: a LOST record, the padding before a record that
 * would straddle the end, and the record must fit in an empty ring (as
 * in the single ring). */
static uint32_t pfr__mpsc_max_record(uint64_t data_size)
{
	uint64_t m = (data_size / 2 - 8) & ~7ull;

	return (uint32_t)(m < PFR_RECORD_MAX ? m : PFR_RECORD_MAX);
}

static uint64_t pfr__mpsc_data_offset(uint32_t max_producers)
{
	uint64_t end = sizeof(struct pfr_mpsc_ctl) +
		       (uint64_t)max_producers * sizeof(struct pfr_mpsc_slot);

	return (end + PFR__MPSC_ALIGN - 1) & ~(PFR__MPSC_ALIGN - 1);
}

static int pfr__mpsc_check_opts(const struct pfr_mpsc_opts *o, uint64_t *size,
				uint32_t *np)
{
	*size = o->data_size ? o->data_size : 1u << 20;
	*np = o->max_producers ? o->max_producers : 64;
	if (*size < PFR__MPSC_DATA_MIN || *size > PFR__MPSC_DATA_MAX ||
	    (*size & (*size - 1)) ||
	    *size > (uint64_t)SIZE_MAX - pfr__mpsc_data_offset(*np))
		return -PFR_E_INVAL;
	if (*np > PFR_MPSC_PRODUCERS_MAX ||
	    (o->policy != PFR_POLICY_DROP && o->policy != PFR_POLICY_BLOCK) ||
	    (o->flags & ~PFR_MPSC_WAIT))
		return -PFR_E_INVAL;
	return 0;
}

PFR__SHM_HEAD_OF(struct pfr_mpsc_ctl, ctl_size);

static void pfr__mpsc_fill(struct pfr_mpsc *m, uint64_t data_offset)
{
	unsigned char *base = (unsigned char *)m->ctl;

	m->table = (struct pfr_mpsc_slot *)(base + sizeof(struct pfr_mpsc_ctl));
	m->data = base + data_offset;
	m->max_record = pfr__mpsc_max_record(m->data_size);
}

static int pfr__mpsc_new(struct pfr_mpsc **mp, int fd,
			 const struct pfr_mpsc_opts *o)
{
	uint64_t size, off;
	uint32_t np;
	struct pfr_mpsc *m;
	struct pfr_mpsc_ctl *c;
	int err = pfr__mpsc_check_opts(o, &size, &np);
	void *p;

	if (err)
		return err;
	off = pfr__mpsc_data_offset(np);
	m = (struct pfr_mpsc *)calloc(1, sizeof(*m));
	p = m ? pfr__shm_alloc(fd, off + size) : NULL;
	if (!p) {
		free(m);
		return -PFR_E_SYSTEM;
	}
	m->ctl = c = (struct pfr_mpsc_ctl *)p;
	m->map_len = off + size;
	m->data_size = size;
	m->max_producers = np;
	m->policy = (uint32_t)o->policy;
	m->flags = o->flags;
	m->fd = fd;
	m->sealed = fd < 0;
	pfr__mpsc_fill(m, off);
	memset(c, 0, sizeof(*c) + (size_t)np * sizeof(struct pfr_mpsc_slot));
	c->version = PFR_MPSC_VERSION;
	c->ctl_size = sizeof(*c);
	c->data_offset = off;
	c->data_size = size;
	c->table_offset = sizeof(*c);
	c->max_producers = np;
	c->policy = (uint32_t)o->policy;
	c->flags = o->flags;
	c->max_record = m->max_record;
	c->pidns = pfr__mpsc_pidns();
	/* purpose: publish the initialised control block before the magic
	 * that says it is complete; pairs with the attacher's smp_rmb()
	 * after loading magic in pfr__shm_peek() */
	pfr_smp_wmb();
	PFR_WRITE_ONCE(c->magic, PFR_MPSC_MAGIC);
	*mp = m;
	return 0;
}

int pfr_mpsc_create(struct pfr_mpsc **m, const struct pfr_mpsc_opts *opts)
{
	struct pfr_mpsc_opts o;

	if (!m || PFR__OPTS_COPY(&o, opts, MPSC_OPTS))
		return -PFR_E_INVAL;
	return pfr__mpsc_new(m, -1, &o);
}

/* The shared ring of pfr_mpsc_create_shm() (the object `name`) and of
 * pfr_mpsc_create_memfd() (memfd_name not NULL: a memfd, sealed). */
static int pfr__mpsc_create_fd(struct pfr_mpsc **m, const char *name,
			       const char *memfd_name,
			       const struct pfr_mpsc_opts *opts)
{
	struct pfr_mpsc_opts o;
	uint64_t size;
	uint32_t np;
	int err, fd;

	if (!m || PFR__OPTS_COPY(&o, opts, MPSC_OPTS))
		return -PFR_E_INVAL;
	err = pfr__mpsc_check_opts(&o, &size, &np);
	fd = err ? err : pfr__shm_create(name, o.mode, memfd_name);
	if (fd < 0)
		return fd;
	err = pfr__shm_done(pfr__mpsc_new(m, fd, &o), fd, name);
	if (!err && memfd_name)
		(*m)->sealed = pfr__shm_seal(fd);
	return err;
}

int pfr_mpsc_create_shm(struct pfr_mpsc **m, const char *name,
			const struct pfr_mpsc_opts *opts)
{
	return pfr__mpsc_create_fd(m, name, NULL, opts);
}

int pfr_mpsc_create_memfd(struct pfr_mpsc **m, const struct pfr_mpsc_opts *opts)
{
	return pfr__mpsc_create_fd(m, NULL, "perfring-mpsc", opts);
}

/* Validates the control block before trusting any of it; every field is
 * loaded once, and the handle keeps the validated copies (line 0 is never
 * read again). */
static int pfr__mpsc_map_max(struct pfr_mpsc **mp, int fd, uint64_t limit,
			     uint64_t data_max)
{
	struct pfr__shm_peek pk = {.hdr_len = sizeof(struct pfr_mpsc_ctl),
				   .magic = PFR_MPSC_MAGIC,
				   .version = PFR_MPSC_VERSION};
	struct pfr_mpsc_ctl *c;
	struct pfr_mpsc *m;
	uint64_t off, size, toff, total;
	uint32_t np, policy, flags, max_record;
	void *p;
	int err = pfr__shm_peek(fd, &pk);

	if (err)
		return err;
	if (!limit)
		limit = PFR__MPSC_DEFAULT_LIMIT;
	c = (struct pfr_mpsc_ctl *)pk.hdr;
	off = PFR_READ_ONCE(c->data_offset);
	size = PFR_READ_ONCE(c->data_size);
	toff = PFR_READ_ONCE(c->table_offset);
	np = PFR_READ_ONCE(c->max_producers);
	policy = PFR_READ_ONCE(c->policy);
	flags = PFR_READ_ONCE(c->flags);
	max_record = PFR_READ_ONCE(c->max_record);
	munmap(c, sizeof(*c));

	if (pk.hdr_size != sizeof(struct pfr_mpsc_ctl) || toff != pk.hdr_size ||
	    np == 0 || np > PFR_MPSC_PRODUCERS_MAX ||
	    off != pfr__mpsc_data_offset(np) || size < PFR__MPSC_DATA_MIN ||
	    size > PFR__MPSC_DATA_MAX || (size & (size - 1)) ||
	    (policy != PFR_POLICY_DROP && policy != PFR_POLICY_BLOCK) ||
	    (flags & ~PFR_MPSC_WAIT) ||
	    max_record != pfr__mpsc_max_record(size))
		return -PFR_E_LAYOUT;
	total = off + size;
	if (total > limit)
		return -PFR_E_LAYOUT;
	if (size > data_max)
		return -PFR_E_TOOBIG;
	if (pk.file_size < total)
		return -PFR_E_MAPPING;
	m = (struct pfr_mpsc *)calloc(1, sizeof(*m));
	p = m ? pfr__shm_map(fd, total) : NULL;
	if (!p) {
		free(m);
		return -PFR_E_SYSTEM;
	}
	m->ctl = (struct pfr_mpsc_ctl *)p;
	m->map_len = total;
	m->data_size = size;
	m->max_producers = np;
	m->policy = policy;
	m->flags = flags;
	m->fd = fd;
	m->sealed = pk.sealed;
	pfr__mpsc_fill(m, off);
	*mp = m;
	return 0;
}

static int pfr__mpsc_map(struct pfr_mpsc **mp, int fd, uint64_t limit)
{
	return pfr__mpsc_map_max(mp, fd, limit, UINT64_MAX);
}

int pfr_mpsc_attach_fd(struct pfr_mpsc **m, int fd, uint64_t max_bytes)
{
	int dup_fd;

	if (!m)
		return -PFR_E_INVAL;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -PFR_E_SYSTEM;
	return pfr__shm_done(pfr__mpsc_map(m, dup_fd, max_bytes), dup_fd, NULL);
}

int pfr_mpsc_attach_shm(struct pfr_mpsc **m, const char *name,
			uint64_t max_bytes)
{
	int fd;

	if (!m || !name)
		return -PFR_E_INVAL;
	fd = pfr__shm_open(name, 0, 0);
	if (fd < 0)
		return fd;
	return pfr__shm_done(pfr__mpsc_map(m, fd, max_bytes), fd, NULL);
}

int pfr_mpsc_attach_fd_opts(struct pfr_mpsc **m, int fd,
			    const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int dup_fd, err = pfr__attach_limit(opts, &max);

	if (!err && !m)
		err = -PFR_E_INVAL;
	if (err)
		return err;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -PFR_E_SYSTEM;
	return pfr__shm_done(pfr__mpsc_map_max(m, dup_fd, UINT64_MAX, max),
			     dup_fd, NULL);
}

int pfr_mpsc_attach_shm_opts(struct pfr_mpsc **m, const char *name,
			     const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int fd, err = pfr__attach_limit(opts, &max);

	if (!err && (!m || !name))
		err = -PFR_E_INVAL;
	if (err)
		return err;
	fd = pfr__shm_open(name, 0, 0);
	if (fd < 0)
		return fd;
	return pfr__shm_done(pfr__mpsc_map_max(m, fd, UINT64_MAX, max), fd,
			     NULL);
}

void pfr_mpsc_close(struct pfr_mpsc *m)
{
	if (!m)
		return;
	munmap(m->ctl, m->map_len);
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

int pfr_mpsc_unlink(const char *name)
{
	return pfr__shm_unlink(name);
}

int pfr_mpsc_fd(const struct pfr_mpsc *m)
{
	return m ? m->fd : -PFR_E_INVAL;
}

int pfr_mpsc_sealed(const struct pfr_mpsc *m)
{
	return m ? m->sealed : 0;
}

struct pfr_mpsc_ctl *pfr_mpsc_ctl(const struct pfr_mpsc *m)
{
	return m ? m->ctl : NULL;
}

struct pfr_mpsc_ctl *pfr_mpsc_control(const struct pfr_mpsc *m)
{
	return m ? m->ctl : NULL;
}

/* ---- the producer table ---- */

/*
 * 1 when no producer can write a record stamped (index, gen) any more:
 * the slot's generation moved on (the owner left or was reclaimed after
 * its death), the slot is free, or its thread is proven dead.  0 when
 * the owner may be alive.  gen_mask: the bits of gen the stamp carries.
 */
static int pfr__mpsc_owner_gone(struct pfr_mpsc_slot *s, uint32_t gen,
				uint32_t gen_mask)
{
	/* purpose: the owner word before the start time stored after the
	 * claim; pairs with the CAS (acq_rel) in pfr_mpsc_join() */
	uint64_t owner = pfr_smp_load_acquire(&s->owner);
	uint32_t tid = (uint32_t)owner, sgen = (uint32_t)(owner >> 32);
	uint64_t st, now_start;

	if (((sgen ^ gen) & gen_mask) || tid == 0)
		return 1;
	if (pfr__mpsc_tid_state(tid, &now_start))
		return 1;
	/* The start time is stored after the claim, so this load may see
	 * the previous owner's (another thread's start: taken as proof of
	 * death, a live producer's record was skipped under it).  Its tag
	 * names the generation that stored it: another one's means not
	 * known yet, and the thread's existence is all we go by. */
	st = PFR_READ_ONCE(s->start_time);
	if (!st || !now_start ||
	    (st >> PFR__MPSC_START_BITS) != (sgen & PFR__MPSC_TAG_MASK))
		return 0; /* not known (also: /proc unreadable, EMFILE) */
	return (now_start & PFR__MPSC_START_MASK) !=
	       (st & PFR__MPSC_START_MASK);
}

/* The slot's start_time word: the owner's start time (its low 40 bits:
 * 348 years of clock ticks at 100 Hz) tagged with the low 24 bits of its
 * generation; 0 when unknown. */
static uint64_t pfr__mpsc_start_word(uint64_t start, uint32_t gen)
{
	if (!start)
		return 0;
	return ((uint64_t)(gen & PFR__MPSC_TAG_MASK) << PFR__MPSC_START_BITS) |
	       (start & PFR__MPSC_START_MASK);
}

/*
 * Whether a free or dead owner's slot may be claimed, and the drops its
 * previous owner left unreported (*lost).  A slot is reusable once the
 * reader has passed everything its previous owner reserved: its
 * announcement [res_pos, res_end) is below cons_pos, or was never taken
 * (prod_pos has not passed res_pos, and the reader has read up to it).
 * Until then the reader may still need the announcement (to size a dead
 * owner's unwritten record) and may still read the owner's LOST records.
 * Then a free slot hands on what its owner could not report (lost_left);
 * a dead owner's slot what the reader never read (lost_due - the drops
 * read in LOST records, both counted over every owner).
 */
static int pfr__mpsc_reusable(struct pfr_mpsc_ctl *c, struct pfr_mpsc_slot *s)
{
	/* A: pairs with D, as in pfr__mpsc_load_cons()
	 * (litmus/mpsc-reuse.litmus); also orders the reader's
	 * lost_reported stores (before its D) before our load of it */
	uint64_t cons = pfr_smp_load_acquire(&c->cons_pos);
	uint64_t prod = PFR_READ_ONCE(c->prod_pos);
	uint64_t rp = PFR_READ_ONCE(s->res_pos), re = PFR_READ_ONCE(s->res_end);

	return !((int64_t)(cons - rp) < 0 ||
		 ((int64_t)(prod - rp) > 0 && (int64_t)(cons - re) < 0));
}

/* The drops a claimed slot's previous owner left unreported (see
 * pfr__mpsc_reusable()), read after the claim's CAS: a leaving owner
 * stores lost_left before its release of the owner word, which the CAS
 * (acq_rel) reads.  Read before the CAS, a joiner could take a stale
 * lost_left (the model's reuse case). */
static uint64_t pfr__mpsc_inherited(struct pfr_mpsc_slot *s, int dead)
{
	if (!dead)
		return PFR_READ_ONCE(s->lost_left);
	/* the reader's lost_reported stores are ordered before these
	 * loads by the load_acquire of cons_pos in pfr__mpsc_reusable() */
	return PFR_READ_ONCE(s->lost_due) - PFR_READ_ONCE(s->lost_reported);
}

/* Fills *p for the slot it claimed (index i, generation gen). */
static void pfr__mpsc_fill_producer(struct pfr_mpsc *m,
				    struct pfr_mpsc_producer *p, uint32_t i,
				    uint32_t gen, uint64_t lost)
{
	memset(p, 0, sizeof(*p));
	p->ctl = m->ctl;
	p->slot = &m->table[i];
	p->data = m->data;
	p->mask = m->data_size - 1;
	p->index = i;
	p->gen = gen & PFR_MPSC_GEN_MASK;
	p->lock_word = ((uint64_t)gen << 32) | (i + 1);
	p->max_record = m->max_record;
	p->max_producers = m->max_producers;
	p->policy = (uint8_t)m->policy;
	p->wait_flag = !!(m->flags & PFR_MPSC_WAIT);
	p->timeout_ns = 1000000000ull;
	p->lost = lost; /* the previous owner's, in our next LOST record */
}

/*
 * Claims slot i for thread tid (started at `start`) and fills *p: a free
 * slot, or with `dead`-ok the slot of an owner proven gone, once the
 * reader has passed its previous owner's reservation (one CAS).  Returns
 * 1 when claimed.  The joiner and the reader's sweep both claim here.
 */
static int pfr__mpsc_claim(struct pfr_mpsc *m, uint32_t i, uint32_t tid,
			   uint64_t start, int dead_ok,
			   struct pfr_mpsc_producer *p)
{
	struct pfr_mpsc_slot *s = &m->table[i];
	uint64_t owner = PFR_READ_ONCE(s->owner), want, lost;
	uint32_t gen = (uint32_t)(owner >> 32) + 1;
	int dead = (uint32_t)owner != 0;

	if (dead &&
	    (!dead_ok ||
	     !pfr__mpsc_owner_gone(s, (uint32_t)(owner >> 32), UINT32_MAX)))
		return 0;
	if (!pfr__mpsc_reusable(m->ctl, s))
		return 0;
	want = ((uint64_t)gen << 32) | tid;
	if (!pfr__mpsc_cas_acqrel(&s->owner, &owner, want))
		return 0;
	lost = pfr__mpsc_inherited(s, dead);
	/* the slot's unreported drops go out in our LOST record; lost_due
	 * already counts them */
	PFR_WRITE_ONCE(s->start_time, pfr__mpsc_start_word(start, gen));
	PFR_WRITE_ONCE(s->lost_total, 0);
	PFR_WRITE_ONCE(s->lost_left, 0);
	pfr__mpsc_fill_producer(m, p, i, gen, lost);
	return 1;
}

int pfr_mpsc_join(struct pfr_mpsc *m, struct pfr_mpsc_producer *p)
{
	uint32_t tid, i;
	uint64_t start, ns, mine;

	if (!m || !p)
		return -PFR_E_INVAL;
	tid = pfr__mpsc_gettid();
	ns = PFR_READ_ONCE(m->ctl->pidns);
	mine = pfr__mpsc_pidns();
	if (ns && mine && ns != mine)
		return -PFR_E_INVAL; /* thread ids mean nothing across */
	pfr__mpsc_tid_state(tid, &start);
	/* First pass: a free slot; second: the slot of a dead producer. */
	for (int pass = 0; pass < 2; pass++)
		for (i = 0; i < m->max_producers; i++)
			if (pfr__mpsc_claim(m, i, tid, start, pass, p))
				return 0;
	return -PFR_E_BUSY;
}

void pfr_mpsc_set_timeout(struct pfr_mpsc_producer *p, uint64_t ns)
{
	if (p)
		p->timeout_ns = ns;
}

/* ---- fairness ---- */

/* Whether the producer stamped w can no longer reserve: a malformed
 * stamp, or a producer proven gone. */
static int pfr__mpsc_stamp_gone(struct pfr_mpsc_producer *p, uint64_t w)
{
	struct pfr_mpsc_slot *table = p->slot - p->index;
	uint32_t idx = (uint32_t)w - 1, gen = (uint32_t)(w >> 32);

	if ((uint32_t)w == 0 || idx >= p->max_producers)
		return 1;
	return pfr__mpsc_owner_gone(&table[idx], gen, UINT32_MAX);
}

/* Sets the fairness flag (starving) to this producer's stamp if no one
 * else holds it: 1 when set. */
static int pfr__mpsc_flag(struct pfr_mpsc_ctl *c, uint64_t mine)
{
	uint64_t none = 0;

	/* relaxed: the flag only steers who tries the CAS on prod_pos;
	 * that CAS orders the reservations */
	return pfr__mpsc_cas(&c->starving, &none, mine, __ATOMIC_RELAXED);
}

/* Clears the fairness flag if it names this producer. */
static void pfr__mpsc_unflag(struct pfr_mpsc_ctl *c, uint64_t mine)
{
	uint64_t w = mine;

	/* relaxed, as in pfr__mpsc_flag() */
	pfr__mpsc_cas(&c->starving, &w, 0, __ATOMIC_RELAXED);
}

/*
 * A producer that finds the flag raised by another defers to it: it
 * spins up to PFR__MPSC_DEFER_SPINS times while the flag stays up, then
 * goes on anyway (so a flag's producer that is preempted, or dead, delays
 * the others by a bounded spin, never stops them); a flag whose producer
 * is proven gone is cleared.
 */
static void pfr__mpsc_defer(struct pfr_mpsc_producer *p, uint64_t s)
{
	struct pfr_mpsc_ctl *c = p->ctl;

	for (int i = 0; i < PFR__MPSC_DEFER_SPINS; i++) {
		pfr_cpu_relax();
		if (PFR_READ_ONCE(c->starving) != s)
			return;
	}
	if (pfr__mpsc_stamp_gone(p, s))
		/* relaxed, as in pfr__mpsc_flag() */
		pfr__mpsc_cas(&c->starving, &s, 0, __ATOMIC_RELAXED);
}

/* ---- the reservation's slow path ---- */

static void pfr__mpsc_count_lost(struct pfr_mpsc_producer *p)
{
	p->lost++;
	p->lost_total++;
	PFR_WRITE_ONCE(p->slot->lost_due, PFR_READ_ONCE(p->slot->lost_due) + 1);
	PFR_WRITE_ONCE(p->slot->lost_total, p->lost_total);
}

/* A: loads the consumer position before storing into what it frees. */
static inline uint64_t pfr__mpsc_load_cons(struct pfr_mpsc_ctl *c)
{
	/* A: pairs with D (store_release of cons_pos) in pfr_mpsc_end():
	 * the reader's loads and zeroing of the freed records before our
	 * stores into them (litmus/mpsc-reuse.litmus) */
	return pfr_smp_load_acquire(&c->cons_pos);
}

/*
 * prod_pos, loaded after cons_pos (A) in the reservation's slow path.
 * With the acquire, the position is consistent with the cons_pos loaded
 * before and after it:
 * - not above it: every record the reader passed has a header stored
 *   with release after its reservation's CAS (B, H) or was sized by a
 *   prod_pos the reader loaded with acquire (C1), so the CAS that
 *   reserved it happens before the reader's D, and so before our load
 *   of prod_pos (coherence);
 * - not more than a ring ahead of a cons_pos loaded after it: the
 *   producer whose CAS stored pos had loaded a consumer position of at
 *   least pos - ring (A, before its CAS), so that D happens before our
 *   next load of cons_pos.
 * Loaded relaxed, the first was the model's bug-head-ahead (a spurious
 * -PFR_E_HEAD_AHEAD).
 */
static inline uint64_t pfr__mpsc_load_prod(struct pfr_mpsc_ctl *c)
{
	/* purpose: pairs with R (the release CAS on prod_pos) of the
	 * producer that stored it: see above (litmus/mpsc-prod-bound.litmus) */
	return pfr_smp_load_acquire(&c->prod_pos);
}

/* BLOCK: waits for the reader to move cons_pos from `seen` (or the
 * deadline).  Holds no reservation and announces none. */
static int pfr__mpsc_wait_space(struct pfr_mpsc_producer *p, uint64_t seen,
				uint64_t *deadline)
{
	struct pfr_mpsc_ctl *c = p->ctl;
	uint64_t now = pfr__mpsc_now();

	/* the deadline holds even while cons_pos keeps moving without
	 * freeing enough */
	if (!*deadline)
		*deadline = pfr__deadline(now, p->timeout_ns);
	if (now >= *deadline)
		return -PFR_E_TIMEDOUT;
	for (int i = 0; i < PFR__MPSC_BLOCK_SPINS; i++) {
		pfr_cpu_relax();
		if (PFR_READ_ONCE(c->cons_pos) != seen)
			return 0;
	}
	/* A reader asleep below a threshold the full ring cannot reach
	 * would never free the space: wake it. */
	if (PFR_READ_ONCE(c->reader_waiting)) {
		PFR_WRITE_ONCE(c->reader_waiting, 0);
		pfr__futex_wake(&c->reader_waiting);
	}
	PFR_WRITE_ONCE(c->writer_waiting, 1);
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_mpsc_end(): writer_waiting store before the cons_pos load
	 * (litmus/mpsc-wake-space.litmus) */
	pfr_smp_mb();
	if (PFR_READ_ONCE(c->cons_pos) != seen)
		return 0;
	pfr__futex_wait(&c->writer_waiting, 1, *deadline - now);
	return 0;
}

/* Gives up a reservation attempt: the announcement names an empty range
 * at pos (a lower bound of any later reservation of ours), and the
 * fairness flag is cleared if ours. */
static int pfr__mpsc_give_up(struct pfr_mpsc_producer *p, uint64_t pos,
			     int flagged, int err, int count)
{
	pfr__mpsc_announce(p, pos, pos); /* N */
	if (flagged)
		pfr__mpsc_unflag(p->ctl, p->lock_word);
	if (count)
		pfr__mpsc_count_lost(p);
	return err;
}

/*
 * Reserves `extra` bytes of LOST record (when drops are pending) and
 * `size` bytes of record at prod_pos, with PAD records where a record
 * would straddle the end: one CAS on prod_pos (R), after announcing the
 * whole range in the producer's slot (N).  Nothing is stored into the
 * data area before the CAS succeeds; then the PAD and LOST records are
 * written whole and the record's header is BUSY.  A producer killed
 * anywhere leaves either no reservation (prod_pos unchanged: the
 * announcement names space it never took) or one the reader can size:
 * by its BUSY header, or, before that header, by the announcement.
 */
int pfr__mpsc_reserve_slow(struct pfr_mpsc_producer *p, uint32_t size)
{
	const uint64_t lost_size = sizeof(struct pfr_lost_record);
	struct pfr_mpsc_ctl *c = p->ctl;
	uint64_t ring = p->mask + 1, deadline = 0, pos, end, cons, at, s;
	unsigned char *d = p->data;
	unsigned fails = 0;
	int flagged = 0, err;

	for (;;) {
		pos = PFR_READ_ONCE(c->prod_pos);
		s = PFR_READ_ONCE(c->starving);
		if (s && s != p->lock_word) {
			pfr__mpsc_defer(p, s);
			pos = PFR_READ_ONCE(c->prod_pos);
		}
		end = pos;
		if (p->lost)
			pfr__place(&end, lost_size, p->mask);
		pfr__place(&end, size, p->mask);
		if ((pos & 7) || end - p->cons_cache > ring) {
			cons = pfr__mpsc_load_cons(c); /* A */
			pos = pfr__mpsc_load_prod(c);
			/* Honest positions: cons <= pos by H (see
			 * pfr__mpsc_load_prod()); pos - cons > ring only
			 * when the reader freed space between the two loads
			 * and producers took it: cons again, now at least
			 * what the producer of pos had seen; and a cons
			 * loaded after pos may have passed it: pos again.
			 * A few such looks; hostile positions fail them
			 * all. */
			for (int k = 0; k < 4 && pos - cons > ring; k++) {
				if ((int64_t)(pos - cons) < 0)
					pos = pfr__mpsc_load_prod(c);
				else
					cons = pfr__mpsc_load_cons(c); /* A */
			}
			end = pos;
			if (p->lost)
				pfr__place(&end, lost_size, p->mask);
			pfr__place(&end, size, p->mask);
			if ((pos & 7) || (cons & 7) || pos - cons > ring)
				return pfr__mpsc_give_up(
					p, cons, flagged,
					(pos & 7) || (cons & 7) ? -PFR_E_LAYOUT
					: (int64_t)(pos - cons) < 0
						? -PFR_E_HEAD_BEHIND
						: -PFR_E_HEAD_AHEAD,
					0);
			p->cons_cache = cons;
			if (end - cons > ring) {
				if (p->policy == PFR_POLICY_DROP)
					return pfr__mpsc_give_up(
						p, pos, flagged, -PFR_E_NOSPC,
						1);
				pfr__mpsc_announce(p, pos, pos); /* N */
				err = pfr__mpsc_wait_space(p, cons, &deadline);
				if (err)
					return pfr__mpsc_give_up(
						p, pos, flagged, err, 1);
				continue;
			}
		}
		pfr__mpsc_announce(p, pos, end); /* N */
		if (pfr__mpsc_cas_release(&c->prod_pos, &pos, end)) /* R */
			break;
		/* Fairness: after PFR__MPSC_FAIR_TRIES lost CASes, the flag
		 * asks the others to let this producer go first. */
		if (++fails >= PFR__MPSC_FAIR_TRIES && !flagged)
			flagged = pfr__mpsc_flag(c, p->lock_word);
		pfr_cpu_relax();
	}
	if (flagged)
		pfr__mpsc_unflag(c, p->lock_word);
	/* The space [pos, end) is ours: PAD, LOST and BUSY headers. */
	end = pos;
	if (p->lost) {
		struct pfr_lost_record lr;

		at = pfr__place(&end, lost_size, p->mask);
		if (at != pos) /* H */
			pfr__mpsc_store_hdr(p, pos,
					    pfr__mpsc_hdr(PFR_RECORD_PAD,
							  p->index, at - pos));
		/* BUSY first: nothing is stored into a record's space
		 * before its header, so a hole's words are all zero up to
		 * its owner's end (pfr__mpsc_hole() tells a stale
		 * announcement from the real one by that).  Killed with
		 * the payload stored under a zero header, two dead
		 * announcements at one place (one stale) both failed the
		 * zero check: the ring stalled for good. */
		pfr__mpsc_store_busy(p, at, lost_size); /* H */
		lr.id = p->index;
		lr.lost = p->lost;
		memcpy(d + (at & p->mask) + 8, &lr.id, 16);
		/* B (commit): pairs with C2 (load_acquire of the header)
		 * in pfr_mpsc_next(): the LOST payload before its header
		 * (litmus/mpsc-commit.litmus) */
		pfr_smp_store_release(
			(uint64_t *)(d + (at & p->mask)),
			pfr__mpsc_hdr(PFR_RECORD_LOST, p->index, lost_size));
		p->lost = 0;
		pos = end;
	}
	at = pfr__place(&end, size, p->mask);
	if (at != pos) /* H */
		pfr__mpsc_store_hdr(
			p, pos,
			pfr__mpsc_hdr(PFR_RECORD_PAD, p->index, at - pos));
	pfr__mpsc_store_busy(p, at, size); /* H */
	if (p->wait_flag)
		__atomic_fetch_add(&c->records, 1, __ATOMIC_RELAXED);
	p->res_pos = at;
	p->res_size = size;
	return 0;
}

/*
 * One stretch of n records of `size` bytes at prod_pos, or 0 when the
 * fast conditions do not hold (the caller then writes one by one).  One
 * CAS takes the whole stretch; the first header is BUSY with the
 * stretch's size: the reader stops at it, and skips the whole stretch if
 * its owner dies.  The other headers are stored before B, the release
 * store of the first header's final value; the reader loads each of them
 * after its acquire of the header before (C2), so they are ordered by B
 * like the payloads.
 */
static int pfr__mpsc_burst_fast(struct pfr_mpsc_producer *p, uint32_t type,
				const unsigned char *src, size_t len, size_t n,
				uint64_t size)
{
	struct pfr_mpsc_ctl *c = p->ctl;
	uint64_t mask = p->mask, span = size * n, pos, end;
	unsigned char *at;
	int tries = 0;

	if (p->lost)
		return 0;
	pos = PFR_READ_ONCE(c->prod_pos);
	for (;;) {
		end = pos + span;
		if ((pos & 7) || PFR_READ_ONCE(c->starving) ||
		    end - p->cons_cache > mask + 1 ||
		    (pos & mask) + span > mask + 1 ||
		    tries++ == PFR__MPSC_FAIR_TRIES) {
			if (tries > 1)
				pfr__mpsc_announce(p, pos, pos); /* N */
			return 0;
		}
		pfr__mpsc_announce(p, pos, end); /* N */
		if (pfr__mpsc_cas_release(&c->prod_pos, &pos, end)) /* R */
			break;
		pfr_cpu_relax();
	}
	at = p->data + (pos & mask);
	pfr__mpsc_store_busy(p, pos, span); /* H */
	if (p->wait_flag)
		__atomic_fetch_add(&c->records, n, __ATOMIC_RELAXED);
	for (size_t i = 1; i < n; i++) {
		unsigned char *r = at + i * size;

		PFR_WRITE_ONCE(*(uint64_t *)r,
			       pfr__mpsc_hdr(type, p->index, size));
		if (len)
			memcpy(r + 8, src + i * len, len);
	}
	if (len)
		memcpy(at + 8, src, len);
	p->res_pos = pos;
	p->res_size = (uint32_t)size;
	p->res_type = type;
	p->records += n;
	/* B (commit) in pfr__mpsc_finish(): the whole stretch */
	pfr__mpsc_finish(p, type);
	if (p->wait_flag && n > 1)
		pfr__mpsc_commit_wake(p, pos, end);
	return 1;
}

int pfr_mpsc_write_burst(struct pfr_mpsc_producer *p, uint32_t type,
			 const void *buf, size_t len, size_t n)
{
	const unsigned char *src = (const unsigned char *)buf;
	uint64_t size = pfr__record_size(len);

	if (!p || !p->slot || (len && !buf) || len + 8 > p->max_record ||
	    len > p->max_record || type > PFR_RECORD_USER_MAX ||
	    type == PFR_RECORD_LOST || p->res_size ||
	    (len && n > SIZE_MAX / len))
		return -PFR_E_INVAL;
	/* the BUSY header's u16 size holds the whole stretch */
	if (n > 1 && n <= PFR_RECORD_MAX / size &&
	    pfr__mpsc_burst_fast(p, type, src, len, n, size))
		return 0;
	for (size_t i = 0; i < n; i++) {
		int err = pfr_mpsc_write(p, type, src + i * len, len);

		if (err)
			return err;
	}
	return 0;
}

int pfr_mpsc_flush(struct pfr_mpsc_producer *p)
{
	int err = 0;

	if (!p || !p->slot)
		return -PFR_E_INVAL; /* NULL, zeroed, or after leave */
	if (p->lost && !p->res_size) {
		uint8_t policy = p->policy;
		uint64_t lost = p->lost, lost_total = p->lost_total;
		uint64_t due = PFR_READ_ONCE(p->slot->lost_due);

		/* A PAD record behind the LOST record (the slow path writes
		 * LOST records in front of another); never waits. */
		p->policy = PFR_POLICY_DROP;
		p->res_type = PFR_RECORD_PAD;
		err = pfr__mpsc_reserve_slow(p, 8);
		p->policy = policy;
		if (err == 0) {
			p->res_type = PFR_RECORD_PAD;
			pfr__mpsc_finish(p, PFR_RECORD_PAD);
		} else {
			/* the probe is not a record: not lost */
			p->lost = lost;
			p->lost_total = lost_total;
			PFR_WRITE_ONCE(p->slot->lost_due, due);
			PFR_WRITE_ONCE(p->slot->lost_total, lost_total);
		}
	}
	return err;
}

int pfr_mpsc_producer_join(struct pfr_mpsc *m, struct pfr_mpsc_producer *p)
{
	int rc = pfr_mpsc_join(m, p);

	if (rc == -PFR_E_BUSY)
		return -PFR_E_FULL; /* no free slot: the group's answer */
	return rc ? rc : (int)p->index;
}

int pfr_mpsc_producer_leave(struct pfr_mpsc_producer *p)
{
	if (!p || !p->slot)
		return -PFR_E_INVAL;
	pfr_mpsc_leave(p);
	return 0;
}

void pfr_mpsc_leave(struct pfr_mpsc_producer *p)
{
	struct pfr_mpsc_slot *s = p ? p->slot : NULL;

	if (!s)
		return;
	pfr_mpsc_discard(p);
	pfr_mpsc_flush(p);
	/* what no LOST record carries, for the slot's next owner */
	PFR_WRITE_ONCE(s->lost_left, p->lost);
	/* purpose: the counters before the slot is free; pairs with the
	 * CAS (acq_rel) of the next join (litmus/mpsc-slot-handover.litmus)
	 * and with the load_acquire in pfr__mpsc_owner_gone() */
	pfr_smp_store_release(&s->owner, (p->lock_word >> 32) << 32);
	p->slot = NULL;
	p->max_record = 0; /* reserve and write: -PFR_E_INVAL from now */
}

/* A wake-up byte threshold read from shared memory: at most half the data
 * area (as pfr_mpsc_set_wakeup() stores it), which the reserved bytes can
 * always reach: a peer's ~0 cannot keep the reader asleep. */
static uint32_t pfr__mpsc_clamp_wb(uint32_t wb, uint64_t mask)
{
	return wb > (mask + 1) / 2 ? (uint32_t)((mask + 1) / 2) : wb;
}

void pfr__mpsc_wake_reader(struct pfr_mpsc_producer *p, uint64_t pos,
			   uint64_t end)
{
	struct pfr_mpsc_ctl *c = p->ctl;
	uint64_t cons = PFR_READ_ONCE(c->cons_pos);
	uint64_t recs = PFR_READ_ONCE(c->records) - PFR_READ_ONCE(c->wake_mark);
	uint32_t wb = pfr__mpsc_clamp_wb(PFR_READ_ONCE(c->wake_bytes), p->mask);
	uint32_t wr = PFR_READ_ONCE(c->wake_records);

	/* Wake when the reader waits at this very record (it was the one
	 * holding the reader up), or when what is reserved up to its end
	 * meets a threshold; the reader re-checks everything itself. */
	if (cons != pos && !pfr__wake_met(end - cons, recs, wb, wr))
		return;
	PFR_WRITE_ONCE(c->reader_waiting, 0);
	pfr__futex_wake(&c->reader_waiting);
}

int pfr_mpsc_reader_alive(struct pfr_mpsc *m)
{
	uint64_t owner;

	if (!m)
		return 0;
	owner = PFR_READ_ONCE(m->ctl->reader_owner);

	if ((uint32_t)owner == 0)
		return 0;
	return !pfr__mpsc_tid_dead((uint32_t)owner,
				   PFR_READ_ONCE(m->ctl->reader_start));
}

/*
 * The reader's sweep for drops nobody else would report (issue 34).  A
 * slot whose owner left with drops no LOST record carries (no room for it
 * at leave: lost_left) or was killed with drops pending, and that no
 * producer claims again, kept its count for ever: no LOST record, and a
 * reader could not tell what it missed.  So the reader, once the ring is
 * drained and at most once per PFR__MPSC_CHECK_NS (or at once with
 * `force`), looks at every slot whose drops it has not all read
 * (lost_due != lost_reported, which only the reader stores), and claims
 * one that is free or whose owner is proven gone exactly as a joiner
 * does (pfr__mpsc_claim(): the claim's CAS, the reader past its previous
 * owner's reservation), writes the count in a LOST record in the slot's
 * name (pfr_mpsc_flush(), which never waits) and leaves it
 * (pfr_mpsc_leave(): a count that did not fit stays in lost_left for the
 * next sweep or owner).  The reader is then one more producer: the
 * ordering is the join's, the reservation's and the leave's, with their
 * barriers and partners; a reader killed in between is a dead owner like
 * any other.  The LOST record is read like any other, and counted in
 * lost_reported there.  A live owner's drops are its own to report (its
 * next record, flush or leave).  Returns the slots reported.
 */
static int pfr__mpsc_sweep(struct pfr_mpsc_reader *r, int force)
{
	struct pfr_mpsc *m = r->m;
	uint64_t now = pfr__mpsc_now(), start = 0;
	uint32_t tid = 0;
	int n = 0;

	if (!m || (!force && now - m->swept_at < PFR__MPSC_CHECK_NS))
		return 0;
	m->swept_at = now;
	for (uint32_t i = 0; i < m->max_producers; i++) {
		struct pfr_mpsc_slot *s = &m->table[i];
		struct pfr_mpsc_producer p;

		if (PFR_READ_ONCE(s->lost_due) ==
		    PFR_READ_ONCE(s->lost_reported))
			continue;
		if (!tid) {
			tid = pfr__mpsc_gettid();
			pfr__mpsc_tid_state(tid, &start);
		}
		if (!pfr__mpsc_claim(m, i, tid, start, 1, &p))
			continue;
		if (p.lost)
			n++;
		pfr_mpsc_leave(&p); /* flushes the LOST record, then frees */
	}
	return n;
}

/* ---- the reader ---- */

int pfr_mpsc_reader_open(struct pfr_mpsc *m, struct pfr_mpsc_reader *r)
{
	return pfr_mpsc_reader(m, r);
}

int pfr_mpsc_reader(struct pfr_mpsc *m, struct pfr_mpsc_reader *r)
{
	struct pfr_mpsc_ctl *c;
	uint32_t tid;
	uint64_t owner, start, tail, freed, prod;
	int err = 0;

	if (!m || !r)
		return -PFR_E_INVAL;
	c = m->ctl;
	tid = pfr__mpsc_gettid();
	owner = PFR_READ_ONCE(c->reader_owner);
	if ((uint32_t)owner != 0 && (uint32_t)owner != tid &&
	    !pfr__mpsc_tid_dead((uint32_t)owner,
				PFR_READ_ONCE(c->reader_start)))
		return -PFR_E_BUSY;
	if (!pfr__mpsc_cas_acqrel(&c->reader_owner, &owner, (uint64_t)tid))
		return -PFR_E_BUSY; /* another reader won */
	pfr__mpsc_tid_state(tid, &start);
	PFR_WRITE_ONCE(c->reader_start, start);
	tail = PFR_READ_ONCE(c->cons_pos);
	freed = PFR_READ_ONCE(c->free_pos);
	/* Relaxed: only bounds the range checked below.  The previous
	 * reader's stores (free_pos, cons_pos) reach us through its death,
	 * which pfr__mpsc_tid_dead() learned from the kernel; the
	 * reservations below them happened before those stores, so a load
	 * of prod_pos after them is not below them (coherence). */
	prod = PFR_READ_ONCE(c->prod_pos);
	memset(r, 0, sizeof(*r));
	r->ctl = c;
	r->m = m;
	r->data = m->data;
	r->mask = m->data_size - 1;
	r->max_producers = m->max_producers;
	r->flags = m->policy == PFR_POLICY_BLOCK ? 1u : 0u;
	r->stall_pos = UINT64_MAX;
	r->stall_timeout = 1000000000ull;
	if ((tail & 7) || (freed & 7))
		err = -PFR_E_RECSIZE_ALIGN;
	else if (freed != tail &&
		 (freed - tail > r->mask + 1 || freed - tail > prod - tail))
		err = -PFR_E_LAYOUT;
	if (err) {
		/* a failed open keeps no role: release it */
		memset(r, 0, sizeof(*r));
		PFR_WRITE_ONCE(c->reader_owner, 0);
		return err;
	}
	r->tail = r->head = r->published = tail;
	if (freed != tail) {
		/* the previous reader was killed while freeing what it had
		 * read: finish its zeroing, then free it (D) */
		pfr__mpsc_zero((unsigned char *)r->data, r->mask, tail, freed);
		/* D: pairs with A, as in pfr_mpsc_end()
		 * (litmus/mpsc-reuse.litmus) */
		pfr_smp_store_release(&c->cons_pos, freed);
		r->tail = r->head = r->published = freed;
		/* BLOCK producers asleep for that space: woken as by
		 * pfr_mpsc_end() (without it they slept to their time-out:
		 * the model's reader-takeover-block) */
		if (r->flags & 1u)
			pfr__mpsc_end_wake(r);
	}
	return 0;
}

void pfr_mpsc_reader_close(struct pfr_mpsc_reader *r)
{
	if (!r || !r->ctl)
		return;
	pfr_mpsc_end(r);
	/* drops of gone producers go out for the next reader */
	pfr__mpsc_sweep(r, 1);
	PFR_WRITE_ONCE(r->ctl->reader_owner, 0);
	r->ctl = NULL;
	r->data = NULL;
}

void pfr_mpsc_set_stall(struct pfr_mpsc_reader *r, uint64_t ns)
{
	if (r)
		r->stall_timeout = ns;
}

void pfr__mpsc_wake_writers(struct pfr_mpsc_reader *r)
{
	PFR_WRITE_ONCE(r->ctl->writer_waiting, 0);
	pfr__futex_wake(&r->ctl->writer_waiting);
}

/* The reader left the record it had stopped at: account the stop. */
static void pfr__mpsc_unstall(struct pfr_mpsc_reader *r)
{
	uint64_t d = pfr__mpsc_now() - r->stall_start;

	r->stall_ns += d;
	if (d > r->stall_max_ns)
		r->stall_max_ns = d;
	r->stall_pos = UINT64_MAX;
}

/* The reader stops at its tail (a BUSY or unwritten record): starts the
 * stall's clock.  Returns the time now. */
static uint64_t pfr__mpsc_stop(struct pfr_mpsc_reader *r)
{
	uint64_t now = pfr__mpsc_now();

	if (r->stall_pos != r->tail) {
		r->stall_pos = r->tail;
		r->stall_start = now;
		r->last_check = 0;
		r->busy_stops++;
		r->flags &= ~2u; /* not reported yet */
	}
	return now;
}

/* A live owner holds the reader past the time-out: -PFR_E_STALLED,
 * counted once per stop. */
static int pfr__mpsc_stalled(struct pfr_mpsc_reader *r)
{
	if (!(r->flags & 2u)) {
		r->flags |= 2u;
		r->stalls++;
	}
	return -PFR_E_STALLED;
}

/* Skips a dead owner's record: the tail moves to end. */
static int pfr__mpsc_skip_dead(struct pfr_mpsc_reader *r, uint64_t end)
{
	pfr__mpsc_unstall(r);
	r->dead_skipped++;
	r->tail = end;
	return 1;
}

/*
 * The record at the reader's tail is BUSY (h).  Returns 0 (stop here for
 * now), 1 (its owner is proven dead: skipped, tail moved on),
 * -PFR_E_STALLED (a live owner held it past the time-out) or
 * -PFR_E_LAYOUT (it names a producer slot that does not exist).
 */
static int pfr__mpsc_busy(struct pfr_mpsc_reader *r,
			  const struct pfr_record_header *h)
{
	struct pfr_mpsc_slot *table = r->m->table;
	uint64_t now;

	if (h->misc >= r->max_producers)
		return -PFR_E_LAYOUT;
	now = pfr__mpsc_stop(r);
	if (now - r->stall_start < r->stall_timeout)
		return 0;
	if (!r->last_check || now - r->last_check >= PFR__MPSC_CHECK_NS) {
		r->last_check = now;
		if (pfr__mpsc_owner_gone(&table[h->misc],
					 h->type & PFR_MPSC_GEN_MASK,
					 PFR_MPSC_GEN_MASK)) {
			/* The header again, now that its owner is known
			 * dead: it may have committed before it died (the
			 * BUSY header we hold was loaded before the check).
			 * Its death, as this thread learned it (the kernel
			 * reaped the thread, then our read of /proc, both
			 * under the task's locks), orders its last stores
			 * before this load (C2). */
			if (pfr__mpsc_load_hdr(r, r->tail & r->mask) !=
			    pfr__mpsc_hdr(h->type, h->misc, h->size))
				return 1; /* not BUSY any more: read it */
			return pfr__mpsc_skip_dead(r, r->tail + h->size);
		}
	}
	return pfr__mpsc_stalled(r);
}

/* 1 when the 8-byte words of [from, to) of the data area are all zero. */
static int pfr__mpsc_zeroes(const struct pfr_mpsc_reader *r, uint64_t from,
			    uint64_t to)
{
	for (uint64_t at = from; at != to; at += 8)
		if (PFR_READ_ONCE(
			    *(const uint64_t *)(r->data + (at & r->mask))))
			return 0;
	return 1;
}

/*
 * The header at the reader's tail, below prod_pos, was never written:
 * its owner is between its CAS on prod_pos and its BUSY store.  After the
 * stall time-out, the producers' announcements say whose it is: a
 * producer whose announced [res_pos, res_end) holds the tail.  Any such
 * producer alive: wait (-PFR_E_STALLED).  All dead: the record ends at
 * the announced end.  Two dead producers can name the same space only
 * when one of them died between a lost CAS and its next announcement; the
 * owner died before storing anything into its space, so the reader takes
 * the longest announcement that covers only zero words (the other's, if
 * longer, would cover the next record's header).  No announcement at all
 * (hostile memory): -PFR_E_STALLED at every call.
 *
 * The next record's header may not be written either (nothing reserved
 * after the hole yet, or its owner stalled too): the words past the real
 * end are then zero as well, and a longer stale announcement would take
 * the reader past prod_pos or over a live producer's reservation, which
 * it would then free under it.  So no announcement may end past `lim`:
 * prod_pos, or the start of any announced reservation above the tail
 * (reservations do not overlap; an owner's announcement names its space
 * until its header is written, and a slot is not reused before the
 * reader has passed it).  The real owner's end is never past lim.
 */
static int pfr__mpsc_hole(struct pfr_mpsc_reader *r)
{
	struct pfr_mpsc_slot *table = r->m->table;
	uint64_t now = pfr__mpsc_stop(r), tail = r->tail, best = 0, lim;
	uint64_t left = r->mask + 1 - (tail - r->published);
	unsigned dead = 0;

	if (now - r->stall_start < r->stall_timeout)
		return 0;
	if (r->last_check && now - r->last_check < PFR__MPSC_CHECK_NS)
		return pfr__mpsc_stalled(r);
	r->last_check = now;
	/* C1: pairs with R (the release CAS on prod_pos) in
	 * pfr_mpsc_reserve() and pfr__mpsc_reserve_slow(): the
	 * announcement (N) of every reservation below lim before the
	 * loads of the announcements below
	 * (litmus/mpsc-reserve.litmus) */
	lim = pfr_smp_load_acquire(&r->ctl->prod_pos);
	for (uint32_t i = 0; i < r->max_producers; i++) {
		struct pfr_mpsc_slot *s = &table[i];
		/* N: pairs with the store_release of res_pos in
		 * pfr__mpsc_announce(): an announcement moved past a
		 * reservation comes after its owner's header there, so the
		 * zero test below sees that header (a relaxed load can see
		 * the new announcement and a stale zero header: the reader
		 * would skip into that record; relacy_mpsc.cc's
		 * dead-2-lost-2r; litmus/mpsc-announce.litmus).  The
		 * announcement of every reservation below lim is ordered
		 * before these loads by C1 (coherence). */
		uint64_t rp = pfr_smp_load_acquire(&s->res_pos);
		uint64_t re = PFR_READ_ONCE(s->res_end);

		if (rp != re && rp - tail - 1 < lim - tail - 1)
			lim = rp; /* a reservation starts above the tail */
	}
	for (uint32_t i = 0; i < r->max_producers; i++) {
		struct pfr_mpsc_slot *s = &table[i];
		/* N: pairs with the store_release of res_pos in
		 * pfr__mpsc_announce(): an announcement that no longer
		 * names the tail comes after its owner's commit there
		 * (litmus/mpsc-announce.litmus) */
		uint64_t rp = pfr_smp_load_acquire(&s->res_pos);
		uint64_t re = PFR_READ_ONCE(s->res_end);
		/* relaxed: only its generation is used, and
		 * pfr__mpsc_owner_gone() loads the word again with acquire */
		uint64_t owner = PFR_READ_ONCE(s->owner);

		if (tail - rp >= re - rp || re - tail > left || (re & 7))
			continue; /* not the tail's, or out of bounds */
		if (!pfr__mpsc_owner_gone(s, (uint32_t)(owner >> 32),
					  UINT32_MAX))
			return pfr__mpsc_stalled(r);
		if (re - tail > lim - tail)
			continue; /* past lim: not the tail's record */
		if (++dead == 1) {
			best = re;
			continue;
		}
		/* more than one: only announcements over zero words */
		if (dead == 2 && !pfr__mpsc_zeroes(r, tail, best))
			best = 0;
		if (pfr__mpsc_zeroes(r, tail, re) &&
		    (!best || re - tail > best - tail))
			best = re;
	}
	if (!best)
		return pfr__mpsc_stalled(r);
	/* the header may have been written since our first look */
	if (PFR_READ_ONCE(*(const uint64_t *)(r->data + (tail & r->mask))))
		return 0;
	return pfr__mpsc_skip_dead(r, best);
}

/*
 * Nothing at the tail (a zero header): drained, or a reservation not
 * written yet.  Every PFR__MPSC_IDLE_POLLS polls, or once stopped, the
 * reader loads prod_pos to tell which (C1).  Returns 0, the bytes
 * reserved beyond the tail, or an error for a hostile prod_pos.
 */
int64_t pfr__mpsc_begin_slow(struct pfr_mpsc_reader *r)
{
	uint64_t h;
	int err;

	r->head = r->tail;
	if (r->stall_pos != r->tail && ++r->idle % PFR__MPSC_IDLE_POLLS)
		return 0;
	/* Relaxed: nothing is read on the strength of this value.  The
	 * header at the tail is loaded with its own acquire (C2), and the
	 * announcements are loaded by pfr__mpsc_hole() after its own load
	 * of prod_pos (C1).  Nor can it be below the tail: the tail passed
	 * only headers stored (B, H) after their reservation's CAS, which
	 * therefore happens before this load (coherence), or holes
	 * bounded by a prod_pos this thread loaded before. */
	h = PFR_READ_ONCE(r->ctl->prod_pos);
	err = pfr__head_check(h, r->tail, r->mask + 1);
	if (err)
		return err;
	/* Reserved but not written: stop here now, so that every later
	 * poll (begin's and next's) loads prod_pos.  Without it a reader
	 * that calls begin() and next() in turn, with begin() on the
	 * 64th idle poll each time, saw the bytes in begin() while next()
	 * got 0 from the idle count and never reached pfr__mpsc_hole():
	 * no stall report, and a dead producer's hole never skipped. */
	if (h != r->tail)
		pfr__mpsc_stop(r);
	else if (r->published == r->tail)
		pfr__mpsc_sweep(r, 0); /* its LOST records: at the next poll */
	return (int64_t)(h - r->tail);
}

/* A LOST record read at pos: its count is reported (the slot's
 * lost_reported, which the slot's next owner reads once the reader has
 * passed).  A batch is read again after its reader's death (at least
 * once: the new reader resumes at cons_pos), LOST records included; each
 * counts once, by lost_upto, stored before the count (a reader killed
 * between the two stores leaves one record uncounted: its drops are then
 * reported again by the slot's next owner, never a negative count).
 * Without it the twice-counted drops made lost_due - lost_reported
 * negative: the next owner's LOST record said 2^64 - n. */
static void pfr__mpsc_reported(struct pfr_mpsc_reader *r, uint64_t pos,
			       const struct pfr_record_header *h,
			       const unsigned char *payload)
{
	struct pfr_mpsc_ctl *c = r->ctl;
	struct pfr_mpsc_slot *s;
	uint64_t lost;

	if (h->misc >= r->max_producers ||
	    (int64_t)(pos - PFR_READ_ONCE(c->lost_upto)) < 0)
		return;
	s = &r->m->table[h->misc];
	memcpy(&lost, payload + 8, sizeof(lost));
	PFR_WRITE_ONCE(c->lost_upto, pos + h->size);
	PFR_WRITE_ONCE(s->lost_reported,
		       PFR_READ_ONCE(s->lost_reported) + lost);
}

int pfr__mpsc_next_slow(struct pfr_mpsc_reader *r, struct pfr_record *rec)
{
	for (;;) {
		uint64_t off = r->tail & r->mask, room = r->mask + 1 - off;
		uint64_t left = r->mask + 1 - (r->tail - r->published);
		struct pfr_record_header h;
		uint64_t raw;
		int64_t reserved;
		int rc;

		memset(rec, 0, sizeof(*rec));
		if (!left)
			return 0; /* a whole lap read: pfr_mpsc_end() first */
		raw = pfr__mpsc_load_hdr(r, off); /* C2 */
		if (!raw) {
			reserved = pfr__mpsc_begin_slow(r);
			if (reserved <= 0)
				return (int)reserved;
			rc = pfr__mpsc_hole(r);
			if (rc == 1)
				continue;
			return rc;
		}
		memcpy(&h, &raw, sizeof(h));
		if (r->stall_pos == r->tail &&
		    (h.type & PFR_MPSC_BUSY) != PFR_MPSC_BUSY)
			pfr__mpsc_unstall(r);
		if (h.size == 0)
			return -PFR_E_RECSIZE_ZERO;
		if (h.size & 7)
			return -PFR_E_RECSIZE_ALIGN;
		/* records never straddle the end of this ring */
		if (h.size > left || h.size > room)
			return -PFR_E_RECSIZE_PAST_HEAD;
		if ((h.type & PFR_MPSC_BUSY) == PFR_MPSC_BUSY) {
			rc = pfr__mpsc_busy(r, &h);
			if (rc == 1)
				continue;
			return rc;
		}
		if (h.type == PFR_RECORD_PAD) {
			r->tail += h.size;
			continue;
		}
		if (h.type == PFR_RECORD_DISCARD) {
			r->discarded++;
			r->tail += h.size;
			continue;
		}
		if (h.type == PFR_RECORD_LOST) {
			if (h.size < sizeof(struct pfr_lost_record))
				return -PFR_E_RECSIZE_SHORT;
			pfr__mpsc_reported(r, r->tail, &h, r->data + off + 8);
		}
		rec->hdr = h;
		rec->payload = r->data + off + sizeof(h);
		rec->len = h.size - (uint32_t)sizeof(h);
		rec->pos = r->tail;
		r->tail += h.size;
		r->records++;
		return 1;
	}
}

void pfr_mpsc_set_wakeup(struct pfr_mpsc_reader *r, uint32_t bytes,
			 uint32_t records)
{
	if (!r || !r->ctl)
		return;
	if (bytes > (r->mask + 1) / 2)
		bytes = (uint32_t)((r->mask + 1) / 2);
	PFR_WRITE_ONCE(r->ctl->wake_bytes, bytes);
	PFR_WRITE_ONCE(r->ctl->wake_records, records);
}

/*
 * pfr_mpsc_wait()'s condition: > 0 (bytes) when a record at the tail is
 * written (not BUSY) and the thresholds are met, 0 when not yet, < 0 for
 * an error (a hostile position or header, or a stall past its time-out).
 * Records of dead producers are skipped (and the skip published).
 */
static int64_t pfr__mpsc_ready(struct pfr_mpsc_reader *r, uint64_t mark,
			       uint32_t wb, uint32_t wr)
{
	for (;;) {
		/* relaxed, as in pfr__mpsc_begin_slow() */
		uint64_t prod = PFR_READ_ONCE(r->ctl->prod_pos);
		int err = pfr__head_check(prod, r->tail, r->mask + 1);
		int64_t avail = (int64_t)(prod - r->tail);
		struct pfr_record_header h;
		uint64_t raw;
		int rc;

		if (err)
			return err;
		if (avail <= 0)
			return 0;
		raw = pfr__mpsc_load_hdr(r, r->tail & r->mask); /* C2 */
		memcpy(&h, &raw, sizeof(h));
		if (!raw) {
			rc = pfr__mpsc_hole(r);
		} else if ((h.type & PFR_MPSC_BUSY) != PFR_MPSC_BUSY ||
			   h.size == 0 || (h.size & 7) ||
			   h.size > (uint64_t)avail) {
			return pfr__wake_met((uint64_t)avail,
					     PFR_READ_ONCE(r->ctl->records) -
						     mark,
					     wb, wr)
				       ? avail
				       : 0;
		} else {
			rc = pfr__mpsc_busy(r, &h);
		}
		if (rc == 0)
			return 0;
		if (rc < 0)
			return rc;
		pfr_mpsc_end(r); /* a dead producer's record skipped */
	}
}

int64_t pfr_mpsc_wait(struct pfr_mpsc_reader *r, uint64_t timeout_ns)
{
	struct pfr_mpsc_ctl *c = r ? r->ctl : NULL;
	uint64_t deadline, now, mark, sleep;
	uint32_t wb, wr;
	int64_t rc;

	if (!r || !c || !r->m || !(r->m->flags & PFR_MPSC_WAIT))
		return -PFR_E_INVAL; /* NULL, zeroed, or after reader_close */
	pfr_mpsc_end(r);
	wb = pfr__mpsc_clamp_wb(PFR_READ_ONCE(c->wake_bytes), r->mask);
	wr = PFR_READ_ONCE(c->wake_records);
	mark = PFR_READ_ONCE(c->records);
	deadline = pfr__deadline(pfr__mpsc_now(), timeout_ns);
	for (;;) {
		rc = pfr__mpsc_ready(r, mark, wb, wr);
		if (rc)
			return rc;
		PFR_WRITE_ONCE(c->wake_mark, mark);
		PFR_WRITE_ONCE(c->reader_waiting, 1);
		/* purpose: store-buffering hand-shake; pairs with smp_mb()
		 * in pfr__mpsc_finish(): reader_waiting store before the
		 * header and prod_pos loads (litmus/mpsc-wake-commit.litmus) */
		pfr_smp_mb();
		rc = pfr__mpsc_ready(r, mark, wb, wr);
		if (rc) {
			PFR_WRITE_ONCE(c->reader_waiting, 0);
			return rc;
		}
		now = pfr__mpsc_now();
		if (now >= deadline) {
			PFR_WRITE_ONCE(c->reader_waiting, 0);
			return -PFR_E_TIMEDOUT;
		}
		sleep = deadline - now;
		if (r->stall_pos == r->tail) {
			/* stopped at a BUSY record: wake for its time-out */
			uint64_t due = r->stall_start + r->stall_timeout;
			uint64_t w = due > now ? due - now : 0;

			w += PFR__MPSC_CHECK_NS;
			if (w < sleep)
				sleep = w;
		}
		pfr__futex_wait(&c->reader_waiting, 1, sleep);
	}
}

void pfr_mpsc_lost_counts(const struct pfr_mpsc *m, uint64_t *reported,
			  uint64_t *pending)
{
	uint64_t rep = 0, pend = 0;

	for (uint32_t i = 0; m && i < m->max_producers; i++) {
		uint64_t r = PFR_READ_ONCE(m->table[i].lost_reported);
		uint64_t due = PFR_READ_ONCE(m->table[i].lost_due);

		rep += r;
		/* loaded apart: a drop counted between the loads shows
		 * late, never as a negative count */
		if ((int64_t)(due - r) > 0)
			pend += due - r;
	}
	if (reported)
		*reported = rep;
	if (pending)
		*pending = pend;
}

void pfr_mpsc_stats(const struct pfr_mpsc *m, const struct pfr_mpsc_reader *r,
		    struct pfr_mpsc_stats *st)
{
	const struct pfr_mpsc_ctl *c;

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	if (!m)
		return;
	c = m->ctl;
	st->prod_pos = PFR_READ_ONCE(c->prod_pos);
	st->cons_pos = PFR_READ_ONCE(c->cons_pos);
	st->data_size = m->data_size;
	st->records_reserved = PFR_READ_ONCE(c->records);
	for (uint32_t i = 0; i < m->max_producers; i++)
		st->lost_total += PFR_READ_ONCE(m->table[i].lost_total);
	if (!r)
		return;
	st->records_read = r->records;
	st->busy_stops = r->busy_stops;
	st->stalls = r->stalls;
	st->stall_ns = r->stall_ns;
	st->stall_max_ns = r->stall_max_ns;
	st->dead_skipped = r->dead_skipped;
	st->discarded = r->discarded;
}
