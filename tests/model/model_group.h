/* SPDX-License-Identifier: MIT */
/*
 * tests/model/model_group.h - the interface between a group's own code
 * (model_group.c includes src/writers/group.c, src/ring/ring.c and
 * src/writers/merge.c, compiled as C against relacy-group-barrier.h) and
 * its Relacy harness (relacy_group.cc).  Test-only.  The load, store,
 * fence, memcpy and syscall hooks are those of model.h; this adds the
 * __atomic builtins group.c calls (with the orders group.c passes), memset
 * (a ring's reset), the processes (pid, death) and the scenario.
 */
#ifndef PFR_MODEL_GROUP_H
#define PFR_MODEL_GROUP_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The __atomic builtins, order as the builtin's __ATOMIC_* value. */
uint64_t pfr_model_atomic_load(const volatile void *p, size_t size, int mo,
			       PFR_MODEL_SITE_ARGS);
void pfr_model_atomic_store(volatile void *p, size_t size, uint64_t v, int mo,
			    PFR_MODEL_SITE_ARGS);
enum { PFR_MODEL_RMW_ADD = 0, PFR_MODEL_RMW_XCHG = 1 };
/* Returns the old value. */
uint64_t pfr_model_rmw(volatile void *p, size_t size, int op, uint64_t v,
		       int mo, PFR_MODEL_SITE_ARGS);
/* 1 and *p = v if *p == *expected, else 0 and *expected = *p. */
int pfr_model_cas_n(volatile void *p, size_t size, uint64_t *expected,
		    uint64_t v, int mo, int fail_mo, PFR_MODEL_SITE_ARGS);
void *pfr_model_memset(void *d, int c, size_t n, PFR_MODEL_SITE_ARGS);

/* The calling model thread's process id (a writer's own, the reader's). */
uint32_t pfr_model_group_pid(void);
/* 1 once process pid has died (an acquire of its death: the kernel's
 * exit orders every store the process made before it). */
int pfr_model_group_dead(uint32_t pid);
/* The calling writer dies (a release of its death). */
void pfr_model_group_die(void);
/* A clock every thread shares (a seq_cst counter), for ordered groups. */
uint64_t pfr_model_group_clock(void);

enum pfr_model_group_scenario {
	/* writers take a 1-slot group in turn: join, write, leave; the
	 * reader drains and frees; the second writer reuses the slot */
	PFR_MODEL_GROUP_REUSE = 0,
	/* writers join a 2-slot group at once, write and leave */
	PFR_MODEL_GROUP_MANY = 1,
	/* the first writer dies after writing: the reader reclaims the
	 * slot (CAS free), the second writer reuses it */
	PFR_MODEL_GROUP_DEAD = 2,
	/* an ordered reader (merge by time), writers joining while it
	 * drains: the rescan before the safe limit */
	PFR_MODEL_GROUP_ORDERED = 3,
	/* as MANY with a reader asleep in pfr_group_wait() */
	PFR_MODEL_GROUP_WAIT = 4,
	/* as REUSE, but the first writer's ring cannot be opened after its
	 * claim (an injected failure of pfr__writer_open_at()): it gives
	 * the slot back, and the second writer claims and resets it */
	PFR_MODEL_GROUP_FAIL = 5,
	/* the first writer's thread creates a group (pfr__group_new()) in a
	 * shared object that the second's attaches to (pfr__group_map()) at
	 * the same time; the reader's thread does nothing */
	PFR_MODEL_GROUP_ATTACH = 6,
	/* as MANY, but each writer joins, writes and leaves twice: the
	 * second join takes whichever slot is free, often the other one
	 * while the first is still closing; each writer's records must come
	 * out in its order (the reader's drain of closing slots first, and
	 * a slot not read before a later pass of the scan) */
	PFR_MODEL_GROUP_REJOIN = 7,
};

#define PFR_MODEL_GROUP_MAXW 3
#define PFR_MODEL_GROUP_SLOTS 2
#define PFR_MODEL_GROUP_DATA 128

struct pfr_model_group_cfg {
	int scenario;
	unsigned writers; /* 2 or 3 */
	unsigned slots; /* 1 or 2 */
	unsigned records; /* per writer */
};

/* Every shadowed field of the group's memory, as (offset, size) from the
 * region's start (struct pfr_model_field of model_mpsc.h). */
struct pfr_model_gfield {
	size_t off, size;
};
size_t pfr_model_group_fields(struct pfr_model_gfield *f, size_t max);

struct pfr_model_glayout {
	void *region;
	size_t region_size;
	void *data[PFR_MODEL_GROUP_SLOTS]; /* each slot's data area */
	size_t data_size;
	uint32_t *futex[1 + 2 * PFR_MODEL_GROUP_SLOTS]; /* sleep words */
};
void pfr_model_group_layout(struct pfr_model_glayout *l);
/* ATTACH: the object (a group of one slot, as pfr__group_new() lays it
 * out) and its header's line 0, as (offset, size) from the object's
 * start: the fields the attacher loads after the magic, which the
 * creator fills with plain stores (a memcpy() of the whole header) that
 * the harness turns into relaxed stores of each field that changed, at
 * the creator's next hooked operation (its smp_wmb(), or the magic's
 * store when that barrier is missing). */
void *pfr_model_group_obj(size_t *size);
size_t pfr_model_group_obj_fields(struct pfr_model_gfield *f, size_t max);
void pfr_model_group_setup(const struct pfr_model_group_cfg *cfg);
int pfr_model_group_open(void);
void pfr_model_group_writer(unsigned i);
void pfr_model_group_reader(void);

#ifdef __cplusplus
}
#endif

#endif
