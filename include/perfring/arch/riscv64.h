/* SPDX-License-Identifier: MIT */
/*
 * riscv64 backend (RVWMO, unprivileged ISA chapter 17 and Table A.6, the
 * recommended mapping of C11/Linux primitives).  FENCE takes predecessor and
 * successor sets, so each primitive names exactly the orders it needs:
 *
 *   smp_mb                       "fence rw,rw"
 *   smp_rmb                      "fence r,r"
 *   smp_wmb                      "fence w,w"
 *   smp_tmb                      "fence.tso": R->R, R->W and W->W and nothing
 *                                else -- the TSO barrier in one instruction.
 *   load_acquire                 load, then "fence r,rw"
 *   store_release                "fence rw,w", then the store
 *   acquire__after_ctrl_dep      "fence r,r" (the kernel's smp_rmb()).
 *   cpu_relax                    "pause" (Zihintpause), encoded as the
 *                                FENCE hint it is, so older assemblers take it
 *                                and older cores run it as a no-op.
 *
 * Aligned 1/2/4/8-byte accesses are single-copy atomic on RV64; nothing
 * wider is: acquire/release of 16 bytes is refused at compile time.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/riscv64.h>"
#endif

#define PFR_BARRIER_BACKEND "riscv64"

#define pfr_smp_mb() __asm__ __volatile__("fence rw,rw" ::: "memory")
#define pfr_smp_rmb() __asm__ __volatile__("fence r,r" ::: "memory")
#define pfr_smp_wmb() __asm__ __volatile__("fence w,w" ::: "memory")
#define pfr_smp_tmb() __asm__ __volatile__("fence.tso" ::: "memory")
#define pfr__fence_acquire() __asm__ __volatile__("fence r,rw" ::: "memory")
#define pfr__fence_release() __asm__ __volatile__("fence rw,w" ::: "memory")
#define pfr_cpu_relax() __asm__ __volatile__(".4byte 0x0100000f" ::: "memory")
