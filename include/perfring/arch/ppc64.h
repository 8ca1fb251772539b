/* SPDX-License-Identifier: MIT */
/*
 * ppc64 backend, big- and little-endian (Power ISA v2.07+ Book II, 1.7).
 * Power is not multi-copy atomic and reorders everything, so:
 *
 *   smp_mb                       "sync" (hwsync): the only barrier that
 *                                orders a store before a later load.
 *   smp_rmb, smp_wmb, smp_tmb    "lwsync": orders load->load, load->store
 *                                and store->store, not store->load -- which
 *                                is exactly the TSO barrier, and covers rmb
 *                                and wmb (eieio would do for wmb on cacheable
 *                                memory but is no cheaper on POWER8+; the
 *                                kernel uses lwsync for both).
 *   load_acquire                 load, then "lwsync" (R->R, R->W).  GCC's own
 *                                acquire is load + cmp + bne + isync, which
 *                                needs the loaded value in a compare; the
 *                                kernel uses lwsync.
 *   store_release                "lwsync", then the store (R->W, W->W).
 *   acquire__after_ctrl_dep      "lwsync" (the kernel's smp_rmb()).
 *   cpu_relax                    "or 1,1,1; or 2,2,2": drop SMT priority for
 *                                the spin, then restore it (HMT_low/medium).
 *
 * Aligned 1/2/4/8-byte accesses are single-copy atomic on ppc64.  The
 * quadword lq/stq are not used: acquire/release of 16 bytes is refused at
 * compile time.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/ppc64.h>"
#endif

#if defined(__BIG_ENDIAN__)
#define PFR_BARRIER_BACKEND "ppc64"
#else
#define PFR_BARRIER_BACKEND "ppc64le"
#endif

#define pfr_smp_mb() __asm__ __volatile__("sync" ::: "memory")
#define pfr_smp_rmb() __asm__ __volatile__("lwsync" ::: "memory")
#define pfr_smp_wmb() __asm__ __volatile__("lwsync" ::: "memory")
#define pfr_smp_tmb() __asm__ __volatile__("lwsync" ::: "memory")
#define pfr__fence_acquire() __asm__ __volatile__("lwsync" ::: "memory")
#define pfr__fence_release() __asm__ __volatile__("lwsync" ::: "memory")
#define pfr_cpu_relax()                                                        \
	__asm__ __volatile__("or 1,1,1\n\tor 2,2,2" ::: "memory")
