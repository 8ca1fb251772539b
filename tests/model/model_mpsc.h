/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_mpsc.h - the interface between the shared MPSC ring's
 * own code (model_mpsc.c includes src/writers/mpsc.c, compiled as C against
 * relacy-mpsc-barrier.h) and its Relacy harness (relacy_mpsc.cc).
 * Test-only.  The load, store, fence, memcpy and syscall hooks are those
 * of model.h; this adds the CAS, fetch-add and memset hooks, the model's
 * threads (identity, death, the end of a producer) and the scenario.
 */
#ifndef PFR_MODEL_MPSC_H
#define PFR_MODEL_MPSC_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PFR_MODEL_ACQ_REL 3 /* a CAS with acquire and release */

/* A 64-bit compare-and-swap on a shared word: returns 1 and stores v if
 * *p == *expected, else 0 and *expected = *p. */
int pfr_model_cas(volatile void *p, uint64_t *expected, uint64_t v, int mo,
		  PFR_MODEL_SITE_ARGS);
/* __atomic_fetch_add on a shared word (the reservation counter). */
uint64_t pfr_model_fetch_add(volatile void *p, size_t size, uint64_t v, int mo,
			     PFR_MODEL_SITE_ARGS);
/* memset(): the reader's zeroing of consumed space is a plain store of
 * every word (race-checked); private memory is set for real. */
void *pfr_model_memset(void *d, int c, size_t n, PFR_MODEL_SITE_ARGS);

/* The model's threads: producer i is thread i (tid 10 + i), the reader
 * the last one (tid 99); in the harness's before() the tid the scenario
 * set.  alive: 0 once the producer died (its death is seen with acquire,
 * as /proc shows a thread gone after its last store). */
uint32_t pfr_model_mpsc_gettid(void);
int pfr_model_mpsc_alive(uint32_t tid);
/* A producer thread ended (left, or died): the count of ended producers,
 * loaded with acquire by the reader to know when to stop. */
void pfr_model_mpsc_finished(void);
/* Producer thread t ended without leaving and exited: dead from now on
 * (release, as at a death), then ended as pfr_model_mpsc_finished(). */
void pfr_model_mpsc_exited(unsigned t);
unsigned pfr_model_mpsc_done(void);
/* Kills producer thread t now (model_mpsc.c: longjmp to its start; the
 * harness calls it at the case's death point). */
void pfr_model_mpsc_die(unsigned t);

enum pfr_model_mpsc_scenario {
	PFR_MODEL_MPSC_PROTO = 0, /* polling reader */
	PFR_MODEL_MPSC_WAKE = 1, /* reader asleep in pfr_mpsc_wait() */
	PFR_MODEL_MPSC_BURST = 2, /* as PROTO, records in pairs (burst) */
	PFR_MODEL_MPSC_ATTACH = 3, /* thread 0 creates the ring in an object
				    * (pfr__mpsc_new()), the last thread
				    * attaches (pfr__mpsc_map()) */
	PFR_MODEL_MPSC_TAKEOVER = 4, /* as PROTO, but the ring starts with a
				      * killed reader's state (cons_pos <
				      * free_pos, the space between still
				      * holding bytes), and the reader opens
				      * in its thread (pfr_mpsc_reader()) */
};

/* Where a producer is killed (its death_at-th record, counting from 1). */
enum pfr_model_mpsc_death {
	PFR_MODEL_LIVE = 0,
	PFR_MODEL_DIE_AFTER_CAS = 1, /* won its CAS on prod_pos, no header */
	PFR_MODEL_DIE_AFTER_BUSY = 2, /* BUSY header stored, no commit */
	PFR_MODEL_DIE_LOST_CAS = 3, /* lost a CAS on prod_pos (any record
				     * from death_at on); if it never loses
				     * one it ends without leaving */
	PFR_MODEL_DIE_AFTER_STORE = 4, /* after its death_store-th store
					* into the data area (each word of
					* a copy counts), from death_at on;
					* death_store 0: any of the first
					* PFR_MODEL_MPSC_STORES, chosen per
					* execution by the search */
};

#define PFR_MODEL_MPSC_STORES 6

#define PFR_MODEL_MPSC_MAXT 4 /* producer threads */
#define PFR_MODEL_MPSC_SLOTS 4
#define PFR_MODEL_MPSC_DATA 64

struct pfr_model_mpsc_cfg {
	int scenario;
	unsigned producers; /* threads joined before the run */
	unsigned joiners; /* threads that join during the run (slot reuse) */
	unsigned max_producers; /* slots of the table (<= 4) */
	unsigned records; /* per producer */
	unsigned payload[PFR_MODEL_MPSC_MAXT]; /* bytes, multiple of 8 */
	int drop; /* DROP policy (else BLOCK) */
	unsigned block_spins; /* BLOCK producers' spins before sleeping */
	int stall; /* the clock runs: stalls time out, deaths are seen */
	unsigned death_at[PFR_MODEL_MPSC_MAXT];
	int death[PFR_MODEL_MPSC_MAXT]; /* enum pfr_model_mpsc_death */
	unsigned death_store[PFR_MODEL_MPSC_MAXT]; /* DIE_AFTER_STORE */
	/* drops counted (pfr__mpsc_count_lost()) before the run: the
	 * producer's first reservation carries a LOST record */
	unsigned pre_lost[PFR_MODEL_MPSC_MAXT];
	/* DIE_LOST_CAS: a producer that never loses its CAS exits without
	 * leaving: dead for the model once it ended (as /proc shows a
	 * thread that returned); else alive, its slot owned */
	int exits[PFR_MODEL_MPSC_MAXT];
	unsigned take_free; /* TAKEOVER: the killed reader's free_pos and
			     * prod_pos, bytes (0: 48); cons_pos is 0 */
};

/* The tid gettid gives in the harness's before() (set by open). */
extern uint32_t pfr_model_mpsc_before_tid;
/* Set by producer i before the write at which it may die. */
extern int pfr_model_mpsc_armed[PFR_MODEL_MPSC_MAXT];

/* Every control-block and producer-table field, as (offset, size, name). */
struct pfr_model_field {
	size_t off, size;
	const char *name;
};
size_t pfr_model_mpsc_fields(struct pfr_model_field *f, size_t max);

void pfr_model_mpsc_layout(struct pfr_model_layout *l);
void pfr_model_mpsc_setup(const struct pfr_model_mpsc_cfg *cfg);
int pfr_model_mpsc_open(void);
void pfr_model_mpsc_producer(unsigned i);
void pfr_model_mpsc_reader(void);
/* TAKEOVER: the killed reader's free_pos (the data below it holds
 * consumed records' bytes at the start). */
uint64_t pfr_model_mpsc_takeover_free(void);
/* Offset of the header type in the data area's header word, and BUSY. */
uint64_t pfr_model_mpsc_busy_mask(void);

#ifdef __cplusplus
}
#endif

#endif
