/* SPDX-License-Identifier: MIT */
/*
 * Out-of-line twins of the inline API, for callers that cannot compile the
 * headers' inline functions: Python (ctypes, cffi), Rust, Go and every
 * other FFI that binds to symbols.  Each twin has the public name, the
 * arguments, the return value, the concurrency rule and the progress
 * guarantee of its inline function (see <perfring/ring.h>,
 * <perfring/mpsc.h>, <perfring/group.h> and <perfring/perf.h>), and is exported at
 * PERFRING_0.2.  C and C++ callers keep the inline functions: a static
 * inline function in their own translation unit is a different object
 * from the library's global symbol of the same name, so the two never
 * clash, at compile time or at link time.
 *
 * How the same bodies become real functions: liburing spells its inline
 * functions with a macro that its ffi.c empties before including the
 * header, so that the header's bodies compile into external definitions.
 * perfring's headers write `static inline` and PFR__INLINE directly, and
 * the fast-path header is not this file's to change, so the twins are
 * made the other way round: each public inline name is #defined to a
 * pfr__ffi_ name before the headers are included (so their bodies compile
 * here as static functions under those names, every call between them
 * renamed alike), then the names are released and each twin is defined
 * under the public name as a call of its body.  The bodies are
 * always_inline: each twin is the fast path itself, not a call to it.
 * A new public inline function needs its two lines here, its line in
 * src/abi/perfring.map and in tests/abi/perfring.abi, and a case in
 * tests/unit/ffi_twins.c.
 */
#define pfr_writer_reserve pfr__ffi_writer_reserve
#define pfr_writer_commit pfr__ffi_writer_commit
#define pfr_writer_commit_deferred pfr__ffi_writer_commit_deferred
#define pfr_writer_publish pfr__ffi_writer_publish
#define pfr_writer_write pfr__ffi_writer_write
#define pfr_writer_write_deferred pfr__ffi_writer_write_deferred
#define pfr_writer_write_burst pfr__ffi_writer_write_burst
#define pfr_writer_max_payload pfr__ffi_writer_max_payload
#define pfr_writer_lost pfr__ffi_writer_lost
#define pfr_reader_begin pfr__ffi_reader_begin
#define pfr_reader_begin_unpaced pfr__ffi_reader_begin_unpaced
#define pfr_reader_poll pfr__ffi_reader_poll
#define pfr_reader_next pfr__ffi_reader_next
#define pfr_reader_consume pfr__ffi_reader_consume
#define pfr_reader_end pfr__ffi_reader_end
#define pfr_reader_pending pfr__ffi_reader_pending
#define pfr_mpsc_reserve pfr__ffi_mpsc_reserve
#define pfr_mpsc_commit pfr__ffi_mpsc_commit
#define pfr_mpsc_discard pfr__ffi_mpsc_discard
#define pfr_mpsc_write pfr__ffi_mpsc_write
#define pfr_mpsc_producer_index pfr__ffi_mpsc_producer_index
#define pfr_mpsc_lost pfr__ffi_mpsc_lost
#define pfr_mpsc_max_payload pfr__ffi_mpsc_max_payload
#define pfr_mpsc_begin pfr__ffi_mpsc_begin
#define pfr_mpsc_next pfr__ffi_mpsc_next
#define pfr_mpsc_end pfr__ffi_mpsc_end
#define pfr_perf_u64 pfr__ffi_perf_u64
#define pfr_group_consume pfr__ffi_group_consume

#include <string.h>

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/perf.h>
#include <perfring/ring.h>

#include "abi/compat.h"

#undef pfr_writer_reserve
#undef pfr_writer_commit
#undef pfr_writer_commit_deferred
#undef pfr_writer_publish
#undef pfr_writer_write
#undef pfr_writer_write_deferred
#undef pfr_writer_write_burst
#undef pfr_writer_max_payload
#undef pfr_writer_lost
#undef pfr_reader_begin
#undef pfr_reader_begin_unpaced
#undef pfr_reader_poll
#undef pfr_reader_next
#undef pfr_reader_consume
#undef pfr_reader_end
#undef pfr_reader_pending
#undef pfr_mpsc_reserve
#undef pfr_mpsc_commit
#undef pfr_mpsc_discard
#undef pfr_mpsc_write
#undef pfr_mpsc_producer_index
#undef pfr_mpsc_lost
#undef pfr_mpsc_max_payload
#undef pfr_mpsc_begin
#undef pfr_mpsc_next
#undef pfr_mpsc_end
#undef pfr_perf_u64
#undef pfr_group_consume

/* The twins' prototypes: the header's, under the public names. */
PFR_API int pfr_writer_reserve(struct pfr_writer *w, uint32_t type, size_t len,
			       void **payload);
PFR_API void pfr_writer_commit(struct pfr_writer *w);
PFR_API void pfr_writer_commit_deferred(struct pfr_writer *w);
PFR_API void pfr_writer_publish(struct pfr_writer *w);
PFR_API int pfr_writer_write(struct pfr_writer *w, uint32_t type,
			     const void *buf, size_t len);
PFR_API int pfr_writer_write_deferred(struct pfr_writer *w, uint32_t type,
				      const void *buf, size_t len);
PFR_API int pfr_writer_write_burst(struct pfr_writer *w, uint32_t type,
				   const void *buf, size_t len, unsigned n);
PFR_API size_t pfr_writer_max_payload(const struct pfr_writer *w);
PFR_API uint64_t pfr_writer_lost(const struct pfr_writer *w);
PFR_API int64_t pfr_reader_begin(struct pfr_reader *r);
PFR_API int64_t pfr_reader_begin_unpaced(struct pfr_reader *r);
PFR_API int64_t pfr_reader_poll(struct pfr_reader *r, uint32_t polls);
PFR_API int pfr_reader_next(struct pfr_reader *r, struct pfr_record *rec);
PFR_API int64_t pfr_reader_consume(struct pfr_reader *r, pfr_record_fn fn,
				   void *ctx, uint64_t max);
PFR_API void pfr_reader_end(struct pfr_reader *r);
PFR_API uint64_t pfr_reader_pending(const struct pfr_reader *r);
PFR_API int pfr_mpsc_reserve(struct pfr_mpsc_producer *p, uint32_t type,
			     size_t len, void **payload);
PFR_API void pfr_mpsc_commit(struct pfr_mpsc_producer *p);
PFR_API void pfr_mpsc_discard(struct pfr_mpsc_producer *p);
PFR_API int pfr_mpsc_write(struct pfr_mpsc_producer *p, uint32_t type,
			   const void *buf, size_t len);
PFR_API unsigned pfr_mpsc_producer_index(const struct pfr_mpsc_producer *p);
PFR_API uint64_t pfr_mpsc_lost(const struct pfr_mpsc_producer *p);
PFR_API size_t pfr_mpsc_max_payload(const struct pfr_mpsc_producer *p);
PFR_API int64_t pfr_mpsc_begin(struct pfr_mpsc_reader *r);
PFR_API int pfr_mpsc_next(struct pfr_mpsc_reader *r, struct pfr_record *rec);
PFR_API void pfr_mpsc_end(struct pfr_mpsc_reader *r);
PFR_API uint64_t pfr_perf_u64(const uint64_t *p, uint64_t i);
PFR_API int64_t pfr_group_consume(struct pfr_group *g, pfr_group_fn fn,
				  void *arg, uint32_t flags);
PFR_API size_t pfr_ffi_sizeof(const char *type);

/* --- <perfring/ring.h>: the writer --- */

int pfr_writer_reserve(struct pfr_writer *w, uint32_t type, size_t len,
		       void **payload)
{
	return pfr__ffi_writer_reserve(w, type, len, payload);
}

void pfr_writer_commit(struct pfr_writer *w)
{
	pfr__ffi_writer_commit(w);
}

void pfr_writer_commit_deferred(struct pfr_writer *w)
{
	pfr__ffi_writer_commit_deferred(w);
}

void pfr_writer_publish(struct pfr_writer *w)
{
	pfr__ffi_writer_publish(w);
}

int pfr_writer_write(struct pfr_writer *w, uint32_t type, const void *buf,
		     size_t len)
{
	return pfr__ffi_writer_write(w, type, buf, len);
}

int pfr_writer_write_deferred(struct pfr_writer *w, uint32_t type,
			      const void *buf, size_t len)
{
	return pfr__ffi_writer_write_deferred(w, type, buf, len);
}

int pfr_writer_write_burst(struct pfr_writer *w, uint32_t type, const void *buf,
			   size_t len, unsigned n)
{
	return pfr__ffi_writer_write_burst(w, type, buf, len, n);
}

size_t pfr_writer_max_payload(const struct pfr_writer *w)
{
	return pfr__ffi_writer_max_payload(w);
}

uint64_t pfr_writer_lost(const struct pfr_writer *w)
{
	return pfr__ffi_writer_lost(w);
}

/* --- <perfring/ring.h>: the reader --- */

int64_t pfr_reader_begin(struct pfr_reader *r)
{
	return pfr__ffi_reader_begin(r);
}

int64_t pfr_reader_begin_unpaced(struct pfr_reader *r)
{
	return pfr__ffi_reader_begin_unpaced(r);
}

int64_t pfr_reader_poll(struct pfr_reader *r, uint32_t polls)
{
	return pfr__ffi_reader_poll(r, polls);
}

int pfr_reader_next(struct pfr_reader *r, struct pfr_record *rec)
{
	return pfr__ffi_reader_next(r, rec);
}

/* PERFRING_0.3: fn's negative return is returned (the callback stop
 * rule, docs/api.md); src/abi/compat.c serves 0.2's. */
int64_t pfr__reader_consume_v03(struct pfr_reader *r, pfr_record_fn fn,
				void *ctx, uint64_t max)
{
	return pfr__ffi_reader_consume(r, fn, ctx, max);
}
PFR__SYMVER_DEFAULT(pfr__reader_consume_v03, pfr_reader_consume,
		    "PERFRING_0.3");

void pfr_reader_end(struct pfr_reader *r)
{
	pfr__ffi_reader_end(r);
}

uint64_t pfr_reader_pending(const struct pfr_reader *r)
{
	return pfr__ffi_reader_pending(r);
}

/* --- <perfring/mpsc.h> --- */

int pfr_mpsc_reserve(struct pfr_mpsc_producer *p, uint32_t type, size_t len,
		     void **payload)
{
	return pfr__ffi_mpsc_reserve(p, type, len, payload);
}

void pfr_mpsc_commit(struct pfr_mpsc_producer *p)
{
	pfr__ffi_mpsc_commit(p);
}

void pfr_mpsc_discard(struct pfr_mpsc_producer *p)
{
	pfr__ffi_mpsc_discard(p);
}

int pfr_mpsc_write(struct pfr_mpsc_producer *p, uint32_t type, const void *buf,
		   size_t len)
{
	return pfr__ffi_mpsc_write(p, type, buf, len);
}

unsigned pfr_mpsc_producer_index(const struct pfr_mpsc_producer *p)
{
	return pfr__ffi_mpsc_producer_index(p);
}

uint64_t pfr_mpsc_lost(const struct pfr_mpsc_producer *p)
{
	return pfr__ffi_mpsc_lost(p);
}

size_t pfr_mpsc_max_payload(const struct pfr_mpsc_producer *p)
{
	return pfr__ffi_mpsc_max_payload(p);
}

int64_t pfr_mpsc_begin(struct pfr_mpsc_reader *r)
{
	return pfr__ffi_mpsc_begin(r);
}

int pfr_mpsc_next(struct pfr_mpsc_reader *r, struct pfr_record *rec)
{
	return pfr__ffi_mpsc_next(r, rec);
}

void pfr_mpsc_end(struct pfr_mpsc_reader *r)
{
	pfr__ffi_mpsc_end(r);
}

/* --- <perfring/perf.h> --- */

uint64_t pfr_perf_u64(const uint64_t *p, uint64_t i)
{
	return pfr__ffi_perf_u64(p, i);
}

/* --- <perfring/group.h> --- */

/* PERFRING_0.3: fn's nonzero return stops (the callback stop rule);
 * src/abi/compat.c serves 0.2's. */
int64_t pfr__group_consume_v03(struct pfr_group *g, pfr_group_fn fn, void *arg,
			       uint32_t flags)
{
	return pfr__ffi_group_consume(g, fn, arg, flags);
}
PFR__SYMVER_DEFAULT(pfr__group_consume_v03, pfr_group_consume, "PERFRING_0.3");

/*
 * The size of a public struct an FFI caller allocates or lays out itself,
 * by its name without "struct " ("pfr_writer", "pfr_reader",
 * "pfr_record", "pfr_ring_opts", ...): a binding allocates the private
 * state structs by this size, and checks its own mirror of a struct it
 * reads or fills against it.  Returns 0 for an unknown name or NULL.
 * Concurrency: any thread.  Progress: wait-free.
 */
size_t pfr_ffi_sizeof(const char *type)
{
	static const struct {
		const char *name;
		size_t size;
	} t[] = {
#define PFR__FFI_SIZE(s) {#s, sizeof(struct s)}
		PFR__FFI_SIZE(pfr_writer),
		PFR__FFI_SIZE(pfr_reader),
		PFR__FFI_SIZE(pfr_record),
		PFR__FFI_SIZE(pfr_record_header),
		PFR__FFI_SIZE(pfr_ring_opts),
		PFR__FFI_SIZE(pfr_ring_attach_opts),
		PFR__FFI_SIZE(pfr_ring_stats),
		PFR__FFI_SIZE(pfr_ring_ctl),
		PFR__FFI_SIZE(pfr_mpsc_opts),
		PFR__FFI_SIZE(pfr_mpsc_producer),
		PFR__FFI_SIZE(pfr_mpsc_reader),
		PFR__FFI_SIZE(pfr_mpsc_stats),
		PFR__FFI_SIZE(pfr_group_opts),
		PFR__FFI_SIZE(pfr_group_stats),
		PFR__FFI_SIZE(pfr_group_iter),
#undef PFR__FFI_SIZE
	};

	for (size_t i = 0; type && i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(type, t[i].name))
			return t[i].size;
	return 0;
}
