/* SPDX-License-Identifier: MIT */
/*
 * Printing perf records: the state a printer needs (thread names, each
 * process's mappings, symbol tables) is rebuilt from the records as they
 * go by, in the order the caller gives them (timestamp order).  Symbols
 * come from the mapped files' ELF .symtab (or .dynsym) and, for the
 * kernel, /proc/kallsyms; files are only read, every offset in them is
 * checked before use.
 */
#include <elf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "perf_maps.h"
#include "perf_out.h"

#define PFR_HASH 1024

struct pfr_sym {
	uint64_t start, end;
	char *name;
};

struct pfr_seg {
	uint64_t off, vaddr, filesz;
};

struct pfr_dso {
	char *name;
	int loaded;
	struct pfr_sym *syms;
	size_t nsyms;
	struct pfr_seg segs[16];
	int nsegs;
	struct pfr_dso *next;
};

struct pfr_thr {
	uint32_t tid;
	char comm[32];
	struct pfr_thr *next;
};

struct pfr_out {
	FILE *f;
	unsigned flags;
	uint64_t bad;
	struct pfr_thr *thr[PFR_HASH];
	struct pfr__procs procs; /* each process's mappings (perf_maps.h) */
	struct pfr_dso *dsos[PFR_HASH];
	struct pfr_dso *kernel;
};

static unsigned pfr_hash_str(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % PFR_HASH;
}

struct pfr_out *pfr_out_new(FILE *f, unsigned flags)
{
	struct pfr_out *o = calloc(1, sizeof(*o));

	if (o) {
		o->f = f;
		o->flags = flags;
	}
	return o;
}

uint64_t pfr_out_bad(const struct pfr_out *o)
{
	return o->bad;
}

static struct pfr_thr *pfr_thread(struct pfr_out *o, uint32_t tid, int add)
{
	struct pfr_thr **b = &o->thr[tid % PFR_HASH], *t;

	for (t = *b; t; t = t->next)
		if (t->tid == tid)
			return t;
	if (!add)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), ":%u", tid);
	t->next = *b;
	*b = t;
	return t;
}

static const char *pfr_comm(struct pfr_out *o, uint32_t tid)
{
	struct pfr_thr *t = pfr_thread(o, tid, 0);

	return t ? t->comm : (tid == 0 ? "swapper" : ":-1");
}

static int pfr_sym_cmp(const void *a, const void *b)
{
	const struct pfr_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void pfr_add_sym(struct pfr_dso *d, size_t *cap, uint64_t start,
			uint64_t size, const char *name)
{
	if (d->nsyms == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct pfr_sym *s = realloc(d->syms, nc * sizeof(*s));

		if (!s)
			return;
		d->syms = s;
		*cap = nc;
	}
	d->syms[d->nsyms].start = start;
	d->syms[d->nsyms].end = start + size;
	d->syms[d->nsyms].name = strdup(name);
	if (d->syms[d->nsyms].name)
		d->nsyms++;
}

/* Sorts and gives size-0 symbols the room up to the next one. */
static void pfr_finish_syms(struct pfr_dso *d)
{
	if (!d->nsyms)
		return; /* qsort wants a valid pointer even for 0 */
	qsort(d->syms, d->nsyms, sizeof(*d->syms), pfr_sym_cmp);
	for (size_t i = 0; i < d->nsyms; i++)
		if (d->syms[i].end == d->syms[i].start)
			d->syms[i].end = i + 1 < d->nsyms
						 ? d->syms[i + 1].start
						 : d->syms[i].start + 1;
}

static void pfr_load_kallsyms(struct pfr_dso *d)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long a;
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 && a &&
		    (type == 't' || type == 'T' || type == 'w' || type == 'W'))
			pfr_add_sym(d, &cap, a, 0, name);
	fclose(f);
	pfr_finish_syms(d);
}

/*
 * ELF files named by MMAP records are untrusted and may change under us:
 * they are read with pread() into buffers (a file truncated while it is
 * read is a short read, where a mapping would raise SIGBUS), every offset
 * and size is checked against the file's size, and every ELF structure
 * is copied into a local before use (the file's offsets need not be
 * aligned).
 */
#define PFR_ELF_MAX (256u << 20) /* largest section read */

/* size bytes at off of an fd of len bytes, in a new buffer; NULL when out
 * of the file, too large, or short (truncated meanwhile). */
static unsigned char *pfr_elf_read(int fd, uint64_t len, uint64_t off,
				   uint64_t size)
{
	unsigned char *b;
	size_t got = 0;

	if (off > len || size > len - off || size > PFR_ELF_MAX)
		return NULL;
	b = malloc(size ? size : 1);
	if (!b)
		return NULL;
	while (got < size) {
		ssize_t r = pread(fd, b + got, size - got, (off_t)(off + got));

		if (r <= 0) {
			free(b);
			return NULL;
		}
		got += (size_t)r;
	}
	return b;
}

static void pfr_elf_shdr(const unsigned char *shdrs, int i, Elf64_Shdr *s)
{
	memcpy(s, shdrs + (size_t)i * sizeof(*s), sizeof(*s));
}

/* The GNU build id of an ELF64 file (from its SHT_NOTE sections) as hex
 * into hex[41]; 0 if found. */
static int pfr_build_id(int fd, uint64_t len, const Elf64_Ehdr *eh,
			const unsigned char *shdrs, char *hex)
{
	for (int i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr sh;
		unsigned char *m;
		uint64_t o = 0, end;

		pfr_elf_shdr(shdrs, i, &sh);
		if (sh.sh_type != SHT_NOTE)
			continue;
		m = pfr_elf_read(fd, len, sh.sh_offset, sh.sh_size);
		if (!m)
			continue;
		end = sh.sh_size;
		while (end - o >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr n;
			uint64_t nsz, dsz;

			memcpy(&n, m + o, sizeof(n));
			nsz = (n.n_namesz + 3ULL) & ~3ULL;
			dsz = (n.n_descsz + 3ULL) & ~3ULL;
			o += sizeof(n);
			if (nsz > end - o || dsz > end - o - nsz)
				break;
			if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
			    !memcmp(m + o, "GNU", 4) && n.n_descsz >= 2 &&
			    n.n_descsz <= 20) {
				for (uint32_t k = 0; k < n.n_descsz; k++)
					snprintf(hex + 2 * k, 3, "%02x",
						 m[o + nsz + k]);
				free(m);
				return 0;
			}
			o += nsz + dsz;
		}
		free(m);
	}
	return -1;
}

static void pfr_load_elf_file(struct pfr_dso *d, const char *path, int segs);

/* Reads function symbols and PT_LOAD segments of an ELF64 file; symbols
 * from its separate debug file (/usr/lib/debug/.build-id/) when one is
 * installed, as perf does. */
static void pfr_load_elf(struct pfr_dso *d)
{
	pfr_load_elf_file(d, d->name, 1);
}

/* Function symbols of one symbol table section. */
static void pfr_load_symtab(struct pfr_dso *d, size_t *cap, int fd,
			    uint64_t len, const Elf64_Shdr *s,
			    const Elf64_Shdr *strs)
{
	unsigned char *tab = pfr_elf_read(fd, len, s->sh_offset, s->sh_size);
	unsigned char *str =
		pfr_elf_read(fd, len, strs->sh_offset, strs->sh_size);
	size_t n = s->sh_size / sizeof(Elf64_Sym);

	for (size_t k = 0; tab && str && k < n; k++) {
		Elf64_Sym y;
		int t;
		const char *nm;

		memcpy(&y, tab + k * sizeof(y), sizeof(y));
		t = ELF64_ST_TYPE(y.st_info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC) || !y.st_value ||
		    y.st_name >= strs->sh_size)
			continue;
		nm = (const char *)str + y.st_name;
		if (!memchr(nm, 0, strs->sh_size - y.st_name))
			continue;
		pfr_add_sym(d, cap, y.st_value, y.st_size, nm);
	}
	free(tab);
	free(str);
}

static void pfr_load_elf_file(struct pfr_dso *d, const char *path, int segs)
{
	int fd;
	char bid[48];
	struct stat st;
	unsigned char *shdrs = NULL, *phdrs = NULL;
	Elf64_Ehdr eh;
	uint64_t len;
	size_t cap = 0;

	/* The path comes from a record (maybe a hostile file): only regular
	 * files are opened, never a FIFO or a device. */
	fd = pfr_cli_open_regular(path);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
	    pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
		goto out;
	len = (uint64_t)st.st_size;
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr))
		goto out;
	phdrs = pfr_elf_read(fd, len, eh.e_phoff,
			     (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr));
	if (!phdrs)
		goto out;
	for (int i = 0; segs && i < eh.e_phnum && d->nsegs < 16; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, phdrs + (size_t)i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD) {
			d->segs[d->nsegs].off = ph.p_offset;
			d->segs[d->nsegs].vaddr = ph.p_vaddr;
			d->segs[d->nsegs].filesz = ph.p_filesz;
			d->nsegs++;
		}
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr))
		goto out;
	shdrs = pfr_elf_read(fd, len, eh.e_shoff,
			     (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr));
	if (!shdrs)
		goto out;
	if (segs && !pfr_build_id(fd, len, &eh, shdrs, bid)) {
		char dbg[128];

		snprintf(dbg, sizeof(dbg),
			 "/usr/lib/debug/.build-id/%.2s/%s.debug", bid,
			 bid + 2);
		if (!access(dbg, R_OK))
			pfr_load_elf_file(d, dbg, 0);
		if (d->nsyms)
			goto out;
	}
	for (int pass = 0; pass < 2 && !d->nsyms; pass++) {
		uint32_t want = pass ? SHT_DYNSYM : SHT_SYMTAB;

		for (int i = 0; i < eh.e_shnum; i++) {
			Elf64_Shdr s, strs;

			pfr_elf_shdr(shdrs, i, &s);
			if (s.sh_type != want || s.sh_link >= eh.e_shnum)
				continue;
			pfr_elf_shdr(shdrs, (int)s.sh_link, &strs);
			pfr_load_symtab(d, &cap, fd, len, &s, &strs);
		}
	}
	pfr_finish_syms(d);
out:
	free(phdrs);
	free(shdrs);
	close(fd);
}

static struct pfr_dso *pfr_dso(struct pfr_out *o, const char *name)
{
	struct pfr_dso **b = &o->dsos[pfr_hash_str(name)], *d;

	for (d = *b; d; d = d->next)
		if (!strcmp(d->name, name))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->name = strdup(name);
	if (!d->name) {
		free(d);
		return NULL;
	}
	d->next = *b;
	*b = d;
	return d;
}

static const struct pfr_sym *pfr_find_sym(struct pfr_dso *d, uint64_t a)
{
	size_t lo = 0, hi = d->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a < d->syms[lo - 1].end)
		return &d->syms[lo - 1];
	return NULL;
}

int pfr_out_resolve(struct pfr_out *o, uint32_t pid, uint64_t ip, int kernel,
		    const char **sym, uint64_t *off, const char **dso)
{
	const struct pfr_sym *s;
	struct pfr_dso *d = NULL;
	uint64_t a = ip;

	*sym = "[unknown]";
	*off = 0;
	*dso = "[unknown]";
	if (kernel) {
		if (!o->kernel) {
			o->kernel = calloc(1, sizeof(*o->kernel));
			if (!o->kernel)
				return 0;
			o->kernel->name = strdup("[kernel.kallsyms]");
			if (!(o->flags & PFR_OUT_NO_SYMS))
				pfr_load_kallsyms(o->kernel);
			o->kernel->loaded = 1;
		}
		d = o->kernel;
	} else {
		const struct pfr__map *m = pfr__procs_find(&o->procs, pid, ip);

		if (!m)
			return 0;
		d = (struct pfr_dso *)m->dso;
		/* ip -> file offset -> link-time address */
		a = ip - m->start + m->pgoff;
		if (!d->loaded) {
			d->loaded = 1;
			if (!(o->flags & PFR_OUT_NO_SYMS))
				pfr_load_elf(d);
		}
		for (int k = 0; k < d->nsegs; k++)
			if (a >= d->segs[k].off &&
			    a - d->segs[k].off < d->segs[k].filesz) {
				a = a - d->segs[k].off + d->segs[k].vaddr;
				break;
			}
	}
	*dso = d->name;
	s = pfr_find_sym(d, a);
	if (!s)
		return 0;
	*sym = s->name;
	*off = a - s->start;
	return 1;
}

/* A process's mapping of file; a child process shares its parent's
 * mappings (perf_maps.h). */
static void pfr_add_map(struct pfr_out *o, uint32_t pid, uint64_t start,
			uint64_t len, uint64_t pgoff, const char *file)
{
	struct pfr_dso *d = pfr_dso(o, file);

	if (d)
		pfr__procs_mmap(&o->procs, pid, start, len, pgoff,
				(uintptr_t)d);
}

static void pfr_hex(FILE *f, const char *key, uint64_t v)
{
	fprintf(f, ",\"%s\":\"0x%llx\"", key, (unsigned long long)v);
}

/* The columns every perf script line starts with. */
static void pfr_line_start(struct pfr_out *o, const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	char comm[4 * sizeof(((struct pfr_thr *)0)->comm) + 1];

	pfr_cli_text_esc(comm, sizeof(comm), pfr_comm(o, r->tid));
	fprintf(f, "%16s %5d", comm, (int)r->tid);
	if (r->fields & PFR_PERF_F_CPU)
		fprintf(f, " [%03u]", r->cpu);
	if (r->fields & PFR_PERF_F_TIME)
		fprintf(f, " %5llu.%06llu:",
			(unsigned long long)(r->time / 1000000000ULL),
			(unsigned long long)(r->time % 1000000000ULL / 1000));
}

static void pfr_json_start(struct pfr_out *o, const struct pfr_perf_rec *r,
			   const char *tname)
{
	FILE *f = o->f;

	fprintf(f, "{\"type\":\"%s\"", tname);
	if (r->fields & PFR_PERF_F_TIME)
		fprintf(f, ",\"time\":%llu", (unsigned long long)r->time);
	if (r->fields & PFR_PERF_F_CPU)
		fprintf(f, ",\"cpu\":%u", r->cpu);
	if (r->fields & PFR_PERF_F_TID) {
		fprintf(f, ",\"pid\":%d,\"tid\":%d,\"comm\":", (int)r->pid,
			(int)r->tid);
		pfr_cli_json_str(f, pfr_comm(o, r->tid));
	}
}

static int pfr_is_kernel(uint16_t misc)
{
	unsigned m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL ||
	       m == PERF_RECORD_MISC_GUEST_KERNEL;
}

/* " ip sym+off (dso)" of a text line; names from files are escaped. */
static void pfr_print_ip(FILE *f, const char *lead, uint64_t ip, int found,
			 const char *sym, uint64_t off, const char *dso)
{
	fprintf(f, "%s%16llx ", lead, (unsigned long long)ip);
	pfr_cli_text_str(f, sym);
	if (found)
		fprintf(f, "+0x%llx", (unsigned long long)off);
	fputs(" (", f);
	pfr_cli_text_str(f, dso);
	fputs(")\n", f);
}

static void pfr_print_sample(struct pfr_out *o, const char *ev,
			     const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	const char *sym, *dso;
	uint64_t off;
	int found = pfr_out_resolve(o, r->pid, r->ip, pfr_is_kernel(r->misc),
				    &sym, &off, &dso);

	if (o->flags & PFR_OUT_JSON) {
		pfr_json_start(o, r, "SAMPLE");
		fprintf(f, ",\"event\":");
		pfr_cli_json_str(f, ev);
		if (r->fields & PFR_PERF_F_IP)
			pfr_hex(f, "ip", r->ip);
		if (r->fields & PFR_PERF_F_PERIOD)
			fprintf(f, ",\"period\":%llu",
				(unsigned long long)r->period);
		if (r->fields & PFR_PERF_F_ID)
			fprintf(f, ",\"id\":%llu", (unsigned long long)r->id);
		fprintf(f, ",\"sym\":");
		pfr_cli_json_str(f, sym);
		if (found)
			fprintf(f, ",\"symoff\":%llu", (unsigned long long)off);
		fprintf(f, ",\"dso\":");
		pfr_cli_json_str(f, dso);
		if (r->fields & PFR_PERF_F_CALLCHAIN) {
			fprintf(f, ",\"callchain\":[");
			for (uint64_t i = 0; i < r->nr_callchain; i++)
				fprintf(f, "%s\"0x%llx\"", i ? "," : "",
					(unsigned long long)pfr_perf_u64(
						r->callchain, i));
			fprintf(f, "]");
		}
		if (r->fields & PFR_PERF_F_RAW)
			fprintf(f, ",\"raw_size\":%u", r->raw_size);
		fprintf(f, "}\n");
		return;
	}
	pfr_line_start(o, r);
	if (r->fields & PFR_PERF_F_PERIOD)
		fprintf(f, " %10llu", (unsigned long long)r->period);
	fputc(' ', f);
	pfr_cli_text_str(f, ev);
	fputs(": ", f);
	if (r->fields & PFR_PERF_F_CALLCHAIN) {
		fprintf(f, "\n");
		for (uint64_t i = 0; i < r->nr_callchain; i++) {
			uint64_t ip = pfr_perf_u64(r->callchain, i);

			if (ip >= (uint64_t)PERF_CONTEXT_MAX)
				continue; /* context markers */
			found = pfr_out_resolve(o, r->pid, ip,
						ip >= 0xffff800000000000ULL,
						&sym, &off, &dso);
			pfr_print_ip(f, "\t", ip, found, sym, off, dso);
		}
		fprintf(f, "\n");
		return;
	}
	pfr_print_ip(f, " ", r->ip, found, sym, off, dso);
}

void pfr_out_record(struct pfr_out *o, const char *ev,
		    const struct pfr_perf_layout *lay,
		    const struct pfr_record_header *hdr, const void *payload,
		    uint32_t len)
{
	struct pfr_perf_rec r;
	const char *tname = pfr_perf_record_name(hdr->type);
	FILE *f = o->f;
	int json = o->flags & PFR_OUT_JSON;
	int print = f && !(o->flags & PFR_OUT_SAMPLES_ONLY);

	if (pfr_perf_decode(lay, hdr, payload, len, &r)) {
		o->bad++;
		return;
	}
	/* Side-band: update what later samples are printed against. */
	switch (r.type) {
	case PERF_RECORD_COMM: {
		struct pfr_thr *t = pfr_thread(o, r.u.comm.tid, 1);

		if (t)
			snprintf(t->comm, sizeof(t->comm), "%s", r.u.comm.comm);
		if (r.misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* exec: a new address space */
			pfr__procs_exec(&o->procs, r.u.comm.pid);
		}
		break;
	}
	case PERF_RECORD_FORK: {
		struct pfr_thr *pt = pfr_thread(o, r.u.task.ptid, 0);
		struct pfr_thr *t = pfr_thread(o, r.u.task.tid, 1);

		if (t && pt)
			memcpy(t->comm, pt->comm, sizeof(t->comm));
		pfr__procs_fork(&o->procs, r.u.task.pid, r.u.task.ppid);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!pfr_is_kernel(r.misc))
			pfr_add_map(o, r.u.mmap.pid, r.u.mmap.start,
				    r.u.mmap.len, r.u.mmap.pgoff,
				    r.u.mmap.filename);
		break;
	}
	if (!f)
		return;
	if (r.type == PERF_RECORD_SAMPLE) {
		pfr_print_sample(o, ev, &r);
		return;
	}
	if (!print || r.type == 68 /* FINISHED_ROUND */)
		return;
	if (!tname)
		tname = "UNKNOWN";
	if (json) {
		pfr_json_start(o, &r, tname);
		if (r.type >= 64 || !pfr_perf_record_name(r.type))
			fprintf(f, ",\"record_type\":%u", r.type);
		fprintf(f, ",\"size\":%u", r.size);
	} else {
		pfr_line_start(o, &r);
		fprintf(f, " PERF_RECORD_%s", tname);
	}
	switch (r.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (json) {
			fprintf(f, ",\"map_pid\":%d", (int)r.u.mmap.pid);
			pfr_hex(f, "start", r.u.mmap.start);
			pfr_hex(f, "len", r.u.mmap.len);
			pfr_hex(f, "pgoff", r.u.mmap.pgoff);
			fprintf(f, ",\"filename\":");
			pfr_cli_json_str(f, r.u.mmap.filename);
		} else {
			fprintf(f, " %d/%d: [0x%llx(0x%llx) @ 0x%llx]: ",
				(int)r.u.mmap.pid, (int)r.u.mmap.tid,
				(unsigned long long)r.u.mmap.start,
				(unsigned long long)r.u.mmap.len,
				(unsigned long long)r.u.mmap.pgoff);
			pfr_cli_text_str(f, r.u.mmap.filename);
		}
		break;
	case PERF_RECORD_COMM:
		if (json) {
			fprintf(f, ",\"exec\":%s,\"new_comm\":",
				(r.misc & PERF_RECORD_MISC_COMM_EXEC)
					? "true"
					: "false");
			pfr_cli_json_str(f, r.u.comm.comm);
		} else {
			fprintf(f, "%s: ",
				(r.misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec"
								      : "");
			pfr_cli_text_str(f, r.u.comm.comm);
			fprintf(f, ":%d/%d", (int)r.u.comm.pid,
				(int)r.u.comm.tid);
		}
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (json)
			fprintf(f,
				",\"task_pid\":%d,\"ppid\":%d,\"task_tid\":%d,"
				"\"ptid\":%d",
				(int)r.u.task.pid, (int)r.u.task.ppid,
				(int)r.u.task.tid, (int)r.u.task.ptid);
		else
			fprintf(f, "(%d:%d):(%d:%d)", (int)r.u.task.pid,
				(int)r.u.task.tid, (int)r.u.task.ppid,
				(int)r.u.task.ptid);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (json)
			fprintf(f, ",\"lost\":%llu",
				(unsigned long long)r.u.lost.lost);
		else
			fprintf(f, " lost %llu",
				(unsigned long long)r.u.lost.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (json)
			fprintf(f, ",\"throttle_time\":%llu",
				(unsigned long long)r.u.throttle.time);
		else
			fprintf(f, " %llu",
				(unsigned long long)r.u.throttle.time);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		int out = !!(r.misc & PERF_RECORD_MISC_SWITCH_OUT);

		if (json) {
			fprintf(f, ",\"out\":%s", out ? "true" : "false");
			if (r.type == PERF_RECORD_SWITCH_CPU_WIDE)
				fprintf(f,
					",\"next_prev_pid\":%d,"
					"\"next_prev_tid\":%d",
					(int)r.u.sw.next_prev_pid,
					(int)r.u.sw.next_prev_tid);
		} else {
			fprintf(f, " %s", out ? "OUT" : "IN ");
			if (r.type == PERF_RECORD_SWITCH_CPU_WIDE)
				fprintf(f, "  %s pid/tid: %5d/%-5d",
					out ? "next" : "prev",
					(int)r.u.sw.next_prev_pid,
					(int)r.u.sw.next_prev_tid);
		}
		break;
	}
	case PERF_RECORD_KSYMBOL:
		if (json) {
			pfr_hex(f, "addr", r.u.ksymbol.addr);
			fprintf(f, ",\"name\":");
			pfr_cli_json_str(f, r.u.ksymbol.name);
		} else {
			fprintf(f, " addr %llx len %u type %u flags 0x%x name ",
				(unsigned long long)r.u.ksymbol.addr,
				r.u.ksymbol.len, r.u.ksymbol.ksym_type,
				r.u.ksymbol.flags);
			pfr_cli_text_str(f, r.u.ksymbol.name);
		}
		break;
	default:
		if (!json)
			fprintf(f, " size %u", r.size);
		break;
	}
	fprintf(f, json ? "}\n" : "\n");
}

void pfr_out_free(struct pfr_out *o)
{
	if (!o)
		return;
	for (int i = 0; i < PFR_HASH; i++) {
		while (o->thr[i]) {
			struct pfr_thr *t = o->thr[i];

			o->thr[i] = t->next;
			free(t);
		}
		while (o->dsos[i]) {
			struct pfr_dso *d = o->dsos[i];

			o->dsos[i] = d->next;
			for (size_t k = 0; k < d->nsyms; k++)
				free(d->syms[k].name);
			free(d->syms);
			free(d->name);
			free(d);
		}
	}
	pfr__procs_free(&o->procs);
	if (o->kernel) {
		for (size_t k = 0; k < o->kernel->nsyms; k++)
			free(o->kernel->syms[k].name);
		free(o->kernel->syms);
		free(o->kernel->name);
		free(o->kernel);
	}
	free(o);
}
