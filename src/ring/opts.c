/* SPDX-License-Identifier: MIT */
/*
 * Options structs with a size field, and the compatibility symbols of the
 * functions whose options gained it.
 */
#include <stdint.h>
#include <string.h>

#include "ring/opts.h"

/*
 * PERFRING_0.1: struct pfr_ring_opts before it had sz.  A binary linked
 * against 0.1 passes this layout to pfr_ring_create@PERFRING_0.1 and its
 * two siblings, which convert it and call the 0.2 function.
 */
struct pfr__ring_opts_v01 {
	uint64_t data_size;
	enum pfr_policy policy;
	enum pfr_ordering ordering;
	uint32_t flags;
	uint64_t lost_id;
	uint32_t mode;
};

/* The 0.1 options as 0.2 options in *n (NULL for NULL). */
static const struct pfr_ring_opts *
pfr__ring_opts_v01(struct pfr_ring_opts *n, const struct pfr__ring_opts_v01 *o)
{
	if (!o)
		return NULL;
	memset(n, 0, sizeof(*n));
	n->sz = sizeof(*n);
	n->data_size = o->data_size;
	n->policy = o->policy;
	n->ordering = o->ordering;
	n->flags = o->flags;
	n->lost_id = o->lost_id;
	n->mode = o->mode;
	return n;
}

PFR_API int pfr__ring_create_v01(struct pfr_ring **ring,
				 const struct pfr__ring_opts_v01 *opts);
PFR_API int pfr__ring_create_shm_v01(struct pfr_ring **ring, const char *name,
				     const struct pfr__ring_opts_v01 *opts);
PFR_API int pfr__ring_create_memfd_v01(struct pfr_ring **ring,
				       const struct pfr__ring_opts_v01 *opts);

int pfr__ring_create_v01(struct pfr_ring **ring,
			 const struct pfr__ring_opts_v01 *opts)
{
	struct pfr_ring_opts n;

	return pfr__ring_create_v02(ring, pfr__ring_opts_v01(&n, opts));
}
PFR__SYMVER_COMPAT(pfr__ring_create_v01, pfr_ring_create, "PERFRING_0.1");

int pfr__ring_create_shm_v01(struct pfr_ring **ring, const char *name,
			     const struct pfr__ring_opts_v01 *opts)
{
	struct pfr_ring_opts n;

	return pfr__ring_create_shm_v02(ring, name,
					pfr__ring_opts_v01(&n, opts));
}
PFR__SYMVER_COMPAT(pfr__ring_create_shm_v01, pfr_ring_create_shm,
		   "PERFRING_0.1");

int pfr__ring_create_memfd_v01(struct pfr_ring **ring,
			       const struct pfr__ring_opts_v01 *opts)
{
	struct pfr_ring_opts n;

	return pfr__ring_create_memfd_v02(ring, pfr__ring_opts_v01(&n, opts));
}
PFR__SYMVER_COMPAT(pfr__ring_create_memfd_v01, pfr_ring_create_memfd,
		   "PERFRING_0.1");
