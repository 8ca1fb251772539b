/* SPDX-License-Identifier: MIT */
/* User call chains of `--call-graph dwarf` samples, unwound from the
 * recorded registers and stack with elfutils' libdwfl (as perf's
 * unwind-libdw does), and the functions inlined at an address (libdw's
 * scopes). */
#ifndef PFR_SRC_PERFDATA_UNWIND_H
#define PFR_SRC_PERFDATA_UNWIND_H

#include <linux/perf_event.h>
#include <stdint.h>

#include <perfring/perf.h>

struct pfr__unwind;

/* The mapping of addr in process pid: 0 with its start, end, file offset
 * and file; -1 when there is none. */
typedef int (*pfr__unwind_map_fn)(void *arg, uint32_t pid, uint64_t addr,
				  uint64_t *start, uint64_t *end,
				  uint64_t *pgoff, const char **path);

/* The user registers and stack a sample carries (pointers into it). */
struct pfr__ustack {
	uint64_t abi, mask;
	const unsigned char *regs; /* popcount(mask) u64s, maybe unaligned */
	const unsigned char *stack;
	uint64_t size; /* bytes of stack valid (the dynamic size) */
};

/* Finds the REGS_USER and STACK_USER fields of a sample of attr decoded
 * as r from (payload, len).  Returns 0, or -1 when the sample has none or
 * they run past it. */
int pfr__ustack_get(const struct perf_event_attr *attr,
		    const struct pfr_perf_rec *r, const void *payload,
		    uint32_t len, struct pfr__ustack *us);

struct pfr__unwind *pfr__unwind_new(pfr__unwind_map_fn fn, void *arg);
void pfr__unwind_free(struct pfr__unwind *u);

/* Unwinds process pid's user stack: writes at most max return addresses
 * into ips (the interrupted ip first; each caller's address one byte into
 * its call, as perf shows it) and returns how many. */
int pfr__unwind_user(struct pfr__unwind *u, uint32_t pid,
		     const struct pfr__ustack *us, uint64_t *ips, int max);

/* The chain of functions at link-time address addr of the ELF file at
 * path from its DWARF, innermost (inlined) first, the function holding
 * them last, named as perf 6.1 names them (its addr2line's names,
 * demangled; sym, the ELF symbol's name, starting at sym_start, where
 * a name is missing): the first answer for an address stays: writes
 * at most max malloc'ed names, returns how many (0: no line information
 * there). */
int pfr__unwind_inlines(struct pfr__unwind *u, const char *path, uint64_t addr,
			const char *sym, uint64_t sym_start, char **names,
			int max);

#endif
