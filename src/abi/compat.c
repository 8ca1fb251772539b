/* SPDX-License-Identifier: MIT */
/*
 * PERFRING_0.2's conventions, for binaries linked against 0.2: each
 * function here is <name>@PERFRING_0.2 (pfr_perf_ring_snapshot():
 * @PERFRING_0.1, the version it had), beside the default
 * <name>@@PERFRING_0.3 (src/abi/compat.h), and gives the old answer by
 * calling the new function.  docs/abi.md lists what changed.
 */
#include <stddef.h>
#include <stdint.h>

#include "abi/compat.h"

/* The 0.2 callback rule of the group: only a negative value stops. */
struct pfr__legacy_group {
	pfr_group_fn fn;
	void *arg;
};

static int pfr__legacy_group_fn(void *arg, const struct pfr_group_rec *rec)
{
	const struct pfr__legacy_group *l = arg;
	int rc = l->fn(l->arg, rec);

	return rc < 0 ? rc : 0;
}

PFR_API int64_t pfr__group_drain_v02(struct pfr_group *g, pfr_group_fn fn,
				     void *arg, uint32_t flags);
PFR_API int pfr__group_iter_begin_v02(struct pfr_group *g,
				      struct pfr_group_iter *it,
				      pfr_group_fn fn, void *arg,
				      uint32_t flags);
PFR_API int64_t pfr__group_consume_v02(struct pfr_group *g, pfr_group_fn fn,
				       void *arg, uint32_t flags);
PFR_API int64_t pfr__reader_consume_v02(struct pfr_reader *r, pfr_record_fn fn,
					void *ctx, uint64_t max);
PFR_API int
pfr__perf_session_create_v02(struct pfr_perf_session **sp,
			     const struct pfr_perf_session_opts *opts);

int64_t pfr__group_drain_v02(struct pfr_group *g, pfr_group_fn fn, void *arg,
			     uint32_t flags)
{
	struct pfr__legacy_group l = {fn, arg};

	return pfr__group_drain_v03(g, fn ? pfr__legacy_group_fn : NULL, &l,
				    flags);
}
PFR__SYMVER_COMPAT(pfr__group_drain_v02, pfr_group_drain, "PERFRING_0.2");

int pfr__group_iter_begin_v02(struct pfr_group *g, struct pfr_group_iter *it,
			      pfr_group_fn fn, void *arg, uint32_t flags)
{
	struct pfr__legacy_group l = {fn, arg};
	int rc = pfr__group_iter_begin_v03(
		g, it, fn ? pfr__legacy_group_fn : NULL, &l, flags);

	if (it && rc >= 0) {
		/* the iterator keeps the caller's own (l ends here) */
		it->fn = fn;
		it->arg = arg;
	}
	return rc;
}
PFR__SYMVER_COMPAT(pfr__group_iter_begin_v02, pfr_group_iter_begin,
		   "PERFRING_0.2");

int64_t pfr__group_consume_v02(struct pfr_group *g, pfr_group_fn fn, void *arg,
			       uint32_t flags)
{
	struct pfr__legacy_group l = {fn, arg};

	return pfr__group_consume_v03(g, fn ? pfr__legacy_group_fn : NULL, &l,
				      flags);
}
PFR__SYMVER_COMPAT(pfr__group_consume_v02, pfr_group_consume, "PERFRING_0.2");

/* The ring's 0.2 twin of pfr_reader_consume(): any nonzero value stops,
 * and the count is returned (a negative one too). */
struct pfr__legacy_ring {
	pfr_record_fn fn;
	void *ctx;
};

static int pfr__legacy_ring_fn(void *ctx, const struct pfr_record *rec)
{
	const struct pfr__legacy_ring *l = ctx;

	return l->fn(l->ctx, rec) != 0;
}

int64_t pfr__reader_consume_v02(struct pfr_reader *r, pfr_record_fn fn,
				void *ctx, uint64_t max)
{
	struct pfr__legacy_ring l = {fn, ctx};

	return pfr__reader_consume_v03(r, pfr__legacy_ring_fn, &l, max);
}
PFR__SYMVER_COMPAT(pfr__reader_consume_v02, pfr_reader_consume, "PERFRING_0.2");

/* The kernel ring's 0.1 snapshot: the same rule as the ring's 0.2
 * consume (any nonzero value stops, the count is returned). */
int64_t pfr__perf_ring_snapshot_v01(struct pfr_perf_ring *ring,
				    int (*fn)(void *arg,
					      const struct pfr_record *rec),
				    void *arg)
{
	struct pfr__legacy_ring l = {fn, arg};

	return pfr__perf_ring_snapshot_v03(ring,
					   fn ? pfr__legacy_ring_fn : NULL, &l);
}
PFR__SYMVER_COMPAT(pfr__perf_ring_snapshot_v01, pfr_perf_ring_snapshot,
		   "PERFRING_0.1");

/* The session's 0.2 rule: on_record's positive values act as 0. */
int pfr__perf_session_create_v02(struct pfr_perf_session **sp,
				 const struct pfr_perf_session_opts *opts)
{
	int rc = pfr__perf_session_create_v03(sp, opts);

	if (!rc)
		pfr__perf_session_legacy(*sp);
	return rc;
}
PFR__SYMVER_COMPAT(pfr__perf_session_create_v02, pfr_perf_session_create,
		   "PERFRING_0.2");
