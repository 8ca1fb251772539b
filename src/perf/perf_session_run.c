/* SPDX-License-Identifier: MIT */
/*
 * A perf session at work (<perfring/session.h>): the rings drained into
 * the ordered merge, the records delivered in time order (and written to
 * perf.data), the poll loop and its requests, the end.
 *
 * Draining a ring: pfr_reader_begin_unpaced() loads data_head with acquire (C,
 * pairing with the kernel's smp_wmb() in perf_output_put_handle()), the
 * records are copied into the merge, and pfr_reader_end() stores
 * data_tail with release (D, pairing with the control dependency in
 * perf_output_begin()); the diagram is in <perfring/perf.h>.
 *
 * Merging: within one ring the kernel writes records in time order; across
 * rings it does not.  After each pass over all rings the queued records
 * not later than the newest time seen in the previous pass are delivered
 * (perf's FINISHED_ROUND rule): a record still in flight on another CPU
 * carries a time later than anything a completed earlier pass saw.
 * Everything left is delivered at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ring/compiler.h"
#include "perf/perf_header.h"
#include "perf/perf_session_int.h"

#define PFR__REC_FINISHED_INIT 82 /* perf's, after the synthesized ones */

int pfr__sess_push(struct pfr_perf_session *s,
		   const struct pfr_record_header *h, const void *payload,
		   uint32_t len, uint64_t time)
{
	return pfr_merge_push(s->merge, h, payload, len, time, 0)
		       ? -PFR_E_SYSTEM
		       : 0;
}

/* The event a record belongs to, by its id (0 when it has none). */
static uint32_t event_of(const struct pfr_perf_session *s,
			 const struct pfr_record_header *h, const void *payload,
			 uint32_t len)
{
	uint64_t id;

	if (s->nev > 1 &&
	    !pfr_perf_record_id(s->lay.sample_type, 1, h, payload, len, &id))
		for (uint32_t i = 0; i < s->nev; i++)
			for (uint32_t k = 0; k < s->ev[i].nids; k++)
				if (s->ev[i].ids[k] == id)
					return i;
	return 0;
}

/* What deliver() returns to the merge for a positive stop. */
#define PFR__SESS_STOP (-0x40000000)

/* The merge's callback: into the file, then to the caller. */
static int deliver(void *arg, const struct pfr_merge_rec *mr)
{
	struct pfr_perf_session *s = arg;
	struct pfr_perf_session_rec r;
	int err;

	s->st.delivered++;
	if (s->file && !s->init_done && mr->time) {
		/* perf's FINISHED_INIT: what synthesis queued ends here */
		struct pfr_record_header h = {PFR__REC_FINISHED_INIT, 0, 8};

		s->init_done = 1;
		if (pfr_perf_file_write(s->file, &h, NULL, 0)) {
			s->emit_err = pfr__sess_fail(s, -PFR_E_SYSTEM,
						     PFR_PERF_STEP_FILE, errno,
						     -1, -1, 0);
			return s->emit_err;
		}
	}
	if (s->file &&
	    pfr_perf_file_write(s->file, mr->hdr, mr->payload, mr->len)) {
		s->emit_err = pfr__sess_fail(
			s, -PFR_E_SYSTEM, PFR_PERF_STEP_FILE, errno, -1, -1, 0);
		return s->emit_err; /* stops the flush */
	}
	if (!s->o.on_record)
		return 0;
	r.hdr = mr->hdr;
	r.payload = mr->payload;
	r.len = mr->len;
	r.event = event_of(s, mr->hdr, mr->payload, mr->len);
	r.time = mr->time;
	r.lay = &s->lay;
	err = s->o.on_record(s->o.arg, &r);
	if (err > 0 && s->cb_legacy)
		err = 0;
	if (!err)
		return 0;
	/* The callback stop rule (docs/api.md): nonzero stops the delivery
	 * after this record, and the call that delivered returns it (the
	 * merge stops on a negative value: a positive one goes up as
	 * PFR__SESS_STOP, and flush() returns emit_err). */
	s->emit_err = err;
	return err < 0 ? err : PFR__SESS_STOP;
}

/* Deliver the queued records up to limit in (time, arrival) order. */
static int flush(struct pfr_perf_session *s, uint64_t limit)
{
	int64_t n;

	s->emit_err = 0;
	n = pfr_merge_flush(s->merge, limit, deliver, s);
	if (n < 0)
		return s->emit_err ? s->emit_err
				   : pfr__sess_fail(s, -PFR_E_SYSTEM,
						    PFR_PERF_STEP_MEMORY,
						    ENOMEM, -1, -1, 0);
	return 0;
}

/* A sample's time, read at its place (after IDENTIFIER, IP and TID)
 * without decoding the rest: 0, or -1 when the layout has none or the
 * sample is too short. */
static int sample_time(const struct pfr_perf_layout *lay,
		       const struct pfr_record *rec, uint64_t *t)
{
	uint64_t st = lay->sample_type;
	uint32_t off = 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) +
			    !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID));

	if (!(st & PERF_SAMPLE_TIME) || rec->len < off + 8)
		return -1;
	memcpy(t, (const unsigned char *)rec->payload + off, 8);
	return 0;
}

/* Account one record from a ring and queue it. */
int pfr__sess_take(struct pfr_perf_session *s, const struct pfr_record *rec)
{
	struct pfr_perf_rec d;
	uint64_t time = 0;

	s->st.records++;
	s->st.bytes += rec->hdr.size;
	if (rec->hdr.type < 32)
		s->st.by_type[rec->hdr.type]++;
	else
		s->st.other_types++;
	/* Samples, most of the records: only their time is needed here
	 * (the file's writer decodes them for itself). */
	if (rec->hdr.type == PERF_RECORD_SAMPLE &&
	    !sample_time(&s->lay, rec, &time)) {
		s->st.samples++;
		goto queue;
	}
	if (pfr_perf_decode(&s->lay, &rec->hdr, rec->payload, rec->len, &d)) {
		s->st.decode_errors++;
		return 0; /* counted, skipped by its size */
	}
	if (d.fields & PFR_PERF_F_TIME)
		time = d.time;
	if (d.type == PERF_RECORD_SAMPLE)
		s->st.samples++;
	if (d.type == PERF_RECORD_LOST) {
		s->st.lost += d.u.lost.lost;
		s->st.lost_records++;
	}
	if (d.type == PERF_RECORD_LOST_SAMPLES)
		s->st.lost_samples += d.u.lost.lost; /* dropped by the PMU */
queue:
	if (time > s->round_max)
		s->round_max = time;
	if (pfr__sess_push(s, &rec->hdr, rec->payload, rec->len, time))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_MEMORY,
				      ENOMEM, -1, -1, 0);
	return 0;
}

static int drain_ring(struct pfr_perf_session *s, struct pfr_perf_ring *ring)
{
	struct pfr_record rec;
	/* C: pairs with B, smp_wmb() in perf_output_put_handle() */
	int64_t avail = pfr_reader_begin_unpaced(&ring->reader);
	int n, err = 0;

	if (avail < 0)
		return pfr__sess_fail(s, (int)avail, PFR_PERF_STEP_RING, 0, -1,
				      ring->cpu, 0);
	while ((n = pfr_reader_next(&ring->reader, &rec)) == 1)
		if ((err = pfr__sess_take(s, &rec)))
			break;
	/* D: pairs with A, the control dependency in perf_output_begin() */
	pfr_reader_end(&ring->reader);
	if (n < 0)
		return pfr__sess_fail(s, n, PFR_PERF_STEP_RING, 0, -1,
				      ring->cpu, 0);
	return err;
}

/* A FINISHED_ROUND into the file after a round that wrote records, as
 * perf writes one after each pass over its rings. */
static int end_round(struct pfr_perf_session *s)
{
	if (!s->file || s->st.delivered == s->round_delivered)
		return 0;
	s->round_delivered = s->st.delivered;
	if (pfr__file_write_round(s->file))
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_FILE,
				      errno, -1, -1, 0);
	return 0;
}

int pfr_perf_session_drain(struct pfr_perf_session *s, int final)
{
	int err = 0, ow;

	if (!s)
		return -PFR_E_INVAL;
	ow = !!(s->o.flags & PFR_PERF_SESSION_OVERWRITE);
	s->round_max = 0;
	for (int i = 0; i < s->nrings && !err; i++)
		if (!s->rings[i].overwrite)
			err = drain_ring(s, &s->rings[i]);
	/* Overwrite mode: side-band waits for the snapshot it belongs to. */
	if (!err)
		err = flush(s, final ? UINT64_MAX : ow ? 0 : s->prev_max);
	err = err ? err : end_round(s);
	if (s->round_max > s->prev_max)
		s->prev_max = s->round_max;
	if (s->o.on_drained)
		s->o.on_drained(s->o.arg);
	return err;
}

struct snap_ctx {
	struct pfr_perf_session *s;
	uint64_t last, newest;
	int err;
};

static int snap_one(void *arg, const struct pfr_record *rec)
{
	struct snap_ctx *c = arg;
	struct pfr_perf_rec d;

	/* Only what the previous snapshot did not already deliver. */
	if (!pfr_perf_decode(&c->s->lay, &rec->hdr, rec->payload, rec->len,
			     &d) &&
	    (d.fields & PFR_PERF_F_TIME)) {
		if (c->last && d.time <= c->last)
			return 0;
		if (d.time > c->newest)
			c->newest = d.time;
	}
	c->err = pfr__sess_take(c->s, rec);
	return c->err;
}

int pfr_perf_session_snapshot(struct pfr_perf_session *s)
{
	int err;

	if (!s)
		return -PFR_E_INVAL;
	err = pfr_perf_session_drain(s, 0); /* side-band rings first */
	for (int i = 0; i < s->nrings && !err; i++) {
		struct snap_ctx c = {s, s->snap_last[i], s->snap_last[i], 0};
		int64_t n;

		if (!s->rings[i].overwrite)
			continue;
		n = pfr_perf_ring_snapshot(&s->rings[i], snap_one, &c);
		/* the callback's own value first: a negative one is also
		 * what the snapshot returned (docs/api.md), not a ring's
		 * failure */
		if (c.err)
			return c.err;
		if (n < 0)
			return pfr__sess_fail(s, (int)n, PFR_PERF_STEP_RING, 0,
					      -1, s->rings[i].cpu, 0);
		s->snap_last[i] = c.newest;
	}
	if (err)
		return err;
	s->st.snapshots++;
	err = flush(s, UINT64_MAX);
	if (s->o.on_drained)
		s->o.on_drained(s->o.arg);
	return err;
}

void pfr_perf_session_request(struct pfr_perf_session *s, unsigned int what)
{
	int saved = errno; /* a signal handler must not change it */

	if (!s)
		return;
	if (what & PFR_PERF_REQ_STOP)
		s->req_stop = 1;
	if (what & PFR_PERF_REQ_SNAPSHOT)
		s->req_snap = 1;
	if (what & PFR_PERF_REQ_CHILD)
		s->req_child = 1;
	if (what & PFR_PERF_REQ_SWITCH)
		s->req_switch = 1;
	/* Wakes a poll in progress, or the next one (when the pipe is full,
	 * it is readable already: the write may fail). */
	if (write(s->req_fd[1], "r", 1) < 0)
		s->req_lost++;
	errno = saved;
}

/* Polls the rings and the request pipe: ready rings, 0 on time-out,
 * -1 when interrupted (a request or a signal), or an error. */
static int sess_poll(struct pfr_perf_session *s, int timeout_ms)
{
	struct pollfd *p = s->pfd;
	int n, ready = 0, any = 0;
	char buf[64];

	if (!p)
		return -PFR_E_INVAL;
	p[s->npoll].fd = s->req_fd[0];
	p[s->npoll].events = POLLIN;
	n = poll(p, (nfds_t)s->npoll + 1, timeout_ms);
	if (n < 0 && errno == EINTR)
		return -1;
	if (n < 0)
		return pfr__sess_fail(s, -PFR_E_SYSTEM, PFR_PERF_STEP_POLL,
				      errno, -1, -1, 0);
	if (n == 0)
		return 0;
	for (int i = 0; i < s->npoll; i++) {
		if (!p[i].revents)
			continue;
		any = 1;
		ready++;
		if (p[i].revents & (POLLHUP | POLLERR)) {
			/* The target is gone; stop polling this ring (it is
			 * still drained). */
			p[i].fd = -1;
			s->live--;
		}
	}
	if (any)
		s->st.wakeups++;
	if (p[s->npoll].revents) {
		while (read(s->req_fd[0], buf, sizeof(buf)) > 0)
			;
		if (!ready)
			return -1;
	}
	return ready;
}

int pfr_perf_session_poll(struct pfr_perf_session *s, int timeout_ms)
{
	int n;

	if (!s)
		return -PFR_E_INVAL;
	n = sess_poll(s, timeout_ms);
	return n == -1 ? 0 : n;
}

/* The command, if it has exited (1), without waiting. */
static int reap_nohang(struct pfr_perf_session *s)
{
	int st;

	if (s->child <= 0 || waitpid(s->child, &st, WNOHANG) != s->child)
		return 0;
	s->st.child_status = st;
	s->st.child_reaped = 1;
	s->child = 0;
	return 1;
}

/* The poll's time-out: the tick, or the end of -D's delay. */
static int poll_timeout(struct pfr_perf_session *s)
{
	int t = s->o.tick_ms > 0 ? s->o.tick_ms : -1;

	if (s->delayed && s->enable_at_ms) {
		int64_t left = s->enable_at_ms - pfr__sess_now_ms();

		if (left <= 0) {
			pfr__sess_enable_delayed(s);
		} else if (t < 0 || left < t) {
			t = (int)left;
		}
	}
	return t;
}

int pfr__sess_requests(struct pfr_perf_session *s)
{
	int rc = 0;

	if (s->req_switch) {
		s->req_switch = 0;
		if (s->o.on_switch)
			rc = s->o.on_switch(s->o.arg);
		if (rc)
			return rc;
	}
	if (s->req_child) {
		s->req_child = 0;
		if (reap_nohang(s))
			s->req_stop = 1;
	}
	if (s->req_snap) {
		s->req_snap = 0;
		if (s->o.flags & PFR_PERF_SESSION_OVERWRITE)
			rc = pfr_perf_session_snapshot(s);
	}
	return rc;
}

void pfr__sess_wait(struct pfr_perf_session *s, int ms)
{
	struct pollfd p = {s->req_fd[0], POLLIN, 0};
	char buf[64];

	if (poll(&p, 1, ms) > 0)
		while (read(s->req_fd[0], buf, sizeof(buf)) > 0)
			;
}

int pfr__sess_flush_to(struct pfr_perf_session *s, uint64_t limit)
{
	int err = flush(s, limit);

	err = err ? err : end_round(s);
	if (s->o.on_drained)
		s->o.on_drained(s->o.arg);
	return err;
}

static int run_loop(struct pfr_perf_session *s)
{
	int rc = 0, n;

	while (!rc) {
		rc = pfr__sess_requests(s);
		if (!rc)
			rc = pfr_perf_session_drain(s, 0);
		if (s->req_stop || rc || !s->live)
			break;
		/* A stream to a reader shows up within a tick even when
		 * the rings fill slowly: a quiet tick drains and delivers
		 * everything (nothing stays in flight that long). */
		n = sess_poll(s, poll_timeout(s));
		if (n == 0 && s->delayed && s->enable_at_ms &&
		    pfr__sess_now_ms() >= s->enable_at_ms)
			pfr__sess_enable_delayed(s);
		else if (n == 0)
			rc = pfr_perf_session_drain(s, 1);
		else if (n < -1)
			rc = n;
	}
	return rc;
}

/* One LOST_SAMPLES record per fd with its PERF_FORMAT_LOST count (read at
 * the end), after every other record: perf report's "Total Lost Samples"
 * is their sum. */
static int write_lost_samples(struct pfr_perf_session *s)
{
	for (int i = 0; s->read_lost && i < s->nfds; i++) {
		uint64_t v[3]; /* value, id, lost */
		unsigned char buf[16 + 64];
		struct pfr_record_header h;
		uint32_t n = 8;

		if (read(s->fds[i], v, sizeof(v)) != (ssize_t)sizeof(v) ||
		    !v[2])
			continue;
		s->st.lost_counted += v[2];
		memcpy(buf, &v[2], 8);
		n += pfr__sess_trailer(s, buf + n, 0, 0, v[1]);
		h.type = PERF_RECORD_LOST_SAMPLES;
		h.misc = 0;
		h.size = (uint16_t)(n + sizeof(h));
		if (s->file && pfr_perf_file_write(s->file, &h, buf, n))
			return pfr__sess_fail(s, -PFR_E_SYSTEM,
					      PFR_PERF_STEP_FILE, errno, -1, -1,
					      0);
	}
	return 0;
}

/* The end; rc: an error so far (then nothing more is delivered). */
static int finish(struct pfr_perf_session *s, int rc)
{
	if (s->finished)
		return rc;
	s->finished = 1;
	pfr_perf_session_disable(s);
	if (!rc)
		rc = (s->o.flags & PFR_PERF_SESSION_OVERWRITE)
			     ? pfr_perf_session_snapshot(s)
			     : pfr_perf_session_drain(s, 1);
	if (!rc)
		rc = flush(s, UINT64_MAX);
	if (!rc)
		rc = write_lost_samples(s);
	if (s->child > 0) {
		int st;

		kill(s->child, SIGTERM);
		if (waitpid(s->child, &st, 0) == s->child) {
			s->st.child_status = st;
			s->st.child_reaped = 1;
		}
		s->child = 0;
	}
	if (s->file) {
		int err = pfr_perf_file_close(s->file);

		s->file = NULL;
		if (err && !rc)
			rc = pfr__sess_fail(s, err, PFR_PERF_STEP_FILE, errno,
					    -1, -1, 0);
	}
	return rc;
}

int pfr_perf_session_finish(struct pfr_perf_session *s)
{
	return s ? finish(s, 0) : -PFR_E_INVAL;
}

int pfr_perf_session_run(struct pfr_perf_session *s)
{
	if (!s || !s->opened)
		return -PFR_E_INVAL;
	if (s->nr_readers)
		return finish(s, pfr__sess_run_threads(s));
	return finish(s, run_loop(s));
}
