/* SPDX-License-Identifier: MIT */
/*
 * Threads on the library's rings, built with -fsanitize=thread by
 * t_tsan_threads.sh; ThreadSanitizer reports any record or slot access
 * that the code's acquire/release pairs do not order.
 *
 *   tsan_threads ring acqrel|ctrldep|full
 *       one writer thread, one reader, records carrying a sequence number
 *       and a checksum, each checked
 *   tsan_threads group
 *       3 writer threads on a 2-slot group, each joining (retrying while
 *       both slots are taken), writing, leaving, and again, so that slots
 *       pass from writer to writer while the reader drains and frees them
 *       (the hand-over J, P, L, S, F with concurrent writers); each
 *       writer's records checked in its own order across its leaves and
 *       joins
 *   tsan_threads registry
 *       a writer on a WAIT group whose reader sleeps in pfr_group_wait():
 *       each wake-up looks the group up in the process's registry of
 *       groups, while the main thread creates another group, which takes
 *       the registry's entry before it (the registry's publication, its
 *       release in pfr__greg_add(), and the wake path's acquire)
 *
 * Exit 0 when every record arrived intact, 1 otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <perfring/group.h>
#include <perfring/ring.h>

#define RECORDS 200000u

static struct pfr_ring *ring;

static void *writer(void *arg)
{
	struct pfr_writer w;
	uint64_t p[4];

	(void)arg;
	if (pfr_ring_writer(ring, &w))
		return (void *)1;
	for (uint64_t k = 1; k <= RECORDS; k++) {
		uint32_t words = 1 + (uint32_t)(k % 3);

		p[0] = k;
		p[1] = k * 0x9e3779b97f4a7c15ull;
		p[2] = ~k;
		p[3] = k << 7;
		if (pfr_writer_write(&w, 7, p, 8 * (words + 1)))
			return (void *)1;
	}
	pfr_writer_flush(&w);
	return NULL;
}

/* ---- group: slots handed from writer to writer ---- */

#define GW 3 /* writers */
#define GROUNDS 40 /* joins per writer */
#define GRECS 50 /* records per join */

static struct pfr_group *grp;
static int gdone; /* writers that returned */

static void *gwriter(void *arg)
{
	uint64_t me = (uint64_t)(uintptr_t)arg;
	void *rc = NULL;

	for (uint64_t k = 0; k < GROUNDS && !rc; k++) {
		struct pfr_writer w;
		int slot;

		while ((slot = pfr_group_join(grp, &w, me + 1)) == -PFR_E_FULL)
			sched_yield();
		if (slot < 0) {
			rc = (void *)1;
			break;
		}
		for (uint64_t i = 0; i < GRECS; i++) {
			uint64_t p[2] = {me << 32 | (k * GRECS + i),
					 (me << 32 | (k * GRECS + i)) ^
						 0x5555aaaa5555aaaaull};

			if (pfr_writer_write(&w, 7, p, sizeof(p)))
				rc = (void *)1;
		}
		if (pfr_group_leave(grp, &w))
			rc = (void *)1;
	}
	/* purpose: count this writer done; pairs with the main thread's
	 * acquire load of gdone (its leaves before the count) */
	__atomic_fetch_add(&gdone, 1, __ATOMIC_RELEASE);
	return rc;
}

struct gstate {
	uint64_t next[GW];
	uint64_t got;
	int bad;
};

static int gcheck(void *arg, const struct pfr_group_rec *r)
{
	struct gstate *st = arg;
	uint64_t p[2], me;

	if (r->len != 16) {
		st->bad = 1;
		return 0;
	}
	memcpy(p, r->payload, 16);
	me = p[0] >> 32;
	if (me >= GW) {
		fprintf(stderr, "group record corrupt (no such writer)\n");
		st->bad = 1;
		return 0;
	}
	if (r->tag != me + 1 || (p[0] & 0xffffffffu) != st->next[me] ||
	    p[1] != (p[0] ^ 0x5555aaaa5555aaaaull)) {
		fprintf(stderr,
			"group record corrupt or out of order (writer %llu, "
			"slot %u): sequence %llu where %llu was next\n",
			(unsigned long long)me, r->slot,
			(unsigned long long)(p[0] & 0xffffffffu),
			(unsigned long long)st->next[me]);
		st->bad = 1;
		/* counted and drained on: the writers finish, the test
		 * ends (and fails) */
		st->next[me] = p[0] & 0xffffffffu;
	}
	st->next[me]++;
	st->got++;
	return 0;
}

static int run_group(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 4096,
				   .policy = PFR_POLICY_BLOCK,
				   .ordering = PFR_ORDER_ACQREL};
	struct pfr_group_stats gs;
	struct gstate st;
	pthread_t th[GW];
	int rc = 0;

	memset(&st, 0, sizeof(st));
	if (pfr_group_create(&grp, &o) ||
	    pfr_group_reader_open(grp, 0, NULL, NULL))
		return 1;
	for (uintptr_t i = 0; i < GW; i++)
		pthread_create(&th[i], NULL, gwriter, (void *)i);
	/* until every record arrived, or every writer returned and two
	 * drains after that found nothing (a record lost: the check below
	 * fails instead of waiting) */
	for (int idle = 0;
	     st.got < (uint64_t)GW * GROUNDS * GRECS && idle < 2;) {
		/* purpose: every writer done; pairs with the writers'
		 * release increments of gdone */
		int done = __atomic_load_n(&gdone, __ATOMIC_ACQUIRE) == GW;
		int64_t n = pfr_group_drain(grp, gcheck, &st, 0);

		if (n < 0)
			return 1;
		idle = done && !n ? idle + 1 : 0;
		if (!n)
			sched_yield();
	}
	for (int i = 0; i < GW; i++) {
		void *wrc;

		pthread_join(th[i], &wrc);
		rc |= wrc != NULL;
	}
	/* the last leaves: drained and freed */
	for (int i = 0; i < 100; i++)
		if (pfr_group_drain(grp, gcheck, &st, 0) < 0)
			rc = 1;
	pfr_group_stats(grp, &gs);
	pfr_group_close(grp);
	printf("group: %llu of %u records intact and in each writer's "
	       "order, %llu slot frees\n",
	       (unsigned long long)st.got, GW * GROUNDS * GRECS,
	       (unsigned long long)gs.freed);
	return rc || st.bad || st.got != (uint64_t)GW * GROUNDS * GRECS ||
	       gs.freed != (uint64_t)GW * GROUNDS;
}

/* ---- registry: a group created while a writer's wake-ups look one up
 * ---- */

static struct pfr_group *rgrp;
static int rstop, rbad; /* relaxed: no synchronization between threads */
static uint64_t rsleeps;

static void *rwriter(void *arg)
{
	struct pfr_writer w;
	uint64_t k = 0;

	(void)arg;
	if (pfr_group_join(rgrp, &w, 1) < 0)
		return (void *)1;
	while (!__atomic_load_n(&rstop, __ATOMIC_RELAXED)) {
		uint64_t p[2] = {++k, k * 0x9e3779b97f4a7c15ull};

		/* DROP: a full ring loses records (counted), never blocks */
		if (pfr_writer_write(&w, 7, p, sizeof(p)) &&
		    pfr_writer_lost(&w) == 0)
			return (void *)1;
	}
	return pfr_group_leave(rgrp, &w) ? (void *)1 : NULL;
}

static int rcheck(void *arg, const struct pfr_group_rec *r)
{
	uint64_t *last = arg, p[2];

	if (r->hdr.type != 7)
		return 0; /* LOST */
	memcpy(p, r->payload, sizeof(p));
	if (r->len != 16 || p[0] <= *last ||
	    p[1] != p[0] * 0x9e3779b97f4a7c15ull) {
		fprintf(stderr, "registry: record corrupt\n");
		__atomic_store_n(&rbad, 1, __ATOMIC_RELAXED);
	}
	*last = p[0];
	return 0;
}

static void *rreader(void *arg)
{
	struct pfr_group_stats gs;
	uint64_t last = 0;

	(void)arg;
	while (!__atomic_load_n(&rstop, __ATOMIC_RELAXED)) {
		int wr = pfr_group_wait(rgrp, 1000000);

		if ((wr < 0 && wr != -PFR_E_TIMEDOUT) ||
		    pfr_group_drain(rgrp, rcheck, &last, 0) < 0) {
			__atomic_store_n(&rbad, 1, __ATOMIC_RELAXED);
			break;
		}
		pfr_group_stats(rgrp, &gs);
		__atomic_store_n(&rsleeps, gs.wakeups, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void rpause(long ns)
{
	struct timespec ts = {0, ns};

	nanosleep(&ts, NULL);
}

static int run_registry(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 1,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP,
				   .ordering = PFR_ORDER_ACQREL,
				   .flags = PFR_GROUP_WAIT};
	struct pfr_group *before, *late;
	pthread_t tw, tr;
	uint64_t s0, s1;
	void *wrc;
	int rc = 0;

	/* the registry's first entry is freed again, so that the group
	 * created later takes it: every lookup for rgrp passes it */
	if (pfr_group_create(&before, &o) || pfr_group_create(&rgrp, &o) ||
	    pfr_group_reader_open(rgrp, 0, NULL, NULL))
		return 1;
	pfr_group_close(before);
	pthread_create(&tr, NULL, rreader, NULL);
	pthread_create(&tw, NULL, rwriter, NULL);
	rpause(50000000);
	/* no synchronization with the writer from here on but the
	 * registry's own: its lookups read the new group's fields */
	if (pfr_group_create(&late, &o))
		return 1;
	s0 = __atomic_load_n(&rsleeps, __ATOMIC_RELAXED);
	rpause(200000000);
	s1 = __atomic_load_n(&rsleeps, __ATOMIC_RELAXED);
	__atomic_store_n(&rstop, 1, __ATOMIC_RELAXED);
	pthread_join(tw, &wrc);
	pthread_join(tr, NULL);
	rc = wrc != NULL || rbad;
	printf("registry: %llu sleeps woken while the second group existed\n",
	       (unsigned long long)(s1 - s0));
	if (s1 == s0) {
		fprintf(stderr, "registry: no wake-up to test\n");
		rc = 1;
	}
	pfr_group_close(late);
	pfr_group_close(rgrp);
	return rc;
}

int main(int argc, char **argv)
{
	struct pfr_ring_opts o = {
		.sz = sizeof(o), .data_size = 4096, .policy = PFR_POLICY_BLOCK};
	struct pfr_reader r;
	struct pfr_record rec;
	pthread_t th;
	uint64_t next = 1;
	void *wrc;

	if (argc == 2 && !strcmp(argv[1], "group"))
		return run_group();
	if (argc == 2 && !strcmp(argv[1], "registry"))
		return run_registry();
	if (argc != 3 || strcmp(argv[1], "ring"))
		return 2;
	o.ordering = !strcmp(argv[2], "ctrldep") ? PFR_ORDER_CTRLDEP
		     : !strcmp(argv[2], "full")	 ? PFR_ORDER_FULL
						 : PFR_ORDER_ACQREL;
	if (pfr_ring_create(&ring, &o) || pfr_ring_reader(ring, &r))
		return 1;
	pthread_create(&th, NULL, writer, NULL);
	while (next <= RECORDS) {
		int rc;

		if (pfr_reader_begin(&r) < 0)
			return 1;
		while ((rc = pfr_reader_next(&r, &rec)) == 1) {
			uint64_t p[4] = {0};

			if (rec.len < 16 || rec.len > 32)
				return 1;
			memcpy(p, rec.payload, rec.len);
			if (p[0] != next ||
			    p[1] != next * 0x9e3779b97f4a7c15ull ||
			    (rec.len > 16 && p[2] != ~next)) {
				fprintf(stderr, "record %llu corrupt\n",
					(unsigned long long)next);
				return 1;
			}
			next++;
		}
		pfr_reader_end(&r);
		if (rc < 0)
			return 1;
	}
	pthread_join(th, &wrc);
	pfr_ring_close(ring);
	printf("ring %s: %u records intact\n", argv[2], RECORDS);
	return wrc ? 1 : 0;
}
