/* SPDX-License-Identifier: MIT */
/*
 * Internal: the functions whose return convention changed at
 * PERFRING_0.3 (docs/api.md, docs/abi.md).  Each is defined under an
 * internal name and given its public name by PFR__SYMVER_DEFAULT
 * (<name>@@PERFRING_0.3, what new links bind to); src/abi/compat.c
 * serves the 0.2 convention as <name>@PERFRING_0.2 for binaries linked
 * before, so that they keep working.
 */
#ifndef PERFRING_SRC_COMPAT_H
#define PERFRING_SRC_COMPAT_H

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/perf.h>
#include <perfring/ring.h>
#include <perfring/session.h>

#include "ring/opts.h"

/* The callback stop rule: nonzero stops (0.2: only a negative value). */
PFR_API int64_t pfr__group_drain_v03(struct pfr_group *g, pfr_group_fn fn,
				     void *arg, uint32_t flags);
PFR_API int pfr__group_iter_begin_v03(struct pfr_group *g,
				      struct pfr_group_iter *it,
				      pfr_group_fn fn, void *arg,
				      uint32_t flags);
PFR_API int
pfr__perf_session_create_v03(struct pfr_perf_session **sp,
			     const struct pfr_perf_session_opts *opts);
PFR_API void pfr__perf_session_legacy(struct pfr_perf_session *s);
/* the FFI twins (src/abi/ffi.c) */
PFR_API int64_t pfr__reader_consume_v03(struct pfr_reader *r, pfr_record_fn fn,
					void *ctx, uint64_t max);
PFR_API int64_t pfr__group_consume_v03(struct pfr_group *g, pfr_group_fn fn,
				       void *arg, uint32_t flags);

/* The kernel ring's snapshot: a callback's negative value is returned
 * (0.1: the count). */
PFR_API int64_t pfr__perf_ring_snapshot_v03(
	struct pfr_perf_ring *ring,
	int (*fn)(void *arg, const struct pfr_record *rec), void *arg);
PFR_API int64_t pfr__perf_ring_snapshot_v01(
	struct pfr_perf_ring *ring,
	int (*fn)(void *arg, const struct pfr_record *rec), void *arg);

/* wait: -PFR_E_TIMEDOUT on time-out (0.2: 0). */
PFR_API int pfr__group_wait_v02(struct pfr_group *g, uint64_t timeout_ns);
PFR_API int pfr__group_wait_v03(struct pfr_group *g, uint64_t timeout_ns);

#endif
