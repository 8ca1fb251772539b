/* SPDX-License-Identifier: MIT */
/*
 * perfring stress --mode mpsc - N producers, one reader, one shared ring
 * (<perfring/mpsc.h>), as threads or as processes that attach a memfd
 * inherited across fork.
 *
 * Every record carries { u32 writer; u32 pad; u64 seq; u64 sum; filler }:
 * seq counts every record its writer tried to write (dropped ones too),
 * sum hashes writer, seq, length and filler.  The reader checks that each
 * record's misc names its writer's producer slot, that its checksum holds
 * and that its seq is the writer's next one, after LOST records (whose
 * count moves the expected seq on); it stops at the first mismatch.  At
 * the end, per writer: written = read + lost, exactly, and the lost
 * records reported plus the count still pending equal the writer's
 * losses; and every writer made progress, never going longer than
 * MS_PROGRESS_NS without it (max_gap_ns): under BLOCK a commit, under
 * DROP a return from reserve (a record committed or dropped: DROP
 * promises no share of the space, and a writer of large records in a
 * small ring may drop them all while smaller ones take the space).
 *
 * --kill-writer: writer 0 stops between reserve and commit (half its
 * payload written); once the reader has reported the stall
 * (-PFR_E_STALLED), writer 0 is killed (SIGKILL with --processes; a
 * thread ends itself), and the reader must skip its record as a dead
 * producer's and go on.  --kill-reader (with --processes): the reader is
 * killed with SIGKILL mid-run; every producer must notice (reserve fails
 * and pfr_mpsc_reader_alive() says 0) and exit with status 3, and a new
 * reader then re-attaches and drains what is left, checking every record
 * (from each writer's first record it finds: the batch the dead reader
 * had read but not freed comes again).  The new reader must start where
 * the dead one was freeing (free_pos: it finishes a zeroing the kill cut
 * short), with cons_pos moved there.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "../cli.h"
#include "../../util/payload.h"
#include "mw.h"

#define MS_TYPE 0x4d53u /* "MS" */
#define MS_HDR 24u
#define MS_MAX_WRITERS 256
#define MS_EXIT_READER_DEAD 3
/* The progress bound: every writer commits a record at least this often
 * (from its join to the end of the run; scheduling on a loaded machine
 * included, so generous). */
#define MS_PROGRESS_NS 2000000000ull

enum ms_kill { MS_KILL_NONE, MS_KILL_WRITER, MS_KILL_READER };

struct ms_cfg {
	double seconds;
	int policy; /* -1: both */
	unsigned writers;
	uint32_t min_len, max_len;
	uint64_t ring_size;
	int processes, wait, json;
	enum ms_kill kill;
};

struct ms_writer {
	uint64_t written; /* records attempted (final) */
	uint64_t lost_total; /* the producer's count (final) */
	uint64_t lost_pending; /* in no LOST record (final) */
	uint64_t progress; /* records attempted so far */
	uint64_t committed; /* records committed */
	uint64_t max_gap_ns; /* longest time without a commit */
	uint64_t read; /* reader: records verified */
	uint64_t lost_seen; /* reader: sum of its LOST records */
	uint64_t next_seq; /* reader: the seq expected next */
	uint32_t index; /* producer slot */
	uint32_t joined, done, reader_dead, err;
	int32_t pid;
};

struct ms_shared {
	struct ms_writer w[MS_MAX_WRITERS];
	uint64_t corrupt;
	uint32_t stop; /* the reader failed: everyone stops */
	uint32_t hook_stopped; /* writer 0 stopped mid-record */
	uint32_t stall_seen; /* the reader reported -PFR_E_STALLED after */
	uint32_t hook_killed;
	uint32_t reader_started, reader_done, reader_err, resynced;
	int32_t reader_pid;
	uint64_t stall_reports; /* -PFR_E_STALLED returns */
	uint64_t stalls, stall_ns, stall_max_ns, busy_stops, dead_skipped;
	char first_error[200];
};

static void ms_fail(struct ms_shared *sh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ms_fail(struct ms_shared *sh, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&sh->corrupt, 1, __ATOMIC_RELAXED) == 0) {
		va_start(ap, fmt);
		vsnprintf(sh->first_error, sizeof(sh->first_error), fmt, ap);
		va_end(ap);
	}
	PFR_WRITE_ONCE(sh->stop, 1);
}

static void ms_sleep_us(unsigned us)
{
	struct timespec ts = {0, (long)us * 1000};

	nanosleep(&ts, NULL);
}

/* ---- producer ---- */

struct ms_wctx {
	const struct ms_cfg *cfg;
	struct pfr_mpsc *m;
	struct ms_shared *sh;
	unsigned id;
};

/* Fills one record (writer, seq, checksum, filler) at p of len bytes. */
static void ms_fill(unsigned char *p, uint32_t id, uint64_t seq, uint32_t len)
{
	uint64_t sum;

	memset(p, 0, 8);
	memcpy(p, &id, 4);
	memcpy(p + 8, &seq, 8);
	for (uint32_t i = MS_HDR; i < len; i++)
		p[i] = (unsigned char)(seq * 13 + i + id);
	sum = pfr__payload_hash(id, seq, p + MS_HDR, len - MS_HDR);
	memcpy(p + 16, &sum, 8);
}

/* A commit (or the run's end): the time since the last one, kept if it is
 * the longest. */
static void ms_progress(struct ms_writer *w, uint64_t *last, int commit)
{
	uint64_t now = util_now_ns();

	if (now - *last > w->max_gap_ns)
		w->max_gap_ns = now - *last;
	*last = now;
	w->committed += (uint64_t)commit;
}

static void ms_final(struct ms_writer *w, struct pfr_mpsc_producer *p,
		     uint64_t seq)
{
	w->written = seq;
	w->lost_total = pfr_mpsc_lost(p);
	w->lost_pending = p->lost;
	/* purpose: the counts before done; pairs with the load_acquire of
	 * done in ms_read() and ms_run() */
	pfr_smp_store_release(&w->done, 1);
}

/* Writer 0 of a --kill-writer run: reserve, write half, and stop there
 * until killed (a process) or until the reader reports the stall (a
 * thread, which then ends without committing).  Returns the reserve error
 * when it could not reserve (the attempt is a dropped record of seq). */
static int ms_hook(struct ms_wctx *x, struct pfr_mpsc_producer *p, uint64_t seq)
{
	struct ms_writer *w = &x->sh->w[x->id];
	unsigned char *dst;

	int err = pfr_mpsc_reserve(p, MS_TYPE, 64, (void **)&dst);

	if (err)
		return err;
	ms_fill(dst, x->id, seq, 64);
	memset(dst + 32, 0, 32); /* half written */
	w->written = seq; /* the stopped record is not counted */
	w->lost_total = pfr_mpsc_lost(p);
	w->lost_pending = p->lost;
	PFR_WRITE_ONCE(x->sh->hook_stopped, 1);
	for (;;) {
		if (!x->cfg->processes && PFR_READ_ONCE(x->sh->stall_seen)) {
			pfr_smp_store_release(&w->done, 1); /* purpose: counts
				before done; pairs with ms_read()'s acquire */
			pthread_exit(NULL);
		}
		if (PFR_READ_ONCE(x->sh->stop))
			return 0;
		ms_sleep_us(1000);
	}
}

static int ms_write(struct ms_wctx *x)
{
	const struct ms_cfg *cfg = x->cfg;
	struct ms_shared *sh = x->sh;
	struct ms_writer *w = &sh->w[x->id];
	struct pfr_mpsc_producer p;
	uint64_t seq = 0, rnd = 0x9e3779b97f4a7c15ull * (x->id + 1), end;
	uint64_t hook_at = 0, fails = 0, last = util_now_ns();
	int err = pfr_mpsc_join(x->m, &p);

	if (err) {
		ms_fail(sh, "writer %u: join: %s", x->id, pfr_strerror(err));
		return 1;
	}
	w->index = p.index;
	pfr_smp_store_release(&w->joined, 1); /* purpose: index before
		joined; pairs with the load_acquire in ms_read() */
	pfr_mpsc_set_timeout(&p, 20000000ull); /* BLOCK: 20 ms */
	end = util_now_ns() + (uint64_t)(cfg->seconds * 1e9);
	if (cfg->kill == MS_KILL_WRITER && x->id == 0)
		hook_at = 2000;
	for (;;) {
		uint32_t span = cfg->max_len - cfg->min_len + 1;
		uint32_t len =
			cfg->min_len + (uint32_t)(util_xorshift(&rnd) % span);
		unsigned char *dst;

		/* --kill-reader: run until the reader's death is seen (or
		 * a minute), whatever the machine's load */
		if ((seq & 255) == 0 &&
		    (util_now_ns() >= end || PFR_READ_ONCE(sh->stop)) &&
		    (cfg->kill != MS_KILL_READER ||
		     util_now_ns() >= end + 60000000000ull))
			break;
		if (hook_at && seq >= hook_at) {
			err = ms_hook(x, &p, seq);
			if (err == -PFR_E_NOSPC || err == -PFR_E_TIMEDOUT ||
			    err == -PFR_E_STALLED) {
				seq++; /* dropped and counted */
				continue;
			}
			if (err) {
				ms_fail(sh, "writer 0: reserve: %s",
					pfr_strerror(err));
				break;
			}
			break; /* stopped: the reader failed */
		}
		len = (len + 7) & ~7u;
		err = pfr_mpsc_reserve(&p, MS_TYPE, len, (void **)&dst);
		seq++;
		PFR_WRITE_ONCE(w->progress, seq);
		if (err == -PFR_E_NOSPC || err == -PFR_E_TIMEDOUT ||
		    err == -PFR_E_STALLED) {
			/* dropped and counted (no space, or BLOCK's
			 * time-out); a dead reader frees nothing.
			 * DROP's progress: reserve returned */
			if (p.policy == PFR_POLICY_DROP)
				ms_progress(w, &last, 0);
			if ((++fails & 15) == 0 && cfg->processes &&
			    PFR_READ_ONCE(sh->reader_started) &&
			    !pfr_mpsc_reader_alive(x->m)) {
				PFR_WRITE_ONCE(w->reader_dead, 1);
				fprintf(stderr,
					"perfring stress: writer %u: the "
					"reader died (pid %d)\n",
					x->id, (int)sh->reader_pid);
				ms_final(w, &p, seq);
				return MS_EXIT_READER_DEAD;
			}
			continue;
		}
		if (err) {
			ms_fail(sh, "writer %u: reserve: %s", x->id,
				pfr_strerror(err));
			break;
		}
		fails = 0;
		ms_fill(dst, x->id, seq - 1, len);
		pfr_mpsc_commit(&p);
		ms_progress(w, &last, 1);
	}
	ms_progress(w, &last, 0); /* the time since the last commit */
	/* the last LOST count goes out once it fits (the reader drains) */
	for (int i = 0; i < 2000 && p.lost && !PFR_READ_ONCE(sh->stop); i++) {
		if (pfr_mpsc_flush(&p) == 0)
			break;
		ms_sleep_us(500);
	}
	ms_final(w, &p, seq);
	pfr_mpsc_leave(&p);
	return 0;
}

static void *ms_writer_thread(void *arg)
{
	return (void *)(intptr_t)ms_write((struct ms_wctx *)arg);
}

/* ---- reader ---- */

static int ms_check(struct ms_shared *sh, unsigned nw,
		    const struct pfr_record *rec, int resync)
{
	const unsigned char *p = (const unsigned char *)rec->payload;
	uint32_t id;
	uint64_t seq, sum;
	struct ms_writer *w;

	if (rec->hdr.type == PFR_RECORD_LOST) {
		uint64_t lid, n;

		memcpy(&lid, p, 8);
		memcpy(&n, p + 8, 8);
		for (unsigned i = 0; i < nw; i++) {
			w = &sh->w[i];
			if (PFR_READ_ONCE(w->joined) &&
			    w->index == rec->hdr.misc && lid == w->index) {
				w->lost_seen += n;
				w->next_seq += n;
				return 0;
			}
		}
		ms_fail(sh, "LOST record of unknown producer %u",
			rec->hdr.misc);
		return -1;
	}
	if (rec->hdr.type != MS_TYPE || rec->len < MS_HDR) {
		ms_fail(sh, "record type %u length %u", rec->hdr.type,
			rec->len);
		return -1;
	}
	memcpy(&id, p, 4);
	memcpy(&seq, p + 8, 8);
	memcpy(&sum, p + 16, 8);
	if (id >= nw) {
		ms_fail(sh, "record of writer %u (of %u)", id, nw);
		return -1;
	}
	w = &sh->w[id];
	if (rec->hdr.misc != w->index) {
		ms_fail(sh, "writer %u's record in producer slot %u, not %u",
			id, rec->hdr.misc, w->index);
		return -1;
	}
	if (sum != pfr__payload_hash(id, seq, p + MS_HDR, rec->len - MS_HDR)) {
		ms_fail(sh, "writer %u seq %llu: checksum mismatch", id,
			(unsigned long long)seq);
		return -1;
	}
	if (resync) {
		/* A new reader's first record of this writer: records the
		 * dead reader read but had not freed (no consumer store
		 * yet) come again - at-least-once across a reader crash. */
		w->next_seq = seq;
		sh->resynced++;
	}
	if (seq != w->next_seq) {
		ms_fail(sh, "writer %u: seq %llu, expected %llu", id,
			(unsigned long long)seq,
			(unsigned long long)w->next_seq);
		return -1;
	}
	w->next_seq++;
	w->read++;
	return 0;
}

static int ms_all_done(struct ms_shared *sh, unsigned nw)
{
	for (unsigned i = 0; i < nw; i++)
		/* purpose: the writers' final counts after done; pairs
		 * with the store_release in ms_final() */
		if (!pfr_smp_load_acquire(&sh->w[i].done))
			return 0;
	return 1;
}

static void ms_read(const struct ms_cfg *cfg, struct pfr_mpsc *m,
		    struct ms_shared *sh, int resync_first)
{
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	struct pfr_record rec;
	unsigned nw = cfg->writers;
	unsigned char resync[MS_MAX_WRITERS];
	/* a reader killed while zeroing what it had read left free_pos
	 * ahead of cons_pos: the new one finishes and resumes there */
	uint64_t freeing = PFR_READ_ONCE(pfr_mpsc_ctl(m)->free_pos);
	int err = pfr_mpsc_reader(m, &r), rc, done = 0;

	if (err) {
		sh->reader_err = (uint32_t)-err;
		PFR_WRITE_ONCE(sh->stop, 1);
		return;
	}
	if (resync_first &&
	    (r.tail != freeing ||
	     PFR_READ_ONCE(pfr_mpsc_ctl(m)->cons_pos) != freeing))
		ms_fail(sh,
			"the new reader starts at %llu, not at the dead "
			"one's free position %llu",
			(unsigned long long)r.tail,
			(unsigned long long)freeing);
	PFR_WRITE_ONCE(sh->reader_started, 1);
	memset(resync, resync_first, sizeof(resync));
	pfr_mpsc_set_stall(&r, 20000000ull); /* 20 ms */
	if (cfg->wait)
		pfr_mpsc_set_wakeup(&r, 4096, 0);
	while (!PFR_READ_ONCE(sh->stop)) {
		int64_t av;

		if (cfg->wait)
			av = pfr_mpsc_wait(&r, 5000000ull);
		else
			av = pfr_mpsc_begin(&r);
		if (av == -PFR_E_TIMEDOUT)
			av = pfr_mpsc_begin(&r);
		if (av < 0 && av != -PFR_E_STALLED) {
			sh->reader_err = (uint32_t)-av;
			PFR_WRITE_ONCE(sh->stop, 1);
			break;
		}
		rc = 0;
		if (av != -PFR_E_STALLED)
			while ((rc = pfr_mpsc_next(&r, &rec)) == 1) {
				unsigned id = 0;

				if (rec.hdr.type == MS_TYPE && rec.len >= 4)
					memcpy(&id, rec.payload, 4);
				if (ms_check(sh, nw, &rec,
					     id < nw && resync[id]))
					break;
				if (id < nw)
					resync[id] = 0;
			}
		else
			rc = -PFR_E_STALLED;
		if (rc == -PFR_E_STALLED) {
			sh->stall_reports++;
			ms_sleep_us(100);
			if (PFR_READ_ONCE(sh->hook_stopped) &&
			    !PFR_READ_ONCE(sh->stall_seen)) {
				uint64_t until = util_now_ns() + 10000000000ull;

				PFR_WRITE_ONCE(sh->stall_seen, 1);
				/* Wait for writer 0's end (a thread) or death
				 * (a process): the skip that follows relies
				 * on it.  Its done flag, stored after its
				 * last write into the ring, orders that write
				 * before our consumer store and so before the
				 * next producer's reuse of the space (which a
				 * thread's exit orders too, unseen by TSan).
				 * purpose: pairs with the store_release of
				 * done in ms_hook() and ms_run(). */
				while (!pfr_smp_load_acquire(&sh->w[0].done) &&
				       util_now_ns() < until)
					ms_sleep_us(1000);
			}
		} else if (rc < 0) {
			sh->reader_err = (uint32_t)-rc;
			PFR_WRITE_ONCE(sh->stop, 1);
			break;
		}
		pfr_mpsc_end(&r);
		if (done)
			break;
		if (rc == 0 && ms_all_done(sh, nw)) {
			/* one more pass after every writer finished: all
			 * their records are reserved by now */
			pfr_mpsc_stats(m, NULL, &st);
			if (st.prod_pos == r.tail)
				done = 1;
		}
		if (rc == 0 && !cfg->wait)
			sched_yield();
	}
	pfr_mpsc_stats(m, &r, &st);
	sh->stalls = st.stalls;
	sh->stall_ns = st.stall_ns;
	sh->stall_max_ns = st.stall_max_ns;
	sh->busy_stops = st.busy_stops;
	sh->dead_skipped = st.dead_skipped;
	pfr_mpsc_reader_close(&r);
	PFR_WRITE_ONCE(sh->reader_done, 1);
}

struct ms_rctx {
	const struct ms_cfg *cfg;
	struct pfr_mpsc *m;
	struct ms_shared *sh;
};

static void *ms_reader_thread(void *arg)
{
	struct ms_rctx *x = arg;

	ms_read(x->cfg, x->m, x->sh, 0);
	return NULL;
}

/* ---- one run ---- */

static struct pfr_mpsc *ms_attach_child(struct pfr_mpsc *m)
{
	struct pfr_mpsc *a = NULL;

	if (pfr_mpsc_attach_fd(&a, pfr_mpsc_fd(m), 0))
		return NULL;
	return a;
}

#define MS_WHY 200

/* The processes run: a reader process and one process per writer over
 * the memfd ring, with the kill drill cfg asks for.  A failure is
 * described in why (MS_WHY bytes), unless why already holds one. */
static void ms_run_processes(const struct ms_cfg *cfg, struct pfr_mpsc *m,
			     struct ms_shared *sh, char *why)
{
	unsigned nw = cfg->writers;
	int reader_dead_ok = 1;
	pid_t rpid;
	int st;

	rpid = cli_stress_fork();
	if (rpid == 0) {
		struct pfr_mpsc *a = ms_attach_child(m);

		if (!a)
			_exit(1);
		ms_read(cfg, a, sh, 0);
		_exit(0);
	}
	sh->reader_pid = rpid;
	for (unsigned i = 0; i < nw; i++) {
		pid_t pid = cli_stress_fork();

		if (pid == 0) {
			struct ms_wctx x = {cfg, ms_attach_child(m), sh, i};

			if (!x.m)
				_exit(1);
			_exit(ms_write(&x));
		}
		sh->w[i].pid = pid;
	}
	if (cfg->kill == MS_KILL_READER) {
		/* kill it once every writer has made progress */
		uint64_t until;

		while (!PFR_READ_ONCE(sh->reader_started))
			ms_sleep_us(1000);
		until = util_now_ns() + (uint64_t)(cfg->seconds * 5e8);
		while (util_now_ns() < until)
			ms_sleep_us(1000);
		kill(rpid, SIGKILL);
	}
	while (cfg->kill == MS_KILL_WRITER && !PFR_READ_ONCE(sh->hook_killed) &&
	       !PFR_READ_ONCE(sh->reader_done)) {
		if (PFR_READ_ONCE(sh->stall_seen)) {
			kill(sh->w[0].pid, SIGKILL);
			waitpid(sh->w[0].pid, &st, 0);
			PFR_WRITE_ONCE(sh->hook_killed, 1);
			/* purpose: its last counts, stored before it
			 * stopped, count as final; pairs with the
			 * reader's acquire in ms_all_done() */
			pfr_smp_store_release(&sh->w[0].done, 1);
			break;
		}
		ms_sleep_us(1000);
	}
	for (unsigned i = 0; i < nw; i++) {
		if (cfg->kill == MS_KILL_WRITER && i == 0)
			continue;
		waitpid(sh->w[i].pid, &st, 0);
		if (cfg->kill == MS_KILL_READER) {
			if (!WIFEXITED(st) ||
			    WEXITSTATUS(st) != MS_EXIT_READER_DEAD ||
			    !sh->w[i].reader_dead)
				reader_dead_ok = 0;
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			if (!why[0])
				snprintf(why, MS_WHY,
					 "writer %u exited with %d", i,
					 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		}
	}
	waitpid(rpid, &st, 0);
	if (cfg->kill == MS_KILL_READER) {
		/* re-attach: a new reader takes the dead one's role
		 * and drains what is left */
		if (!WIFSIGNALED(st))
			snprintf(why, MS_WHY, "the reader was not killed");
		if (!reader_dead_ok && !why[0])
			snprintf(why, MS_WHY,
				 "a writer did not report the reader's "
				 "death with exit status %d",
				 MS_EXIT_READER_DEAD);
		ms_read(cfg, m, sh, 1);
	}
}

/* The threads run: a reader thread and one thread per writer. */
static void ms_run_threads(const struct ms_cfg *cfg, struct pfr_mpsc *m,
			   struct ms_shared *sh)
{
	unsigned nw = cfg->writers;
	pthread_t th[MS_MAX_WRITERS], rt;
	struct ms_wctx x[MS_MAX_WRITERS];
	struct ms_rctx rx = {cfg, m, sh};

	pthread_create(&rt, NULL, ms_reader_thread, &rx);
	for (unsigned i = 0; i < nw; i++) {
		x[i] = (struct ms_wctx){cfg, m, sh, i};
		pthread_create(&th[i], NULL, ms_writer_thread, &x[i]);
	}
	for (unsigned i = 0; i < nw; i++)
		pthread_join(th[i], NULL);
	pthread_join(rt, NULL);
}

struct ms_totals {
	uint64_t written, read, lost;
};

/* Adds up the writers' counts into t and checks them: per writer,
 * written = read + lost (not after --kill-reader), and the killed
 * writer's stall and skipped record.  The first failure goes to why. */
static void ms_account(const struct ms_cfg *cfg, int policy,
		       const struct ms_shared *sh, struct ms_totals *t,
		       char *why)
{
	unsigned nw = cfg->writers;

	for (unsigned i = 0; i < nw; i++) {
		const struct ms_writer *w = &sh->w[i];

		t->written += w->written;
		t->read += w->read;
		t->lost += w->lost_total;
		if (cfg->kill == MS_KILL_READER)
			continue; /* checked for corruption and order only */
		if (w->written != w->read + w->lost_total ||
		    w->lost_seen + w->lost_pending != w->lost_total) {
			if (!why[0])
				snprintf(why, MS_WHY,
					 "writer %u: written %llu != read "
					 "%llu + lost %llu (reported %llu, "
					 "pending %llu)",
					 i, (unsigned long long)w->written,
					 (unsigned long long)w->read,
					 (unsigned long long)w->lost_total,
					 (unsigned long long)w->lost_seen,
					 (unsigned long long)w->lost_pending);
		}
	}
	for (unsigned i = 0; i < nw && cfg->kill != MS_KILL_READER; i++) {
		const struct ms_writer *w = &sh->w[i];

		if ((cfg->kill == MS_KILL_WRITER && i == 0) || why[0])
			continue; /* stopped on purpose */
		if ((policy == PFR_POLICY_BLOCK && !w->committed) ||
		    w->max_gap_ns > MS_PROGRESS_NS)
			snprintf(why, MS_WHY,
				 "writer %u: %llu records, none for %llu ms "
				 "(progress bound %llu ms)",
				 i, (unsigned long long)w->committed,
				 (unsigned long long)(w->max_gap_ns / 1000000),
				 MS_PROGRESS_NS / 1000000);
	}
	if (cfg->kill == MS_KILL_WRITER && !why[0]) {
		if (!sh->stall_seen)
			snprintf(why, MS_WHY,
				 "the stopped writer's stall was not reported");
		else if (sh->dead_skipped != 1)
			snprintf(why, MS_WHY,
				 "dead producers' records skipped: %llu, not 1",
				 (unsigned long long)sh->dead_skipped);
	}
}

/* Prints the run's result: one JSON object, or one line (and why). */
static void ms_report(const struct ms_cfg *cfg, int policy,
		      const struct ms_shared *sh, const struct ms_totals *t,
		      double secs, const char *why, int bad, FILE *out)
{
	unsigned nw = cfg->writers;
	uint64_t gap = 0;

	for (unsigned i = 0; i < nw; i++)
		if (sh->w[i].max_gap_ns > gap &&
		    !(cfg->kill == MS_KILL_WRITER && i == 0))
			gap = sh->w[i].max_gap_ns;
	if (cfg->json) {
		fprintf(out,
			"{\"mode\":\"mpsc\",\"writers\":%u,\"transport\":"
			"\"%s\",\"policy\":\"%s\",\"wait\":%s,\"kill\":\"%s\","
			"\"seconds\":%.3f,\"written\":%llu,\"read\":%llu,"
			"\"lost\":%llu,\"corrupt\":%llu,\"busy_stops\":%llu,"
			"\"stalls\":%llu,\"stall_reports\":%llu,"
			"\"stall_ns\":%llu,\"stall_max_ns\":%llu,"
			"\"dead_skipped\":%llu,\"max_gap_ns\":%llu,"
			"\"error\":",
			nw, cfg->processes ? "processes" : "threads",
			pfr_policy_name((enum pfr_policy)policy),
			cfg->wait ? "true" : "false",
			cfg->kill == MS_KILL_WRITER   ? "writer"
			: cfg->kill == MS_KILL_READER ? "reader"
						      : "none",
			secs, (unsigned long long)t->written,
			(unsigned long long)t->read,
			(unsigned long long)t->lost,
			(unsigned long long)sh->corrupt,
			(unsigned long long)sh->busy_stops,
			(unsigned long long)sh->stalls,
			(unsigned long long)sh->stall_reports,
			(unsigned long long)sh->stall_ns,
			(unsigned long long)sh->stall_max_ns,
			(unsigned long long)sh->dead_skipped,
			(unsigned long long)gap);
		util_json_str(out, why);
		fprintf(out, ",\"ok\":%s}\n", bad ? "false" : "true");
	} else {
		fprintf(out,
			"mpsc %u writers %-9s %-5s written %11llu  read %11llu"
			"  lost %9llu  stalls %llu (max %.1f ms)  dead "
			"skipped %llu  max gap %.1f ms  %s\n",
			nw, cfg->processes ? "processes" : "threads",
			pfr_policy_name((enum pfr_policy)policy),
			(unsigned long long)t->written,
			(unsigned long long)t->read,
			(unsigned long long)t->lost,
			(unsigned long long)sh->stalls,
			(double)sh->stall_max_ns / 1e6,
			(unsigned long long)sh->dead_skipped, (double)gap / 1e6,
			bad ? "FAIL" : "ok");
		if (why[0])
			fprintf(out, "  %s\n", why);
	}
}

static int ms_run(const struct ms_cfg *cfg, int policy, FILE *out)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;
	struct ms_shared *sh;
	struct ms_totals t = {0, 0, 0};
	unsigned nw = cfg->writers;
	uint64_t t0 = util_now_ns();
	int err, bad = 0;
	char why[MS_WHY] = "";

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("perfring stress: mmap");
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.data_size = cfg->ring_size;
	o.policy = (enum pfr_policy)policy;
	o.flags = cfg->wait ? PFR_MPSC_WAIT : 0;
	o.max_producers = nw;
	err = cfg->processes ? pfr_mpsc_create_memfd(&m, &o)
			     : pfr_mpsc_create(&m, &o);
	if (err) {
		fprintf(stderr, "perfring stress: create: %s\n",
			pfr_strerror(err));
		munmap(sh, sizeof(*sh));
		return 1;
	}
	if (cfg->processes)
		ms_run_processes(cfg, m, sh, why);
	else
		ms_run_threads(cfg, m, sh);
	ms_account(cfg, policy, sh, &t, why);
	bad = sh->corrupt || sh->reader_err || why[0];
	if (!why[0] && sh->reader_err)
		snprintf(why, sizeof(why), "reader: %s",
			 pfr_strerror((int)sh->reader_err));
	if (sh->corrupt)
		snprintf(why, sizeof(why), "%s", sh->first_error);
	ms_report(cfg, policy, sh, &t, (double)(util_now_ns() - t0) / 1e9, why,
		  bad, out);
	fflush(out);
	pfr_mpsc_close(m);
	munmap(sh, sizeof(*sh));
	return bad;
}

static void ms_help(void)
{
	printf("usage: perfring stress --mode mpsc [options]\n\n"
	       "N producers write into one shared ring (<perfring/mpsc.h>)\n"
	       "and one reader checks every record: producer slot, checksum\n"
	       "and per-writer sequence (after LOST records).  Exits 1 on the\n"
	       "first mismatch, or unless written = read + lost per writer.\n\n"
	       "  -w, --writers N      producers (default 4, at most %d)\n"
	       "  -s, --seconds N      run time per policy (default 2)\n"
	       "  -p, --policy P       drop (default), block, or all\n"
	       "      --sizes MIN:MAX  payload bytes per record (24:256)\n"
	       "      --ring-size N    data area bytes, power of two (64Ki)\n"
	       "      --processes      producers and reader are processes\n"
	       "                       attaching a memfd inherited across fork\n"
	       "      --wait           the reader sleeps in pfr_mpsc_wait()\n"
	       "      --kill-writer    writer 0 stops between reserve and\n"
	       "                       commit and is killed once the reader\n"
	       "                       reports the stall; the reader must skip\n"
	       "                       its record and go on\n"
	       "      --kill-reader    (--processes) SIGKILL the reader\n"
	       "                       mid-run: producers must exit with\n"
	       "                       status %d; a new reader re-attaches\n"
	       "      --json           one JSON object per policy\n"
	       "  -h, --help\n",
	       MS_MAX_WRITERS, MS_EXIT_READER_DEAD);
}

int cli_stress_mpsc(int argc, char **argv)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'M'},
		{"writers", required_argument, NULL, 'w'},
		{"seconds", required_argument, NULL, 's'},
		{"policy", required_argument, NULL, 'p'},
		{"sizes", required_argument, NULL, 'z'},
		{"ring-size", required_argument, NULL, 'r'},
		{"processes", no_argument, NULL, 'P'},
		{"wait", no_argument, NULL, 'W'},
		{"kill-writer", no_argument, NULL, 'K'},
		{"kill-reader", no_argument, NULL, 'R'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct ms_cfg cfg = {2.0, PFR_POLICY_DROP, 4, 24, 256, 65536, 0, 0,
			     0,	  MS_KILL_NONE};
	unsigned long long v;
	unsigned char seen[256] = {0};
	int c, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "w:s:p:h", opts, NULL)) != -1) {
		if (util_once("stress", opts, seen, c, NULL))
			return PFR_EXIT_USAGE;
		switch (c) {
		case 'M':
			if (strcmp(optarg, "mpsc"))
				return util_usage_error("stress",
							"--mode: not mpsc");
			break;
		case 'w':
			if (util_parse_u64(optarg, &v) || !v ||
			    v > MS_MAX_WRITERS)
				return util_usage_error("stress",
							"--writers: 1..%d",
							MS_MAX_WRITERS);
			cfg.writers = (unsigned)v;
			break;
		case 's':
			if (util_parse_seconds(optarg, &cfg.seconds) ||
			    !(cfg.seconds > 0) || cfg.seconds > 86400)
				return util_usage_error(
					"stress",
					"--seconds: a positive number");
			break;
		case 'p':
			if (!strcmp(optarg, "all"))
				cfg.policy = -1;
			else if (!strcmp(optarg, "drop"))
				cfg.policy = PFR_POLICY_DROP;
			else if (!strcmp(optarg, "block"))
				cfg.policy = PFR_POLICY_BLOCK;
			else
				return util_usage_error(
					"stress",
					"--policy: drop, block or all for "
					"--mode mpsc");
			break;
		case 'z': {
			unsigned long long a, b;

			if (util_parse_size_pair(optarg, &a, &b) ||
			    a < MS_HDR || b < a || b > 60000)
				return util_usage_error(
					"stress",
					"--sizes: want MIN:MAX with "
					"%u <= MIN <= MAX <= 60000",
					MS_HDR);
			cfg.min_len = (uint32_t)a;
			cfg.max_len = (uint32_t)b;
			break;
		}
		case 'r':
			if (util_parse_size(optarg, &v) || v < 4096 ||
			    (v & (v - 1)) || v > (1ull << 30))
				return util_usage_error(
					"stress", "--ring-size: a power of two "
						  "from 4096 to 1Gi");
			cfg.ring_size = v;
			break;
		case 'P':
			cfg.processes = 1;
			break;
		case 'W':
			cfg.wait = 1;
			break;
		case 'K':
			cfg.kill = MS_KILL_WRITER;
			break;
		case 'R':
			cfg.kill = MS_KILL_READER;
			break;
		case 'j':
			cfg.json = 1;
			break;
		case 'h':
			ms_help();
			return 0;
		default:
			return util_usage_error("stress", "bad option");
		}
	}
	if (optind < argc)
		return util_usage_error("stress", "unexpected argument '%s'",
					argv[optind]);
	if (cfg.max_len + 8 > cfg.ring_size / 2 - 8)
		return util_usage_error(
			"stress", "--sizes: MAX too large for --ring-size");
	if (cfg.kill == MS_KILL_READER && !cfg.processes)
		return util_usage_error("stress",
					"--kill-reader needs --processes");
	if (cfg.kill == MS_KILL_WRITER && cfg.writers < 2)
		return util_usage_error("stress",
					"--kill-writer needs 2 writers");
	for (int pol = 0; pol < 2; pol++) {
		if (cfg.policy >= 0 && pol != cfg.policy)
			continue;
		rc |= ms_run(&cfg, pol, stdout);
	}
	return rc ? 1 : 0;
}
