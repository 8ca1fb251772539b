/* SPDX-License-Identifier: MIT */
/*
 * Internal: each process's mappings, followed through perf's MMAP, FORK
 * and exec COMM records (src/perf/perf_maps.c).  The perf.data writer uses it
 * to tell which files samples hit; the CLI's printer to resolve symbols.
 *
 * A process's address space is a set of disjoint pieces ordered by
 * address, held in a treap (a binary search tree kept balanced by random
 * priorities), so that a lookup costs O(log n) in the n pieces.  An MMAP
 * hides what it covers, as mmap does: the older pieces it overlaps are
 * cut or removed (a piece cut at its front keeps its file offset right:
 * pgoff + the bytes cut), so each record adds at most two pieces and a
 * lookup finds the newest mapping at an address.
 *
 * The trees are persistent: nodes are shared between processes (a
 * reference count each), and a forked child takes a reference to its
 * parent's root and copies nothing.  A change copies only the nodes on
 * the paths it walks that someone else still holds (path copying), and
 * mutates in place the ones it holds alone; an exec drops the process's
 * reference.  So a FORK costs O(1) and an MMAP O(log n) time and memory,
 * whatever the mix of FORK and MMAP records.  The nodes a change may copy
 * are set aside before it starts (at most PFR__MAPS_POOL(height)), so
 * that running out of memory leaves the mappings as they were.
 * Processes are found by pid in an open-addressing table.
 *
 * Not thread-safe: one thread per struct pfr__procs.
 */
#ifndef PFR_SRC_PERF_MAPS_H
#define PFR_SRC_PERF_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct pfr__map {
	uint64_t start, end, pgoff; /* [start, end) at file offset pgoff */
	uintptr_t dso; /* the caller's: an index or a pointer */
	struct pfr__map *left, *right; /* lower and higher addresses */
	uint32_t prio; /* treap priority: no child's is higher */
	uint32_t height; /* of the subtree: 1 for a leaf */
	size_t refs; /* roots and parent nodes pointing here */
};

/* The most nodes one MMAP copies or adds in a tree of height h: two
 * splits, a walk to the piece below and three joins each walk at most h
 * nodes, plus the new piece and a cut-off tail. */
#define PFR__MAPS_POOL(h) (8 * ((size_t)(h) + 1) + 2)

struct pfr__proc {
	uint32_t pid, used;
	struct pfr__map *maps; /* root of its tree (a reference), or NULL */
};

struct pfr__procs {
	struct pfr__proc *tab, *last;
	uint32_t nr, cap;
	uint32_t seed; /* of the treap priorities (deterministic) */
	struct pfr__map *pool; /* spare nodes, linked by right */
	size_t nr_pool;
	uint64_t steps; /* tree nodes visited by lookups, for the tests */
};

/* Process pid, added (with no mappings) when add is set; NULL when absent
 * or out of memory.  The pointer is valid until the next call with add
 * set. */
struct pfr__proc *pfr__procs_get(struct pfr__procs *ps, uint32_t pid, int add);
/* An MMAP: [start, start + len) of dso at file offset pgoff into pid (an
 * empty or wrapping range maps nothing).  0, or -1 when out of memory
 * (pid's mappings are then unchanged). */
int pfr__procs_mmap(struct pfr__procs *ps, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uintptr_t dso);
/* A FORK: a child without mappings of its own starts with its parent's
 * (shared); a child that already has some keeps them.  Threads of one
 * process (child == parent) share the process's mappings already. */
void pfr__procs_fork(struct pfr__procs *ps, uint32_t child, uint32_t parent);
/* An exec: pid's address space starts empty. */
void pfr__procs_exec(struct pfr__procs *ps, uint32_t pid);
/* The newest mapping of pid holding addr, or NULL: start, end and pgoff
 * are the piece's (addr - start + pgoff is addr's file offset).  Valid
 * until the next MMAP, FORK or exec. */
const struct pfr__map *pfr__procs_find(struct pfr__procs *ps, uint32_t pid,
				       uint64_t addr);
/* Frees every process and mapping; *ps is empty (and reusable) after. */
void pfr__procs_free(struct pfr__procs *ps);

#endif
