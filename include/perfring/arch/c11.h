/* SPDX-License-Identifier: MIT */
/*
 * C11 backend: the GCC/Clang __atomic builtins, for any target without a
 * backend of its own, when PFR_FORCE_C11 is defined, and under
 * ThreadSanitizer (which understands __atomic accesses but not inline
 * assembly, and not stand-alone fences: TSan runs use acquire/release).
 *
 * Choices: ONCE accesses are relaxed atomics on a volatile object, so they
 * are untorn at every size the target supports lock-free (and TSan sees
 * them as atomic); smp_mb is a seq_cst fence (the only C11 fence that orders
 * a store before a later load); rmb/acquire fences and wmb/release fences are
 * the weakest C11 fences that give R->R and W->W; the TSO barrier is an
 * acq_rel fence, which orders earlier loads before later loads and stores and
 * earlier stores before later stores, but not a store before a later load.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/c11.h>"
#endif

#define PFR_BARRIER_BACKEND "c11"

#define pfr_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#define PFR_READ_ONCE(x)                                                       \
	__atomic_load_n((volatile __typeof__(x) *)&(x), __ATOMIC_RELAXED)
/* The value goes through a temporary of the object's type: g++ does not
 * convert an array (a string literal) to a pointer for __atomic_store_n. */
#define PFR_WRITE_ONCE(x, v)                                                   \
	do {                                                                   \
		pfr__unqual_typeof(x) pfr__wo_v = (v);                         \
		__atomic_store_n((volatile __typeof__(x) *)&(x), pfr__wo_v,    \
				 __ATOMIC_RELAXED);                            \
	} while (0)

#define pfr_smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define pfr_smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define pfr_smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define pfr_smp_tmb() __atomic_thread_fence(__ATOMIC_ACQ_REL)

#define pfr_smp_load_acquire(p)                                                \
	__extension__({                                                        \
		__typeof__(p) pfr__la_p = (p);                                 \
		pfr__assert_atomic_size(*pfr__la_p, "pfr_smp_load_acquire()"); \
		__atomic_load_n(pfr__la_p, __ATOMIC_ACQUIRE);                  \
	})
#define pfr_smp_store_release(p, v)                                            \
	do {                                                                   \
		__typeof__(p) pfr__sr_p = (p);                                 \
		pfr__assert_atomic_size(*pfr__sr_p,                            \
					"pfr_smp_store_release()");            \
		pfr__unqual_typeof(*pfr__sr_p) pfr__sr_v = (v);                \
		__atomic_store_n(pfr__sr_p, pfr__sr_v, __ATOMIC_RELEASE);      \
	} while (0)

#define pfr_smp_acquire__after_ctrl_dep()                                      \
	__atomic_thread_fence(__ATOMIC_ACQUIRE)

#if defined(__x86_64__) || defined(__i386__)
#define pfr_cpu_relax() __builtin_ia32_pause()
#endif
