/* SPDX-License-Identifier: MIT */
/*
 * armv7 backend (ARM ARM v7-A, A3.8).  ARMv7 has no load-acquire/store-
 * release instructions and only two useful DMB options here:
 *
 *   smp_mb, smp_rmb, smp_tmb     "dmb ish": v7 has no load-only DMB option
 *                                (ISHLD is ARMv8), so every read ordering
 *                                takes the full inner-shareable barrier.
 *   smp_wmb                      "dmb ishst": store->store only.
 *   load_acquire                 load, then "dmb ish".
 *   store_release                "dmb ish", then the store (ishst would not
 *                                order earlier loads before the store).
 *   acquire__after_ctrl_dep      "dmb ish".
 *   cpu_relax                    "yield".
 *
 * 8-byte ONCE accesses: a plain ldrd/strd is single-copy atomic only on
 * cores with LPAE, so the 8-byte case is a relaxed __atomic access, which
 * GCC compiles to ldrexd (and an ldrexd/strexd loop for stores) -- untorn on
 * every ARMv7-A.  Smaller sizes compile to one ldr/str as before.
 *
 * So acquire/release (the ONCE access and a dmb) accept 8 bytes where the
 * compiler has lock-free 8-byte atomics: ARMv7-A and -R, through LDREXD/
 * STREXD (single-copy atomic for an aligned doubleword, ARM ARM v7 A3.5.3),
 * or LDRD/STRD on cores with LPAE.  ARMv7-M has no LDREXD, and the
 * compiler's 8-byte atomics there are library calls, not one access: 8
 * bytes are refused at compile time there, as 16 bytes are everywhere.
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/armv7.h>"
#endif

#define PFR_BARRIER_BACKEND "armv7"

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

#define pfr_smp_mb() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr_smp_rmb() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr_smp_wmb() __asm__ __volatile__("dmb ishst" ::: "memory")
#define pfr_smp_tmb() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr__fence_acquire() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr__fence_release() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr_cpu_relax() __asm__ __volatile__("yield" ::: "memory")
