/* SPDX-License-Identifier: MIT */
/*
 * tests/seam/seam-barrier.h - the barrier backend of the seam tests,
 * selected with -DPFR_BARRIER_OVERRIDE='"seam-barrier.h"' (the hook in
 * <perfring/barrier.h>).  Test-only.
 *
 * The C11 backend (arch/c11.h), unchanged in meaning, with a call after
 * every acquire load, after every relaxed load (PFR_READ_ONCE) and before
 * every relaxed or release store into shared memory: pfr_seam_loaded(p),
 * pfr_seam_read(p) and pfr_seam_storing(p).  A test
 * defines both and uses them to run another party's steps at one exact
 * point of the library's code, in the same thread: a writer that leaves
 * and joins between two loads of the reader's scan, or a process killed
 * (_exit()) before a given store.  No timing decides anything.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not seam-barrier.h"
#endif

#include <perfring/arch/c11.h>

void pfr_seam_loaded(const volatile void *p);
void pfr_seam_read(const volatile void *p);
void pfr_seam_storing(volatile void *p);

#undef PFR_BARRIER_BACKEND
#define PFR_BARRIER_BACKEND "c11-seam"

#undef pfr_smp_load_acquire
#define pfr_smp_load_acquire(p)                                                \
	__extension__({                                                        \
		__typeof__(p) pfr__la_p = (p);                                 \
		pfr__unqual_typeof(*pfr__la_p) pfr__la_v;                      \
		/* purpose: the acquire load itself, as arch/c11.h */     \
		pfr__la_v = __atomic_load_n(pfr__la_p, __ATOMIC_ACQUIRE);      \
		pfr_seam_loaded(pfr__la_p);                                    \
		pfr__la_v;                                                     \
	})

#undef PFR_READ_ONCE
#define PFR_READ_ONCE(x)                                                       \
	__extension__({                                                        \
		pfr__unqual_typeof(x) pfr__ro_v = __atomic_load_n(             \
			(volatile __typeof__(x) *)&(x), __ATOMIC_RELAXED);     \
		pfr_seam_read((const volatile void *)&(x));                    \
		pfr__ro_v;                                                     \
	})

#undef PFR_WRITE_ONCE
#define PFR_WRITE_ONCE(x, v)                                                   \
	do {                                                                   \
		pfr__unqual_typeof(x) pfr__wo_v = (v);                         \
		pfr_seam_storing((volatile void *)&(x));                       \
		__atomic_store_n((volatile __typeof__(x) *)&(x), pfr__wo_v,    \
				 __ATOMIC_RELAXED);                            \
	} while (0)

#undef pfr_smp_store_release
#define pfr_smp_store_release(p, v)                                            \
	do {                                                                   \
		__typeof__(p) pfr__sr_p = (p);                                 \
		pfr__unqual_typeof(*pfr__sr_p) pfr__sr_v = (v);                \
		pfr_seam_storing((volatile void *)pfr__sr_p);                  \
		/* purpose: the release store itself, as arch/c11.h */    \
		__atomic_store_n(pfr__sr_p, pfr__sr_v, __ATOMIC_RELEASE);      \
	} while (0)
