/* SPDX-License-Identifier: MIT */
/*
 * The ring's out-of-line parts: creation and attachment (private memory,
 * POSIX shared memory, memfd), the writer's slow path (wrap padding, LOST
 * records, the DROP, BLOCK and OVERWRITE policies), blocking waits with
 * futexes, and flight-recorder snapshots.  The protocol itself (A-D) is in
 * <perfring/ring-proto.h>, with the pairings drawn and every internal
 * declaration this file shares with the inline fast paths
 * (<perfring/ring-inline.h>).
 *
 * The two blocking hand-shakes here are the store-buffering shape, not the
 * A-D shapes: a side that goes to sleep stores "I am waiting" and then
 * loads the other side's position; the other side stores its position
 * and then loads "waiting?".  Each needs smp_mb() between its store and its
 * load, on x86 too (the one reordering TSO allows).  Without them both
 * sides can miss each other: the sleeper sees no progress and the waker
 * sees no sleeper, and the wake-up is lost until the time-out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "ring/compiler.h"
#include "ring/futex_int.h"
#include "writers/group_int.h"
#include "ring/opts.h"
#include "ring/shm_int.h"
#include "ring/task_int.h"
#include "ring/wakefd_int.h"

struct pfr_ring {
	struct pfr_ring_ctl *ctl;
	unsigned char *data;
	size_t map_len;
	uint64_t data_size;
	uint64_t max_record;
	uint32_t policy, ordering, flags;
	int fd;
	int sealed; /* the object cannot shrink under this mapping */
	unsigned char *scratch; /* reader's copy of a straddling record */
	/* the roles this handle took (pfr_ring_close() gives them back) */
	uint8_t held_writer, held_reader;
	/* the reader's eventfd (PFR_RING_EVENTFD, pfr_ring_set_eventfd())
	 * in its waker, registered; NULL: none */
	struct pfr__waker *wk;
};

static const char *const pfr_orderings[] = {"full", "acqrel", "ctrldep"};
static const char *const pfr_policies[] = {"drop", "block", "overwrite"};

const char *pfr_ordering_name(enum pfr_ordering o)
{
	return (unsigned)o < PFR_ORDER__COUNT ? pfr_orderings[o] : "?";
}

const char *pfr_policy_name(enum pfr_policy p)
{
	return (unsigned)p < PFR_POLICY__COUNT ? pfr_policies[p] : "?";
}

int pfr_ordering_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < PFR_ORDER__COUNT; i++)
		if (!strcmp(s, pfr_orderings[i]))
			return i;
	return -1;
}

int pfr_policy_parse(const char *s)
{
	if (!s)
		return -1;
	for (int i = 0; i < PFR_POLICY__COUNT; i++)
		if (!strcmp(s, pfr_policies[i]))
			return i;
	return -1;
}

/* ---- layout ---- */

#define PFR__DATA_MIN 4096ull
#define PFR__DATA_MAX (1ull << 40)
#define PFR__OFFSET_ALIGN 4096ull
#define PFR__OFFSET_MAX (1ull << 20)

/* The largest record a ring of data_size bytes takes: a LOST record (24
 * bytes), the padding before a record that would straddle the end (less
 * than the record) and the record itself must fit in an empty ring:
 * 2 * max + 16 <= data_size.  In band (PFR_RING_INBAND) the zero word
 * after the last record counts too: 2 * max + 24 <= data_size. */
static uint64_t pfr__max_record_of(uint64_t data_size, uint32_t flags)
{
	uint64_t m =
		(data_size / 2 - (flags & PFR_RING_INBAND ? 16 : 8)) & ~7ull;

	return m < PFR_RECORD_MAX ? m : PFR_RECORD_MAX;
}

static uint64_t pfr__max_record(uint64_t data_size)
{
	return pfr__max_record_of(data_size, 0);
}

static uint64_t pfr__data_offset(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 && (uint64_t)pg >= PFR__OFFSET_ALIGN ? (uint64_t)pg
							   : PFR__OFFSET_ALIGN;
}

/* Every PFR_RING_* flag this library knows in a control block, and those
 * a creator may pass besides (PFR_RING_EVENTFD is the creating handle's,
 * not the ring's: the control block gets PFR_RING_WAIT for it). */
#define PFR__RING_FLAGS (PFR_RING_WAIT | PFR_RING_INBAND)
#define PFR__RING_CREATE_FLAGS (PFR__RING_FLAGS | PFR_RING_EVENTFD)

/* PFR_RING_INBAND's conditions: the ACQREL ordering (its Bi and Ci are a
 * release and an acquire whatever A-D are, and the models check it with
 * ACQREL's A and D), a consuming reader (not OVERWRITE, whose snapshots
 * walk from oldest) and no blocking reader (PFR_RING_WAIT's hand-shake is
 * on head, which the in-band reader does not load). */
static int pfr__inband_ok(uint32_t flags, uint32_t policy, uint32_t ordering)
{
	return !(flags & PFR_RING_INBAND) ||
	       (ordering == PFR_ORDER_ACQREL &&
		policy != PFR_POLICY_OVERWRITE && !(flags & PFR_RING_WAIT));
}

/* Permission bits a shm ring may be created with: read, write and execute
 * for user, group and others.  setuid, setgid, the sticky bit and file-type
 * bits mean nothing for a ring (and would be passed to fchmod). */
#define PFR__MODE_BITS 0777u

/* Copies a caller's options into *o (the bytes within opts->sz: see
 * src/ring/opts.h) and checks every field: 0 or -PFR_E_INVAL. */
static int pfr__check_opts(struct pfr_ring_opts *o,
			   const struct pfr_ring_opts *opts)
{
	uint64_t sz;

	if (PFR__OPTS_COPY(o, opts, RING_OPTS))
		return -PFR_E_INVAL;
	sz = o->data_size ? o->data_size : 1u << 20;

	if (sz < PFR__DATA_MIN || sz > PFR__DATA_MAX || (sz & (sz - 1)))
		return -PFR_E_INVAL;
	/* 32-bit targets: the mapping's length must fit a size_t */
	if (sz > (uint64_t)SIZE_MAX - PFR__OFFSET_MAX)
		return -PFR_E_INVAL;
	if ((unsigned)o->policy >= PFR_POLICY__COUNT ||
	    (unsigned)o->ordering >= PFR_ORDER__COUNT ||
	    (o->flags & ~PFR__RING_CREATE_FLAGS) || (o->mode & ~PFR__MODE_BITS))
		return -PFR_E_INVAL;
	if (o->flags & PFR_RING_EVENTFD)
		o->flags |= PFR_RING_WAIT;
	if (!pfr__inband_ok(o->flags, o->policy, o->ordering))
		return -PFR_E_INVAL;
	return 0;
}

PFR__SHM_HEAD_OF(struct pfr_ring_ctl, ctl_size);

static void pfr__ring_fill(struct pfr_ring *ring)
{
	ring->data =
		(unsigned char *)ring->ctl + ring->map_len - ring->data_size;
	ring->max_record = pfr__max_record_of(ring->data_size, ring->flags);
}

/* ---- the reader's eventfd (src/ring/wakefd_int.h) ---- */

/* Registry of the wakers this process holds: a writer's wake path finds
 * the one whose range holds its ring's control block.  Entries are added
 * and removed under a mutex and read without it. */
#define PFR__WAKERS 64
static struct pfr__waker *pfr__wakers[PFR__WAKERS];
static pthread_mutex_t pfr__wakers_lock = PTHREAD_MUTEX_INITIALIZER;

int pfr__waker_add(struct pfr__waker *wk)
{
	int rc = -PFR_E_SYSTEM;

	pthread_mutex_lock(&pfr__wakers_lock);
	for (int i = 0; i < PFR__WAKERS; i++)
		if (!pfr__wakers[i]) {
			/* purpose: publish a filled waker; pairs with the
			 * acquire in pfr__waker_find() */
			__atomic_store_n(&pfr__wakers[i], wk, __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	pthread_mutex_unlock(&pfr__wakers_lock);
	if (rc)
		errno = EMFILE;
	return rc;
}

void pfr__waker_del(struct pfr__waker *wk)
{
	pthread_mutex_lock(&pfr__wakers_lock);
	for (int i = 0; i < PFR__WAKERS; i++)
		if (pfr__wakers[i] == wk)
			PFR_WRITE_ONCE(pfr__wakers[i], NULL);
	pthread_mutex_unlock(&pfr__wakers_lock);
}

struct pfr__waker *pfr__waker_find(const void *p)
{
	const unsigned char *q = (const unsigned char *)p;

	for (int i = 0; i < PFR__WAKERS; i++) {
		/* purpose: see the waker's fields that pfr__waker_add()
		 * filled before publishing it; pairs with its release */
		struct pfr__waker *wk = __atomic_load_n(
			&pfr__wakers[i],
			__ATOMIC_ACQUIRE); /* pairs with pfr__waker_add() */

		if (wk && q >= (const unsigned char *)wk->lo &&
		    q < (const unsigned char *)wk->hi)
			return wk;
	}
	return NULL;
}

/* Unregisters and frees the ring's waker, closing its eventfd. */
static void pfr__ring_eventfd_drop(struct pfr_ring *ring)
{
	if (!ring->wk)
		return;
	pfr__waker_del(ring->wk);
	close(ring->wk->efd);
	free(ring->wk);
	ring->wk = NULL;
}

/* Gives the ring the eventfd efd (-1 with errno: its creation failed) in
 * a waker of its own, registered; an earlier one is dropped.  0 or
 * -PFR_E_SYSTEM (efd is closed). */
static int pfr__ring_eventfd_set(struct pfr_ring *ring, int efd)
{
	struct pfr__waker *wk;
	int e;

	if (efd < 0)
		return -PFR_E_SYSTEM;
	wk = (struct pfr__waker *)malloc(sizeof(*wk));
	if (wk) {
		wk->lo = ring->ctl;
		wk->hi = ring->ctl + 1;
		wk->word = &ring->ctl->reader_waiting;
		wk->efd = efd;
		if (!pfr__waker_add(wk)) {
			pfr__ring_eventfd_drop(ring);
			ring->wk = wk;
			return 0;
		}
	}
	e = errno;
	free(wk);
	close(efd);
	errno = e;
	return -PFR_E_SYSTEM;
}

int pfr_ring_eventfd(const struct pfr_ring *ring)
{
	if (!ring)
		return -PFR_E_INVAL;
	return ring->wk ? ring->wk->efd : -1;
}

int pfr_ring_set_eventfd(struct pfr_ring *ring, int efd)
{
	int dfd;

	if (!ring || !(ring->flags & PFR_RING_WAIT) || !pfr__is_eventfd(efd))
		return -PFR_E_INVAL;
	dfd = fcntl(efd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -PFR_E_SYSTEM;
	return pfr__ring_eventfd_set(ring, dfd);
}

/* Maps a new ring of the given options onto fd (-1: anonymous shared
 * memory, inherited across fork) and initialises its control block. */
static int pfr__ring_new(struct pfr_ring **ringp, int fd,
			 const struct pfr_ring_opts *o)
{
	uint64_t size = o->data_size ? o->data_size : 1u << 20;
	uint64_t off = pfr__data_offset();
	struct pfr_ring *ring;
	struct pfr_ring_ctl *ctl;
	void *p;

	ring = calloc(1, sizeof(*ring));
	p = ring ? pfr__shm_alloc(fd, off + size) : NULL;
	if (!p) {
		free(ring);
		return -PFR_E_SYSTEM;
	}
	ring->ctl = ctl = (struct pfr_ring_ctl *)p;
	ring->map_len = off + size;
	ring->data_size = size;
	ring->policy = o->policy;
	ring->ordering = o->ordering;
	ring->flags = o->flags & PFR__RING_FLAGS;
	ring->fd = fd;
	ring->sealed = fd < 0; /* anonymous memory has no size to change */
	pfr__ring_fill(ring);
	if ((o->flags & PFR_RING_EVENTFD) &&
	    pfr__ring_eventfd_set(ring, pfr__eventfd_new())) {
		int e = errno;

		munmap(p, ring->map_len);
		free(ring);
		errno = e;
		return -PFR_E_SYSTEM;
	}
	memset(ctl, 0, sizeof(*ctl));
	ctl->version = PFR_RING_VERSION;
	ctl->ctl_size = sizeof(*ctl);
	ctl->data_offset = off;
	ctl->data_size = size;
	ctl->policy = o->policy;
	ctl->ordering = o->ordering;
	ctl->flags = ring->flags;
	ctl->max_record = (uint32_t)ring->max_record;
	ctl->lost_id = o->lost_id;
	/* purpose: publish the initialised control block before the magic
	 * that tells an attaching process it is complete; pairs with the
	 * attacher's smp_rmb() after loading magic in pfr__shm_peek(). */
	pfr_smp_wmb();
	PFR_WRITE_ONCE(ctl->magic, PFR_RING_MAGIC);
	*ringp = ring;
	return 0;
}

/* pfr_ring_create() and its two siblings below are defined under internal
 * names and exported as name@@PERFRING_0.2 (src/ring/opts.h): name@PERFRING_0.1,
 * for binaries that pass the options without sz, is in src/ring/opts.c. */
int pfr__ring_create_v02(struct pfr_ring **ring,
			 const struct pfr_ring_opts *opts)
{
	struct pfr_ring_opts o;
	int err = pfr__check_opts(&o, opts);

	if (!err && !ring)
		err = -PFR_E_INVAL;
	return err ? err : pfr__ring_new(ring, -1, &o);
}
PFR__SYMVER_DEFAULT(pfr__ring_create_v02, pfr_ring_create, "PERFRING_0.2");

/* The ring of pfr_ring_create_shm() (the object `name`) and of
 * pfr_ring_create_memfd() (memfd_name not NULL: a memfd, sealed). */
static int pfr__ring_create_fd(struct pfr_ring **ring, const char *name,
			       const char *memfd_name,
			       const struct pfr_ring_opts *opts)
{
	struct pfr_ring_opts o;
	int err = pfr__check_opts(&o, opts), fd;

	if (!err && !ring)
		err = -PFR_E_INVAL;
	fd = err ? err : pfr__shm_create(name, o.mode, memfd_name);
	if (fd < 0)
		return fd;
	err = pfr__shm_done(pfr__ring_new(ring, fd, &o), fd, name);
	if (!err && memfd_name)
		(*ring)->sealed = pfr__shm_seal(fd);
	return err;
}

int pfr__ring_create_shm_v02(struct pfr_ring **ring, const char *name,
			     const struct pfr_ring_opts *opts)
{
	return pfr__ring_create_fd(ring, name, NULL, opts);
}
PFR__SYMVER_DEFAULT(pfr__ring_create_shm_v02, pfr_ring_create_shm,
		    "PERFRING_0.2");

int pfr__ring_create_memfd_v02(struct pfr_ring **ring,
			       const struct pfr_ring_opts *opts)
{
	return pfr__ring_create_fd(ring, NULL, "perfring", opts);
}
PFR__SYMVER_DEFAULT(pfr__ring_create_memfd_v02, pfr_ring_create_memfd,
		    "PERFRING_0.2");

/*
 * Validates a ring's control block before trusting any of it.  Every field
 * is loaded once into a local; the ring handle keeps the validated copies,
 * and nothing later reads line 0 again, so a peer that rewrites it after
 * the check cannot change what this process uses.  max: the largest data
 * area the caller accepts (the peer chooses the size; the caller pays for
 * it in address space and in the walk of a snapshot).
 */
static int pfr__ring_map(struct pfr_ring **ringp, int fd, uint64_t max)
{
	struct pfr__shm_peek pk = {.hdr_len = sizeof(struct pfr_ring_ctl),
				   .magic = PFR_RING_MAGIC,
				   .version = PFR_RING_VERSION};
	struct pfr_ring_ctl *c;
	struct pfr_ring *ring;
	uint64_t off, size;
	uint32_t policy, ordering, flags, max_record;
	void *p;
	int err = pfr__shm_peek(fd, &pk);

	if (err)
		return err;
	c = (struct pfr_ring_ctl *)pk.hdr;
	off = PFR_READ_ONCE(c->data_offset);
	size = PFR_READ_ONCE(c->data_size);
	policy = PFR_READ_ONCE(c->policy);
	ordering = PFR_READ_ONCE(c->ordering);
	flags = PFR_READ_ONCE(c->flags);
	max_record = PFR_READ_ONCE(c->max_record);
	munmap(c, sizeof(*c));

	if (pk.hdr_size != sizeof(struct pfr_ring_ctl) || off < pk.hdr_size ||
	    off % PFR__OFFSET_ALIGN || off > PFR__OFFSET_MAX ||
	    size < PFR__DATA_MIN || size > PFR__DATA_MAX ||
	    (size & (size - 1)) || policy >= PFR_POLICY__COUNT ||
	    ordering >= PFR_ORDER__COUNT || (flags & ~PFR__RING_FLAGS) ||
	    !pfr__inband_ok(flags, policy, ordering) ||
	    max_record != pfr__max_record_of(size, flags))
		return -PFR_E_LAYOUT;
	if (pk.file_size < off + size)
		return -PFR_E_MAPPING;
	if (size > max)
		return -PFR_E_TOOBIG;

	ring = calloc(1, sizeof(*ring));
	p = ring ? pfr__shm_map(fd, off + size) : NULL;
	if (!p) {
		free(ring);
		return -PFR_E_SYSTEM;
	}
	ring->ctl = (struct pfr_ring_ctl *)p;
	ring->map_len = off + size;
	ring->data_size = size;
	ring->policy = policy;
	ring->ordering = ordering;
	ring->flags = flags;
	ring->fd = fd;
	ring->sealed = pk.sealed;
	pfr__ring_fill(ring);
	*ringp = ring;
	return 0;
}

static const struct pfr_ring_attach_opts pfr__attach_defaults = {
	sizeof(struct pfr_ring_attach_opts), 0, 0};

int pfr_ring_attach_fd_opts(struct pfr_ring **ring, int fd,
			    const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int dup_fd, err = pfr__attach_limit(opts, &max);

	if (!err && !ring)
		err = -PFR_E_INVAL;
	if (err)
		return err;
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return -PFR_E_SYSTEM;
	return pfr__shm_done(pfr__ring_map(ring, dup_fd, max), dup_fd, NULL);
}

int pfr_ring_attach_fd(struct pfr_ring **ring, int fd)
{
	return pfr_ring_attach_fd_opts(ring, fd, &pfr__attach_defaults);
}

int pfr_ring_attach_shm_opts(struct pfr_ring **ring, const char *name,
			     const struct pfr_ring_attach_opts *opts)
{
	uint64_t max;
	int err = pfr__attach_limit(opts, &max), fd;

	if (!err && !ring)
		err = -PFR_E_INVAL;
	if (err)
		return err;
	fd = pfr__shm_open(name, 0, 0);
	if (fd < 0)
		return fd;
	return pfr__shm_done(pfr__ring_map(ring, fd, max), fd, NULL);
}

int pfr_ring_attach_shm(struct pfr_ring **ring, const char *name)
{
	return pfr_ring_attach_shm_opts(ring, name, &pfr__attach_defaults);
}

/* ---- roles ---- */

/*
 * Roles.  The writer's and the reader's side of a ring are each held by at
 * most one process at a time: its word (writer_owner, reader_owner in the
 * control block) names the holder, its pid and start time as one word
 * (src/ring/task_int.h), so that a pid reused by another process is told
 * from the holder.  pfr_ring_writer() and pfr_ring_reader() take the word
 * by CAS when it is free (0), closed, this process's own, or names a
 * process proven dead (the recovery: the new holder resumes from the
 * published positions); a live holder's is -PFR_E_BUSY.  The close
 * functions and pfr_ring_close() store PFR__ROLE_CLOSED: pid 0, other bits
 * set, which the peer takes for an end (a clean close), as it takes a
 * dead holder's word once it looks (the look reads /proc: only where the
 * peer would sleep, or is asked).  A peer that finds the holder dead
 * stores PFR__ROLE_CLOSED for it, so that later looks cost no system call.
 * Nothing on a fast path loads these words.
 */
#define PFR__ROLE_CLOSED (~0ull << PFR__TASK_WORD_PID_BITS)

/* How long a sleeper (a BLOCK writer, pfr_reader_wait()) sleeps at most
 * before it looks whether its peer died: a dead peer wakes nobody. */
#define PFR__ROLE_LOOK_NS 100000000ull

/* Wakes the peer asleep on a futex word (reader_waiting, writer_waiting)
 * after a role word changed: the word cleared first, so that a sleeper
 * that looked at the role word just before the change does not go to sleep
 * on it (its futex wait finds 0). */
static void pfr__role_wake(uint32_t *word)
{
	PFR_WRITE_ONCE(*word, 0);
	pfr__futex_wake(word);
}

static void pfr__role_wake_reader(struct pfr_ring_ctl *c);

/* Moves a role word from `old` to `to`: 1, or 0 when it held another
 * value.  A full barrier either way. */
static int pfr__role_cas(uint64_t *word, uint64_t old, uint64_t to)
{
	/* purpose: of two CASes from one value, one wins: one taker of a
	 * free, closed or dead holder's word; and a release's stores (head,
	 * tail) come before the closed word, which the acquire load in
	 * pfr__role_gone() pairs with */
	return __atomic_compare_exchange_n(
		word, &old, to, 0, __ATOMIC_SEQ_CST, /* purpose: above */
		__ATOMIC_SEQ_CST); /* purpose: above */
}

/* Takes the role word for this process: 0 or -PFR_E_BUSY. */
static int pfr__role_take(uint64_t *word)
{
	uint64_t me = pfr__task_self_word();

	for (int tries = 0; tries < 16; tries++) {
		uint64_t cur = PFR_READ_ONCE(*word);
		uint32_t pid = PFR__TASK_WORD_PID(cur);

		if (pid && pid != PFR__TASK_WORD_PID(me) &&
		    !pfr__task_word_dead(cur))
			return -PFR_E_BUSY;
		/* one of two takers wins; our loads of the positions come
		 * after it */
		if (pfr__role_cas(word, cur, me))
			return 0;
	}
	return -PFR_E_BUSY; /* a word that keeps changing: held */
}

/* Gives the role back, if this process holds it: closed cleanly. */
static void pfr__role_release(uint64_t *word)
{
	uint64_t cur = PFR_READ_ONCE(*word);

	if (!PFR__TASK_WORD_PID(cur) ||
	    PFR__TASK_WORD_PID(cur) !=
		    PFR__TASK_WORD_PID(pfr__task_self_word()))
		return;
	/* everything this side published (head, tail) before the word
	 * says closed */
	pfr__role_cas(word, cur, PFR__ROLE_CLOSED);
}

/* 1 when the role's holder has gone: closed it, or (look set: /proc is
 * read) died, in which case its word is closed for it.  Never held: 0. */
static int pfr__role_gone(uint64_t *word, int look)
{
	/* purpose: pairs with the CAS in pfr__role_release(): what the
	 * holder published before it closed is seen after this load */
	uint64_t cur = pfr_smp_load_acquire(word);

	if (!cur)
		return 0;
	if (!PFR__TASK_WORD_PID(cur))
		return 1;
	if (!look || !pfr__task_word_dead(cur))
		return 0;
	/* only the dead holder's word is closed (a new holder's CAS in
	 * between wins) */
	pfr__role_cas(word, cur, PFR__ROLE_CLOSED);
	return 1;
}

/* 1 while a live process holds the role. */
static int pfr__role_alive(const uint64_t *word)
{
	uint64_t cur = PFR_READ_ONCE(*word);

	return PFR__TASK_WORD_PID(cur) && !pfr__task_word_dead(cur);
}

int pfr_ring_writer_alive(const struct pfr_ring *ring)
{
	if (!ring)
		return -PFR_E_INVAL;
	return pfr__role_alive(&ring->ctl->writer_owner);
}

int pfr_ring_reader_alive(const struct pfr_ring *ring)
{
	if (!ring)
		return -PFR_E_INVAL;
	return pfr__role_alive(&ring->ctl->reader_owner);
}

int pfr_ring_set_inherit(struct pfr_ring *ring, int inherit)
{
	int fl;

	if (!ring || ring->fd < 0 || (inherit != 0 && inherit != 1))
		return -PFR_E_INVAL;
	fl = fcntl(ring->fd, F_GETFD);
	if (fl < 0)
		return -PFR_E_SYSTEM;
	fl = inherit ? fl & ~FD_CLOEXEC : fl | FD_CLOEXEC;
	if (fcntl(ring->fd, F_SETFD, fl) < 0)
		return -PFR_E_SYSTEM;
	return ring->fd;
}

void pfr_ring_close(struct pfr_ring *ring)
{
	if (!ring)
		return;
	if (ring->held_writer) {
		pfr__role_release(&ring->ctl->writer_owner);
		pfr__role_wake_reader(ring->ctl);
	}
	if (ring->held_reader) {
		pfr__role_release(&ring->ctl->reader_owner);
		pfr__role_wake(&ring->ctl->writer_waiting);
	}
	pfr__ring_eventfd_drop(ring);
	munmap(ring->ctl, ring->map_len);
	if (ring->fd >= 0)
		close(ring->fd);
	free(ring->scratch);
	free(ring);
}

int pfr_ring_unlink(const char *name)
{
	return pfr__shm_unlink(name);
}

int pfr_ring_sealed(const struct pfr_ring *ring)
{
	return ring ? ring->sealed : 0;
}

int pfr_ring_fd(const struct pfr_ring *ring)
{
	return ring ? ring->fd : -PFR_E_INVAL;
}

struct pfr_ring_ctl *pfr_ring_ctl(const struct pfr_ring *ring)
{
	return ring ? ring->ctl : NULL;
}

struct pfr_ring_ctl *pfr_ring_control(const struct pfr_ring *ring)
{
	return ring ? ring->ctl : NULL;
}

void pfr_ring_stats(const struct pfr_ring *ring, struct pfr_ring_stats *st)
{
	if (!st)
		return;
	if (!ring) {
		memset(st, 0, sizeof(*st));
		return;
	}
	st->head = PFR_READ_ONCE(ring->ctl->head);
	st->tail = PFR_READ_ONCE(ring->ctl->tail);
	st->records = PFR_READ_ONCE(ring->ctl->records);
	st->lost_total = PFR_READ_ONCE(ring->ctl->lost_total);
	st->data_size = ring->data_size;
}

/* ---- opening the two sides ---- */

/* In band, a writer that died may have committed records past the head
 * it published, and the reader may have read them: a writer that replaces
 * it resumes after the last committed record, not at the published head.
 * It walks the committed headers from head with the checks of
 * pfr__begin_inband(), stopping at the first zero word or failed check,
 * at most a ring less the zero word past head (the caller then checks the
 * result against tail as it checks a published head). */
static void pfr__writer_limit(struct pfr_writer *w);

static uint64_t pfr__inband_resume(const struct pfr_ring *ring, uint64_t head)
{
	uint64_t mask = ring->data_size - 1, start = head;

	for (;;) {
		uint64_t off = head & mask;
		uint64_t raw =
			PFR_READ_ONCE(*(const uint64_t *)(ring->data + off));
		struct pfr_record_header hd;

		memcpy(&hd, &raw, sizeof(hd));
		if (!raw || hd.size == 0 || (hd.size & 7) ||
		    hd.size > mask + 1 - off ||
		    head + hd.size - start > mask + 1 - 8)
			return head;
		head += hd.size;
	}
}

/* pfr_ring_writer() but for the role (a group's slot writer has its
 * own, src/writers/group.c). */
static int pfr__ring_writer_open(struct pfr_ring *ring, struct pfr_writer *w)
{
	struct pfr_ring_ctl *c;
	uint64_t head, oldest, t;

	if (!ring || !w)
		return -PFR_E_INVAL;
	c = ring->ctl;
	head = PFR_READ_ONCE(c->head);
	oldest = PFR_READ_ONCE(c->oldest);
	memset(w, 0, sizeof(*w));
	w->ctl = c;
	w->data = ring->data;
	w->mask = ring->data_size - 1;
	w->policy = (uint8_t)ring->policy;
	w->ordering = (uint8_t)ring->ordering;
	w->wait_flag = !!(ring->flags & PFR_RING_WAIT);
	w->inband = !!(ring->flags & PFR_RING_INBAND);
	w->max_record = (uint32_t)ring->max_record;
	w->timeout_ns = 1000000000ull;
	if (head & 7)
		return -PFR_E_LAYOUT;
	w->head = w->published = head;
	w->records = PFR_READ_ONCE(c->records);
	/* a count whose LOST record went out is no longer pending, one whose
	 * record was never published is (a writer killed in between) */
	w->lost = pfr__ring_lost_pending(c);
	w->lost_total = PFR_READ_ONCE(c->lost_total);
	PFR_WRITE_ONCE(c->lost_end, 0);
	PFR_WRITE_ONCE(c->lost_pending, w->lost);
	if (ring->policy == PFR_POLICY_OVERWRITE) {
		/* A flight recorder has no reader tail: the writer's own
		 * oldest record plays its part in the space check. */
		if (head - oldest > ring->data_size || (oldest & 7))
			oldest = head; /* resume with an empty window */
		w->oldest = w->tail_cache = oldest;
		PFR_WRITE_ONCE(c->oldest, oldest);
	} else {
		if (w->inband) {
			head = pfr__inband_resume(ring, head);
			w->head = w->published = head;
		}
		/* The first load of tail, checked like every later one. */
		t = PFR_READ_ONCE(c->tail);
		if (head - t > ring->data_size || (t & 7))
			return -PFR_E_LAYOUT;
		/* Start with a cached tail that shows no space, so that the
		 * first reserve loads tail with A's ordering. */
		w->tail_cache = head - ring->data_size;
	}
	/* the fast paths' limits, from the positions just checked (a zeroed
	 * limit is not "no room" for a head past 2^63) */
	pfr__writer_limit(w);
	PFR_WRITE_ONCE(c->writer_pid, (uint32_t)getpid());
	return 0;
}

int pfr_ring_writer(struct pfr_ring *ring, struct pfr_writer *w)
{
	int err;

	if (!ring || !w)
		return -PFR_E_INVAL;
	err = pfr__role_take(&ring->ctl->writer_owner);
	if (err)
		return err;
	err = pfr__ring_writer_open(ring, w);
	if (err) {
		if (!ring->held_writer)
			pfr__role_release(&ring->ctl->writer_owner);
		return err;
	}
	ring->held_writer = 1;
	return 0;
}

int pfr_writer_close(struct pfr_writer *w)
{
	struct pfr_ring_ctl *c;

	if (!w || !w->ctl || !w->data)
		return -PFR_E_INVAL;
	c = w->ctl;
	pfr_writer_flush(w); /* publishes, and kicks a sleeping reader */
	pfr__role_release(&c->writer_owner);
	/* the reader asleep sees the end (pfr_reader_wait() and
	 * pfr_reader_poll_prepare() look after their smp_mb(), as for a
	 * flush) */
	pfr__role_wake_reader(c);
	w->limit = w->inband_limit = 0;
	return 0;
}

uint64_t pfr__ring_max_record(uint64_t data_size)
{
	return pfr__max_record(data_size);
}

int pfr__writer_open_at(struct pfr_writer *w, struct pfr_ring_ctl *c,
			unsigned char *data, uint64_t data_size,
			uint32_t policy, uint32_t ordering, uint32_t flags)
{
	struct pfr_ring ring;

	memset(&ring, 0, sizeof(ring));
	ring.ctl = c;
	ring.data = data;
	ring.data_size = data_size;
	ring.max_record = pfr__max_record_of(data_size, flags);
	ring.policy = policy;
	ring.ordering = ordering;
	ring.flags = flags;
	ring.fd = -1;
	return pfr__ring_writer_open(&ring, w);
}

/* Copies n bytes (a multiple of 8) out of shared memory with untorn 8-byte
 * loads; used where a hostile or concurrent writer may change them. */
static inline void pfr__copy_out(void *dst, const unsigned char *src,
				 uint64_t n)
{
	unsigned char *d = (unsigned char *)dst;

	for (uint64_t i = 0; i < n; i += 8) {
		uint64_t v = PFR_READ_ONCE(*(const uint64_t *)(src + i));

		memcpy(d + i, &v, 8);
	}
}

/* Every record pfr_reader_next()'s fast path leaves out, one check at a
 * time, each with its own error; PAD records are skipped on perfring rings
 * (and the record after them returned).  *rec is zeroed unless a record
 * is returned. */
int pfr__reader_next_slow(struct pfr_reader *r, struct pfr_record *rec)
{
	for (;;) {
		uint64_t avail = r->head - r->tail;
		uint64_t off = r->tail & r->mask;
		struct pfr_record_header h;
		uint64_t raw;

		memset(rec, 0, sizeof(*rec)); /* also after a PAD record */
		if (!avail)
			return 0;
		/* one read into a private copy, as in the fast path */
		raw = PFR_READ_ONCE(*(const uint64_t *)(r->data + off));
		memcpy(&h, &raw, sizeof(h));
		if (h.size == 0)
			return -PFR_E_RECSIZE_ZERO;
		if (h.size & 7)
			return -PFR_E_RECSIZE_ALIGN;
		if (h.size > avail)
			return -PFR_E_RECSIZE_PAST_HEAD;
		/* a padding (PFR_RECORD_MISC_PAD) longer than the payload
		 * space: no length to give */
		if ((h.misc & r->len_mask) > h.size - sizeof(h))
			return -PFR_E_RECSIZE_SHORT;
		/* a caller reads { id, lost } from a LOST record */
		if (h.type == PFR_RECORD_LOST &&
		    h.size < sizeof(struct pfr_lost_record))
			return -PFR_E_RECSIZE_SHORT;
		rec->hdr = h;
		rec->pos = r->tail;
		rec->len =
			h.size - (uint32_t)sizeof(h) - (h.misc & r->len_mask);
		if (off + h.size <= r->mask + 1) {
			rec->payload = r->data + off + sizeof(h);
		} else {
			/* Straddles the end (kernel rings): copy out in two
			 * pieces, both within the data area. */
			uint64_t first = r->mask + 1 - off;

			memcpy(r->scratch, &h, sizeof(h));
			pfr__copy_out(r->scratch + sizeof(h),
				      r->data + off + sizeof(h),
				      first - sizeof(h));
			pfr__copy_out(r->scratch + first, r->data,
				      h.size - first);
			rec->payload = r->scratch + sizeof(h);
		}
		r->tail += h.size;
		if (h.type == PFR_RECORD_PAD &&
		    (r->flags & PFR_READER_SKIP_PAD))
			continue;
		return 1;
	}
}

int pfr_reader_init(struct pfr_reader *r, const uint64_t *head, uint64_t *tail,
		    const void *data, uint64_t size, enum pfr_ordering ordering,
		    uint32_t flags, void *scratch)
{
	if (!r || !head || !tail || !data || !scratch || size < 8 ||
	    (size & (size - 1)) || (unsigned)ordering >= PFR_ORDER__COUNT ||
	    (flags & ~(PFR_READER_SKIP_PAD | PFR_READER_PAYLOAD_LEN)))
		return -PFR_E_INVAL;
	memset(r, 0, sizeof(*r));
	r->head_p = head;
	r->tail_p = tail;
	r->data = (const unsigned char *)data;
	r->mask = size - 1;
	r->ordering = (uint8_t)ordering;
	r->flags = flags;
	if (flags & PFR_READER_PAYLOAD_LEN)
		r->len_mask = PFR_RECORD_MISC_PAD;
	r->scratch = (unsigned char *)scratch;
	r->tail = PFR_READ_ONCE(*tail);
	if (r->tail & 7)
		return -PFR_E_RECSIZE_ALIGN;
	r->head = r->published = r->tail;
	return 0;
}

/* pfr_ring_reader() but for the role. */
static int pfr__ring_reader_open(struct pfr_ring *ring, struct pfr_reader *r)
{
	struct pfr_ring_ctl *c = ring->ctl;
	int err;

	if (!ring->scratch) {
		ring->scratch = malloc(PFR_RECORD_MAX + 8);
		if (!ring->scratch)
			return -PFR_E_SYSTEM;
	}
	err = pfr_reader_init(
		r, &c->head, &c->tail, ring->data, ring->data_size,
		(enum pfr_ordering)ring->ordering,
		PFR_READER_SKIP_PAD | PFR_READER_PAYLOAD_LEN, ring->scratch);
	if (err)
		return err;
	r->ctl = c;
	if (ring->policy == PFR_POLICY_BLOCK) {
		r->iflags |= PFR__READER_WAKE_WRITER;
		r->wake_checked = r->tail;
		r->wake_stride = (r->mask + 1) / 4;
	}
	if (ring->flags & PFR_RING_WAIT)
		r->iflags |= PFR__READER_CAN_WAIT;
	if (ring->flags & PFR_RING_INBAND)
		r->iflags |= PFR__READER_INBAND;
	PFR_WRITE_ONCE(c->reader_pid, (uint32_t)getpid());
	return 0;
}

int pfr_ring_reader(struct pfr_ring *ring, struct pfr_reader *r)
{
	struct pfr_ring_ctl *c;
	int err;

	if (!ring || !r)
		return -PFR_E_INVAL;
	c = ring->ctl;
	if (ring->policy == PFR_POLICY_OVERWRITE)
		return -PFR_E_INVAL; /* use pfr_ring_snapshot() */
	err = pfr__role_take(&c->reader_owner);
	if (err)
		return err;
	err = pfr__ring_reader_open(ring, r);
	if (err && !ring->held_reader)
		pfr__role_release(&c->reader_owner);
	if (!err)
		ring->held_reader = 1;
	return err;
}

int pfr_reader_close(struct pfr_reader *r)
{
	if (!r || !r->ctl)
		return -PFR_E_INVAL;
	pfr_reader_end(r);
	pfr__role_release(&r->ctl->reader_owner);
	/* a BLOCK writer asleep sees the end */
	pfr__role_wake(&r->ctl->writer_waiting);
	return 0;
}

int pfr_reader_eof(struct pfr_reader *r)
{
	int64_t avail;

	if (!r || !r->ctl)
		return -PFR_E_INVAL;
	if (r->head != r->tail)
		return 0; /* shown and not read */
	if (!pfr__role_gone(&r->ctl->writer_owner, 1))
		return 0;
	/* after the load of the closed word: everything the writer
	 * published before it closed */
	avail = pfr_reader_begin_unpaced(r);
	if (avail < 0)
		return (int)avail;
	return avail == 0;
}

/* ---- futexes (src/ring/futex_int.h) ---- */

/* Clears reader_waiting and wakes the reader: the one asleep on the word,
 * or one woken through a waker this process registered
 * (src/ring/wakefd_int.h): a ring's reader armed for poll, which stores
 * PFR__WAKE_POLL in the word and waits on the ring's eventfd, or a group
 * reader, which marks the word so (PFR__READER_WAITING_GROUP) and sleeps
 * on its group's word.  A process without the waker (no eventfd passed to
 * it) wakes futex sleepers only. */
static void pfr__wake_reader_word(struct pfr_ring_ctl *c)
{
	uint32_t v = PFR_READ_ONCE(c->reader_waiting);
	struct pfr__waker *wk = v == PFR__WAKE_POLL ? pfr__waker_find(c) : NULL;

	if (wk) {
		if (wk->word != &c->reader_waiting)
			PFR_WRITE_ONCE(c->reader_waiting, 0);
		pfr__waker_wake(wk->word, wk->efd);
		return;
	}
	PFR_WRITE_ONCE(c->reader_waiting, 0);
	pfr__futex_wake(&c->reader_waiting);
}

/* After the writer's role word changed (closed): wakes the reader however
 * it sleeps, its thresholds aside (pfr__role_wake() for a futex sleeper,
 * the eventfd for a reader armed for poll). */
static void pfr__role_wake_reader(struct pfr_ring_ctl *c)
{
	if (PFR_READ_ONCE(c->reader_waiting) == PFR__WAKE_POLL)
		pfr__wake_reader_word(c);
	pfr__role_wake(&c->reader_waiting);
}

void pfr__writer_wake_reader(struct pfr_writer *w)
{
	struct pfr_ring_ctl *c = w->ctl;
	uint64_t bytes = w->published - PFR_READ_ONCE(c->tail);
	uint64_t recs = w->records - PFR_READ_ONCE(c->wake_mark);

	if (!pfr__wake_met(bytes, recs, PFR_READ_ONCE(c->wake_bytes),
			   PFR_READ_ONCE(c->wake_records)))
		return;
	pfr__wake_reader_word(c);
}

/* Wakes a reader asleep in pfr_reader_wait() whatever its thresholds.  The
 * condition is level-triggered: the reader returns while it has not read
 * up to flush_head (it sees the new flush_head after its smp_mb(), or we
 * see it asleep after ours), so a flush that lands before the reader
 * looks, or between its checks, is never lost. */
static void pfr__kick_reader(struct pfr_writer *w)
{
	struct pfr_ring_ctl *c = w->ctl;

	PFR_WRITE_ONCE(c->flush_head, w->head); /* published by the caller */
	/* purpose: store-buffering hand-shake; the head and flush_head
	 * stores before the reader_waiting load, as in
	 * pfr_writer_publish(); pairs with smp_mb() in pfr_reader_wait();
	 * without it: litmus/ring-wakeup-waker-no-mb.litmus */
	pfr_smp_mb();
	if (PFR_READ_ONCE(c->reader_waiting))
		pfr__wake_reader_word(c);
}

void pfr__reader_wake_writer(struct pfr_reader *r)
{
	/* The writer sleeps until tail reaches its watermark.  A mark
	 * loaded stale (from an earlier wait) is lower, as marks only grow:
	 * an early wake-up, after which the writer checks and may sleep
	 * again.  A hostile mark only keeps its own writer waiting. */
	uint64_t mark = PFR_READ_ONCE(r->ctl->writer_wake_tail);

	if ((int64_t)(r->tail - mark) < 0)
		return;
	PFR_WRITE_ONCE(r->ctl->writer_waiting, 0);
	pfr__futex_wake(&r->ctl->writer_waiting);
}

/* ---- the writer's slow path ---- */

/* Fills [w->head, to) with one PAD record (the gap is less than a record
 * and a multiple of 8, so it fits the header's u16 size). */
static void pfr__pad_to(struct pfr_writer *w, uint64_t to)
{
	if (to != w->head) {
		if (w->inband)
			pfr__inband_commit(w->data, w->mask, w->head,
					   PFR_RECORD_PAD, to - w->head, 0);
		else
			pfr__put_header(w->data, w->mask, w->head,
					PFR_RECORD_PAD, to - w->head, 0);
		w->head = to;
	}
}

/*
 * A loss count is always in shared memory until a published LOST record
 * carries it, so that a writer killed at any instruction leaves it to be
 * found (pfr__ring_lost_pending()): counted here into lost_pending (with
 * lost_end 0: no record yet); when the record is written, lost_end is set
 * to its end and the record published at once (pfr__put_lost()), and only
 * then is lost_pending cleared.  A reader that finds lost_pending set with
 * a head at or past lost_end knows the writer died between those two
 * stores, and that the count was delivered.
 */
static void pfr__count_lost(struct pfr_writer *w)
{
	w->lost++;
	w->lost_total++;
	PFR_WRITE_ONCE(w->ctl->lost_end, 0);
	PFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);
	PFR_WRITE_ONCE(w->ctl->lost_total, w->lost_total);
}

/* Writes the pending LOST record at `at` (its end: `end`) and publishes
 * it, with every record committed before it, before the count leaves
 * lost_pending. */
static void pfr__put_lost(struct pfr_writer *w, uint64_t at, uint64_t end)
{
	struct pfr_lost_record lr;

	lr.hdr.type = PFR_RECORD_LOST;
	lr.hdr.misc = 0;
	lr.hdr.size = (uint16_t)sizeof(lr);
	lr.id = PFR_READ_ONCE(w->ctl->lost_id);
	lr.lost = w->lost;
	if (w->inband) {
		/* the payload, then the header in band */
		memcpy(w->data + (at & w->mask) + sizeof(lr.hdr),
		       (const unsigned char *)&lr + sizeof(lr.hdr),
		       sizeof(lr) - sizeof(lr.hdr));
		pfr__inband_commit(w->data, w->mask, at, PFR_RECORD_LOST,
				   sizeof(lr), 0);
	} else {
		memcpy(w->data + (at & w->mask), &lr, sizeof(lr));
	}
	PFR_WRITE_ONCE(w->ctl->lost_pending, w->lost);
	PFR_WRITE_ONCE(w->ctl->lost_end, end);
	w->head = end;
	w->records++;
	/* B (in pfr__publish()) orders the record and lost_end before head */
	pfr_writer_publish(w);
	w->lost = 0;
	PFR_WRITE_ONCE(w->ctl->lost_pending, 0);
}

uint64_t pfr__ring_lost_pending(const struct pfr_ring_ctl *c)
{
	uint64_t n = PFR_READ_ONCE(c->lost_pending);
	uint64_t end = PFR_READ_ONCE(c->lost_end);

	/* free-running positions: head at or past the record's end */
	if (n && end && (int64_t)(PFR_READ_ONCE(c->head) - end) >= 0)
		return 0;
	return n;
}

/* OVERWRITE: move `oldest` past whole records until the bytes up to `end`
 * fit, and publish it before any byte of those records is overwritten. */
static void pfr__overwrite_room(struct pfr_writer *w, uint64_t end)
{
	uint64_t old = w->oldest, size = w->mask + 1;

	while (end - old > size && old != w->head) {
		struct pfr_record_header h;
		/* one load into a private copy: a peer may be rewriting it */
		uint64_t raw = PFR_READ_ONCE(
			*(const uint64_t *)(w->data + (old & w->mask)));

		memcpy(&h, &raw, sizeof(h));
		if (h.size == 0 || (h.size & 7) || h.size > w->head - old) {
			old = w->head; /* damaged: forget it all */
			break;
		}
		old += h.size;
	}
	if (old == w->oldest)
		return;
	w->oldest = w->tail_cache = old;
	PFR_WRITE_ONCE(w->ctl->oldest, old);
	/* purpose: the new oldest before the stores that overwrite what it
	 * frees; pairs with smp_rmb() in pfr_ring_snapshot(), which loads
	 * the bytes and then oldest, seqlock-style. */
	pfr_smp_wmb();
}

/* BLOCK: how often the writer checks for space before it sleeps.  A
 * test-only override: the Relacy model (tests/model/) spins less, because
 * its fair scheduler lets the reader run during every spin and would never
 * reach the sleep it checks. */
#ifndef PFR__BLOCK_SPINS
#define PFR__BLOCK_SPINS 256
#endif

/* BLOCK: a writer that found the ring full spins until this much more
 * than it needs is free (a sixteenth of the ring, at most
 * PFR__BLOCK_SLACK_MAX: about what a reader frees during the spins), and
 * takes the bare need only when its spins run out.  Without the slack a
 * writer behind a reader that frees one record at a time (tail published
 * per record) resumed for every record freed:
 * one tail load per record or two, and its stores landed on the line the
 * reader was still reading, which then crossed between the two caches
 * once per record (measured with 8-byte records at 32 KiB, tail per
 * record, a reader slower than the writer: a slow-path entry every 26-31
 * records without, every 93-135 with; docs/perf-notes-32k.md).  The
 * reader is not starved meanwhile: all but the slack stays readable.
 * After the spins the check is for `need` alone, so no write waits for
 * more than it needs. */
#define PFR__BLOCK_SLACK_SHIFT 4

/* BLOCK: the spins load tail 1, 2, 4, ... PFR__BLOCK_GAP_MAX pauses apart
 * (the same PFR__BLOCK_SPINS pauses in all, 12 loads instead of 256).
 * Each load of tail takes its line from the reader, whose next store of
 * tail then waits for it to come back: behind a writer that polls at every
 * pause, a reader that stores tail per record (pfr_reader_end() after
 * each) pays a line round trip per record.  On two vCPUs the interleaved
 * A/B shows no change either way (BLOCK/DROP 1.01 before, 1.02 after, tail
 * per record, 8-byte records, 32 KiB; docs/results/block-drop-ab.txt);
 * the cost it removes is a cross-core line transfer per poll.  The
 * slack above keeps a sixteenth of the ring readable while the writer
 * waits, so resuming a few dozen pauses late leaves the reader work. */
#define PFR__BLOCK_GAP_MAX 32
#define PFR__BLOCK_SLACK_MAX 16384

static uint64_t pfr__block_want(uint64_t need, uint64_t size)
{
	uint64_t slack = size >> PFR__BLOCK_SLACK_SHIFT;

	if (slack > PFR__BLOCK_SLACK_MAX)
		slack = PFR__BLOCK_SLACK_MAX;
	return need + slack < size ? need + slack : size;
}

/* BLOCK: a sleeping writer is woken once a quarter of the ring more than
 * it needs is free (or the ring is empty), not for every record the reader
 * frees: one sleep then serves many records. */
#define PFR__WRITER_WAKE_SHIFT 2

/*
 * BLOCK: sleep until the reader frees `need` bytes or the deadline.  It
 * first spins, for `need` and the slack (pfr__block_want()), then checks
 * for `need` alone, and only then sleeps.
 *
 * No wake-up is lost.  Before it sleeps the writer stores its watermark
 * (writer_wake_tail: a tail at which `need` bytes and a quarter of the ring
 * are free, at most the head it has published) and writer_waiting, then
 * smp_mb(), then loads tail and sleeps only if the space is still missing.
 * The reader, in pfr_reader_end(), stores tail, then smp_mb(), then loads
 * writer_waiting, and wakes the writer if tail has reached the mark.  That
 * is the store-buffering shape: of a writer's check and any one fenced
 * check of the reader, at least one sees the other's store.  The reader
 * runs the fenced check at least whenever it has read all that its last
 * pfr_reader_begin() showed, and a reader that reads on reaches the
 * writer's published head, which is at or past the mark: there its fenced
 * check either wakes the writer or the writer saw enough space itself.
 * Earlier, the reader also checks every wake_stride bytes and at every
 * publication while writer_waiting shows set, so it wakes the writer as
 * soon as tail passes the mark.  The time-out is a bound, not the argument.
 */
/* BLOCK: the sleep of pfr__writer_block(), in slices of at most
 * PFR__ROLE_LOOK_NS: a reader that died wakes nobody, so after a slice
 * that no wake-up cut short the writer looks whether it lives (/proc):
 * -PFR_E_TIMEDOUT at once when it died (the code the 0.x library returned
 * after the time-out; pfr_ring_reader_alive() tells the two apart). */
static int pfr__writer_sleep(struct pfr_writer *w, uint64_t now,
			     uint64_t deadline)
{
	uint64_t slice = deadline - now;

	if (slice > PFR__ROLE_LOOK_NS)
		slice = PFR__ROLE_LOOK_NS;
	pfr__futex_wait(&w->ctl->writer_waiting, 1, slice);
	if (pfr__now_ns() - now >= slice &&
	    pfr__role_gone(&w->ctl->reader_owner, 1)) {
		PFR_WRITE_ONCE(w->ctl->writer_waiting, 0);
		return -PFR_E_TIMEDOUT;
	}
	return 0;
}

static int pfr__writer_block(struct pfr_writer *w, uint64_t need,
			     uint64_t *deadline)
{
	uint64_t now, size = w->mask + 1;
	uint64_t want = pfr__block_want(need, size);
	uint64_t mark =
		w->head + need - size + (size >> PFR__WRITER_WAKE_SHIFT);

	/* The reader cannot free space it cannot see: publish the records
	 * committed with pfr_writer_commit_deferred() before waiting for it
	 * (otherwise a batch that fills the ring waits for its time-out). */
	pfr_writer_publish(w);
	for (int spun = 0, gap = 1; spun < PFR__BLOCK_SPINS; spun += gap) {
		for (int k = 0; k < gap; k++)
			pfr_cpu_relax();
		if (pfr__writer_space(w, want))
			return 0;
		if (gap < PFR__BLOCK_GAP_MAX)
			gap <<= 1;
	}
	if (pfr__writer_space(w, need))
		return 0;
	now = pfr__now_ns();
	if (!*deadline)
		*deadline = pfr__deadline(now, w->timeout_ns);
	if (now >= *deadline)
		return -PFR_E_TIMEDOUT;
	/* A reader asleep below thresholds that the full ring cannot reach
	 * would never free the space we wait for: wake it, as a flush does. */
	if (w->wait_flag)
		pfr__kick_reader(w);
	/* the mark is at most head, which the reader can reach */
	if ((int64_t)(mark - w->head) > 0)
		mark = w->head;
	PFR_WRITE_ONCE(w->ctl->writer_wake_tail, mark);
	PFR_WRITE_ONCE(w->ctl->writer_waiting, 1);
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_reader_end(): writer_waiting store before the tail load;
	 * without it: litmus/ring-wakeup-sleeper-no-mb.litmus */
	pfr_smp_mb();
	if (pfr__writer_space(w, need)) {
		PFR_WRITE_ONCE(w->ctl->writer_waiting, 0);
		return 0;
	}
	/* A reader that closed frees nothing any more: -PFR_E_TIMEDOUT at
	 * once, not after the time-out (its close clears writer_waiting
	 * after its role word: after the smp_mb() above, one of us sees the
	 * other) */
	if (pfr__role_gone(&w->ctl->reader_owner, 0)) {
		PFR_WRITE_ONCE(w->ctl->writer_waiting, 0);
		return -PFR_E_TIMEDOUT;
	}
	return pfr__writer_sleep(w, now, *deadline);
}

/* In band the word after the last record is the zero the writer keeps
 * there: 8 bytes more in use than the records. */
static uint64_t pfr__inband_extra(const struct pfr_writer *w)
{
	return w->inband ? 8 : 0;
}

static int pfr__reserve_slow(struct pfr_writer *w, uint32_t size)
{
	const uint64_t lost_size = sizeof(struct pfr_lost_record);
	uint64_t deadline = 0, pos, at, end;
	int err;

	for (;;) {
		pos = w->head;
		if (w->lost)
			pfr__place(&pos, lost_size, w->mask);
		pfr__place(&pos, size, w->mask);
		/* end - tail_cache: bytes in use once these records are
		 * written (in band, with the zero word after them); the
		 * cached tail is a lower bound on the real one */
		end = pos + pfr__inband_extra(w);
		if (end - w->tail_cache <= w->mask + 1)
			break;
		if (w->policy == PFR_POLICY_OVERWRITE) {
			pfr__overwrite_room(w, pos);
			break;
		}
		if (pfr__writer_space(w, end - w->head))
			break;
		if (w->policy == PFR_POLICY_DROP) {
			pfr__count_lost(w);
			return -PFR_E_NOSPC;
		}
		err = pfr__writer_block(w, end - w->head, &deadline);
		if (err) {
			pfr__count_lost(w);
			return err;
		}
	}
	pos = w->head;
	if (w->lost) {
		at = pfr__place(&pos, lost_size, w->mask);
		pfr__pad_to(w, at);
		pfr__put_lost(w, at, pos);
	}
	at = pfr__place(&pos, size, w->mask);
	pfr__pad_to(w, at);
	w->res_size = size;
	return 0;
}

/* The fast path's limit (struct pfr_writer): head plus the lower of the
 * room by the cached tail and the room to the end of the data area's
 * current lap, or head itself (no room) while a LOST record waits to go
 * out (every reserve then takes the slow path, which writes it first).  A
 * record reserved by the slow path starts at head; the lap's end computed
 * from there still bounds it.  Every bound is a distance from head, never
 * a sum compared with a sum: positions may run across 2^64 (a ring
 * resumed there, or put there by a hostile peer), and the fast paths
 * compare with pfr__fits().  The cached tail is within a ring behind head
 * (checked at every load, and the writer never passes its bound); a room
 * past the ring is taken as none all the same. */
static void pfr__writer_limit(struct pfr_writer *w)
{
	uint64_t size = w->mask + 1;
	uint64_t by_tail = w->tail_cache + size - w->head;
	uint64_t by_end = size - (w->head & w->mask);
	uint64_t room;

	if (by_tail > size)
		by_tail = 0;
	w->free_end = w->tail_cache + size;
	if (w->inband) {
		/* the record's end leaves the zero word free too */
		by_tail = by_tail < 8 ? 0 : by_tail - 8;
	}
	room = w->lost ? 0 : by_tail < by_end ? by_tail : by_end;
	if (w->inband) {
		/* its fast paths test pfr__inband_fits(); the head-polled
		 * ones see no room */
		w->inband_limit = w->head + room;
		w->limit = w->head;
	} else {
		w->limit = w->head + room;
	}
}

int pfr__writer_reserve_slow(struct pfr_writer *w, uint32_t size)
{
	int err = pfr__reserve_slow(w, size);

	pfr__writer_limit(w);
	return err;
}

void pfr_writer_set_timeout(struct pfr_writer *w, uint64_t ns)
{
	if (w)
		w->timeout_ns = ns;
}

void pfr_writer_flush(struct pfr_writer *w)
{
	struct pfr_ring_ctl *c;

	if (!w || !w->ctl || !w->data)
		return; /* NULL, or a writer never opened (zeroed) */
	c = w->ctl;

	/* A pending LOST count goes out now if it fits, in front of an
	 * 8-byte PAD record (the slow path always places the LOST record
	 * in front of another).  Never waits, never drops. */
	if (w->lost && w->policy != PFR_POLICY_OVERWRITE) {
		uint64_t pos = w->head;

		pfr__place(&pos, sizeof(struct pfr_lost_record), w->mask);
		pfr__place(&pos, 8, w->mask);
		pos += pfr__inband_extra(w);
		if (pos - w->tail_cache <= w->mask + 1 ||
		    pfr__writer_space(w, pos - w->head)) {
			w->res_type = PFR_RECORD_PAD;
			if (pfr__writer_reserve_slow(w, 8) == 0)
				pfr_writer_commit_deferred(w);
		}
	}
	pfr_writer_publish(w);
	PFR_WRITE_ONCE(c->records, w->records);
	pfr__kick_reader(w);
}

/* ---- the reader's blocking wait ---- */

void pfr_reader_set_wakeup(struct pfr_reader *r, uint32_t bytes,
			   uint32_t records)
{
	if (!r || !r->ctl)
		return;
	/* A threshold the ring cannot reach would only ever end in the
	 * time-out: cap it at half the data area, as the kernel caps its
	 * wakeup_watermark. */
	if (bytes > (r->mask + 1) / 2)
		bytes = (uint32_t)((r->mask + 1) / 2);
	PFR_WRITE_ONCE(r->ctl->wake_bytes, bytes);
	PFR_WRITE_ONCE(r->ctl->wake_records, records);
}

/* Whether pfr_reader_wait() returns now: a hostile head, the thresholds
 * met, or unread data that the writer flushed. */
static int pfr__wait_done(const struct pfr_reader *r, int64_t avail,
			  uint64_t mark, uint32_t wb, uint32_t wr)
{
	const struct pfr_ring_ctl *c = r->ctl;

	return avail < 0 ||
	       pfr__wake_met((uint64_t)avail, PFR_READ_ONCE(c->records) - mark,
			     wb, wr) ||
	       (avail > 0 &&
		(int64_t)(PFR_READ_ONCE(c->flush_head) - r->tail) > 0);
}

/* pfr_reader_wait_end()'s end: when the writer closed or (look: /proc is
 * read) died, what it published before (head loaded after its role word):
 * the bytes left to read (the thresholds aside), -PFR_E_CLOSED when none,
 * or a hostile head's error; 0 while the writer may write on. */
static int64_t pfr__wait_end(struct pfr_reader *r, int look)
{
	int64_t avail;

	if (!pfr__role_gone(&r->ctl->writer_owner, look))
		return 0;
	avail = pfr_reader_begin_unpaced(r);
	return avail ? avail : -PFR_E_CLOSED;
}

/* Before a reader sleeps (pfr_reader_wait(), pfr_reader_poll_prepare()):
 * ends its batch, and wakes a BLOCK writer waiting for what it freed. */
static void pfr__wait_enter(struct pfr_reader *r)
{
	struct pfr_ring_ctl *c = r->ctl;

	pfr_reader_end(r);
	if (r->iflags & PFR__READER_WAKE_WRITER) {
		/* the check pfr_reader_end() may have skipped (the reader
		 * may sleep with records unread) */
		r->wake_checked = r->tail;
		/* purpose: store-buffering hand-shake, as in
		 * pfr_reader_end(); pairs with smp_mb() in
		 * pfr__writer_block(): tail store before writer_waiting load;
		 * without it: litmus/ring-wakeup-waker-no-mb.litmus */
		pfr_smp_mb();
		if (PFR_READ_ONCE(c->writer_waiting))
			pfr__reader_wake_writer(r);
	}
}

/* Set by pfr_reader_wait_end() around its call of pfr_reader_wait() in
 * this thread: the wait then also ends at the end of stream, and sleeps in
 * slices so that a dead writer is noticed.  (The one loop stays in
 * pfr_reader_wait(), where the models and tools/mutate.py find its
 * barrier.) */
static __thread int pfr__wait_end_of_stream;

int64_t pfr_reader_wait(struct pfr_reader *r, uint64_t timeout_ns)
{
	struct pfr_ring_ctl *c = r ? r->ctl : NULL;
	int end_of_stream = pfr__wait_end_of_stream;
	uint64_t deadline, now, mark, slice;
	uint32_t wb, wr;
	int64_t avail, end;
	int look = 0; /* a dead writer is looked for (/proc) only after a
		       * slice that no wake-up cut short: not per sleep */

	if (!c || !(r->iflags & PFR__READER_CAN_WAIT))
		return -PFR_E_INVAL;
	pfr__wait_enter(r);
	wb = PFR_READ_ONCE(c->wake_bytes);
	wr = PFR_READ_ONCE(c->wake_records);
	mark = PFR_READ_ONCE(c->records);
	deadline = pfr__deadline(pfr__now_ns(), timeout_ns);
	for (;;) {
		avail = pfr_reader_begin(r);
		if (pfr__wait_done(r, avail, mark, wb, wr))
			return avail;
		PFR_WRITE_ONCE(c->wake_mark, mark);
		PFR_WRITE_ONCE(c->reader_waiting, 1);
		/* purpose: store-buffering hand-shake; pairs with smp_mb()
		 * in pfr_writer_publish() and pfr_writer_flush():
		 * reader_waiting store before the head (and flush_head) load;
		 * without it: litmus/ring-wakeup-sleeper-no-mb.litmus */
		pfr_smp_mb();
		avail = pfr_reader_begin(r);
		if (pfr__wait_done(r, avail, mark, wb, wr)) {
			PFR_WRITE_ONCE(c->reader_waiting, 0);
			return avail;
		}
		/* the writer closed (its close clears reader_waiting after
		 * its role word: after the smp_mb() above, one of us sees
		 * the other), or died (looked for after a slice) */
		end = end_of_stream ? pfr__wait_end(r, look) : 0;
		if (end) {
			PFR_WRITE_ONCE(c->reader_waiting, 0);
			return end;
		}
		now = pfr__now_ns();
		if (now >= deadline) {
			PFR_WRITE_ONCE(c->reader_waiting, 0);
			return avail > 0 ? avail : -PFR_E_TIMEDOUT;
		}
		slice = deadline - now;
		if (end_of_stream && slice > PFR__ROLE_LOOK_NS)
			slice = PFR__ROLE_LOOK_NS;
		pfr__futex_wait(&c->reader_waiting, 1, slice);
		look = pfr__now_ns() - now >= slice;
	}
}

int64_t pfr_reader_wait_end(struct pfr_reader *r, uint64_t timeout_ns)
{
	int64_t rc;

	pfr__wait_end_of_stream = 1;
	rc = pfr_reader_wait(r, timeout_ns);
	pfr__wait_end_of_stream = 0;
	return rc;
}

/* The reader's waker when it may poll: this process holds the ring's
 * eventfd. */
static struct pfr__waker *pfr__reader_waker(const struct pfr_reader *r)
{
	struct pfr__waker *wk;

	if (!r || !r->ctl || !(r->iflags & PFR__READER_CAN_WAIT))
		return NULL;
	wk = pfr__waker_find(r->ctl);
	return wk && wk->word == &r->ctl->reader_waiting && wk->efd >= 0 ? wk
									 : NULL;
}

/*
 * Arms the eventfd as pfr_reader_wait() sleeps: the mark and
 * reader_waiting = PFR__WAKE_POLL, smp_mb(), then head, the thresholds
 * and the writer's role word are looked at again (the store-buffering
 * hand-shake of the wait, with the eventfd write for the futex wake: the
 * writer's pfr__wake_reader_word()).  A writer's close clears the word
 * after its role word, so one of the two sees the other.
 */
int pfr_reader_poll_prepare(struct pfr_reader *r)
{
	struct pfr_ring_ctl *c;
	uint64_t mark;
	uint32_t wb, wr;
	int64_t avail;

	if (!pfr__reader_waker(r))
		return -PFR_E_INVAL;
	c = r->ctl;
	pfr__wait_enter(r);
	wb = PFR_READ_ONCE(c->wake_bytes);
	wr = PFR_READ_ONCE(c->wake_records);
	mark = PFR_READ_ONCE(c->records);
	avail = pfr_reader_begin_unpaced(r);
	if (pfr__wait_done(r, avail, mark, wb, wr))
		return 1;
	PFR_WRITE_ONCE(c->wake_mark, mark);
	PFR_WRITE_ONCE(c->reader_waiting, PFR__WAKE_POLL);
	/* purpose: store-buffering hand-shake; pairs with smp_mb() in
	 * pfr_writer_publish() and pfr_writer_flush(), and with the role
	 * CAS of pfr_writer_close(): reader_waiting store before the head,
	 * flush_head and writer_owner loads; without it:
	 * litmus/ring-wakeup-sleeper-no-mb.litmus */
	pfr_smp_mb();
	avail = pfr_reader_begin_unpaced(r);
	if (pfr__wait_done(r, avail, mark, wb, wr) ||
	    pfr__role_gone(&c->writer_owner, 0)) {
		PFR_WRITE_ONCE(c->reader_waiting, 0);
		return 1;
	}
	return 0;
}

int pfr_reader_poll_done(struct pfr_reader *r)
{
	struct pfr__waker *wk = pfr__reader_waker(r);

	if (!wk)
		return -PFR_E_INVAL;
	if (PFR_READ_ONCE(r->ctl->reader_waiting))
		PFR_WRITE_ONCE(r->ctl->reader_waiting, 0);
	pfr__eventfd_drain(wk->efd);
	return 0;
}

/* ---- flight-recorder snapshots ---- */

/*
 * The writer publishes `oldest` (the first record it has not begun to
 * overwrite) before it overwrites anything, and head after it writes.  So a
 * byte that a snapshot read at position p was intact when it was read if a
 * load of oldest made after the read (after smp_rmb()) still finds oldest
 * at or below p: had the writer overwritten that byte first, it would have
 * stored a larger oldest before doing so (the seqlock argument).
 *
 * A snapshot loads head, then oldest, walks the record headers from oldest
 * until what is left up to head fits in the caller's buffer, copies that
 * rest, and loads oldest again.  Every PFR__SNAP_BATCH headers, and before
 * it believes a header that fails its checks, it loads oldest to confirm
 * the headers read since the last confirmation; when oldest has moved past
 * them it resumes at the new oldest, a record boundary the writer stored.
 * It needs no memory but the caller's buffer, copies at most buflen bytes
 * per attempt, and reads a bounded number of headers, so neither a hostile
 * ring's declared size nor a writer that never stops costs it more than a
 * walk of the ring.
 *
 * Every value loaded from shared memory is checked where it is loaded: head
 * for its alignment, every load of oldest by pfr__snap_oldest(), every
 * header by pfr__snap_hdr(), and every header once more in the private copy
 * the snapshot returns.
 */

/* Headers walked between two confirming loads of oldest. */
#define PFR__SNAP_BATCH 64
/* Copies a snapshot makes before it gives up on a writer that keeps
 * overwriting the headers it walked. */
#define PFR__SNAP_TRIES 4

/* Loads oldest once and checks it: 8-aligned and in [lo, h] (free-running
 * counters: h - o <= h - lo).  Ahead of head: everything up to the head
 * this snapshot loaded was overwritten, -PFR_E_OVERWRITTEN.  Behind lo:
 * more than a ring behind head, or moved backwards, which no writer does,
 * -PFR_E_HEAD_AHEAD. */
static int pfr__snap_oldest(const struct pfr_ring_ctl *c, uint64_t lo,
			    uint64_t h, uint64_t *o)
{
	uint64_t v = PFR_READ_ONCE(c->oldest);

	if (v & 7)
		return -PFR_E_RECSIZE_ALIGN;
	if (h - v > h - lo)
		return (int64_t)(h - v) < 0 ? -PFR_E_OVERWRITTEN
					    : -PFR_E_HEAD_AHEAD;
	*o = v;
	return 0;
}

/* Checks a record header (as loaded, in raw) with room bytes left before
 * head: 0 with *h filled, or the first check it fails. */
static int pfr__snap_hdr(uint64_t raw, uint64_t room,
			 struct pfr_record_header *h)
{
	memcpy(h, &raw, sizeof(*h));
	if (h->size == 0)
		return -PFR_E_RECSIZE_ZERO;
	if (h->size & 7)
		return -PFR_E_RECSIZE_ALIGN;
	if (h->size > room)
		return -PFR_E_RECSIZE_PAST_HEAD;
	return 0;
}

/* The records in out[from, end), checked again in this private copy, moved
 * to the front of out without the PAD records.  Returns their bytes. */
static int64_t pfr__snap_compact(unsigned char *out, uint64_t from,
				 uint64_t end)
{
	uint64_t n = 0;

	while (from != end) {
		struct pfr_record_header hd;
		uint64_t raw;
		int err;

		memcpy(&raw, out + from, sizeof(raw));
		err = pfr__snap_hdr(raw, end - from, &hd);
		if (err)
			return err;
		if (hd.type != PFR_RECORD_PAD) {
			if (n != from)
				memmove(out + n, out + from, hd.size);
			n += hd.size;
		}
		from += hd.size;
	}
	return (int64_t)n;
}

int64_t pfr_ring_snapshot(struct pfr_ring *ring, void *buf, size_t buflen)
{
	unsigned char *out = (unsigned char *)buf;
	const struct pfr_ring_ctl *c;
	uint64_t size, mask, h, o1, o, p, v, q, budget;
	unsigned int batch = 0, tries = 0;
	int err;

	if (!ring || (!buf && buflen))
		return -PFR_E_INVAL;
	if (ring->policy != PFR_POLICY_OVERWRITE)
		return -PFR_E_INVAL;
	c = ring->ctl;
	size = ring->data_size;
	mask = size - 1;
	/* purpose: head before the record bytes; pairs with B
	 * (store_release or smp_wmb) in pfr_writer_publish() */
	h = pfr_smp_load_acquire(&c->head);
	if (h & 7)
		return -PFR_E_RECSIZE_ALIGN;
	err = pfr__snap_oldest(c, h - size, h, &o1);
	if (err)
		return err;
	/* Every position below is in [o1, h], a window of at most size
	 * bytes: p - o1 compares positions without wrap-around trouble.
	 * p: the next header to read; v: the first header read since the
	 * last confirmation (the chain from o1 up to v is the writer's). */
	budget = size / 4 + PFR__SNAP_BATCH;
	p = v = o1;
	for (;;) {
		while (h - p > buflen) {
			struct pfr_record_header hd;
			uint64_t raw;
			int bad;

			if (!budget--)
				return -PFR_E_OVERWRITTEN;
			raw = PFR_READ_ONCE(
				*(const uint64_t *)(ring->data + (p & mask)));
			bad = pfr__snap_hdr(raw, h - p, &hd);
			if (!bad && ++batch < PFR__SNAP_BATCH) {
				p += hd.size;
				continue;
			}
			batch = 0;
			/* purpose: the headers read before this load of
			 * oldest; pairs with smp_wmb() in
			 * pfr__overwrite_room() */
			pfr_smp_rmb();
			err = pfr__snap_oldest(c, o1, h, &o);
			if (err)
				return err;
			if (o - o1 > v - o1) {
				/* a header read since v may have been
				 * overwritten: resume at the writer's oldest */
				p = v = o;
				continue;
			}
			if (bad)
				return bad; /* it was intact: a damaged ring */
			p += hd.size;
			v = p;
		}
		/* [p, h) fits in buf: copy it in at most two pieces */
		for (q = p; q != h;) {
			uint64_t off = q & mask, chunk = size - off;

			if (chunk > h - q)
				chunk = h - q;
			pfr__copy_out(out + (q - p), ring->data + off, chunk);
			q += chunk;
		}
		/* purpose: the copied bytes before this load of oldest;
		 * pairs with smp_wmb() in pfr__overwrite_room() */
		pfr_smp_rmb();
		err = pfr__snap_oldest(c, o1, h, &o);
		if (err)
			return err;
		if (o - o1 <= v - o1)
			return pfr__snap_compact(out, 0, h - p);
		if (o - o1 >= p - o1) {
			/* the copy below o may be overwritten; o is a record
			 * boundary, and the bytes from it on were intact */
			return pfr__snap_compact(out, o - p, h - p);
		}
		/* o is among the headers not yet confirmed: walk again */
		if (++tries == PFR__SNAP_TRIES)
			return -PFR_E_OVERWRITTEN;
		p = v = o;
		batch = 0;
	}
}
