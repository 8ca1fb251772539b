// SPDX-License-Identifier: MIT
/*
 * The ring's decisions at their boundaries, one thread, no timing.  The
 * wake-ups: a
 * side "asleep" is its word set as pfr_reader_wait() or the BLOCK
 * writer's wait sets it (reader_waiting, or writer_waiting with its mark),
 * and the other side must clear it (wake it) exactly when the condition
 * is met, not before:
 *   - the reader's byte threshold met exactly by the writer's records;
 *   - the BLOCK writer's mark reached exactly by the reader's tail, at the
 *     head (the writer caps its mark there) and at a record boundary
 *     below it;
 *   - a reader that stops below head and its stride, having seen the
 *     writer waiting.
 * And a tail a hostile reader left unaligned: the writer takes no space
 * from it.  Each for every ordering.
 */
#include "ring_common.h"

static uint64_t rec(struct pfr_writer *w, uint64_t seq)
{
	return (uint64_t)pfr_writer_write(w, 1, &seq, sizeof(seq));
}

static void read_all(struct pfr_reader *r)
{
	struct pfr_record rec;

	pfr_reader_begin(r);
	while (pfr_reader_next(r, &rec) == 1)
		;
	pfr_reader_end(r);
}

static void reader_threshold(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	struct pfr_reader r;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, PFR_RING_WAIT) ==
				0 &&
			pfr_ring_writer(ring, &w) == 0 &&
			pfr_ring_reader(ring, &r) == 0,
		"%s: ring", on))
		return;
	c = pfr_ring_ctl(ring);
	/* 32 bytes: two 16-byte records */
	pfr_reader_set_wakeup(&r, 32, 0);
	PFR_WRITE_ONCE(c->wake_mark, PFR_READ_ONCE(c->records));
	PFR_WRITE_ONCE(c->reader_waiting, 1);
	ok((rec(&w, 1)) == (0), "%s: first record", on);
	ok((PFR_READ_ONCE(c->reader_waiting)) == (1),
	   "%s: 16 of 32 bytes: the reader sleeps on", on);
	ok((rec(&w, 2)) == (0), "%s: second record", on);
	ok((PFR_READ_ONCE(c->reader_waiting)) == (0),
	   "%s: 32 of 32 bytes: the reader is woken", on);
	pfr_ring_close(ring);
}

/* The writer's mark at `mark`; the reader reads `n` records of 16 bytes,
 * then all; the writer must be woken once tail reaches the mark. */
static void writer_mark(enum pfr_ordering ord, int at_head)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record one;
	uint64_t mark;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, 0) == 0 &&
			pfr_ring_writer(ring, &w) == 0 &&
			pfr_ring_reader(ring, &r) == 0,
		"%s: ring", on))
		return;
	c = pfr_ring_ctl(ring);
	for (uint64_t i = 0; i < 4; i++)
		rec(&w, i);
	/* as pfr__writer_block() leaves it before sleeping: the mark (at
	 * most head), then writer_waiting */
	mark = at_head ? PFR_READ_ONCE(c->head) : 32;
	PFR_WRITE_ONCE(c->writer_wake_tail, mark);
	PFR_WRITE_ONCE(c->writer_waiting, 1);
	if (!at_head) {
		/* one record: tail 16, below the mark */
		pfr_reader_begin(&r);
		pfr_reader_next(&r, &one);
		pfr_reader_end(&r);
		ok((PFR_READ_ONCE(c->writer_waiting)) == (1),
		   "%s: tail 16, mark 32: the writer sleeps on", on);
		/* a second: tail 32, the mark, a record boundary */
		pfr_reader_next(&r, &one);
		pfr_reader_end(&r);
		ok((r.tail) == (32), "%s: tail at the mark", on);
		ok((PFR_READ_ONCE(c->writer_waiting)) == (0),
		   "%s: tail at a mark below head: the writer is woken", on);
	} else {
		read_all(&r);
		ok((r.tail) == (mark), "%s: tail at head, the mark", on);
		ok((PFR_READ_ONCE(c->writer_waiting)) == (0),
		   "%s: tail at a mark capped at head: the writer is woken",
		   on);
	}
	pfr_ring_close(ring);
}

/* A reader that reads one record of four and stops: below the head and
 * its stride, it still checks when it sees the writer waiting (whose mark
 * that record reaches), so the writer does not sleep to its time-out. */
static void writer_prompted(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record one;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_BLOCK, ord, 0) == 0 &&
			pfr_ring_writer(ring, &w) == 0 &&
			pfr_ring_reader(ring, &r) == 0,
		"%s: ring", on))
		return;
	c = pfr_ring_ctl(ring);
	for (uint64_t i = 0; i < 4; i++)
		rec(&w, i);
	PFR_WRITE_ONCE(c->writer_wake_tail, 16);
	PFR_WRITE_ONCE(c->writer_waiting, 1);
	pfr_reader_begin(&r);
	pfr_reader_next(&r, &one);
	pfr_reader_end(&r);
	ok(r.tail == 16 && r.tail != r.head &&
		   r.tail - r.wake_checked <= r.wake_stride,
	   "%s: one record read, below head and the stride", on);
	ok(PFR_READ_ONCE(c->writer_waiting) == 0,
	   "%s: the writer, seen waiting, is woken at its mark", on);
	pfr_ring_close(ring);
}

/* The ring full with the reader at 0; then a tail that would free space
 * but is not 8-aligned: never trusted. */
static void unaligned_tail(enum pfr_ordering ord)
{
	const char *on = pfr_ordering_name(ord);
	struct pfr_ring *ring;
	struct pfr_ring_ctl *c;
	struct pfr_writer w;
	uint64_t n = 0;

	if (!ok(rt_mkring(&ring, 4096, PFR_POLICY_DROP, ord, 0) == 0 &&
			pfr_ring_writer(ring, &w) == 0,
		"%s: ring", on))
		return;
	c = pfr_ring_ctl(ring);
	while (rec(&w, n) == 0)
		n++;
	PFR_WRITE_ONCE(c->tail, 1027);
	ok(rec(&w, n) != 0,
	   "%s: tail 1027 (unaligned): no space taken (head %llu)", on,
	   (unsigned long long)PFR_READ_ONCE(c->head));
	PFR_WRITE_ONCE(c->tail, 1024);
	ok(rec(&w, n) == 0, "%s: tail 1024: space again", on);
	pfr_ring_close(ring);
}

int main(void)
{
	for (int o = 0; o < 3; o++) {
		reader_threshold((enum pfr_ordering)o);
		writer_mark((enum pfr_ordering)o, 1);
		writer_mark((enum pfr_ordering)o, 0);
		writer_prompted((enum pfr_ordering)o);
		unaligned_tail((enum pfr_ordering)o);
	}
	return tap_done();
}
