/* SPDX-License-Identifier: MIT */
/*
 * Each process's mappings, a treap of disjoint pieces by address, shared
 * copy-on-write between forked processes: see perf_maps.h for the rules.
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

/* Drops one reference to a tree: frees the nodes no one else holds. */
static void pfr_maps_put(struct pfr__map *m)
{
	while (m && --m->refs == 0) {
		struct pfr__map *r = m->right;

		pfr_maps_put(m->left);
		free(m);
		m = r;
	}
}

static uint32_t pfr_height(const struct pfr__map *m)
{
	return m ? m->height : 0;
}

static void pfr_fix(struct pfr__map *m)
{
	uint32_t l = pfr_height(m->left), r = pfr_height(m->right);

	m->height = 1 + (l > r ? l : r);
}

/* A node from the pool (pfr_pool_fill() put enough there). */
static struct pfr__map *pfr_pool_take(struct pfr__procs *ps)
{
	struct pfr__map *m = ps->pool;

	ps->pool = m->right;
	ps->nr_pool--;
	return m;
}

/* At least n nodes in the pool: 0, or -1 when out of memory. */
static int pfr_pool_fill(struct pfr__procs *ps, size_t n)
{
	while (ps->nr_pool < n) {
		struct pfr__map *m = malloc(sizeof(*m));

		if (!m)
			return -1;
		m->right = ps->pool;
		ps->pool = m;
		ps->nr_pool++;
	}
	return 0;
}

/*
 * t, the caller holding a reference to it, made the caller's alone: t
 * itself when no one else holds it, else a copy (which takes references
 * to t's children) in place of the caller's reference to t.
 */
static struct pfr__map *pfr_own(struct pfr__procs *ps, struct pfr__map *t)
{
	struct pfr__map *c;

	if (t->refs == 1)
		return t;
	c = pfr_pool_take(ps);
	*c = *t;
	c->refs = 1;
	if (c->left)
		c->left->refs++;
	if (c->right)
		c->right->refs++;
	t->refs--;
	return c;
}

/* Splits t (the caller's reference) into the pieces starting below key
 * (*l) and the others (*r). */
static void pfr_split(struct pfr__procs *ps, struct pfr__map *t, uint64_t key,
		      struct pfr__map **l, struct pfr__map **r)
{
	if (!t) {
		*l = *r = NULL;
		return;
	}
	t = pfr_own(ps, t);
	if (t->start < key) {
		pfr_split(ps, t->right, key, &t->right, r);
		*l = t;
	} else {
		pfr_split(ps, t->left, key, l, &t->left);
		*r = t;
	}
	pfr_fix(t);
}

/* Joins two trees (the caller's references), every piece of l below
 * every piece of r. */
static struct pfr__map *pfr_merge(struct pfr__procs *ps, struct pfr__map *l,
				  struct pfr__map *r)
{
	if (!l || !r)
		return l ? l : r;
	if (l->prio >= r->prio) {
		l = pfr_own(ps, l);
		l->right = pfr_merge(ps, l->right, r);
		pfr_fix(l);
		return l;
	}
	r = pfr_own(ps, r);
	r->left = pfr_merge(ps, l, r->left);
	pfr_fix(r);
	return r;
}

static const struct pfr__map *pfr_tree_max(const struct pfr__map *t)
{
	while (t && t->right)
		t = t->right;
	return t;
}

/* The highest piece of *root, made the caller's (with the path to it). */
static struct pfr__map *pfr_own_max(struct pfr__procs *ps,
				    struct pfr__map **root)
{
	struct pfr__map **slot = root, *m;

	for (;;) {
		m = *slot = pfr_own(ps, *slot);
		if (!m->right)
			return m;
		slot = &m->right;
	}
}

/* xorshift32: the treap's priorities. */
static uint32_t pfr_prio(struct pfr__procs *ps)
{
	uint32_t x = ps->seed ? ps->seed : 0x9e3779b9u;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return ps->seed = x;
}

/* A new piece: [start, end) at pgoff of dso. */
static struct pfr__map *pfr_piece(struct pfr__procs *ps, uint64_t start,
				  uint64_t end, uint64_t pgoff, uintptr_t dso)
{
	struct pfr__map *m = pfr_pool_take(ps);

	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->dso = dso;
	m->left = m->right = NULL;
	m->prio = pfr_prio(ps);
	m->height = 1;
	m->refs = 1;
	return m;
}

/*
 * Puts [s, e) into the tree *root (the caller's reference), over what it
 * covers: the pieces starting inside it go, a piece running into it from
 * below is cut short, and the part of either that runs past e stays as
 * a piece of its own.
 */
static void pfr_tree_insert(struct pfr__procs *ps, struct pfr__map **root,
			    struct pfr__map *n)
{
	struct pfr__map *l, *mid, *r, *tail = NULL;
	const struct pfr__map *m;

	pfr_split(ps, *root, n->start, &l, &r);
	pfr_split(ps, r, n->end, &mid, &r);
	m = pfr_tree_max(l);
	if (m && m->end > n->start) { /* runs into n from below */
		struct pfr__map *w = pfr_own_max(ps, &l);

		if (w->end > n->end)
			tail = pfr_piece(ps, n->end, w->end,
					 w->pgoff + (n->end - w->start),
					 w->dso);
		w->end = n->start;
	}
	m = pfr_tree_max(mid);
	if (m && m->end > n->end) /* starts inside n, ends past it */
		tail = pfr_piece(ps, n->end, m->end,
				 m->pgoff + (n->end - m->start), m->dso);
	pfr_maps_put(mid);
	if (tail)
		r = pfr_merge(ps, tail, r); /* r starts past the tail's end */
	*root = pfr_merge(ps, pfr_merge(ps, l, n), r);
}

int pfr__procs_mmap(struct pfr__procs *ps, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uintptr_t dso)
{
	struct pfr__proc *p = pfr__procs_get(ps, pid, 1);

	if (!p)
		return -1;
	if (!len || start + len < start)
		return 0; /* maps nothing (and hid nothing before) */
	if (pfr_pool_fill(ps, PFR__MAPS_POOL(pfr_height(p->maps))))
		return -1;
	pfr_tree_insert(ps, &p->maps,
			pfr_piece(ps, start, start + len, pgoff, dso));
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
	const struct pfr__map *m = p ? p->maps : NULL, *best = NULL;

	while (m) { /* the last piece starting at or below addr */
		ps->steps++;
		if (addr < m->start) {
			m = m->left;
		} else {
			best = m;
			m = m->right;
		}
	}
	return best && addr < best->end ? best : NULL;
}

void pfr__procs_free(struct pfr__procs *ps)
{
	for (uint32_t i = 0; i < ps->cap; i++)
		if (ps->tab[i].used)
			pfr_maps_put(ps->tab[i].maps);
	free(ps->tab);
	while (ps->pool) {
		struct pfr__map *m = ps->pool;

		ps->pool = m->right;
		free(m);
	}
	memset(ps, 0, sizeof(*ps));
}
