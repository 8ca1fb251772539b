/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_ring.c - the ring's own code, compiled as C against
 * relacy-barrier.h, and the two threads the Relacy harness runs.
 *
 * src/ring/ring.c is included whole (its slow path, futex waits and the
 * struct pfr_ring it needs are static), and <perfring/ring.h> brings the
 * inline protocol of <perfring/ring-proto.h> and <perfring/ring-inline.h>:
 * every load, store, barrier, memcpy() and syscall() in that code reaches
 * the harness through the macros of relacy-barrier.h.  Nothing of the protocol is copied here;
 * this file only builds a small ring and drives its public API.
 *
 * The data area holds poison (0xa5 bytes) for the whole run: the harness
 * keeps the record bytes in its rl::var shadows, so an access that
 * bypassed the hooks would read poison and fail the record check.
 */

/* The BLOCK writer's spins before it sleeps (256 in the library).
 * Relacy's schedulers are fair: the reader runs during every spin and
 * frees space long before 256 spins end, so the sleep is never reached.
 * The cases that check the sleep's hand-shake set one spin. */
unsigned pfr_model_block_spins = 256;
#define PFR__BLOCK_SPINS ((int)pfr_model_block_spins)
#include "../../src/ring/ring.c"

#include "model.h"

_Static_assert((int)PFR_MODEL_FULL == (int)PFR_ORDER_FULL &&
		       (int)PFR_MODEL_ACQREL == (int)PFR_ORDER_ACQREL &&
		       (int)PFR_MODEL_CTRLDEP == (int)PFR_ORDER_CTRLDEP,
	       "model.h orderings");

/* One 8-byte payload word: record sequence number and word index. */
#define PFR_MODEL_WORD(seq, k) (((uint64_t)(seq) << 16) | (uint64_t)(k))
#define PFR_MODEL_TYPE 7u

static struct pfr_model {
	struct pfr_model_cfg cfg;
	struct pfr_ring ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_ring_ctl ctl __attribute__((aligned(PFR_RING_LINE)));
	unsigned char data[PFR_MODEL_DATA_MAX] __attribute__((aligned(64)));
	unsigned char scratch[PFR_RECORD_MAX + 8];
} pfr_model;

void pfr_model_layout(struct pfr_model_layout *l)
{
	l->ctl = &pfr_model.ctl;
	l->ctl_size = sizeof(pfr_model.ctl);
	l->data = pfr_model.data;
	l->data_size = sizeof(pfr_model.data);
	l->reader_futex = &pfr_model.ctl.reader_waiting;
	l->writer_futex = &pfr_model.ctl.writer_waiting;
}

void pfr_model_setup(const struct pfr_model_cfg *cfg)
{
	struct pfr_model *m = &pfr_model;
	struct pfr_ring_ctl *c = &m->ctl;
	struct pfr_ring *ring = &m->ring;
	int wake = cfg->scenario == PFR_MODEL_WAKE;
	int both = cfg->scenario == PFR_MODEL_BOTH;
	int inband = cfg->scenario == PFR_MODEL_INBAND;

	/* Plain stores: Relacy's before() happens before both threads. */
	m->cfg = *cfg;
	memset(c, 0, sizeof(*c));
	memset(m->data, 0xa5, sizeof(m->data));
	/* The ring as pfr__ring_new() builds it, in static memory and
	 * smaller than a real ring may be (a few records fill it). */
	memset(ring, 0, sizeof(*ring));
	ring->ctl = c;
	ring->data = m->data;
	ring->data_size = cfg->data_size;
	ring->policy = wake ? PFR_POLICY_DROP : PFR_POLICY_BLOCK;
	ring->ordering = (uint32_t)cfg->ordering;
	ring->flags = wake || both ? PFR_RING_WAIT
		      : inband	  ? PFR_RING_INBAND
				  : 0;
	ring->max_record = pfr__max_record_of(cfg->data_size, ring->flags);
	ring->fd = -1;
	ring->scratch = m->scratch;
	c->magic = PFR_RING_MAGIC;
	c->version = PFR_RING_VERSION;
	c->ctl_size = sizeof(*c);
	c->data_size = cfg->data_size;
	c->policy = ring->policy;
	c->ordering = ring->ordering;
	c->flags = ring->flags;
	c->max_record = (uint32_t)ring->max_record;
}

int pfr_model_open(void)
{
	struct pfr_model *m = &pfr_model;
	int err = pfr_ring_writer(&m->ring, &m->w);

	if (err)
		return err;
	err = pfr_ring_reader(&m->ring, &m->r);
	if (err)
		return err;
	/* No time-outs: a lost wake-up must sleep forever, which Relacy
	 * reports as a deadlock. */
	pfr_writer_set_timeout(&m->w, UINT64_MAX);
	/* BOTH: the library caps it at half the data area (32 bytes). */
	if (m->cfg.scenario == PFR_MODEL_BOTH)
		pfr_reader_set_wakeup(&m->r, 1024, 0);
	return 0;
}

void pfr_model_writer(void)
{
	struct pfr_model *m = &pfr_model;
	uint64_t buf[PFR_MODEL_DATA_MAX / 8];

	for (unsigned i = 1; i <= m->cfg.records; i++) {
		int err;

		for (unsigned k = 0; k < m->cfg.payload / 8; k++)
			buf[k] = PFR_MODEL_WORD(i, k);
		err = pfr_writer_write(&m->w, PFR_MODEL_TYPE, buf,
				       m->cfg.payload);
		pfr_model_check(err == 0, "pfr_writer_write failed",
				PFR_MODEL_SITE);
	}
	/* BOTH: the last records are below the reader's threshold. */
	if (m->cfg.scenario == PFR_MODEL_BOTH)
		pfr_writer_flush(&m->w);
}

/* Reads one record's payload (through the hooked memcpy) and checks it is
 * record `seq`, whole. */
static void pfr_model_check_record(const struct pfr_record *rec, unsigned seq)
{
	struct pfr_model *m = &pfr_model;
	uint64_t buf[PFR_MODEL_DATA_MAX / 8];

	pfr_model_check(rec->hdr.type == PFR_MODEL_TYPE &&
				rec->len == m->cfg.payload,
			"record header", PFR_MODEL_SITE);
	memcpy(buf, rec->payload, m->cfg.payload);
	for (unsigned k = 0; k < m->cfg.payload / 8; k++)
		pfr_model_check(buf[k] == PFR_MODEL_WORD(seq, k),
				"record payload", PFR_MODEL_SITE);
}

/* Reads the records of one batch; returns how many. */
static unsigned pfr_model_drain(unsigned got)
{
	struct pfr_model *m = &pfr_model;
	struct pfr_record rec;
	unsigned n = 0;
	int rc;

	while ((rc = pfr_reader_next(&m->r, &rec)) == 1) {
		pfr_model_check(got + n < m->cfg.records, "too many records",
				PFR_MODEL_SITE);
		pfr_model_check_record(&rec, got + ++n);
	}
	pfr_model_check(rc == 0, "pfr_reader_next failed", PFR_MODEL_SITE);
	return n;
}

void pfr_model_reader(void)
{
	struct pfr_model *m = &pfr_model;
	unsigned got = 0;

	while (got < m->cfg.records) {
		int64_t avail;

		if (m->cfg.scenario != PFR_MODEL_PROTO &&
		    m->cfg.scenario != PFR_MODEL_INBAND) {
			/* Blocks until data is published (no time-out). */
			avail = pfr_reader_wait(&m->r, UINT64_MAX);
			pfr_model_check(avail > 0, "pfr_reader_wait failed",
					PFR_MODEL_SITE);
		} else {
			avail = pfr_reader_begin(&m->r);
			pfr_model_check(avail >= 0, "pfr_reader_begin failed",
					PFR_MODEL_SITE);
			if (!avail) {
				pfr_cpu_relax();
				continue;
			}
		}
		got += pfr_model_drain(got);
		if (m->cfg.scenario == PFR_MODEL_PROTO ||
		    m->cfg.scenario == PFR_MODEL_INBAND)
			pfr_reader_end(&m->r);
	}
	pfr_reader_end(&m->r);
}
