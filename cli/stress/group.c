/* SPDX-License-Identifier: MIT */
/*
 * perfring stress --mode group: N writers (threads, or processes that
 * attach to a memfd group by fd and eventfd), one reader that drains the
 * group unordered or time-ordered, every record verified.
 *
 * Each record is { u64 time; u64 tag; u64 seq; u64 sum; filler }: tag the
 * writer's number, seq counts every record the writer tried to write
 * (dropped ones too), sum a hash of the rest.  The reader follows each
 * writer's sequence: after LOST records totalling n, the next seq must be
 * n further on; in --ordered mode the times must never decrease across
 * all writers.  At the end, for every writer: written = read + lost.
 *
 * Failure drills (--processes): --kill-writer kills writer 0 with SIGKILL
 * half-way (its published records must check out up to where it died, its
 * slot must be reclaimed and joinable: a replacement writer joins);
 * --kill-reader runs the reader in a child and kills it half-way (every
 * writer must notice and exit with status 3); --reattach hands the
 * reader role to a second reader process half-way (it resumes at the
 * published tails and the totals must still be exact).
 *
 * Progress (unordered readers): every record a writer had published
 * before a drain call began is delivered by the end of that call - the
 * call takes one batch from every held ring, each batch up to the head
 * the call loaded.  So after each call the reader loads every writer's
 * count of accepted records (a release store by the writer after its
 * write returned; an acquire load here), and after the next call checks
 * that it has read at least that many of the writer's records; a writer
 * short of it is a progress failure.  With N writers and R records to a
 * ring at most, no writer waits while the others have more than
 * 2 (N - 1) R records delivered (docs/group.md; more while rings of
 * writers that left are drained: up to 8 batches each per call).  --consume reads with
 * pfr_group_consume(), the batched reader, instead of pfr_group_drain().
 */
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/group.h>

#include "../cli.h"
#include "../../util/payload.h"
#include "mw.h"

#define GS_MAXW 1024
#define GS_FILL 48

struct gs_cfg {
	uint32_t writers, slots;
	double seconds;
	int policy, ordered, processes, json, wait, consume;
	int kill_writer, kill_reader, reattach;
	uint64_t ring_size;
};

struct gs_writer {
	uint64_t attempted, accepted;
	int32_t slot, status;
	uint32_t done, killed;
};

/* The reader's check state, per writer (shared, for --reattach). */
struct gs_check {
	uint64_t next, lost_since, read, lost;
};

struct gs_shared {
	uint32_t stop; /* writers stop */
	uint32_t reader_done;
	uint64_t last_time, corrupt, bad_seq, bad_order, records;
	uint64_t reclaimed, freed, merge_max, readers;
	/* progress: checks made, writers found short, the most records
	 * one drain call delivered */
	uint64_t progress_checks, progress_short, max_call;
	char first_error[200];
	struct gs_writer w[GS_MAXW + 1];
	struct gs_check c[GS_MAXW + 1];
};

struct gs_rec {
	uint64_t time, tag, seq, sum;
	unsigned char fill[GS_FILL];
};

/* The hash of record r: its time, tag and seq, then fill bytes of
 * filler. */
static uint64_t gs_sum(const struct gs_rec *r, uint32_t fill)
{
	return pfr__payload_fnv(pfr__payload_fnv(PFR__FNV_BASIS, r, 24),
				r->fill, fill);
}

static void gs_error(struct gs_shared *S, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void gs_error(struct gs_shared *S, const char *fmt, ...)
{
	va_list ap;

	if (S->first_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(S->first_error, sizeof(S->first_error), fmt, ap);
	va_end(ap);
}

/* ---- writers ---- */

struct gs_wctx {
	struct pfr_group *g;
	struct gs_shared *S;
	const struct gs_cfg *cfg;
	uint32_t tag;
};

/* Returns the exit status: 0, 3 (the reader died), 4 (join failed). */
static int gs_write(struct pfr_group *g, struct gs_shared *S, uint32_t tag)
{
	struct gs_writer *me = &S->w[tag];
	struct pfr_writer w;
	struct gs_rec r;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (tag + 1), seq = 0;
	uint64_t next_check = 0, dead_since = 0;
	int slot, rc = 0;

	/* a full group: retry for up to 10 s (a dead writer's slot is
	 * reclaimed by the reader) */
	for (int tries = 0;; tries++) {
		slot = pfr_group_join(g, &w, tag);
		if (slot != -PFR_E_FULL || tries >= 1000)
			break;
		usleep(10000);
	}
	me->slot = slot;
	if (slot < 0)
		return 4;
	pfr_writer_set_timeout(&w, 100000000ull);
	memset(&r, 0, sizeof(r));
	r.tag = tag;
	while (!__atomic_load_n(&S->stop, __ATOMIC_RELAXED)) {
		uint32_t fill;
		int err;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		fill = (uint32_t)(seed % (GS_FILL / 8 + 1)) * 8;
		for (uint32_t i = 0; i < fill; i++)
			r.fill[i] = (unsigned char)(seq + i);
		r.seq = seq++;
		r.time = util_now_ns();
		r.sum = gs_sum(&r, fill);
		/* counted before the write: a writer killed in it has
		 * published no more than it counted */
		__atomic_store_n(&me->attempted, seq, __ATOMIC_RELAXED);
		err = pfr_writer_write(&w, 1, &r, 32 + fill);
		if (!err) {
			uint64_t acc = me->accepted + 1;

			/* purpose: the count after the record's publication;
			 * pairs with the acquire load in gs_progress(): a
			 * reader that sees the count sees the head that
			 * published the record */
			__atomic_store_n(&me->accepted, acc, __ATOMIC_RELEASE);
		}
		/* a dead reader: noticed within ~50 ms, tolerated for 2 s
		 * (a new reader may take over) */
		if (r.time >= next_check) {
			next_check = r.time + 50000000ull;
			if (pfr_group_reader_alive(g)) {
				dead_since = 0;
			} else if (!dead_since) {
				dead_since = r.time;
			} else if (r.time - dead_since > 2000000000ull) {
				rc = 3;
				break;
			}
		}
	}
	pfr_group_leave(g, &w);
	return rc;
}

static void *gs_writer_thread(void *arg)
{
	struct gs_wctx *x = arg;

	x->S->w[x->tag].status = gs_write(x->g, x->S, x->tag);
	__atomic_store_n(&x->S->w[x->tag].done, 1, __ATOMIC_RELAXED);
	return NULL;
}

/* ---- the reader ---- */

struct gs_rctx {
	struct gs_shared *S;
	const struct gs_cfg *cfg;
};

static int gs_check(void *arg, const struct pfr_group_rec *rec)
{
	struct gs_rctx *x = arg;
	struct gs_shared *S = x->S;
	struct gs_check *c;
	struct gs_rec r;
	uint64_t t = rec->tag;

	S->records++;
	if (t > GS_MAXW) {
		S->corrupt++;
		gs_error(S, "record with tag %llu", (unsigned long long)t);
		return 0;
	}
	c = &S->c[t];
	if (rec->hdr.type == PFR_RECORD_LOST) {
		uint64_t id, n;

		memcpy(&id, rec->payload, 8);
		memcpy(&n, (const unsigned char *)rec->payload + 8, 8);
		if ((uint32_t)id != rec->slot) {
			S->corrupt++;
			gs_error(S, "LOST id %llx in slot %u",
				 (unsigned long long)id, rec->slot);
		}
		c->lost += n;
		c->lost_since += n;
		return 0;
	}
	if (rec->len < 32 || rec->len > sizeof(r) || (rec->len & 7)) {
		S->corrupt++;
		gs_error(S, "record of %u bytes", rec->len);
		return 0;
	}
	memcpy(&r, rec->payload, rec->len);
	if (r.tag != t || r.sum != gs_sum(&r, rec->len - 32)) {
		S->corrupt++;
		gs_error(S, "writer %llu seq %llu: bad checksum or tag",
			 (unsigned long long)t, (unsigned long long)r.seq);
	}
	if (r.seq != c->next + c->lost_since) {
		S->bad_seq++;
		gs_error(S, "writer %llu: seq %llu, expected %llu (+%llu lost)",
			 (unsigned long long)t, (unsigned long long)r.seq,
			 (unsigned long long)c->next,
			 (unsigned long long)c->lost_since);
	}
	c->next = r.seq + 1;
	c->lost_since = 0;
	c->read++;
	if (x->cfg->ordered) {
		if (rec->time != r.time || r.time < S->last_time) {
			S->bad_order++;
			gs_error(S, "time order: %llu after %llu (writer %llu)",
				 (unsigned long long)r.time,
				 (unsigned long long)S->last_time,
				 (unsigned long long)t);
		}
		S->last_time = r.time;
	}
	return 0;
}

/* After a drain call: each writer must have had delivered every record
 * it had published before this call began (its accepted count loaded
 * after the previous call, seen[]); then loads the counts for the next
 * check.  Unordered readers only (an ordered reader holds records back
 * until every writer has reached their time). */
static void gs_progress(struct gs_shared *S, uint64_t *seen, uint32_t nw,
			int64_t got)
{
	if ((uint64_t)got > S->max_call)
		S->max_call = (uint64_t)got;
	for (uint32_t i = 0; i < nw; i++) {
		if (S->c[i].read < seen[i]) {
			S->progress_short++;
			gs_error(S,
				 "writer %u: %llu records published before "
				 "the drain call, %llu delivered after it",
				 i, (unsigned long long)seen[i],
				 (unsigned long long)S->c[i].read);
		}
		/* purpose: pairs with the release store of accepted in
		 * gs_write(): the records counted are published */
		seen[i] = __atomic_load_n(&S->w[i].accepted, __ATOMIC_ACQUIRE);
	}
	S->progress_checks++;
}

static int64_t gs_drain(struct pfr_group *g, struct gs_rctx *x, uint32_t flags)
{
	if (x->cfg->consume)
		return pfr_group_consume(g, gs_check, x, flags);
	return pfr_group_drain(g, gs_check, x, flags);
}

/* Reads until `until_ns` (0: until every writer is done and every slot
 * freed), then, when handing over, drains everything and gives the role
 * up.  Returns 0 or a PFR_E_* code. */
static int gs_read(struct pfr_group *g, struct gs_shared *S,
		   const struct gs_cfg *cfg, uint32_t nwriters,
		   uint64_t until_ns, int (*stop_early)(void *), void *arg)
{
	struct gs_rctx x = {S, cfg};
	struct pfr_group_stats st;
	static uint64_t seen[GS_MAXW + 1];
	int err = pfr_group_reader_open(g, cfg->ordered, NULL, NULL);

	if (err)
		return err;
	/* a new reader starts from nothing owed */
	memset(seen, 0, sizeof(seen));
	S->readers++;
	/* time order holds within one reader's run: a reader that hands
	 * over flushes everything it queued (PFR_GROUP_DRAIN_ALL), and
	 * the rings may still hold older records for the next one */
	S->last_time = 0;
	pfr_group_set_reclaim_interval(g, 20000000ull);
	for (;;) {
		int64_t n = gs_drain(g, &x, 0);
		int all_done = 1;

		if (n < 0) {
			gs_error(S, "drain: %s", pfr_strerror((int)n));
			err = (int)-n;
			break;
		}
		if (!cfg->ordered)
			gs_progress(S, seen, nwriters, n);
		if (until_ns && util_now_ns() >= until_ns)
			break;
		if (stop_early && stop_early(arg))
			break;
		for (uint32_t i = 0; i < nwriters; i++)
			all_done &= (int)__atomic_load_n(&S->w[i].done,
							 __ATOMIC_RELAXED);
		pfr_group_stats(g, &st);
		if (!until_ns && all_done && st.active == 0) {
			n = gs_drain(g, &x, 0);
			pfr_group_stats(g, &st);
			if (st.active == 0)
				break;
		}
		if (n == 0 && cfg->wait)
			pfr_group_wait(g, 10000000ull);
	}
	gs_drain(g, &x, PFR_GROUP_DRAIN_ALL);
	pfr_group_stats(g, &st);
	S->reclaimed += st.reclaimed;
	S->freed += st.freed;
	if (st.merge_max_queued > S->merge_max)
		S->merge_max = st.merge_max_queued;
	pfr_group_reader_close(g);
	return err;
}

/* ---- the run ---- */

static void gs_usage(FILE *f)
{
	fprintf(f,
		"usage: perfring stress --mode group [options]\n"
		"  -w, --writers N     writers (1..%u, default 4)\n"
		"      --slots N       group slots (default: writers + 1)\n"
		"  -s, --seconds S     run time (default 2)\n"
		"  -p, --policy P      drop or block (default drop)\n"
		"      --ordered       time-ordered reader (default: unordered)\n"
		"      --ring-size N   each writer's data area (default 16Ki)\n"
		"      --processes     writers are processes attaching by memfd\n"
		"      --wait          the reader sleeps in pfr_group_wait()\n"
		"      --consume       the batched reader, pfr_group_consume()\n"
		"      --kill-writer   SIGKILL writer 0 half-way (--processes)\n"
		"      --kill-reader   SIGKILL the reader half-way (--processes)\n"
		"      --reattach      hand the reader role to a new process\n"
		"                      half-way (--processes)\n"
		"      --json          one JSON object\n"
		"  -h, --help\n",
		GS_MAXW);
}

static pid_t gs_spawn_writer(struct pfr_group *g, struct gs_shared *S,
			     uint32_t tag)
{
	pid_t pid = cli_stress_fork();

	if (pid == 0) {
		struct pfr_group *cg;
		int st;

		if (pfr_group_attach_fd(&cg, pfr_group_fd(g),
					pfr_group_eventfd(g)))
			_exit(5);
		st = gs_write(cg, S, tag);
		S->w[tag].status = st;
		__atomic_store_n(&S->w[tag].done, 1, __ATOMIC_RELAXED);
		pfr_group_close(cg);
		_exit(st);
	}
	return pid;
}

static int gs_reaped(void *arg)
{
	(void)arg;
	return 0;
}

/* Parses the options into cfg: -1 to run, else the exit status. */
static int gs_parse(int argc, char **argv, struct gs_cfg *cfg)
{
	static const struct option opts[] = {
		{"mode", required_argument, NULL, 'M'},
		{"writers", required_argument, NULL, 'w'},
		{"slots", required_argument, NULL, 'n'},
		{"seconds", required_argument, NULL, 's'},
		{"policy", required_argument, NULL, 'p'},
		{"ordered", no_argument, NULL, 'O'},
		{"ring-size", required_argument, NULL, 'r'},
		{"processes", no_argument, NULL, 'P'},
		{"wait", no_argument, NULL, 'W'},
		{"consume", no_argument, NULL, 'C'},
		{"kill-writer", no_argument, NULL, 'K'},
		{"kill-reader", no_argument, NULL, 'R'},
		{"reattach", no_argument, NULL, 'A'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long long v;
	unsigned char seen[256] = {0};
	int c;

	memset(cfg, 0, sizeof(*cfg));
	cfg->writers = 4;
	cfg->seconds = 2.0;
	cfg->ring_size = 16384;
	cfg->policy = PFR_POLICY_DROP;
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:s:p:h", opts, NULL)) != -1) {
		if (util_once("stress", opts, seen, c, NULL))
			return PFR_EXIT_USAGE;
		switch (c) {
		case 'M':
			break;
		case 'w':
			if (util_parse_u64(optarg, &v) || !v || v > GS_MAXW)
				return util_usage_error("stress",
							"--writers takes 1..%u",
							GS_MAXW);
			cfg->writers = (uint32_t)v;
			break;
		case 'n':
			if (util_parse_u64(optarg, &v) || !v ||
			    v > PFR_GROUP_SLOTS_MAX)
				return util_usage_error("stress",
							"--slots takes 1..%u",
							PFR_GROUP_SLOTS_MAX);
			cfg->slots = (uint32_t)v;
			break;
		case 's':
			if (util_parse_seconds(optarg, &cfg->seconds) ||
			    !(cfg->seconds > 0) || cfg->seconds > 86400)
				return util_usage_error(
					"stress", "bad --seconds '%s'", optarg);
			break;
		case 'p':
			cfg->policy = pfr_policy_parse(optarg);
			if (cfg->policy != PFR_POLICY_DROP &&
			    cfg->policy != PFR_POLICY_BLOCK)
				return util_usage_error(
					"stress",
					"--policy takes drop or block");
			break;
		case 'O':
			cfg->ordered = 1;
			break;
		case 'r':
			if (util_parse_size(optarg, &v))
				return util_usage_error("stress",
							"bad --ring-size '%s'",
							optarg);
			cfg->ring_size = v;
			break;
		case 'P':
			cfg->processes = 1;
			break;
		case 'W':
			cfg->wait = 1;
			break;
		case 'C':
			cfg->consume = 1;
			break;
		case 'K':
			cfg->kill_writer = 1;
			break;
		case 'R':
			cfg->kill_reader = 1;
			break;
		case 'A':
			cfg->reattach = 1;
			break;
		case 'j':
			cfg->json = 1;
			break;
		case 'h':
			gs_usage(stdout);
			return 0;
		default:
			gs_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return util_usage_error("stress", "unexpected '%s'",
					argv[optind]);
	if ((cfg->kill_writer || cfg->kill_reader || cfg->reattach) &&
	    !cfg->processes)
		return util_usage_error(
			"stress", "--kill-writer, --kill-reader and --reattach "
				  "need --processes");
	if (cfg->kill_writer + cfg->kill_reader + cfg->reattach > 1)
		return util_usage_error("stress",
					"one failure drill at a time");
	return -1;
}

/* The writer processes, one per tag (the replacement writer: tag nw). */
static pid_t gs_pids[GS_MAXW + 1];

/* --kill-writer: a helper process that kills writer 0 half-way (once it
 * is writing), then starts a replacement (tag nw), which takes the
 * reclaimed slot; the helper exits with the replacement's status. */
static pid_t gs_kill_writer(struct pfr_group *g, struct gs_shared *S,
			    uint32_t nw, uint64_t half, uint64_t end_ns)
{
	pid_t helper = cli_stress_fork();
	pid_t r;
	int st;

	if (helper != 0)
		return helper;
	while ((util_now_ns() < half ||
		__atomic_load_n(&S->w[0].attempted, __ATOMIC_RELAXED) < 1000) &&
	       util_now_ns() < end_ns)
		usleep(10000);
	kill(gs_pids[0], SIGKILL);
	S->w[0].killed = 1;
	__atomic_store_n(&S->w[0].done, 1, __ATOMIC_RELAXED);
	r = gs_spawn_writer(g, S, nw);
	if (r < 0 || waitpid(r, &st, 0) != r)
		_exit(6);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 7);
}

/* --kill-reader: the reader in a child, killed half-way; every writer
 * must notice on its own (no stop) and exit 3.  Returns 1 on a failure. */
static int gs_kill_reader(struct pfr_group *g, struct gs_shared *S,
			  const struct gs_cfg *cfg, uint32_t nw, uint64_t half)
{
	pid_t rpid = cli_stress_fork();
	int fail = 0;

	if (rpid == 0)
		_exit(gs_read(g, S, cfg, nw, 0, gs_reaped, NULL) != 0);
	while (util_now_ns() < half)
		usleep(10000);
	kill(rpid, SIGKILL);
	waitpid(rpid, NULL, 0);
	for (uint32_t i = 0; i < nw; i++) {
		int st;

		waitpid(gs_pids[i], &st, 0);
		S->w[i].status =
			WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (S->w[i].status != 3) {
			fail = 1;
			gs_error(S,
				 "writer %u exited %d after the reader died "
				 "(want 3)",
				 i, S->w[i].status);
		}
	}
	return fail;
}

/* Waits for a child that must exit 0; 1 (and the error, naming the
 * child as who) if it did not. */
static int gs_reap(struct gs_shared *S, pid_t pid, const char *who)
{
	int st;

	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	gs_error(S, "%s exited %d", who, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 1;
}

/* Runs the writers and the reader (with the drill cfg asks for) to the
 * end.  Returns 1 on a failure seen on the way, else 0. */
static int gs_run(struct pfr_group *g, struct gs_shared *S,
		  const struct gs_cfg *cfg, uint32_t nw)
{
	static pthread_t th[GS_MAXW];
	static struct gs_wctx wx[GS_MAXW];
	uint64_t t0, dur, half, end_ns;
	pid_t helper = -1, rpid;
	int fail = 0;

	for (uint32_t i = 0; i < nw; i++) {
		if (cfg->processes) {
			gs_pids[i] = gs_spawn_writer(g, S, i);
			continue;
		}
		wx[i].g = g;
		wx[i].S = S;
		wx[i].cfg = cfg;
		wx[i].tag = i;
		pthread_create(&th[i], NULL, gs_writer_thread, &wx[i]);
	}
	t0 = util_now_ns();
	dur = (uint64_t)(cfg->seconds * 1e9);
	half = t0 + dur / 2;
	end_ns = t0 + dur;
	if (!cfg->kill_reader && cli_stress_fork() == 0) {
		/* the stopper: tells the writers to finish */
		while (util_now_ns() < end_ns)
			usleep(10000);
		__atomic_store_n(&S->stop, 1, __ATOMIC_RELAXED);
		_exit(0);
	}
	if (cfg->kill_writer)
		helper = gs_kill_writer(g, S, nw, half, end_ns);
	if (cfg->kill_reader) {
		fail |= gs_kill_reader(g, S, cfg, nw, half);
	} else {
		if (cfg->reattach) {
			rpid = cli_stress_fork();
			if (rpid == 0)
				_exit(gs_read(g, S, cfg, nw, half, NULL,
					      NULL) != 0);
			waitpid(rpid, NULL, 0);
		}
		if (gs_read(g, S, cfg, nw + !!cfg->kill_writer, 0, NULL, NULL))
			fail = 1;
	}
	if (!cfg->processes) {
		for (uint32_t i = 0; i < nw; i++)
			pthread_join(th[i], NULL);
	} else if (!cfg->kill_reader) {
		for (uint32_t i = cfg->kill_writer ? 1 : 0; i < nw; i++) {
			char who[32];

			snprintf(who, sizeof(who), "writer %u", i);
			fail |= gs_reap(S, gs_pids[i], who);
		}
		if (helper > 0)
			fail |= gs_reap(S, helper, "the replacement writer");
	}
	while (waitpid(-1, NULL, 0) > 0)
		; /* the helpers */
	return fail;
}

/* The verdict: per writer, written = read + lost.  Returns 1 on a
 * failure, else 0. */
static int gs_verdict(struct gs_shared *S, const struct gs_cfg *cfg, uint32_t n)
{
	int fail = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct gs_writer *w = &S->w[i];
		struct gs_check *k = &S->c[i];

		if (w->slot < 0) {
			fail = 1;
			gs_error(S, "writer %u could not join", i);
		} else if (w->killed) {
			/* what it published checks out (seq and sums,
			 * above); it wrote no more than it tried */
			if (k->read + k->lost > w->attempted) {
				fail = 1;
				gs_error(S,
					 "killed writer %u: read %llu + lost "
					 "%llu > written %llu",
					 i, (unsigned long long)k->read,
					 (unsigned long long)k->lost,
					 (unsigned long long)w->attempted);
			}
		} else if (k->read + k->lost != w->attempted) {
			fail = 1;
			gs_error(S,
				 "writer %u: written %llu != read %llu + lost "
				 "%llu",
				 i, (unsigned long long)w->attempted,
				 (unsigned long long)k->read,
				 (unsigned long long)k->lost);
		}
	}
	if (cfg->kill_writer && S->reclaimed < 1) {
		fail = 1;
		gs_error(S, "the killed writer's slot was not reclaimed");
	}
	if (cfg->reattach && S->readers < 2) {
		fail = 1;
		gs_error(S, "no second reader");
	}
	/* progress: every writer's published records came out by the next
	 * drain call (the error names the first writer found short) */
	if (S->progress_short)
		fail = 1;
	if (!cfg->ordered && !cfg->kill_reader && !S->progress_checks) {
		fail = 1;
		gs_error(S, "no progress check was made");
	}
	return fail;
}

/* Prints the result: one JSON object, or one line (and the first error). */
static void gs_report(const struct gs_shared *S, const struct gs_cfg *cfg,
		      uint32_t nw, uint32_t n, int fail)
{
	uint64_t wr = 0, rd = 0, lo = 0;

	if (getenv("PFR_GS_DEBUG"))
		for (uint32_t i = 0; i < n; i++)
			fprintf(stderr,
				"writer %u: slot %d status %d killed %u "
				"attempted %llu accepted %llu read %llu lost "
				"%llu\n",
				i, S->w[i].slot, S->w[i].status, S->w[i].killed,
				(unsigned long long)S->w[i].attempted,
				(unsigned long long)S->w[i].accepted,
				(unsigned long long)S->c[i].read,
				(unsigned long long)S->c[i].lost);
	for (uint32_t i = 0; i < n; i++) {
		wr += S->w[i].attempted;
		rd += S->c[i].read;
		lo += S->c[i].lost;
	}
	if (cfg->json) {
		printf("{\"mode\":\"group\",\"writers\":%u,"
		       "\"processes\":%d,\"ordered\":%d,"
		       "\"policy\":\"%s\",\"wait\":%d,"
		       "\"drill\":\"%s\",\"seconds\":%.2f,"
		       "\"written\":%llu,\"read\":%llu,\"lost\":%llu,"
		       "\"corrupt\":%llu,\"bad_seq\":%llu,"
		       "\"bad_order\":%llu,\"reclaimed\":%llu,"
		       "\"freed\":%llu,\"merge_max_queued\":%llu,"
		       "\"reader\":\"%s\",\"progress_checks\":%llu,"
		       "\"progress_short\":%llu,\"max_per_drain\":%llu,"
		       "\"result\":\"%s\"",
		       nw, cfg->processes, cfg->ordered,
		       pfr_policy_name((enum pfr_policy)cfg->policy), cfg->wait,
		       cfg->kill_writer	  ? "kill-writer"
		       : cfg->kill_reader ? "kill-reader"
		       : cfg->reattach	  ? "reattach"
					  : "none",
		       cfg->seconds, (unsigned long long)wr,
		       (unsigned long long)rd, (unsigned long long)lo,
		       (unsigned long long)S->corrupt,
		       (unsigned long long)S->bad_seq,
		       (unsigned long long)S->bad_order,
		       (unsigned long long)S->reclaimed,
		       (unsigned long long)S->freed,
		       (unsigned long long)S->merge_max,
		       cfg->consume ? "consume" : "drain",
		       (unsigned long long)S->progress_checks,
		       (unsigned long long)S->progress_short,
		       (unsigned long long)S->max_call, fail ? "fail" : "pass");
		if (S->first_error[0]) {
			printf(",\"error\":");
			util_json_str(stdout, S->first_error);
		}
		printf("}\n");
		return;
	}
	printf("group %s %s %u writers%s%s%s%s: written %llu, read %llu, "
	       "lost %llu, corrupt %llu, seq errors %llu, order errors %llu, "
	       "reclaimed %llu, progress short %llu of %llu checks: %s\n",
	       cfg->ordered ? "ordered" : "unordered",
	       pfr_policy_name((enum pfr_policy)cfg->policy), nw,
	       cfg->processes ? " (processes)" : "", cfg->wait ? " wait" : "",
	       cfg->consume ? " consume" : "",
	       cfg->kill_writer	  ? " kill-writer"
	       : cfg->kill_reader ? " kill-reader"
	       : cfg->reattach	  ? " reattach"
				  : "",
	       (unsigned long long)wr, (unsigned long long)rd,
	       (unsigned long long)lo, (unsigned long long)S->corrupt,
	       (unsigned long long)S->bad_seq, (unsigned long long)S->bad_order,
	       (unsigned long long)S->reclaimed,
	       (unsigned long long)S->progress_short,
	       (unsigned long long)S->progress_checks, fail ? "FAIL" : "ok");
	if (S->first_error[0])
		printf("  first error: %s\n", S->first_error);
}

int cli_stress_group(int argc, char **argv)
{
	struct gs_cfg cfg;
	struct pfr_group_opts go;
	struct pfr_group *g = NULL;
	struct gs_shared *S;
	uint32_t nw, n;
	int err, fail;

	err = gs_parse(argc, argv, &cfg);
	if (err >= 0)
		return err;
	nw = cfg.writers;
	n = nw + !!cfg.kill_writer;
	memset(&go, 0, sizeof(go));
	/* --kill-writer: no spare slot, so the replacement writer needs
	 * the dead one's, reclaimed */
	go.slots = cfg.slots ? cfg.slots : cfg.kill_writer ? nw : nw + 1;
	if (go.slots < nw)
		return util_usage_error("stress", "--slots below --writers");
	go.data_size = cfg.ring_size;
	go.policy = (enum pfr_policy)cfg.policy;
	go.ordering = PFR_ORDER_DEFAULT;
	go.flags = cfg.wait ? PFR_GROUP_EVENTFD : 0;
	err = pfr_group_create_memfd(&g, &go);
	if (err)
		return util_usage_error("stress", "group: %s",
					pfr_strerror(err));
	S = mmap(NULL, sizeof(*S), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (S == MAP_FAILED) {
		pfr_group_close(g);
		fprintf(stderr, "perfring stress: out of memory\n");
		return 1;
	}
	memset(S, 0, sizeof(*S));
	fail = gs_run(g, S, &cfg, nw);
	if (!cfg.kill_reader)
		fail |= gs_verdict(S, &cfg, n);
	if (S->corrupt || S->bad_seq || S->bad_order)
		fail = 1;
	gs_report(S, &cfg, nw, n, fail);
	munmap(S, sizeof(*S));
	pfr_group_close(g);
	return fail;
}
