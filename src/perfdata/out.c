/* SPDX-License-Identifier: MIT */
/*
 * Printing perf records: the state a printer needs (thread names, each
 * process's mappings, symbol tables) is rebuilt from the records as they
 * go by, in the order the caller gives them (timestamp order).  Symbols
 * come from the mapped files' ELF symbol tables (perf_elf.c) and, for the
 * kernel, /proc/kallsyms; tracepoint fields from the formats the file
 * stores (perf_trace.c).  The text follows perf script's default fields.
 */
#include <elf.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/util.h"
#include "buildid.h"
#include "elf.h"
#include "perf/perf_maps.h"
#include "out.h"
#include "trace.h"
#include "unwind.h"

#define PFR_HASH 1024

/* A mapped file as a record names it.  Names that reach one file
 * (/usr/lib/x and /usr/./lib/x, links) share the symbol table of the
 * first one loaded: same points at it, found by the file's identity. */
struct pfr_dso {
	char *name;
	int loaded;
	struct pfr__symtab tab;
	struct pfr_dso *next;
	struct pfr_dso *same; /* the table's owner, or NULL: this one */
	uint64_t dev, ino; /* the loaded file's identity (owners only) */
	struct pfr_dso *id_next; /* owners hashed by identity */
};

struct pfr__thr {
	uint32_t tid;
	int named; /* comm came from a COMM record (maybe via a parent) */
	char comm[32];
	struct pfr__thr *next;
};

struct pfr__out {
	FILE *f;
	unsigned flags;
	uint64_t bad;
	struct pfr__thr *thr[PFR_HASH];
	struct pfr__procs procs; /* each process's mappings (perf_maps.h) */
	struct pfr_dso *dsos[PFR_HASH];
	struct pfr_dso *objs[PFR_HASH]; /* loaded files, by dev and inode */
	struct pfr_dso *kernel;
	struct pfr__trace *trace; /* tracepoint formats, or NULL */
	char anon[16]; /* pfr__comm() of an unnamed thread */
	int own_trace; /* trace is freed with o */
	int styled; /* style is set: perf script's options */
	struct pfr__out_style style;
	uint64_t t0; /* --reltime: the first record's time */
	struct pfr__unwind *unwind; /* DWARF call chains, or NULL */
	struct pfr__bids bids; /* the file's HEADER_BUILD_ID */
	char *bid_dir; /* the build-id cache, or NULL */
};

static unsigned pfr__hash_str(const char *s)
{
	unsigned h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % PFR_HASH;
}

struct pfr__out *pfr__out_new(FILE *f, unsigned flags)
{
	struct pfr__out *o = calloc(1, sizeof(*o));

	if (o) {
		o->f = f;
		o->flags = flags;
	}
	return o;
}

uint64_t pfr__out_bad(const struct pfr__out *o)
{
	return o->bad;
}

static struct pfr__thr *pfr__thread(struct pfr__out *o, uint32_t tid, int add)
{
	struct pfr__thr **b = &o->thr[tid % PFR_HASH], *t;

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

/* A thread's name; one no record named is ":TID", as in perf script. */
static const char *pfr__comm(struct pfr__out *o, uint32_t tid)
{
	struct pfr__thr *t = pfr__thread(o, tid, 0);

	if (t)
		return t->comm;
	if (tid == 0)
		return "swapper";
	snprintf(o->anon, sizeof(o->anon), ":%d", (int)tid);
	return o->anon;
}

static void pfr__load_kallsyms(struct pfr__symtab *t, const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	char line[512], type, *e, *name;
	unsigned long long a;
	size_t n;

	if (!f)
		return;
	/* "ADDR TYPE NAME[\t[MODULE]]" lines, some 10^5 of them: parsed by
	 * hand and read in large blocks (sscanf and 4 KiB reads cost a
	 * reader of a short file more than its samples do) */
	setvbuf(f, NULL, _IOFBF, 1u << 20);
	while (fgets(line, sizeof(line), f)) {
		a = strtoull(line, &e, 16);
		if (e == line || *e != ' ' || !a || !e[1] || e[2] != ' ')
			continue;
		type = e[1];
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		name = e + 3;
		n = strcspn(name, " \t\n");
		if (!n)
			continue;
		name[n < 255 ? n : 255] = 0;
		pfr__symtab_add(t, a, 0, name,
				type == 'w' || type == 'W' ? STB_WEAK
				: type == 'T'		   ? STB_GLOBAL
							   : STB_LOCAL);
	}
	fclose(f);
	pfr__symtab_finish(t, 0);
}

static struct pfr_dso *pfr_dso(struct pfr__out *o, const char *name)
{
	struct pfr_dso **b = &o->dsos[pfr__hash_str(name)], *d;

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

/*
 * Loads d's symbols once per file: the file d names is opened and its
 * device and inode looked up among the files already loaded; d shares
 * the table of the one found, else loads its own and joins them.
 */
static void pfr__dso_load(struct pfr__out *o, struct pfr_dso *d)
{
	struct pfr_dso **b, *e;
	struct stat st;
	char cached[4096];
	/* the file the recording saw: the cache's copy when the one at the
	 * path is gone or rebuilt (buildid.h) */
	const char *path = pfr__bid_symfile(&o->bids, o->bid_dir, d->name,
					    cached, sizeof(cached));
	int fd = path ? util_open_regular(path) : -1;

	if (fd < 0)
		return; /* nothing to load: no symbols */
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	close(fd);
	b = &o->objs[((uint64_t)st.st_ino * 31 + (uint64_t)st.st_dev) %
		     PFR_HASH];
	for (e = *b; e; e = e->id_next)
		if (e->ino == (uint64_t)st.st_ino &&
		    e->dev == (uint64_t)st.st_dev) {
			d->same = e;
			return;
		}
	pfr__elf_load(&d->tab, path);
	d->dev = (uint64_t)st.st_dev;
	d->ino = (uint64_t)st.st_ino;
	d->id_next = *b;
	*b = d;
}

/* What an address resolves to. */
struct pfr__loc {
	const char *sym, *dso;
	uint64_t off; /* into sym */
	uint64_t addr; /* as perf script shows a frame: in its dso */
	uint64_t vaddr; /* its link-time address */
	int found;
};

static struct pfr_dso *pfr__kernel(struct pfr__out *o)
{
	char ksyms[4096];

	if (!o->kernel) {
		o->kernel = calloc(1, sizeof(*o->kernel));
		if (!o->kernel)
			return NULL;
		o->kernel->name = strdup("[kernel.kallsyms]");
		if (!o->kernel->name) {
			free(o->kernel);
			return o->kernel = NULL;
		}
		/* the running kernel's, else the cache's (buildid.h) */
		if (!(o->flags & PFR_OUT_NO_SYMS))
			pfr__load_kallsyms(&o->kernel->tab,
					   pfr__bid_kallsyms(&o->bids,
							     o->bid_dir, ksyms,
							     sizeof(ksyms)));
		o->kernel->loaded = 1;
	}
	return o->kernel;
}

static void pfr__locate(struct pfr__out *o, uint32_t pid, uint64_t ip,
			int kernel, struct pfr__loc *l)
{
	const struct pfr__symtab *t;
	const struct pfr__sym *s;
	struct pfr_dso *d;
	uint64_t a = ip;

	*l = (struct pfr__loc){"[unknown]", "[unknown]", 0, ip, ip, 0};
	if (kernel) {
		d = pfr__kernel(o);
		if (!d)
			return;
		t = &d->tab;
	} else {
		const struct pfr__map *m = pfr__procs_find(&o->procs, pid, ip);

		if (!m)
			return;
		d = (struct pfr_dso *)m->dso;
		/* ip -> file offset -> link-time address */
		a = l->addr = ip - m->start + m->pgoff;
		if (!d->loaded) {
			d->loaded = 1;
			if (!(o->flags & PFR_OUT_NO_SYMS))
				pfr__dso_load(o, d);
		}
		t = d->same ? &d->same->tab : &d->tab;
		for (int k = 0; k < t->nsegs; k++) {
			const struct pfr__seg *g = &t->segs[k];

			if (a >= g->off && a - g->off < g->filesz) {
				a = a - g->off + g->vaddr;
				break;
			}
		}
	}
	l->dso = d->name;
	l->vaddr = a;
	s = pfr__symtab_find(t, a);
	if (s) {
		l->sym = s->name;
		l->off = a - s->start;
		l->found = 1;
	}
}

int pfr__out_resolve(struct pfr__out *o, uint32_t pid, uint64_t ip, int kernel,
		     const char **sym, uint64_t *off, const char **dso)
{
	struct pfr__loc l;

	pfr__locate(o, pid, ip, kernel, &l);
	*sym = l.sym;
	*off = l.off;
	*dso = l.dso;
	return l.found;
}

int pfr__out_read_buildids(struct pfr__out *o, const char *path,
			   const char *dir)
{
	char buf[4096];

	if (!pfr__bid_cache_dir(dir, buf, sizeof(buf)) ||
	    !(o->bid_dir = strdup(buf)))
		return -1;
	return pfr__bids_read(&o->bids, path);
}

void pfr__out_set_trace(struct pfr__out *o, struct pfr__trace *t)
{
	o->trace = t;
}

void pfr__out_take_trace(struct pfr__out *o, struct pfr__trace *t)
{
	if (o->own_trace)
		pfr__trace_free(o->trace);
	o->trace = t;
	o->own_trace = 1;
}

/* A process's mapping of file; a child process shares its parent's
 * mappings (perf_maps.h). */
static void pfr__add_map(struct pfr__out *o, uint32_t pid, uint64_t start,
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

/* The columns every perf script line starts with; as in perf script,
 * the command is not padded when a call chain follows. */
static void pfr__line_start(struct pfr__out *o, const struct pfr_perf_rec *r,
			    int pad)
{
	FILE *f = o->f;
	char comm[4 * sizeof(((struct pfr__thr *)0)->comm) + 1];

	util_text_esc(comm, sizeof(comm), pfr__comm(o, r->tid));
	fprintf(f, pad ? "%16s %5d" : "%s %5d", comm, (int)r->tid);
	if (r->fields & PFR_PERF_F_CPU)
		fprintf(f, " [%03u]", r->cpu);
	if (r->fields & PFR_PERF_F_TIME)
		fprintf(f, " %5llu.%06llu:",
			(unsigned long long)(r->time / 1000000000ULL),
			(unsigned long long)(r->time % 1000000000ULL / 1000));
}

static void pfr__json_start(struct pfr__out *o, const struct pfr_perf_rec *r,
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
		util_json_str(f, pfr__comm(o, r->tid));
	}
}

static int pfr__is_kernel(uint16_t misc)
{
	unsigned m = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return m == PERF_RECORD_MISC_KERNEL ||
	       m == PERF_RECORD_MISC_GUEST_KERNEL;
}

/* " ip sym+off (dso)" of a text line; names from files are escaped. */
static void pfr__print_ip(FILE *f, const char *lead, uint64_t ip,
			  const struct pfr__loc *l)
{
	fprintf(f, "%s%16llx ", lead, (unsigned long long)ip);
	util_text_str(f, l->sym);
	if (l->found)
		fprintf(f, "+0x%llx", (unsigned long long)l->off);
	fputs(" (", f);
	util_text_str(f, l->dso);
	fputs(")\n", f);
}

/* Resolves call chain entry i of r: 0, or -1 for a context marker.  The
 * markers say whose addresses follow; before any, the address does. */
static int pfr__frame(struct pfr__out *o, const struct pfr_perf_rec *r,
		      uint64_t i, int *kernel, uint64_t *ip, struct pfr__loc *l)
{
	*ip = pfr_perf_u64(r->callchain, i);
	if (*ip >= (uint64_t)PERF_CONTEXT_MAX) {
		*kernel = *ip == (uint64_t)PERF_CONTEXT_KERNEL ||
			  *ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
		return -1;
	}
	if (*kernel < 0)
		*kernel = *ip >= 0xffff800000000000ULL;
	pfr__locate(o, r->pid, *ip, *kernel, l);
	return 0;
}

static void pfr__json_frames(struct pfr__out *o, const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	int kernel = -1, n = 0;
	struct pfr__loc l;
	uint64_t ip;

	if (!(o->flags & PFR_OUT_JSON_PY)) { /* scripts take the frames */
		fprintf(f, ",\"callchain\":[");
		for (uint64_t i = 0; i < r->nr_callchain; i++)
			fprintf(f, "%s\"0x%llx\"", i ? "," : "",
				(unsigned long long)pfr_perf_u64(r->callchain,
								 i));
		fputc(']', f);
	}
	fprintf(f, ",\"frames\":[");
	for (uint64_t i = 0; i < r->nr_callchain; i++) {
		if (pfr__frame(o, r, i, &kernel, &ip, &l))
			continue;
		fprintf(f, "%s{\"ip\":\"0x%llx\",\"addr\":\"0x%llx\",\"sym\":",
			n++ ? "," : "", (unsigned long long)ip,
			(unsigned long long)l.addr);
		util_json_str(f, l.sym);
		if (l.found)
			fprintf(f, ",\"symoff\":%llu",
				(unsigned long long)l.off);
		fprintf(f, ",\"dso\":");
		util_json_str(f, l.dso);
		fputc('}', f);
	}
	fputc(']', f);
}

/* What perf's Python scripts get beyond --json's keys (PFR_OUT_JSON_PY):
 * the cpumode bits, the ip in its dso, the data address and the raw data,
 * in hex. */
static void pfr__json_py(FILE *f, const struct pfr_perf_rec *r,
			 const struct pfr__loc *l)
{
	const unsigned char *p = r->raw;

	fprintf(f, ",\"misc\":%u,\"dso_addr\":\"0x%llx\"", (unsigned)r->misc,
		(unsigned long long)l->addr);
	if (r->fields & PFR_PERF_F_ADDR)
		fprintf(f, ",\"addr\":%llu", (unsigned long long)r->addr);
	if (!(r->fields & PFR_PERF_F_RAW) || !p)
		return;
	fputs(",\"raw\":\"", f);
	for (uint32_t i = 0; i < r->raw_size; i++) {
		putc("0123456789abcdef"[p[i] >> 4], f);
		putc("0123456789abcdef"[p[i] & 15], f);
	}
	putc('"', f);
}

static void pfr__json_sample(struct pfr__out *o, const char *ev,
			     const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	struct pfr__loc l;

	pfr__locate(o, r->pid, r->ip, pfr__is_kernel(r->misc), &l);
	pfr__json_start(o, r, "SAMPLE");
	fprintf(f, ",\"event\":");
	util_json_str(f, ev);
	if (r->fields & PFR_PERF_F_IP)
		pfr_hex(f, "ip", r->ip);
	if (r->fields & PFR_PERF_F_PERIOD)
		fprintf(f, ",\"period\":%llu", (unsigned long long)r->period);
	if (r->fields & PFR_PERF_F_ID)
		fprintf(f, ",\"id\":%llu", (unsigned long long)r->id);
	fprintf(f, ",\"sym\":");
	util_json_str(f, l.sym);
	if (l.found)
		fprintf(f, ",\"symoff\":%llu", (unsigned long long)l.off);
	fprintf(f, ",\"dso\":");
	util_json_str(f, l.dso);
	if (r->fields & PFR_PERF_F_CALLCHAIN)
		pfr__json_frames(o, r);
	if (o->flags & PFR_OUT_JSON_PY)
		pfr__json_py(f, r, &l);
	if (r->fields & PFR_PERF_F_RAW) {
		fprintf(f, ",\"raw_size\":%u", r->raw_size);
		pfr__trace_print(o->trace, f,
				 o->flags & PFR_OUT_JSON_PY ? 2 : 1, r->raw,
				 r->raw_size);
	}
	fprintf(f, "}\n");
}

/*
 * A sample as perf script prints it by default: for a tracepoint, its
 * fields as the event's format prints them; for another event, the
 * period and the sample's ip with its symbol.  A call chain follows as
 * one "\t addr sym+off (dso)" line per frame (a user frame's address as
 * an offset into its file, as perf shows it) and an empty line.
 */
static void pfr__print_sample(struct pfr__out *o, const char *ev,
			      const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	int chain = !!(r->fields & PFR_PERF_F_CALLCHAIN), kernel = -1;
	int tp = (r->fields & PFR_PERF_F_RAW) &&
		 pfr__trace_print(o->trace, NULL, 0, r->raw, r->raw_size);
	struct pfr__loc l;
	uint64_t ip;

	if (o->flags & PFR_OUT_JSON) {
		pfr__json_sample(o, ev, r);
		return;
	}
	pfr__line_start(o, r, !chain);
	if (!tp && (r->fields & PFR_PERF_F_PERIOD))
		fprintf(f, " %10llu", (unsigned long long)r->period);
	fputc(' ', f);
	util_text_str(f, ev);
	fputs(": ", f);
	if (tp)
		pfr__trace_print(o->trace, f, 0, r->raw, r->raw_size);
	if (chain) {
		fputc('\n', f);
		for (uint64_t i = 0; i < r->nr_callchain; i++)
			if (!pfr__frame(o, r, i, &kernel, &ip, &l))
				pfr__print_ip(f, "\t", l.addr, &l);
		fputc('\n', f);
	} else if (tp) {
		fputc('\n', f);
	} else {
		pfr__locate(o, r->pid, r->ip, pfr__is_kernel(r->misc), &l);
		pfr__print_ip(f, " ", r->ip, &l);
	}
}

/* Side-band: updates what later samples are printed against. */
static void pfr__track(struct pfr__out *o, const struct pfr_perf_rec *r)
{
	switch (r->type) {
	case PERF_RECORD_COMM: {
		struct pfr__thr *t = pfr__thread(o, r->u.comm.tid, 1);

		if (t) {
			snprintf(t->comm, sizeof(t->comm), "%s",
				 r->u.comm.comm);
			t->named = 1;
		}
		if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
			/* exec: a new address space */
			pfr__procs_exec(&o->procs, r->u.comm.pid);
		}
		break;
	}
	case PERF_RECORD_FORK: {
		struct pfr__thr *pt = pfr__thread(o, r->u.task.ptid, 0);
		struct pfr__thr *t = pfr__thread(o, r->u.task.tid, 1);

		if (t && t != pt) { /* a new thread, maybe a reused tid */
			snprintf(t->comm, sizeof(t->comm), ":%u", t->tid);
			t->named = 0;
		}
		/* a parent no COMM named passes on no name (perf's rule);
		 * tid 0 is perf's "swapper", named */
		if (t && pt && t != pt && pt->named) {
			memcpy(t->comm, pt->comm, sizeof(t->comm));
			t->named = 1;
		} else if (t && !pt && r->u.task.ptid == 0 && t->tid != 0) {
			snprintf(t->comm, sizeof(t->comm), "swapper");
			t->named = 1;
		}
		pfr__procs_fork(&o->procs, r->u.task.pid, r->u.task.ppid);
		break;
	}
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (!pfr__is_kernel(r->misc))
			pfr__add_map(o, r->u.mmap.pid, r->u.mmap.start,
				     r->u.mmap.len, r->u.mmap.pgoff,
				     r->u.mmap.filename);
		break;
	}
}

/* The fields of a side-band record after its type. */
static void pfr__print_side(struct pfr__out *o, const struct pfr_perf_rec *r)
{
	FILE *f = o->f;
	int json = o->flags & PFR_OUT_JSON;

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (json) {
			fprintf(f, ",\"map_pid\":%d", (int)r->u.mmap.pid);
			pfr_hex(f, "start", r->u.mmap.start);
			pfr_hex(f, "len", r->u.mmap.len);
			pfr_hex(f, "pgoff", r->u.mmap.pgoff);
			fprintf(f, ",\"filename\":");
			util_json_str(f, r->u.mmap.filename);
		} else {
			fprintf(f, " %d/%d: [0x%llx(0x%llx) @ 0x%llx]: ",
				(int)r->u.mmap.pid, (int)r->u.mmap.tid,
				(unsigned long long)r->u.mmap.start,
				(unsigned long long)r->u.mmap.len,
				(unsigned long long)r->u.mmap.pgoff);
			util_text_str(f, r->u.mmap.filename);
		}
		break;
	case PERF_RECORD_COMM:
		if (json) {
			fprintf(f, ",\"exec\":%s,\"new_comm\":",
				(r->misc & PERF_RECORD_MISC_COMM_EXEC)
					? "true"
					: "false");
			util_json_str(f, r->u.comm.comm);
		} else {
			fprintf(f, "%s: ",
				(r->misc & PERF_RECORD_MISC_COMM_EXEC) ? " exec"
								       : "");
			util_text_str(f, r->u.comm.comm);
			fprintf(f, ":%d/%d", (int)r->u.comm.pid,
				(int)r->u.comm.tid);
		}
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (json)
			fprintf(f,
				",\"task_pid\":%d,\"ppid\":%d,\"task_tid\":%d,"
				"\"ptid\":%d",
				(int)r->u.task.pid, (int)r->u.task.ppid,
				(int)r->u.task.tid, (int)r->u.task.ptid);
		else
			fprintf(f, "(%d:%d):(%d:%d)", (int)r->u.task.pid,
				(int)r->u.task.tid, (int)r->u.task.ppid,
				(int)r->u.task.ptid);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		if (json)
			fprintf(f, ",\"lost\":%llu",
				(unsigned long long)r->u.lost.lost);
		else
			fprintf(f, " lost %llu",
				(unsigned long long)r->u.lost.lost);
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		if (json)
			fprintf(f, ",\"throttle_time\":%llu",
				(unsigned long long)r->u.throttle.time);
		else
			fprintf(f, " %llu",
				(unsigned long long)r->u.throttle.time);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE: {
		int out = !!(r->misc & PERF_RECORD_MISC_SWITCH_OUT);

		if (json) {
			fprintf(f, ",\"out\":%s", out ? "true" : "false");
			if (r->type == PERF_RECORD_SWITCH_CPU_WIDE)
				fprintf(f,
					",\"next_prev_pid\":%d,"
					"\"next_prev_tid\":%d",
					(int)r->u.sw.next_prev_pid,
					(int)r->u.sw.next_prev_tid);
		} else {
			fprintf(f, " %s", out ? "OUT" : "IN ");
			if (r->type == PERF_RECORD_SWITCH_CPU_WIDE)
				fprintf(f, "  %s pid/tid: %5d/%-5d",
					out ? "next" : "prev",
					(int)r->u.sw.next_prev_pid,
					(int)r->u.sw.next_prev_tid);
		}
		break;
	}
	case PERF_RECORD_KSYMBOL:
		if (json) {
			pfr_hex(f, "addr", r->u.ksymbol.addr);
			fprintf(f, ",\"name\":");
			util_json_str(f, r->u.ksymbol.name);
		} else {
			fprintf(f, " addr %llx len %u type %u flags 0x%x name ",
				(unsigned long long)r->u.ksymbol.addr,
				r->u.ksymbol.len, r->u.ksymbol.ksym_type,
				r->u.ksymbol.flags);
			util_text_str(f, r->u.ksymbol.name);
		}
		break;
	default:
		if (!json)
			fprintf(f, " size %u", r->size);
		break;
	}
}

void pfr__out_record(struct pfr__out *o, const char *ev,
		     const struct pfr_perf_layout *lay,
		     const struct pfr_record_header *hdr, const void *payload,
		     uint32_t len)
{
	struct pfr_perf_rec r;
	const char *tname = pfr_perf_record_name(hdr->type);
	FILE *f = o->f;
	int json = o->flags & PFR_OUT_JSON;

	if (pfr_perf_decode(lay, hdr, payload, len, &r)) {
		o->bad++;
		return;
	}
	pfr__track(o, &r);
	if (!f)
		return;
	if (r.type == PERF_RECORD_SAMPLE) {
		pfr__print_sample(o, ev, &r);
		return;
	}
	if ((o->flags & PFR_OUT_SAMPLES_ONLY) ||
	    r.type == 68 /* FINISHED_ROUND */)
		return;
	if (!tname)
		tname = "UNKNOWN";
	if (json) {
		pfr__json_start(o, &r, tname);
		if (r.type >= 64 || !pfr_perf_record_name(r.type))
			fprintf(f, ",\"record_type\":%u", r.type);
		fprintf(f, ",\"size\":%u", r.size);
	} else {
		pfr__line_start(o, &r, 1);
		fprintf(f, " PERF_RECORD_%s", tname);
	}
	pfr__print_side(o, &r);
	fprintf(f, json ? "}\n" : "\n");
}

void pfr__out_free(struct pfr__out *o)
{
	if (!o)
		return;
	for (int i = 0; i < PFR_HASH; i++) {
		while (o->thr[i]) {
			struct pfr__thr *t = o->thr[i];

			o->thr[i] = t->next;
			free(t);
		}
		while (o->dsos[i]) {
			struct pfr_dso *d = o->dsos[i];

			o->dsos[i] = d->next;
			pfr__symtab_free(&d->tab);
			free(d->name);
			free(d);
		}
	}
	pfr__procs_free(&o->procs);
	pfr__unwind_free(o->unwind);
	pfr__bids_free(&o->bids);
	free(o->bid_dir);
	if (o->own_trace)
		pfr__trace_free(o->trace);
	if (o->kernel) {
		pfr__symtab_free(&o->kernel->tab);
		free(o->kernel->name);
		free(o->kernel);
	}
	free(o);
}

/* --- perf script's options (pfr__out_style) --- */

int pfr__out_type(uint32_t attr_type)
{
	return attr_type < PERF_TYPE_MAX ? (int)attr_type : PFR_OUT_NTYPES - 1;
}

unsigned pfr__out_default_fields(int t)
{
	unsigned base = PFR_FLD_COMM | PFR_FLD_TID | PFR_FLD_CPU |
			PFR_FLD_TIME | PFR_FLD_EVENT;
	unsigned ip = PFR_FLD_IP | PFR_FLD_SYM | PFR_FLD_SYMOFF | PFR_FLD_DSO |
		      PFR_FLD_PERIOD;

	if (t == PERF_TYPE_TRACEPOINT)
		return base | PFR_FLD_TRACE;
	if (t == PERF_TYPE_RAW)
		return base | ip | PFR_FLD_ADDR;
	return base | ip;
}

/* Whether the samples of attr carry what field needs. */
static int pfr__fld_present(const struct perf_event_attr *a, unsigned fld)
{
	uint64_t st = a->sample_type;

	switch (fld) {
	case PFR_FLD_TID:
	case PFR_FLD_PID:
		return !!(st & PERF_SAMPLE_TID);
	case PFR_FLD_TIME:
		return !!(st & PERF_SAMPLE_TIME);
	case PFR_FLD_CPU:
		return !!(st & PERF_SAMPLE_CPU);
	case PFR_FLD_PERIOD:
		return !!(st & PERF_SAMPLE_PERIOD);
	case PFR_FLD_ADDR:
		return !!(st & PERF_SAMPLE_ADDR);
	case PFR_FLD_IP:
	case PFR_FLD_SYM:
	case PFR_FLD_SYMOFF:
	case PFR_FLD_DSO:
		return !!(st & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR));
	case PFR_FLD_TRACE:
		return !!(st & PERF_SAMPLE_RAW);
	default:
		return 1;
	}
}

void pfr__out_ev_init(struct pfr__out_ev *e, const struct pfr__out_style *s,
		      const char *name, const struct perf_event_attr *attr,
		      const struct pfr_perf_layout *lay, int any_chain)
{
	int t = pfr__out_type(attr->type);
	unsigned fl;

	memset(e, 0, sizeof(*e));
	e->name = name;
	e->attr = attr;
	e->lay = *lay;
	e->chain = (attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
		   !s->hide_callgraph;
	if (s->user_set & (1u << t)) {
		fl = s->fields[t];
	} else {
		fl = pfr__out_default_fields(t);
		/* perf: a tracepoint shows its call chain when it has one */
		if (t == PERF_TYPE_TRACEPOINT && any_chain && e->chain)
			fl |= PFR_FLD_IP | PFR_FLD_SYM | PFR_FLD_SYMOFF |
			      PFR_FLD_DSO;
	}
	/* what the samples lack is dropped (perf's rule for defaults and
	 * for -F TYPE:LIST; the caller refuses a missing -F LIST field) */
	for (unsigned b = 1; b <= PFR_FLD_ADDR; b <<= 1)
		if ((fl & b) && !pfr__fld_present(attr, b))
			fl &= ~b;
	e->fields = fl;
}

static int pfr__unwind_map(void *arg, uint32_t pid, uint64_t addr,
			   uint64_t *start, uint64_t *end, uint64_t *pgoff,
			   const char **path)
{
	struct pfr__out *o = arg;
	const struct pfr__map *m = pfr__procs_find(&o->procs, pid, addr);

	if (!m)
		return -1;
	*start = m->start;
	*end = m->end;
	*pgoff = m->pgoff;
	*path = ((struct pfr_dso *)m->dso)->name;
	return 0;
}

void pfr__out_set_style(struct pfr__out *o, const struct pfr__out_style *s)
{
	o->style = *s;
	o->styled = 1;
	if (!o->unwind && !(o->flags & PFR_OUT_NO_SYMS))
		o->unwind = pfr__unwind_new(pfr__unwind_map, o);
}

/* perf_sample__fprintf_start(): comm, pid/tid, cpu, time. */
static void pfr__style_start(struct pfr__out *o, const struct pfr__out_ev *e,
			     const struct pfr_perf_rec *r, uint32_t ctid)
{
	char comm[4 * sizeof(((struct pfr__thr *)0)->comm) + 1], t[48];
	unsigned fl = e->fields;
	FILE *f = o->f;

	if (fl & PFR_FLD_COMM) {
		util_text_esc(comm, sizeof(comm), pfr__comm(o, ctid));
		fprintf(f, (fl & PFR_FLD_IP) && e->chain ? "%s " : "%16s ",
			comm);
	}
	if ((fl & PFR_FLD_PID) && (fl & PFR_FLD_TID))
		fprintf(f, "%5d/%-5d ", (int)r->pid, (int)r->tid);
	else if (fl & PFR_FLD_PID)
		fprintf(f, "%5d ", (int)r->pid);
	else if (fl & PFR_FLD_TID)
		fprintf(f, "%5d ", (int)r->tid);
	if (fl & PFR_FLD_CPU)
		fprintf(f, "[%03u] ", r->cpu);
	if (fl & PFR_FLD_TIME) {
		uint64_t v = r->time;

		if (o->style.reltime) {
			if (!o->t0)
				o->t0 = v;
			v -= o->t0;
		}
		if (o->style.ns) {
			fprintf(f, "%5llu.%09llu: ",
				(unsigned long long)(v / 1000000000ULL),
				(unsigned long long)(v % 1000000000ULL));
		} else {
			snprintf(
				t, sizeof(t), "%llu.%06llu",
				(unsigned long long)(v / 1000000000ULL),
				(unsigned long long)(v % 1000000000ULL / 1000));
			fprintf(f, "%12s: ", t);
		}
	}
}

/* One frame or ip: [tab]ip, " sym+off", " (dso)" or " (inlined)". */
static void pfr__style_ip(struct pfr__out *o, const struct pfr__out_ev *e,
			  const char *lead, uint64_t ip, const char *sym,
			  uint64_t off, int found, const char *dso)
{
	unsigned fl = e->fields;
	FILE *f = o->f;

	if (fl & PFR_FLD_IP)
		fprintf(f, "%s%16llx", lead, (unsigned long long)ip);
	if (fl & PFR_FLD_SYM) {
		fputc(' ', f);
		util_text_str(f, sym);
		if (found && (fl & PFR_FLD_SYMOFF))
			fprintf(f, "+0x%llx", (unsigned long long)off);
	}
	if ((fl & PFR_FLD_DSO) && dso) {
		fputs(" (", f);
		util_text_str(f, dso);
		fputc(')', f);
	}
	if (!dso)
		fputs(" (inlined)", f);
}

/* A user frame at ip of pid.  For an unwound one (inl), as perf 6.1
 * does, when the file's DWARF has the address its chain of functions
 * stands in for the symbol: each "(inlined)" but one named as the symbol
 * is. */
static void pfr__style_user_frame(struct pfr__out *o,
				  const struct pfr__out_ev *e, uint32_t pid,
				  uint64_t ip, int inl)
{
	char *names[16];
	struct pfr__loc l;
	int n = 0;

	pfr__locate(o, pid, ip, 0, &l);
	if (l.found && inl)
		n = pfr__unwind_inlines(o->unwind, l.dso, l.vaddr, l.sym,
					l.vaddr - l.off, names, 16);
	for (int i = 0; i < n; i++) {
		int same = !strcmp(names[i], l.sym);

		pfr__style_ip(o, e, "\t", l.addr, names[i], l.off, 1,
			      same ? l.dso : NULL);
		fputc('\n', o->f);
		free(names[i]);
	}
	if (n)
		return;
	pfr__style_ip(o, e, "\t", l.addr, l.sym, l.off, l.found, l.dso);
	fputc('\n', o->f);
}

/* The call chain: the kernel's (and fp's user) frames as recorded, then
 * for a DWARF sample the user frames unwound from its stack copy. */
static void pfr__style_chain(struct pfr__out *o, const struct pfr__out_ev *e,
			     const struct pfr_perf_rec *r,
			     const struct pfr_record_header *hdr,
			     const void *payload)
{
	struct pfr__ustack us;
	int kernel = -1, nu;
	struct pfr__loc l;
	uint64_t ip, ips[127]; /* perf's PERF_MAX_STACK_DEPTH */

	for (uint64_t i = 0; i < r->nr_callchain; i++) {
		if (pfr__frame(o, r, i, &kernel, &ip, &l))
			continue;
		if (kernel) {
			pfr__style_ip(o, e, "\t", l.addr, l.sym, l.off, l.found,
				      l.dso);
			fputc('\n', o->f);
		} else {
			pfr__style_user_frame(o, e, r->pid, ip, 0);
		}
	}
	if (pfr__ustack_get(e->attr, r, payload, hdr->size - 8, &us))
		return;
	nu = pfr__unwind_user(o->unwind, r->pid, &us, ips, 127);
	for (int i = 0; i < nu; i++)
		pfr__style_user_frame(o, e, r->pid, ips[i], 1);
}

static void pfr__style_sample(struct pfr__out *o, const struct pfr__out_ev *e,
			      const struct pfr_perf_rec *r,
			      const struct pfr_record_header *hdr,
			      const void *payload)
{
	unsigned fl = e->fields;
	FILE *f = o->f;
	struct pfr__loc l;

	pfr__style_start(o, e, r, r->tid);
	if (fl & PFR_FLD_PERIOD)
		fprintf(f, "%10llu ", (unsigned long long)r->period);
	if (fl & PFR_FLD_EVENT) {
		char name[1024];

		util_text_esc(name, sizeof(name), e->name);
		fprintf(f, "%*s: ", o->style.name_width, name);
	}
	if ((fl & PFR_FLD_TRACE) && (r->fields & PFR_PERF_F_RAW))
		pfr__trace_print(o->trace, f, 0, r->raw, r->raw_size);
	if (fl & PFR_FLD_ADDR)
		fprintf(f, "%16llx", (unsigned long long)r->addr);
	if (fl & PFR_FLD_IP) {
		if (e->chain && (r->fields & PFR_PERF_F_CALLCHAIN)) {
			fputc('\n', f);
			pfr__style_chain(o, e, r, hdr, payload);
		} else {
			fputc(' ', f);
			pfr__locate(o, r->pid, r->ip, pfr__is_kernel(r->misc),
				    &l);
			pfr__style_ip(o, e, "", r->ip, l.sym, l.off, l.found,
				      l.dso);
		}
	}
	fputc('\n', f);
}

/* The thread a side-band record is about, whose command perf shows. */
static uint32_t pfr__side_tid(const struct pfr_perf_rec *r)
{
	switch (r->type) {
	case PERF_RECORD_COMM:
		return r->u.comm.tid;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return r->u.mmap.tid;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		return r->u.task.tid;
	default:
		return r->tid;
	}
}

/* An MMAP or MMAP2 record's fields as perf_event__fprintf_mmap{,2}(). */
static void pfr__style_mmap(struct pfr__out *o, const struct pfr_perf_rec *r,
			    const unsigned char *p)
{
	FILE *f = o->f;
	unsigned pr = r->u.mmap.prot;

	fprintf(f, " %d/%d: [%#llx(%#llx) @ %#llx", (int)r->u.mmap.pid,
		(int)r->u.mmap.tid, (unsigned long long)r->u.mmap.start,
		(unsigned long long)r->u.mmap.len,
		(unsigned long long)r->u.mmap.pgoff);
	if (r->type == PERF_RECORD_MMAP) {
		fprintf(f, "]: %c ",
			(r->misc & PERF_RECORD_MISC_MMAP_DATA) ? 'r' : 'x');
		util_text_str(f, r->u.mmap.filename);
		return;
	}
	if (r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		unsigned n = p[32] > 20 ? 20 : p[32];

		fputs(" <", f);
		for (unsigned i = 0; i < n; i++)
			fprintf(f, "%02x", p[36 + i]);
		fputc('>', f);
	} else {
		uint32_t maj, min;
		uint64_t ino, gen;

		memcpy(&maj, p + 32, 4);
		memcpy(&min, p + 36, 4);
		memcpy(&ino, p + 40, 8);
		memcpy(&gen, p + 48, 8);
		fprintf(f, " %02x:%02x %llu %llu", maj, min,
			(unsigned long long)ino, (unsigned long long)gen);
	}
	fprintf(f, "]: %c%c%c%c ", (pr & 1) ? 'r' : '-', (pr & 2) ? 'w' : '-',
		(pr & 4) ? 'x' : '-', (r->u.mmap.flags & 1) ? 's' : 'p');
	util_text_str(f, r->u.mmap.filename);
}

void pfr__out_event(struct pfr__out *o, const struct pfr__out_ev *e,
		    const struct pfr_perf_rec *r,
		    const struct pfr_record_header *hdr, const void *payload)
{
	const char *tname = pfr_perf_record_name(hdr->type);
	unsigned cls;

	if (r->type == PERF_RECORD_SAMPLE) {
		if (o->flags & PFR_OUT_JSON)
			pfr__json_sample(o, e->name, r);
		else
			pfr__style_sample(o, e, r, hdr, payload);
		return;
	}
	switch (r->type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		cls = PFR_SHOW_TASK;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		cls = PFR_SHOW_MMAP;
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		cls = PFR_SHOW_SWITCH;
		break;
	case PERF_RECORD_NAMESPACES:
		cls = PFR_SHOW_NAMESPACE;
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
		cls = PFR_SHOW_LOST;
		break;
	case 68: /* FINISHED_ROUND */
		cls = PFR_SHOW_ROUND;
		break;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
		cls = PFR_SHOW_BPF;
		break;
	case PERF_RECORD_CGROUP:
		cls = PFR_SHOW_CGROUP;
		break;
	case PERF_RECORD_TEXT_POKE:
		cls = PFR_SHOW_TEXT_POKE;
		break;
	default:
		cls = PFR_SHOW_OTHER;
		break;
	}
	if (!(o->style.show & cls))
		return;
	if (o->flags & PFR_OUT_JSON) {
		pfr__json_start(o, r, tname ? tname : "UNKNOWN");
		if (r->type >= 64 || !tname)
			fprintf(o->f, ",\"record_type\":%u", r->type);
		fprintf(o->f, ",\"size\":%u", r->size);
		pfr__print_side(o, r);
		fputs("}\n", o->f);
		return;
	}
	if (r->type == 68) { /* perf prints the name alone */
		fputs("PERF_RECORD_FINISHED_ROUND\n", o->f);
		return;
	}
	/* perf: the command of the thread the record is about */
	pfr__style_start(o, e, r, pfr__side_tid(r));
	fprintf(o->f, "PERF_RECORD_%s", tname ? tname : "UNKNOWN");
	if (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2)
		pfr__style_mmap(o, r, payload);
	else
		pfr__print_side(o, r);
	fputc('\n', o->f);
}

/* Tracks one record's side-band (call before pfr__out_event, for every
 * record, printed or not). */
void pfr__out_track(struct pfr__out *o, const struct pfr_perf_rec *r)
{
	pfr__track(o, r);
}

const char *pfr__out_comm(struct pfr__out *o, uint32_t tid)
{
	return pfr__comm(o, tid);
}

/* --- the perf.data library's frames (pfr__out_frames) --- */

void pfr__out_set_file(struct pfr__out *o, FILE *f, unsigned flags)
{
	o->f = f;
	o->flags = (o->flags & PFR_OUT_NO_SYMS) | (flags & ~PFR_OUT_NO_SYMS);
}

void pfr__out_use_unwind(struct pfr__out *o)
{
	if (!o->unwind && !(o->flags & PFR_OUT_NO_SYMS))
		o->unwind = pfr__unwind_new(pfr__unwind_map, o);
}

/* Where pfr__out_frames() writes. */
struct pfr__fsink {
	struct pfr_perfdata_frame *fr;
	int n, max;
	char **names;
	int nnames;
};

static void pfr__fput(struct pfr__fsink *s, uint64_t ip, uint64_t addr,
		      const char *sym, uint64_t off, const char *dso,
		      unsigned flags)
{
	if (s->n < s->max)
		s->fr[s->n++] = (struct pfr_perfdata_frame){
			ip, addr, sym, off, dso, flags, 0};
}

void pfr__out_frame_at(struct pfr__out *o, uint32_t pid, uint64_t ip,
		       int kernel, struct pfr_perfdata_frame *fr)
{
	struct pfr__loc l;

	pfr__locate(o, pid, ip, kernel, &l);
	*fr = (struct pfr_perfdata_frame){
		ip,
		l.addr,
		l.sym,
		l.off,
		l.dso,
		(kernel ? PFR_PERFDATA_FRAME_KERNEL : 0u) |
			(l.found ? PFR_PERFDATA_FRAME_FOUND : 0u),
		0};
}

/* A user frame, with the functions inlined there first when inl (as
 * pfr__style_user_frame() prints them). */
static void pfr__fuser(struct pfr__out *o, struct pfr__fsink *s, uint32_t pid,
		       uint64_t ip, int inl, unsigned uw)
{
	char *names[16];
	struct pfr__loc l;
	int n = 0;

	pfr__locate(o, pid, ip, 0, &l);
	if (l.found && inl && s->max - s->n > 0)
		n = pfr__unwind_inlines(
			o->unwind, l.dso, l.vaddr, l.sym, l.vaddr - l.off,
			names, s->max - s->n < 16 ? s->max - s->n : 16);
	for (int i = 0; i < n; i++) {
		int same = !strcmp(names[i], l.sym);

		pfr__fput(s, ip, l.addr, names[i], l.off, same ? l.dso : NULL,
			  uw | PFR_PERFDATA_FRAME_FOUND |
				  (same ? 0u : PFR_PERFDATA_FRAME_INLINED));
		s->names[s->nnames++] = names[i];
	}
	if (!n)
		pfr__fput(s, ip, l.addr, l.sym, l.off, l.dso,
			  uw | (l.found ? PFR_PERFDATA_FRAME_FOUND : 0u));
}

int pfr__out_frames(struct pfr__out *o, const struct perf_event_attr *attr,
		    const struct pfr_perf_rec *r, const void *payload,
		    uint32_t len, unsigned what, struct pfr_perfdata_frame *fr,
		    int max, char **names, int *nnames)
{
	struct pfr__fsink s = {fr, 0, max, names, 0};
	struct pfr__ustack us;
	int kernel = -1, nu;
	struct pfr__loc l;
	uint64_t ip, ips[127]; /* perf's PERF_MAX_STACK_DEPTH */

	*nnames = 0;
	if (!(r->fields & PFR_PERF_F_CALLCHAIN)) {
		if (max > 0 && (r->fields & PFR_PERF_F_IP))
			pfr__out_frame_at(o, r->pid, r->ip,
					  pfr__is_kernel(r->misc), &fr[s.n++]);
		return s.n;
	}
	for (uint64_t i = 0; i < r->nr_callchain && s.n < max; i++) {
		if (pfr__frame(o, r, i, &kernel, &ip, &l))
			continue;
		if (kernel)
			pfr__fput(&s, ip, l.addr, l.sym, l.off, l.dso,
				  PFR_PERFDATA_FRAME_KERNEL |
					  (l.found ? PFR_PERFDATA_FRAME_FOUND
						   : 0u));
		else
			pfr__fuser(o, &s, r->pid, ip, 0, 0);
	}
	*nnames = s.nnames;
	if ((what & PFR_OUT_FR_NO_UNWIND) || !o->unwind ||
	    pfr__ustack_get(attr, r, payload, len, &us))
		return s.n;
	nu = pfr__unwind_user(o->unwind, r->pid, &us, ips, 127);
	for (int i = 0; i < nu && s.n < max; i++)
		pfr__fuser(o, &s, r->pid, ips[i],
			   !(what & PFR_OUT_FR_NO_INLINE),
			   PFR_PERFDATA_FRAME_UNWOUND);
	*nnames = s.nnames;
	return s.n;
}
