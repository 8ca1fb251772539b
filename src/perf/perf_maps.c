/* SPDX-License-Identifier: MIT */
/*
 * Each process's mappings, shared copy-on-write between forked processes:
 * see perf_maps.h for the rules.
 */
#include <stdlib.h>
#include <string.h>

#include "perf/perf_maps.h"

static uint32_t pfr_pid_hash(uint32_t pid, uint32_t cap)
{
	return (pid * 2654435761u) & (cap - 1);
}

/* Doubles the table (or makes its first); 0 or -1. */
static int pfr_procs_grow(struct pfr__procs *ps)
{
	uint32_t nc = ps->cap ? 2 * ps->cap : 256, h;
	struct pfr__proc *n;

	if (nc < ps->cap)
		return -1; /* 2^31 processes: the pid space is smaller */
	n = calloc(nc, sizeof(*n));
	if (!n)
		return -1;
	for (uint32_t i = 0; i < ps->cap; i++) {
		if (!ps->tab[i].used)
			continue;
		for (h = pfr_pid_hash(ps->tab[i].pid, nc); n[h].used;
		     h = (h + 1) & (nc - 1))
			;
		n[h] = ps->tab[i];
	}
	free(ps->tab);
	ps->tab = n;
	ps->cap = nc;
	ps->last = NULL; /* it pointed into the old table */
	return 0;
}

struct pfr__proc *pfr__procs_get(struct pfr__procs *ps, uint32_t pid, int add)
{
	uint32_t h;

	if (ps->last && ps->last->pid == pid)
		return ps->last;
	if (!ps->cap && !add)
		return NULL;
	/* at most half full, so a probe always ends at a free slot */
	if (add && 2 * (ps->nr + 1) > ps->cap && pfr_procs_grow(ps))
		return NULL;
	for (h = pfr_pid_hash(pid, ps->cap); ps->tab[h].used;
	     h = (h + 1) & (ps->cap - 1))
		if (ps->tab[h].pid == pid)
			return ps->last = &ps->tab[h];
	if (!add)
		return NULL;
	ps->tab[h].used = 1;
	ps->tab[h].pid = pid;
	ps->tab[h].maps = NULL;
	ps->nr++;
	return ps->last = &ps->tab[h];
}

/* Drops one reference to a list: frees the nodes no one else holds. */
static void pfr_maps_put(struct pfr__map *m)
{
	while (m && --m->refs == 0) {
		struct pfr__map *older = m->older;

		free(m);
		m = older;
	}
}

int pfr__procs_mmap(struct pfr__procs *ps, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uintptr_t dso)
{
	struct pfr__proc *p = pfr__procs_get(ps, pid, 1);
	struct pfr__map *m;

	if (!p)
		return -1;
	m = malloc(sizeof(*m));
	if (!m)
		return -1;
	m->start = start;
	m->end = start + len;
	m->pgoff = pgoff;
	m->dso = dso;
	m->older = p->maps; /* the process's reference moves to m */
	m->refs = 1;
	p->maps = m;
	return 0;
}

void pfr__procs_fork(struct pfr__procs *ps, uint32_t child, uint32_t parent)
{
	struct pfr__proc *pp = pfr__procs_get(ps, parent, 0), *c;
	struct pfr__map *m;

	if (!pp || !pp->maps || child == parent)
		return;
	m = pp->maps; /* pp may move when the child is added */
	c = pfr__procs_get(ps, child, 1);
	if (!c || c->maps)
		return;
	m->refs++;
	c->maps = m;
}

void pfr__procs_exec(struct pfr__procs *ps, uint32_t pid)
{
	struct pfr__proc *p = pfr__procs_get(ps, pid, 0);

	if (p) {
		pfr_maps_put(p->maps);
		p->maps = NULL;
	}
}

const struct pfr__map *pfr__procs_find(struct pfr__procs *ps, uint32_t pid,
				       uint64_t addr)
{
	struct pfr__proc *p = pfr__procs_get(ps, pid, 0);

	for (const struct pfr__map *m = p ? p->maps : NULL; m; m = m->older)
		if (addr >= m->start && addr < m->end)
			return m;
	return NULL;
}

void pfr__procs_free(struct pfr__procs *ps)
{
	for (uint32_t i = 0; i < ps->cap; i++)
		if (ps->tab[i].used)
			pfr_maps_put(ps->tab[i].maps);
	free(ps->tab);
	memset(ps, 0, sizeof(*ps));
}
