// SPDX-License-Identifier: MIT
/*
 * Unit tests for <perfring/merge.h>: argument checks, (time, arrival)
 * order across sources with ties, partial flushes that keep the rest,
 * the safe limit over open and closed sources, a callback that stops a
 * flush, stats, and a randomised run against a reference order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/merge.h>

#include "tap.h"

struct sink {
	uint64_t n, last_time, last_seq;
	int in_order, payload_ok;
	uint64_t times[4096];
	uint32_t sources[4096];
	uint64_t stop_at; /* return -7 at this delivery (1-based), 0: never;
			 * otherwise 3 (positive: go on) */
};

static int collect(void *arg, const struct pfr_merge_rec *r)
{
	struct sink *s = arg;
	uint64_t v;

	if (s->n && (r->time < s->last_time ||
		     (r->time == s->last_time && r->seq < s->last_seq)))
		s->in_order = 0;
	/* payload: the time then the source, as pushed */
	memcpy(&v, r->payload, 8);
	if (v != r->time || r->len < 8 || r->hdr->size != 8 + r->len)
		s->payload_ok = 0;
	s->last_time = r->time;
	s->last_seq = r->seq;
	if (s->n < 4096) {
		s->times[s->n] = r->time;
		s->sources[s->n] = r->source;
	}
	s->n++;
	return s->stop_at && s->n == s->stop_at ? -7 : 3;
}

static int push_t(struct pfr_merge *m, uint64_t t, uint32_t src, uint32_t len)
{
	unsigned char buf[64] = {0};
	struct pfr_record_header h = {1, 0, 0};

	memcpy(buf, &t, 8);
	h.size = (uint16_t)((8 + len + 7) & ~7u);
	return pfr_merge_push(m, &h, buf, len, t, src);
}

static void sink_init(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->in_order = s->payload_ok = 1;
}

static void test_args(void)
{
	struct pfr_merge *m;
	struct pfr_record_header h = {1, 0, 16};
	unsigned char p[16] = {0};

	is_int(pfr_merge_create(NULL, 1), -PFR_E_INVAL, "NULL handle");
	is_int(pfr_merge_create(&m, 1u << 25), -PFR_E_INVAL,
	       "too many sources");
	if (!ok(pfr_merge_create(&m, 2) == 0, "create"))
		return;
	is_int(pfr_merge_push(m, &h, p, 8, 1, 2), -PFR_E_INVAL,
	       "source out of range");
	h.size = 12;
	is_int(pfr_merge_push(m, &h, p, 4, 1, 0), -PFR_E_INVAL,
	       "unaligned size");
	h.size = 4;
	is_int(pfr_merge_push(m, &h, p, 0, 1, 0), -PFR_E_INVAL,
	       "size below a header");
	h.size = 16;
	is_int(pfr_merge_push(m, &h, p, 9, 1, 0), -PFR_E_INVAL,
	       "len beyond size");
	h.size = 24;
	is_int(pfr_merge_push(m, &h, p, 4, 1, 0), -PFR_E_INVAL,
	       "size more than len rounded up");
	h.size = 8;
	is_int(pfr_merge_push(m, &h, NULL, 0, 1, 0), 0, "empty payload");
	is_int(pfr_merge_flush_all(m, NULL, NULL), 1, "flush without callback");
	pfr_merge_destroy(m);
	pfr_merge_destroy(NULL);
}

static void test_order(void)
{
	struct pfr_merge *m;
	struct sink s;
	struct pfr_merge_stats st;
	/* three sources, each in time order; ties across sources */
	static const uint64_t a[] = {1, 4, 4, 9, 20};
	static const uint64_t b[] = {2, 4, 8, 30};
	static const uint64_t c[] = {0, 5, 9};
	static const uint64_t want_t[] = {0, 1, 2, 4, 4, 4, 5, 8, 9, 9, 20, 30};
	static const uint32_t want_s[] = {2, 0, 1, 0, 0, 1, 2, 1, 0, 2, 0, 1};

	if (!ok(pfr_merge_create(&m, 3) == 0, "create"))
		return;
	for (size_t i = 0; i < 5; i++)
		push_t(m, a[i], 0, 8);
	for (size_t i = 0; i < 4; i++)
		push_t(m, b[i], 1, 16);
	for (size_t i = 0; i < 3; i++)
		push_t(m, c[i], 2, 3);
	is_uint(pfr_merge_safe_limit(m), 9, "safe limit: oldest reached");
	sink_init(&s);
	is_int(pfr_merge_flush_safe(m, collect, &s), 10,
	       "safe flush delivers up to 9");
	pfr_merge_stats(m, &st);
	is_uint(st.queued, 2, "two stay queued");
	is_uint(st.max_queued, 12, "max queued");
	ok(st.queued_bytes == 16 + 24, "queued bytes of the two kept");
	sink_init(&s);
	/* the kept records, then a new pass */
	push_t(m, 10, 2, 8);
	is_int(pfr_merge_flush(m, 25, collect, &s), 2, "flush up to 25");
	ok(s.times[0] == 10 && s.times[1] == 20, "10 then 20");
	is_int(pfr_merge_flush_all(m, collect, &s), 1, "flush all");
	ok(s.times[2] == 30, "then 30");
	ok(s.in_order && s.payload_ok, "in order, payloads intact");

	/* the full expected order in one flush */
	for (size_t i = 0; i < 5; i++)
		push_t(m, a[i], 0, 8);
	for (size_t i = 0; i < 4; i++)
		push_t(m, b[i], 1, 16);
	for (size_t i = 0; i < 3; i++)
		push_t(m, c[i], 2, 3);
	sink_init(&s);
	is_int(pfr_merge_flush_all(m, collect, &s), 12, "all 12");
	{
		int same = 1;

		for (size_t i = 0; i < 12; i++)
			same &= s.times[i] == want_t[i] &&
				s.sources[i] == want_s[i];
		ok(same, "(time, arrival) order: ties keep arrival order");
	}
	pfr_merge_stats(m, &st);
	is_uint(st.pushed, 25, "pushed");
	is_uint(st.delivered, 25, "delivered");
	is_uint(st.queued, 0, "nothing queued");
	pfr_merge_destroy(m);
}

static void test_sources(void)
{
	struct pfr_merge *m;
	struct sink s;

	if (!ok(pfr_merge_create(&m, 2) == 0, "create"))
		return;
	push_t(m, 5, 0, 8);
	is_uint(pfr_merge_safe_limit(m), 0, "an open source at 0 holds all");
	sink_init(&s);
	is_int(pfr_merge_flush_safe(m, collect, &s), 0, "nothing final yet");
	pfr_merge_reached(m, 1, 7);
	is_uint(pfr_merge_safe_limit(m), 5, "both reached: oldest is 5");
	pfr_merge_reached(m, 1, 3);
	is_uint(pfr_merge_safe_limit(m), 5, "time does not move back");
	pfr_merge_close_source(m, 0);
	is_uint(pfr_merge_safe_limit(m), 7, "closed source leaves the bound");
	pfr_merge_close_source(m, 1);
	is_uint(pfr_merge_safe_limit(m), UINT64_MAX, "none open: everything");
	pfr_merge_open_source(m, 1, 2);
	is_uint(pfr_merge_safe_limit(m), 2, "reopened at 2");
	is_int(pfr_merge_set_sources(m, 4), 0, "grow to 4 sources");
	is_uint(pfr_merge_safe_limit(m), 0, "new sources start at 0");
	is_int(pfr_merge_set_sources(m, 0), -PFR_E_INVAL,
	       "cannot drop a source with records queued");
	is_int(pfr_merge_flush_all(m, collect, &s), 1, "drained");
	is_int(pfr_merge_set_sources(m, 1), 0, "shrink when empty");
	pfr_merge_destroy(m);
}

static void test_stop(void)
{
	struct pfr_merge *m;
	struct sink s;

	if (!ok(pfr_merge_create(&m, 1) == 0, "create"))
		return;
	for (uint64_t t = 1; t <= 10; t++)
		push_t(m, t, 0, 8);
	sink_init(&s);
	s.stop_at = 4;
	is_int(pfr_merge_flush_all(m, collect, &s), -7,
	       "callback's negative return stops the flush");
	s.stop_at = 0;
	is_int(pfr_merge_flush_all(m, collect, &s), 6, "the other six remain");
	ok(s.n == 10 && s.in_order && s.payload_ok, "each once, in order");
	pfr_merge_destroy(m);
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* Random passes over 8 sources with the safe-limit rule: the output is
 * in order and complete, nothing is delivered before it is final. */
static void test_random(void)
{
	enum { NS = 8 };
	struct pfr_merge *m;
	static struct sink s;
	uint64_t clock[NS] = {0}, pushed = 0, early = 0;
	int ok_order = 1;

	if (!ok(pfr_merge_create(&m, NS) == 0, "create"))
		return;
	sink_init(&s);
	for (int pass = 0; pass < 400; pass++) {
		uint64_t lim;

		for (uint32_t src = 0; src < NS; src++) {
			unsigned k = (unsigned)(rnd() % 5);

			for (unsigned j = 0; j < k; j++) {
				clock[src] += rnd() % 50;
				push_t(m, clock[src], src,
				       (uint32_t)(8 + rnd() % 40));
				pushed++;
			}
		}
		lim = pfr_merge_safe_limit(m);
		for (uint32_t src = 0; src < NS; src++)
			if (clock[src] < lim)
				early++;
		if (pfr_merge_flush_safe(m, collect, &s) < 0)
			ok_order = 0;
	}
	if (pfr_merge_flush_all(m, collect, &s) < 0)
		ok_order = 0;
	ok(ok_order && s.in_order && s.payload_ok, "random: in order");
	is_uint(s.n, pushed, "random: every record delivered once");
	is_uint(early, 0, "safe limit never above a source's reached time");
	pfr_merge_destroy(m);
}

int main(void)
{
	test_args();
	test_order();
	test_sources();
	test_stop();
	test_random();
	return tap_done();
}
