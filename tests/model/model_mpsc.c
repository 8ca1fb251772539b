/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_mpsc.c - the shared MPSC ring's own code (src/writers/mpsc.c
 * and the inline protocol of <perfring/mpsc.h>), compiled as C against
 * relacy-mpsc-barrier.h, and the threads the Relacy harness runs: 2 or 3
 * producers writing a few 16-byte records each into a 64-byte ring (four
 * records fill it, so space is reused and every pairing is exercised),
 * and one reader checking every record.
 *
 * Time and thread identity are the only things replaced: the clock reads
 * 0 (no stall ever times out, so the dead-producer path is not modelled)
 * and thread ids come from the scenario.  The data area holds poison for
 * the whole run; record bytes live in the harness's shadows.
 */
#include <stdint.h>

#define PFR__MPSC_MODEL 1
static uint32_t pfr_model_mpsc_tid;
unsigned pfr_model_mpsc_block_spins = 256;
#define PFR__MPSC_BLOCK_SPINS ((int)pfr_model_mpsc_block_spins)
/* the fairness flag raised after two looks at a held lock: modelled */
#define PFR__MPSC_FAIR_SPINS 2

static uint64_t pfr__mpsc_now(void)
{
	return 0;
}

static uint32_t pfr__mpsc_gettid(void)
{
	return pfr_model_mpsc_tid;
}

static int pfr__mpsc_tid_state(uint32_t tid, uint64_t *start)
{
	*start = tid; /* every modelled thread is alive */
	return 0;
}

static uint64_t pfr__mpsc_pidns(void)
{
	return 0;
}

#include "../../src/writers/mpsc.c"

#include "model_mpsc.h"

#define PFR_MODEL_MPSC_TYPE 7u
#define PFR_MODEL_MPSC_WORD(i, k) (((uint64_t)(i) << 16) | (uint64_t)(k))

static struct pfr_model_mpsc {
	struct pfr_model_mpsc_cfg cfg;
	struct pfr_mpsc m;
	struct pfr_mpsc_producer p[PFR_MODEL_MPSC_MAXP];
	struct pfr_mpsc_reader r;
	unsigned char region[sizeof(struct pfr_mpsc_ctl) +
			     4 * sizeof(struct pfr_mpsc_slot)]
		__attribute__((aligned(PFR_RING_LINE)));
	unsigned char data[PFR_MODEL_MPSC_DATA] __attribute__((aligned(64)));
} pfr_model_mpsc;

size_t pfr_model_mpsc_fields(struct pfr_model_field *f, size_t max)
{
	size_t n = 0;
#define F(field)                                                               \
	do {                                                                   \
		if (n < max) {                                                 \
			f[n].off = offsetof(struct pfr_mpsc_ctl, field);       \
			f[n].size = sizeof(((struct pfr_mpsc_ctl *)0)->field); \
			n++;                                                   \
		}                                                              \
	} while (0)
	F(lock);
	F(prod_pos);
	F(cons_cache);
	F(records);
	F(starving);
	F(cons_pos);
	F(reader_owner);
	F(reader_start);
	F(writer_waiting);
	F(reader_waiting);
	F(wake_bytes);
	F(wake_records);
	F(wake_mark);
	F(max_producers);
	F(pidns);
#undef F
	for (size_t i = 0; i < 4; i++) {
		size_t base = sizeof(struct pfr_mpsc_ctl) +
			      i * sizeof(struct pfr_mpsc_slot);
		static const size_t offs[] = {
			offsetof(struct pfr_mpsc_slot, owner),
			offsetof(struct pfr_mpsc_slot, start_time),
			offsetof(struct pfr_mpsc_slot, lost_total),
			offsetof(struct pfr_mpsc_slot, lost_pending),
			offsetof(struct pfr_mpsc_slot, records),
			offsetof(struct pfr_mpsc_slot, lost_pos)};

		for (size_t k = 0; k < 6 && n < max; k++) {
			f[n].off = base + offs[k];
			f[n].size = 8;
			n++;
		}
	}
	return n;
}

void pfr_model_mpsc_layout(struct pfr_model_layout *l)
{
	struct pfr_mpsc_ctl *c = (struct pfr_mpsc_ctl *)pfr_model_mpsc.region;

	l->ctl = pfr_model_mpsc.region;
	l->ctl_size = sizeof(pfr_model_mpsc.region);
	l->data = pfr_model_mpsc.data;
	l->data_size = sizeof(pfr_model_mpsc.data);
	l->reader_futex = &c->reader_waiting;
	l->writer_futex = &c->writer_waiting;
}

void pfr_model_mpsc_setup(const struct pfr_model_mpsc_cfg *cfg)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	struct pfr_mpsc_ctl *c = (struct pfr_mpsc_ctl *)x->region;
	struct pfr_mpsc *m = &x->m;

	/* plain stores: Relacy's before() happens before every thread */
	x->cfg = *cfg;
	pfr_model_mpsc_block_spins = cfg->block_spins;
	memset(x->region, 0, sizeof(x->region));
	memset(x->data, 0xa5, sizeof(x->data));
	memset(m, 0, sizeof(*m));
	m->ctl = c;
	m->data_size = PFR_MODEL_MPSC_DATA;
	m->max_producers = 4;
	m->policy = PFR_POLICY_BLOCK;
	m->flags = cfg->scenario == PFR_MODEL_MPSC_WAKE ? PFR_MPSC_WAIT : 0;
	m->fd = -1;
	m->table = (struct pfr_mpsc_slot *)(x->region + sizeof(*c));
	m->data = x->data;
	m->max_record = pfr__mpsc_max_record(PFR_MODEL_MPSC_DATA);
	c->magic = PFR_MPSC_MAGIC;
	c->version = PFR_MPSC_VERSION;
	c->max_producers = 4;
	c->data_size = PFR_MODEL_MPSC_DATA;
}

/* Joins the producers and opens the reader, through the hooks. */
int pfr_model_mpsc_open(void)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	int err;

	for (unsigned i = 0; i < x->cfg.producers; i++) {
		pfr_model_mpsc_tid = 10 + i;
		err = pfr_mpsc_join(&x->m, &x->p[i]);
		if (err)
			return err;
		pfr_mpsc_set_timeout(&x->p[i], UINT64_MAX);
	}
	pfr_model_mpsc_tid = 99;
	return pfr_mpsc_reader(&x->m, &x->r);
}

void pfr_model_mpsc_producer(unsigned i)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;

	for (unsigned k = 1; k <= x->cfg.records; k++) {
		uint64_t w = PFR_MODEL_MPSC_WORD(i + 1, k);
		int err;

		if (x->cfg.scenario == PFR_MODEL_MPSC_BURST &&
		    k < x->cfg.records) {
			uint64_t two[2] = {w,
					   PFR_MODEL_MPSC_WORD(i + 1, k + 1)};

			err = pfr_mpsc_write_burst(
				&x->p[i], PFR_MODEL_MPSC_TYPE, two, 8, 2);
			k++;
		} else {
			err = pfr_mpsc_write(&x->p[i], PFR_MODEL_MPSC_TYPE, &w,
					     8);
		}

		pfr_model_check(err == 0, "pfr_mpsc_write failed",
				PFR_MODEL_SITE);
	}
}

void pfr_model_mpsc_reader(void)
{
	struct pfr_model_mpsc *x = &pfr_model_mpsc;
	unsigned got = 0, total = x->cfg.producers * x->cfg.records;
	unsigned next[PFR_MODEL_MPSC_MAXP] = {1, 1, 1};

	/* BLOCK cases: give the producers time to fill the ring and sleep
	 * (the scheduler may still run the reader at once) */
	for (unsigned i = 0; i < x->cfg.reader_delay; i++)
		pfr_cpu_relax();

	while (got < total) {
		struct pfr_record rec;
		int64_t avail;
		int rc;

		if (x->cfg.scenario == PFR_MODEL_MPSC_WAKE) {
			avail = pfr_mpsc_wait(&x->r, UINT64_MAX);
			pfr_model_check(avail > 0, "pfr_mpsc_wait failed",
					PFR_MODEL_SITE);
		} else {
			avail = pfr_mpsc_begin(&x->r);
			pfr_model_check(avail >= 0, "pfr_mpsc_begin failed",
					PFR_MODEL_SITE);
		}
		while ((rc = pfr_mpsc_next(&x->r, &rec)) == 1) {
			uint64_t w;
			unsigned i;

			pfr_model_check(rec.hdr.type == PFR_MODEL_MPSC_TYPE &&
						rec.len == 8,
					"record header", PFR_MODEL_SITE);
			memcpy(&w, rec.payload, 8);
			i = (unsigned)(w >> 16) - 1;
			pfr_model_check(i < x->cfg.producers &&
						rec.hdr.misc == x->p[i].index &&
						(w & 0xffff) == next[i],
					"record payload (producer, order)",
					PFR_MODEL_SITE);
			if (i < PFR_MODEL_MPSC_MAXP)
				next[i]++;
			got++;
			pfr_model_check(got <= total, "too many records",
					PFR_MODEL_SITE);
		}
		pfr_model_check(rc == 0, "pfr_mpsc_next failed",
				PFR_MODEL_SITE);
		if (x->cfg.scenario != PFR_MODEL_MPSC_WAKE) {
			pfr_mpsc_end(&x->r);
			if (!rc && got < total)
				pfr_cpu_relax();
		}
	}
	pfr_mpsc_end(&x->r);
}
