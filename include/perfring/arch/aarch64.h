/* SPDX-License-Identifier: MIT */
/*
 * aarch64 backend (ARM ARM for A-profile, B2.3; ARMv8 is other-multi-copy
 * atomic, and LDAR/STLR are RCsc acquire/release).
 *
 *   smp_mb                       "dmb ish"
 *   smp_rmb                      "dmb ishld": orders earlier loads before
 *                                later loads and stores.
 *   smp_wmb                      "dmb ishst": store->store only.
 *   load_acquire                 "ldar{b,h,,}" by size: a one-way barrier
 *                                built into the load, cheaper than ldr + dmb.
 *   store_release                "stlr{b,h,,}" by size.
 *   acquire__after_ctrl_dep      "dmb ishld" (the kernel's smp_rmb()).
 *   smp_tmb                      "dmb ish".  The TSO set is R->R, R->W, W->W;
 *                                "dmb ishld" gives the first two and "dmb
 *                                ishst" the third, so the alternative is two
 *                                barriers.  Every A-profile core drains or
 *                                orders at both, and Arm's own guidance
 *                                (and the kernel, e.g. its
 *                                smp_mb__after_spinlock) uses one full DMB
 *                                wherever both directions are needed; one
 *                                full barrier also costs one instruction
 *                                slot.  No aarch64 hardware is available to
 *                                this project to measure the pair against it
 *                                (qemu times nothing real), so this is a
 *                                cited decision, recorded in docs/.
 *   cpu_relax                    "yield".
 *
 * Aligned 1/2/4/8-byte accesses are single-copy atomic.  LDAR/STLR stop at
 * 8 bytes; 16 bytes are atomic only as an LDXP/STXP pair or, with
 * FEAT_LSE2, LDP/STP: acquire/release of 16 bytes is refused at compile
 * time (an 8-byte ldar would load half the value).
 */
#ifndef PFR__BARRIER_INSIDE
#error "include <perfring/barrier.h>, not <perfring/arch/aarch64.h>"
#endif

#define PFR_BARRIER_BACKEND "aarch64"

#define pfr_smp_mb() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr_smp_rmb() __asm__ __volatile__("dmb ishld" ::: "memory")
#define pfr_smp_wmb() __asm__ __volatile__("dmb ishst" ::: "memory")
#define pfr_smp_tmb() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr__fence_acquire() __asm__ __volatile__("dmb ishld" ::: "memory")
#define pfr__fence_release() __asm__ __volatile__("dmb ish" ::: "memory")
#define pfr_cpu_relax() __asm__ __volatile__("yield" ::: "memory")

/*
 * The union carries the value between its own type and the register width
 * the instruction for its size takes.  Only the case matching sizeof(*p)
 * ever runs; the others are discarded at compile time.
 */
#define pfr_smp_load_acquire(p)                                                \
	__extension__({                                                        \
		__typeof__(p) pfr__p = (p);                                    \
		pfr__assert_atomic_size(*pfr__p, "pfr_smp_load_acquire()");    \
		union {                                                        \
			pfr__unqual_typeof(*(p)) v;                            \
			uint8_t u8;                                            \
			uint16_t u16;                                          \
			uint32_t u32;                                          \
			uint64_t u64;                                          \
		} pfr__u;                                                      \
		switch (sizeof(*pfr__p)) {                                     \
		case 1: /* acquire: pairs with a release */                    \
			__asm__ __volatile__("ldarb %w0, %1"                   \
					     : "=r"(pfr__u.u8)                 \
					     : "Q"(*pfr__p)                    \
					     : "memory");                      \
			break;                                                 \
		case 2: /* acquire: pairs with a release */                    \
			__asm__ __volatile__("ldarh %w0, %1"                   \
					     : "=r"(pfr__u.u16)                \
					     : "Q"(*pfr__p)                    \
					     : "memory");                      \
			break;                                                 \
		case 4: /* acquire: pairs with a release */                    \
			__asm__ __volatile__("ldar %w0, %1"                    \
					     : "=r"(pfr__u.u32)                \
					     : "Q"(*pfr__p)                    \
					     : "memory");                      \
			break;                                                 \
		default: /* acquire: pairs with a release */                   \
			__asm__ __volatile__("ldar %x0, %1"                    \
					     : "=r"(pfr__u.u64)                \
					     : "Q"(*pfr__p)                    \
					     : "memory");                      \
			break;                                                 \
		}                                                              \
		pfr__u.v;                                                      \
	})

#define pfr_smp_store_release(p, val)                                          \
	do {                                                                   \
		__typeof__(p) pfr__p = (p);                                    \
		pfr__assert_atomic_size(*pfr__p, "pfr_smp_store_release()");   \
		union {                                                        \
			pfr__unqual_typeof(*(p)) v;                            \
			uint8_t u8;                                            \
			uint16_t u16;                                          \
			uint32_t u32;                                          \
			uint64_t u64;                                          \
		} pfr__u;                                                      \
		pfr__u.u64 = 0;                                                \
		pfr__u.v = (val);                                              \
		switch (sizeof(*pfr__p)) {                                     \
		case 1: /* release: pairs with an acquire */                   \
			__asm__ __volatile__("stlrb %w1, %0"                   \
					     : "=Q"(*pfr__p)                   \
					     : "r"(pfr__u.u8)                  \
					     : "memory");                      \
			break;                                                 \
		case 2: /* release: pairs with an acquire */                   \
			__asm__ __volatile__("stlrh %w1, %0"                   \
					     : "=Q"(*pfr__p)                   \
					     : "r"(pfr__u.u16)                 \
					     : "memory");                      \
			break;                                                 \
		case 4: /* release: pairs with an acquire */                   \
			__asm__ __volatile__("stlr %w1, %0"                    \
					     : "=Q"(*pfr__p)                   \
					     : "r"(pfr__u.u32)                 \
					     : "memory");                      \
			break;                                                 \
		default: /* release: pairs with an acquire */                  \
			__asm__ __volatile__("stlr %x1, %0"                    \
					     : "=Q"(*pfr__p)                   \
					     : "r"(pfr__u.u64)                 \
					     : "memory");                      \
			break;                                                 \
		}                                                              \
	} while (0)
