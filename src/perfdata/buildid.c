// SPDX-License-Identifier: MIT
/*
 * Build ids after a recording and before symbols: HEADER_BUILD_ID read
 * back, perf's build-id cache written, and the cache's copy of a DSO
 * chosen when the file at its path is no longer the one recorded.
 *
 * The cache's layout is perf's (tools/perf/util/build-id.c describes it;
 * here it was compared with `find` on the tree perf 6.1 writes): every
 * object under DIR/<path>/<hex build id>/, the kernel's path being
 * "[kernel.kallsyms]" and the vdso's "[vdso]", and a relative symbolic
 * link DIR/.build-id/<2 hex>/<the other hex> to that directory.
 */
#ifndef PFR_NO_SCRIPT_LIBS
#include <elfutils/libdwelf.h>
#include <gelf.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../util/util.h"
#include "buildid.h"

#define PFR_BID_FEAT 2 /* HEADER_BUILD_ID's bit */
#define PFR_BID_MISC_SIZE (1u << 15) /* the id's length is in the entry */
#define PFR_BID_MAX (64u << 20) /* a larger feature is malformed */

/* --- HEADER_BUILD_ID --- */

struct pfr_bid_sec {
	uint64_t off, size;
};

/* perf's struct perf_file_header, the fields used here. */
struct pfr_bid_fhdr {
	char magic[8];
	uint64_t size, attr_size;
	struct pfr_bid_sec attrs, data, types;
	uint64_t feat[4];
};

/* The feature section of HEADER_BUILD_ID in the file at fd: 1, 0 when
 * the file has none, -1 when it is not a perf.data file. */
static int pfr_bid_section(int fd, struct pfr_bid_sec *s)
{
	struct pfr_bid_fhdr h;
	uint64_t at;
	int idx;

	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h.magic, "PERFILE2", 8) || h.size < sizeof(h))
		return -1;
	if (!(h.feat[0] & (1u << PFR_BID_FEAT)))
		return 0;
	/* the index of feature sections lists the set bits in order */
	idx = __builtin_popcountll(h.feat[0] & ((1u << PFR_BID_FEAT) - 1));
	if (h.data.off > UINT64_MAX - h.data.size)
		return -1;
	at = h.data.off + h.data.size + (uint64_t)idx * sizeof(*s);
	if (pread(fd, s, sizeof(*s), (off_t)at) != (ssize_t)sizeof(*s) ||
	    s->size > PFR_BID_MAX)
		return -1;
	return 1;
}

/* Appends the entry at p (len bytes, its header's size); 0 or -1. */
static int pfr_bid_entry(struct pfr__bids *b, const unsigned char *p,
			 size_t len)
{
	struct pfr__bid *v, *e;
	uint16_t misc;
	size_t nl;

	memcpy(&misc, p + 4, 2);
	v = realloc(b->v, (b->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	b->v = v;
	e = &v[b->n];
	memset(e, 0, sizeof(*e));
	e->misc = misc & ~PFR_BID_MISC_SIZE;
	memcpy(&e->pid, p + 8, 4);
	memcpy(e->id, p + 12, 20);
	e->len = misc & PFR_BID_MISC_SIZE ? p[32] : 20;
	nl = strnlen((const char *)p + 36, len - 36);
	if (!e->len || e->len > 20 || !nl)
		return -1;
	e->name = strndup((const char *)p + 36, nl);
	if (!e->name)
		return -1;
	b->n++;
	return 0;
}

/* The entries in the feature's bytes p (n of them); 0 or -1. */
static int pfr_bid_parse(struct pfr__bids *b, const unsigned char *p, size_t n)
{
	size_t o = 0;

	while (n - o >= 8) {
		uint16_t sz;

		memcpy(&sz, p + o + 6, 2);
		if (sz < 37 || sz > n - o)
			return -1;
		if (pfr_bid_entry(b, p + o, sz))
			return -1;
		o += sz;
	}
	return 0;
}

int pfr__bids_read(struct pfr__bids *b, const char *path)
{
	struct pfr_bid_sec s;
	unsigned char *p = NULL;
	int fd = util_open_regular(path), got;

	if (fd < 0)
		return -1;
	got = pfr_bid_section(fd, &s);
	if (got > 0) {
		p = malloc(s.size ? s.size : 1);
		if (!p ||
		    pread(fd, p, s.size, (off_t)s.off) != (ssize_t)s.size ||
		    pfr_bid_parse(b, p, s.size)) {
			pfr__bids_free(b);
			got = -1;
		}
	}
	free(p);
	close(fd);
	return got < 0 ? -1 : (int)b->n;
}

void pfr__bids_free(struct pfr__bids *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].name);
	free(b->v);
	b->v = NULL;
	b->n = 0;
}

char *pfr__bid_cache_dir(const char *dir, char *buf, size_t n)
{
	const char *home = getenv("HOME");
	int w;

	if (!dir || !*dir)
		dir = getenv("PERF_BUILDID_DIR");
	if (dir && *dir)
		w = snprintf(buf, n, "%s", dir);
	else if (home && *home)
		w = snprintf(buf, n, "%s/.debug", home);
	else
		w = snprintf(buf, n, ".debug");
	return w < 0 || (size_t)w >= n ? NULL : buf;
}

/* --- the ELF side (elfutils) --- */

#ifndef PFR_NO_SCRIPT_LIBS
/* The build id of ELF e into id (20 bytes); its length, or 0. */
static size_t pfr_bid_of_elf(Elf *e, unsigned char id[20])
{
	const void *p;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &p) : -1;

	if (n <= 0 || n > 20)
		return 0;
	memcpy(id, p, (size_t)n);
	return (size_t)n;
}

/* 1 when ELF e has a section named name. */
static int pfr_bid_has_section(Elf *e, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t str;

	if (elf_getshdrstrndx(e, &str))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *s;

		if (gelf_getshdr(scn, &sh) &&
		    (s = elf_strptr(e, str, sh.sh_name)) && !strcmp(s, name))
			return 1;
	}
	return 0;
}

/* 1 when the regular file at path is an ELF file with build id (id,
 * len) and, when section is not NULL, a section of that name. */
static int pfr_bid_file_is(const char *path, const unsigned char *id,
			   size_t len, const char *section)
{
	unsigned char got[20];
	int fd, ok = 0;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = util_open_regular(path);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF && pfr_bid_of_elf(e, got) == len &&
	    !memcmp(got, id, len))
		ok = !section || pfr_bid_has_section(e, section);
	elf_end(e);
	close(fd);
	return ok;
}

/* This process's vdso image and its length; NULL when none is known. */
static const void *pfr_bid_vdso(size_t *len)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[256];
	FILE *f;

	*len = 0;
	if (!base)
		return NULL;
	f = fopen("/proc/self/maps", "re");
	while (f && !*len && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &s, &e) == 2 && s == base && e > s)
			*len = e - s;
	}
	if (f)
		fclose(f);
	return *len ? (const void *)base : NULL;
}

/* 1 when this process's vdso has build id (id, len). */
static int pfr_bid_vdso_is(const unsigned char *id, size_t len)
{
	unsigned char got[20];
	size_t vlen;
	const void *v = pfr_bid_vdso(&vlen);
	Elf *e;
	int ok;

	if (!v || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	e = elf_memory((char *)(uintptr_t)v, vlen);
	ok = pfr_bid_of_elf(e, got) == len && !memcmp(got, id, len);
	elf_end(e);
	return ok;
}
#else
/* Built without elfutils: no build id can be checked. */
static int pfr_bid_file_is(const char *path, const unsigned char *id,
			   size_t len, const char *section)
{
	(void)path;
	(void)id;
	(void)len;
	(void)section;
	return 0;
}

static const void *pfr_bid_vdso(size_t *len)
{
	*len = 0;
	return NULL;
}

static int pfr_bid_vdso_is(const unsigned char *id, size_t len)
{
	(void)id;
	(void)len;
	return 0;
}
#endif

/* --- the cache --- */

static void pfr_bid_hex(char *s, const unsigned char *id, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sprintf(s + 2 * i, "%02x", id[i]);
	s[2 * len] = 0;
}

/* mkdir -p path (mode 0755, as perf); 0 or -1. */
static int pfr_bid_mkdir_p(char *path)
{
	for (char *p = path + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = c;
			return -1;
		}
		*p = c;
		if (!c)
			return 0;
	}
}

/* Writes len bytes at p to fd; 0 or -1. */
static int pfr_bid_write_all(int fd, const void *p, size_t len)
{
	const char *c = p;

	while (len) {
		ssize_t w = write(fd, c, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Creates to (mode) with the bytes of from (or of (mem, len) when from is
 * NULL), through a temporary file renamed into place; 0 or -1. */
static int pfr_bid_copy(const char *from, const void *mem, size_t len,
			const char *to, mode_t mode)
{
	char tmp[PATH_MAX], buf[65536];
	int in = -1, out, err = 0;
	ssize_t r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", to, (long)getpid()) >=
	    (int)sizeof(tmp))
		return errno = ENAMETOOLONG, -1;
	if (from && (in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (out < 0) {
		if (in >= 0)
			close(in);
		return -1;
	}
	if (!from)
		err = pfr_bid_write_all(out, mem, len);
	while (from && !err && (r = read(in, buf, sizeof(buf))) != 0)
		err = r < 0 ? (errno == EINTR ? 0 : -1)
			    : pfr_bid_write_all(out, buf, (size_t)r);
	if (in >= 0)
		close(in);
	err |= fchmod(out, mode) | close(out);
	if (err || rename(tmp, to)) {
		int e = errno;

		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* dir/name: a hard link to from, else a copy (the source's mode); kept
 * when it exists.  0 or -1. */
static int pfr_bid_place(const char *dir, const char *name, const char *from)
{
	char to[PATH_MAX];
	struct stat st;

	if (snprintf(to, sizeof(to), "%s/%s", dir, name) >= (int)sizeof(to))
		return errno = ENAMETOOLONG, -1;
	if (!access(to, F_OK) || !link(from, to) || errno == EEXIST)
		return 0;
	if (stat(from, &st))
		return -1;
	return pfr_bid_copy(from, NULL, 0, to, st.st_mode & 07777);
}

/* An empty dir/name (mode 0644) unless it exists; 0 or -1. */
static int pfr_bid_touch(const char *dir, const char *name)
{
	char to[PATH_MAX];
	int fd;

	if (snprintf(to, sizeof(to), "%s/%s", dir, name) >= (int)sizeof(to))
		return errno = ENAMETOOLONG, -1;
	fd = open(to, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	return fd < 0 ? -1 : close(fd);
}

/* The link cache/.build-id/<2 hex>/<rest> -> ../../<path>/<hex>; 0 or
 * -1. */
static int pfr_bid_link(const char *cache, const char *path, const char *hex)
{
	char ln[PATH_MAX], target[PATH_MAX];

	if (snprintf(ln, sizeof(ln), "%s/.build-id/%.2s", cache, hex) >=
		    (int)sizeof(ln) ||
	    snprintf(target, sizeof(target), "../..%s%s/%s",
		     path[0] == '/' ? "" : "/", path,
		     hex) >= (int)sizeof(target))
		return errno = ENAMETOOLONG, -1;
	if (pfr_bid_mkdir_p(ln))
		return -1;
	strcat(ln, "/");
	if (strlen(ln) + strlen(hex + 2) >= sizeof(ln))
		return errno = ENAMETOOLONG, -1;
	strcat(ln, hex + 2);
	if (symlink(target, ln) && errno != EEXIST)
		return -1;
	return 0;
}

/* The object files of one user DSO (at real path rp); 0 or -1. */
static int pfr_bid_add_file(const struct pfr__bid *e, const char *dir,
			    const char *hex)
{
	char dbg[PATH_MAX];

	if (pfr_bid_place(dir, "elf", e->name))
		return -1;
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 hex, hex + 2);
	if (pfr_bid_file_is(dbg, e->id, e->len, ".debug_info") &&
	    pfr_bid_place(dir, "debug", dbg))
		return -1;
	return pfr_bid_touch(dir, "probes");
}

/* The vdso's files; 0 or -1. */
static int pfr_bid_add_vdso(const char *dir)
{
	char to[PATH_MAX];
	size_t len;
	const void *v = pfr_bid_vdso(&len);

	if (snprintf(to, sizeof(to), "%s/vdso", dir) >= (int)sizeof(to))
		return errno = ENAMETOOLONG, -1;
	if (access(to, F_OK) && pfr_bid_copy(NULL, v, len, to, 0600))
		return -1;
	return pfr_bid_touch(dir, "probes");
}

/* The kernel's file; 0 or -1. */
static int pfr_bid_add_kallsyms(const char *dir)
{
	char to[PATH_MAX];

	if (snprintf(to, sizeof(to), "%s/kallsyms", dir) >= (int)sizeof(to))
		return errno = ENAMETOOLONG, -1;
	if (!access(to, F_OK))
		return 0;
	return pfr_bid_copy("/proc/kallsyms", NULL, 0, to, 0755);
}

/* One entry into the cache at cache; 0 (also when left out) or -1. */
static int pfr_bid_add_one(const struct pfr__bid *e, const char *cache)
{
	int kernel = !strcmp(e->name, "[kernel.kallsyms]"),
	    vdso = !strcmp(e->name, "[vdso]");
	char hex[41], rp[PATH_MAX], dir[PATH_MAX];
	const char *path = e->name;

	pfr_bid_hex(hex, e->id, e->len);
	if (e->pid != -1 || (!kernel && !vdso && e->name[0] != '/'))
		return 0; /* a guest's, or a module (not cached here) */
	if (vdso && !pfr_bid_vdso_is(e->id, e->len))
		return 0;
	if (!kernel && !vdso) {
		if (!realpath(e->name, rp) ||
		    !pfr_bid_file_is(rp, e->id, e->len, NULL))
			return 0; /* gone or rebuilt since */
		path = rp;
	}
	if (snprintf(dir, sizeof(dir), "%s%s%s/%s", cache,
		     path[0] == '/' ? "" : "/", path, hex) >= (int)sizeof(dir))
		return errno = ENAMETOOLONG, -1;
	if (pfr_bid_mkdir_p(dir))
		return -1;
	if (kernel ? pfr_bid_add_kallsyms(dir)
	    : vdso ? pfr_bid_add_vdso(dir)
		   : pfr_bid_add_file(e, dir, hex))
		return -1;
	return pfr_bid_link(cache, path, hex);
}

int pfr__bid_cache_add(const struct pfr__bids *b, const char *dir)
{
	int err = 0, first = 0;

	for (size_t i = 0; i < b->n; i++)
		if (pfr_bid_add_one(&b->v[i], dir) && !err) {
			err = -1;
			first = errno;
		}
	if (err)
		errno = first;
	return err;
}

const char *pfr__bid_symfile(const struct pfr__bids *b, const char *dir,
			     const char *name, char *buf, size_t n)
{
	const struct pfr__bid *e = NULL;
	int vdso = !strcmp(name, "[vdso]");
	char hex[41];

	if (name[0] != '/' && !vdso)
		return name; /* not a file */
	for (size_t i = 0; b && i < b->n && !e; i++)
		if (b->v[i].pid == -1 && !strcmp(b->v[i].name, name))
			e = &b->v[i];
	if (!e || (!vdso && pfr_bid_file_is(name, e->id, e->len, NULL)))
		return name;
	pfr_bid_hex(hex, e->id, e->len);
	if (!dir ||
	    snprintf(buf, n, "%s/.build-id/%.2s/%s/%s", dir, hex, hex + 2,
		     vdso ? "vdso" : "elf") >= (int)n ||
	    !pfr_bid_file_is(buf, e->id, e->len, NULL))
		return NULL;
	return buf;
}
