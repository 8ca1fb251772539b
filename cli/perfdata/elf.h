/* SPDX-License-Identifier: MIT */
/* Symbol tables of ELF files for `perfring script` and `perfring record
 * --print`, read with elfutils' libelf and libdw. */
#ifndef PFR_CLI_PERF_ELF_H
#define PFR_CLI_PERF_ELF_H

#include <stddef.h>
#include <stdint.h>

struct cli_sym {
	uint64_t start, end;
	char *name;
	unsigned char bind; /* STB_* */
	size_t seq; /* order of addition: ties of equal starts keep it */
};

struct cli_seg {
	uint64_t off, vaddr, filesz;
};

#define PFR_ELF_SEGS 16

/* A file's functions, sorted by start, and its PT_LOAD segments. */
struct cli_symtab {
	struct cli_sym *syms;
	size_t nsyms, cap;
	struct cli_seg segs[PFR_ELF_SEGS];
	int nsegs;
};

/* Appends a symbol [start, start + size); size 0: up to the next one. */
void cli_symtab_add(struct cli_symtab *t, uint64_t start, uint64_t size,
		    const char *name, unsigned bind);
/* Sorts, keeps one symbol per address (perf's preference: sized, not
 * weak, global, fewer leading '_', longer name) and ends each size-0
 * symbol where the next begins.  Call once after the last add. */
/* Sorts and picks one name per address.  sizes_known 0 (kallsyms: no
 * sizes): as perf does, each size runs to the next symbol first, so of
 * several names at one address (aliases) the last listed wins; else (ELF)
 * the best by perf's rules, then sizes are filled in. */
void cli_symtab_finish(struct cli_symtab *t, int sizes_known);
/* The symbol holding address a, or NULL. */
const struct cli_sym *cli_symtab_find(const struct cli_symtab *t, uint64_t a);
void cli_symtab_free(struct cli_symtab *t);

/*
 * Loads the PT_LOAD segments and the function symbols of the ELF file at
 * path into t: from its separate debug file under /usr/lib/debug/.build-id
 * when one is installed (as perf does), else its .symtab, else its
 * .dynsym.  The file is untrusted (named by a record): only a regular
 * file is opened, and libelf reads it (no mapping: a truncation meanwhile
 * is an error, not SIGBUS).  Returns the number of symbols loaded.
 */
size_t cli_elf_load(struct cli_symtab *t, const char *path);

/* The most bytes a demangled name may have (real C++ names stay far
 * below it); a name past it is shown mangled. */
#define CLI_DEMANGLE_MAX (64u << 10)

/* The demangled name of a C++ or Rust symbol as perf script shows it
 * (libiberty's cplus_demangle without parameters), malloc'ed; NULL when
 * name is not mangled, or when its demangled form would be longer than
 * CLI_DEMANGLE_MAX (the work stops at the cap). */
char *cli_demangle(const char *name);

#endif
