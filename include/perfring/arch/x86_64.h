/* SPDX-License-Identifier: MIT */
/*
 * x86-64 backend.  x86 is TSO (Intel SDM vol. 3A 9.2.2, AMD APM vol. 2
 * 7.2): loads are not reordered with loads, stores not with stores, and
 * stores not with earlier loads; only a store followed by a load of another
 * location may be reordered (the store buffer).  So:
 *
 *   smp_rmb, smp_wmb, smp_tmb, load_acquire, store_release,
 *   acquire__after_ctrl_dep      compiler barrier only, no instruction.
 *   smp_mb                       "lock; addl $0,(%rsp)".  A locked
 *                                read-modify-write drains the store buffer
 *                                like mfence but costs about a quarter as
 *                                much here (see perfring bench).  The slot is
 *                                (%rsp): always mapped and owned by this
 *                                thread, adding 0 changes nothing, and it is
 *                                not in the 128-byte red zone below %rsp, where
 *                                a leaf function may keep live locals (a
 *                                locked RMW there would make their stores wait
 *                                on it, and valgrind would flag it).  mfence is
 *                                only needed to order non-temporal stores and
 *                                WC memory, which this library never uses.
 *   cpu_relax                    "pause".
 *
 * Aligned loads and stores of 1, 2, 4 and 8 bytes are single-copy atomic
 * (SDM vol. 3A 9.1.1), so the generic volatile ONCE accesses are untorn.
 * 16 bytes are atomic only through LOCK CMPXCHG16B (or, on some AVX parts,
 * aligned vector moves the compiler does not use for a volatile access,
 * which it splits into two movq): acquire/release of 16 bytes is refused at
 * compile time (<perfring/barrier.h>).
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/x86_64.h>"
#endif

#define PFR_BARRIER_BACKEND "x86_64"

#define pfr_smp_mb()                                                           \
	__asm__ __volatile__("lock; addl $0,(%%rsp)" ::: "memory", "cc")
#define pfr_smp_rmb() pfr_barrier()
#define pfr_smp_wmb() pfr_barrier()
#define pfr_smp_tmb() pfr_barrier()
#define pfr_smp_acquire__after_ctrl_dep() pfr_barrier()
#define pfr__fence_acquire() pfr_barrier()
#define pfr__fence_release() pfr_barrier()
#define pfr_cpu_relax() __asm__ __volatile__("pause" ::: "memory")
