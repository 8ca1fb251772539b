/* SPDX-License-Identifier: MIT */
/*
 * Each process's mappings (src/perf/perf_maps.c), against a plain model:
 * a list per process, newest first, copied at FORK and emptied at exec,
 * whose first mapping holding an address is the answer.  Random MMAP,
 * FORK, exec and lookups over a few processes and a small address range
 * (so that mappings overlap, cut and hide each other) must give the
 * model's mapping and file offset every time.
 *
 * The cost of a lookup is counted, not timed: 50,000 mappings placed top
 * down in one process (as mmap places them) and 200,000 lookups must visit
 * at most 4 log2(n) + 8 tree nodes per lookup on average (a walk of the
 * mappings visits n / 2), and a chain of processes each forking the next
 * and mapping one more file must cost O(log n) nodes per MMAP, not a copy
 * of its parent's mappings.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf/perf_maps.h"
#include "tap.h"

#define NPROC 6

struct model_map {
	uint64_t start, end, pgoff;
	uintptr_t dso;
};

struct model {
	struct model_map *m[NPROC]; /* newest last */
	size_t n[NPROC];
	int has[NPROC]; /* known to the table (FORK needs the parent's) */
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void model_mmap(struct model *md, int p, struct model_map x)
{
	md->m[p] = realloc(md->m[p], (md->n[p] + 1) * sizeof(x));
	md->m[p][md->n[p]++] = x;
}

static const struct model_map *model_find(const struct model *md, int p,
					  uint64_t a)
{
	for (size_t i = md->n[p]; i-- > 0;)
		if (a >= md->m[p][i].start && a < md->m[p][i].end)
			return &md->m[p][i];
	return NULL;
}

/* One random step on both; 0 when a lookup disagreed. */
static int step(struct pfr__procs *ps, struct model *md)
{
	int p = (int)(rnd() % NPROC), q = (int)(rnd() % NPROC);
	uint64_t a = rnd() % 4096, r = rnd() % 100;

	if (r < 30) {
		struct model_map x = {a, a + 1 + rnd() % 512, rnd() % 100000,
				      (uintptr_t)(rnd() % 1000)};

		if (pfr__procs_mmap(ps, (uint32_t)p + 1, x.start,
				    x.end - x.start, x.pgoff, x.dso))
			return 0;
		model_mmap(md, p, x);
	} else if (r < 34) {
		/* a child without mappings of its own takes its parent's */
		pfr__procs_fork(ps, (uint32_t)q + 1, (uint32_t)p + 1);
		if (p != q && md->n[p] && !md->n[q]) {
			free(md->m[q]); /* emptied by an exec, maybe */
			md->m[q] = malloc(md->n[p] * sizeof(*md->m[p]));
			memcpy(md->m[q], md->m[p],
			       md->n[p] * sizeof(*md->m[p]));
			md->n[q] = md->n[p];
		}
	} else if (r < 36) {
		pfr__procs_exec(ps, (uint32_t)p + 1);
		md->n[p] = 0;
	} else {
		const struct pfr__map *g =
			pfr__procs_find(ps, (uint32_t)p + 1, a);
		const struct model_map *w = model_find(md, p, a);

		if (!g != !w)
			return 0;
		if (g && (g->dso != w->dso ||
			  a - g->start + g->pgoff != a - w->start + w->pgoff ||
			  a < g->start || a >= g->end))
			return 0;
	}
	return 1;
}

static void check_model(void)
{
	struct pfr__procs ps;
	struct model md;
	long bad = -1;

	memset(&ps, 0, sizeof(ps));
	memset(&md, 0, sizeof(md));
	for (long i = 0; i < 300000 && bad < 0; i++)
		if (!step(&ps, &md))
			bad = i;
	ok(bad < 0,
	   "300,000 random MMAP/FORK/exec/lookups agree with the "
	   "model (first disagreement at step %ld)",
	   bad);
	pfr__procs_free(&ps);
	for (int p = 0; p < NPROC; p++)
		free(md.m[p]);
}

static void check_lookup_cost(void)
{
	const uint64_t n = 50000, nl = 200000, top = 0x7f0000000000ULL;
	struct pfr__procs ps;
	uint64_t bad = 0, x = 1;
	double per, limit = 8;

	for (uint64_t v = n; v > 1; v >>= 1)
		limit += 4; /* 4 log2(n) + 8 */
	memset(&ps, 0, sizeof(ps));
	for (uint64_t i = 0; i < n; i++)
		pfr__procs_mmap(&ps, 1, top - i * 0x10000, 0x1000, 0,
				(uintptr_t)i);
	for (uint64_t i = 0; i < nl; i++) {
		const struct pfr__map *m;
		uint64_t k;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		k = (x >> 33) % n;
		m = pfr__procs_find(&ps, 1, top - k * 0x10000 + 8);
		bad += !m || m->dso != k;
	}
	per = (double)ps.steps / (double)nl;
	ok(!bad, "every one of %llu lookups in %llu mappings finds its own",
	   (unsigned long long)nl, (unsigned long long)n);
	ok(per <= limit,
	   "a lookup visits %.1f nodes on average (at most %.1f: O(log n); "
	   "a walk visits about %llu)",
	   per, limit, (unsigned long long)n / 2);
	pfr__procs_free(&ps);
}

/* pid i maps one more file, then forks pid i + 1, which inherits all:
 * the heap must grow by O(log n) nodes per MMAP, not O(n). */
static void check_fork_chain(void)
{
	const uint32_t n = 20000;
	struct pfr__procs ps;
	size_t before = mallinfo2().uordblks, used;
	uint64_t bad = 0;

	memset(&ps, 0, sizeof(ps));
	for (uint32_t i = 0; i < n; i++) {
		pfr__procs_mmap(&ps, 10 + i, 0x10000ULL * (i + 1), 0x1000, 0,
				(uintptr_t)i);
		pfr__procs_fork(&ps, 11 + i, 10 + i);
	}
	for (uint32_t i = 0; i < n; i += 97) {
		const struct pfr__map *m =
			pfr__procs_find(&ps, 10 + n, 0x10000ULL * (i + 1));

		bad += !m || m->dso != i;
	}
	used = mallinfo2().uordblks - before;
	ok(!bad,
	   "the last of a chain of %u forks sees every ancestor's "
	   "mapping",
	   n);
	ok(used / n <= 64 * sizeof(struct pfr__map),
	   "a chain of %u FORK + MMAP uses %zu bytes per MMAP (at most 64 "
	   "nodes of %zu: O(log n), not a copy of the parent's)",
	   n, used / n, sizeof(struct pfr__map));
	pfr__procs_free(&ps);
}

int main(void)
{
	check_model();
	check_lookup_cost();
	check_fork_chain();
	return tap_done();
}
