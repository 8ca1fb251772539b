/* SPDX-License-Identifier: MIT */
/*
 * Two-thread message-passing smoke test of the barrier primitives: a writer
 * fills slots of a small single-producer single-consumer ring with a
 * payload (sequence number, derived words, checksum) in plain stores and
 * publishes each slot; a reader waits for it, checks the payload and frees
 * the slot.  Two orderings, as in docs/design.md section 2:
 *
 *        WRITER                             READER
 *   tail = LOAD(tail)                  head = LOAD(head)
 *   (A)                                (C)
 *   STORE payload                      LOAD payload
 *   (B)                                (D)
 *   STORE(head, head + 1)              STORE(tail, tail + 1)
 *
 *   ACQREL: A = load_acquire(tail), B = store_release(head),
 *           C = load_acquire(head), D = store_release(tail).
 *   FENCES: A = READ_ONCE + smp_mb, B = smp_wmb + WRITE_ONCE,
 *           C = READ_ONCE + smp_rmb, D = smp_mb + WRITE_ONCE.
 *
 * B pairs with C (the reader never sees a head before the payload it
 * covers); A pairs with D (the writer never overwrites a slot the reader
 * is still checking).  A missing or wrong barrier shows as a payload
 * mismatch on a weakly ordered machine; on x86 and under qemu only the
 * compiler can break it, so this is a smoke test, not a proof.  Under
 * ThreadSanitizer only ACQREL runs (TSan does not model stand-alone fences)
 * and TSan reports any payload access the acquire/release pairs do not
 * order.
 *
 * Built with the native backend (mp_smoke) and with forced C11
 * (mp_smoke_c11).  PFR_MP_MESSAGES overrides the message count.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <perfring/barrier.h>

#include "tap.h"

#if defined(__SANITIZE_THREAD__)
#define MP_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MP_TSAN 1
#endif
#endif

/* Under TSan the fence ordering is not run, and not compiled either (gcc
 * warns about every fence it cannot model). */
#if defined(MP_TSAN)
#define FENCE(f) ((void)0)
#else
#define FENCE(f) f
#endif

#define SLOTS 64 /* power of two */
#define WORDS 6

enum mode { ACQREL, FENCES };

struct slot {
	uint64_t w[WORDS]; /* seq, 3 derived words, padding, checksum */
};

struct mp {
	enum mode mode;
	uint64_t messages;
	uint64_t head __attribute__((aligned(128))); /* written by the writer */
	uint64_t tail __attribute__((aligned(128))); /* written by the reader */
	struct slot slot[SLOTS] __attribute__((aligned(128)));
	/* reader's findings */
	uint64_t received, bad_seq, bad_sum, first_bad;
};

static uint64_t checksum(const uint64_t *w)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < WORDS - 1; i++)
		s = (s ^ w[i]) * 0x100000001b3ull;
	return s;
}

static void fill(struct slot *s, uint64_t seq)
{
	s->w[0] = seq;
	s->w[1] = seq * 0x9e3779b97f4a7c15ull;
	s->w[2] = ~seq;
	s->w[3] = seq ^ 0x5555555555555555ull;
	s->w[4] = seq << 7;
	s->w[5] = checksum(s->w);
}

/* Spins politely: the machines this runs on may have fewer CPUs than
 * runnable threads. */
static void wait_a_little(unsigned *spins)
{
	if (++*spins < 64) {
		pfr_cpu_relax();
	} else {
		*spins = 0;
		sched_yield();
	}
}

static void *writer(void *arg)
{
	struct mp *m = arg;
	uint64_t head = 0, tail;
	unsigned spins = 0;

	for (uint64_t seq = 1; seq <= m->messages; seq++) {
		for (;;) {
			if (m->mode == ACQREL) {
				/* A: pairs with D in reader() */
				tail = pfr_smp_load_acquire(&m->tail);
			} else {
				tail = PFR_READ_ONCE(m->tail);
				FENCE(pfr_smp_mb()); /* A: pairs with D */
			}
			if (head - tail < SLOTS)
				break;
			wait_a_little(&spins);
		}
		fill(&m->slot[head & (SLOTS - 1)], seq);
		head++;
		if (m->mode == ACQREL) {
			/* B: pairs with C in reader() */
			pfr_smp_store_release(&m->head, head);
		} else {
			FENCE(pfr_smp_wmb()); /* B: pairs with C in reader() */
			PFR_WRITE_ONCE(m->head, head);
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct mp *m = arg;
	uint64_t tail = 0, head, want = 1;
	unsigned spins = 0;

	while (want <= m->messages) {
		if (m->mode == ACQREL) {
			/* C: pairs with B in writer() */
			head = pfr_smp_load_acquire(&m->head);
		} else {
			head = PFR_READ_ONCE(m->head);
			FENCE(pfr_smp_rmb()); /* C: pairs with B in writer() */
		}
		if (head == tail) {
			wait_a_little(&spins);
			continue;
		}
		while (tail != head) {
			const struct slot *s = &m->slot[tail & (SLOTS - 1)];
			struct slot copy = *s;

			int bad = 0;

			if (copy.w[0] != want) {
				m->bad_seq++;
				bad = 1;
			} else if (copy.w[5] != checksum(copy.w)) {
				m->bad_sum++;
				bad = 1;
			}
			if (bad && !m->first_bad)
				m->first_bad = want;
			m->received++;
			want++;
			tail++;
		}
		if (m->mode == ACQREL) {
			/* D: pairs with A in writer() */
			pfr_smp_store_release(&m->tail, tail);
		} else {
			FENCE(pfr_smp_mb()); /* D: pairs with A in writer() */
			PFR_WRITE_ONCE(m->tail, tail);
		}
	}
	return NULL;
}

static void run(enum mode mode, uint64_t messages)
{
	const char *name = mode == ACQREL ? "acquire/release" : "fences";
	struct mp *m;
	pthread_t w, r;

	if (posix_memalign((void **)&m, 128, sizeof(*m)))
		tap_skip_all("out of memory");
	*m = (struct mp){.mode = mode, .messages = messages};
	if (pthread_create(&r, NULL, reader, m) ||
	    pthread_create(&w, NULL, writer, m)) {
		ok(0, "%s: start two threads", name);
		free(m);
		return;
	}
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	is_uint(m->received, messages, "all messages received");
	if (!ok(m->bad_seq == 0 && m->bad_sum == 0,
		"%s (%s): %llu messages, every sequence number and checksum "
		"right",
		name, PFR_BARRIER_BACKEND, (unsigned long long)messages))
		tap_diag("  %llu bad sequence numbers, %llu bad checksums, "
			 "first at message %llu",
			 (unsigned long long)m->bad_seq,
			 (unsigned long long)m->bad_sum,
			 (unsigned long long)m->first_bad);
	is_uint(PFR_READ_ONCE(m->head), messages, "final head");
	is_uint(PFR_READ_ONCE(m->tail), messages, "final tail");
	free(m);
}

int main(void)
{
	const char *env = getenv("PFR_MP_MESSAGES");
	const char *lng = getenv("PFR_LONG");
	uint64_t n = 1000000;

	if (lng && *lng == '1')
		n = 20000000;
	if (env)
		n = strtoull(env, NULL, 0);
	tap_diag("backend %s, %llu messages per ordering", PFR_BARRIER_BACKEND,
		 (unsigned long long)n);
	run(ACQREL, n);
#if defined(MP_TSAN)
	tap_diag("fences ordering not run: TSan does not model fences");
#else
	run(FENCES, n);
#endif
	return tap_done();
}
