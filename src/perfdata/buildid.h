/* SPDX-License-Identifier: MIT */
/* The build-id side of a recording, as perf has it: the HEADER_BUILD_ID
 * feature read back from a perf.data file, the build-id cache perf keeps
 * ($HOME/.debug, or --buildid-dir; its layout below) filled after a
 * recording, and the file script loads a DSO's symbols from when the one
 * at its path is gone or has been rebuilt.  ELF is read with elfutils. */
#ifndef PFR_SRC_PERFDATA_BUILDID_H
#define PFR_SRC_PERFDATA_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* One HEADER_BUILD_ID entry. */
struct pfr__bid {
	unsigned char id[20];
	size_t len; /* bytes of id used, 1..20 */
	uint16_t misc; /* PERF_RECORD_MISC_KERNEL or _USER (cpumode) */
	int32_t pid; /* -1: the host */
	char *name; /* "/path", "[kernel.kallsyms]" or "[vdso]" */
};

struct pfr__bids {
	struct pfr__bid *v;
	size_t n;
};

/*
 * Reads the HEADER_BUILD_ID feature of the perf.data file at path (the
 * file format; a pipe has none) into b, which starts zeroed.  Returns the
 * number of entries (0: no such feature), or -1 when the file cannot be
 * read or the feature is malformed (b then holds none).
 */
int pfr__bids_read(struct pfr__bids *b, const char *path);
void pfr__bids_free(struct pfr__bids *b);

/*
 * The build-id cache's directory: dir when given, else
 * $PERF_BUILDID_DIR (which perf sets for the commands it runs), else
 * $HOME/.debug (perf's default), else ".debug".  Written to buf (n
 * bytes); returns buf, or NULL when it does not fit.
 */
char *pfr__bid_cache_dir(const char *dir, char *buf, size_t n);

/*
 * Adds the objects of b to the build-id cache at dir as perf record does:
 * for a file, DIR/<its real path>/<build-id>/elf (a hard link to the
 * file, else a copy), .../debug (the installed separate debug file, when
 * there is one with .debug_info) and .../probes (perf's SDT list; empty);
 * for the kernel, DIR/[kernel.kallsyms]/<build-id>/kallsyms (a copy of
 * /proc/kallsyms); for the vdso, DIR/[vdso]/<build-id>/vdso (this
 * process's vdso image) and probes; and for each, the link
 * DIR/.build-id/<2 hex>/<rest> -> ../../<path>/<build-id>.  An object
 * whose current build id is not the one recorded (rebuilt meanwhile) is
 * left out, as is a guest's.  Returns 0, or -1 with errno set from the
 * first object that could not be added (the others are still tried).
 */
int pfr__bid_cache_add(const struct pfr__bids *b, const char *dir);

/*
 * The file whose symbols name's samples resolve to, as perf script
 * picks it: name itself when b does not list it or when its build id is
 * the recorded one; else (the file gone, or rebuilt) the cache's copy
 * DIR/.build-id/<2 hex>/<rest>/elf when it has that build id, written to
 * buf (n bytes).  "[vdso]" resolves to the cache's .../vdso only; another
 * name that is no path ("[heap]"), to itself.  NULL: no file has the
 * recorded build id (the samples stay unresolved, as in perf).
 */
const char *pfr__bid_symfile(const struct pfr__bids *b, const char *dir,
			     const char *name, char *buf, size_t n);

/*
 * The kallsyms file the kernel's samples resolve through, as perf script
 * picks it: /proc/kallsyms when b lists no kernel or the running kernel's
 * build id (/sys/kernel/notes) is the recorded one; else the cache's
 * DIR/[kernel.kallsyms]/<build-id>/kallsyms, written to buf (n bytes),
 * when it is there; else NULL (no kernel symbols, as in perf).
 */
const char *pfr__bid_kallsyms(const struct pfr__bids *b, const char *dir,
			      char *buf, size_t n);

#endif
