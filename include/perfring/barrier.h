/* SPDX-License-Identifier: MIT */
/*
 * <perfring/barrier.h> - the kernel's barrier vocabulary for user space.
 *
 * This dispatch header picks one backend from the compiler's target macros,
 * then <perfring/arch/generic.h> supplies every name the backend left out.
 *
 *   pfr_barrier()                  compiler barrier, no instruction
 *   PFR_READ_ONCE(x)               one untorn load of a 1/2/4/8-byte scalar
 *   PFR_WRITE_ONCE(x, v)           one untorn store of a 1/2/4/8-byte scalar
 *   pfr_smp_mb()                   orders everything before everything
 *   pfr_smp_rmb()                  orders loads before later loads
 *   pfr_smp_wmb()                  orders stores before later stores
 *   pfr_smp_tmb()                  the TSO barrier: R->R, R->W, W->W, not W->R
 *   pfr_smp_load_acquire(p)        load *p; later accesses stay after it
 *   pfr_smp_store_release(p, v)    earlier accesses stay before the store
 *   pfr_smp_acquire__after_ctrl_dep()  upgrades a control dependency on an
 *                                  earlier load to acquire ordering
 *   pfr_cpu_relax()                spin-loop hint
 *   PFR_BARRIER_BACKEND            the backend's name, a string literal
 *
 * Backends: x86-64, aarch64, armv7, ppc64 (LE and BE), s390x, riscv64, and
 * C11 __atomic for any other target, when PFR_FORCE_C11 is defined, and
 * under ThreadSanitizer (which does not see inline assembly).
 *
 * Every macro evaluates its pointer argument once.
 *
 * Sizes.  pfr_smp_load_acquire() and pfr_smp_store_release() accept an
 * integer, enum or pointer object of 1, 2, 4 or 8 bytes, 8 only where the
 * target loads and stores 8 bytes single-copy atomically (every 64-bit
 * backend; armv7-A through LDREXD/STREXD, which the compiler reports as
 * lock-free 8-byte atomics).  Any other size fails to compile, as the
 * kernel's compiletime_assert_atomic_type() makes it fail: an acquire or a
 * release of half a value, or of a value read in two pieces, orders nothing
 * useful.  unsigned __int128 and 16-byte structures are refused on every
 * target (no backend has an untorn 16-byte acquire or release).
 *
 * PFR_READ_ONCE() and PFR_WRITE_ONCE() are untorn for the same sizes.  They
 * also accept larger objects (a structure, unsigned __int128), like the
 * kernel's READ_ONCE() of a structure: the access is still made exactly
 * once, never merged with another, repeated or cached in a register, but
 * it may be split into several smaller accesses, so a concurrent writer can
 * tear it.  Use them on such objects only where a torn value is detected
 * (a sequence count) or impossible (no concurrent writer).
 */
#ifndef PERFRING_BARRIER_H
#define PERFRING_BARRIER_H

#include <stdint.h>

#define PFR__BARRIER_INSIDE 1

#if defined(__SANITIZE_THREAD__)
#define PFR__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PFR__TSAN 1
#endif
#endif

/*
 * Strips const and volatile from the type of a scalar expression: in C a
 * cast yields an unqualified rvalue; C++ has the type traits for it.
 */
#ifdef __cplusplus
#include <type_traits>
#define pfr__unqual_typeof(x)                                                  \
	std::remove_cv<std::remove_reference<decltype(x)>::type>::type
#else
#define pfr__unqual_typeof(x) __typeof__((__typeof__(x))0)
#endif

/*
 * The compile-time size check of the acquire and release macros: the size
 * of an object x they may access, and the refusal of any other, with a
 * message naming the macro.
 */
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
#define PFR__ATOMIC64 1
#else
#define PFR__ATOMIC64 0
#endif
#define pfr__atomic_size_ok(s)                                                 \
	((s) == 1 || (s) == 2 || (s) == 4 || ((s) == 8 && PFR__ATOMIC64))
#ifdef __cplusplus
#define pfr__static_assert(c, msg) static_assert(c, msg)
#else
#define pfr__static_assert(c, msg) _Static_assert(c, msg)
#endif
#define pfr__assert_atomic_size(x, what)                                       \
	pfr__static_assert(pfr__atomic_size_ok(sizeof(x)),                     \
			   what ": size not loaded and stored atomically "     \
				"on this target (1, 2, 4 or 8 bytes)")

/*
 * Test-only hook: a build may name its own backend header with
 * -DPFR_BARRIER_OVERRIDE='"file.h"' (the Relacy model build,
 * tests/model/, maps every primitive onto the model checker this way).
 * Never defined by the library's own build.
 */
#if defined(PFR_BARRIER_OVERRIDE)
#include PFR_BARRIER_OVERRIDE
#elif defined(PFR_FORCE_C11) || defined(PFR__TSAN) ||                          \
	defined(__clang_analyzer__)
#include "arch/c11.h"
#elif defined(__x86_64__)
#include "arch/x86_64.h"
#elif defined(__aarch64__)
#include "arch/aarch64.h"
#elif defined(__arm__) && defined(__ARM_ARCH) && __ARM_ARCH >= 7
#include "arch/armv7.h"
#elif defined(__powerpc64__)
#include "arch/ppc64.h"
#elif defined(__s390x__)
#include "arch/s390x.h"
#elif defined(__riscv) && __riscv_xlen == 64
#include "arch/riscv64.h"
#else
#include "arch/c11.h"
#endif

#include "arch/generic.h"

#undef PFR__BARRIER_INSIDE

#endif /* PERFRING_BARRIER_H */
