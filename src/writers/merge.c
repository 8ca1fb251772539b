/* SPDX-License-Identifier: MIT */
/*
 * The time-ordered merge (<perfring/merge.h>): a queue of copied records,
 * sorted lazily by (time, arrival) with a natural merge sort of runs, and
 * flushed up to a time limit.
 *
 * Records are copied into an arena in arrival order; the queue holds
 * (time, seq, offset) entries.  A flush sorts the entries, delivers the
 * prefix up to the limit, and copies the records it keeps into a second
 * arena in their sorted order (the two arenas swap), so the kept entries
 * form one sorted run for the next flush.
 */
#include <stdlib.h>
#include <string.h>

#include <perfring/merge.h>

#include "ring/compiler.h"

struct pfr__mq {
	uint64_t time, seq;
	uint64_t off; /* record (header + payload) in the arena */
	uint32_t source;
};

struct pfr_merge {
	struct pfr__mq *q, *tmp;
	size_t n, cap;
	unsigned char *arena, *spare;
	size_t arena_len, arena_cap, spare_cap;
	uint64_t seq;
	uint64_t *reached; /* per source: newest time reached */
	unsigned char *open; /* per source: may still produce */
	uint32_t nsources;
	uint64_t max_bytes; /* cap on pfr__held() (0: none) */
	struct pfr_merge_stats st;
};

/* What the queue holds against its cap: the records' bytes and their two
 * index entries (the queue and the sort's buffer). */
static uint64_t pfr__held(size_t n, size_t bytes)
{
	return (uint64_t)bytes + (uint64_t)n * 2 * sizeof(struct pfr__mq);
}

int pfr_merge_create(struct pfr_merge **mp, uint32_t nsources)
{
	struct pfr_merge *m;
	int err;

	if (!mp)
		return -PFR_E_INVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -PFR_E_SYSTEM;
	err = pfr_merge_set_sources(m, nsources);
	if (err) {
		free(m);
		return err;
	}
	*mp = m;
	return 0;
}

void pfr_merge_destroy(struct pfr_merge *m)
{
	if (!m)
		return;
	free(m->q);
	free(m->tmp);
	free(m->arena);
	free(m->spare);
	free(m->reached);
	free(m->open);
	free(m);
}

int pfr_merge_set_sources(struct pfr_merge *m, uint32_t nsources)
{
	uint64_t *r;
	unsigned char *o;

	if (!m || nsources > (1u << 24))
		return -PFR_E_INVAL;
	for (size_t i = 0; i < m->n; i++)
		if (m->q[i].source >= nsources)
			return -PFR_E_INVAL;
	r = realloc(m->reached, (nsources ? nsources : 1) * sizeof(*r));
	if (!r)
		return -PFR_E_SYSTEM;
	m->reached = r;
	o = realloc(m->open, nsources ? nsources : 1);
	if (!o)
		return -PFR_E_SYSTEM;
	m->open = o;
	for (uint32_t i = m->nsources; i < nsources; i++) {
		r[i] = 0;
		o[i] = 1;
	}
	m->nsources = nsources;
	return 0;
}

static int pfr__grow(unsigned char **buf, size_t *cap, size_t need)
{
	size_t nc = *cap ? *cap : 1u << 16;
	unsigned char *n;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	n = realloc(*buf, nc);
	if (!n)
		return -PFR_E_SYSTEM;
	*buf = n;
	*cap = nc;
	return 0;
}

int pfr_merge_push(struct pfr_merge *m, const struct pfr_record_header *hdr,
		   const void *payload, uint32_t len, uint64_t time,
		   uint32_t source)
{
	uint32_t size;
	struct pfr__mq *e;

	if (!m || !hdr || (len && !payload))
		return -PFR_E_INVAL;
	size = hdr->size;
	if (size < sizeof(*hdr) || (size & 7) || size > PFR_RECORD_MAX ||
	    len > size - sizeof(*hdr) || size - sizeof(*hdr) - len >= 8 ||
	    (source >= m->nsources && m->nsources))
		return -PFR_E_INVAL;
	if (m->max_bytes &&
	    pfr__held(m->n + 1, m->arena_len + size) > m->max_bytes)
		return -PFR_E_NOSPC;
	if (pfr__grow(&m->arena, &m->arena_cap, m->arena_len + size))
		return -PFR_E_SYSTEM;
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 1024;
		struct pfr__mq *n = realloc(m->q, nc * sizeof(*n));

		if (!n)
			return -PFR_E_SYSTEM;
		m->q = n;
		n = realloc(m->tmp, nc * sizeof(*n));
		if (!n)
			return -PFR_E_SYSTEM;
		m->tmp = n;
		m->cap = nc;
	}
	memcpy(m->arena + m->arena_len, hdr, sizeof(*hdr));
	if (len)
		memcpy(m->arena + m->arena_len + sizeof(*hdr), payload, len);
	/* the rounding bytes: defined, not stale arena bytes */
	memset(m->arena + m->arena_len + sizeof(*hdr) + len, 0,
	       size - sizeof(*hdr) - len);
	e = &m->q[m->n++];
	e->time = time;
	e->seq = m->seq++;
	e->off = m->arena_len;
	e->source = source;
	m->arena_len += size;
	m->st.pushed++;
	m->st.queued = m->n;
	m->st.queued_bytes = m->arena_len;
	if (m->n > m->st.max_queued)
		m->st.max_queued = m->n;
	if (m->arena_len > m->st.max_queued_bytes)
		m->st.max_queued_bytes = m->arena_len;
	if (m->nsources)
		pfr_merge_reached(m, source, time);
	return 0;
}

static int pfr__before(const struct pfr__mq *a, const struct pfr__mq *b)
{
	return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/*
 * Sorts the queue by (time, seq).  It holds runs already in order (the
 * sorted leftovers of the last flush, then each source's records of a
 * pass), so a natural merge sort takes a few linear passes where a
 * comparison sort would take n log n.  Stable: runs are in seq order and a
 * tie takes the left run (seq breaks ties anyway).
 */
static int pfr__sort(struct pfr_merge *m)
{
	struct pfr__mq *a = m->q, *t = m->tmp;
	size_t n = m->n, nb = 0, *bounds;

	for (size_t i = 1; i < n; i++)
		if (pfr__before(&a[i], &a[i - 1]))
			nb++;
	if (!nb)
		return 0; /* one run: sorted */
	bounds = malloc((nb + 2) * sizeof(*bounds));
	if (!bounds)
		return -PFR_E_SYSTEM;
	nb = 0;
	bounds[nb++] = 0;
	for (size_t i = 1; i < n; i++)
		if (pfr__before(&a[i], &a[i - 1]))
			bounds[nb++] = i;
	bounds[nb] = n; /* runs are [bounds[k], bounds[k + 1]) */
	while (nb > 1) {
		size_t k, r = 0;
		struct pfr__mq *sw;

		for (k = 0; k + 1 < nb; k += 2) {
			size_t i = bounds[k], ie = bounds[k + 1];
			size_t j = ie, je = bounds[k + 2], o = i;

			while (i < ie && j < je)
				t[o++] = pfr__before(&a[j], &a[i]) ? a[j++]
								   : a[i++];
			while (i < ie)
				t[o++] = a[i++];
			while (j < je)
				t[o++] = a[j++];
			bounds[r++] = bounds[k];
		}
		if (k < nb) { /* an odd run out: copied as it is */
			memcpy(t + bounds[k], a + bounds[k],
			       (bounds[k + 1] - bounds[k]) * sizeof(*a));
			bounds[r++] = bounds[k];
		}
		bounds[r] = n;
		nb = r;
		sw = a;
		a = t;
		t = sw;
	}
	m->q = a;
	m->tmp = t;
	free(bounds);
	return 0;
}

int64_t pfr_merge_flush(struct pfr_merge *m, uint64_t limit, pfr_merge_fn fn,
			void *arg)
{
	size_t i, k, keep = 0;
	int64_t done = 0;
	int rc = 0;

	if (!m)
		return -PFR_E_INVAL;
	if (!m->n)
		return 0;
	if (pfr__sort(m))
		return -PFR_E_SYSTEM;
	for (i = 0; i < m->n && m->q[i].time <= limit; i++) {
		const struct pfr__mq *e = &m->q[i];
		struct pfr_merge_rec r;

		r.hdr = (const struct pfr_record_header *)(m->arena + e->off);
		r.payload = m->arena + e->off + sizeof(*r.hdr);
		r.len = r.hdr->size - (uint32_t)sizeof(*r.hdr);
		r.source = e->source;
		r.time = e->time;
		r.seq = e->seq;
		done++;
		rc = fn ? fn(arg, &r) : 0;
		if (rc < 0) {
			i++;
			break;
		}
	}
	m->st.delivered += (uint64_t)done;
	if (done)
		m->st.flushes++;
	if (i == m->n) {
		m->n = 0;
		m->arena_len = 0;
	} else if (i) {
		/* Keep the later records, compacted in sorted order into the
		 * spare arena (the arenas then swap): one run next time. */
		for (k = i; k < m->n; k++) {
			const struct pfr_record_header *h =
				(const void *)(m->arena + m->q[k].off);

			keep += h->size;
		}
		if (pfr__grow(&m->spare, &m->spare_cap, keep)) {
			/* cannot compact: keep the entries where they are */
			memmove(m->q, m->q + i, (m->n - i) * sizeof(*m->q));
			m->n -= i;
		} else {
			unsigned char *sw;
			size_t c;

			keep = 0;
			for (k = i; k < m->n; k++) {
				struct pfr__mq e = m->q[k];
				const struct pfr_record_header *h =
					(const void *)(m->arena + e.off);

				memcpy(m->spare + keep, h, h->size);
				e.off = keep;
				keep += h->size;
				m->q[k - i] = e;
			}
			m->n -= i;
			sw = m->arena;
			m->arena = m->spare;
			m->spare = sw;
			c = m->arena_cap;
			m->arena_cap = m->spare_cap;
			m->spare_cap = c;
			m->arena_len = keep;
		}
	}
	m->st.queued = m->n;
	m->st.queued_bytes = m->arena_len;
	return rc < 0 ? rc : done;
}

int64_t pfr_merge_flush_all(struct pfr_merge *m, pfr_merge_fn fn, void *arg)
{
	return pfr_merge_flush(m, UINT64_MAX, fn, arg);
}

int pfr_merge_set_max_bytes(struct pfr_merge *m, uint64_t max_bytes)
{
	if (!m)
		return -PFR_E_INVAL;
	m->max_bytes = max_bytes;
	return 0;
}

void pfr_merge_reached(struct pfr_merge *m, uint32_t source, uint64_t time)
{
	if (m && source < m->nsources && time > m->reached[source])
		m->reached[source] = time;
}

void pfr_merge_close_source(struct pfr_merge *m, uint32_t source)
{
	if (m && source < m->nsources)
		m->open[source] = 0;
}

void pfr_merge_open_source(struct pfr_merge *m, uint32_t source, uint64_t time)
{
	if (m && source < m->nsources) {
		m->open[source] = 1;
		m->reached[source] = time;
	}
}

uint64_t pfr_merge_safe_limit(const struct pfr_merge *m)
{
	uint64_t lim = UINT64_MAX;

	for (uint32_t i = 0; m && i < m->nsources; i++)
		if (m->open[i] && m->reached[i] < lim)
			lim = m->reached[i];
	return lim;
}

int64_t pfr_merge_flush_safe(struct pfr_merge *m, pfr_merge_fn fn, void *arg)
{
	if (!m)
		return -PFR_E_INVAL;
	return pfr_merge_flush(m, pfr_merge_safe_limit(m), fn, arg);
}

void pfr_merge_stats(const struct pfr_merge *m, struct pfr_merge_stats *st)
{
	if (!st)
		return;
	if (!m)
		memset(st, 0, sizeof(*st));
	else
		*st = m->st;
}
