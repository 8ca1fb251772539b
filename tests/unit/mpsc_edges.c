// SPDX-License-Identifier: MIT
/*
 * The shared ring's decisions at their boundaries, no timing:
 *   - records of 64 bytes fill a 4096-byte ring exactly: 64 of them, the
 *     last one's end at the reader's position plus the ring's size; once
 *     the reader has read one, one more fits (its end, too, exactly the
 *     reader's position plus the size, found with cons_pos loaded again);
 *   - a producer (a child process) that announced a reservation at
 *     prod_pos and died before its CAS leaves its slot to the next
 *     joiner: the space it named was never taken.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "tap.h"

static struct pfr_mpsc *mk(uint32_t np)
{
	struct pfr_mpsc_opts o;
	struct pfr_mpsc *m = NULL;

	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.policy = PFR_POLICY_DROP;
	o.max_producers = np;
	return pfr_mpsc_create(&m, &o) == 0 ? m : NULL;
}

static void exact_fill(void)
{
	struct pfr_mpsc *m = mk(1);
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader r;
	struct pfr_record rec;
	unsigned char buf[56];
	int n = 0;

	if (!ok(m && pfr_mpsc_join(m, &p) == 0 && pfr_mpsc_reader(m, &r) == 0,
		"fill: ring, producer, reader"))
		return;
	memset(buf, 7, sizeof(buf));
	while (n < 64 && pfr_mpsc_write(&p, 1, buf, sizeof(buf)) == 0)
		n++;
	ok(n == 64, "64 records of 64 bytes fit in 4096 (%d)", n);
	pfr_mpsc_begin(&r);
	ok(pfr_mpsc_next(&r, &rec) == 1, "the reader reads one");
	pfr_mpsc_end(&r);
	ok(pfr_mpsc_write(&p, 1, buf, sizeof(buf)) == 0,
	   "then one more fits, to the reader's position plus the size");
	ok(pfr_mpsc_write(&p, 1, buf, sizeof(buf)) != 0,
	   "and no more: the ring is full");
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
}

static void dead_before_cas(void)
{
	struct pfr_mpsc *m = mk(1);
	struct pfr_mpsc_producer p;
	int st;
	pid_t pid;

	if (!ok(m != NULL, "dead before its CAS: ring"))
		return;
	pid = fork();
	if (pid == 0) {
		uint64_t pos;

		if (pfr_mpsc_join(m, &p))
			_exit(3);
		/* announced (N), then killed before the CAS (R) */
		pos = PFR_READ_ONCE(p.ctl->prod_pos);
		pfr__mpsc_announce(&p, pos, pos + 64);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	   "the producer announced and died before its CAS");
	ok(pfr_mpsc_join(m, &p) == 0, "its slot is taken by the next joiner");
	pfr_mpsc_close(m);
}

int main(void)
{
	exact_fill();
	dead_before_cas();
	return tap_done();
}
