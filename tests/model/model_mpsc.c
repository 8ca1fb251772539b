/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_mpsc.c - the shared MPSC ring's own code (src/writers/mpsc.c
 * and the inline protocol of <perfring/mpsc.h>), compiled as C against
 * relacy-mpsc-barrier.h, and the threads the Relacy harness runs: 2 or 3
 * producers (and, for slot reuse, a producer that joins during the run)
 * writing a few records of 8 to 32 bytes of payload into a 64-byte ring
 * (records wrap, with PAD records, and space is zeroed and reused), and
 * one reader checking every word of every record, the order of each
 * producer's records, and at the end that every record committed was
 * read once and every drop was reported (LOST records and lost_left).
 *
 * Only time and thread identity are replaced.  The clock reads 0, or,
 * in the cases with stalls, moves 1 ms per reading (every stop at an
 * unwritten or BUSY record times out at its next look, with a stall
 * time-out of 1 ns).  Thread ids come from the harness; a producer the
 * case kills is dead for pfr__mpsc_tid_state() from its death on (the
 * harness sets its flag with release, and the check loads it with
 * acquire, as /proc shows a thread gone only after its last store).  A
 * killed producer stops where the harness kills it (a longjmp back to
 * the start of its thread, from inside the hook of the access it died
 * after); it never leaves, as a killed thread does not.  The data area
 * holds poison for the whole run; record bytes live in the harness's
 * shadows.
 *
 * ATTACH: one thread creates the ring in a shared-memory object
 * (pfr__mpsc_new(), as pfr_mpsc_create_shm() and pfr_mpsc_create_memfd()
 * do once the object is open) while another attaches to it
 * (pfr__mpsc_map(), as pfr_mpsc_attach_fd() does with its duplicate
 * descriptor).  The object's system calls (mmap, munmap, ftruncate,
 * fstat, fcntl) are seams here, as in model_ring.c.  TAKEOVER: the ring
 * starts as a reader killed while zeroing left it (cons_pos < free_pos);
 * the new reader opens in its thread while a producer writes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>

/* ATTACH: the object's system calls, after the system headers that
 * declare them. */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define mmap pfr_model_mpsc_mmap
#define munmap pfr_model_mpsc_munmap
#define ftruncate pfr_model_mpsc_ftruncate
#define fstat pfr_model_mpsc_fstat
#define fcntl pfr_model_mpsc_fcntl
static void *pfr_model_mpsc_mmap(void *addr, size_t len, int prot, int flags,
				 int fd, off_t off);
static int pfr_model_mpsc_munmap(void *addr, size_t len);
static int pfr_model_mpsc_ftruncate(int fd, off_t len);
static int pfr_model_mpsc_fstat(int fd, struct stat *st);
static int pfr_model_mpsc_fcntl(int fd, int cmd, ...);

#include "model_mpsc.h"

#define PFR__MPSC_MODEL 1
unsigned pfr_model_mpsc_block_spins = 256;
#define PFR__MPSC_BLOCK_SPINS ((int)pfr_model_mpsc_block_spins)
/* the fairness flag after two lost CASes, deference of two spins:
 * modelled */
#define PFR__MPSC_FAIR_TRIES 2
#define PFR__MPSC_DEFER_SPINS 2
/* the reader looks at prod_pos at its second idle poll */
#define PFR__MPSC_IDLE_POLLS 2

static int pfr_model_mpsc_clock_runs;
static uint64_t pfr_model_mpsc_clock;
uint32_t pfr_model_mpsc_before_tid;

static uint64_t pfr__mpsc_now(void)
{
	if (pfr_model_mpsc_clock_runs)
		pfr_model_mpsc_clock += 1000000;
	return pfr_model_mpsc_clock;
}

static uint32_t pfr__mpsc_gettid(void)
{
	return pfr_model_mpsc_gettid();
}

static int pfr__mpsc_tid_state(uint32_t tid, uint64_t *start)
{
	*start = tid; /* one start time per modelled thread */
	return !pfr_model_mpsc_alive(tid);
}

static uint64_t pfr__mpsc_pidns(void)
{
	return 0;
}

#include "../../src/writers/mpsc.c"

#define PFR_MODEL_MPSC_TYPE 7u
#define PFR_MODEL_MPSC_WORD(i, k) (((uint64_t)(i) << 16) | (uint64_t)(k))
#define PFR_MODEL_MPSC_MAXW 4 /* payload words */

int pfr_model_mpsc_armed[PFR_MODEL_MPSC_MAXT];

static struct pfr_model_mpsc {
	struct pfr_model_mpsc_cfg cfg;
	struct pfr_mpsc m;
	struct pfr_mpsc_producer p[PFR_MODEL_MPSC_MAXT];
	struct pfr_mpsc_reader r;
	jmp_buf death[PFR_MODEL_MPSC_MAXT];
	unsigned committed[PFR_MODEL_MPSC_MAXT]; /* records written */
	unsigned drops[PFR_MODEL_MPSC_MAXT]; /* -PFR_E_NOSPC */
	unsigned char region[sizeof(struct pfr_mpsc_ctl) +
			     PFR_MODEL_MPSC_SLOTS *
				     sizeof(struct pfr_mpsc_slot)]
		__attribute__((aligned(PFR_RING_LINE)));
	unsigned char data[PFR_MODEL_MPSC_DATA] __attribute__((aligned(64)));
	/* ATTACH: the object's size (ftruncate), the handles made */
	uint64_t obj_size;
	struct pfr_mpsc *created, *attached;
} pfr_model_mpsc;

#define PFR_MODEL_MPSC_FD 1000 /* ATTACH: the object's descriptor */

/* TAKEOVER: where the killed reader stopped: cons_pos 0, free_pos (and
 * prod_pos) cfg.take_free or 48: the bytes below free_pos were read, not
 * all zeroed. */
#define PFR_MODEL_MPSC_TAKE_CONS 0u
#define PFR_MODEL_MPSC_TAKE_FREE                                               \
	(pfr_model_mpsc.cfg.take_free ? pfr_model_mpsc.cfg.take_free : 48u)
#define PFR_MODEL_MPSC_DEAD_READER 98u /* its tid: dead for the model */

/* ---- ATTACH: the object's system calls ---- */

/* Both mappings (the creator's, and the attacher's of the header and then
 * of the whole object) are the static control block and table; the
 * data area of the object (a page after them) is never touched. */
static void *pfr_model_mpsc_mmap(void *addr, size_t len, int prot, int flags,
				 int fd, off_t off)
{
	(void)addr;
	(void)prot;
	(void)flags;
	pfr_model_check(fd == PFR_MODEL_MPSC_FD && off == 0 &&
				len >= sizeof(struct pfr_mpsc_ctl),
			"unmodelled mmap", PFR_MODEL_SITE);
	return pfr_model_mpsc.region;
}

static int pfr_model_mpsc_munmap(void *addr, size_t len)
{
	(void)addr;
	(void)len;
	return 0;
}

/* The object's size: system calls, ordered as the kernel orders them (a
 * plain variable: the model's threads share one system thread). */
static int pfr_model_mpsc_ftruncate(int fd, off_t len)
{
	pfr_model_check(fd == PFR_MODEL_MPSC_FD, "unmodelled ftruncate",
			PFR_MODEL_SITE);
	pfr_model_mpsc.obj_size = (uint64_t)len;
	return 0;
}

static int pfr_model_mpsc_fstat(int fd, struct stat *st)
{
	pfr_model_check(fd == PFR_MODEL_MPSC_FD, "unmodelled fstat",
			PFR_MODEL_SITE);
	__builtin_memset(st, 0, sizeof(*st));
	st->st_size = (off_t)pfr_model_mpsc.obj_size;
	return 0;
}

/* Seals: not supported (a POSIX shm object), so never sealed. */
static int pfr_model_mpsc_fcntl(int fd, int cmd, ...)
{
	(void)fd;
	(void)cmd;
	errno = EINVAL;
	return -1;
}

uint64_t pfr_model_mpsc_busy_mask(void)
{
	return pfr__mpsc_hdr(PFR_MPSC_BUSY, 0, 0);
}

size_t pfr_model_mpsc_fields(struct pfr_model_field *f, size_t max)
{
	size_t n = 0;
#define F(field)                                                               \
	do {                                                                   \
		if (n < max) {                                                 \
			f[n].off = offsetof(struct pfr_mpsc_ctl, field);       \
			f[n].size = sizeof(((struct pfr_mpsc_ctl *)0)->field); \
			f[n].name = #field;                                    \
			n++;                                                   \
		}                                                              \
	} while (0)
	F(magic); /* line 0: ATTACH */
	F(version);
	F(ctl_size);
	F(data_offset);
	F(data_size);
	F(table_offset);
	F(max_producers);
	F(policy);
	F(flags);
	F(max_record);
	F(pidns);
	F(prod_pos);
	F(starving);
	F(records);
	F(cons_pos);
	F(free_pos);
	F(lost_upto);
	F(reader_owner);
	F(reader_start);
	F(writer_waiting);
	F(reader_waiting);
	F(wake_bytes);
	F(wake_records);
	F(wake_mark);
#undef F
	for (size_t i = 0; i < PFR_MODEL_MPSC_SLOTS; i++) {
		size_t base = sizeof(struct pfr_mpsc_ctl) +
			      i * sizeof(struct pfr_mpsc_slot);
#define S(field) {offsetof(struct pfr_mpsc_slot, field), #field}
		static const struct {
			size_t off;
			const char *name;
		} fs[] = {S(owner),	 S(start_time),	   S(lost_total),
			  S(lost_due),	 S(lost_reported), S(lost_left),
			  S(res_pos),	 S(res_end)};
#undef S

		for (size_t k = 0; k < sizeof(fs) / sizeof(fs[0]) && n < max;
		     k++) {
			f[n].off = base + fs[k].off;
			f[n].size = 8;
			f[n].name = fs[k].name;
			n++;
		}
	}
	return n;
}

void pfr_model_mpsc_layout(struct pfr_model_layout *l)
{
	struct pfr_mpsc_ctl *c = (struct pfr_mpsc_ctl *)pfr_model_mpsc.region;

	l->ctl = pfr_model_mpsc.region;
	l->ctl_size = sizeof(pfr_model_mpsc.region);
	l->data = pfr_model_mpsc.data;
	l->data_size = sizeof(pfr_model_mpsc.data);
	l->reader_futex = &c->reader_waiting;
	l->writer_futex = &c->writer_waiting;
}

void pfr_model_mpsc_setup(const struct pfr_model_mpsc_cfg *cfg)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	struct pfr_mpsc_ctl *c = (struct pfr_mpsc_ctl *)x->region;
	struct pfr_mpsc *m = &x->m;

	/* real memory, before the threads (Relacy's before()) */
	x->cfg = *cfg;
	free(x->created);
	free(x->attached);
	x->created = x->attached = NULL;
	x->obj_size = 0;
	pfr_model_mpsc_block_spins = cfg->block_spins;
	pfr_model_mpsc_clock_runs = cfg->stall;
	pfr_model_mpsc_clock = 0;
	for (unsigned i = 0; i < PFR_MODEL_MPSC_MAXT; i++) {
		pfr_model_mpsc_armed[i] = 0;
		x->committed[i] = x->drops[i] = 0;
	}
	__builtin_memset(x->region, 0, sizeof(x->region));
	__builtin_memset(x->data, 0xa5, sizeof(x->data));
	__builtin_memset(m, 0, sizeof(*m));
	if (cfg->scenario == PFR_MODEL_MPSC_ATTACH)
		return; /* a fresh object: zero, size 0; thread 0 creates */
	m->ctl = c;
	m->data_size = PFR_MODEL_MPSC_DATA;
	m->max_producers = cfg->max_producers;
	m->policy = cfg->drop ? PFR_POLICY_DROP : PFR_POLICY_BLOCK;
	m->flags = cfg->scenario == PFR_MODEL_MPSC_WAKE ? PFR_MPSC_WAIT : 0;
	m->fd = -1;
	m->table = (struct pfr_mpsc_slot *)(x->region + sizeof(*c));
	m->data = x->data;
	m->max_record = pfr__mpsc_max_record(PFR_MODEL_MPSC_DATA);
	c->magic = PFR_MPSC_MAGIC;
	c->version = PFR_MPSC_VERSION;
	c->max_producers = cfg->max_producers;
	c->data_size = PFR_MODEL_MPSC_DATA;
	if (cfg->scenario == PFR_MODEL_MPSC_TAKEOVER) {
		/* the killed reader's state; the data words below free_pos
		 * hold the consumed records' bytes (the harness's shadows) */
		c->cons_pos = PFR_MODEL_MPSC_TAKE_CONS;
		c->free_pos = PFR_MODEL_MPSC_TAKE_FREE;
		c->prod_pos = PFR_MODEL_MPSC_TAKE_FREE;
		c->reader_owner = PFR_MODEL_MPSC_DEAD_READER;
		c->reader_start = PFR_MODEL_MPSC_DEAD_READER;
	}
}

uint64_t pfr_model_mpsc_takeover_free(void)
{
	return PFR_MODEL_MPSC_TAKE_FREE;
}

/* Joins the producers and opens the reader, through the hooks. */
int pfr_model_mpsc_open(void)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	int err;

	if (x->cfg.scenario == PFR_MODEL_MPSC_ATTACH)
		return 0; /* thread 0 creates the ring, the last attaches */
	for (unsigned i = 0; i < x->cfg.producers; i++) {
		pfr_model_mpsc_before_tid = 10 + i;
		err = pfr_mpsc_join(&x->m, &x->p[i]);
		if (err)
			return err;
		pfr_mpsc_set_timeout(&x->p[i], UINT64_MAX);
		for (unsigned k = 0; k < x->cfg.pre_lost[i]; k++) {
			pfr__mpsc_count_lost(&x->p[i]);
			x->drops[i]++;
		}
	}
	if (x->cfg.scenario == PFR_MODEL_MPSC_TAKEOVER)
		return 0; /* the reader opens in its thread */
	pfr_model_mpsc_before_tid = 99;
	err = pfr_mpsc_reader(&x->m, &x->r);
	if (!err && x->cfg.stall)
		pfr_mpsc_set_stall(&x->r, 1);
	return err;
}

/* ATTACH: the options of the ring thread 0 creates (the smallest data
 * area, the model's table). */
static const struct pfr_mpsc_opts pfr_model_mpsc_attach_opts = {
	.sz = sizeof(struct pfr_mpsc_opts),
	.data_size = 4096,
	.max_producers = PFR_MODEL_MPSC_SLOTS,
	.policy = PFR_POLICY_DROP,
	.flags = PFR_MPSC_WAIT,
};

/* ATTACH, thread 0: creates the ring in the object. */
static void pfr_model_mpsc_create(void)
{
	pfr_model_check(pfr__mpsc_new(&pfr_model_mpsc.created,
				      PFR_MODEL_MPSC_FD,
				      &pfr_model_mpsc_attach_opts) == 0,
			"pfr__mpsc_new failed", PFR_MODEL_SITE);
}

/* ATTACH, the last thread: attaches while the ring is being created.  It
 * may find the object too small (not yet sized) or without its magic (not
 * yet complete); once it sees the magic, every field must be the
 * creator's. */
static void pfr_model_mpsc_attach(void)
{
	const struct pfr_mpsc_opts *o = &pfr_model_mpsc_attach_opts;
	struct pfr_mpsc *m = NULL;
	int err = pfr__mpsc_map(&m, PFR_MODEL_MPSC_FD, 1u << 20);

	pfr_model_mpsc.attached = m;
	if (err == -PFR_E_MAPPING || err == -PFR_E_MAGIC)
		return;
	pfr_model_check(err == 0,
			"attach: a ring seen half-created (version or layout "
			"refused)",
			PFR_MODEL_SITE);
	if (err)
		return;
	pfr_model_check(m->data_size == o->data_size &&
				m->max_producers == o->max_producers &&
				m->policy == (uint32_t)o->policy &&
				m->flags == o->flags &&
				m->max_record == pfr__mpsc_max_record(4096) &&
				(unsigned char *)m->table ==
					pfr_model_mpsc.region +
						sizeof(struct pfr_mpsc_ctl),
			"attach: the ring's fields differ from the creator's",
			PFR_MODEL_SITE);
}

void pfr_model_mpsc_die(unsigned t)
{
	longjmp(pfr_model_mpsc.death[t], 1);
}

static void pfr_model_mpsc_fill(uint64_t *buf, unsigned i, unsigned k,
				unsigned words)
{
	for (unsigned j = 0; j < words; j++)
		buf[j] = PFR_MODEL_MPSC_WORD(i + 1, k) ^ ((uint64_t)j << 40);
}

void pfr_model_mpsc_producer(unsigned i)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	struct pfr_mpsc_producer *p = &x->p[i];
	unsigned len = x->cfg.payload[i], words = len / 8;

	if (x->cfg.scenario == PFR_MODEL_MPSC_ATTACH) {
		pfr_model_mpsc_create();
		return;
	}
	if (setjmp(x->death[i]))
		return; /* killed: the harness saw it ended */
	if (i >= x->cfg.producers) {
		/* a producer joining during the run: it waits for a slot
		 * the reader has passed */
		while (pfr_mpsc_join(&x->m, p) != 0)
			pfr_cpu_relax();
		pfr_mpsc_set_timeout(p, UINT64_MAX);
	}
	for (unsigned k = 1; k <= x->cfg.records; k++) {
		uint64_t buf[2 * PFR_MODEL_MPSC_MAXW], before = p->records;
		unsigned n = 1;
		int err;

		if (x->cfg.death[i] && k >= x->cfg.death_at[i])
			pfr_model_mpsc_armed[i] = 1;
		pfr_model_mpsc_fill(buf, i, k, words);
		if (x->cfg.scenario == PFR_MODEL_MPSC_BURST &&
		    k < x->cfg.records) {
			pfr_model_mpsc_fill(buf + words, i, k + 1, words);
			err = pfr_mpsc_write_burst(p, PFR_MODEL_MPSC_TYPE, buf,
						   len, 2);
			n = 2;
		} else {
			err = pfr_mpsc_write(p, PFR_MODEL_MPSC_TYPE, buf, len);
		}
		if (err == 0)
			x->committed[i] += n;
		else if (err == -PFR_E_NOSPC && x->cfg.drop)
			x->drops[i] += n;
		else
			pfr_model_check(0,
					err == -PFR_E_INVAL
						? "pfr_mpsc_write failed: INVAL"
					: err == -PFR_E_NOSPC
						? "pfr_mpsc_write failed: NOSPC"
					: err == -PFR_E_HEAD_AHEAD
						? "pfr_mpsc_write failed: HEAD_AHEAD"
					: err == -PFR_E_HEAD_BEHIND
						? "pfr_mpsc_write failed: HEAD_BEHIND"
						: "pfr_mpsc_write failed",
					PFR_MODEL_SITE);
		k += n - 1;
	}
	if (x->cfg.death[i] == PFR_MODEL_DIE_LOST_CAS) {
		/* never lost a CAS: ends without leaving, its slot owned;
		 * alive (a thread living on), or with cfg.exits exited
		 * (dead: the sweep may claim its slot) */
		if (x->cfg.exits[i])
			pfr_model_mpsc_exited(i);
		else
			pfr_model_mpsc_finished();
		return;
	}
	pfr_mpsc_leave(p);
	pfr_model_mpsc_finished();
}

/* The record at rec: a whole, ordered record of one producer. */
static void pfr_model_mpsc_check(const struct pfr_record *rec,
				 unsigned *last, unsigned *got, uint64_t *lost)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	unsigned nt = x->cfg.producers + x->cfg.joiners, i, k;
	uint64_t w[PFR_MODEL_MPSC_MAXW + 1];

	if (rec->hdr.type == PFR_RECORD_LOST) {
		pfr_model_check(rec->len == 16, "LOST record size",
				PFR_MODEL_SITE);
		memcpy(w, rec->payload, 16); /* id, lost */
		pfr_model_check(w[0] == rec->hdr.misc &&
					w[0] < x->cfg.max_producers,
				"LOST record id", PFR_MODEL_SITE);
		*lost += w[1];
		return;
	}
	pfr_model_check(rec->hdr.type == PFR_MODEL_MPSC_TYPE && rec->len >= 8 &&
				rec->len <= 8 * PFR_MODEL_MPSC_MAXW,
			"record header", PFR_MODEL_SITE);
	memcpy(w, rec->payload, 8);
	i = (unsigned)(w[0] >> 16) - 1;
	k = (unsigned)(w[0] & 0xffff);
	pfr_model_check(i < nt && rec->len == x->cfg.payload[i] &&
				rec->hdr.misc == x->p[i].index,
			"record's producer", PFR_MODEL_SITE);
	if (i >= nt)
		return;
	pfr_model_check(k > last[i], "record order (once, in order)",
			PFR_MODEL_SITE);
	last[i] = k;
	got[i]++;
	if (rec->len > 8)
		memcpy(w + 1, (const unsigned char *)rec->payload + 8,
		       rec->len - 8);
	for (unsigned j = 0; j < rec->len / 8; j++)
		pfr_model_check(w[j] == (w[0] ^ ((uint64_t)j << 40)),
				"record payload", PFR_MODEL_SITE);
}

/*
 * 1 when the slot's owner word ow names a producer of the run that still
 * owns slot s (same generation, not left) and is alive for the model
 * (never killed: pfr_model_mpsc_alive(), the liveness the library sees).
 */
static int pfr_model_mpsc_live_owner(uint64_t ow, unsigned s)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	uint32_t tid = (uint32_t)ow, t = tid - 10;

	if (!tid || tid < 10 || t >= x->cfg.producers + x->cfg.joiners)
		return 0;
	/* lock_word: the claim's whole generation and the index + 1 */
	return x->p[t].slot == &x->m.table[s] &&
	       x->p[t].lock_word == ((ow >> 32 << 32) | (s + 1)) &&
	       pfr_model_mpsc_alive(tid);
}

/* The end of run's count of drops, after the sweep: every slot's, and
 * lost (read in LOST records so far) plus what stays pending equals
 * drops (what the producers counted). */
static void pfr_model_mpsc_lost_end(uint64_t lost, uint64_t drops)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;

	for (unsigned s = 0; s < x->cfg.max_producers; s++) {
		struct pfr_mpsc_slot *sl = &x->m.table[s];
		uint64_t ow = PFR_READ_ONCE(sl->owner);
		uint64_t left = PFR_READ_ONCE(sl->lost_left);
		uint64_t unread = PFR_READ_ONCE(sl->lost_due) -
				  PFR_READ_ONCE(sl->lost_reported);

		/* A slot a live producer still owns: a DIE_LOST_CAS producer
		 * that never lost its CAS (no cfg.exits) ends without leaving
		 * and is never killed.  Its drops are its own to report (its
		 * next record, flush or leave) and the sweep rightly leaves
		 * them: exactly its pending count is unreported, nothing left
		 * at a leave. */
		if (pfr_model_mpsc_live_owner(ow, s)) {
			uint64_t own = x->p[(uint32_t)ow - 10].lost;

			pfr_model_check(!left && unread == own,
					"a live owner's slot: unreported drops "
					"other than its pending count",
					PFR_MODEL_SITE);
			lost += own;
			continue;
		}
		/* after the sweep, nothing is left unreported in a
		 * slot free or whose owner is dead */
		pfr_model_check(
			!PFR_READ_ONCE(sl->lost_left) &&
				PFR_READ_ONCE(sl->lost_due) ==
					PFR_READ_ONCE(sl->lost_reported),
			"a drop no LOST record carries after the sweep",
			PFR_MODEL_SITE);
		lost += PFR_READ_ONCE(sl->lost_left);
		/* a slot still owned when every producer ended: a
		 * dead owner's, never taken; its drops the reader
		 * did not read are what a next owner would report */
		if ((uint32_t)PFR_READ_ONCE(sl->owner))
			lost += PFR_READ_ONCE(sl->lost_due) -
				PFR_READ_ONCE(sl->lost_reported);
	}
	pfr_model_check(lost == drops,
			"drops != LOST records read + lost_left",
			PFR_MODEL_SITE);
}

void pfr_model_mpsc_reader(void)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	struct pfr_mpsc_reader *r = &x->r;
	unsigned nt = x->cfg.producers + x->cfg.joiners, total = 0, all = 0;
	unsigned last[PFR_MODEL_MPSC_MAXT] = {0}, got[PFR_MODEL_MPSC_MAXT] = {0};
	uint64_t lost = 0, drops = 0;

	if (x->cfg.scenario == PFR_MODEL_MPSC_ATTACH) {
		pfr_model_mpsc_attach();
		return;
	}
	if (x->cfg.scenario == PFR_MODEL_MPSC_TAKEOVER) {
		/* a new reader replaces the killed one: it finishes the
		 * zeroing and frees the space (D) while a producer writes */
		pfr_model_check(pfr_mpsc_reader(&x->m, r) == 0,
				"pfr_mpsc_reader failed (takeover)",
				PFR_MODEL_SITE);
		pfr_model_check(r->tail == PFR_MODEL_MPSC_TAKE_FREE,
				"takeover: the reader starts at free_pos",
				PFR_MODEL_SITE);
		if (x->cfg.stall)
			pfr_mpsc_set_stall(r, 1);
	}
	if (x->cfg.scenario == PFR_MODEL_MPSC_WAKE)
		total = nt * x->cfg.records; /* no drop, no death */
	for (;;) {
		struct pfr_record rec;
		unsigned done = pfr_model_mpsc_done(), n = 0;
		int64_t avail;
		int rc;

		if (x->cfg.scenario == PFR_MODEL_MPSC_WAKE) {
			avail = pfr_mpsc_wait(r, UINT64_MAX);
			pfr_model_check(avail > 0, "pfr_mpsc_wait failed",
					PFR_MODEL_SITE);
		} else {
			avail = pfr_mpsc_begin(r);
			pfr_model_check(avail >= 0, "pfr_mpsc_begin failed",
					PFR_MODEL_SITE);
		}
		while ((rc = pfr_mpsc_next(r, &rec)) == 1) {
			pfr_model_mpsc_check(&rec, last, got, &lost);
			n++;
		}
		pfr_model_check(rc == 0 || rc == -PFR_E_STALLED,
				rc == -PFR_E_LAYOUT ? "pfr_mpsc_next: LAYOUT"
				: rc == -PFR_E_RECSIZE_ZERO
					? "pfr_mpsc_next: RECSIZE_ZERO"
				: rc == -PFR_E_RECSIZE_PAST_HEAD
					? "pfr_mpsc_next: RECSIZE_PAST_HEAD"
				: rc == -PFR_E_HEAD_AHEAD
					? "pfr_mpsc_next: HEAD_AHEAD"
				: rc == -PFR_E_HEAD_BEHIND
					? "pfr_mpsc_next: HEAD_BEHIND"
					: "pfr_mpsc_next failed",
				PFR_MODEL_SITE);
		if (x->cfg.scenario == PFR_MODEL_MPSC_WAKE) {
			all += n;
			if (all >= total)
				break;
			continue;
		}
		pfr_mpsc_end(r);
		if (done == nt && rc == 0 &&
		    /* C1: pairs with R, as in pfr__mpsc_begin_slow() */
		    r->tail == pfr_smp_load_acquire(&r->ctl->prod_pos))
			break; /* every producer ended, all read */
		if (!n)
			pfr_cpu_relax();
	}
	pfr_mpsc_end(r);
	while (pfr_model_mpsc_done() != nt)
		pfr_cpu_relax();
	/* each killed producer leaves at most one reservation (its death
	 * record's; one killed after a lost CAS none), of one record, or
	 * two with drops (a LOST record in front): a hole skipped in two
	 * steps (a stale announcement shorter than the real one taken
	 * first) counts one more */
	{
		unsigned owners = 0;

		for (unsigned i = 0; i < nt; i++)
			if (x->cfg.death[i] != PFR_MODEL_LIVE &&
			    x->cfg.death[i] != PFR_MODEL_DIE_LOST_CAS)
				owners +=
					1 + (x->cfg.drop || x->cfg.pre_lost[i]);
		pfr_model_check(r->dead_skipped <= owners,
				"a dead producer's reservation skipped in "
				"more than one step",
				PFR_MODEL_SITE);
	}
	/* after every producer ended (acquire): what they counted */
	for (unsigned i = 0; i < nt; i++) {
		pfr_model_check(got[i] == x->committed[i],
				"a committed record was not read",
				PFR_MODEL_SITE);
		drops += x->drops[i];
	}
	/* The reader's sweep (issue 34): the drops of every slot free or
	 * dead that no LOST record carried go out in LOST records in the
	 * slot's name; read them.  A record that does not fit (a 64-byte
	 * ring) stays in lost_left for the next sweep: one per slot. */
	for (unsigned t = 0; x->cfg.drop && t <= x->cfg.max_producers; t++) {
		struct pfr_record rec;

		if (!pfr__mpsc_sweep(r, 1))
			break;
		pfr_mpsc_begin(r);
		while (pfr_mpsc_next(r, &rec) == 1)
			pfr_model_mpsc_check(&rec, last, got, &lost);
		pfr_mpsc_end(r);
	}
	if (x->cfg.drop)
		pfr_model_mpsc_lost_end(lost, drops);
}
