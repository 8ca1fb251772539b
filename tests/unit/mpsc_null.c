// SPDX-License-Identifier: MIT
/*
 * The NULL rule for <perfring/mpsc.h>: every out-of-line function checks
 * its pointers, a NULL it does not allow is -PFR_E_INVAL (or the
 * function's neutral result: 0, NULL, nothing), and so is a zeroed
 * producer or reader, a producer after pfr_mpsc_leave() and a reader
 * after pfr_mpsc_reader_close().  Each call runs in a forked child, so a
 * crash is one failed check, not the end of the test.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/mpsc.h>

#include "tap.h"

static struct pfr_mpsc *m; /* a valid ring (private memory, inherited) */

/* Runs fn in a child: passes when it returns 1 and the child neither
 * crashes nor hangs. */
static void check(const char *name, int (*fn)(void))
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		alarm(30);
		_exit(fn() ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		ok(0, "%s: fork", name);
		return;
	}
	if (!ok(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", name)) {
		if (WIFSIGNALED(st))
			tap_diag("  killed by signal %d", WTERMSIG(st));
		else
			tap_diag("  wrong result");
	}
}

#define INVAL(e) ((e) == -PFR_E_INVAL)

static int t_attach_fd(void)
{
	return INVAL(pfr_mpsc_attach_fd(NULL, pfr_mpsc_fd(m), 0));
}

static int t_attach_shm(void)
{
	struct pfr_mpsc *x = NULL;

	return INVAL(pfr_mpsc_attach_shm(NULL, "/pfr-mpsc-null", 0)) &&
	       INVAL(pfr_mpsc_attach_shm(&x, NULL, 0)) && !x;
}

static int t_create(void)
{
	struct pfr_mpsc *x = NULL;

	return INVAL(pfr_mpsc_create(NULL, NULL)) &&
	       INVAL(pfr_mpsc_create_memfd(NULL, NULL)) &&
	       INVAL(pfr_mpsc_create_shm(NULL, "/pfr-mpsc-null", NULL)) &&
	       pfr_mpsc_create_shm(&x, NULL, NULL) < 0 && !x;
}

static int t_handle(void)
{
	pfr_mpsc_close(NULL);
	return INVAL(pfr_mpsc_fd(NULL)) && pfr_mpsc_sealed(NULL) == 0 &&
	       pfr_mpsc_ctl(NULL) == NULL && pfr_mpsc_reader_alive(NULL) == 0 &&
	       pfr_mpsc_unlink(NULL) < 0;
}

static int t_join(void)
{
	struct pfr_mpsc_producer p;

	return INVAL(pfr_mpsc_join(NULL, &p)) && INVAL(pfr_mpsc_join(m, NULL));
}

static int t_producer_null(void)
{
	uint64_t v = 1;

	pfr_mpsc_leave(NULL);
	pfr_mpsc_set_timeout(NULL, 5);
	return INVAL(pfr_mpsc_flush(NULL)) &&
	       INVAL(pfr_mpsc_write_burst(NULL, 1, &v, 8, 1));
}

static int t_producer_zeroed(void)
{
	struct pfr_mpsc_producer p;
	uint64_t v = 1;
	void *dst = NULL;

	memset(&p, 0, sizeof(p));
	pfr_mpsc_set_timeout(&p, 5);
	if (!INVAL(pfr_mpsc_flush(&p)) ||
	    !INVAL(pfr_mpsc_write_burst(&p, 1, &v, 8, 4)) ||
	    !INVAL(pfr_mpsc_write_burst(&p, 1, &v, 8, 1)) ||
	    !INVAL(pfr_mpsc_reserve(&p, 1, 8, &dst)) ||
	    !INVAL(pfr_mpsc_write(&p, 1, &v, 8)))
		return 0;
	pfr_mpsc_commit(&p);
	pfr_mpsc_discard(&p);
	pfr_mpsc_leave(&p);
	return 1;
}

static int t_after_leave(void)
{
	struct pfr_mpsc_producer p;
	uint64_t v = 1;

	if (pfr_mpsc_join(m, &p))
		return 0;
	pfr_mpsc_leave(&p);
	pfr_mpsc_leave(&p); /* twice: nothing */
	return INVAL(pfr_mpsc_flush(&p)) &&
	       INVAL(pfr_mpsc_write_burst(&p, 1, &v, 8, 4)) &&
	       INVAL(pfr_mpsc_write(&p, 1, &v, 8));
}

static int t_burst_null_buf(void)
{
	struct pfr_mpsc_producer p;

	if (pfr_mpsc_join(m, &p))
		return 0;
	return INVAL(pfr_mpsc_write_burst(&p, 1, NULL, 8, 4));
}

static int t_reader_null(void)
{
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;

	memset(&st, 0xff, sizeof(st));
	pfr_mpsc_reader_close(NULL);
	pfr_mpsc_set_stall(NULL, 5);
	pfr_mpsc_set_wakeup(NULL, 8, 1);
	pfr_mpsc_stats(NULL, NULL, NULL);
	pfr_mpsc_stats(m, NULL, NULL);
	pfr_mpsc_stats(NULL, NULL, &st);
	return INVAL(pfr_mpsc_reader(NULL, &r)) &&
	       INVAL(pfr_mpsc_reader(m, NULL)) &&
	       INVAL(pfr_mpsc_wait(NULL, 0)) && st.prod_pos == 0 &&
	       st.data_size == 0;
}

static int t_reader_zeroed(void)
{
	struct pfr_mpsc_reader r;
	struct pfr_mpsc_stats st;
	struct pfr_record rec;

	memset(&r, 0, sizeof(r));
	pfr_mpsc_set_stall(&r, 5);
	pfr_mpsc_set_wakeup(&r, 8, 1);
	pfr_mpsc_stats(m, &r, &st);
	pfr_mpsc_end(&r);
	pfr_mpsc_reader_close(&r);
	return INVAL(pfr_mpsc_wait(&r, 0)) && INVAL(pfr_mpsc_begin(&r)) &&
	       pfr_mpsc_next(&r, &rec) == 0;
}

static int t_after_close(void)
{
	struct pfr_mpsc_reader r;

	if (pfr_mpsc_reader(m, &r))
		return 0;
	pfr_mpsc_reader_close(&r);
	pfr_mpsc_reader_close(&r); /* twice: nothing */
	pfr_mpsc_set_wakeup(&r, 8, 1);
	return INVAL(pfr_mpsc_wait(&r, 1000000)) && INVAL(pfr_mpsc_begin(&r));
}

int main(void)
{
	struct pfr_mpsc_opts o;

	memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.flags = PFR_MPSC_WAIT;
	o.max_producers = 4;
	if (pfr_mpsc_create_memfd(&m, &o))
		return 1;
	check("attach_fd(NULL handle)", t_attach_fd);
	check("attach_shm(NULL handle / NULL name)", t_attach_shm);
	check("create*(NULL)", t_create);
	check("fd, sealed, ctl, reader_alive, close, unlink of NULL", t_handle);
	check("join(NULL ring / NULL producer)", t_join);
	check("leave, set_timeout, flush, write_burst of NULL",
	      t_producer_null);
	check("a zeroed producer", t_producer_zeroed);
	check("flush and write_burst after leave", t_after_leave);
	check("write_burst with a NULL buffer", t_burst_null_buf);
	check("reader, reader_close, set_*, wait, stats with NULL",
	      t_reader_null);
	check("a zeroed reader", t_reader_zeroed);
	check("wait and begin after reader_close", t_after_close);
	pfr_mpsc_close(m);
	return tap_done();
}
