/* SPDX-License-Identifier: MIT */
/*
 * s390x backend.  z/Architecture storage accesses appear in program order
 * to other CPUs except that a store may be delayed past a later load of
 * another location (Principles of Operation, "Storage-Operand Fetch
 * References" and "Serialization"): the same TSO shape as x86.  So:
 *
 *   smp_rmb, smp_wmb, smp_tmb, load_acquire, store_release,
 *   acquire__after_ctrl_dep      compiler barrier only.
 *   smp_mb                       "bcr 14,0": fast-BCR serialization
 *                                (facility 45, z196 and later; Debian's
 *                                s390x baseline), cheaper than the full
 *                                "bcr 15,0" checkpoint.  The kernel makes the
 *                                same choice on z196+.
 *
 * Aligned 1/2/4/8-byte accesses are single-copy atomic.  The quadword
 * LPQ/STPQ are not used: acquire/release of 16 bytes is refused at compile
 * time.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/s390x.h>"
#endif

#define PFR_BARRIER_BACKEND "s390x"

#define pfr_smp_mb() __asm__ __volatile__("bcr 14,0" ::: "memory")
#define pfr_smp_rmb() pfr_barrier()
#define pfr_smp_wmb() pfr_barrier()
#define pfr_smp_tmb() pfr_barrier()
#define pfr_smp_acquire__after_ctrl_dep() pfr_barrier()
#define pfr__fence_acquire() pfr_barrier()
#define pfr__fence_release() pfr_barrier()
