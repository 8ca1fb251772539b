/* SPDX-License-Identifier: MIT */
/*
 * tools/mpsc-counts.c - one thread drives the shared MPSC ring
 * (<perfring/mpsc.h>) through three out-of-line calls, so that a
 * valgrind tool can count what each costs (tools/mpsc-counts.sh):
 *
 *   one_write()   pfr_mpsc_write() of one 16-byte record
 *   one_burst()   pfr_mpsc_write_burst() of BURST 16-byte records
 *   read_batch()  pfr_mpsc_begin(), pfr_mpsc_next() until drained,
 *                 pfr_mpsc_end(), each record's first word checked
 *
 * Each call is followed by mark_end(), which closes its window in a
 * memory trace (valgrind --tool=lackey --trace-mem=yes): a window opens
 * at the call's first instruction and closes at mark_end's.  The program
 * prints the addresses the trace is classified by: the functions, the
 * control block, the producer table, this producer's slot, the data area.
 * It uses only the public API and the fields both layouts share (the
 * producer's ctl, slot, data and mask), so the same source builds against
 * the lock-based ring (layout 2) and the lock-free one (layout 3).
 *
 *   mpsc-counts write N    N records, one_write() each, a read_batch()
 *                          every 64
 *   mpsc-counts burst N    N bursts of BURST, a read_batch() every 2
 *
 * Single-threaded: no contention, no waiting; the figures are the
 * uncontended path (and its amortized slow paths: the wrap's PAD).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/mpsc.h>

#define RING (64 * 1024)
#define BURST 32
#define LEN 16

static uint64_t read_total, bad;

__attribute__((noinline)) void mark_end(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) int one_write(struct pfr_mpsc_producer *p,
					const uint64_t *buf)
{
	return pfr_mpsc_write(p, 1, buf, LEN);
}

__attribute__((noinline)) int one_burst(struct pfr_mpsc_producer *p,
					const uint64_t *buf)
{
	return pfr_mpsc_write_burst(p, 1, buf, LEN, BURST);
}

__attribute__((noinline)) uint64_t read_batch(struct pfr_mpsc_reader *rd,
					      uint64_t *next)
{
	struct pfr_record rec;
	uint64_t n = 0, v;

	pfr_mpsc_begin(rd);
	while (pfr_mpsc_next(rd, &rec) == 1) {
		memcpy(&v, rec.payload, sizeof(v));
		if (v != (*next)++)
			bad++;
		n++;
	}
	pfr_mpsc_end(rd);
	return n;
}

int main(int argc, char **argv)
{
	struct pfr_mpsc *m;
	struct pfr_mpsc_opts o;
	struct pfr_mpsc_producer p;
	struct pfr_mpsc_reader rd;
	struct pfr_mpsc_ctl *c;
	uint64_t buf[BURST * LEN / 8], n, seq = 0, next = 0, calls = 0;
	int burst;

	if (argc != 3 || (strcmp(argv[1], "write") && strcmp(argv[1], "burst"))) {
		fprintf(stderr, "usage: mpsc-counts write|burst N\n");
		return 2;
	}
	burst = argv[1][0] == 'b';
	n = strtoull(argv[2], NULL, 10);
	memset(&o, 0, sizeof(o));
	o.data_size = RING;
	o.max_producers = 8;
	if (pfr_mpsc_create(&m, &o) || pfr_mpsc_join(m, &p) ||
	    pfr_mpsc_reader(m, &rd)) {
		fprintf(stderr, "mpsc-counts: create/join/reader failed\n");
		return 1;
	}
	c = pfr_mpsc_ctl(m);
	printf("addr main=%#" PRIxPTR " one_write=%#" PRIxPTR
	       " one_burst=%#" PRIxPTR " read_batch=%#" PRIxPTR
	       " mark_end=%#" PRIxPTR "\n",
	       (uintptr_t)main, (uintptr_t)one_write, (uintptr_t)one_burst,
	       (uintptr_t)read_batch, (uintptr_t)mark_end);
	printf("addr ctl=%#" PRIxPTR " ctl_bytes=%zu table=%#" PRIxPTR
	       " table_bytes=%zu slot=%#" PRIxPTR " slot_bytes=%zu"
	       " data=%#" PRIxPTR " data_bytes=%" PRIu64 "\n",
	       (uintptr_t)c, sizeof(*c),
	       (uintptr_t)((char *)c + c->table_offset),
	       (size_t)c->max_producers * sizeof(struct pfr_mpsc_slot),
	       (uintptr_t)p.slot, sizeof(struct pfr_mpsc_slot),
	       (uintptr_t)p.data, p.mask + 1);
	for (uint64_t i = 0; i < n; i++) {
		if (burst) {
			for (unsigned k = 0; k < BURST; k++)
				buf[k * LEN / 8] = seq++;
			if (one_burst(&p, buf))
				return 1;
			mark_end();
			if ((i & 1) == 1) {
				read_total += read_batch(&rd, &next);
				mark_end();
				calls++;
			}
		} else {
			buf[0] = seq++;
			if (one_write(&p, buf))
				return 1;
			mark_end();
			if ((i & 63) == 63) {
				read_total += read_batch(&rd, &next);
				mark_end();
				calls++;
			}
		}
	}
	if (read_total != seq) {
		read_total += read_batch(&rd, &next);
		mark_end();
		calls++;
	}
	printf("%s calls=%" PRIu64 " records=%" PRIu64 " read=%" PRIu64
	       " read_batches=%" PRIu64 " bad=%" PRIu64 " layout=%u\n",
	       argv[1], n, seq, read_total, calls, bad, c->version);
	pfr_mpsc_reader_close(&rd);
	pfr_mpsc_leave(&p);
	pfr_mpsc_close(m);
	return bad != 0 || read_total != seq;
}
