// SPDX-License-Identifier: MIT
/*
 * pfr_reader_consume() against pfr_reader_next(): the same rings, honest
 * and hostile (random headers: sizes of 0..7, all-zero headers, unaligned,
 * past head or the end of the data area, PAD and LOST records, short LOST
 * records, records straddling the end on raw rings), read by a loop of
 * pfr_reader_next() and by pfr_reader_consume() with limits of 1, 3 and
 * none.  Both must deliver the same records (type, size, position,
 * payload bytes), stop with the same result (drained, or the same error
 * code) and leave tail at the same place.  Data areas sit between PROT_NONE guard pages.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <perfring/ring.h>

#include "ring_common.h"

#define MAXREC 512

struct seen {
	uint32_t type, size;
	uint64_t pos;
	uint64_t sum; /* of the payload bytes */
};

struct log {
	struct seen rec[MAXREC];
	unsigned n;
	int stop_after; /* the callback returns 1 after this many (0: never) */
};

static uint64_t sum_bytes(const void *p, uint32_t len)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t s = 0;

	for (uint32_t i = 0; i < len; i++)
		s = s * 131 + b[i];
	return s;
}

static void note(struct log *l, const struct pfr_record *rec)
{
	if (l->n < MAXREC) {
		l->rec[l->n].type = rec->hdr.type;
		l->rec[l->n].size = rec->hdr.size;
		l->rec[l->n].pos = rec->pos;
		l->rec[l->n].sum = sum_bytes(rec->payload, rec->len);
	}
	l->n++;
}

static int cb(void *ctx, const struct pfr_record *rec)
{
	struct log *l = (struct log *)ctx;

	note(l, rec);
	return l->stop_after && l->n % (unsigned)l->stop_after == 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One random ring: mostly honest records with a hostile one now and then. */
static void fill(unsigned char *data, uint64_t size, uint64_t tail,
		 uint64_t *head, uint64_t *s)
{
	uint64_t pos = tail, end = tail + (rnd(s) % (size / 8 + 1)) * 8;

	for (uint64_t i = 0; i < size; i++)
		data[i] = (unsigned char)rnd(s);
	while (pos < end) {
		unsigned k = (unsigned)(rnd(s) % 40);
		uint32_t type = 7;
		uint16_t sz = (uint16_t)(8 + 8 * (rnd(s) % 6));

		if (k == 0)
			sz = (uint16_t)(rnd(s) % 8); /* 0..7 */
		else if (k == 1)
			sz = (uint16_t)(sz + 1 + rnd(s) % 7); /* unaligned */
		else if (k == 2)
			sz = (uint16_t)(end - pos + 8); /* past head */
		else if (k == 3)
			type = PFR_RECORD_PAD;
		else if (k == 4)
			type = PFR_RECORD_LOST; /* short when sz < 24 */
		else if (k == 5)
			sz = (uint16_t)(8 *
					(1 + rnd(s) % 64)); /* may straddle */
		else if (k == 6)
			type = 0, sz = 0; /* all zero: zeroed memory */
		rt_put_hdr(data, size - 1, pos, type, sz);
		if (!sz || (sz & 7))
			break;
		pos += sz;
	}
	*head = end;
}

struct outcome {
	struct log log;
	int rc; /* 0 drained, or the error */
	uint64_t tail;
};

static int run_one(uint64_t *head, uint64_t tail0, unsigned char *data,
		   uint64_t size, uint32_t flags, int use_consume, uint64_t max,
		   struct outcome *o)
{
	static unsigned char scratch[PFR_RECORD_MAX + 8];
	struct pfr_reader r;
	uint64_t tail = tail0;
	int guard = 0;

	memset(o, 0, sizeof(*o));
	if (pfr_reader_init(&r, head, &tail, data, size, PFR_ORDER_ACQREL,
			    flags, scratch))
		return -1;
	if (pfr_reader_begin(&r) < 0)
		return -1;
	if (!use_consume) {
		struct pfr_record rec;
		int rc;

		while ((rc = pfr_reader_next(&r, &rec)) == 1)
			note(&o->log, &rec);
		o->rc = rc;
	} else {
		for (;;) {
			int64_t got = pfr_reader_consume(&r, cb, &o->log, max);

			if (got < 0) {
				o->rc = (int)got;
				break;
			}
			/* fewer than asked: drained (the callback never
			 * stops here) */
			if (!max || (uint64_t)got < max)
				break;
			if (++guard > 100000)
				return -1;
		}
	}
	o->tail = r.tail;
	return 0;
}

static int same(const struct outcome *a, const struct outcome *b)
{
	unsigned n = a->log.n < MAXREC ? a->log.n : MAXREC;

	if (a->rc != b->rc || a->tail != b->tail || a->log.n != b->log.n)
		return 0;
	return !memcmp(a->log.rec, b->log.rec, n * sizeof(a->log.rec[0]));
}

int main(void)
{
	static const uint64_t sizes[] = {64, 256, 4096};
	static const uint64_t maxes[] = {0, 1, 3};
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned cases = 0, diff = 0, errs = 0, recs = 0, fail = 0;
	struct outcome a, b;

	for (unsigned si = 0; si < 3; si++) {
		uint64_t size = sizes[si];
		unsigned char *data = rt_guarded(size);

		for (unsigned i = 0; i < 3000; i++) {
			uint32_t flags = i & 1 ? PFR_READER_SKIP_PAD : 0;
			uint64_t tail = (rnd(&s) % 4096) * 8, head;

			fill(data, size, tail, &head, &s);
			if (run_one(&head, tail, data, size, flags, 0, 0, &a)) {
				fail++;
				continue;
			}
			for (unsigned m = 0; m < 3; m++) {
				if (run_one(&head, tail, data, size, flags, 1,
					    maxes[m], &b)) {
					fail++;
					continue;
				}
				cases++;
				if (!same(&a, &b)) {
					if (!diff++)
						tap_diag(
							"first difference: ring "
							"%llu case %u max %llu:"
							" next rc %d tail %llu "
							"n %u, consume rc %d "
							"tail %llu n %u",
							(unsigned long long)
								size,
							i,
							(unsigned long long)
								maxes[m],
							a.rc,
							(unsigned long long)
								a.tail,
							a.log.n, b.rc,
							(unsigned long long)
								b.tail,
							b.log.n);
				}
			}
			errs += a.rc < 0;
			recs += a.log.n;
		}
	}
	is_uint(fail, 0, "every ring set up");
	ok(diff == 0,
	   "consume (limits 0, 1, 3) and next agree on %u cases: records, "
	   "result and tail (%u differ)",
	   cases, diff);
	ok(errs > 100 && recs > 1000,
	   "the rings were hostile enough: %u errors, %u records", errs, recs);
	/* a callback that stops: consume returns at once, tail past it */
	{
		unsigned char *data = rt_guarded(256);
		uint64_t head = 0, tail = 0;
		static unsigned char scratch[PFR_RECORD_MAX + 8];
		struct pfr_reader r;
		struct log l;

		memset(&l, 0, sizeof(l));
		for (uint64_t p = 0; p < 64; p += 16)
			rt_put_hdr(data, 255, p, 9, 16);
		head = 64;
		l.stop_after = 2;
		pfr_reader_init(&r, &head, &tail, data, 256, PFR_ORDER_ACQREL,
				0, scratch);
		pfr_reader_begin(&r);
		is_int(pfr_reader_consume(&r, cb, &l, 0), 2,
		       "a callback's stop ends consume after its record");
		is_uint(r.tail, 32, "tail past the records passed");
		is_int(pfr_reader_consume(&r, cb, &l, 0), 2, "the rest");
		is_int(pfr_reader_consume(&r, cb, &l, 0), 0, "then none");
	}
	return tap_done();
}
