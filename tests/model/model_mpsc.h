/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_mpsc.h - the interface between the shared MPSC ring's
 * own code (model_mpsc.c includes src/writers/mpsc.c, compiled as C against
 * relacy-mpsc-barrier.h) and its Relacy harness (relacy_mpsc.cc).
 * Test-only.  The load, store, fence, memcpy and syscall hooks are those
 * of model.h; this adds the CAS and the scenario.
 */
#ifndef PFR_MODEL_MPSC_H
#define PFR_MODEL_MPSC_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PFR_MODEL_ACQ_REL 3 /* a CAS with acquire and release */

/* A 64-bit compare-and-swap on a control-block word: returns 1 and
 * stores v if *p == *expected, else 0 and *expected = *p. */
int pfr_model_cas(volatile void *p, uint64_t *expected, uint64_t v, int mo,
		  PFR_MODEL_SITE_ARGS);

enum pfr_model_mpsc_scenario {
	PFR_MODEL_MPSC_PROTO = 0, /* BLOCK producers, polling reader */
	PFR_MODEL_MPSC_WAKE = 1, /* reader asleep in pfr_mpsc_wait() */
	PFR_MODEL_MPSC_BURST = 2, /* as PROTO, records in pairs (burst) */
};

#define PFR_MODEL_MPSC_MAXP 3
#define PFR_MODEL_MPSC_DATA 64

struct pfr_model_mpsc_cfg {
	int scenario;
	unsigned producers; /* 2 or 3 */
	unsigned records; /* per producer */
	unsigned block_spins; /* BLOCK producers' spins before sleeping */
	unsigned reader_delay; /* yields before the reader starts */
};

/* Every control-block and producer-table field, as (offset, size). */
struct pfr_model_field {
	size_t off, size;
};
size_t pfr_model_mpsc_fields(struct pfr_model_field *f, size_t max);

void pfr_model_mpsc_layout(struct pfr_model_layout *l);
void pfr_model_mpsc_setup(const struct pfr_model_mpsc_cfg *cfg);
int pfr_model_mpsc_open(void);
void pfr_model_mpsc_producer(unsigned i);
void pfr_model_mpsc_reader(void);

#ifdef __cplusplus
}
#endif

#endif
