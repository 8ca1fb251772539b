/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/mw.h - the multi-writer bench (`perfring bench --writers`): N
 * writers into one reader.  Shared by its harness (bench/mw/harness.c),
 * the contestants (bench/mw/perfring.c, bench/mw/peer_mutex.c,
 * bench/mw/peers_cxx.cc) and the command (bench/mw/cmd.c).  Internal, C and
 * C++.
 *
 * A message is the single-writer bench's message (bench/core/bench.h) whose
 * sequence number is tagged with its writer: word 0 is
 * PFR_MW_TAG(writer, seq), the last word tag ^ PFR__PAYLOAD_KEY, the words
 * between the pattern.  The reader keeps one expected sequence number per
 * writer, so every message is checked for its writer, its place in that
 * writer's order (per-writer FIFO, which every contestant promises) and its
 * sum over all words.
 *
 * The variable-size mix (payload PFR_MW_MIX): message seq of any writer is
 * bench_mw_words(seq) words long, 1 to 32 (8 to 256 bytes, 132 on average),
 * from a fixed hash of seq.  Queues of variable-size records (perfring)
 * carry that many bytes; slot queues carry every message in a 256-byte slot
 * and the reader checks the first bench_mw_words(seq) words.
 *
 * Reader stall (reported as a p99 and a maximum): an interval that begins
 * when the reader polls its queue and finds nothing to read, and ends when
 * it next receives a message, counted only when at least one writer was
 * still sending at its end.  With more writers than CPUs it is dominated by
 * writers that are preempted (with a reservation held, for the shared
 * rings) and by the reader's own preemption.
 */
#ifndef PFR_BENCH_MW_H
#define PFR_BENCH_MW_H

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../core/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PFR_MW_MAX_WRITERS 64
#define PFR_MW_MIX 0 /* payload: the variable-size mix */
#define PFR_MW_MIX_WORDS 32 /* the mix's largest message, words */
#define PFR_MW_SEQ_BITS 48
#define PFR_MW_TAG(w, seq) (((uint64_t)(w) << PFR_MW_SEQ_BITS) | (seq))
#define PFR_MW_HIST 1024 /* stall histogram buckets (log-linear) */

/* Words of message seq in the mix: 1..PFR_MW_MIX_WORDS. */
static inline size_t bench_mw_words(uint64_t seq)
{
	return 1 + (size_t)((seq * 0x9e3779b97f4a7c15ull) >> 59);
}

/* One writer's line: inputs and what it did. */
struct bench_mw_writer {
	uint64_t n; /* messages it sends */
	uint64_t sent; /* messages it sent */
	uint64_t t_start, t_end; /* ns, around its loop */
	uint64_t progress; /* messages it is past (bench_mw_wmore()) */
	int cpu; /* pinned to (-1: not pinned) */
	int error;
} __attribute__((aligned(128)));

/* One run; lives in shared memory (writers may be processes). */
struct bench_mw_run {
	/* inputs */
	uint64_t n; /* messages in all, n / writers per writer */
	uint64_t warm; /* messages before the reader's clock starts */
	unsigned writers;
	size_t payload; /* bytes, or PFR_MW_MIX */
	size_t slot; /* a slot queue's element: payload, 256 for the mix */
	size_t capacity; /* bytes of queue, the same for every contestant */
	unsigned batch; /* burst / drain batch */
	int processes; /* writers are processes: queue in shared memory */
	int reader_cpu; /* pinned to (-1: not pinned) */
	int reader_yields; /* the reader shares its CPU with writers */
	int unordered; /* the queue is PFR_MW_UNORDERED */
	const uint64_t *msg; /* the pattern (PFR_BENCH_MAX_PAYLOAD bytes) */
	/* body_sum[k]: the sum of pattern words 1..k-2 (the check of a
	 * k-word message), k = 0..PFR_BENCH_MAX_PAYLOAD / 8 */
	const uint64_t *body_sum;
	uint64_t deadline_ns; /* writers stop after this long (0: never) */
	/* start barrier and end; stop: the writers are past the deadline
	 * and stop early (the reader then takes n from what they sent) */
	struct bench_flag ready, go, wdone, abort, stop;
	/* the reader's outputs and state (the writers never read them) */
	/* fairness: the writers' counts of messages sent (progress) when
	 * the first writer finished, smallest and largest (that writer
	 * snapshots them) */
	uint64_t fair_min __attribute__((aligned(128))), fair_max;
	int fair_taken; /* a writer took the snapshot */
	uint64_t t0 __attribute__((aligned(128))), t1, timed;
	uint64_t delivered, bad, bad_tag;
	uint64_t empty_since; /* ticks: first empty poll, or 0 */
	uint64_t stalls, stall_ticks;
	int error;
	uint64_t next[PFR_MW_MAX_WRITERS]; /* expected seq per writer (its
					     * count of messages received) */
	uint64_t seqsum[PFR_MW_MAX_WRITERS]; /* unordered: sum of seqs */
	uint32_t hist[PFR_MW_HIST]; /* stall lengths, ticks */
	/* harness: CPU shares (reader, writers' mean), preemptions */
	double share[2];
	long nivcsw[2];
	struct bench_mw_writer w[PFR_MW_MAX_WRITERS];
};

/* A contestant.  setup() builds the queue for the run (in shared memory
 * when run->processes) and returns 0, or -1 when the run's payload, writer
 * count or mode is not supported.  produce() is writer w's whole loop,
 * consume() the reader's (until run->n messages or run->abort). */
struct bench_mw_queue {
	const char *name; /* "rte_ring" */
	const char *variant; /* "burst", "token", "" */
	int kind; /* what its target compares it with: PFR_MW_KIND_* */
	int processes_ok; /* works with writers in other processes */
	int (*setup)(struct bench_mw_run *run, void **q);
	void (*produce)(void *q, struct bench_mw_run *run, unsigned w);
	void (*consume)(void *q, struct bench_mw_run *run);
	void (*teardown)(void *q, struct bench_mw_run *run);
};

enum {
	PFR_MW_KIND_OTHER,
	PFR_MW_KIND_GROUP, /* perfring group */
	PFR_MW_KIND_MPSC, /* perfring MPSC ring */
	PFR_MW_KIND_SUBQ, /* per-producer sub-queues: moodycamel */
	PFR_MW_KIND_SHARED, /* one shared MP ring: rte_ring, ck_ring */
	PFR_MW_KIND_MASK = 0xff,
	/* or'ed in: a queue that does not keep each writer's order (the
	 * reader then checks each message against its own tag, and each
	 * writer's count and sum of sequence numbers at the end) */
	PFR_MW_UNORDERED = 0x100,
};

/* The tables (each ends with a zeroed entry); NULL-safe. */
extern const struct bench_mw_queue bench_mw_perfring[];
extern const struct bench_mw_queue bench_mw_peers[];
extern const struct bench_mw_queue bench_mw_dpdk[];
extern const struct bench_mw_queue bench_mw_ck[];
extern const struct bench_mw_queue bench_mw_urcu[];
extern const struct bench_mw_queue bench_mw_cxx[];

/* Memory for a queue: shared between processes (an anonymous shared
 * mapping, inherited over fork) when run->processes, else aligned heap.
 * Zeroed.  Free with bench_mw_free(run, p, size). */
void *bench_mw_alloc(const struct bench_mw_run *run, size_t size);
void bench_mw_free(const struct bench_mw_run *run, void *p, size_t size);

/* One run: setup, the writers (threads or processes) and the reader,
 * released together, teardown.  cpus[0]: the reader's CPU, cpus[1 + w]
 * writer w's (-1: not pinned).  Returns 0, -1 (the run failed: see
 * run->error) or -2 (setup refused). */
int bench_mw_run_once(const struct bench_mw_queue *q, struct bench_mw_run *run,
		      const int *cpus);

/* Stall histogram: bucket of a length, and a bucket's lower bound. */
static inline unsigned bench_mw_bucket(uint64_t v)
{
	unsigned msb, b;

	if (v < 16)
		return (unsigned)v;
	msb = 63u - (unsigned)__builtin_clzll(v);
	b = (msb - 3) * 16 + (unsigned)((v >> (msb - 4)) & 15);
	return b < PFR_MW_HIST ? b : PFR_MW_HIST - 1;
}
uint64_t bench_mw_bucket_low(unsigned b);

/* ---- the writers' side ---- */

/* Waiting for room (or, in the reader, for data): spin a little, then
 * give the CPU away; every contestant waits the same way. */
static inline void bench_mw_pause(unsigned *spins)
{
	if (++*spins < 64) {
		pfr_cpu_relax();
	} else {
		*spins = 0;
		sched_yield();
	}
}

/* The reader's wait for data: it spins on a CPU of its own, and waits
 * as the writers do when it shares its CPU with them. */
static inline void bench_mw_rpause(const struct bench_mw_run *run,
				   unsigned *spins)
{
	if (run->reader_yields)
		bench_mw_pause(spins);
	else
		pfr_cpu_relax();
}

/* Words of writer-side message seq. */
static inline size_t bench_mw_len(const struct bench_mw_run *run, uint64_t seq)
{
	return run->payload == PFR_MW_MIX ? bench_mw_words(seq)
					  : run->payload / 8;
}

/* Stamps m (a copy of the pattern) as writer w's message seq of `words`
 * words; bench_mw_unstamp() puts the pattern back after it was sent. */
static inline void bench_mw_stamp(uint64_t *m, size_t words, unsigned w,
				  uint64_t seq)
{
	pfr__payload_stamp_ends(m, words, PFR_MW_TAG(w, seq));
}

static inline void bench_mw_unstamp(uint64_t *m, size_t words,
				    const struct bench_mw_run *run)
{
	if (words > 1)
		m[words - 1] = run->msg[words - 1];
}

/* ---- the reader's side ---- */

/* The reader polled and found nothing.  Returns 1 when the run is to end
 * (the harness gave up: a message was lost). */
static inline int bench_mw_empty(struct bench_mw_run *run)
{
	if (!run->empty_since)
		run->empty_since = bench_ticks();
	return (int)__atomic_load_n(&run->abort.v, __ATOMIC_RELAXED);
}

void bench_mw__stall(struct bench_mw_run *run);

/* One received message at p; words: its length as the queue reports it
 * (0: a slot, whose length follows from the tag).  Verifies the writer,
 * the per-writer order, the length and the sum; counts; starts the clock
 * and closes a stall. */
static inline void bench_mw_got(struct bench_mw_run *run, const void *p,
				size_t words)
{
	uint64_t tag, seq;
	unsigned w;
	size_t want;

	if (__builtin_expect(run->empty_since != 0, 0))
		bench_mw__stall(run);
	memcpy(&tag, p, 8);
	w = (unsigned)(tag >> PFR_MW_SEQ_BITS);
	if (__builtin_expect(w >= run->writers, 0)) {
		if (!run->bad++)
			run->bad_tag = tag;
		w = 0;
	}
	seq = run->next[w]++;
	if (run->unordered) {
		seq = tag & ((1ull << PFR_MW_SEQ_BITS) - 1);
		run->seqsum[w] += seq;
	}
	want = bench_mw_len(run, seq);
	if (__builtin_expect((words && words != want) ||
				     !pfr__payload_check_ends(
					     p, want, PFR_MW_TAG(w, seq),
					     run->body_sum[want]),
			     0)) {
		if (!run->bad++)
			run->bad_tag = tag;
	}
	if (__builtin_expect(++run->delivered == run->warm, 0))
		run->t0 = bench_now_ns();
}

/* A writer's message buffer: copies slots of run->slot bytes, each
 * holding the pattern.  NULL, with the writer's error set, when out of
 * memory. */
static inline uint64_t *bench_mw_msgs(const struct bench_mw_run *run,
				      struct bench_mw_writer *me,
				      unsigned copies)
{
	uint64_t *m = (uint64_t *)bench_alloc(64, copies * run->slot);

	if (!m) {
		me->error = -1;
		return NULL;
	}
	for (unsigned i = 0; i < copies; i++)
		memcpy(m + i * (run->slot / 8), run->msg, run->slot);
	return m;
}

/* A writer's loop condition: seq < its n, and the run not stopped; but
 * every writer sends its first message even past the deadline, so that a
 * writer the machine's load kept off the CPU until the watchdog stopped
 * the run still has a rate (the run's check wants every writer to have
 * sent), whatever the machine's speed. */
static inline int bench_mw_wmore(const struct bench_mw_run *run,
				 struct bench_mw_writer *me, uint64_t seq)
{
	/* purpose: stop is a plain flag; the count it changes is published
	 * by the writer's release in the harness */
	int stop = __atomic_load_n(&run->stop.v, __ATOMIC_RELAXED);

	/* purpose: a count for the fairness snapshot, read by the first
	 * writer to finish (fair_snapshot() in the harness); to this
	 * writer's own line, no data published with it */
	__atomic_store_n(&me->progress, seq, __ATOMIC_RELAXED);
	return seq < me->n && (!seq || !stop);
}

/* The reader's loop condition (run->n shrinks when the writers stopped
 * early: the harness then stores what they sent). */
static inline int bench_mw_more(const struct bench_mw_run *run)
{
	return run->delivered <
	       __atomic_load_n(&run->n, __ATOMIC_RELAXED); /* purpose: see
		* bench_mw_stopped_total() in the harness */
}

/* Ends the reader's timed window. */
static inline void bench_mw_done(struct bench_mw_run *run)
{
	run->t1 = bench_now_ns();
	run->timed =
		run->delivered >= run->warm ? run->delivered - run->warm : 0;
}

#ifdef __cplusplus
}
#endif

#endif
