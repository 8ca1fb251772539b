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
 *       (the hand-over J, P, L, S, F with concurrent writers)
 *
 * Exit 0 when every record arrived intact, 1 otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static void *gwriter(void *arg)
{
	uint64_t me = (uint64_t)(uintptr_t)arg;

	for (uint64_t k = 0; k < GROUNDS; k++) {
		struct pfr_writer w;
		int slot;

		while ((slot = pfr_group_join(grp, &w, me + 1)) == -PFR_E_FULL)
			sched_yield();
		if (slot < 0)
			return (void *)1;
		for (uint64_t i = 0; i < GRECS; i++) {
			uint64_t p[2] = {me << 32 | (k * GRECS + i),
					 (me << 32 | (k * GRECS + i)) ^
						 0x5555aaaa5555aaaaull};

			if (pfr_writer_write(&w, 7, p, sizeof(p)))
				return (void *)1;
		}
		if (pfr_group_leave(grp, &w))
			return (void *)1;
	}
	return NULL;
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
	if (me >= GW || r->tag != me + 1 ||
	    (p[0] & 0xffffffffu) != st->next[me] ||
	    p[1] != (p[0] ^ 0x5555aaaa5555aaaaull)) {
		fprintf(stderr, "group record corrupt (writer %llu)\n",
			(unsigned long long)me);
		st->bad = 1;
		return 0;
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
	while (st.got < (uint64_t)GW * GROUNDS * GRECS && !st.bad) {
		int64_t n = pfr_group_drain(grp, gcheck, &st, 0);

		if (n < 0)
			return 1;
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
	printf("group: %llu records intact, %llu slot frees\n",
	       (unsigned long long)st.got, (unsigned long long)gs.freed);
	return rc || st.bad || gs.freed != (uint64_t)GW * GROUNDS;
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
