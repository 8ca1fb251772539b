// SPDX-License-Identifier: MIT
/*
 * The time-ordered group reader and writers that join while it drains,
 * built by hand (no timing decides anything): a writer that joins after
 * the reader's directory scan and writes a record older than one the
 * reader has just taken from another ring, once in a plain group and once
 * on the slot of a writer killed with SIGKILL and reclaimed (the
 * replacement takes that slot).  The join happens inside the reader's own
 * drain, from the time callback, so the interleaving is exact.  Every
 * record must come out in time order, and every record must come out.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/group.h>

#include "tap.h"

struct order {
	uint64_t last, n, bad;
	uint64_t times[16];
};

static int collect(void *arg, const struct pfr_group_rec *r)
{
	struct order *o = arg;

	if (r->hdr.type != 1)
		return 0;
	if (r->time < o->last)
		o->bad++;
	o->last = r->time;
	if (o->n < 16)
		o->times[o->n] = r->time;
	o->n++;
	return 0;
}

static int put(struct pfr_writer *w, uint64_t time)
{
	uint64_t p[2] = {time, 0};

	return pfr_writer_write(w, 1, p, sizeof(p));
}

/* The hook: the first time the reader asks for a record's time, a new
 * writer joins (tag 7) and writes a record at `late` (older than the
 * record being taken). */
struct hook {
	struct pfr_group *g;
	struct pfr_writer *w;
	uint64_t late;
	int armed, slot, wrote;
};

static uint64_t hook_time(void *arg, const struct pfr_record *rec)
{
	struct hook *h = arg;
	uint64_t t = 0;

	if (rec->len >= 8)
		memcpy(&t, rec->payload, 8);
	if (h->armed) {
		h->armed = 0;
		h->slot = pfr_group_join(h->g, h->w, 7);
		h->wrote = h->slot >= 0 && put(h->w, h->late) == 0;
	}
	return t;
}

/* The late writer's record (15) is older than the one being taken (20):
 * it must come out first, then 20, 30, 40. */
static void check_late_join(struct pfr_group *g, struct pfr_writer *a,
			    struct hook *h, const char *what)
{
	struct order o;

	memset(&o, 0, sizeof(o));
	ok(put(a, 20) == 0, "%s: writer A writes 20", what);
	h->late = 15;
	h->armed = 1;
	pfr_group_drain(g, collect, &o, 0);
	ok(h->wrote, "%s: B joined during the drain and wrote 15", what);
	pfr_group_drain(g, collect, &o, 0);
	ok(put(a, 30) == 0 && put(h->w, 40) == 0, "%s: then 30 and 40", what);
	pfr_group_drain(g, collect, &o, 0);
	pfr_group_leave(g, a);
	pfr_group_leave(g, h->w);
	pfr_group_drain(g, collect, &o, PFR_GROUP_DRAIN_ALL);
	ok(o.bad == 0, "%s: no record older than one delivered (%llu were)",
	   what, (unsigned long long)o.bad);
	ok(o.n == 4, "%s: all four delivered (%llu)", what,
	   (unsigned long long)o.n);
	ok(o.times[0] == 15 && o.times[1] == 20 && o.times[2] == 30 &&
		   o.times[3] == 40,
	   "%s: in the order 15 20 30 40 (got %llu %llu %llu %llu)", what,
	   (unsigned long long)o.times[0], (unsigned long long)o.times[1],
	   (unsigned long long)o.times[2], (unsigned long long)o.times[3]);
}

static void test_late_join(void)
{
	struct pfr_group_opts go = {.slots = 4};
	struct pfr_group *g;
	struct pfr_writer a, b;
	struct hook h = {0};

	if (!ok(pfr_group_create(&g, &go) == 0, "group"))
		return;
	h.g = g;
	h.w = &b;
	pfr_group_reader_open(g, 1, hook_time, &h);
	ok(pfr_group_join(g, &a, 1) >= 0, "writer A joins");
	check_late_join(g, &a, &h, "late join");
	pfr_group_reader_close(g);
	pfr_group_close(g);
}

/* A child joins (slot 0), writes, and is killed with SIGKILL; the reader
 * reclaims the slot; the replacement joins it during the next drain. */
static pid_t dead_writer(struct pfr_group *g)
{
	int pfd[2];
	pid_t pid;
	char ch;

	if (pipe(pfd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct pfr_group *cg;
		struct pfr_writer w;
		void *p;

		close(pfd[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pfr_group_attach_fd(&cg, pfr_group_fd(g), -1) ||
		    pfr_group_join(cg, &w, 0) != 0)
			_exit(2);
		put(&w, 5);
		put(&w, 10);
		/* killed mid-record: reserved, never committed */
		pfr_writer_reserve(&w, 1, 16, &p);
		if (write(pfd[1], "x", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(pfd[1]);
	if (pid < 0 || read(pfd[0], &ch, 1) != 1) {
		close(pfd[0]);
		return -1;
	}
	close(pfd[0]);
	return pid;
}

static void test_dead_slot_rejoined(void)
{
	struct pfr_group_opts go = {.slots = 2};
	struct pfr_group *g;
	struct pfr_group_stats st;
	struct pfr_writer a, b;
	struct hook h = {0};
	struct order o;
	pid_t pid;
	int status;

	if (!ok(pfr_group_create_memfd(&g, &go) == 0, "memfd group"))
		return;
	h.g = g;
	h.w = &b;
	pfr_group_reader_open(g, 1, hook_time, &h);
	pfr_group_set_reclaim_interval(g, 0);
	pid = dead_writer(g);
	if (!ok(pid > 0, "a child joined slot 0 and wrote 5, 10"))
		return;
	ok(pfr_group_join(g, &a, 1) == 1 && put(&a, 12) == 0,
	   "writer A joins slot 1 and writes 12");
	memset(&o, 0, sizeof(o));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	pfr_group_drain(g, collect, &o, 0);
	pfr_group_stats(g, &st);
	is_uint(st.reclaimed, 1, "the killed writer's slot is reclaimed");
	is_uint(o.n, 3, "after its two records were delivered, then 12");
	is_uint(o.bad, 0, "in order");
	check_late_join(g, &a, &h, "replacement on the reclaimed slot");
	is_int(h.slot, 0, "the replacement took slot 0");
	pfr_group_reader_close(g);
	pfr_group_close(g);
}

int main(void)
{
	test_late_join();
	test_dead_slot_rejoined();
	return tap_done();
}
