// SPDX-License-Identifier: MIT
/*
 * A writer's own order across a leave and a join, in an unordered group:
 * everything a writer wrote before it left comes out before anything it
 * wrote after it joined again, whichever slot it gets and wherever the
 * reader's round robin starts.  Single-threaded and seeded (no timing
 * decides anything): four writers on three slots take seeded steps -
 * write a few records, leave and join again (on whatever slot is free),
 * stay out a while - between drains by pfr_group_drain() and by
 * pfr_group_consume(), so that a writer's new slot often comes before its
 * old, still closing, one in the reader's round.  Every record must come
 * out, once, in its writer's order; every leave's slot must be freed.
 */
#include <stdio.h>
#include <string.h>

#include <perfring/group.h>

#include "tap.h"

#define NW 4 /* writers */
#define NSLOTS 3
#define STEPS 4000

struct seen {
	uint64_t next[NW], got, bad, first_bad_w, first_bad_seq;
};

static int check(void *arg, const struct pfr_group_rec *r)
{
	struct seen *s = arg;
	uint64_t p[2];

	if (r->hdr.type != 1 || r->len != sizeof(p) || r->tag >= NW) {
		s->bad++;
		return 0;
	}
	memcpy(p, r->payload, sizeof(p));
	if (p[0] != r->tag || p[1] != s->next[r->tag]) {
		if (!s->bad) {
			s->first_bad_w = r->tag;
			s->first_bad_seq = p[1];
		}
		s->bad++;
	}
	s->next[r->tag] = p[1] + 1;
	s->got++;
	return 0;
}

/* xorshift64: the steps are the same on every run */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int drain(struct pfr_group *g, struct seen *s, int batched)
{
	int64_t n = batched ? pfr_group_consume(g, check, s, 0)
			    : pfr_group_drain(g, check, s, 0);

	return n < 0 ? (int)n : 0;
}

static void run(uint64_t seed, int batched)
{
	struct pfr_group_opts o;
	struct pfr_group *g = NULL;
	struct pfr_writer w[NW];
	struct pfr_group_stats st;
	struct seen s;
	uint64_t sent[NW], since[NW], x = seed, leaves = 0, rejoins = 0;
	int in[NW], err = 0;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.slots = NSLOTS;
	o.data_size = 4096;
	o.policy = PFR_POLICY_DROP;
	memset(&s, 0, sizeof(s));
	memset(sent, 0, sizeof(sent));
	memset(since, 0, sizeof(since));
	memset(in, 0, sizeof(in));
	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 0, NULL, NULL) == 0,
		"seed %llu: group created, reader open",
		(unsigned long long)seed))
		return;
	for (int step = 0; step < STEPS && !err; step++) {
		uint64_t r = rnd(&x), cnt = 1 + (r >> 16) % 6;
		int k = (int)(r % NW), op = (int)((r >> 8) % 4);

		/* a ring holds 128 of these records: the reader's turn
		 * comes before any writer could fill one (nothing lost) */
		if (op >= 2 && since[k] + cnt > 100)
			op = 0;
		switch (op) {
		case 0: /* the reader's turn */
			err = drain(g, &s, batched);
			memset(since, 0, sizeof(since));
			break;
		case 1: /* writer k leaves (or joins, if it is out) */
			if (in[k]) {
				err = pfr_group_leave(g, &w[k]);
				in[k] = 0;
				leaves++;
				if (err)
					break;
			}
			if (pfr_group_join(g, &w[k], (uint64_t)k) >= 0) {
				in[k] = 1;
				rejoins++;
			}
			break;
		default: /* writer k writes a few records */
			if (!in[k])
				break;
			for (uint64_t j = 0; j < cnt; j++) {
				uint64_t p[2] = {(uint64_t)k, sent[k]};

				if (pfr_writer_write(&w[k], 1, p, sizeof(p)))
					err = -1;
				sent[k]++;
				since[k]++;
			}
			break;
		}
	}
	for (int k = 0; k < NW && !err; k++)
		if (in[k]) {
			err = pfr_group_leave(g, &w[k]);
			leaves++;
		}
	for (int i = 0; i < 4 && !err; i++)
		err = drain(g, &s, batched);
	pfr_group_stats(g, &st);
	ok(!err, "seed %llu, %s: every step and drain succeeded (%d)",
	   (unsigned long long)seed, batched ? "consume" : "drain", err);
	uint64_t total = 0;

	for (int k = 0; k < NW; k++)
		total += sent[k];
	ok(s.got == total && st.lost == 0,
	   "seed %llu: every record came out (%llu of %llu, %llu lost)",
	   (unsigned long long)seed, (unsigned long long)s.got,
	   (unsigned long long)total, (unsigned long long)st.lost);
	if (!ok(s.bad == 0,
		"seed %llu: each writer's records in its order across %llu "
		"joins",
		(unsigned long long)seed, (unsigned long long)rejoins))
		tap_diag("%llu out of order; first: writer %llu, record %llu",
			 (unsigned long long)s.bad,
			 (unsigned long long)s.first_bad_w,
			 (unsigned long long)s.first_bad_seq);
	ok(st.freed == leaves, "seed %llu: %llu leaves, %llu slots freed",
	   (unsigned long long)seed, (unsigned long long)leaves,
	   (unsigned long long)st.freed);
	pfr_group_close(g);
}

int main(void)
{
	static const uint64_t seeds[] = {1, 2, 3, 0x9e3779b97f4a7c15ull};

	for (unsigned i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		run(seeds[i], 0);
		run(seeds[i], 1);
	}
	return tap_done();
}
