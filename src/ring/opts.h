/* SPDX-License-Identifier: MIT */
/*
 * Internal: options structs that carry their own size, and the symbol
 * versions of the functions whose options changed layout.
 *
 * Every public *_opts struct starts with `size_t sz`.  A public function
 * never reads the caller's struct in place: pfr__opts_copy() copies the
 * bytes that lie within sz into a zeroed private struct, which is all the
 * function uses afterwards (the fields a shorter, older struct lacks read
 * as 0).
 */
#ifndef PERFRING_SRC_OPTS_H
#define PERFRING_SRC_OPTS_H

#include <stddef.h>
#include <string.h>

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/ring.h>

#define pfr__offsetofend(type, field)                                          \
	(offsetof(type, field) + sizeof(((type *)0)->field))

/*
 * Per struct, two sizes.  _SZ0 is what sz == 0 means: the fields the
 * struct had when it gained sz (PERFRING_0.2); it never changes, so a
 * caller that leaves sz 0 keeps its meaning when fields are added.
 * _KNOWN is the end of the last field this library knows: bump it (to the
 * new last field) whenever a field is added at the end.
 */
#define PFR__RING_OPTS_SZ0 pfr__offsetofend(struct pfr_ring_opts, mode)
#define PFR__RING_OPTS_KNOWN pfr__offsetofend(struct pfr_ring_opts, mode)
#define PFR__GROUP_OPTS_SZ0 pfr__offsetofend(struct pfr_group_opts, mode)
#define PFR__GROUP_OPTS_KNOWN pfr__offsetofend(struct pfr_group_opts, mode)
#define PFR__MPSC_OPTS_SZ0 pfr__offsetofend(struct pfr_mpsc_opts, mode)
#define PFR__MPSC_OPTS_KNOWN pfr__offsetofend(struct pfr_mpsc_opts, mode)

/*
 * Copies the caller's options src (a struct that starts with size_t sz)
 * into dst (dst_size bytes, zeroed first; the library's own struct, whose
 * fields end at `known`).  sz == 0 is read as sz0.  Returns 0, or
 * -PFR_E_INVAL for a NULL src, an sz too small to hold sz itself, or a
 * nonzero byte between `known` and sz (a field this library does not
 * know, set by a caller built against a newer header).  dst->sz is set to
 * the size the caller gave (sz0 for 0).
 */
static inline int pfr__opts_copy(void *dst, size_t dst_size, size_t known,
				 const void *src, size_t sz0)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t sz;

	memset(dst, 0, dst_size);
	if (!src)
		return -PFR_E_INVAL;
	memcpy(&sz, src, sizeof(sz));
	if (!sz)
		sz = sz0;
	if (sz < sizeof(sz))
		return -PFR_E_INVAL;
	for (size_t i = known; i < sz; i++)
		if (s[i])
			return -PFR_E_INVAL;
	memcpy(dst, src, sz < known ? sz : known);
	memcpy(dst, &sz, sizeof(sz));
	return 0;
}

#define PFR__OPTS_COPY(dst, src, NAME)                                         \
	pfr__opts_copy((dst), sizeof(*(dst)), PFR__##NAME##_KNOWN, (src),      \
		       PFR__##NAME##_SZ0)

/*
 * Symbol versions (ELF).  A function whose arguments changed layout keeps
 * its old version as a compatibility symbol (name@VERSION, for binaries
 * linked against it) next to the default one (name@@VERSION, what new
 * links bind to); each is defined under an internal name and given its
 * public name here.  Both nodes list the public name in src/abi/perfring.map.
 */
#define PFR__SYMVER_COMPAT(internal, api, node)                                \
	__asm__(".symver " #internal "," #api "@" node)
#define PFR__SYMVER_DEFAULT(internal, api, node)                               \
	__asm__(".symver " #internal "," #api "@@" node)

/* The attach limit from a caller's options, for the ring, the group and
 * the shared ring alike: 0 and the limit in *max (0 in the options:
 * PFR_RING_ATTACH_MAX_DEFAULT), or -PFR_E_INVAL (NULL, an sz too small,
 * flags, or a nonzero byte past the fields this library knows: a newer
 * caller's option it cannot honour). */
static inline int pfr__attach_limit(const struct pfr_ring_attach_opts *o,
				    uint64_t *max)
{
	struct pfr_ring_attach_opts k;

	if (!o || o->sz < sizeof(k))
		return -PFR_E_INVAL;
	for (size_t i = sizeof(k); i < o->sz; i++)
		if (((const unsigned char *)o)[i])
			return -PFR_E_INVAL;
	memcpy(&k, o, sizeof(k));
	if (k.flags)
		return -PFR_E_INVAL;
	*max = k.max_data_size ? k.max_data_size : PFR_RING_ATTACH_MAX_DEFAULT;
	return 0;
}

/* The ring's creation functions at PERFRING_0.2 (ring.c): options with sz. */
PFR_API int pfr__ring_create_v02(struct pfr_ring **ring,
				 const struct pfr_ring_opts *opts);
PFR_API int pfr__ring_create_shm_v02(struct pfr_ring **ring, const char *name,
				     const struct pfr_ring_opts *opts);
PFR_API int pfr__ring_create_memfd_v02(struct pfr_ring **ring,
				       const struct pfr_ring_opts *opts);

#endif
