// SPDX-License-Identifier: MIT
/*
 * pfr_reader_poll(): it returns what pfr_reader_begin() returns (the bytes
 * readable, 0 after its loads found nothing, the same error for a hostile
 * head), never more loads than asked, and its pacing stays within its
 * bounds: it grows while the first load keeps finding small batches, up to
 * its maximum, shrinks while the batches are large, and is none after a
 * first load that found nothing.  Then a writer thread and a reader that
 * waits with pfr_reader_poll(), and one that loops on pfr_reader_begin()
 * (paced the same way): every record arrives, in order.
 */
#include <pthread.h>

#include "ring_common.h"

/* records through the threaded case: 200,000, or 2 million with PFR_LONG=1 */
static uint64_t n_threaded = 200000;

/* A raw ring in private memory: the test plays the writer by hand. */
struct raw {
	uint64_t head, tail;
	uint64_t data[4096 / 8];
	unsigned char scratch[PFR_RECORD_MAX + 8];
	struct pfr_reader r;
};

static void raw_init(struct raw *w)
{
	memset(w, 0, sizeof(*w));
	pfr_reader_init(&w->r, &w->head, &w->tail, w->data, sizeof(w->data),
			PFR_ORDER_ACQREL, 0, w->scratch);
}

/* n records of 16 bytes at head (the reader has consumed all before). */
static void raw_put(struct raw *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++, w->head += 16)
		rt_put_hdr((unsigned char *)w->data, sizeof(w->data) - 1,
			   w->head, 7, 16);
}

/* Consume everything begin/poll showed and publish it. */
static void raw_drain(struct raw *w)
{
	struct pfr_record rec;

	while (pfr_reader_next(&w->r, &rec) == 1)
		;
	pfr_reader_end(&w->r);
}

static void test_results(void)
{
	struct raw w;

	raw_init(&w);
	is_int(pfr_reader_poll(&w.r, 0), 0, "empty ring, polls 0: 0");
	is_int(pfr_reader_poll(&w.r, 5), 0, "empty ring, polls 5: 0");
	raw_put(&w, 3);
	is_int(pfr_reader_poll(&w.r, 5), 48, "3 records: 48 bytes");
	is_uint(pfr_reader_pending(&w.r), 48, "as begin would leave it");
	raw_drain(&w);
	is_uint(w.tail, 48, "the records read and the tail published");
	w.head = w.tail + sizeof(w.data) + 8;
	is_int(pfr_reader_poll(&w.r, 5), -PFR_E_HEAD_AHEAD,
	       "head past the data size: begin's error");
	w.head = w.tail - 8;
	is_int(pfr_reader_poll(&w.r, 5), -PFR_E_HEAD_BEHIND,
	       "head behind tail: begin's error");
	w.head = w.tail;
	is_int(pfr_reader_poll(&w.r, 1), 0, "and 0 again once it is sane");
}

static void test_pace(void)
{
	struct raw w;
	unsigned max = 0, rounds;

	raw_init(&w);
	/* one record per poll, always there on the first load: a writer
	 * faster than the reader's polls, in small batches */
	for (rounds = 0; rounds < 40; rounds++) {
		raw_put(&w, 1);
		if (pfr_reader_poll(&w.r, 1) != 16)
			break;
		raw_drain(&w);
		if (w.r.pace > max)
			max = w.r.pace;
	}
	is_uint(rounds, 40, "40 single records, each found at once");
	is_uint(max, PFR__POLL_PACE_MAX, "the pace grew to its maximum");
	is_uint(w.r.pace, PFR__POLL_PACE_MAX, "and stayed there");
	/* large batches (half the 4 KiB ring, over twice a sixteenth) */
	for (rounds = 0; rounds < 40 && w.r.pace; rounds++) {
		raw_put(&w, 128);
		if (pfr_reader_poll(&w.r, 1) != 2048)
			break;
		raw_drain(&w);
	}
	ok(w.r.pace == 0 && rounds == PFR__POLL_PACE_MAX,
	   "large batches bring it down one step each (%u rounds, pace %u)",
	   rounds, w.r.pace);
	raw_put(&w, 1);
	pfr_reader_poll(&w.r, 1);
	raw_drain(&w);
	ok(w.r.pace == 1, "a small batch again: pace 1 (%u)", w.r.pace);
	is_int(pfr_reader_poll(&w.r, 2), 0, "then nothing there");
	is_uint(w.r.pace, 0, "a first load that found nothing: no pacing");
}

/* The loop a user writes first (begin, next, end, begin again) gets the
 * same pacing as pfr_reader_poll(); pfr_reader_begin_unpaced() loads head
 * without it and leaves it as it was. */
static void test_begin_paces(void)
{
	struct raw w;
	unsigned rounds;

	raw_init(&w);
	for (rounds = 0; rounds < 40; rounds++) {
		raw_put(&w, 1);
		if (pfr_reader_begin(&w.r) != 16)
			break;
		raw_drain(&w);
	}
	is_uint(rounds, 40, "begin: 40 single records, each found at once");
	is_uint(w.r.pace, PFR__POLL_PACE_MAX,
		"begin: the pace grew to its maximum");
	raw_put(&w, 128);
	is_int(pfr_reader_begin_unpaced(&w.r), 2048,
	       "begin_unpaced: the same bytes as begin");
	is_uint(w.r.pace, PFR__POLL_PACE_MAX, "begin_unpaced: pace unchanged");
	raw_drain(&w);
	is_int(pfr_reader_begin_unpaced(&w.r), 0, "begin_unpaced: empty");
	is_uint(w.r.pace, PFR__POLL_PACE_MAX,
		"begin_unpaced: pace unchanged by an empty load");
	is_int(pfr_reader_begin(&w.r), 0, "begin: empty");
	is_uint(w.r.pace, 0, "begin: a load that found nothing, no pacing");
}

struct thr {
	struct pfr_ring *ring;
	uint64_t bad, got;
	int err;
};

static void *writer(void *p)
{
	struct thr *t = (struct thr *)p;
	struct pfr_writer w;

	if (pfr_ring_writer(t->ring, &w)) {
		t->err = 1;
		return NULL;
	}
	for (uint64_t i = 0; i < n_threaded; i++)
		if (pfr_writer_write(&w, 1, &i, sizeof(i))) {
			t->err = 2;
			break;
		}
	return NULL;
}

static int check(void *ctx, const struct pfr_record *rec)
{
	struct thr *t = (struct thr *)ctx;
	uint64_t v;

	memcpy(&v, rec->payload, sizeof(v));
	t->bad += rec->len != 8 || v != t->got;
	t->got++;
	return 0;
}

static void test_threads(int naive)
{
	struct pfr_ring_opts o = {.data_size = 32768,
				  .policy = PFR_POLICY_BLOCK};
	struct thr t = {0};
	struct pfr_reader r;
	pthread_t th;
	int64_t avail = 0;

	if (!ok(pfr_ring_create(&t.ring, &o) == 0 &&
			pfr_ring_reader(t.ring, &r) == 0 &&
			pthread_create(&th, NULL, writer, &t) == 0,
		"ring, reader and writer thread"))
		return;
	while (t.got < n_threaded && !t.bad) {
		avail = naive ? pfr_reader_begin(&r) : pfr_reader_poll(&r, 64);
		if (avail < 0)
			break;
		if (pfr_reader_consume(&r, check, &t, 0) < 0)
			break;
		pfr_reader_end(&r);
		if (r.pace > PFR__POLL_PACE_MAX)
			break;
	}
	pthread_join(th, NULL);
	is_int(t.err, 0, "the writer wrote every record");
	ok(t.got == n_threaded && t.bad == 0 && avail >= 0,
	   "%llu records read in order through %s + consume (%llu bad)",
	   (unsigned long long)t.got, naive ? "begin" : "poll", (unsigned long long)t.bad);
	ok(r.pace <= PFR__POLL_PACE_MAX, "the pace within its bound");
	pfr_ring_close(t.ring);
}

int main(void)
{
	const char *lng = getenv("PFR_LONG");

	if (lng && *lng == '1')
		n_threaded = 2000000;
	test_results();
	test_pace();
	test_begin_paces();
	test_threads(0);
	test_threads(1);
	return tap_done();
}
