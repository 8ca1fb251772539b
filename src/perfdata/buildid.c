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
#include <stdarg.h>
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
	uint64_t at, magic;
	int idx;

	/* the magic is the u64 "PERFILE2" read on a little-endian machine,
	 * written in the writer's byte order (ours: this machine's) */
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	memcpy(&magic, h.magic, 8);
	if (magic != 0x32454c4946524550ull || h.size < sizeof(h))
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

/* ELF e's section named name (its header in *sh), or NULL. */
static Elf_Scn *pfr_bid_section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t str;

	if (elf_getshdrstrndx(e, &str))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *s;

		if (gelf_getshdr(scn, sh) &&
		    (s = elf_strptr(e, str, sh->sh_name)) && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* 1 when ELF e has a section named name. */
static int pfr_bid_has_section(Elf *e, const char *name)
{
	GElf_Shdr sh;

	return pfr_bid_section_named(e, name, &sh) != NULL;
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

/* --- perf's SDT probe list (the cache's probes file) --- */

/* A growing text. */
struct pfr_bid_text {
	char *p;
	size_t n, cap;
	int err;
};

static void pfr_bid_add(struct pfr_bid_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pfr_bid_add(struct pfr_bid_text *t, const char *fmt, ...)
{
	va_list ap;
	size_t nc;
	char *np;
	int w;

	for (;;) {
		va_start(ap, fmt);
		w = vsnprintf(t->p ? t->p + t->n : NULL,
			      t->p ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (w < 0) {
			t->err = 1;
			return;
		}
		if (t->p && (size_t)w < t->cap - t->n) {
			t->n += (size_t)w;
			return;
		}
		nc = t->cap * 2 + (size_t)w + 256;
		np = realloc(t->p, nc);
		if (!np) {
			t->err = 1;
			return;
		}
		t->p = np;
		t->cap = nc;
	}
}

#if defined(__x86_64__) || defined(__i386__)
/* perf's x86 renaming of an SDT operand's register for uprobe_events:
 * every width of a general register is its 16-bit name, %r8d..%r15b
 * are %r8..%r15. */
static const char *const pfr_bid_regs[][2] = {
	{"%eax", "%ax"},   {"%rax", "%ax"},   {"%al", "%ax"},
	{"%ah", "%ax"},	   {"%ebx", "%bx"},   {"%rbx", "%bx"},
	{"%bl", "%bx"},	   {"%bh", "%bx"},    {"%ecx", "%cx"},
	{"%rcx", "%cx"},   {"%cl", "%cx"},    {"%ch", "%cx"},
	{"%edx", "%dx"},   {"%rdx", "%dx"},   {"%dl", "%dx"},
	{"%dh", "%dx"},	   {"%esi", "%si"},   {"%rsi", "%si"},
	{"%sil", "%si"},   {"%edi", "%di"},   {"%rdi", "%di"},
	{"%dil", "%di"},   {"%ebp", "%bp"},   {"%rbp", "%bp"},
	{"%bpl", "%bp"},   {"%rsp", "%sp"},   {"%esp", "%sp"},
	{"%spl", "%sp"},   {"%r8d", "%r8"},   {"%r8w", "%r8"},
	{"%r8b", "%r8"},   {"%r9d", "%r9"},   {"%r9w", "%r9"},
	{"%r9b", "%r9"},   {"%r10d", "%r10"}, {"%r10w", "%r10"},
	{"%r10b", "%r10"}, {"%r11d", "%r11"}, {"%r11w", "%r11"},
	{"%r11b", "%r11"}, {"%r12d", "%r12"}, {"%r12w", "%r12"},
	{"%r12b", "%r12"}, {"%r13d", "%r13"}, {"%r13w", "%r13"},
	{"%r13b", "%r13"}, {"%r14d", "%r14"}, {"%r14w", "%r14"},
	{"%r14b", "%r14"}, {"%r15d", "%r15"}, {"%r15w", "%r15"},
	{"%r15b", "%r15"},
};

/* The uprobe_events name of the register reg (rl bytes), or NULL when it
 * keeps its own. */
static const char *pfr_bid_reg(const char *reg, size_t rl)
{
	for (size_t i = 0; i < sizeof(pfr_bid_regs) / sizeof(pfr_bid_regs[0]);
	     i++)
		if (!strncmp(pfr_bid_regs[i][0], reg, rl))
			return pfr_bid_regs[i][1];
	return NULL;
}

/* One operand (SIZE@OP's OP) in uprobe_events' form into out (n bytes),
 * as perf converts it: [sign][digits][(]%reg[)], a displacement in
 * parentheses always signed ("+0" when there is none).  0, or -1 when
 * perf skips it (a constant, or a form it does not take). */
static int pfr_bid_sdt_op(const char *op, char *out, size_t n)
{
	const char *p = op, *sign = NULL, *dig, *reg, *name, *pre = "";
	size_t nd, rl;
	int open, close;

	if (*p == '+' || *p == '-')
		sign = p++;
	for (dig = p; *p >= '0' && *p <= '9';)
		p++;
	nd = (size_t)(p - dig);
	open = *p == '(';
	p += open;
	reg = p;
	if (p[0] != '%' || p[1] < 'a' || p[1] > 'z' || !p[2])
		return -1;
	for (p += 2; (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9');)
		p++;
	rl = (size_t)(p - reg);
	close = *p == ')';
	if (p[close])
		return -1;
	if (open)
		pre = sign ? (*sign == '-' ? "-" : "+") : nd ? "+" : "+0";
	name = pfr_bid_reg(reg, rl);
	snprintf(out, n, "%s%.*s%s%.*s%s", pre, (int)nd, dig, open ? "(" : "",
		 name ? (int)strlen(name) : (int)rl, name ? name : reg,
		 close ? ")" : "");
	return 0;
}
#else
static int pfr_bid_sdt_op(const char *op, char *out, size_t n)
{
	(void)op;
	(void)out;
	(void)n;
	return -1; /* perf's renaming is per architecture */
}
#endif

/* The arguments ("SIZE@OP ...") as perf writes them: " argN=OP:TYPE". */
static void pfr_bid_sdt_args(struct pfr_bid_text *t, const char *args)
{
	static const char *const suffix[17] = {
		":s64", "",	"", "",	    ":s32", "", ":s16", ":s8", "",
		":u8",	":u16", "", ":u32", "",	    "", "",	":u64"};
	char arg[256], op[256];
	int i = 0, k;

	for (;;) {
		const char *at, *type = "";
		long sz;

		while (*args == ' ')
			args++;
		for (k = 0; *args && *args != ' ' && k < 255; k++)
			arg[k] = *args++;
		arg[k] = 0;
		if (!k)
			return;
		i++;
		at = strchr(arg, '@');
		if (at) {
			sz = strtol(arg, NULL, 10);
			if (sz < -8 || sz > 8)
				continue;
			type = suffix[sz + 8];
		}
		if (!pfr_bid_sdt_op(at ? at + 1 : arg, op, sizeof(op)))
			pfr_bid_add(t, " arg%d=%s%s", i, op, type);
	}
}

/* One SDT note's probe: its key and perf's "p:" line (no newline). */
struct pfr_bid_probe {
	char *key; /* "sdt_PROVIDER:NAME" */
	char *line;
	size_t first; /* the index of the key's first note */
};

static int pfr_bid_probe_cmp(const void *a, const void *b)
{
	const struct pfr_bid_probe *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return strcmp(x->line, y->line);
}

/* An SDT note's descriptor: its three addresses (location, base,
 * semaphore) and three strings. */
struct pfr_bid_note {
	uint64_t a[3];
	const char *prov, *name, *args;
};

/* Splits the descriptor desc (len bytes) of a note of an ELF file of
 * class elf64; 0, or -1 when it is malformed. */
static int pfr_bid_note_split(struct pfr_bid_note *nt, const char *desc,
			      size_t len, int elf64)
{
	size_t w = elf64 ? 8 : 4, pl, nl;

	if (len < 3 * w + 2)
		return -1;
	for (int i = 0; i < 3; i++) {
		uint32_t a32;

		if (elf64) {
			memcpy(&nt->a[i], desc + i * w, 8);
		} else {
			memcpy(&a32, desc + i * w, 4);
			nt->a[i] = a32;
		}
	}
	nt->prov = desc + 3 * w;
	pl = strnlen(nt->prov, len - 3 * w);
	if (3 * w + pl + 1 >= len)
		return -1;
	nt->name = nt->prov + pl + 1;
	nl = strnlen(nt->name, len - 3 * w - pl - 1);
	if (3 * w + pl + nl + 1 >= len)
		return -1;
	nt->args = 3 * w + pl + nl + 2 < len ? nt->name + nl + 1 : "";
	return 0;
}

/* The probe of note nt of the file at real path rp into v[n]: its
 * location moved by base_off (perf's prelink adjustment, from
 * .stapsdt.base), its semaphore by sadj (to a file offset, from
 * .probes).  0 or -1. */
static int pfr_bid_probe(struct pfr_bid_probe *v, size_t n,
			 struct pfr_bid_note *nt, const char *rp,
			 uint64_t base_off, uint64_t sadj)
{
	struct pfr_bid_text k = {NULL, 0, 0, 0}, t = {NULL, 0, 0, 0};

	if (base_off)
		nt->a[0] += base_off - nt->a[1];
	if (nt->a[2])
		nt->a[2] -= sadj;
	pfr_bid_add(&k, "sdt_%s:%s", nt->prov, nt->name);
	pfr_bid_add(&t, "p:sdt_%s/%s %s:0x%llx", nt->prov, nt->name, rp,
		    (unsigned long long)nt->a[0]);
	if (nt->a[2])
		pfr_bid_add(&t, "(0x%llx)", (unsigned long long)nt->a[2]);
	pfr_bid_sdt_args(&t, nt->args);
	v[n].key = k.p;
	v[n].line = t.p;
	v[n].first = n;
	if (k.err || t.err || !k.p || !t.p)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, k.p)) {
			v[n].first = v[i].first;
			break;
		}
	return 0;
}

/* The probes of the SDT notes in d (the .note.stapsdt section of ELF e,
 * the file at real path rp) into *vp; their count. */
static size_t pfr_bid_probes_of(Elf *e, Elf_Data *d, const char *rp,
				struct pfr_bid_probe **vp)
{
	int elf64 = gelf_getclass(e) == ELFCLASS64;
	uint64_t base_off = 0, sadj = 0;
	struct pfr_bid_probe *v = NULL;
	size_t off = 0, n = 0, next, no, dd;
	GElf_Shdr sh;
	GElf_Nhdr nh;

	if (pfr_bid_section_named(e, ".stapsdt.base", &sh))
		base_off = sh.sh_offset;
	if (pfr_bid_section_named(e, ".probes", &sh))
		sadj = sh.sh_addr - sh.sh_offset;
	while ((next = gelf_getnote(d, off, &nh, &no, &dd)) > 0) {
		struct pfr_bid_note nt;
		struct pfr_bid_probe *nv;

		off = next;
		if (nh.n_type != 3 || nh.n_namesz != 8 ||
		    memcmp((char *)d->d_buf + no, "stapsdt", 8) ||
		    pfr_bid_note_split(&nt, (char *)d->d_buf + dd, nh.n_descsz,
				       elf64))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		if (!pfr_bid_probe(v, n, &nt, rp, base_off, sadj)) {
			n++;
		} else {
			free(v[n].key);
			free(v[n].line);
		}
	}
	*vp = v;
	return n;
}

/* Appends the probes of ELF e's SDT notes to t, as perf's probe cache
 * lists them: per PROVIDER:NAME in the order first seen,
 * "%sdt_PROVIDER:NAME=NAME", then its probes' lines sorted, each once. */
static void pfr_bid_sdt_notes(Elf *e, const char *rp, struct pfr_bid_text *t)
{
	GElf_Shdr sh;
	Elf_Scn *scn = pfr_bid_section_named(e, ".note.stapsdt", &sh);
	Elf_Data *d =
		scn && sh.sh_type == SHT_NOTE ? elf_getdata(scn, NULL) : NULL;
	struct pfr_bid_probe *v = NULL;
	size_t n = d ? pfr_bid_probes_of(e, d, rp, &v) : 0;

	if (n) /* qsort's array may not be NULL, even for no elements */
		qsort(v, n, sizeof(*v), pfr_bid_probe_cmp);
	for (size_t i = 0; i < n; i++) {
		int head = !i || v[i].first != v[i - 1].first;

		if (head)
			pfr_bid_add(t, "%%%s=%s\n", v[i].key,
				    strchr(v[i].key, ':') + 1);
		if (head || strcmp(v[i].line, v[i - 1].line))
			pfr_bid_add(t, "%s\n", v[i].line);
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].line);
	}
	free(v);
}

/* perf's probes file for the ELF file at real path rp: its SDT probes
 * (none for a file without); malloc'ed text, its length in *len, NULL
 * when empty. */
static char *pfr_bid_sdt_list(const char *rp, size_t *len)
{
	struct pfr_bid_text t = {NULL, 0, 0, 0};
	int fd = util_open_regular(rp);
	Elf *e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);

	if (e && elf_kind(e) == ELF_K_ELF)
		pfr_bid_sdt_notes(e, rp, &t);
	elf_end(e);
	if (fd >= 0)
		close(fd);
	if (t.err) {
		free(t.p);
		t.p = NULL;
		t.n = 0;
	}
	*len = t.n;
	return t.p;
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

static char *pfr_bid_sdt_list(const char *rp, size_t *len)
{
	(void)rp;
	*len = 0;
	return NULL;
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

/* perf's probes file in dir: the SDT probes of the file at real path rp
 * (empty when it has none); kept when it exists.  0 or -1. */
static int pfr_bid_probes(const char *dir, const char *rp)
{
	char to[PATH_MAX], *text;
	size_t len;
	int err;

	if (snprintf(to, sizeof(to), "%s/probes", dir) >= (int)sizeof(to))
		return errno = ENAMETOOLONG, -1;
	if (!access(to, F_OK))
		return 0;
	text = pfr_bid_sdt_list(rp, &len);
	err = pfr_bid_copy(NULL, text ? text : "", len, to, 0644);
	free(text);
	return err;
}

/* The object files of one user DSO (of entry e, at real path rp); 0 or
 * -1. */
static int pfr_bid_add_file(const struct pfr__bid *e, const char *rp,
			    const char *dir, const char *hex)
{
	char dbg[PATH_MAX];

	if (pfr_bid_place(dir, "elf", rp))
		return -1;
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 hex, hex + 2);
	if (pfr_bid_file_is(dbg, e->id, e->len, ".debug_info") &&
	    pfr_bid_place(dir, "debug", dbg))
		return -1;
	return pfr_bid_probes(dir, rp);
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
		   : pfr_bid_add_file(e, path, dir, hex))
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

/* The GNU build id among the running kernel's notes (/sys/kernel/notes:
 * ELF note headers in this machine's byte order) into id: its length, or
 * 0. */
static size_t pfr_bid_kernel(unsigned char id[20])
{
	unsigned char p[4096];
	size_t o = 0, n;
	ssize_t got = -1;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		got = read(fd, p, sizeof(p));
		close(fd);
	}
	n = got > 0 ? (size_t)got : 0;
	while (n - o >= 12) {
		uint32_t h[3]; /* namesz, descsz, type */
		size_t nal, dal;

		memcpy(h, p + o, sizeof(h));
		o += 12;
		nal = ((size_t)h[0] + 3) & ~(size_t)3;
		dal = ((size_t)h[1] + 3) & ~(size_t)3;
		if (nal > n - o || dal > n - o - nal)
			return 0;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 &&
		    !memcmp(p + o, "GNU", 4) && h[1] >= 1 && h[1] <= 20) {
			memcpy(id, p + o + nal, h[1]);
			return h[1];
		}
		o += nal + dal;
	}
	return 0;
}

const char *pfr__bid_kallsyms(const struct pfr__bids *b, const char *dir,
			      char *buf, size_t n)
{
	const struct pfr__bid *e = NULL;
	unsigned char id[20];
	char hex[41];
	size_t len;

	for (size_t i = 0; b && i < b->n && !e; i++)
		if (b->v[i].pid == -1 &&
		    !strcmp(b->v[i].name, "[kernel.kallsyms]"))
			e = &b->v[i];
	if (!e)
		return "/proc/kallsyms";
	len = pfr_bid_kernel(id);
	if (len == e->len && !memcmp(id, e->id, len))
		return "/proc/kallsyms";
	pfr_bid_hex(hex, e->id, e->len);
	if (!dir ||
	    snprintf(buf, n, "%s/[kernel.kallsyms]/%s/kallsyms", dir, hex) >=
		    (int)n ||
	    access(buf, R_OK))
		return NULL;
	return buf;
}
