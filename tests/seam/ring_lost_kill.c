// SPDX-License-Identifier: MIT
/*
 * A DROP writer killed before each of its stores to shared memory while
 * it writes its LOST record (src/ring/ring.c, pfr__put_lost(): the
 * record, lost_pending and lost_end, head, then lost_pending cleared):
 * the next writer and the reader must report the drops exactly once, and
 * every record whole.  Then (phase 2) killed before each store to the
 * loss words (lost_pending, lost_end, lost_total) while it counts a drop
 * after that LOST record went out (pfr__count_lost()): a count that
 * reached lost_pending must be reported.  The writer is a child process
 * that _exit()s inside the seam backend's hook (seam-barrier.h) before
 * its n-th store after it was armed, for n = 1, 2, ... until it finishes
 * unkilled; no timing decides anything.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "tap.h"

#define DROPS 4

static int armed, loss_words_only;
static unsigned stores, kill_at;
static struct pfr_ring_ctl *ctl;

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
	if (loss_words_only && p != &ctl->lost_pending && p != &ctl->lost_end &&
	    p != &ctl->lost_total)
		return;
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
static int run(unsigned n, int phase)
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
	uint64_t pending;
	char b = 0;
	pid_t pid;

	if (!ok(pfr_ring_create(&ring, &o) == 0 && pipe(c2p) == 0 &&
			pipe(p2c) == 0,
		"phase %d, kill before store %u: ring", phase, n))
		return 1;
	pfr_ring_reader(ring, &r);
	ctl = pfr_ring_ctl(ring);
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
		if (phase == 2) {
			/* the LOST record goes out; then the ring fills
			 * again, and a drop is counted */
			put(&w, seq++);
			loss_words_only = 1;
			armed = 1;
			while (!put(&w, seq))
				seq++;
		} else {
			armed = 1;
			put(&w, seq); /* LOST {DROPS}, then this record */
		}
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
	   "phase %d, kill before store %u: the writer %s", phase, n,
	   done ? "finished" : "was killed");
	/* phase 2: what the dead writer's count reached */
	pending = phase == 2 ? PFR_READ_ONCE(ctl->lost_pending) : 0;
	/* what the dead writer published, then the next writer reports
	 * what was not delivered */
	drain(&r, &t);
	if (pfr_ring_writer(ring, &w) == 0)
		put(&w, 1000000);
	drain(&r, &t);
	ok(t.lost == DROPS + pending && !t.bad,
	   "phase %d, kill before store %u: %llu drops reported once (%llu "
	   "reported, %llu records, %llu bad)",
	   phase, n, (unsigned long long)(DROPS + pending),
	   (unsigned long long)t.lost, (unsigned long long)t.records,
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
	for (int phase = 1; phase <= 2; phase++) {
		unsigned n = 1;

		while (!run(n, phase) && n < 64)
			n++;
		ok(n < 64,
		   "phase %d: every store of the path was a kill point (%u)",
		   phase, n);
	}
	return tap_done();
}
