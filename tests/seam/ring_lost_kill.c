// SPDX-License-Identifier: MIT
/*
 * A DROP writer killed before each of its stores to shared memory while
 * it writes its LOST record (src/ring/ring.c, pfr__put_lost(): the
 * record, lost_pending and lost_end, head, then lost_pending cleared):
 * the next writer and the reader must report the drops exactly once, and
 * every record whole.  The writer is a child process that _exit()s inside
 * the seam backend's hook (seam-barrier.h) before its n-th store after
 * the ring was drained, for n = 1, 2, ... until it finishes unkilled; no
 * timing decides anything.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "tap.h"

#define DROPS 4

static int armed;
static unsigned stores, kill_at;

void pfr_seam_loaded(const volatile void *p)
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
	uint64_t records, lost, bad, next;
};

static void drain(struct pfr_reader *r, struct tally *t)
{
	struct pfr_record rec;
	int rc;

	pfr_reader_begin(r);
	while ((rc = pfr_reader_next(r, &rec)) == 1) {
		uint64_t v[4];

		if (rec.hdr.type == PFR_RECORD_LOST) {
			struct pfr_lost_record lr;

			memcpy(&lr, rec.payload - sizeof(lr.hdr), sizeof(lr));
			t->lost += lr.lost;
			continue;
		}
		memcpy(v, rec.payload, sizeof(v));
		if (rec.len != sizeof(v) || v[1] != ~v[0] || v[2] != v[0] * 3 ||
		    v[0] < t->next)
			t->bad++;
		t->next = v[0] + 1;
		t->records++;
	}
	if (rc < 0)
		t->bad++;
	pfr_reader_end(r);
}

/* 1 when the child finished without being killed */
static int run(unsigned n)
{
	struct pfr_ring_opts o = {.sz = sizeof(o),
				  .data_size = 4096,
				  .policy = PFR_POLICY_DROP,
				  .lost_id = 0x10};
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct tally t = {0};
	int c2p[2], p2c[2], st, done = 0;
	char b = 0;
	pid_t pid;

	if (!ok(pfr_ring_create(&ring, &o) == 0 && pipe(c2p) == 0 &&
			pipe(p2c) == 0,
		"kill before store %u: ring", n))
		return 1;
	pfr_ring_reader(ring, &r);
	pid = fork();
	if (pid == 0) {
		uint64_t seq = 0;
		int drops = 0;

		if (pfr_ring_writer(ring, &w))
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
		_exit(1);
	}
	if (read(c2p[0], &b, 1) == 1)
		drain(&r, &t);
	if (write(p2c[1], &b, 1) != 1)
		t.bad++;
	waitpid(pid, &st, 0);
	done = WIFEXITED(st) && WEXITSTATUS(st) == 1;
	ok(WIFEXITED(st) && WEXITSTATUS(st) < 2,
	   "kill before store %u: the writer %s", n,
	   done ? "finished" : "was killed");
	/* the next writer reports what was not delivered */
	if (pfr_ring_writer(ring, &w) == 0)
		put(&w, 1000000);
	drain(&r, &t);
	ok(t.lost == DROPS && !t.bad,
	   "kill before store %u: %d drops reported once (%llu reported, "
	   "%llu records, %llu bad)",
	   n, DROPS, (unsigned long long)t.lost, (unsigned long long)t.records,
	   (unsigned long long)t.bad);
	pfr_ring_close(ring);
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
