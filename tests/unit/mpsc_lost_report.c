// SPDX-License-Identifier: MIT
/*
 * Every drop of the shared ring is reported in band (issue 34, item 10).
 * In DROP mode, producers that dropped records and then left while the
 * ring was full (their LOST record did not fit), or were killed with
 * drops pending, and whose slots no producer claims again, used to keep
 * their counts in the slot for ever: the reader's LOST records missed
 * them.  Now the reader reports them itself once the ring is drained (it
 * claims the free or dead slot and writes the LOST record in its name),
 * and pfr_mpsc_lost_counts() tells reported from pending.
 *
 * Each round: a producer fills the ring, then producers (here, or in
 * children) drop records; they leave, or are killed with kill -9 while
 * they wait; the reader drains.  The reader's LOST total must equal the
 * drops exactly (counted by the producers' -PFR_E_NOSPC), with none
 * pending.  With PFR_MPSC_LOST_LOOP=1 (tests/stress/long_mpsc_lost.sh, in
 * make check-long) more rounds,
 * and a loop that kills producers at random points of their writes, the
 * reader reading meanwhile: the LOST total lies between the drops the
 * producers counted and that plus one per kill (a kill between a drop and
 * its count), and none is left pending.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "tap.h"

#define T_TYPE 9u
#define NPROD 8u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static struct pfr_mpsc *mk(void)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;

	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.policy = PFR_POLICY_DROP;
	o.max_producers = NPROD;
	if (pfr_mpsc_create(&m, &o))
		exit(1);
	return m;
}

/* One pass over what the reader can read: LOST counts into *lost. */
static int drain_once(struct pfr_mpsc_reader *r, uint64_t *lost)
{
	struct pfr_record rec;
	int64_t a = pfr_mpsc_begin(r);
	int rc;

	if (a < 0)
		return (int)a;
	while ((rc = pfr_mpsc_next(r, &rec)) == 1) {
		if (rec.hdr.type == PFR_RECORD_LOST) {
			uint64_t n;

			memcpy(&n, (const char *)rec.payload + 8, 8);
			*lost += n;
		}
	}
	pfr_mpsc_end(r);
	return rc < 0 && rc != -PFR_E_STALLED ? rc : 0;
}

/* Reads until the ring is drained with nothing pending, or 3 s. */
static int drain_all(struct pfr_mpsc *m, struct pfr_mpsc_reader *r,
		     uint64_t *lost)
{
	uint64_t end = now_ns() + 3000000000ull, pending = 1;
	struct pfr_mpsc_stats st;

	while (now_ns() < end) {
		int err = drain_once(r, lost);

		if (err)
			return err;
		pfr_mpsc_lost_counts(m, NULL, &pending);
		pfr_mpsc_stats(m, NULL, &st);
		if (!pending && st.prod_pos == st.cons_pos)
			return 0;
	}
	return 0;
}

/* Writes until `drops` writes were refused; returns the drops. */
static uint64_t drop_some(struct pfr_mpsc_producer *p, uint64_t drops)
{
	uint64_t payload[4] = {1, 2, 3, 4}, n = 0;

	while (n < drops)
		if (pfr_mpsc_write(p, T_TYPE, payload, sizeof(payload)) ==
		    -PFR_E_NOSPC)
			n++;
	return n;
}

/* Fills the ring with one producer that leaves (its records stay). */
static void fill(struct pfr_mpsc *m)
{
	struct pfr_mpsc_producer p;
	uint64_t payload[4] = {0};

	if (pfr_mpsc_join(m, &p))
		return;
	while (pfr_mpsc_write(&p, T_TYPE, payload, sizeof(payload)) == 0)
		;
	/* that one drop is counted: a LOST record carries it later */
	pfr_mpsc_leave(&p);
}

/* One round: k producers drop, then leave (kill = 0) or are killed. */
static void round_one(uint64_t *seed, int kill_them, uint64_t *dropped,
		      uint64_t *reported, uint64_t *pending, int *bad)
{
	struct pfr_mpsc *m = mk();
	struct pfr_mpsc_reader r;
	unsigned k = 1 + (unsigned)(rnd(seed) % (NPROD - 1));
	uint64_t want = 1, lost = 0, rep = 0, pend = 0;
	pid_t pids[NPROD];
	int fds[2];

	fill(m);
	if (pipe(fds))
		exit(1);
	for (unsigned i = 0; i < k; i++) {
		uint64_t d = 1 + rnd(seed) % 500;

		pids[i] = kill_them ? fork() : 0;
		if (pids[i] == 0 && kill_them) {
			struct pfr_mpsc_producer p;

			if (pfr_mpsc_join(m, &p))
				_exit(1);
			d = drop_some(&p, d);
			if (write(fds[1], &d, sizeof(d)) != sizeof(d))
				_exit(2);
			pause(); /* killed here, drops pending */
			_exit(0);
		}
		if (!kill_them) {
			struct pfr_mpsc_producer p;

			if (pfr_mpsc_join(m, &p))
				exit(1);
			want += drop_some(&p, d);
			pfr_mpsc_leave(&p); /* the ring is full: no room */
			continue;
		}
		if (read(fds[0], &d, sizeof(d)) != sizeof(d))
			exit(1);
		want += d;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	close(fds[0]);
	close(fds[1]);
	if (pfr_mpsc_reader(m, &r) || drain_all(m, &r, &lost))
		(*bad)++;
	pfr_mpsc_lost_counts(m, &rep, &pend);
	if (lost != want || pend || rep != want) {
		(*bad)++;
		tap_diag("%s round: %llu dropped, %llu in LOST records, "
			 "%llu reported, %llu pending",
			 kill_them ? "kill" : "leave", (unsigned long long)want,
			 (unsigned long long)lost, (unsigned long long)rep,
			 (unsigned long long)pend);
	}
	*dropped += want;
	*reported += lost;
	*pending += pend;
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

/* The long loop: producers killed at random points while they write,
 * the reader reading meanwhile.  counted[i]: drops child i counted after
 * each refused write (shared memory). */
static void kill_loop_round(uint64_t *seed, uint64_t *lo, uint64_t *got,
			    uint64_t *kills, int *bad)
{
	struct pfr_mpsc *m = mk();
	struct pfr_mpsc_reader r;
	uint64_t *counted = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uint64_t lost = 0, sum = 0, pend = 0, t;
	pid_t pids[NPROD];

	if (counted == MAP_FAILED || pfr_mpsc_reader(m, &r))
		exit(1);
	memset(counted, 0, 4096);
	for (unsigned i = 0; i < NPROD; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct pfr_mpsc_producer p;
			uint64_t payload[8] = {0};

			if (pfr_mpsc_join(m, &p))
				_exit(1);
			for (;;)
				if (pfr_mpsc_write(&p, T_TYPE, payload,
						   sizeof(payload)) ==
				    -PFR_E_NOSPC)
					__atomic_fetch_add(&counted[i], 1,
							   __ATOMIC_RELAXED);
		}
	}
	/* read slowly for a while, then kill them one by one */
	t = now_ns() + 20000000ull + rnd(seed) % 30000000ull;
	while (now_ns() < t)
		if (drain_once(&r, &lost) < 0)
			(*bad)++;
	for (unsigned i = 0; i < NPROD; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
		(*kills)++;
		drain_once(&r, &lost);
	}
	if (drain_all(m, &r, &lost))
		(*bad)++;
	for (unsigned i = 0; i < NPROD; i++)
		sum += counted[i];
	pfr_mpsc_lost_counts(m, NULL, &pend);
	if (lost < sum || lost > sum + NPROD || pend) {
		(*bad)++;
		tap_diag("kill loop: counted %llu, LOST %llu, pending %llu",
			 (unsigned long long)sum, (unsigned long long)lost,
			 (unsigned long long)pend);
	}
	*lo += sum;
	*got += lost;
	munmap(counted, 4096);
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_close(m);
}

int main(void)
{
	const char *lg = getenv("PFR_MPSC_LOST_LOOP");
	int rounds = lg && lg[0] == '1' ? 100 : 10, bad;
	uint64_t seed = 0x2545f4914f6cdd1dull, d, rep, pend, lo, kills;

	for (int kill_them = 0; kill_them < 2; kill_them++) {
		bad = 0;
		d = rep = pend = 0;
		for (int i = 0; i < rounds; i++)
			round_one(&seed, kill_them, &d, &rep, &pend, &bad);
		ok(!bad && d == rep && !pend,
		   "%d rounds, producers that drop then %s: %llu dropped, "
		   "%llu in LOST records, %llu pending",
		   rounds, kill_them ? "are killed (kill -9)" : "leave cleanly",
		   (unsigned long long)d, (unsigned long long)rep,
		   (unsigned long long)pend);
	}
	if (lg && lg[0] == '1') {
		bad = 0;
		lo = rep = kills = 0;
		for (int i = 0; i < rounds; i++)
			kill_loop_round(&seed, &lo, &rep, &kills, &bad);
		ok(!bad,
		   "kill loop, %d rounds of %u producers killed while "
		   "writing: %llu drops counted, %llu in LOST records "
		   "(at most one more per kill: %llu kills), none pending",
		   rounds, NPROD, (unsigned long long)lo,
		   (unsigned long long)rep, (unsigned long long)kills);
	}
	return tap_done();
}
