/* SPDX-License-Identifier: MIT */
/*
 * Internal: each process's mappings, followed through perf's MMAP, FORK
 * and exec COMM records (src/perf/perf_maps.c).  The perf.data writer uses it
 * to tell which files samples hit; the CLI's printer to resolve symbols.
 *
 * A process's mappings are a list, newest first, whose nodes are
 * immutable and shared: a forked child takes a reference to its parent's
 * list and copies nothing; an MMAP puts one node in front of the
 * process's own head; an exec drops the process's reference.  So each
 * record costs O(1) memory whatever the mix of FORK and MMAP records
 * (copying the parent's mappings at each FORK made it quadratic), and a
 * node lives while a process's list reaches it.  A lookup walks newest
 * first: a later mapping hides an earlier one at the same address, as
 * mmap does.  Processes are found by pid in an open-addressing table.
 *
 * Not thread-safe: one thread per struct pfr__procs.
 */
#ifndef PFR_SRC_PERF_MAPS_H
#define PFR_SRC_PERF_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct pfr__map {
	uint64_t start, end, pgoff;
	uintptr_t dso; /* the caller's: an index or a pointer */
	struct pfr__map *older;
	size_t refs; /* processes' heads and newer nodes pointing here */
};

struct pfr__proc {
	uint32_t pid, used;
	struct pfr__map *maps; /* newest first, shared */
};

struct pfr__procs {
	struct pfr__proc *tab, *last;
	uint32_t nr, cap;
};

/* Process pid, added (with no mappings) when add is set; NULL when absent
 * or out of memory.  The pointer is valid until the next call with add
 * set. */
struct pfr__proc *pfr__procs_get(struct pfr__procs *ps, uint32_t pid, int add);
/* An MMAP: [start, start + len) of dso at file offset pgoff into pid.
 * 0, or -1 when out of memory. */
int pfr__procs_mmap(struct pfr__procs *ps, uint32_t pid, uint64_t start,
		    uint64_t len, uint64_t pgoff, uintptr_t dso);
/* A FORK: a child without mappings of its own starts with its parent's
 * (shared); a child that already has some keeps them.  Threads of one
 * process (child == parent) share the process's mappings already. */
void pfr__procs_fork(struct pfr__procs *ps, uint32_t child, uint32_t parent);
/* An exec: pid's address space starts empty. */
void pfr__procs_exec(struct pfr__procs *ps, uint32_t pid);
/* The newest mapping of pid holding addr, or NULL. */
const struct pfr__map *pfr__procs_find(struct pfr__procs *ps, uint32_t pid,
				       uint64_t addr);
/* Frees every process and mapping; *ps is empty (and reusable) after. */
void pfr__procs_free(struct pfr__procs *ps);

#endif
