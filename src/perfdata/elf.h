/* SPDX-License-Identifier: MIT */
/* Symbol tables of ELF files for `perfring script` and `perfring record
 * --print`, read with elfutils' libelf and libdw. */
#ifndef PFR_SRC_PERFDATA_ELF_H
#define PFR_SRC_PERFDATA_ELF_H

#include <stddef.h>
#include <stdint.h>

struct pfr__sym {
	uint64_t start, end;
	char *name;
	unsigned char bind; /* STB_* */
	size_t seq; /* order of addition: ties of equal starts keep it */
};

struct pfr__seg {
	uint64_t off, vaddr, filesz;
};

#define PFR_ELF_SEGS 16

/* A file's functions, sorted by start, and its PT_LOAD segments. */
struct pfr__symtab {
	struct pfr__sym *syms;
	size_t nsyms, cap;
	struct pfr__seg segs[PFR_ELF_SEGS];
	int nsegs;
};

/* Appends a symbol [start, start + size); size 0: up to the next one. */
void pfr__symtab_add(struct pfr__symtab *t, uint64_t start, uint64_t size,
		     const char *name, unsigned bind);
/* Sorts, keeps one symbol per address (perf's preference: sized, not
 * weak, global, fewer leading '_', longer name) and ends each size-0
 * symbol where the next begins.  Call once after the last add. */
/* Sorts and picks one name per address.  sizes_known 0 (kallsyms: no
 * sizes): as perf does, each size runs to the next symbol first, so of
 * several names at one address (aliases) the last listed wins; else (ELF)
 * the best by perf's rules, then sizes are filled in. */
void pfr__symtab_finish(struct pfr__symtab *t, int sizes_known);
/* The symbol holding address a, or NULL. */
const struct pfr__sym *pfr__symtab_find(const struct pfr__symtab *t,
					uint64_t a);
void pfr__symtab_free(struct pfr__symtab *t);

/*
 * Loads the PT_LOAD segments and the function symbols of the ELF file at
 * path into t: from its separate debug file under /usr/lib/debug/.build-id
 * when one is installed (as perf does), else its .symtab, else its
 * .dynsym.  The file is untrusted (named by a record): only a regular
 * file is opened, and libelf reads it (no mapping: a truncation meanwhile
 * is an error, not SIGBUS).  Returns the number of symbols loaded.
 */
size_t pfr__elf_load(struct pfr__symtab *t, const char *path);

/* The most bytes a demangled name may have (real C++ names stay far
 * below it); a name past it is shown mangled. */
#define PFR__DEMANGLE_MAX (64u << 10)

/* The demangled name of a C++ or Rust symbol as perf script shows it
 * (libiberty's cplus_demangle without parameters), malloc'ed; NULL when
 * name is not mangled, or when its demangled form would be longer than
 * PFR__DEMANGLE_MAX (the work stops at the cap). */
char *pfr__demangle(const char *name);

#endif
