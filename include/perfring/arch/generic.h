/* SPDX-License-Identifier: MIT */
/*
 * Defaults for every name a backend does not define.  A backend defines only
 * what differs on its target; the defaults below are the kernel's generic
 * definitions in terms of the backend's primitives.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/generic.h>"
#endif

#ifndef pfr_barrier
/* Compiler barrier: no instruction; the compiler may not move memory
 * accesses across it nor cache memory values in registers across it. */
#define pfr_barrier() __asm__ __volatile__("" ::: "memory")
#endif

#ifndef PFR_READ_ONCE
/* A volatile access of a naturally aligned scalar of at most the word size
 * is one load instruction: never merged, split or re-read by the compiler. */
#define PFR_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#endif

#ifndef PFR_WRITE_ONCE
#define PFR_WRITE_ONCE(x, v)                                                   \
	do {                                                                   \
		*(volatile __typeof__(x) *)&(x) = (v);                         \
	} while (0)
#endif

#ifndef pfr_smp_rmb
#define pfr_smp_rmb() pfr_smp_mb()
#endif

#ifndef pfr_smp_wmb
#define pfr_smp_wmb() pfr_smp_mb()
#endif

#ifndef pfr_smp_tmb
#define pfr_smp_tmb() pfr_smp_mb()
#endif

#ifndef pfr_smp_load_acquire
/* Load, then a fence ordering it before every later access (R->R, R->W). */
#define pfr_smp_load_acquire(p)                                                \
	__extension__({                                                        \
		pfr__assert_atomic_size(*(p), "pfr_smp_load_acquire()");       \
		pfr__unqual_typeof(*(p)) pfr__v = PFR_READ_ONCE(*(p));         \
		pfr__fence_acquire(); /* acquire: pairs with a release */      \
		pfr__v;                                                        \
	})
#endif

#ifndef pfr_smp_store_release
/* A fence ordering every earlier access before the store, then the store. */
#define pfr_smp_store_release(p, v)                                            \
	do {                                                                   \
		pfr__assert_atomic_size(*(p), "pfr_smp_store_release()");      \
		pfr__fence_release(); /* release: pairs with an acquire */     \
		PFR_WRITE_ONCE(*(p), (v));                                     \
	} while (0)
#endif

#ifndef pfr_smp_acquire__after_ctrl_dep
/* A control dependency already orders the load before later stores (on the
 * hardware, not under C11); adding R->R ordering makes it an acquire.  This
 * is the kernel's definition. */
#define pfr_smp_acquire__after_ctrl_dep() pfr_smp_rmb()
#endif

#ifndef pfr_cpu_relax
#define pfr_cpu_relax() pfr_barrier()
#endif
