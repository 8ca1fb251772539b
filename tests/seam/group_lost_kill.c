// SPDX-License-Identifier: MIT
/*
 * A group's DROP writer killed before each of its stores to shared memory
 * while it writes its LOST record (ring.c's pfr__put_lost(), as in
 * ring_lost_kill.c), then taken for dead by the group's reader, which
 * drains its slot to the end (src/writers/group.c, pfr__drain_slot():
 * a count left in lost_pending and not delivered by a LOST record is
 * reported by the reader itself): the drops must be reported exactly
 * once.  The writer is a child process that _exit()s inside the seam
 * backend's hook (seam-barrier.h) before its n-th store after the slot
 * was drained, for n = 1, 2, ... until it finishes unkilled (it then ends
 * without leaving: dead as well).  No timing decides anything.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/group.h>

#include "tap.h"

#define DROPS 4

static int armed;
static unsigned stores, kill_at;

void pfr_seam_loaded(const volatile void *p)
{
	(void)p;
}

void pfr_seam_read(const volatile void *p)
{
	(void)p;
}

void pfr_seam_storing(volatile void *p)
{
	(void)p;
	if (armed && ++stores == kill_at)
		_exit(0); /* killed before this store */
}

static int put(struct pfr_writer *w, uint64_t seq)
{
	uint64_t v[4] = {seq, ~seq, seq * 3, 7};

	return pfr_writer_write(w, 1, v, sizeof(v));
}

struct tally {
	uint64_t records, lost, bad;
};

static int cb(void *arg, const struct pfr_group_rec *r)
{
	struct tally *t = arg;
	uint64_t v[4];

	if (r->hdr.type == PFR_RECORD_LOST && r->len >= 16) {
		memcpy(v, r->payload, 16);
		t->lost += v[1];
		return 0;
	}
	memcpy(v, r->payload, r->len < sizeof(v) ? r->len : sizeof(v));
	if (r->len != sizeof(v) || v[1] != ~v[0])
		t->bad++;
	t->records++;
	return 0;
}

/* 1 when the child finished without being killed */
static int run(unsigned n)
{
	struct pfr_group_opts o = {.sz = sizeof(o),
				   .slots = 2,
				   .data_size = 4096,
				   .policy = PFR_POLICY_DROP};
	struct pfr_group_stats gs;
	struct pfr_group *g;
	struct pfr_writer w;
	struct tally t = {0};
	int c2p[2], p2c[2], st, done;
	char b = 0;
	pid_t pid;

	if (!ok(pfr_group_create(&g, &o) == 0 &&
			pfr_group_reader_open(g, 0, NULL, NULL) == 0 &&
			pipe(c2p) == 0 && pipe(p2c) == 0,
		"kill before store %u: group", n))
		return 1;
	pid = fork();
	if (pid == 0) {
		uint64_t seq = 0;
		int drops = 0;

		if (pfr_group_join(g, &w, 1) < 0)
			_exit(3);
		while (drops < DROPS)
			if (put(&w, seq++))
				drops++;
		if (write(c2p[1], &b, 1) != 1 || read(p2c[0], &b, 1) != 1)
			_exit(3);
		kill_at = n;
		armed = 1;
		put(&w, seq); /* LOST {DROPS}, then this record */
		armed = 0;
		_exit(1); /* ends without leaving */
	}
	if (read(c2p[0], &b, 1) == 1)
		pfr_group_drain(g, cb, &t, 0);
	if (write(p2c[1], &b, 1) != 1)
		t.bad++;
	waitpid(pid, &st, 0);
	done = WIFEXITED(st) && WEXITSTATUS(st) == 1;
	ok(WIFEXITED(st) && WEXITSTATUS(st) < 2,
	   "kill before store %u: the writer %s", n,
	   done ? "finished (and died)" : "was killed");
	pfr_group_set_reclaim_interval(g, 0);
	memset(&gs, 0, sizeof(gs));
	for (int i = 0; i < 100 && !gs.reclaimed; i++) {
		pfr_group_drain(g, cb, &t, 0);
		pfr_group_stats(g, &gs);
	}
	ok(gs.reclaimed == 1 && t.lost == DROPS && !t.bad,
	   "kill before store %u: slot reclaimed, %d drops reported once "
	   "(%llu reported, %llu records, %llu bad)",
	   n, DROPS, (unsigned long long)t.lost, (unsigned long long)t.records,
	   (unsigned long long)t.bad);
	pfr_group_close(g);
	close(c2p[0]);
	close(c2p[1]);
	close(p2c[0]);
	close(p2c[1]);
	return done;
}

int main(void)
{
	unsigned n = 1;

	while (!run(n) && n < 64)
		n++;
	ok(n < 64, "every store of the LOST path was a kill point (%u)", n);
	return tap_done();
}
