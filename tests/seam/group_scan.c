// SPDX-License-Identifier: MIT
/*
 * A writer that leaves its slot and joins another between two loads of
 * the reader's scan (src/writers/group.c, pfr__scan()): its records must
 * still come out in its order.  The scan's first pass opens a slot, so it
 * makes a second; in that second pass, right after the load of the
 * writer's old slot (still ACTIVE), the writer leaves it (unread records
 * in it), joins the free slot after it and writes; the second pass then
 * opens the new slot.  A slot opened in a scan's last pass is fresh (not
 * read) until a later pass has completed, and that pass sees the leave,
 * so the old slot is taken to its end first.  The interleaving is made
 * exactly, in one thread, by the seam backend (seam-barrier.h): the
 * writer's steps run inside the hook of the reader's acquire load.  The
 * round robin's start is set to each slot in turn (g->rr), so the new
 * slot's batch comes first in one of the runs.  Then again with the
 * writer leaving its new slot too: the second pass opens it closing, and
 * a closing slot opened in a scan's last pass waits like any other (the
 * drain takes closing slots to their end before the round).
 */
#include "../../src/writers/group.c"

#include "tap.h"

#define NSLOTS 3
#define OLD 6 /* records left unread in the old slot */

static struct {
	struct pfr_group *g;
	struct pfr_writer *w;
	uint64_t passes; /* the scan's passes before the drain */
	uint64_t *seq; /* the writer's next record */
	int armed, fired, err, leave_too;
} seam;

void pfr_seam_read(const volatile void *p)
{
	(void)p;
}

void pfr_seam_storing(volatile void *p)
{
	(void)p;
}

static int put(struct pfr_writer *w, uint64_t tag, uint64_t seq)
{
	uint64_t v[2] = {tag, seq};

	return pfr_writer_write(w, 1, v, sizeof(v));
}

/* After the second pass's load of slot 0's word: the writer leaves slot 0
 * and joins slot 2, and writes there. */
void pfr_seam_loaded(const volatile void *p)
{
	struct pfr_group *g = seam.g;

	if (!seam.armed || seam.fired || p != &pfr__ent(g, 0)->word ||
	    g->passes != seam.passes + 1)
		return;
	seam.fired = 1;
	seam.err |= pfr_group_leave(g, seam.w) != 0;
	seam.err |= pfr_group_join(g, seam.w, 1) != 2;
	for (int k = 0; k < 3; k++)
		seam.err |= put(seam.w, 1, (*seam.seq)++) != 0;
	/* and leaves again: the second pass opens slot 2 closing */
	if (seam.leave_too)
		seam.err |= pfr_group_leave(g, seam.w) != 0;
}

struct seen {
	uint64_t next, got, bad;
};

static int check(void *arg, const struct pfr_group_rec *r)
{
	struct seen *s = arg;
	uint64_t v[2];

	if (r->len != sizeof(v))
		return s->bad++, 0;
	memcpy(v, r->payload, sizeof(v));
	if (v[0] != 1)
		return 0; /* the other writers' */
	if (v[1] != s->next)
		s->bad++;
	s->next = v[1] + 1;
	s->got++;
	return 0;
}

static int64_t drain(struct pfr_group *g, struct seen *s, int batched)
{
	return batched ? pfr_group_consume(g, check, s, 0)
		       : pfr_group_drain(g, check, s, 0);
}

static void run(uint32_t rr, int batched, int leave_too)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = NSLOTS,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP};
	struct pfr_writer w1, x, z, y;
	struct pfr_group_stats st;
	struct pfr_group *g;
	struct seen s = {0};
	uint64_t seq = 0;
	int err = 0;
	const char *how = leave_too ? (batched ? "consume, left again"
					       : "drain, left again")
			  : batched ? "consume"
				    : "drain";

	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 0, NULL, NULL) == 0,
		"rr %u, %s: group created", rr, how))
		return;
	/* slots 0, 1, 2: the writer, x, z; then x and z leave, and their
	 * slots are freed (hint stays 3) */
	err |= pfr_group_join(g, &w1, 1) != 0;
	err |= pfr_group_join(g, &x, 2) != 1;
	err |= pfr_group_join(g, &z, 3) != 2;
	err |= put(&w1, 1, seq++) != 0;
	err |= drain(g, &s, batched) < 0;
	err |= pfr_group_leave(g, &x) != 0;
	err |= pfr_group_leave(g, &z) != 0;
	for (int i = 0; i < 4; i++)
		err |= drain(g, &s, batched) < 0;
	pfr_group_stats(g, &st);
	ok(!err && st.freed == 2 && s.got == 1 && !s.bad,
	   "rr %u, %s: set up (freed %llu, read %llu)", rr, how,
	   (unsigned long long)st.freed, (unsigned long long)s.got);
	/* old records, unread; y joins slot 1: the scan's first pass opens
	 * it, so the scan makes a second, where the seam fires */
	for (int k = 0; k < OLD; k++)
		err |= put(&w1, 1, seq++) != 0;
	err |= pfr_group_join(g, &y, 4) != 1;
	err |= put(&y, 4, 0) != 0;
	seam.g = g;
	seam.w = &w1;
	seam.seq = &seq;
	seam.passes = g->passes;
	seam.armed = 1;
	seam.fired = seam.err = 0;
	seam.leave_too = leave_too;
	g->rr = rr;
	err |= drain(g, &s, batched) < 0;
	seam.armed = 0;
	ok(seam.fired && !seam.err && !err,
	   "rr %u, %s: the writer left slot 0 and joined slot 2 between the "
	   "scan's loads of them",
	   rr, how);
	for (int i = 0; i < 4; i++)
		err |= drain(g, &s, batched) < 0;
	ok(!err && s.got == seq && !s.bad,
	   "rr %u, %s: its %llu records in its order (%llu read, %llu out "
	   "of order)",
	   rr, how, (unsigned long long)seq, (unsigned long long)s.got,
	   (unsigned long long)s.bad);
	if (!leave_too)
		pfr_group_leave(g, &w1);
	pfr_group_leave(g, &y);
	pfr_group_close(g);
}

int main(void)
{
	for (int leave_too = 0; leave_too < 2; leave_too++)
		for (int batched = 0; batched < 2; batched++)
			for (uint32_t rr = 0; rr < NSLOTS; rr++)
				run(rr, batched, leave_too);
	return tap_done();
}
