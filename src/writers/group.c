/* SPDX-License-Identifier: MIT */
/*
 * Groups (<perfring/group.h>): one perfring ring per writer in one shared
 * object, a slot directory, and one reader for all.
 *
 * Object layout (every offset page-aligned but the header's lines):
 *
 *   0                 struct pfr__ghdr: line 0 immutable, line 1 the
 *                     reader's (the group sleep word), line 2 the
 *                     joiners' (the change counter)
 *   dir_off           nslots x struct pfr__gent (64 bytes each)
 *   rings_off + i*stride
 *                     slot i's struct pfr_ring_ctl, its data area at
 *                     + data_off (one page)
 *
 * The slot hand-over (the orderings J, P, L, F and S of group.h):
 *
 *        JOINER                    LEAVER                READER
 *   CAS word FREE->CLAIMING   publish head (B)        w = load_acquire(word) (S)
 *     (J, full barrier)       store_release(word,     if ACTIVE/CLOSING: read
 *   reset ring, identity        CLOSING) (L)            the ring (C ... D)
 *   store_release(word,                               if CLOSING or dead: drain
 *     ACTIVE) (P)                                       to the head loaded after
 *                                                       S, then
 *                                                     store_release(word, FREE) (F)
 *
 * P pairs with S: the reader that sees ACTIVE sees the reset ring and the
 * owner's identity (message passing).  L pairs with S: the reader that
 * sees CLOSING sees the last head (message passing).  F pairs with J: the
 * reader's last loads of the old owner's records happen before the new
 * owner's reset and writes (load buffering: without F's release or J's
 * acquire the joiner could overwrite a record the reader is still
 * reading).
 *
 * The sleep hand-shake is the store-buffering shape twice: the reader
 * stores the ring marks and the group word, smp_mb(), loads heads and the
 * change counter; a writer stores head, smp_mb() (pfr_writer_publish()),
 * loads its ring's mark; a joiner or leaver bumps the change counter,
 * smp_mb(), loads the group word.  Either side sees the other.
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

#include <perfring/group.h>
#include <perfring/merge.h>

#include "ring/compiler.h"
#include "ring/futex_int.h"
#include "ring/wakefd_int.h"
#include "writers/group_int.h"
#include "abi/compat.h"
#include "ring/opts.h"
#include "ring/shm_int.h"
#include "ring/task_int.h"

#define PFR__GROUP_MAGIC 0x3130505247524650ull /* "PFRGRP01" */
#define PFR__GROUP_VERSION 1u
#define PFR__PAGE 4096ull
#define PFR__GDATA_MIN 4096ull
#define PFR__GDATA_MAX (1ull << 30)
#define PFR__PID_MAX PFR__TASK_ID_MAX

/* Slot states (low 8 bits of the word); then the generation (24 bits,
 * bumped by each claim) and the owner's pid (high 32 bits). */
enum { S_FREE = 0, S_CLAIMING = 1, S_ACTIVE = 2, S_CLOSING = 3 };
#define W_STATE(w) ((uint32_t)((w)&0xff))
#define W_GEN(w) ((uint32_t)(((w) >> 8) & 0xffffff))
#define W_PID(w) ((uint32_t)((w) >> 32))
#define W_MAKE(s, gen, pid)                                                    \
	((uint64_t)(s) | ((uint64_t)((gen)&0xffffff) << 8) |                   \
	 ((uint64_t)(pid) << 32))

struct pfr__ghdr {
	/* line 0: immutable after creation */
	uint64_t magic;
	uint32_t version;
	uint32_t hdr_size;
	uint32_t nslots;
	uint32_t entry_size;
	uint64_t dir_off;
	uint64_t rings_off;
	uint64_t stride; /* bytes per slot ring: data_off + data_size */
	uint64_t data_off; /* a ring's data area, from its control block */
	uint64_t data_size;
	uint64_t total_size;
	uint32_t policy;
	uint32_t ordering;
	uint32_t flags;
	uint32_t pad;
	uint8_t pad0[128 - 88];
	/* line 1: the reader's */
	uint32_t sleep; /* futex: 0 awake, 1 asleep, 2 armed for poll */
	uint32_t reader_pid; /* 0: no reader */
	uint64_t reader_start; /* its start time (clock ticks) */
	uint8_t pad1[128 - 16];
	/* line 2: joiners' and leavers' */
	uint64_t changes; /* bumped after every join and leave */
	uint32_t hint; /* slots [0, hint) have been claimed, ever */
	uint8_t pad2[128 - 12];
};

struct pfr__gent {
	uint64_t word; /* state | gen << 8 | pid << 32 */
	uint64_t start; /* the owner's start time (clock ticks since boot) */
	uint64_t tag; /* the owner's tag */
	uint32_t tid; /* the thread that joined (information) */
	uint8_t pad[64 - 28];
};

_Static_assert(sizeof(struct pfr__ghdr) == 3 * 128, "three lines");
_Static_assert(offsetof(struct pfr__ghdr, sleep) == 128, "line 1");
_Static_assert(offsetof(struct pfr__ghdr, changes) == 256, "line 2");
_Static_assert(sizeof(struct pfr__gent) == 64, "one line per slot");
PFR__SHM_HEAD_OF(struct pfr__ghdr, hdr_size);

/* The reader's private view of a slot. */
struct pfr__rslot {
	uint64_t word; /* the word as the reader last saw it */
	uint64_t tag;
	uint64_t start;
	uint64_t last_time; /* ordered: the newest time taken from it */
	struct pfr_reader r;
	uint8_t open; /* held by the reader (ACTIVE or CLOSING seen) */
	uint8_t closing; /* CLOSING seen: drain, then free */
	uint8_t dead; /* owner dead: drain, then reclaim */
	uint8_t drained; /* closing or dead, drained: free once delivered */
	uint8_t bad; /* hostile: ignored */
	uint64_t open_pass; /* the scan pass that opened it (pfr__fresh()) */
};

struct pfr_group {
	struct pfr__ghdr *h;
	unsigned char *base;
	size_t map_len;
	int fd, efd;
	struct pfr__waker wk; /* its wake-up, registered (wakefd_int.h) */
	/* validated copies of line 0 */
	uint32_t nslots, policy, ordering, flags;
	uint64_t dir_off, rings_off, stride, data_off, data_size, max_record;
	/* the reader */
	int reader, ordered;
	pfr_group_time_fn time_fn;
	void *time_arg;
	struct pfr__rslot *rs;
	uint32_t *act, nact; /* slots the reader holds open */
	uint32_t rr; /* round-robin start */
	uint64_t seen_changes;
	uint64_t passes; /* directory passes completed */
	int rescan; /* slots opened in a scan's last pass: scan again */
	int lasts; /* a held slot may be closing or dead, not drained */
	uint64_t reclaim_ns, last_check;
	unsigned char *scratch;
	struct pfr_merge *merge;
	uint64_t queue_max; /* the merge's cap; ~0: the default */
	int queue_full; /* a push refused in this drain: readers stopped */
	struct pfr_group_stats st;
	int pending_err; /* a hostile slot's error, reported once */
	/* The callback stop rule (docs/api.md): fn returned a positive
	 * value, which stopped the call after that record; the call then
	 * returns the records it delivered (cb_base: st.records at its
	 * start).  cb_legacy: a 0.2 caller's call, where positive values
	 * act as 0 (pfr__group_legacy_fn()). */
	int cb_stop;
	uint64_t cb_base;
};

/* What pfr__deliver() returns when fn stopped the call with a positive
 * value: a negative value the layers beneath pass up as they pass fn's
 * own negative return (g->cb_stop tells the two apart). */
#define PFR__GROUP_STOP (-0x40000000)

/* ---- helpers ---- */

static struct pfr__gent *pfr__ent(const struct pfr_group *g, uint32_t i)
{
	return (struct pfr__gent *)(g->base + g->dir_off) + i;
}

static struct pfr_ring_ctl *pfr__ctl(const struct pfr_group *g, uint32_t i)
{
	return (struct pfr_ring_ctl *)(g->base + g->rings_off +
				       (uint64_t)i * g->stride);
}

static unsigned char *pfr__data(const struct pfr_group *g, uint32_t i)
{
	return (unsigned char *)pfr__ctl(g, i) + g->data_off;
}

/* 1 while the process (pid, start) may still write: its pid names a live
 * process with that start time (a reused pid has another one). */
static int pfr__alive(uint32_t pid, uint64_t start)
{
	if (!pid || pid >= PFR__PID_MAX)
		return 0;
	return !pfr__task_dead(pid, PFR__TASK_PROCESS, start);
}

/* This process's start time (0: no /proc), the same in all its threads. */
static uint64_t pfr__self_start(void)
{
	static __thread uint64_t cached;
	static __thread pid_t cached_pid;
	pid_t me = getpid();

	/* per process: a forked child has its own; a failed look (out of
	 * file descriptors: 0) is not kept, the next call tries again */
	if (cached_pid != me || !cached) {
		if (pfr__task_check((uint32_t)me, PFR__TASK_PROCESS, &cached))
			cached = 0;
		cached_pid = me;
	}
	return cached;
}

/* ---- the writers' wake path ---- */

/*
 * A writer's out-of-line wake path in src/ring/ring.c finds the group that
 * holds its ring by the ring's address among the wakers this process
 * registered (src/ring/wakefd_int.h, shared with the single ring's
 * eventfd): the group's sleep word and eventfd, for the range of its rings.
 */
static void pfr__wake_group(struct pfr_group *g)
{
	pfr__waker_wake(&g->h->sleep, g->efd);
}

/* Registers the group's waker (after g->base, map_len and efd are set). */
static int pfr__greg_add(struct pfr_group *g)
{
	g->wk.lo = g->base + g->rings_off;
	g->wk.hi = g->base + g->map_len;
	g->wk.word = &g->h->sleep;
	g->wk.efd = g->efd;
	return pfr__waker_add(&g->wk);
}

static void pfr__greg_del(struct pfr_group *g)
{
	pfr__waker_del(&g->wk);
}

/* ---- creation and attachment ---- */

static int pfr__check_gopts(const struct pfr_group_opts *o, uint32_t *slots,
			    uint64_t *size)
{
	*slots = o->slots ? o->slots : 64;
	*size = o->data_size ? o->data_size : 65536;
	if (*slots > PFR_GROUP_SLOTS_MAX || *size < PFR__GDATA_MIN ||
	    *size > PFR__GDATA_MAX || (*size & (*size - 1)) ||
	    (o->policy != PFR_POLICY_DROP && o->policy != PFR_POLICY_BLOCK) ||
	    (unsigned)o->ordering >= PFR_ORDER__COUNT ||
	    (o->flags & ~(PFR_GROUP_WAIT | PFR_GROUP_EVENTFD)))
		return -PFR_E_INVAL;
	return 0;
}

static uint64_t pfr__round_page(uint64_t v)
{
	return (v + PFR__PAGE - 1) & ~(PFR__PAGE - 1);
}

/* Copies the validated line-0 values into the handle. */
static void pfr__fill(struct pfr_group *g, const struct pfr__ghdr *v)
{
	g->nslots = v->nslots;
	g->policy = v->policy;
	g->ordering = v->ordering;
	g->flags = v->flags;
	g->dir_off = v->dir_off;
	g->rings_off = v->rings_off;
	g->stride = v->stride;
	g->data_off = v->data_off;
	g->data_size = v->data_size;
	g->max_record = pfr__ring_max_record(v->data_size);
}

static uint32_t pfr__ring_flags(const struct pfr_group *g)
{
	return g->flags & (PFR_GROUP_WAIT | PFR_GROUP_EVENTFD) ? PFR_RING_WAIT
							       : 0;
}

/* Writes slot i's control block as a fresh ring (creation, and a join's
 * reset): positions at 0, counters cleared, lost_id the slot and gen. */
static void pfr__ring_reset(struct pfr_group *g, uint32_t i, uint32_t gen)
{
	struct pfr_ring_ctl *c = pfr__ctl(g, i);

	memset(c, 0, sizeof(*c));
	c->magic = PFR_RING_MAGIC;
	c->version = PFR_RING_VERSION;
	c->ctl_size = sizeof(*c);
	c->data_offset = g->data_off;
	c->data_size = g->data_size;
	c->policy = g->policy;
	c->ordering = g->ordering;
	c->flags = pfr__ring_flags(g);
	c->max_record = (uint32_t)g->max_record;
	c->lost_id = ((uint64_t)gen << 32) | i;
}

static int pfr__group_new(struct pfr_group **gp, int fd,
			  const struct pfr_group_opts *o)
{
	struct pfr__ghdr v;
	struct pfr_group *g;
	uint32_t slots;
	uint64_t size, total;
	void *p;
	int err = pfr__check_gopts(o, &slots, &size);

	if (err)
		return err;
	memset(&v, 0, sizeof(v));
	v.nslots = slots;
	v.data_size = size;
	v.data_off = PFR__PAGE;
	v.stride = PFR__PAGE + size;
	v.dir_off = PFR__PAGE;
	v.rings_off = PFR__PAGE + pfr__round_page((uint64_t)slots *
						  sizeof(struct pfr__gent));
	total = v.rings_off + (uint64_t)slots * v.stride;
	if (total > (uint64_t)SIZE_MAX)
		return -PFR_E_INVAL;
	v.total_size = total;
	v.policy = o->policy;
	v.ordering = o->ordering;
	v.flags = o->flags & PFR_GROUP_EVENTFD ? o->flags | PFR_GROUP_WAIT
					       : o->flags;
	g = calloc(1, sizeof(*g));
	p = g ? pfr__shm_alloc(fd, total) : NULL;
	if (!p)
		goto fail;
	g->fd = fd;
	g->efd = -1;
	g->base = p;
	g->h = p;
	g->map_len = total;
	pfr__fill(g, &v);
	if (v.flags & PFR_GROUP_EVENTFD) {
		g->efd = pfr__eventfd_new();
		if (g->efd < 0)
			goto fail_unmap;
	}
	for (uint32_t i = 0; i < slots; i++)
		pfr__ring_reset(g, i, 0);
	v.magic = 0;
	v.version = PFR__GROUP_VERSION;
	v.hdr_size = sizeof(v);
	v.entry_size = sizeof(struct pfr__gent);
	memcpy(g->h, &v, sizeof(v));
	/* purpose: publish the initialised object before the magic that
	 * tells an attaching process it is complete; pairs with the
	 * attacher's smp_rmb() after loading magic in pfr__shm_peek() */
	pfr_smp_wmb();
	PFR_WRITE_ONCE(g->h->magic, PFR__GROUP_MAGIC);
	if (pfr__greg_add(g))
		goto fail_unmap;
	*gp = g;
	return 0;
fail_unmap:
	err = errno;
	if (g->efd >= 0)
		close(g->efd);
	munmap(g->base, total);
	errno = err;
fail:
	free(g);
	return -PFR_E_SYSTEM;
}

int pfr_group_create(struct pfr_group **g, const struct pfr_group_opts *opts)
{
	struct pfr_group_opts o;

	if (!g || PFR__OPTS_COPY(&o, opts, GROUP_OPTS))
		return -PFR_E_INVAL;
	return pfr__group_new(g, -1, &o);
}

/* The group of pfr_group_create_shm() (the object `name`) and of
 * pfr_group_create_memfd() (memfd_name not NULL: a memfd, sealed). */
static int pfr__group_create_fd(struct pfr_group **g, const char *name,
				const char *memfd_name,
				const struct pfr_group_opts *opts)
{
	struct pfr_group_opts o;
	uint32_t s;
	uint64_t z;
	int err, fd;

	if (!g || PFR__OPTS_COPY(&o, opts, GROUP_OPTS))
		return -PFR_E_INVAL;
	err = pfr__check_gopts(&o, &s, &z);
	fd = err ? err : pfr__shm_create(name, o.mode, memfd_name);
	if (fd < 0)
		return fd;
	err = pfr__shm_done(pfr__group_new(g, fd, &o), fd, name);
	if (!err && memfd_name)
		(void)pfr__shm_seal(fd);
	return err;
}

int pfr_group_create_shm(struct pfr_group **g, const char *name,
			 const struct pfr_group_opts *opts)
{
	return pfr__group_create_fd(g, name, NULL, opts);
}

int pfr_group_create_memfd(struct pfr_group **g,
			   const struct pfr_group_opts *opts)
{
	return pfr__group_create_fd(g, NULL, "perfring-group", opts);
}

/*
 * Validates a group's header before trusting any of it: every field loaded
 * once into a private copy, which is all this process uses afterwards.
 */
static int pfr__group_map_max(struct pfr_group **gp, int fd, int efd,
			      uint64_t data_max)
{
	struct pfr__shm_peek pk = {.hdr_len = sizeof(struct pfr__ghdr),
				   .magic = PFR__GROUP_MAGIC,
				   .version = PFR__GROUP_VERSION};
	struct pfr__ghdr v, *c;
	struct pfr_group *g;
	uint64_t rings_min;
	void *p;
	int err = pfr__shm_peek(fd, &pk);

	if (err)
		return err;
	c = pk.hdr;
	v.hdr_size = pk.hdr_size;
	v.nslots = PFR_READ_ONCE(c->nslots);
	v.entry_size = PFR_READ_ONCE(c->entry_size);
	v.dir_off = PFR_READ_ONCE(c->dir_off);
	v.rings_off = PFR_READ_ONCE(c->rings_off);
	v.stride = PFR_READ_ONCE(c->stride);
	v.data_off = PFR_READ_ONCE(c->data_off);
	v.data_size = PFR_READ_ONCE(c->data_size);
	v.total_size = PFR_READ_ONCE(c->total_size);
	v.policy = PFR_READ_ONCE(c->policy);
	v.ordering = PFR_READ_ONCE(c->ordering);
	v.flags = PFR_READ_ONCE(c->flags);
	munmap(c, sizeof(v));

	rings_min = PFR__PAGE + pfr__round_page((uint64_t)v.nslots *
						sizeof(struct pfr__gent));
	if (v.hdr_size != sizeof(v) ||
	    v.entry_size != sizeof(struct pfr__gent) || !v.nslots ||
	    v.nslots > PFR_GROUP_SLOTS_MAX || v.dir_off != PFR__PAGE ||
	    v.rings_off != rings_min || v.data_off != PFR__PAGE ||
	    v.data_size < PFR__GDATA_MIN || v.data_size > PFR__GDATA_MAX ||
	    (v.data_size & (v.data_size - 1)) ||
	    v.stride != v.data_off + v.data_size ||
	    v.total_size != v.rings_off + (uint64_t)v.nslots * v.stride ||
	    (v.policy != PFR_POLICY_DROP && v.policy != PFR_POLICY_BLOCK) ||
	    v.ordering >= PFR_ORDER__COUNT ||
	    (v.flags & ~(PFR_GROUP_WAIT | PFR_GROUP_EVENTFD)) ||
	    ((v.flags & PFR_GROUP_EVENTFD) && !(v.flags & PFR_GROUP_WAIT)))
		return -PFR_E_LAYOUT;
	if (pk.file_size < v.total_size)
		return -PFR_E_MAPPING;
	if ((uint64_t)v.nslots * v.data_size > data_max)
		return -PFR_E_TOOBIG;
	g = calloc(1, sizeof(*g));
	p = g ? pfr__shm_map(fd, v.total_size) : NULL;
	if (!p) {
		free(g);
		return -PFR_E_SYSTEM;
	}
	g->base = p;
	g->h = p;
	g->map_len = v.total_size;
	g->fd = fd;
	g->efd = efd;
	pfr__fill(g, &v);
	if (pfr__greg_add(g)) {
		munmap(p, v.total_size);
		free(g);
		return -PFR_E_SYSTEM;
	}
	*gp = g;
	return 0;
}

/* Without a limit (the models attach through it). */
static __attribute__((unused)) int pfr__group_map(struct pfr_group **gp, int fd,
						  int efd)
{
	return pfr__group_map_max(gp, fd, efd, UINT64_MAX);
}

static int pfr__group_attach_fd(struct pfr_group **g, int fd, int eventfd,
				uint64_t data_max)
{
	int dfd, defd = -1, err;

	if (!g || (eventfd >= 0 && !pfr__is_eventfd(eventfd)))
		return -PFR_E_INVAL;
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -PFR_E_SYSTEM;
	if (eventfd >= 0) {
		defd = fcntl(eventfd, F_DUPFD_CLOEXEC, 0);
		if (defd < 0) {
			close(dfd);
			return -PFR_E_SYSTEM;
		}
	}
	err = pfr__group_map_max(g, dfd, defd, data_max);
	if (err) {
		int e = errno; /* the cause, for the caller */

		close(dfd);
		if (defd >= 0)
			close(defd);
		errno = e;
	}
	return err;
}

int pfr_group_attach_fd(struct pfr_group **g, int fd, int eventfd)
{
	return pfr__group_attach_fd(g, fd, eventfd, UINT64_MAX);
}

int pfr_group_attach_fd_opts(struct pfr_group **g, int fd, int eventfd,
			     const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int err = pfr__attach_limit(opts, &max);

	return err ? err : pfr__group_attach_fd(g, fd, eventfd, max);
}

static int pfr__group_attach_shm(struct pfr_group **g, const char *name,
				 uint64_t data_max)
{
	int fd;

	if (!g)
		return -PFR_E_INVAL;
	fd = pfr__shm_open(name, 0, 0);
	if (fd < 0)
		return fd;
	return pfr__shm_done(pfr__group_map_max(g, fd, -1, data_max), fd, NULL);
}

int pfr_group_attach_shm(struct pfr_group **g, const char *name)
{
	return pfr__group_attach_shm(g, name, UINT64_MAX);
}

int pfr_group_attach_shm_opts(struct pfr_group **g, const char *name,
			      const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int err = pfr__attach_limit(opts, &max);

	return err ? err : pfr__group_attach_shm(g, name, max);
}

void pfr_group_close(struct pfr_group *g)
{
	if (!g)
		return;
	if (g->reader)
		pfr_group_reader_close(g);
	pfr__greg_del(g);
	munmap(g->base, g->map_len);
	if (g->fd >= 0)
		close(g->fd);
	if (g->efd >= 0)
		close(g->efd);
	free(g);
}

int pfr_group_unlink(const char *name)
{
	return pfr__shm_unlink(name);
}

int pfr_group_fd(const struct pfr_group *g)
{
	return g ? g->fd : -PFR_E_INVAL;
}

int pfr_group_eventfd(const struct pfr_group *g)
{
	return g ? g->efd : -PFR_E_INVAL;
}

uint32_t pfr_group_slots(const struct pfr_group *g)
{
	return g ? g->nslots : 0;
}

/* ---- writers ---- */

/* Wakes a reader asleep on the group after a join or a leave: the change
 * counter is bumped (the reader rescans), then the sleep word checked. */
static void pfr__announce(struct pfr_group *g)
{
	/* purpose: count the change; the RMW is a full barrier */
	__atomic_fetch_add(&g->h->changes, 1, __ATOMIC_SEQ_CST);
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr__arm(): the changes store before the sleep load
	 * (litmus/group-wake-mb.litmus; under the LKMM the RMW above
	 * orders it already, under C11 it does not) */
	pfr_smp_mb();
	if (PFR_READ_ONCE(g->h->sleep))
		pfr__wake_group(g);
}

int pfr_group_join(struct pfr_group *g, struct pfr_writer *w, uint64_t tag)
{
	uint32_t me = (uint32_t)getpid();
	uint64_t start = pfr__self_start();

	if (!g || !w)
		return -PFR_E_INVAL;
	if (!start || me >= PFR__PID_MAX)
		return -PFR_E_SYSTEM; /* no /proc: no identity */
	for (uint32_t i = 0; i < g->nslots; i++) {
		struct pfr__gent *e = pfr__ent(g, i);
		uint64_t old = PFR_READ_ONCE(e->word), want;
		uint32_t gen, hint;
		int err;

		if (W_STATE(old) != S_FREE)
			continue;
		gen = W_GEN(old) + 1;
		want = W_MAKE(S_CLAIMING, gen, me);
		/* J: acquire; pairs with F (the reader's store_release of
		 * FREE in pfr__free_slot()): our reset of the ring comes
		 * after its last read of the previous owner's records.
		 * The CAS is the only correct way to take a slot that
		 * others may take at the same time: it succeeds for one
		 * claimant only, and it writes our pid with the state, so
		 * a claimant killed before ACTIVE is still known by pid.
		 * Without the acquire:
		 * litmus/group-reclaim-free-relaxed-cas.litmus */
		if (!__atomic_compare_exchange_n(
			    &e->word, &old, want, 0,
			    __ATOMIC_ACQ_REL, /* J: pairs with F */
			    __ATOMIC_RELAXED))
			continue;
		pfr__ring_reset(g, i, gen);
		PFR_WRITE_ONCE(e->start, start);
		PFR_WRITE_ONCE(e->tag, tag);
		PFR_WRITE_ONCE(e->tid, (uint32_t)syscall(SYS_gettid));
		err = pfr__writer_open_at(w, pfr__ctl(g, i), pfr__data(g, i),
					  g->data_size, g->policy, g->ordering,
					  pfr__ring_flags(g));
		if (err) {
			/* purpose: give the slot back; pairs with the
			 * acquire CAS (J) of the next claimant */
			__atomic_store_n(&e->word, W_MAKE(S_FREE, gen, 0),
					 __ATOMIC_RELEASE); /* pairs with J */
			return err;
		}
		/* P: pairs with S (load_acquire of the word) in
		 * pfr__scan(): the reset ring and our identity before
		 * ACTIVE; without it:
		 * litmus/group-claim-publish-no-release.litmus */
		pfr_smp_store_release(&e->word, W_MAKE(S_ACTIVE, gen, me));
		hint = PFR_READ_ONCE(g->h->hint);
		/* purpose: raise the scan bound; the announce below is
		 * the full barrier that orders it before the reader's
		 * rescan */
		while (hint < i + 1 &&
		       !__atomic_compare_exchange_n(&g->h->hint, &hint, i + 1,
						    1, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED))
			;
		pfr__announce(g);
		return (int)i;
	}
	return -PFR_E_FULL;
}

/* The slot of a writer of this group (from its own pointer), or -1. */
static int64_t pfr__slot_of(const struct pfr_group *g,
			    const struct pfr_writer *w)
{
	const unsigned char *p = (const unsigned char *)w->ctl;
	uint64_t off;

	if (p < g->base + g->rings_off || p >= g->base + g->map_len)
		return -1;
	off = (uint64_t)(p - (g->base + g->rings_off));
	if (off % g->stride)
		return -1;
	return (int64_t)(off / g->stride);
}

int pfr_group_leave(struct pfr_group *g, struct pfr_writer *w)
{
	int64_t i = g && w ? pfr__slot_of(g, w) : -1;
	struct pfr__gent *e;
	uint64_t word;

	if (i < 0)
		return -PFR_E_INVAL;
	e = pfr__ent(g, (uint32_t)i);
	word = PFR_READ_ONCE(e->word);
	if (W_STATE(word) != S_ACTIVE || W_PID(word) != (uint32_t)getpid())
		return -PFR_E_INVAL;
	/* publishes every record, and a pending LOST record if it fits;
	 * a count that does not fit stays in lost_pending for the reader */
	pfr_writer_flush(w);
	PFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);
	/* L: pairs with S in pfr__scan(): our last head (B) and
	 * lost_pending before CLOSING; without it:
	 * litmus/group-leave-drain-no-release.litmus */
	pfr_smp_store_release(&e->word,
			      W_MAKE(S_CLOSING, W_GEN(word), W_PID(word)));
	pfr__announce(g);
	memset(w, 0, sizeof(*w));
	return 0;
}

int pfr_group_reader_alive(const struct pfr_group *g)
{
	uint32_t pid;
	uint64_t start;

	if (!g)
		return -PFR_E_INVAL;
	pid = PFR_READ_ONCE(g->h->reader_pid);
	start = PFR_READ_ONCE(g->h->reader_start);
	return pid && pfr__alive(pid, start);
}

/* ---- the reader ---- */

/* The merge's cap (pfr_group_set_queue_max(); it stores bytes + 1). */
static uint64_t pfr__queue_max(const struct pfr_group *g)
{
	return g->queue_max ? g->queue_max - 1 : PFR_GROUP_QUEUE_MAX_DEFAULT;
}

/* Frees the reader's slot views, its list of held slots and its scratch
 * record. */
static void pfr__reader_free(struct pfr_group *g)
{
	free(g->rs);
	free(g->act);
	free(g->scratch);
	g->rs = NULL;
	g->act = NULL;
	g->scratch = NULL;
}

int pfr_group_reader_open(struct pfr_group *g, int ordered,
			  pfr_group_time_fn time_fn, void *time_arg)
{
	uint32_t me = (uint32_t)getpid(), pid;
	uint64_t start = pfr__self_start();

	if (!g || g->reader || (ordered != 0 && ordered != 1))
		return -PFR_E_INVAL;
	if (!start)
		return -PFR_E_SYSTEM;
	pid = PFR_READ_ONCE(g->h->reader_pid);
	if (pid && pfr__alive(pid, PFR_READ_ONCE(g->h->reader_start)))
		return -PFR_E_BUSY;
	g->rs = calloc(g->nslots, sizeof(*g->rs));
	g->act = calloc(g->nslots, sizeof(*g->act));
	g->scratch = malloc(PFR_RECORD_MAX + 8);
	if (!g->rs || !g->act || !g->scratch)
		goto fail;
	if (ordered && (pfr_merge_create(&g->merge, g->nslots) ||
			pfr_merge_set_max_bytes(g->merge, pfr__queue_max(g))))
		goto fail;
	for (uint32_t i = 0; ordered && i < g->nslots; i++)
		pfr_merge_close_source(g->merge, i); /* opened when held */
	/* A reader role taken over from a dead reader: the two stores are
	 * not atomic together, and two readers starting at once are the
	 * caller's error (one reader per group). */
	PFR_WRITE_ONCE(g->h->reader_start, start);
	PFR_WRITE_ONCE(g->h->reader_pid, me);
	PFR_WRITE_ONCE(g->h->sleep, 0);
	g->reader = 1;
	g->ordered = ordered;
	g->time_fn = time_fn;
	g->time_arg = time_arg;
	g->nact = 0;
	g->rr = 0;
	g->seen_changes = ~0ull; /* scan at the first drain */
	g->passes = 0;
	g->rescan = 0;
	g->lasts = 0;
	g->reclaim_ns = 100000000ull;
	g->last_check = 0;
	memset(&g->st, 0, sizeof(g->st));
	g->st.slots = g->nslots;
	return 0;
fail:
	pfr__reader_free(g);
	return -PFR_E_SYSTEM;
}

void pfr_group_reader_close(struct pfr_group *g)
{
	if (!g || !g->reader)
		return;
	for (uint32_t k = 0; k < g->nact; k++)
		pfr_reader_end(&g->rs[g->act[k]].r);
	if (PFR_READ_ONCE(g->h->reader_pid) == (uint32_t)getpid())
		PFR_WRITE_ONCE(g->h->reader_pid, 0);
	pfr_merge_destroy(g->merge);
	g->merge = NULL;
	pfr__reader_free(g);
	g->reader = 0;
}

void pfr_group_set_reclaim_interval(struct pfr_group *g, uint64_t ns)
{
	if (g)
		g->reclaim_ns = ns;
}

int pfr_group_set_queue_max(struct pfr_group *g, uint64_t bytes)
{
	if (!g)
		return -PFR_E_INVAL;
	g->queue_max = bytes + 1; /* 0 stays "the default" */
	if (g->merge)
		pfr_merge_set_max_bytes(g->merge, bytes);
	return 0;
}

/* Slot i turns hostile: ignored from now on (a held slot leaves the
 * reader's list at the end of the drain), its error reported once. */
static void pfr__quarantine(struct pfr_group *g, uint32_t i, int err)
{
	struct pfr__rslot *s = &g->rs[i];

	if (s->open && g->merge)
		pfr_merge_close_source(g->merge, i);
	s->bad = 1;
	g->st.bad_slots++;
	if (!g->pending_err)
		g->pending_err = err;
}

/* Validates slot i's identity and ring against the group's own copies and
 * opens the reader's side on it. */
static void pfr__open_slot(struct pfr_group *g, uint32_t i, uint64_t word)
{
	struct pfr__rslot *s = &g->rs[i];
	struct pfr__gent *e = pfr__ent(g, i);
	struct pfr_ring_ctl *c = pfr__ctl(g, i);
	uint64_t start = PFR_READ_ONCE(e->start);

	if (!W_PID(word) || W_PID(word) >= PFR__PID_MAX || !start ||
	    PFR_READ_ONCE(c->magic) != PFR_RING_MAGIC ||
	    PFR_READ_ONCE(c->version) != PFR_RING_VERSION ||
	    PFR_READ_ONCE(c->ctl_size) != sizeof(*c) ||
	    PFR_READ_ONCE(c->data_offset) != g->data_off ||
	    PFR_READ_ONCE(c->data_size) != g->data_size ||
	    PFR_READ_ONCE(c->policy) != g->policy ||
	    PFR_READ_ONCE(c->ordering) != g->ordering ||
	    PFR_READ_ONCE(c->flags) != pfr__ring_flags(g) ||
	    PFR_READ_ONCE(c->max_record) != g->max_record ||
	    pfr_reader_init(&s->r, &c->head, &c->tail, pfr__data(g, i),
			    g->data_size, (enum pfr_ordering)g->ordering,
			    PFR_READER_SKIP_PAD, g->scratch)) {
		pfr__quarantine(g, i, -PFR_E_LAYOUT);
		return;
	}
	s->r.ctl = c;
	if (g->policy == PFR_POLICY_BLOCK)
		s->r.iflags |= PFR__READER_WAKE_WRITER;
	PFR_WRITE_ONCE(c->reader_pid, (uint32_t)getpid());
	s->word = word;
	s->tag = PFR_READ_ONCE(e->tag);
	s->start = start;
	s->last_time = 0;
	s->open = 1;
	s->open_pass = g->passes + 1; /* the pass under way */
	s->closing = W_STATE(word) == S_CLOSING;
	s->dead = s->drained = 0;
	if (s->closing)
		g->lasts = 1;
	g->act[g->nact++] = i;
	g->st.joins_seen++;
	if (g->merge)
		pfr_merge_open_source(g->merge, i, 0);
}

/* One directory entry in a scan: 1 if it opened the slot. */
static uint32_t pfr__scan_slot(struct pfr_group *g, uint32_t i)
{
	struct pfr__rslot *s = &g->rs[i];
	/* S: pairs with P (store_release of ACTIVE) in pfr_group_join()
	 * and with L (store_release of CLOSING) in pfr_group_leave()
	 * (litmus/group-leave-drain.litmus); without it:
	 * litmus/group-claim-publish-no-acquire.litmus */
	uint64_t w = pfr_smp_load_acquire(&pfr__ent(g, i)->word);
	uint32_t st = W_STATE(w);

	if (s->bad)
		return 0;
	if (st > S_CLOSING) {
		pfr__quarantine(g, i, -PFR_E_LAYOUT);
	} else if (!s->open) {
		if (st == S_ACTIVE || st == S_CLOSING) {
			pfr__open_slot(g, i, w);
			return s->open;
		}
	} else if (W_GEN(w) != W_GEN(s->word) || W_PID(w) != W_PID(s->word) ||
		   (st != S_ACTIVE && st != S_CLOSING)) {
		/* only the reader frees a slot it holds */
		pfr__quarantine(g, i, -PFR_E_LAYOUT);
	} else if (st == S_CLOSING && !s->closing) {
		s->closing = 1;
		s->word = w;
		g->lasts = 1;
	}
	return 0;
}

/* Rescans the directory after a join or leave: opens new writers' slots,
 * notes leaves; a hostile entry is quarantined.
 *
 * A writer that leaves one slot and joins another (a thread that joins
 * per task) left before it joined, so a pass over the directory whose
 * loads come after the one that saw the join (S, an acquire) sees the
 * leave; one pass alone can load the old slot before the leave and the
 * new one after the join.  So a slot is not read until a pass after the
 * one that opened it has completed (pfr__fresh()), and the drain takes
 * closing slots to their end before the round (pfr__drain_lasts()):
 * everything a writer wrote before it left comes out before anything it
 * wrote after it joined again.  A scan makes a second pass when its
 * first opened a slot, and no more: slots the second opened wait for the
 * next drain's scan (rescan), so a scan passes over the directory at
 * most twice however fast writers join. */
static void pfr__scan(struct pfr_group *g)
{
	/* S: pairs with the full barrier of the changes RMW in
	 * pfr__announce(), after P or L: a changed count shows the new
	 * states (litmus/group-join-rescan.litmus) */
	uint64_t ch = pfr_smp_load_acquire(&g->h->changes);

	if (ch == g->seen_changes && !g->rescan)
		return;
	g->seen_changes = ch;
	g->rescan = 0;
	for (int pass = 0; pass < 2; pass++) {
		/* loaded again each pass: after the joins the last pass
		 * saw, whose writers raised it first */
		uint32_t hint = PFR_READ_ONCE(g->h->hint), opened = 0;

		if (hint > g->nslots)
			hint = g->nslots; /* hostile hint: scan them all */
		for (uint32_t i = 0; i < hint; i++)
			opened += pfr__scan_slot(g, i);
		g->passes++;
		if (!opened)
			return;
	}
	g->rescan = 1;
}

/* A slot opened in a pass that no later pass has followed yet: not read
 * (pfr__scan()). */
static int pfr__fresh(const struct pfr_group *g, const struct pfr__rslot *s)
{
	return s->open_pass >= g->passes;
}

/* A slot the round's batches take (pfr_group_drain() and the iterator):
 * held, not hostile, not fresh; closing and dead slots are taken to their
 * end by pfr__drain_lasts() before the round. */
static int pfr__in_round(const struct pfr_group *g, const struct pfr__rslot *s)
{
	return !s->bad && !s->drained && !s->closing && !s->dead &&
	       !pfr__fresh(g, s);
}

/* Frees a slot whose word is still w (a dead owner's or claimant's); 1 if
 * it did.  A CAS, not a store: a word that changed meanwhile is left. */
static int pfr__cas_free(uint64_t *p, uint64_t w)
{
	uint64_t n = W_MAKE(S_FREE, W_GEN(w), 0);

	/* F: pairs with J (the acquire CAS) in pfr_group_join(); without
	 * it: litmus/group-reclaim-free-no-release.litmus */
	return __atomic_compare_exchange_n(p, &w, n, 0, __ATOMIC_RELEASE, 0);
}

/* Checks the owners of held slots, and claimants stuck in CLAIMING, for
 * death (pid gone, or reused: another start time). */
static void pfr__check_owners(struct pfr_group *g)
{
	uint32_t hint = PFR_READ_ONCE(g->h->hint);

	for (uint32_t k = 0; k < g->nact; k++) {
		struct pfr__rslot *s = &g->rs[g->act[k]];

		if (!s->closing && !s->dead && !s->bad &&
		    !pfr__alive(W_PID(s->word), s->start)) {
			s->dead = 1;
			g->lasts = 1;
		}
	}
	if (hint > g->nslots)
		hint = g->nslots;
	for (uint32_t i = 0; i < hint; i++) {
		struct pfr__gent *e = pfr__ent(g, i);
		uint64_t w = PFR_READ_ONCE(e->word);

		/* A claimant killed between its CAS and ACTIVE: nothing was
		 * published; the slot goes back to FREE if the pid is gone.
		 * (Its start time may not be written yet: a pid reused
		 * meanwhile keeps the slot until that process ends.) */
		if (W_STATE(w) == S_CLAIMING && !g->rs[i].bad &&
		    (!W_PID(w) || W_PID(w) >= PFR__PID_MAX ||
		     (kill((pid_t)W_PID(w), 0) < 0 && errno == ESRCH)))
			pfr__cas_free(&e->word, w);
	}
}

struct pfr__emit {
	pfr_group_fn fn;
	void *arg;
	struct pfr_group *g;
};

static int pfr__deliver(struct pfr_group *g, pfr_group_fn fn, void *arg,
			const struct pfr_record_header *h, const void *payload,
			uint32_t len, uint32_t slot, uint64_t time)
{
	struct pfr_group_rec r;

	r.hdr = *h;
	r.payload = payload;
	r.len = len;
	r.slot = slot;
	r.tag = g->rs[slot].tag;
	r.time = time;
	g->st.records++;
	if (h->type == PFR_RECORD_LOST && len >= 16) {
		uint64_t n;

		memcpy(&n, (const unsigned char *)payload + 8, 8);
		g->st.lost += n;
	}
	return fn ? fn(arg, &r) : 0;
}

/* fn's return under the stop rule, for the layers beneath the public
 * call: a positive stop as PFR__GROUP_STOP (g->cb_stop set), the rest as
 * it is. */
static int pfr__cb_rc(struct pfr_group *g, int rc)
{
	if (__builtin_expect(rc > 0, 0)) {
		g->cb_stop = 1;
		return PFR__GROUP_STOP;
	}
	return rc;
}

/* The merge's callback.  The slot's tag is still its owner's: an ordered
 * reader frees a slot only after the merge delivered its last record. */
static int pfr__merge_out(void *arg, const struct pfr_merge_rec *mr)
{
	struct pfr__emit *x = arg;

	return pfr__cb_rc(x->g, pfr__deliver(x->g, x->fn, x->arg, mr->hdr,
					     mr->payload, mr->len, mr->source,
					     mr->time));
}

/* One record taken from slot i: to the callback, or into the merge. */
static int pfr__take(struct pfr_group *g, uint32_t i,
		     const struct pfr_record *rec, pfr_group_fn fn, void *arg)
{
	struct pfr__rslot *s = &g->rs[i];
	uint64_t t;

	if (!g->ordered)
		return pfr__deliver(g, fn, arg, &rec->hdr, rec->payload,
				    rec->len, i, 0);
	if (rec->hdr.type == PFR_RECORD_LOST)
		t = s->last_time; /* in place in the writer's order */
	else if (g->time_fn)
		t = g->time_fn(g->time_arg, rec);
	else if (rec->len >= 8)
		memcpy(&t, rec->payload, 8);
	else
		t = 0;
	if (t < s->last_time)
		t = s->last_time;
	s->last_time = t;
	return pfr_merge_push(g->merge, &rec->hdr, rec->payload, rec->len, t,
			      i);
}

/* A closing or dead slot is drained to the end in at most this many
 * batches per call: a process that goes on writing after it left (shared
 * memory is untrusted) must not keep the reader in one call forever. */
#define PFR__LAST_BATCHES 8

/* pfr_reader_consume()'s callback in a drain: one record taken (to fn or
 * into the merge), fn's stop kept. */
struct pfr__take_ctx {
	struct pfr_group *g;
	pfr_group_fn fn;
	void *arg;
	int64_t count; /* records taken */
	uint32_t i;
	int err; /* fn's (or the merge's) negative return */
	int full; /* the merge refused a record: it stays in the ring */
	uint64_t full_pos; /* that record's position */
};

static int pfr__take_cb(void *ctx, const struct pfr_record *rec)
{
	struct pfr__take_ctx *t = ctx;
	int err = pfr__take(t->g, t->i, rec, t->fn, t->arg);

	if (err == -PFR_E_NOSPC && t->g->merge) {
		/* the merge is full: the record stays in the ring, for a
		 * later drain */
		t->full = 1;
		t->full_pos = rec->pos;
		return 1;
	}
	t->count++;
	if (__builtin_expect(err != 0, 0)) {
		t->err = pfr__cb_rc(t->g, err);
		return 1;
	}
	return 0;
}

/* One batch from slot i, through pfr_reader_consume() (one pass over the
 * batch's headers); a closing or dead slot is drained to the end (its
 * head loaded after the state that said so: S) and marked drained, in
 * later calls if it is still being written.
 * Returns the records taken, or fn's (or the merge's) negative return. */
static int64_t pfr__drain_slot(struct pfr_group *g, uint32_t i, pfr_group_fn fn,
			       void *arg)
{
	struct pfr__rslot *s = &g->rs[i];
	struct pfr__take_ctx t = {g, fn, arg, 0, i, 0, 0, 0};
	int64_t avail, got;
	int last = s->closing || s->dead, batches = 0;

	do {
		avail = pfr_reader_begin_unpaced(&s->r);
		if (avail < 0) {
			pfr__quarantine(g, i, (int)avail);
			return t.count;
		}
		got = pfr_reader_consume(&s->r, pfr__take_cb, &t, 0);
		if (t.full) {
			s->r.tail = t.full_pos;
			pfr_reader_end(&s->r);
			g->queue_full = 1;
			return t.count;
		}
		pfr_reader_end(&s->r);
		if (t.err < 0)
			return t.err;
		if (got < 0) {
			pfr__quarantine(g, i, (int)got);
			return t.count;
		}
	} while (last && avail > 0 && ++batches < PFR__LAST_BATCHES);
	if (last && avail > 0)
		return t.count; /* not at its end yet: the next call goes on */
	if (last) {
		struct pfr_ring_ctl *c = pfr__ctl(g, i);
		uint64_t pend = pfr__ring_lost_pending(c);

		if (pend) {
			/* the count the writer could not write out */
			struct pfr_lost_record lr;
			struct pfr_record r2;
			int err;

			memset(&r2, 0, sizeof(r2));
			lr.id = PFR_READ_ONCE(c->lost_id);
			lr.lost = pend;
			r2.hdr.type = PFR_RECORD_LOST;
			r2.hdr.size = sizeof(lr);
			r2.payload = &lr.id;
			r2.len = 16;
			err = pfr__cb_rc(g, pfr__take(g, i, &r2, fn, arg));
			if (err == -PFR_E_NOSPC && g->merge) {
				g->queue_full = 1; /* again next time */
				return t.count;
			}
			if (err < 0)
				return err;
			t.count++;
		}
		s->drained = 1;
		if (g->merge)
			pfr_merge_close_source(g->merge, i);
	}
	return t.count;
}

/* Takes the slots of writers that left or died to their end before the
 * round's batches (pfr__scan()'s promise of a writer's order across a
 * leave and a join).  Returns the records taken, or fn's negative
 * return. */
static int64_t pfr__drain_lasts(struct pfr_group *g, pfr_group_fn fn, void *arg)
{
	int64_t total = 0;
	int left = 0;

	if (!g->lasts)
		return 0;
	for (uint32_t k = 0; k < g->nact && !g->queue_full; k++) {
		struct pfr__rslot *s = &g->rs[g->act[k]];
		int64_t got;

		if (s->bad || s->drained || (!s->closing && !s->dead))
			continue;
		if (pfr__fresh(g, s)) {
			left = 1;
			continue;
		}
		got = pfr__drain_slot(g, g->act[k], fn, arg);
		if (got < 0)
			return got;
		total += got;
		left |= !s->drained && !s->bad;
	}
	g->lasts = left || g->queue_full;
	return total;
}

/* Frees slot i (drained: the writer left or died) and forgets it. */
static void pfr__free_slot(struct pfr_group *g, uint32_t i)
{
	struct pfr__gent *e = pfr__ent(g, i);
	struct pfr__rslot *s = &g->rs[i];
	uint64_t w = s->word;

	if (s->dead) {
		/* F: pairs with J (the acquire CAS) in pfr_group_join();
		 * a CAS, not a store: the word must still be the dead
		 * owner's.  It may have left and then ended before we saw
		 * the leave: CLOSING, of the same owner, is freed too;
		 * anything else is hostile, and left alone. */
		if (pfr__cas_free(&e->word, w)) {
			g->st.reclaimed++;
		} else {
			w = W_MAKE(S_CLOSING, W_GEN(w), W_PID(w));
			if (pfr__cas_free(&e->word, w)) {
				g->st.freed++;
			} else {
				s->bad = 1;
				g->st.bad_slots++;
			}
		}
	} else {
		/* F: pairs with J (the acquire CAS) in pfr_group_join():
		 * our reads of the ring before the next owner's reset;
		 * without it: litmus/group-reclaim-free-no-release.litmus */
		pfr_smp_store_release(&e->word, W_MAKE(S_FREE, W_GEN(w), 0));
		g->st.freed++;
	}
	s->open = 0;
}

/* A drain's start: the directory rescanned, owners checked for death at
 * most every reclaim interval. */
static void pfr__drain_start(struct pfr_group *g)
{
	pfr__scan(g);
	if (g->reclaim_ns != UINT64_MAX) {
		uint64_t now = pfr__now_ns();

		if (!g->reclaim_ns || now - g->last_check >= g->reclaim_ns) {
			g->last_check = now;
			pfr__check_owners(g);
		}
	}
}

/* A drain's end: hostile slots dropped, drained ones freed once their
 * records have all been delivered (ordered: every one up to the slot's
 * last time, the merge's limit); the error of a slot turned hostile,
 * reported once, or 0. */
static int pfr__drain_finish(struct pfr_group *g, uint64_t limit)
{
	uint32_t k;
	int rc;

	for (k = 0; k < g->nact;) {
		uint32_t i = g->act[k];
		struct pfr__rslot *s = &g->rs[i];

		if (s->bad) {
			s->open = 0;
		} else if (s->drained && s->last_time <= limit) {
			pfr__free_slot(g, i);
		} else {
			k++;
			continue;
		}
		g->act[k] = g->act[--g->nact];
	}
	rc = g->pending_err;
	g->pending_err = 0;
	return rc;
}

/* A call that delivers to fn: its start and its result, under the
 * callback stop rule (a positive return of fn stopped it: the records
 * delivered, the stopping one included). */
static void pfr__cb_begin(struct pfr_group *g)
{
	g->cb_stop = 0;
	g->cb_base = g->st.records;
}

static int64_t pfr__cb_end(struct pfr_group *g, int64_t rc)
{
	if (!g->cb_stop)
		return rc;
	g->cb_stop = 0;
	return (int64_t)(g->st.records - g->cb_base);
}

static int64_t pfr__drain(struct pfr_group *g, pfr_group_fn fn, void *arg,
			  uint32_t flags)
{
	int64_t total = 0;
	uint64_t limit = UINT64_MAX;
	uint32_t k, n;
	int rc;

	if (!g || !g->reader || (flags & ~PFR_GROUP_DRAIN_ALL))
		return -PFR_E_INVAL;
	g->queue_full = 0;
	pfr__drain_start(g);
	total = pfr__drain_lasts(g, fn, arg);
	if (total < 0)
		return total; /* fn's own stop */
	if (g->ordered)
		total = 0; /* counted as the merge delivers them */
	/* one batch per ring, round robin: start one slot further each
	 * call */
	n = g->nact;
	for (k = 0; k < n; k++) {
		uint32_t i = g->act[(g->rr + k) % n];
		struct pfr__rslot *s = &g->rs[i];
		int64_t got;

		if (g->queue_full || !pfr__in_round(g, s))
			continue;
		got = pfr__drain_slot(g, i, fn, arg);
		if (got < 0)
			return got; /* fn's own stop */
		if (!g->ordered)
			total += got;
	}
	g->rr = n ? (g->rr + 1) % n : 0;
	if (g->merge) {
		struct pfr__emit x = {fn, arg, g};
		struct pfr_merge_stats ms;
		int64_t got;

		/* A writer that joined after the scan above may have written
		 * records older than some just taken from the other rings;
		 * its source is not in the safe limit yet, so rescan before
		 * the limit is taken: a new slot opens at time 0 and holds
		 * the output back until its records are taken.  The head
		 * loads of the batches above come before the change count
		 * load of the rescan.  R: pairs with the full barrier of the
		 * changes RMW in pfr__announce(), which a joiner executes
		 * before the time of its first record is read
		 * (litmus/group-join-rescan.litmus). */
		pfr_smp_rmb();
		pfr__scan(g);
		if (!(flags & PFR_GROUP_DRAIN_ALL))
			limit = pfr_merge_safe_limit(g->merge);
		got = pfr_merge_flush(g->merge, limit, pfr__merge_out, &x);
		if (got < 0)
			return got;
		total += got;
		pfr_merge_stats(g->merge, &ms);
		g->st.merge_queued = ms.queued;
		g->st.merge_max_queued = ms.max_queued;
		g->st.merge_max_queued_bytes = ms.max_queued_bytes;
	}
	rc = pfr__drain_finish(g, limit);
	if (!rc && g->queue_full && !total)
		rc = -PFR_E_NOSPC; /* stuck at the cap */
	return rc ? rc : total;
}

/* ---- the batched reader: pfr_group_consume()'s iterator ---- */

#define PFR__ITER_NONE UINT32_MAX

int64_t pfr__group_drain_v03(struct pfr_group *g, pfr_group_fn fn, void *arg,
			     uint32_t flags)
{
	if (!g)
		return -PFR_E_INVAL;
	pfr__cb_begin(g);
	return pfr__cb_end(g, pfr__drain(g, fn, arg, flags));
}
PFR__SYMVER_DEFAULT(pfr__group_drain_v03, pfr_group_drain, "PERFRING_0.3");

int pfr__group_iter_begin_v03(struct pfr_group *g, struct pfr_group_iter *it,
			      pfr_group_fn fn, void *arg, uint32_t flags)
{
	int64_t got;

	if (!g || !it || !g->reader || (flags & ~PFR_GROUP_DRAIN_ALL))
		return -PFR_E_INVAL;
	memset(it, 0, sizeof(*it));
	it->fn = fn;
	it->arg = arg;
	it->cur = PFR__ITER_NONE;
	if (g->ordered) {
		/* the time order needs the merge: the whole drain, here */
		got = pfr__group_drain_v03(g, fn, arg, flags);

		it->done = 1;
		if (got < 0)
			return (int)got;
		it->total = got;
		return 0;
	}
	pfr__drain_start(g);
	pfr__cb_begin(g);
	got = pfr__drain_lasts(g, fn, arg);
	if (g->cb_stop) {
		/* fn stopped the round: what it took is the round's */
		it->total = pfr__cb_end(g, got);
		it->done = 1;
		return 0;
	}
	if (got < 0)
		return (int)got; /* fn's own stop */
	it->total = got;
	it->n = g->nact;
	return 0;
}
PFR__SYMVER_DEFAULT(pfr__group_iter_begin_v03, pfr_group_iter_begin,
		    "PERFRING_0.3");

/* Ends the batch the caller took from the current ring: its count, its
 * error (the slot turns hostile), its tail published (D). */
static void pfr__iter_end_ring(struct pfr_group *g, struct pfr_group_iter *it)
{
	uint32_t i = it->cur;
	struct pfr__rslot *s;

	if (i == PFR__ITER_NONE || i >= g->nslots)
		return;
	s = &g->rs[i];
	it->cur = PFR__ITER_NONE;
	if (it->got > 0) {
		it->total += it->got;
		g->st.records += (uint64_t)it->got;
	}
	g->st.lost += it->lost;
	pfr_reader_end(&s->r);
	if (it->err < 0)
		pfr__quarantine(g, i, it->err);
}

int pfr_group_iter_next(struct pfr_group *g, struct pfr_group_iter *it)
{
	int rc;

	if (!g || !it || !g->reader)
		return -PFR_E_INVAL;
	if (it->done)
		return 0;
	pfr__iter_end_ring(g, it);
	if (it->n > g->nact)
		it->n = g->nact; /* the caller's memory: keep within act */
	while (it->k < it->n) {
		uint32_t i = g->act[(g->rr + it->k) % it->n];
		struct pfr__rslot *s = &g->rs[i];
		int64_t avail;

		it->k++;
		if (!pfr__in_round(g, s))
			continue;
		avail = pfr_reader_begin_unpaced(&s->r);
		if (avail < 0) {
			pfr__quarantine(g, i, (int)avail);
			continue;
		}
		if (!avail)
			continue;
		it->cur = i;
		it->r = &s->r;
		it->slot = i;
		it->tag = s->tag;
		it->got = 0;
		it->err = 0;
		it->lost = 0;
		return 1;
	}
	g->rr = it->n ? (g->rr + 1) % it->n : 0;
	it->done = 1;
	it->r = NULL;
	rc = pfr__drain_finish(g, UINT64_MAX);
	return rc;
}

void pfr_group_iter_stop(struct pfr_group *g, struct pfr_group_iter *it)
{
	if (!g || !it || !g->reader)
		return;
	pfr__iter_end_ring(g, it);
	it->done = 1;
	it->r = NULL;
}

/* ---- waiting ---- */

/* Clears the ring marks and the group word after a sleep. */
static void pfr__disarm(struct pfr_group *g)
{
	PFR_WRITE_ONCE(g->h->sleep, 0);
	for (uint32_t k = 0; k < g->nact; k++) {
		struct pfr_ring_ctl *c = pfr__ctl(g, g->act[k]);

		if (PFR_READ_ONCE(c->reader_waiting))
			PFR_WRITE_ONCE(c->reader_waiting, 0);
	}
}

/* Something for the reader to do: unread data, a slot to free, or a
 * directory change. */
static int pfr__pending(struct pfr_group *g)
{
	if (PFR_READ_ONCE(g->h->changes) != g->seen_changes || g->rescan)
		return 1;
	for (uint32_t k = 0; k < g->nact; k++) {
		struct pfr__rslot *s = &g->rs[g->act[k]];

		if (s->closing || s->dead ||
		    PFR_READ_ONCE(s->r.ctl->head) != s->r.tail)
			return 1;
	}
	return 0;
}

/* Marks every held ring and stores `how` (1 futex, 2 poll) in the group
 * word, then checks for work.  Returns 1 (work: disarmed again) or 0
 * (armed). */
static int pfr__arm(struct pfr_group *g, uint32_t how)
{
	for (uint32_t k = 0; k < g->nact; k++) {
		struct pfr_ring_ctl *c = pfr__ctl(g, g->act[k]);

		PFR_WRITE_ONCE(c->wake_bytes, 0);
		PFR_WRITE_ONCE(c->wake_records, 0);
		PFR_WRITE_ONCE(c->reader_waiting, PFR__READER_WAITING_GROUP);
	}
	PFR_WRITE_ONCE(g->h->sleep, how);
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_writer_publish() (head store before the reader_waiting
	 * load) and in pfr__announce() (changes before the sleep load):
	 * the marks and the sleep word before the head and changes loads;
	 * without it: litmus/group-wake-reader-no-mb.litmus */
	pfr_smp_mb();
	if (pfr__pending(g)) {
		pfr__disarm(g);
		return 1;
	}
	return 0;
}

/* The wait of both versions: 1 when something is pending, else 0 (and
 * *woken tells a wake-up - a join or a leave with no record yet - from
 * the time-out), or -PFR_E_INVAL. */
static int pfr__group_wait(struct pfr_group *g, uint64_t timeout_ns, int *woken)
{
	uint64_t now, deadline;

	*woken = 1;
	if (!g || !g->reader || !(g->flags & PFR_GROUP_WAIT))
		return -PFR_E_INVAL;
	if (pfr__arm(g, 1))
		return 1;
	now = pfr__now_ns();
	deadline = pfr__deadline(now, timeout_ns);
	g->st.wakeups++;
	while (PFR_READ_ONCE(g->h->sleep) == 1 && now < deadline) {
		pfr__futex_wait(&g->h->sleep, 1, deadline - now);
		now = pfr__now_ns();
	}
	*woken = PFR_READ_ONCE(g->h->sleep) != 1;
	pfr__disarm(g);
	return pfr__pending(g);
}

/* pfr_group_wait() as 0.2 had it: 1 or 0 on time-out (src/abi/compat.c
 * serves that version). */
int pfr__group_wait_v02(struct pfr_group *g, uint64_t timeout_ns)
{
	int woken;

	return pfr__group_wait(g, timeout_ns, &woken);
}

/* 0.3: a wake-up is 1 even when it was a join or a leave (the next drain
 * takes it), and only the time-out is -PFR_E_TIMEDOUT. */
int pfr__group_wait_v03(struct pfr_group *g, uint64_t timeout_ns)
{
	int woken, rc = pfr__group_wait(g, timeout_ns, &woken);

	if (rc)
		return rc;
	return woken ? 1 : -PFR_E_TIMEDOUT;
}
PFR__SYMVER_DEFAULT(pfr__group_wait_v03, pfr_group_wait, "PERFRING_0.3");
PFR__SYMVER_COMPAT(pfr__group_wait_v02, pfr_group_wait, "PERFRING_0.2");

int pfr_group_poll_prepare(struct pfr_group *g)
{
	if (!g || !g->reader || g->efd < 0)
		return -PFR_E_INVAL;
	return pfr__arm(g, 2);
}

void pfr_group_poll_done(struct pfr_group *g)
{
	if (!g || g->efd < 0)
		return;
	pfr__disarm(g);
	pfr__eventfd_drain(g->efd);
}

void pfr_group_stats(const struct pfr_group *g, struct pfr_group_stats *st)
{
	if (!st)
		return;
	if (!g) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = g->st;
	st->slots = g->nslots;
	st->active = g->nact;
}
