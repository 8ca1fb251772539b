/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy-mpsc-barrier.h - the barrier backend of the MPSC
 * model build: relacy-barrier.h's mapping (every ONCE access, acquire,
 * release, fence, memcpy() and syscall() a call into the harness), plus
 * the shared ring's seams, all macros, so that mpsc.c and mpsc.h are
 * compiled unchanged:
 *
 *   pfr__mpsc_cas()        the harness's CAS, with the order the call site
 *                          passes (R, the slot claim, the fairness flag,
 *                          the reader role)
 *   __atomic_fetch_add()   the harness's fetch-add (the record counter)
 *   memset()               the reader's zeroing of consumed space: a
 *                          plain store of every data word
 *
 * Selected with -DPFR_BARRIER_OVERRIDE='"relacy-mpsc-barrier.h"'.
 * Test-only.
 */
#include "relacy-barrier.h"
#include "model_mpsc.h"

/* The library's one CAS macro, with the library's own ordering argument
 * (a GCC __ATOMIC_* constant) turned into the model's: weakening an order
 * at a call site in mpsc.c or mpsc.h weakens it here too. */
static inline int pfr_model_mpsc_order(int gcc_mo)
{
	switch (gcc_mo) {
	case __ATOMIC_ACQUIRE: /* purpose: the order mapped, not used */
	case __ATOMIC_CONSUME:
		return PFR_MODEL_ACQUIRE;
	case __ATOMIC_RELEASE: /* purpose: the order mapped, not used */
		return PFR_MODEL_RELEASE;
	case __ATOMIC_ACQ_REL: /* purpose: the order mapped, not used */
	case __ATOMIC_SEQ_CST: /* purpose: the order mapped, not used */
		return PFR_MODEL_ACQ_REL;
	default:
		return PFR_MODEL_RELAXED;
	}
}

#define pfr__mpsc_cas(p, expp, v, mo)                                          \
	({                                                                     \
		uint64_t pfr__me = (uint64_t) * (expp);                        \
		int pfr__mr = pfr_model_cas((p), &pfr__me, (uint64_t)(v),      \
					    pfr_model_mpsc_order(mo),          \
					    PFR_MODEL_SITE);                   \
		*(expp) = (__typeof__(*(expp)))pfr__me;                        \
		pfr__mr;                                                       \
	})

#define __atomic_fetch_add(p, v, mo)                                           \
	((__typeof__(*(p)))pfr_model_fetch_add((p), sizeof(*(p)),              \
					       (uint64_t)(v),                  \
					       pfr_model_mpsc_order(mo),       \
					       PFR_MODEL_SITE))

#define memset(d, c, n) pfr_model_memset((d), (c), (n), PFR_MODEL_SITE)
