/* SPDX-License-Identifier: MIT */
/*
 * <perfring/linux-compat.h> - opt-in kernel spellings of the perfring
 * barrier vocabulary, for code ported from the kernel.  Never included by
 * any other perfring header.  A name the includer already defined is left
 * alone.
 *
 * smp_load_acquire() and smp_store_release() are the perfring macros, so
 * they refuse at compile time what those refuse (a size the target does
 * not load and store atomically: 16 bytes everywhere, 8 on ARMv7-M), as the
 * kernel's compiletime_assert_atomic_type() does; the error names
 * pfr_smp_load_acquire() or pfr_smp_store_release().
 */
#ifndef PERFRING_LINUX_COMPAT_H
#define PERFRING_LINUX_COMPAT_H

#include <perfring/barrier.h>

#ifndef barrier
#define barrier() pfr_barrier()
#endif
#ifndef READ_ONCE
#define READ_ONCE(x) PFR_READ_ONCE(x)
#endif
#ifndef WRITE_ONCE
#define WRITE_ONCE(x, v) PFR_WRITE_ONCE(x, v)
#endif
#ifndef ACCESS_ONCE
/* The pre-4.15 kernel spelling: an lvalue usable for loads and stores. */
#define ACCESS_ONCE(x) (*(volatile __typeof__(x) *)&(x))
#endif
#ifndef smp_mb
#define smp_mb() pfr_smp_mb()
#endif
#ifndef smp_rmb
#define smp_rmb() pfr_smp_rmb()
#endif
#ifndef smp_wmb
#define smp_wmb() pfr_smp_wmb()
#endif
#ifndef smp_load_acquire
#define smp_load_acquire(p) pfr_smp_load_acquire(p)
#endif
#ifndef smp_store_release
#define smp_store_release(p, v) pfr_smp_store_release(p, v)
#endif
#ifndef smp_acquire__after_ctrl_dep
#define smp_acquire__after_ctrl_dep() pfr_smp_acquire__after_ctrl_dep()
#endif

#endif /* PERFRING_LINUX_COMPAT_H */
