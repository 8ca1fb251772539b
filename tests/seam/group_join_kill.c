// SPDX-License-Identifier: MIT
/*
 * A joiner killed between its ACTIVE store and its announcement (the
 * change count) while the reader scans the directory (src/writers/group.c,
 * pfr_group_join() and pfr__scan()): its slot must still be reclaimed.
 * The scan's first pass opens a slot (a writer that joined and counted
 * its change), so it makes a second; in that second pass, right after the
 * load of slot 0's word, a child process joins slot 1 and is killed
 * (_exit()) at its load of the hint, after its ACTIVE store and before
 * pfr__announce().  The second pass opens slot 1: fresh, so not read in
 * this drain, and no change was counted for it, so only the scan's own
 * note (g->rescan) makes the next drain scan again; then the slot is no
 * longer fresh, its owner is found dead, and the slot is drained and
 * freed.  Without the note the slot stays fresh, unreclaimed, until some
 * other writer joins or leaves: the group stays full.  The interleaving
 * is made exactly by the seam backend (seam-barrier.h): the child is
 * forked inside the hook of the reader's acquire load and killed inside
 * the hook of its own relaxed load.  No timing decides anything.
 */
#include "../../src/writers/group.c"

#include <sys/wait.h>

#include "tap.h"

#define NSLOTS 2

static struct {
	struct pfr_group *g;
	uint64_t passes; /* the scan's passes before the drain */
	int armed, fired, child, status;
} seam;

void pfr_seam_storing(volatile void *p)
{
	(void)p;
}

/* The child's load of the hint after its ACTIVE store: killed there. */
void pfr_seam_read(const volatile void *p)
{
	if (seam.child && p == &seam.g->h->hint)
		_exit(0);
}

/* After the second pass's load of slot 0's word: a child joins slot 1
 * and is killed before it announces the join. */
void pfr_seam_loaded(const volatile void *p)
{
	struct pfr_group *g = seam.g;
	struct pfr_writer w;
	pid_t pid;

	if (!seam.armed || seam.fired || p != &pfr__ent(g, 0)->word ||
	    g->passes != seam.passes + 1)
		return;
	seam.fired = 1;
	pid = fork();
	if (pid == 0) {
		seam.child = 1;
		pfr_group_join(g, &w, 9);
		_exit(3); /* the join finished: not killed */
	}
	if (pid < 0 || waitpid(pid, &seam.status, 0) != pid)
		seam.status = -1;
}

static int count(void *arg, const struct pfr_group_rec *r)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

int main(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = NSLOTS,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP};
	struct pfr_writer x, z, a, b;
	struct pfr_group_stats st;
	struct pfr_group *g;
	uint64_t got = 0, v = 7, ch;
	uint32_t word;
	int err = 0, i;

	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 0, NULL, NULL) == 0,
		"group created"))
		return tap_done();
	pfr_group_set_reclaim_interval(g, 0);
	/* slots 0 and 1 joined and left, and freed: the hint stays 2 */
	err |= pfr_group_join(g, &x, 1) != 0;
	err |= pfr_group_join(g, &z, 2) != 1;
	err |= pfr_group_leave(g, &x) != 0;
	err |= pfr_group_leave(g, &z) != 0;
	for (i = 0; i < 4; i++)
		err |= pfr_group_drain(g, count, &got, 0) < 0;
	pfr_group_stats(g, &st);
	ok(!err && st.freed == 2, "set up (freed %llu)",
	   (unsigned long long)st.freed);
	/* a joins slot 0 and writes: the scan's first pass opens it */
	err |= pfr_group_join(g, &a, 3) != 0;
	err |= pfr_writer_write(&a, 1, &v, sizeof(v)) != 0;
	seam.g = g;
	seam.passes = g->passes;
	seam.armed = 1;
	ch = PFR_READ_ONCE(g->h->changes);
	err |= pfr_group_drain(g, count, &got, 0) < 0;
	seam.armed = 0;
	word = W_STATE(PFR_READ_ONCE(pfr__ent(g, 1)->word));
	ok(!err && seam.fired && WIFEXITED(seam.status) &&
		   WEXITSTATUS(seam.status) == 0 && word == S_ACTIVE &&
		   PFR_READ_ONCE(g->h->changes) == ch,
	   "a joiner of slot 1 killed after its ACTIVE store, before its "
	   "announcement, between the scan's loads of slots 0 and 1 "
	   "(state %u, changes %llu -> %llu)",
	   word, (unsigned long long)ch,
	   (unsigned long long)PFR_READ_ONCE(g->h->changes));
	memset(&st, 0, sizeof(st));
	for (i = 0; i < 8 && !st.reclaimed; i++) {
		err |= pfr_group_drain(g, count, &got, 0) < 0;
		pfr_group_stats(g, &st);
	}
	ok(!err && st.reclaimed == 1,
	   "its slot reclaimed with no other change (after %d drains, "
	   "reclaimed %llu)",
	   i, (unsigned long long)st.reclaimed);
	ok(pfr_group_join(g, &b, 4) == 1, "slot 1 joined again");
	err |= pfr_group_drain(g, count, &got, 0) < 0;
	ok(!err && got == 1, "a's record read once (%llu)",
	   (unsigned long long)got);
	pfr_group_leave(g, &b);
	pfr_group_leave(g, &a);
	pfr_group_close(g);
	return tap_done();
}
