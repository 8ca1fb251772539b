/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy-group-barrier.h - the barrier backend of the group
 * model build: relacy-barrier.h's mapping (every ONCE access, acquire,
 * release, fence, memcpy() and syscall() a call into the harness), plus
 * the seams group.c needs to run under the model checker, all macros, so
 * that group.c itself is compiled unchanged:
 *
 *   __atomic_load_n/store_n/fetch_add/exchange_n/compare_exchange_n
 *                        the harness's atomics, with the order group.c
 *                        passes (the claim J, the free F, the change
 *                        counter, the sleep word)
 *   memset()             a ring's reset stores every field it clears
 *   getpid(), kill()     the model's processes (one per writer)
 *
 * /proc (pfr__task_state(), pfr__task_dead()) is model_group.c's.
 * Selected with -DPFR_BARRIER_OVERRIDE='"relacy-group-barrier.h"'.
 * Test-only.
 */
#include <errno.h>
#include <signal.h>
#include <sys/types.h>

#include "relacy-barrier.h"
#include "model_group.h"

#define PFR__MODEL_TO(p, x) ((__typeof__(*(p)))(uintptr_t)(x))

#define __atomic_load_n(p, mo)                                                 \
	PFR__MODEL_TO(p, pfr_model_atomic_load((p), sizeof(*(p)), (mo),        \
					       PFR_MODEL_SITE))
#define __atomic_store_n(p, v, mo)                                             \
	pfr_model_atomic_store((p), sizeof(*(p)), (uint64_t)(uintptr_t)(v),    \
			       (mo), PFR_MODEL_SITE)
#define __atomic_fetch_add(p, v, mo)                                           \
	PFR__MODEL_TO(p, pfr_model_rmw((p), sizeof(*(p)), PFR_MODEL_RMW_ADD,   \
				       (uint64_t)(v), (mo), PFR_MODEL_SITE))
#define __atomic_exchange_n(p, v, mo)                                          \
	PFR__MODEL_TO(p, pfr_model_rmw((p), sizeof(*(p)), PFR_MODEL_RMW_XCHG,  \
				       (uint64_t)(v), (mo), PFR_MODEL_SITE))
#define __atomic_compare_exchange_n(p, e, d, weak, mo, fmo)                    \
	({                                                                     \
		uint64_t pfr__me = (uint64_t) * (e);                           \
		int pfr__mr = pfr_model_cas_n((p), sizeof(*(p)), &pfr__me,     \
					      (uint64_t)(d), (mo), (fmo),      \
					      PFR_MODEL_SITE);                 \
		*(e) = (__typeof__(*(e)))pfr__me;                              \
		(void)(weak);                                                  \
		pfr__mr;                                                       \
	})

#define memset(d, c, n) pfr_model_memset((d), (c), (n), PFR_MODEL_SITE)
#define getpid() ((pid_t)pfr_model_group_pid())
#define kill(pid, sig) pfr_model_group_kill((pid), (sig))

static inline int pfr_model_group_kill(pid_t pid, int sig)
{
	(void)sig;
	if (pfr_model_group_dead((uint32_t)pid)) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}
