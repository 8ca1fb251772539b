/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model.h - the interface between the ring's own code, compiled
 * as C against relacy-barrier.h (model_ring.c includes src/ring/ring.c), and the
 * Relacy harness (relacy_ring.cc) that implements every hook on Relacy's
 * types.  Test-only; nothing here is part of the library.
 */
#ifndef PFR_MODEL_H
#define PFR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory orders of a modelled load or store. */
enum pfr_model_mo {
	PFR_MODEL_RELAXED = 0, /* PFR_READ_ONCE / PFR_WRITE_ONCE */
	PFR_MODEL_ACQUIRE = 1, /* pfr_smp_load_acquire */
	PFR_MODEL_RELEASE = 2, /* pfr_smp_store_release */
};

/* The barrier macros, by name (each maps onto one C11 fence). */
enum pfr_model_fence {
	PFR_MODEL_MB = 0, /* pfr_smp_mb: seq_cst fence */
	PFR_MODEL_RMB = 1, /* pfr_smp_rmb: acquire fence */
	PFR_MODEL_WMB = 2, /* pfr_smp_wmb: release fence */
	PFR_MODEL_TMB = 3, /* pfr_smp_tmb: acq_rel fence */
	PFR_MODEL_CTRL_DEP = 4, /* pfr_smp_acquire__after_ctrl_dep: acquire */
};

/* Where a hook was called from: the function (mutants are selected by
 * it), file and line (Relacy's reports point there). */
#define PFR_MODEL_SITE __func__, __FILE__, __LINE__
#define PFR_MODEL_SITE_ARGS const char *func, const char *file, int line

/* ---- hooks, implemented in relacy_ring.cc ---- */

/* A 1/2/4/8-byte load or store.  Addresses in the ring's control block go
 * to an rl::atomic per field, addresses in the data area to an rl::var per
 * 8-byte word (plain: unordered accesses are data races), anything else
 * (private memory) to the real memory. */
uint64_t pfr_model_load(const volatile void *p, size_t size, int mo,
			PFR_MODEL_SITE_ARGS);
void pfr_model_store(volatile void *p, size_t size, uint64_t v, int mo,
		     PFR_MODEL_SITE_ARGS);
void pfr_model_fence(int kind, PFR_MODEL_SITE_ARGS);
/* pfr_cpu_relax(): a Relacy yield, so that spin loops stay finite. */
void pfr_model_relax(PFR_MODEL_SITE_ARGS);
/* memcpy() in the ring's code: plain accesses, per word, to the data
 * area's rl::var shadows when either side is in the data area. */
void *pfr_model_memcpy(void *dst, const void *src, size_t n,
		       PFR_MODEL_SITE_ARGS);
/* syscall() in the ring's code: only SYS_futex (FUTEX_WAIT, FUTEX_WAKE) is
 * modelled; anything else fails the test. */
long pfr_model_syscall(PFR_MODEL_SITE_ARGS, long nr, ...);
/* Fails the Relacy iteration (user assertion) when !ok. */
void pfr_model_check(int ok, const char *what, PFR_MODEL_SITE_ARGS);

/* ---- the scenario, implemented in model_ring.c ---- */

/* The BLOCK writer's spins before it sleeps (PFR__BLOCK_SPINS in
 * src/ring/ring.c, 256 in the library), set per case by the harness. */
extern unsigned pfr_model_block_spins;

enum pfr_model_scenario {
	/* BLOCK writer, polling reader: A-D and the writer's BLOCK wait */
	PFR_MODEL_PROTO = 0,
	/* DROP writer on a ring that never fills, reader in
	 * pfr_reader_wait(): the reader's wake-up hand-shake */
	PFR_MODEL_WAKE = 1,
	/* BLOCK writer and a reader in pfr_reader_wait() with a byte
	 * threshold: both sleep; the writer ends with pfr_writer_flush(),
	 * which alone wakes the reader for the last record */
	PFR_MODEL_BOTH = 2,
	/* OVERWRITE writer (the flight recorder), reader taking snapshots
	 * with pfr_ring_snapshot() while the writer overwrites: the
	 * seqlock of oldest.  The data area's words are relaxed atomics
	 * here (a snapshot's copy races with the writer by design: 8-byte
	 * untorn loads, confirmed by a later load of oldest); what the
	 * snapshot returns is checked record by record */
	PFR_MODEL_SNAP = 3,
	/* creation and attachment: the writer's thread creates the ring
	 * (pfr__ring_new()) in a shared object that the reader's thread
	 * attaches to (pfr__ring_map()) at the same time.  The creator's
	 * plain stores to the control block (C assignments and memset(),
	 * which no macro reaches) become relaxed stores of each modelled
	 * field that changed, made at its next hooked operation: its
	 * smp_wmb(), or the magic's store when that barrier is missing */
	PFR_MODEL_ATTACH = 4,
	/* the kernel's ring in overwrite mode: the writer's thread writes
	 * records backward as the kernel does (perf_output_begin(), the
	 * copy, smp_wmb() and the store of data_head in
	 * perf_output_put_handle()) until the ring is paused, the reader's
	 * thread takes pfr_perf_ring_snapshot() (src/perf/perf.c) */
	PFR_MODEL_KERNEL = 5,
	/* PFR_RING_INBAND (ACQREL, BLOCK) with a polling reader: the
	 * in-band commit (the zero word, Bi) and begin (Ci), with A and D */
	PFR_MODEL_INBAND = 6,
	/* PROTO on a 128-byte ring with records of 24, 56 and 56 bytes:
	 * the third needs a PAD of 48 bytes, so the BLOCK writer's wake-up
	 * mark is capped at its head (a record boundary the reader reaches
	 * exactly), and the reader's wake stride is the whole ring (as a
	 * real ring's stride is many records), so its fenced check runs
	 * only at head or when it sees writer_waiting */
	PFR_MODEL_MARK = 7,
	/* BOTH with a last record of 8 bytes (no payload): the flush must
	 * wake the reader for a single header-only record */
	PFR_MODEL_BOTH8 = 8,
};

/* enum pfr_ordering's values (model_ring.c checks that they match), for
 * the harness, which does not include <perfring/ring.h>. */
enum pfr_model_ordering {
	PFR_MODEL_FULL = 0,
	PFR_MODEL_ACQREL = 1,
	PFR_MODEL_CTRLDEP = 2,
};

struct pfr_model_cfg {
	int scenario; /* enum pfr_model_scenario */
	int ordering; /* enum pfr_ordering */
	uint64_t data_size; /* power of two, <= PFR_MODEL_DATA_MAX */
	unsigned records; /* records the writer writes and the reader reads */
	unsigned payload; /* payload bytes per record, a multiple of 8 */
};

#define PFR_MODEL_DATA_MAX 256

/* The shared memory the hooks must shadow. */
struct pfr_model_layout {
	void *ctl;
	size_t ctl_size;
	void *data;
	size_t data_size;
	uint32_t *reader_futex, *writer_futex;
};

/* Describes the shared memory (valid for the whole run). */
void pfr_model_layout(struct pfr_model_layout *l);
/* Both run in Relacy's before(), once per iteration.  setup initialises
 * the control block and poisons the data area with plain stores (the
 * harness then copies the control block into its shadows); open attaches
 * the writer and the reader with pfr_ring_writer() and pfr_ring_reader(),
 * through the hooks.  open returns 0 or a -PFR_E_ code. */
void pfr_model_setup(const struct pfr_model_cfg *cfg);
int pfr_model_open(void);
/* The two threads' bodies. */
void pfr_model_writer(void);
void pfr_model_reader(void);

#ifdef __cplusplus
}
#endif

#endif /* PFR_MODEL_H */
