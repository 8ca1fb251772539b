/* SPDX-License-Identifier: MIT */
/*
 * DWARF call chains: a `--call-graph dwarf` sample carries the user
 * registers (REGS_USER) and a copy of the top of the user stack
 * (STACK_USER); elfutils' libdwfl unwinds them with the mapped files' CFI
 * (.eh_frame, .debug_frame), as perf's unwind-libdw does: each mapped
 * file reported where the process mapped it, memory read from the stack
 * copy, else from the mapped file.  The Dwfl of a process is kept across
 * its samples (PFR_UNW_PROCS processes, the least recently used dropped),
 * so that a file is opened and its CFI parsed once per process, not once
 * per sample; a module whose file or place no longer matches the
 * process's mapping at that address (an exec, a remap) drops the
 * process's Dwfl and the sample is unwound again on a new one.  Inlined functions
 * come from the files' DWARF scopes (dwarf_getscopes).  Every input is
 * untrusted: the stack copy and the registers are bounds-checked against
 * the sample; files are opened only when regular.
 */
#ifndef PFR_NO_SCRIPT_LIBS
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#endif
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/util.h"
#include "elf.h"
#include "unwind.h"

/* The u64s a sample's READ field holds under read_format rf, or -1. */
static int64_t pfr__read_words(uint64_t rf, const unsigned char *p,
			       uint64_t left)
{
	uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	uint64_t head = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr;

	if (!(rf & PERF_FORMAT_GROUP))
		return (int64_t)(head + per);
	if (left < 8)
		return -1;
	memcpy(&nr, p, 8);
	if (nr > left / 8 / per)
		return -1;
	return (int64_t)(1 + head + nr * per);
}

/* Offset of the first sample field after RAW, or -1. */
static int64_t pfr__after_raw(const struct perf_event_attr *a,
			      const struct pfr_perf_rec *r,
			      const unsigned char *p, uint32_t len)
{
	uint64_t st = a->sample_type, off = 0;
	static const uint64_t fixed[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,	  PERF_SAMPLE_TID,
		PERF_SAMPLE_TIME,	PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID,	PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD,
	};

	if ((st & PERF_SAMPLE_RAW) && r->raw)
		return (const unsigned char *)r->raw + r->raw_size - p;
	if ((st & PERF_SAMPLE_CALLCHAIN) && r->callchain)
		return (const unsigned char *)r->callchain +
		       8 * r->nr_callchain - p;
	if (st & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW))
		return -1;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		off += (st & fixed[i]) ? 8 : 0;
	if (st & PERF_SAMPLE_READ) {
		int64_t w = off <= len ? pfr__read_words(a->read_format,
							 p + off, len - off)
				       : -1;

		if (w < 0)
			return -1;
		off += 8 * (uint64_t)w;
	}
	return off <= len ? (int64_t)off : -1;
}

int pfr__ustack_get(const struct perf_event_attr *a,
		    const struct pfr_perf_rec *r, const void *payload,
		    uint32_t len, struct pfr__ustack *us)
{
	const unsigned char *p = payload;
	int64_t o = pfr__after_raw(a, r, p, len);
	uint64_t off, v, n;

	memset(us, 0, sizeof(*us));
	if (o < 0 || !(a->sample_type & PERF_SAMPLE_REGS_USER) ||
	    !(a->sample_type & PERF_SAMPLE_STACK_USER))
		return -1;
	off = (uint64_t)o;
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		if (len - off < 8)
			return -1;
		memcpy(&n, p + off, 8);
		off += 8;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			off += 8;
		if (off > len || n > (len - off) / 24)
			return -1;
		off += 24 * n;
	}
	if (len - off < 8)
		return -1;
	memcpy(&us->abi, p + off, 8);
	off += 8;
	if (us->abi) {
		us->mask = a->sample_regs_user;
		n = (uint64_t)__builtin_popcountll(us->mask);
		if (n > (len - off) / 8)
			return -1;
		us->regs = p + off;
		off += 8 * n;
	}
	if (len - off < 8)
		return -1;
	memcpy(&v, p + off, 8); /* the stack copy's size */
	off += 8;
	if (v > len - off)
		return -1;
	us->stack = p + off;
	us->size = v;
	off += v;
	if (v) { /* then the bytes of it that were valid */
		if (len - off < 8)
			return -1;
		memcpy(&n, p + off, 8);
		if (n < us->size)
			us->size = n;
	}
	return us->abi ? 0 : -1;
}

#ifndef PFR_NO_SCRIPT_LIBS
#define PFR_INL_CACHE 64

/* An address's chain of names, as first given (perf caches them). */
struct pfr__inl_addr {
	uint64_t addr;
	int n;
	char **names;
	struct pfr__inl_addr *next;
};

/* A function DIE binutils looked up in the symbol table (see
 * pfr__scope_name()); named: the symbol's name became its own. */
struct pfr__inl_die {
	Dwarf_Off off;
	char *named;
	struct pfr__inl_die *next;
};

#define PFR_INL_HASH 256

struct pfr__inl_file {
	char *path;
	Dwfl *dwfl; /* NULL: no debug information */
	Dwfl_Module *mod;
	struct pfr__inl_addr *addrs[PFR_INL_HASH];
	struct pfr__inl_die *dies[PFR_INL_HASH];
};

/* At most 8 x 32 files held open by the kept Dwfls. */
#define PFR_UNW_PROCS 8
#define PFR_UNW_MODS 32

/* A file reported to a process's Dwfl: where, so that a later mapping of
 * something else at that address is noticed. */
struct pfr__unw_mod {
	Dwfl_Module *mod;
	uint64_t base; /* start - pgoff of the mapping reported */
	char *path;
};

/* One process's Dwfl, kept across its samples. */
struct pfr__unw_proc {
	Dwfl *dwfl; /* NULL: the slot is free */
	uint32_t pid;
	int attached; /* dwfl_attach_state done (needs a module first) */
	uint64_t used; /* pfr__unwind's tick at its last sample */
	struct pfr__unw_mod mods[PFR_UNW_MODS];
	int nmods;
};

struct pfr__unwind {
	pfr__unwind_map_fn map;
	void *arg;
	struct pfr__inl_file files[PFR_INL_CACHE];
	int nfiles;
	struct pfr__unw_proc procs[PFR_UNW_PROCS];
	uint64_t tick;
	/* the file pfr__memory_read() last read, open */
	char *rd_path;
	int rd_fd;
	/* the sample being unwound */
	struct pfr__unw_proc *proc;
	Dwfl *dwfl;
	uint32_t pid;
	int stale; /* a module no longer matches the mapping */
	const struct pfr__ustack *us;
	uint64_t sp, *ips;
	int n, max;
};

static char *pfr__debuginfo_path;

static const Dwfl_Callbacks pfr__dwfl_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &pfr__debuginfo_path,
};

struct pfr__unwind *pfr__unwind_new(pfr__unwind_map_fn fn, void *arg)
{
	struct pfr__unwind *u = calloc(1, sizeof(*u));

	if (u) {
		u->map = fn;
		u->arg = arg;
		u->rd_fd = -1;
	}
	return u;
}

static void pfr__unw_proc_free(struct pfr__unw_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	for (int i = 0; i < p->nmods; i++)
		free(p->mods[i].path);
	memset(p, 0, sizeof(*p));
}

static void pfr__inl_file_free(struct pfr__inl_file *f)
{
	free(f->path);
	if (f->dwfl)
		dwfl_end(f->dwfl);
	for (int h = 0; h < PFR_INL_HASH; h++) {
		while (f->addrs[h]) {
			struct pfr__inl_addr *a = f->addrs[h];

			f->addrs[h] = a->next;
			for (int i = 0; i < a->n; i++)
				free(a->names[i]);
			free(a->names);
			free(a);
		}
		while (f->dies[h]) {
			struct pfr__inl_die *d = f->dies[h];

			f->dies[h] = d->next;
			free(d->named);
			free(d);
		}
	}
}

void pfr__unwind_free(struct pfr__unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->nfiles; i++)
		pfr__inl_file_free(&u->files[i]);
	for (int i = 0; i < PFR_UNW_PROCS; i++)
		pfr__unw_proc_free(&u->procs[i]);
	if (u->rd_fd >= 0)
		close(u->rd_fd);
	free(u->rd_path);
	free(u);
}

/* x86-64: the DWARF register numbers 0-16 in perf's register order
 * (arch/x86/include/uapi/asm/perf_regs.h): ax dx cx bx si di bp sp
 * r8-r15 ip. */
static const int pfr__x86_dwarf_to_perf[17] = {
	0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8};

/* The value of perf register reg in the sample, or -1 if absent. */
static int pfr__ureg(const struct pfr__ustack *us, int reg, uint64_t *v)
{
	int idx = 0;

	if (!(us->mask & (1ULL << reg)))
		return -1;
	for (int b = 0; b < reg; b++)
		idx += !!(us->mask & (1ULL << b));
	memcpy(v, us->regs + 8 * idx, 8);
	return 0;
}

/* Reports the file mapped at addr to the process's Dwfl (once); its
 * module.  A module already there that is not what the process maps at
 * addr now (another file, or the same at another place) sets u->stale. */
static Dwfl_Module *pfr__report(struct pfr__unwind *u, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(u->dwfl, addr);
	struct pfr__unw_proc *p = u->proc;
	uint64_t start, end, pgoff;
	const char *path;
	int fd;

	if (u->map(u->arg, u->pid, addr, &start, &end, &pgoff, &path) ||
	    path[0] != '/')
		path = NULL;
	if (m) {
		for (int i = 0; i < p->nmods; i++)
			if (p->mods[i].mod == m) {
				if (!path || p->mods[i].base != start - pgoff ||
				    strcmp(p->mods[i].path, path))
					u->stale = 1;
				break;
			}
		return u->stale ? NULL : m;
	}
	if (!path || p->nmods == PFR_UNW_MODS) {
		u->stale |= !!path; /* full: start this process again */
		return NULL;
	}
	fd = util_open_regular(path);
	if (fd < 0)
		return NULL;
	dwfl_report_begin_add(u->dwfl);
	m = dwfl_report_elf(u->dwfl, path, path, fd, start - pgoff, false);
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (!m) {
		close(fd); /* else libdwfl owns it */
		return NULL;
	}
	p->mods[p->nmods].path = strdup(path);
	if (!p->mods[p->nmods].path) {
		u->stale = 1;
		return NULL;
	}
	p->mods[p->nmods].mod = m;
	p->mods[p->nmods++].base = start - pgoff;
	return m;
}

/* Reads a word of the process: from the stack copy, else the file. */
static bool pfr__memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			     void *arg)
{
	struct pfr__unwind *u = arg;
	uint64_t start, end, pgoff;
	const char *path;
	int fd;
	ssize_t r;

	(void)dwfl;
	if (addr >= u->sp && addr - u->sp <= u->us->size &&
	    u->us->size - (addr - u->sp) >= sizeof(*result)) {
		memcpy(result, u->us->stack + (addr - u->sp), sizeof(*result));
		return true;
	}
	if (u->map(u->arg, u->pid, addr, &start, &end, &pgoff, &path) ||
	    addr + sizeof(*result) > end)
		return false;
	if (!u->rd_path || strcmp(u->rd_path, path)) {
		fd = util_open_regular(path);
		if (fd < 0)
			return false;
		if (u->rd_fd >= 0)
			close(u->rd_fd);
		free(u->rd_path);
		u->rd_fd = fd;
		u->rd_path = strdup(path);
	}
	r = pread(u->rd_fd, result, sizeof(*result),
		  (off_t)(addr - start + pgoff));
	return r == (ssize_t)sizeof(*result);
}

static pid_t pfr__next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct pfr__unwind *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return (pid_t)u->pid;
}

static bool pfr__set_regs(Dwfl_Thread *thread, void *arg)
{
	struct pfr__unwind *u = arg;
	Dwarf_Word regs[17];

	for (int i = 0; i < 17; i++) {
		uint64_t v;

		if (pfr__ureg(u->us, pfr__x86_dwarf_to_perf[i], &v))
			return false;
		regs[i] = v;
	}
	return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks pfr__thread_cb = {
	.next_thread = pfr__next_thread,
	.memory_read = pfr__memory_read,
	.set_initial_registers = pfr__set_regs,
};

static int pfr__frame_cb(Dwfl_Frame *state, void *arg)
{
	struct pfr__unwind *u = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	pfr__report(u, pc);
	if (u->stale)
		return DWARF_CB_ABORT;
	if (!act)
		pc--; /* a return address: the call is the byte before */
	u->ips[u->n++] = pc;
	return u->n < u->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Process pid's kept Dwfl (a new one, in the least recently used slot,
 * when it has none), or NULL when out of memory. */
static struct pfr__unw_proc *pfr__unw_proc(struct pfr__unwind *u, uint32_t pid)
{
	struct pfr__unw_proc *p = NULL;

	for (int i = 0; i < PFR_UNW_PROCS; i++) {
		struct pfr__unw_proc *q = &u->procs[i];

		if (q->dwfl && q->pid == pid) {
			p = q;
			break;
		}
		if (!p || (p->dwfl && (!q->dwfl || q->used < p->used)))
			p = q;
	}
	if (!p->dwfl || p->pid != pid) {
		pfr__unw_proc_free(p);
		p->dwfl = dwfl_begin(&pfr__dwfl_cb);
		if (!p->dwfl)
			return NULL;
		p->pid = pid;
	}
	p->used = ++u->tick;
	return p;
}

/* One unwind of the sample set in u on its process's Dwfl. */
static void pfr__unwind_once(struct pfr__unwind *u, uint64_t ip)
{
	struct pfr__unw_proc *p = u->proc;

	u->n = 0;
	u->stale = 0;
	/* as perf: no frame at all when the ip is in no mapped file */
	if (!pfr__report(u, ip))
		return;
	/* the thread callbacks' argument is u, whose sample changes */
	if (!p->attached)
		p->attached = dwfl_attach_state(u->dwfl, NULL, (pid_t)p->pid,
						&pfr__thread_cb, u);
	if (p->attached)
		dwfl_getthread_frames(u->dwfl, (pid_t)p->pid, pfr__frame_cb, u);
}

int pfr__unwind_user(struct pfr__unwind *u, uint32_t pid,
		     const struct pfr__ustack *us, uint64_t *ips, int max)
{
	uint64_t ip;

	if (!u || us->abi != PERF_SAMPLE_REGS_ABI_64 || max <= 0 ||
	    pfr__ureg(us, 7, &u->sp) || pfr__ureg(us, 8, &ip))
		return 0;
	u->pid = pid;
	u->us = us;
	u->ips = ips;
	u->max = max;
	for (int pass = 0; pass < 2; pass++) {
		u->proc = pfr__unw_proc(u, pid);
		if (!u->proc)
			return 0;
		u->dwfl = u->proc->dwfl;
		pfr__unwind_once(u, ip);
		if (!u->stale)
			break;
		/* the process's files moved: again on a new Dwfl */
		pfr__unw_proc_free(u->proc);
		u->n = 0;
	}
	u->dwfl = NULL;
	u->proc = NULL;
	return u->n;
}

/* The file's Dwfl for inline look-ups (cached), or NULL. */
static struct pfr__inl_file *pfr__inl_file(struct pfr__unwind *u,
					   const char *path)
{
	struct pfr__inl_file *f;
	int fd;

	for (int i = 0; i < u->nfiles; i++)
		if (!strcmp(u->files[i].path, path))
			return &u->files[i];
	if (u->nfiles == PFR_INL_CACHE) { /* evict the oldest */
		pfr__inl_file_free(&u->files[0]);
		memmove(u->files, u->files + 1,
			sizeof(u->files[0]) * (PFR_INL_CACHE - 1));
		u->nfiles--;
	}
	f = &u->files[u->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path)
		return NULL;
	u->nfiles++;
	fd = util_open_regular(path);
	if (fd < 0)
		return f;
	f->dwfl = dwfl_begin(&pfr__dwfl_cb);
	if (f->dwfl) {
		dwfl_report_begin(f->dwfl);
		f->mod = dwfl_report_elf(f->dwfl, path, path, fd, 0, false);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	if (!f->mod)
		close(fd);
	return f;
}

/* A language whose names are their linkage names (binutils' list). */
static int pfr__non_mangled(int lang)
{
	switch (lang) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_Ada83:
	case DW_LANG_Cobol74:
	case DW_LANG_Cobol85:
	case DW_LANG_Fortran77:
	case DW_LANG_Pascal83:
	case DW_LANG_C99:
	case DW_LANG_Ada95:
	case DW_LANG_PLI:
	case DW_LANG_UPC:
	case DW_LANG_C11:
	case DW_LANG_Mips_Assembler:
		return 1;
	default:
		return 0;
	}
}

/*
 * The name of a function scope as binutils' addr2line -i -f gives it
 * (the names perf 6.1 shows for inlined frames): the linkage name, else
 * DW_AT_name.  For the innermost scope a DW_AT_name counts only in a
 * language without mangling; else binutils looks the address up in the
 * symbol table (sym, the symbol's name, stands in) and remembers that it
 * did: the next look-up through the same DIE gives its DW_AT_name, unless
 * the symbol starts where the DIE does (then the symbol's name for good).
 * Demangled as perf demangles; malloc'ed.
 */
static char *pfr__scope_name(struct pfr__inl_file *f, Dwarf_Die *d,
			     int innermost, int lang, const char *sym,
			     uint64_t sym_start)
{
	Dwarf_Attribute at;
	const char *ln = NULL, *n = dwarf_diename(d);
	Dwarf_Off off = dwarf_dieoffset(d);
	struct pfr__inl_die **b = &f->dies[off % PFR_INL_HASH], *e;
	Dwarf_Addr low;
	char *dm;

	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &at))
		ln = dwarf_formstring(&at);
	if (!ln && (!innermost || pfr__non_mangled(lang)))
		ln = n;
	if (!ln) {
		for (e = *b; e; e = e->next)
			if (e->off == off)
				return strdup(e->named ? e->named
					      : n      ? n
						       : sym);
		e = calloc(1, sizeof(*e));
		if (e) {
			e->off = off;
			if (dwarf_lowpc(d, &low) == 0 && low == sym_start)
				e->named = strdup(sym);
			e->next = *b;
			*b = e;
		}
		return strdup(sym);
	}
	dm = pfr__demangle(ln);
	return dm ? dm : strdup(ln);
}

static int pfr__is_func(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram;
}

/* The chain at addr from the file's DWARF (see pfr__unwind_inlines()). */
static int pfr__inl_lookup(struct pfr__inl_file *f, uint64_t addr,
			   const char *sym, uint64_t sym_start, char **names,
			   int max)
{
	Dwarf_Die *cu, *scopes = NULL, cur;
	Dwarf_Addr bias;
	int n = 0, ns, lang, found = 0;

	cu = dwfl_module_addrdie(f->mod, addr, &bias);
	if (!cu || !dwfl_module_getsrc(f->mod, addr))
		return 0;
	lang = dwarf_srclang(cu);
	ns = dwarf_getscopes(cu, addr - bias, &scopes);
	/* the innermost function; an inlined one's caller is found from
	 * its own DIE (getscopes continues into the abstract origin) */
	for (int i = 0; i < ns && !found; i++)
		if (pfr__is_func(&scopes[i])) {
			cur = scopes[i];
			found = 1;
		}
	free(scopes);
	while (found && n < max) {
		Dwarf_Die *chain = NULL;
		int m;

		names[n] = pfr__scope_name(f, &cur, n == 0, lang, sym,
					   sym_start + bias);
		if (names[n])
			n++;
		if (dwarf_tag(&cur) != DW_TAG_inlined_subroutine)
			break;
		m = dwarf_getscopes_die(&cur, &chain);
		found = 0;
		for (int i = 1; i < m && !found; i++)
			if (pfr__is_func(&chain[i])) {
				cur = chain[i];
				found = 1;
			}
		free(chain);
	}
	return n;
}

int pfr__unwind_inlines(struct pfr__unwind *u, const char *path, uint64_t addr,
			const char *sym, uint64_t sym_start, char **names,
			int max)
{
	struct pfr__inl_file *f = u ? pfr__inl_file(u, path) : NULL;
	struct pfr__inl_addr **b, *a;
	char *got[16];
	int n;

	if (!f || !f->mod)
		return 0;
	b = &f->addrs[addr % PFR_INL_HASH];
	for (a = *b; a; a = a->next)
		if (a->addr == addr)
			break;
	if (!a) { /* first look-up: as perf, keep the answer */
		n = pfr__inl_lookup(f, addr, sym, sym_start, got, 16);
		a = calloc(1, sizeof(*a));
		if (!a ||
		    !(a->names = calloc(n ? (size_t)n : 1, sizeof(char *)))) {
			for (int i = 0; i < n; i++)
				free(got[i]);
			free(a);
			return 0;
		}
		a->addr = addr;
		a->n = n;
		memcpy(a->names, got, (size_t)n * sizeof(char *));
		a->next = *b;
		*b = a;
	}
	n = 0;
	for (int i = 0; i < a->n && n < max; i++)
		if ((names[n] = strdup(a->names[i])))
			n++;
	return n;
}

#else
struct pfr__unwind *pfr__unwind_new(pfr__unwind_map_fn fn, void *arg)
{
	(void)fn;
	(void)arg;
	return NULL;
}

void pfr__unwind_free(struct pfr__unwind *u)
{
	(void)u;
}

int pfr__unwind_user(struct pfr__unwind *u, uint32_t pid,
		     const struct pfr__ustack *us, uint64_t *ips, int max)
{
	(void)u;
	(void)pid;
	(void)us;
	(void)ips;
	(void)max;
	return 0;
}

int pfr__unwind_inlines(struct pfr__unwind *u, const char *path, uint64_t addr,
			const char *sym, uint64_t sym_start, char **names,
			int max)
{
	(void)u;
	(void)sym;
	(void)sym_start;
	(void)path;
	(void)addr;
	(void)names;
	(void)max;
	return 0;
}
#endif
