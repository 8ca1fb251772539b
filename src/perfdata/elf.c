/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables of the ELF files named by MMAP records, read with
 * elfutils' libelf (sections, segments, symbols: it copies what sits at
 * an odd offset, so a crafted file is never read misaligned) and libdw's
 * dwelf (the GNU build id, to find a separate debug file).
 */
#ifndef PFR_NO_SCRIPT_LIBS
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libiberty/demangle.h>
#include <setjmp.h>
#else
#include <elf.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/util.h"
#include "elf.h"

void pfr__symtab_add(struct pfr__symtab *t, uint64_t start, uint64_t size,
		     const char *name, unsigned bind)
{
	struct pfr__sym *s;

	if (t->nsyms == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;

		s = realloc(t->syms, nc * sizeof(*s));
		if (!s)
			return;
		t->syms = s;
		t->cap = nc;
	}
	s = &t->syms[t->nsyms];
	s->start = start;
	s->end = start + size;
	s->bind = (unsigned char)bind;
	s->seq = t->nsyms;
	s->name = strdup(name);
	if (s->name)
		t->nsyms++;
}

static int pfr__sym_cmp(const void *a, const void *b)
{
	const struct pfr__sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t pfr__underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* 1 when a is the better name of an address than b. */
static int pfr__sym_better(const struct pfr__sym *a, const struct pfr__sym *b)
{
	int az = a->end == a->start, bz = b->end == b->start;
	size_t au = pfr__underscores(a->name), bu = pfr__underscores(b->name);

	if (az != bz)
		return bz;
	if ((a->bind == STB_WEAK) != (b->bind == STB_WEAK))
		return b->bind == STB_WEAK;
	if ((a->bind == STB_GLOBAL) != (b->bind == STB_GLOBAL))
		return a->bind == STB_GLOBAL;
	if (au != bu)
		return au < bu;
	return strlen(a->name) > strlen(b->name);
}

void pfr__symtab_finish(struct pfr__symtab *t, int sizes_known)
{
	size_t n = 0;

	if (!t->nsyms)
		return; /* qsort wants a valid pointer even for 0 */
	qsort(t->syms, t->nsyms, sizeof(*t->syms), pfr__sym_cmp);
	if (!sizes_known)
		for (size_t i = 0; i + 1 < t->nsyms; i++)
			if (t->syms[i].end == t->syms[i].start)
				t->syms[i].end = t->syms[i + 1].start;
	for (size_t i = 0; i < t->nsyms; i++) {
		struct pfr__sym *s = &t->syms[i];

		if (n && t->syms[n - 1].start == s->start) {
			struct pfr__sym *k = &t->syms[n - 1];

			if (pfr__sym_better(s, k)) {
				free(k->name);
				*k = *s;
			} else {
				free(s->name);
			}
			continue;
		}
		t->syms[n++] = *s;
	}
	t->nsyms = n;
	for (size_t i = 0; i < n; i++)
		if (t->syms[i].end == t->syms[i].start)
			t->syms[i].end = i + 1 < n ? t->syms[i + 1].start
						   : t->syms[i].start + 1;
}

const struct pfr__sym *pfr__symtab_find(const struct pfr__symtab *t, uint64_t a)
{
	size_t lo = 0, hi = t->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a < t->syms[lo - 1].end)
		return &t->syms[lo - 1];
	return NULL;
}

void pfr__symtab_free(struct pfr__symtab *t)
{
	for (size_t k = 0; k < t->nsyms; k++)
		free(t->syms[k].name);
	free(t->syms);
	t->syms = NULL;
	t->nsyms = t->cap = 0;
}

#ifndef PFR_NO_SCRIPT_LIBS
/* A trial run of the demangler that counts its output and stops at the
 * cap: the callback variants allocate nothing (their state is on the
 * stack), so leaving one through longjmp() leaks nothing. */
struct pfr__dm_trial {
	size_t len;
	jmp_buf out;
};

static void pfr__dm_count(const char *s, size_t n, void *arg)
{
	struct pfr__dm_trial *t = arg;

	(void)s;
	t->len += n;
	if (t->len > PFR__DEMANGLE_MAX)
		longjmp(t->out, 1);
}

/* 1 when demangling name would print more than PFR__DEMANGLE_MAX bytes
 * (back-references repeat a component, so a crafted name can double its
 * output at every nesting level). */
static int pfr__dm_too_long(const char *name)
{
	struct pfr__dm_trial t = {0};

	if (setjmp(t.out))
		return 1;
	if (name[0] == '_' && name[1] == 'R')
		rust_demangle_callback(name, DMGL_NO_OPTS, pfr__dm_count, &t);
	else
		cplus_demangle_v3_callback(name, DMGL_NO_OPTS, pfr__dm_count,
					   &t);
	return 0;
}

char *pfr__demangle(const char *name)
{
	/* perf's flags without -v: no parameters, no return type.  The style
	 * is libiberty's automatic one: C++ (Itanium ABI) and Rust (legacy
	 * and v0, the legacy hash dropped).  A name whose demangled form
	 * would pass the cap stays mangled: the trial run stops there, so
	 * the cost is bounded whatever the name. */
	if (pfr__dm_too_long(name))
		return NULL;
	return cplus_demangle(name, DMGL_NO_OPTS);
}

/* Adds a symbol under its demangled name when it has one. */
static void pfr__symtab_add_dm(struct pfr__symtab *t, uint64_t start,
			       uint64_t size, const char *name,
			       const char *suffix, unsigned bind)
{
	char *dm = pfr__demangle(name), buf[512];

	snprintf(buf, sizeof(buf), "%s%s", dm ? dm : name, suffix);
	free(dm);
	pfr__symtab_add(t, start, size, buf, bind);
}

/* A symbol perf lists as a function: a typed function, or a named label
 * (assembly entry points such as _start) in an executable section. */
static int pfr__elf_is_func(Elf *e, const GElf_Sym *y)
{
	int type = GELF_ST_TYPE(y->st_info);
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (!y->st_value || !y->st_name || y->st_shndx == SHN_UNDEF ||
	    y->st_shndx == SHN_ABS)
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return 1;
	if (type != STT_NOTYPE || y->st_shndx >= SHN_LORESERVE)
		return 0;
	scn = elf_getscn(e, y->st_shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

/* Function symbols of the sections of type want (SHT_SYMTAB or
 * SHT_DYNSYM); returns how many were added. */
static size_t pfr__elf_symbols(struct pfr__symtab *t, Elf *e, uint32_t want)
{
	size_t before = t->nsyms;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t k = 0; d && k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym y;
			const char *nm;

			if (!gelf_getsym(d, (int)k, &y) ||
			    !pfr__elf_is_func(e, &y))
				continue;
			nm = elf_strptr(e, sh.sh_link, y.st_name);
			if (nm && *nm)
				pfr__symtab_add_dm(t, y.st_value, y.st_size, nm,
						   "", GELF_ST_BIND(y.st_info));
		}
	}
	return t->nsyms - before;
}

/* The section called name, or NULL. */
static Elf_Scn *pfr__elf_section(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(e, &shstr))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstr, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * "NAME@plt" for each entry of an x86-64 .plt (after its 16-byte first
 * entry), NAME the .dynsym symbol of the entry's .rela.plt relocation,
 * empty for one without (IRELATIVE): the names perf gives PLT entries.
 */
static void pfr__elf_plt(struct pfr__symtab *t, Elf *e)
{
	GElf_Shdr plt, rel, dyn;
	Elf_Scn *ps = pfr__elf_section(e, ".plt", &plt);
	Elf_Scn *rs = pfr__elf_section(e, ".rela.plt", &rel);
	Elf_Data *rd, *dd;
	GElf_Ehdr eh;

	if (!ps || !rs || !gelf_getehdr(e, &eh) || eh.e_machine != EM_X86_64 ||
	    rel.sh_type != SHT_RELA || !rel.sh_entsize ||
	    !gelf_getshdr(elf_getscn(e, rel.sh_link), &dyn))
		return;
	rd = elf_getdata(rs, NULL);
	dd = elf_getdata(elf_getscn(e, rel.sh_link), NULL);
	for (size_t i = 0; rd && dd && i < rel.sh_size / rel.sh_entsize; i++) {
		uint64_t at = plt.sh_addr + 16 * (i + 1);
		const char *nm = "";
		GElf_Rela r;
		GElf_Sym y;

		if (at + 16 > plt.sh_addr + plt.sh_size ||
		    !gelf_getrela(rd, (int)i, &r))
			break;
		if (GELF_R_SYM(r.r_info) &&
		    gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &y))
			nm = elf_strptr(e, dyn.sh_link, y.st_name);
		pfr__symtab_add_dm(t, at, 16, nm ? nm : "", "@plt", STB_GLOBAL);
	}
}

static void pfr__elf_segments(struct pfr__symtab *t, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return;
	for (size_t i = 0; i < n && t->nsegs < PFR_ELF_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segs[t->nsegs].off = ph.p_offset;
		t->segs[t->nsegs].vaddr = ph.p_vaddr;
		t->segs[t->nsegs].filesz = ph.p_filesz;
		t->nsegs++;
	}
}

/* An ELF handle of a regular file at path (fd in *fd), or NULL. */
static Elf *pfr__elf_open(const char *path, int *fd)
{
	Elf *e;

	*fd = util_open_regular(path);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (e && elf_kind(e) == ELF_K_ELF)
		return e;
	elf_end(e);
	close(*fd);
	return NULL;
}

/* The symbols of the installed debug file of build id (id, len). */
static size_t pfr__elf_debug_file(struct pfr__symtab *t, const void *id,
				  ssize_t len)
{
	const unsigned char *b = id;
	char path[128], *p = path;
	size_t n = 0;
	Elf *e;
	int fd;

	if (len < 2 || len > 32)
		return 0;
	p += sprintf(p, "/usr/lib/debug/.build-id/%02x/", b[0]);
	for (ssize_t k = 1; k < len; k++)
		p += sprintf(p, "%02x", b[k]);
	strcpy(p, ".debug");
	if (access(path, R_OK))
		return 0;
	e = pfr__elf_open(path, &fd);
	if (!e)
		return 0;
	n = pfr__elf_symbols(t, e, SHT_SYMTAB);
	elf_end(e);
	close(fd);
	return n;
}

size_t pfr__elf_load(struct pfr__symtab *t, const char *path)
{
	const void *id;
	ssize_t idlen;
	size_t n;
	int fd;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	e = pfr__elf_open(path, &fd);
	if (!e)
		return 0;
	pfr__elf_segments(t, e);
	idlen = dwelf_elf_gnu_build_id(e, &id);
	n = idlen > 0 ? pfr__elf_debug_file(t, id, idlen) : 0;
	if (!n)
		n = pfr__elf_symbols(t, e, SHT_SYMTAB);
	if (!n)
		n = pfr__elf_symbols(t, e, SHT_DYNSYM);
	pfr__elf_plt(t, e);
	elf_end(e);
	close(fd);
	pfr__symtab_finish(t, 1);
	return n;
}
#else
/* Built without libelf (a cross build): no symbols, no demangling. */
char *pfr__demangle(const char *name)
{
	(void)name;
	return NULL;
}

size_t pfr__elf_load(struct pfr__symtab *t, const char *path)
{
	(void)t;
	(void)path;
	return 0;
}
#endif
