// SPDX-License-Identifier: MIT
/*
 * Unit tests for the group's batched reader (<perfring/group.h>:
 * pfr_group_consume() and the iterator beneath it): the same records as
 * pfr_group_drain() (every sequence number read or counted lost, LOST
 * records included, the statistics alike), one tail publication per ring
 * batch, a writer that leaves drained and its slot freed, the callback's
 * stop (the records delivered so far consumed, the rest left for the next
 * call), the time-ordered mode (records in time order across writers),
 * the iterator driven with pfr_reader_next(), bad arguments, and hostile
 * shared memory: a record header with a bad size, a head far ahead, and
 * the caller's iterator fields garbled, each an error or ignored, never a
 * crash or an over-read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/group.h>

#include "tap.h"

#define MAXW 8

struct msg {
	uint64_t time;
	uint64_t seq;
	uint64_t tag;
	uint64_t sum;
};

static uint64_t msg_sum(const struct msg *m)
{
	return (m->time * 31 + m->seq) ^ (m->tag * 0x9e3779b97f4a7c15ull);
}

struct check {
	uint64_t next[MAXW], read[MAXW], lost[MAXW], lost_since[MAXW];
	uint64_t last_time, calls;
	int bad, bad_order, ordered;
	int stop_after; /* > 0: return -42 at this call */
};

static int check_fn(void *arg, const struct pfr_group_rec *r)
{
	struct check *c = arg;
	uint64_t t = r->tag;
	struct msg m;

	c->calls++;
	if (t >= MAXW) {
		c->bad++;
		return 0;
	}
	if (r->hdr.type == PFR_RECORD_LOST) {
		uint64_t n;

		memcpy(&n, (const unsigned char *)r->payload + 8, 8);
		c->lost[t] += n;
		c->lost_since[t] += n;
	} else if (r->len != sizeof(m)) {
		c->bad++;
	} else {
		memcpy(&m, r->payload, sizeof(m));
		if (m.tag != t || m.sum != msg_sum(&m) ||
		    m.seq != c->next[t] + c->lost_since[t])
			c->bad++;
		c->next[t] = m.seq + 1;
		c->lost_since[t] = 0;
		if (c->ordered) {
			if (r->time != m.time || m.time < c->last_time)
				c->bad_order++;
			c->last_time = m.time;
		}
		c->read[t]++;
	}
	if (c->stop_after && c->calls == (uint64_t)c->stop_after)
		return -42;
	return 0;
}

static int put(struct pfr_writer *w, uint64_t tag, uint64_t seq, uint64_t time)
{
	struct msg m;

	m.time = time;
	m.seq = seq;
	m.tag = tag;
	m.sum = msg_sum(&m);
	return pfr_writer_write(w, 1, &m, sizeof(m));
}

static struct pfr_group *mk(uint32_t slots, enum pfr_policy pol)
{
	struct pfr_group_opts o;
	struct pfr_group *g = NULL;

	memset(&o, 0, sizeof(o));
	o.slots = slots;
	o.data_size = 4096;
	o.policy = pol;
	if (pfr_group_create(&g, &o))
		return NULL;
	return g;
}

/* Three writers, DROP, more records than fit: the batched reader and
 * pfr_group_drain() agree; written = read + lost for every writer. */
static void test_same_as_drain(void)
{
	struct pfr_group *g[2];
	struct pfr_writer w[2][3];
	struct pfr_group_stats st[2];
	struct check c[2];
	int64_t got[2] = {0, 0}, n;
	uint64_t sent[3] = {0, 0, 0};
	int ok_all = 1;

	for (int k = 0; k < 2; k++) {
		g[k] = mk(3, PFR_POLICY_DROP);
		if (!ok(g[k] != NULL, "create group %d", k))
			return;
		memset(&c[k], 0, sizeof(c[k]));
		pfr_group_reader_open(g[k], 0, NULL, NULL);
		for (int i = 0; i < 3; i++)
			ok_all &= pfr_group_join(g[k], &w[k][i], (uint64_t)i) ==
				  i;
	}
	ok(ok_all, "three writers joined each group");
	/* rounds of writing, each writer writing a different amount, some
	 * past the ring's room (DROP: lost, then a LOST record) */
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 3; i++) {
			unsigned cnt = 10 + 40 * (unsigned)i + (unsigned)round;

			for (unsigned j = 0; j < cnt; j++) {
				for (int k = 0; k < 2; k++)
					put(&w[k][i], (uint64_t)i, sent[i],
					    sent[i]);
				sent[i]++;
			}
		}
		n = pfr_group_consume(g[0], check_fn, &c[0], 0);
		got[0] += n > 0 ? n : 0;
		ok_all &= n >= 0;
		n = pfr_group_drain(g[1], check_fn, &c[1], 0);
		got[1] += n > 0 ? n : 0;
		ok_all &= n >= 0;
	}
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 3; i++)
			pfr_group_leave(g[k], &w[k][i]);
	for (int r = 0; r < 3; r++) {
		got[0] += pfr_group_consume(g[0], check_fn, &c[0], 0);
		got[1] += pfr_group_drain(g[1], check_fn, &c[1], 0);
	}
	ok(ok_all, "every call returned a count");
	for (int k = 0; k < 2; k++) {
		pfr_group_stats(g[k], &st[k]);
		ok(!c[k].bad, "%s: every record intact, in each writer's order",
		   k ? "drain" : "consume");
		for (int i = 0; i < 3; i++)
			ok_all &= c[k].read[i] + c[k].lost[i] == sent[i];
	}
	ok(ok_all, "both: written = read + lost, for every writer");
	ok(c[0].lost[2] > 0, "the busiest writer lost records (LOST seen)");
	is_int((int)got[0], (int)got[1], "the same number of records");
	is_uint(st[0].records, st[1].records, "the same records count");
	is_uint(st[0].lost, st[1].lost, "the same lost count");
	is_uint(st[0].freed, 3, "consume: the three slots freed after leave");
	is_uint(st[0].active, 0, "consume: no slot held");
	for (int i = 0; i < 3; i++)
		ok_all &= c[0].read[i] == c[1].read[i];
	ok(ok_all, "the same records per writer");
	pfr_group_close(g[0]);
	pfr_group_close(g[1]);
}

/* The reader's tail is published once per ring batch: after a consume,
 * each ring's tail equals its head (all freed), and a writer blocked
 * on a full ring (BLOCK) can go on. */
static int count_fn(void *arg, const struct pfr_group_rec *r)
{
	(void)r;
	++*(uint64_t *)arg;
	return 0;
}

static void test_tail_published(void)
{
	struct pfr_group *g = mk(2, PFR_POLICY_DROP);
	struct pfr_writer w[2];
	uint64_t n = 0, seq = 0;
	int fits = 0;

	if (!ok(g != NULL, "create"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_join(g, &w[0], 0);
	pfr_group_join(g, &w[1], 1);
	/* fill ring 0 to the last byte it takes */
	while (put(&w[0], 0, seq, seq) == 0)
		seq++;
	fits = (int)seq;
	ok(pfr_writer_lost(&w[0]) > 0, "ring 0 is full");
	pfr_group_consume(g, count_fn, &n, 0);
	is_uint(n, (uint64_t)fits + 0, "every record of the full ring read");
	/* the tail was published: as much fits again, none lost */
	seq = 0;
	while (seq < (uint64_t)fits - 1 && put(&w[0], 0, seq, seq) == 0)
		seq++;
	is_uint(seq, (uint64_t)fits - 1, "the ring's room came back");
	pfr_group_close(g);
}

/* The callback's stop: returned, the records delivered so far consumed
 * (the stopping one too), the rest left for the next call. */
static void test_stop(void)
{
	struct pfr_group *g = mk(2, PFR_POLICY_DROP);
	struct pfr_writer w[2];
	struct check c;
	int64_t n;

	if (!ok(g != NULL, "create"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_join(g, &w[0], 0);
	pfr_group_join(g, &w[1], 1);
	for (uint64_t s = 0; s < 20; s++) {
		put(&w[0], 0, s, s);
		put(&w[1], 1, s, s);
	}
	memset(&c, 0, sizeof(c));
	c.stop_after = 5;
	n = pfr_group_consume(g, check_fn, &c, 0);
	is_int((int)n, -42, "fn's negative return is returned");
	is_uint(c.read[0] + c.read[1], 5, "five records delivered");
	c.stop_after = 0;
	n = pfr_group_consume(g, check_fn, &c, 0);
	n += pfr_group_consume(g, check_fn, &c, 0);
	is_int((int)n, 35, "the other 35 in the next calls");
	ok(!c.bad && c.read[0] == 20 && c.read[1] == 20,
	   "none twice, none lost, each writer's order kept");
	pfr_group_close(g);
}

/* Time-ordered: consume keeps the time order across writers. */
static void test_ordered(void)
{
	struct pfr_group_opts o;
	struct pfr_group *g;
	struct pfr_writer w[3];
	struct check c;
	int64_t n = 0;

	memset(&o, 0, sizeof(o));
	o.slots = 3;
	o.data_size = 1 << 16;
	if (!ok(pfr_group_create(&g, &o) == 0, "create (ordered)"))
		return;
	pfr_group_reader_open(g, 1, NULL, NULL);
	for (int i = 0; i < 3; i++)
		pfr_group_join(g, &w[i], (uint64_t)i);
	/* interleaved times: writer i writes times i, i + 3, ... but the
	 * writers write one after the other */
	for (int i = 0; i < 3; i++)
		for (uint64_t s = 0; s < 100; s++)
			put(&w[i], (uint64_t)i, s, s * 3 + (uint64_t)i);
	memset(&c, 0, sizeof(c));
	c.ordered = 1;
	n += pfr_group_consume(g, check_fn, &c, 0);
	for (int i = 0; i < 3; i++)
		pfr_group_leave(g, &w[i]);
	n += pfr_group_consume(g, check_fn, &c, PFR_GROUP_DRAIN_ALL);
	n += pfr_group_consume(g, check_fn, &c, PFR_GROUP_DRAIN_ALL);
	is_int((int)n, 300, "every record delivered");
	ok(!c.bad && !c.bad_order, "in time order across the writers");
	pfr_group_close(g);
}

/* The iterator with pfr_reader_next(), and a hostile record header: the
 * ring's error, the slot quarantined, the other rings read. */
static void test_iter_hostile(void)
{
	struct pfr_group *g = mk(2, PFR_POLICY_DROP);
	struct pfr_writer w[2];
	struct pfr_group_iter it;
	struct pfr_group_stats st;
	struct check c;
	int64_t n;
	uint16_t bad = 13; /* not a multiple of 8 */
	int rc, rings = 0;

	if (!ok(g != NULL, "create"))
		return;
	pfr_group_reader_open(g, 0, NULL, NULL);
	pfr_group_join(g, &w[0], 0);
	pfr_group_join(g, &w[1], 1);
	for (uint64_t s = 0; s < 4; s++) {
		put(&w[0], 0, s, s);
		put(&w[1], 1, s, s);
	}
	/* the iterator, driven by pfr_reader_next() */
	memset(&c, 0, sizeof(c));
	rc = pfr_group_iter_begin(g, &it, NULL, NULL, 0);
	while (rc >= 0 && (rc = pfr_group_iter_next(g, &it)) > 0) {
		struct pfr_record rec;
		int r;

		rings++;
		while ((r = pfr_reader_next(it.r, &rec)) == 1) {
			struct pfr_group_rec gr;

			memset(&gr, 0, sizeof(gr));
			gr.hdr = rec.hdr;
			gr.payload = rec.payload;
			gr.len = rec.len;
			gr.tag = it.tag;
			check_fn(&c, &gr);
			it.got++;
		}
		it.err = r;
	}
	is_int(rc, 0, "the iterator's round ends with 0");
	is_int(rings, 2, "two rings had records");
	is_int((int)it.total, 8, "eight records counted");
	ok(!c.bad && c.read[0] == 4 && c.read[1] == 4, "all intact");
	/* a header with a bad size in ring 1 (the writer's own view of the
	 * shared data area: the next record's header) */
	put(&w[0], 0, 4, 4);
	put(&w[1], 1, 4, 4);
	memcpy(w[1].data + ((w[1].head - 32 - 8) & w[1].mask) + 6, &bad, 2);
	memset(&c, 0, sizeof(c));
	c.next[0] = c.next[1] = 4;
	n = pfr_group_consume(g, check_fn, &c, 0);
	ok(n == -PFR_E_RECSIZE_ALIGN || n == -PFR_E_RECSIZE_SHORT ||
		   n == -PFR_E_RECSIZE_PAST_HEAD,
	   "a bad record size: the ring's error (%lld)", (long long)n);
	is_uint(c.read[0], 1, "the other ring was read");
	put(&w[0], 0, 5, 5);
	put(&w[1], 1, 5, 5);
	n = pfr_group_consume(g, check_fn, &c, 0);
	is_int((int)n, 1, "then the hostile ring is ignored");
	pfr_group_stats(g, &st);
	is_uint(st.bad_slots, 1, "one hostile slot counted");
	/* a head far ahead (ring 0) */
	{
		uint64_t far = w[0].head + (1ull << 40);

		memcpy(&w[0].ctl->head, &far, 8);
	}
	n = pfr_group_consume(g, check_fn, &c, 0);
	is_int((int)n, -PFR_E_HEAD_AHEAD, "a head far ahead: the error");
	n = pfr_group_consume(g, check_fn, &c, 0);
	is_int((int)n, 0, "then ignored");
	ok(!c.bad, "nothing bad was delivered");
	pfr_group_close(g);
}

/* Bad arguments, the caller's iterator garbled, no reader role. */
static void test_args(void)
{
	struct pfr_group *g = mk(2, PFR_POLICY_DROP);
	struct pfr_writer w;
	struct pfr_group_iter it;
	uint64_t n = 0;

	if (!ok(g != NULL, "create"))
		return;
	is_int((int)pfr_group_consume(NULL, count_fn, &n, 0), -PFR_E_INVAL,
	       "NULL group: -PFR_E_INVAL");
	is_int((int)pfr_group_consume(g, count_fn, &n, 0), -PFR_E_INVAL,
	       "no reader role: -PFR_E_INVAL");
	pfr_group_reader_open(g, 0, NULL, NULL);
	is_int((int)pfr_group_consume(g, count_fn, &n, 0x80), -PFR_E_INVAL,
	       "unknown flag: -PFR_E_INVAL");
	is_int(pfr_group_iter_begin(g, NULL, NULL, NULL, 0), -PFR_E_INVAL,
	       "NULL iterator: -PFR_E_INVAL");
	is_int(pfr_group_iter_next(g, NULL), -PFR_E_INVAL,
	       "iter_next(NULL): -PFR_E_INVAL");
	pfr_group_join(g, &w, 7);
	put(&w, 7, 0, 0);
	is_int((int)pfr_group_consume(g, NULL, NULL, 0), 1,
	       "a NULL callback counts and discards");
	put(&w, 7, 1, 1);
	pfr_group_iter_begin(g, &it, NULL, NULL, 0);
	it.cur = 0xfffffff0u; /* garbled: out of range */
	it.n = 1000;
	ok(pfr_group_iter_next(g, &it) == 1 && it.slot == 0,
	   "garbled iterator fields are kept in range");
	pfr_group_iter_stop(g, &it);
	pfr_group_iter_stop(g, &it);
	is_int(pfr_group_iter_next(g, &it), 0, "a stopped round ends");
	is_int((int)pfr_group_consume(g, count_fn, &n, 0), 1,
	       "the record left by the stop is read next");
	pfr_group_close(g);
}

int main(void)
{
	test_same_as_drain();
	test_tail_published();
	test_stop();
	test_ordered();
	test_iter_hostile();
	test_args();
	return tap_done();
}
