/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy-barrier.h - the barrier backend of the Relacy model
 * build, selected with -DPFR_BARRIER_OVERRIDE='"relacy-barrier.h"' (the
 * hook in <perfring/barrier.h>).  Test-only.
 *
 * Every primitive becomes a call into the Relacy harness (relacy_ring.cc),
 * which performs it on Relacy's types under the C++11 memory model:
 *
 *   PFR_READ_ONCE / PFR_WRITE_ONCE       relaxed load / store
 *   pfr_smp_load_acquire                 acquire load
 *   pfr_smp_store_release                release store
 *   pfr_smp_mb                           seq_cst fence
 *   pfr_smp_rmb                          acquire fence
 *   pfr_smp_wmb                          release fence
 *   pfr_smp_tmb                          acq_rel fence
 *   pfr_smp_acquire__after_ctrl_dep      acquire fence
 *   pfr_barrier                          nothing (one thread's order is
 *                                        program order in the model)
 *   pfr_cpu_relax                        rl::yield
 *
 * This is the C11 backend's mapping (arch/c11.h): the model checks the
 * ring's code as C11 defines it, which is at least as strict as every
 * hardware backend for the shapes here, with one exception: a C11
 * acquire (release) fence also orders loads before later stores, so the
 * model cannot tell smp_rmb (smp_wmb) from an acquire (release) fence.
 *
 * The harness routes each access by address: control-block fields to one
 * rl::atomic each, the data area to one rl::var (plain, race-checked) per
 * 8-byte word, private memory to the real memory.  Two more interpositions
 * make every record byte and every futex call visible to the model:
 * memcpy() and syscall() in the code compiled with this header (the ring's
 * inline functions and src/ring/ring.c) go to the harness too.  <string.h> and
 * <unistd.h> are included before this header (by <perfring/ring.h> and by
 * src/ring/ring.c), so their declarations keep the real names.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not relacy-barrier.h"
#endif

#include <string.h>
#include <unistd.h>

#include "model.h"

#define PFR_BARRIER_BACKEND "relacy-model"

#define pfr_barrier() ((void)0)

#define PFR_READ_ONCE(x)                                                       \
	((pfr__unqual_typeof(x))pfr_model_load(                                \
		&(x), sizeof(x), PFR_MODEL_RELAXED, PFR_MODEL_SITE))
#define PFR_WRITE_ONCE(x, v)                                                   \
	pfr_model_store(&(x), sizeof(x), (uint64_t)(v), PFR_MODEL_RELAXED,     \
			PFR_MODEL_SITE)

#define pfr_smp_load_acquire(p)                                                \
	((pfr__unqual_typeof(*(p)))pfr_model_load(                             \
		(p), sizeof(*(p)), PFR_MODEL_ACQUIRE, PFR_MODEL_SITE))
#define pfr_smp_store_release(p, v)                                            \
	pfr_model_store((p), sizeof(*(p)), (uint64_t)(v), PFR_MODEL_RELEASE,   \
			PFR_MODEL_SITE)

#define pfr_smp_mb() pfr_model_fence(PFR_MODEL_MB, PFR_MODEL_SITE)
#define pfr_smp_rmb() pfr_model_fence(PFR_MODEL_RMB, PFR_MODEL_SITE)
#define pfr_smp_wmb() pfr_model_fence(PFR_MODEL_WMB, PFR_MODEL_SITE)
#define pfr_smp_tmb() pfr_model_fence(PFR_MODEL_TMB, PFR_MODEL_SITE)
#define pfr_smp_acquire__after_ctrl_dep()                                      \
	pfr_model_fence(PFR_MODEL_CTRL_DEP, PFR_MODEL_SITE)
/* generic.h's default load_acquire/store_release would use these; every
 * name is defined above, so they are only here for completeness. */
#define pfr__fence_acquire() pfr_model_fence(PFR_MODEL_RMB, PFR_MODEL_SITE)
#define pfr__fence_release() pfr_model_fence(PFR_MODEL_WMB, PFR_MODEL_SITE)

#define pfr_cpu_relax() pfr_model_relax(PFR_MODEL_SITE)

#define memcpy(d, s, n) pfr_model_memcpy((d), (s), (n), PFR_MODEL_SITE)
#define syscall(...) pfr_model_syscall(PFR_MODEL_SITE, __VA_ARGS__)
