/* SPDX-License-Identifier: MIT */
/*
 * A perf session read by several threads (pfr_perf_session_set_readers(),
 * perf record --threads): each reader thread polls and drains its own
 * rings (those of its CPUs) into a buffer of its own; the session's thread
 * takes the buffers, queues their records in the ordered merge and
 * delivers them in time order.
 *
 * Draining a ring is as in perf_session_run.c: pfr_reader_begin_unpaced() loads
 * data_head with acquire (C, pairing with the kernel's smp_wmb() in
 * perf_output_put_handle()), pfr_reader_end() stores data_tail with
 * release (D, pairing with the control dependency in perf_output_begin()).
 * Each ring is read by one thread only.
 *
 * Time order across threads: a reader notes the events' clock (the
 * session's events all use_clockid: clock_gettime() reads the same clock)
 * before each pass over its rings; once the pass is over, every record
 * stamped before that time (less a millisecond for a record stamped but
 * not yet committed) has been taken from its rings.  The session delivers
 * up to the oldest such time over all readers; nothing later can still
 * arrive earlier.  The buffers and the times are handed over under each
 * reader's mutex.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ring/compiler.h"
#include "perf/perf_session_int.h"

#define PFR__SLACK_NS 1000000ULL /* stamped, not yet committed: at most */

struct pfr__reader {
	struct pfr_perf_session *s;
	pthread_t th;
	int *rings; /* indices into s->rings */
	int nr;
	struct pollfd *pfd; /* the rings, then the stop pipe */
	pthread_mutex_t mu;
	unsigned char *buf; /* records, back to back (under mu) */
	size_t len, cap;
	uint64_t safe; /* every record stamped before it is in buf */
	int err; /* a ring's error, or -PFR_E_SYSTEM (memory) */
	int live; /* rings not hung up */
	int th_started;
	uint64_t wakeups;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Appends a record to the reader's buffer (its mutex held). */
static int put(struct pfr__reader *r, const struct pfr_record *rec)
{
	size_t n = rec->hdr.size;

	if (r->len + n > r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1 << 20;
		unsigned char *b;

		while (cap < r->len + n)
			cap *= 2;
		b = realloc(r->buf, cap);
		if (!b)
			return -PFR_E_SYSTEM;
		r->buf = b;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, &rec->hdr, sizeof(rec->hdr));
	memcpy(r->buf + r->len + sizeof(rec->hdr), rec->payload, rec->len);
	r->len += n;
	return 0;
}

/* One pass over the reader's rings. */
static int pass(struct pfr__reader *r, clockid_t clk)
{
	uint64_t t = clock_ns(clk);
	int err = 0;

	t = t > PFR__SLACK_NS ? t - PFR__SLACK_NS : 0;
	for (int i = 0; i < r->nr && !err; i++) {
		struct pfr_perf_ring *ring = &r->s->rings[r->rings[i]];
		struct pfr_record rec;
		int64_t avail;
		int n;

		pthread_mutex_lock(&r->mu);
		/* C: pairs with B, smp_wmb() in perf_output_put_handle() */
		avail = pfr_reader_begin_unpaced(&ring->reader);
		if (avail < 0) {
			pthread_mutex_unlock(&r->mu);
			return (int)avail;
		}
		while ((n = pfr_reader_next(&ring->reader, &rec)) == 1)
			if ((err = put(r, &rec)))
				break;
		/* D: pairs with A, the control dependency in
		 * perf_output_begin() */
		pfr_reader_end(&ring->reader);
		pthread_mutex_unlock(&r->mu);
		if (n < 0)
			err = n;
	}
	if (!err) {
		pthread_mutex_lock(&r->mu);
		r->safe = t;
		pthread_mutex_unlock(&r->mu);
	}
	return err;
}

static void *reader_main(void *arg)
{
	struct pfr__reader *r = arg;
	struct pfr_perf_session *s = r->s;
	clockid_t clk = (clockid_t)s->ev[0].attr.clockid;
	int err = 0;

	while (!err) {
		int n = poll(r->pfd, (nfds_t)r->nr + 1, -1);

		if (n < 0 && errno != EINTR) {
			err = -PFR_E_SYSTEM;
			break;
		}
		if (n > 0)
			r->wakeups++;
		for (int i = 0; n > 0 && i < r->nr; i++)
			if (r->pfd[i].revents & (POLLHUP | POLLERR)) {
				r->pfd[i].fd = -1; /* still drained */
				r->live--;
			}
		err = pass(r, clk);
		if (r->pfd[r->nr].revents || !r->live)
			break; /* stopped, or every target gone */
	}
	if (!err && r->pfd[r->nr].revents)
		err = pass(r, clk); /* the last, after the disable */
	pthread_mutex_lock(&r->mu);
	r->err = err;
	r->live = 0;
	r->safe = UINT64_MAX; /* nothing more comes from this one */
	pthread_mutex_unlock(&r->mu);
	pfr_perf_session_request(s, 0); /* wakes the session */
	return NULL;
}

int pfr_perf_session_set_readers(struct pfr_perf_session *s, uint32_t nr,
				 const uint32_t *reader_of_cpu, uint32_t len)
{
	uint32_t *m;

	if (!s || !nr || nr > 4096 || (len && !reader_of_cpu) || s->opened ||
	    (s->o.flags & PFR_PERF_SESSION_OVERWRITE))
		return -PFR_E_INVAL;
	for (uint32_t i = 0; i < len; i++)
		if (reader_of_cpu[i] >= nr)
			return -PFR_E_INVAL;
	m = malloc((len ? len : 1) * sizeof(*m));
	if (!m)
		return -PFR_E_SYSTEM;
	if (len)
		memcpy(m, reader_of_cpu, len * sizeof(*m));
	free(s->reader_of_cpu);
	s->reader_of_cpu = m;
	s->nr_reader_map = len;
	s->nr_readers = nr;
	return 0;
}

/* The readers, their rings and their threads. */
static int start_readers(struct pfr_perf_session *s, struct pfr__reader *rd,
			 int stop_fd)
{
	for (uint32_t k = 0; k < s->nr_readers; k++) {
		struct pfr__reader *r = &rd[k];

		r->s = s;
		pthread_mutex_init(&r->mu, NULL);
		r->rings = calloc((size_t)s->nrings + 1, sizeof(int));
		r->pfd = calloc((size_t)s->nrings + 1, sizeof(*r->pfd));
		if (!r->rings || !r->pfd)
			return -PFR_E_SYSTEM;
		for (int i = 0; i < s->nrings; i++) {
			int c = s->rings[i].cpu;
			uint32_t want = c >= 0 && (uint32_t)c < s->nr_reader_map
						? s->reader_of_cpu[c]
						: 0;

			if (want != k || s->rings[i].overwrite)
				continue;
			r->pfd[r->nr].fd = s->rings[i].fd;
			r->pfd[r->nr].events = POLLIN;
			r->rings[r->nr++] = i;
		}
		r->pfd[r->nr].fd = stop_fd;
		r->pfd[r->nr].events = POLLIN;
		r->live = r->nr;
		r->safe = r->nr ? 0 : UINT64_MAX;
	}
	for (uint32_t k = 0; k < s->nr_readers; k++) {
		if (!rd[k].nr)
			continue;
		if (pthread_create(&rd[k].th, NULL, reader_main, &rd[k]))
			return -PFR_E_SYSTEM;
		rd[k].th_started = 1;
	}
	return 0;
}

/* Takes every reader's buffer into the merge; delivers up to the oldest
 * time every reader has passed.  Returns 0 or an error; *alive: readers
 * still running. */
static int collect(struct pfr_perf_session *s, struct pfr__reader *rd,
		   int *alive)
{
	uint64_t safe = UINT64_MAX;
	int err = 0;

	*alive = 0;
	for (uint32_t k = 0; k < s->nr_readers && !err; k++) {
		struct pfr__reader *r = &rd[k];
		unsigned char *buf;
		size_t len, off = 0;
		uint64_t rs;

		pthread_mutex_lock(&r->mu);
		buf = r->buf;
		len = r->len;
		rs = r->safe;
		err = r->err;
		*alive += r->live > 0;
		r->buf = NULL;
		r->len = r->cap = 0;
		pthread_mutex_unlock(&r->mu);
		while (!err && off + 8 <= len) {
			struct pfr_record rec;

			memcpy(&rec.hdr, buf + off, sizeof(rec.hdr));
			rec.payload = buf + off + sizeof(rec.hdr);
			rec.len = rec.hdr.size - (uint32_t)sizeof(rec.hdr);
			rec.pos = 0;
			err = pfr__sess_take(s, &rec);
			off += rec.hdr.size;
		}
		free(buf);
		if (rs < safe)
			safe = rs;
	}
	if (err)
		return err < -1 ? err : -PFR_E_SYSTEM;
	return pfr__sess_flush_to(s, safe);
}

/* How long the session's thread waits between collections: 100 ms, the
 * tick, or until the events -D held back are due. */
static int wait_ms(struct pfr_perf_session *s)
{
	int64_t t = s->o.tick_ms > 0 && s->o.tick_ms < 100 ? s->o.tick_ms : 100;

	if (s->delayed && s->enable_at_ms) {
		int64_t left = s->enable_at_ms - pfr__sess_now_ms();

		if (left < t)
			t = left > 0 ? left : 0;
	}
	return (int)t;
}

int pfr__sess_run_threads(struct pfr_perf_session *s)
{
	struct pfr__reader *rd = calloc(s->nr_readers, sizeof(*rd));
	int stop[2] = {-1, -1}, rc = 0, alive = 1;

	if (!rd || pipe2(stop, O_CLOEXEC)) {
		free(rd);
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_MEMORY,
				      errno, -1, -1, 0);
	}
	rc = start_readers(s, rd, stop[0]);
	while (!rc && alive) {
		rc = pfr__sess_requests(s);
		if (rc || s->req_stop)
			break;
		pfr__sess_wait(s, wait_ms(s));
		if (s->delayed && s->enable_at_ms &&
		    pfr__sess_now_ms() >= s->enable_at_ms)
			pfr__sess_enable_delayed(s); /* -D's delay is over */
		rc = collect(s, rd, &alive);
	}
	/* The end: the events stop, each reader makes its last pass. */
	pfr_perf_session_disable(s);
	if (write(stop[1], "s", 1) < 0)
		rc = rc ? rc : -PFR_E_SYSTEM;
	for (uint32_t k = 0; k < s->nr_readers; k++)
		if (rd[k].th_started)
			pthread_join(rd[k].th, NULL);
	if (!rc)
		rc = collect(s, rd, &alive);
	for (uint32_t k = 0; k < s->nr_readers; k++) {
		s->st.wakeups += rd[k].wakeups;
		free(rd[k].buf);
		free(rd[k].rings);
		free(rd[k].pfd);
		pthread_mutex_destroy(&rd[k].mu);
	}
	free(rd);
	close(stop[0]);
	close(stop[1]);
	return rc;
}
