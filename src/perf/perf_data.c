/* SPDX-License-Identifier: MIT */
/*
 * perf.data files, written so that perf report and perf script read them
 * (the format: src/perf/perf_data_int.h); the reader is perf_data_read.c.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#ifdef PFR_HAVE_ZSTD
#include <dlfcn.h>
#include <zstd.h>
#endif

#include <perfring/perf.h>

#include "ring/compiler.h"
#include "perf/perf_data_int.h"
#include "perf/perf_header.h"
#include "perf/perf_maps.h"

/*
 * The output file, opened so that whatever stands at path cannot redirect
 * the profile: no link is followed (O_NOFOLLOW; a link in place is
 * refused, ELOOP), only a regular file is written (a device, FIFO or
 * socket in place is refused before it is opened, EINVAL; checked again
 * on the descriptor), one that another user owns or that has other hard
 * links is refused (EPERM, EMLINK: its owner or the other names would see
 * the profile), and the mode is 0600 whatever it was; /dev/null by that
 * name is the one device taken.  The truncation
 * comes after the checks (no O_TRUNC).  O_NONBLOCK: a FIFO put in place
 * between the checks fails at once (ENXIO) instead of waiting for a
 * reader.
 */
static int pfr_file_open_out(const char *path)
{
	struct stat st;
	int fd, e;

	/* -o /dev/null, named as such: the records discarded, as perf does
	 * (the null device only, and not through a link) */
	if (!strcmp(path, "/dev/null")) {
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 || (!fstat(fd, &st) && S_ISCHR(st.st_mode) &&
			       st.st_rdev == makedev(1, 3)))
			return fd;
		close(fd);
		errno = EINVAL;
		return -1;
	}

	if (!lstat(path, &st) && !S_ISREG(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	fd = open(path,
		  O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK |
			  O_NOCTTY,
		  0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = EINVAL;
	else if (st.st_uid != geteuid())
		e = EPERM;
	else if (st.st_nlink > 1)
		e = EMLINK;
	else if (ftruncate(fd, 0) || fchmod(fd, 0600) ||
		 fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK))
		e = errno;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
}

int pfr_perf_file_create(struct pfr_perf_file **fp, const char *path)
{
	struct pfr_perf_file *f;

	if (!fp || !path)
		return -PFR_E_INVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -PFR_E_SYSTEM;
	/* "-": perf's pipe format on standard output */
	f->pipe = !strcmp(path, "-");
	f->fd = f->pipe ? fcntl(1, F_DUPFD_CLOEXEC, 3)
			: pfr_file_open_out(path);
	if (f->fd < 0) {
		int e = errno;

		free(f);
		errno = e;
		return -PFR_E_SYSTEM;
	}
	/* A file's records go out in writes of whole records of up to
	 * PFR__FILE_BUF (pfr_out_put()); its header, attrs and features
	 * through stdio.  A pipe's records go through stdio's own buffer
	 * (a reader downstream sees the records sooner). */
	f->obuf = f->pipe ? NULL : malloc(PFR__FILE_BUF);
	f->out = !f->pipe && !f->obuf ? NULL : fdopen(f->fd, "w");
	if (!f->out) {
		close(f->fd);
		free(f->obuf);
		free(f);
		return -PFR_E_SYSTEM;
	}
	f->clockid = -1;
	*fp = f;
	return 0;
}

#ifdef PFR_HAVE_ZSTD
/* libzstd, loaded on the first compressed file (no program links it that
 * does not compress). */
static struct {
	ZSTD_CCtx *(*create)(void);
	size_t (*free)(ZSTD_CCtx *);
	size_t (*set)(ZSTD_CCtx *, ZSTD_cParameter, int);
	size_t (*stream)(ZSTD_CCtx *, ZSTD_outBuffer *, ZSTD_inBuffer *,
			 ZSTD_EndDirective);
	unsigned (*is_error)(size_t);
} pfr_zstd;

static int pfr_zstd_load(void)
{
	void *h;

	if (pfr_zstd.stream)
		return 0;
	h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&pfr_zstd.create = dlsym(h, "ZSTD_createCCtx");
	*(void **)&pfr_zstd.free = dlsym(h, "ZSTD_freeCCtx");
	*(void **)&pfr_zstd.set = dlsym(h, "ZSTD_CCtx_setParameter");
	*(void **)&pfr_zstd.is_error = dlsym(h, "ZSTD_isError");
	*(void **)&pfr_zstd.stream = dlsym(h, "ZSTD_compressStream2");
	if (!pfr_zstd.create || !pfr_zstd.free || !pfr_zstd.set ||
	    !pfr_zstd.is_error || !pfr_zstd.stream) {
		pfr_zstd.stream = NULL;
		dlclose(h);
		return -1;
	}
	return 0; /* kept loaded for the process's lifetime */
}
#endif

void pfr__file_set_bpf(struct pfr_perf_file *f, const unsigned char *info,
		       size_t info_len, uint32_t nprog,
		       const unsigned char *btf, size_t btf_len, uint32_t nbtf)
{
	f->bpf_info = info;
	f->bpf_info_len = info_len;
	f->bpf_nprog = nprog;
	f->bpf_btf = btf;
	f->bpf_btf_len = btf_len;
	f->bpf_nbtf = nbtf;
	f->bpf_set = 1;
}

int pfr__file_set_opts(struct pfr_perf_file *f, int buildids, int clockid,
		       int zlevel)
{
	if (!f || f->started || !f->out || zlevel < 0 || zlevel > 22 ||
	    buildids < PFR__BUILDID_HIT || buildids > PFR__BUILDID_ALL)
		return -PFR_E_INVAL;
	f->buildids = buildids;
	f->clockid = clockid;
	if (!zlevel)
		return 0;
#ifdef PFR_HAVE_ZSTD
	if (f->pipe)
		return -PFR_E_INVAL; /* the feature would come too late */
	if (pfr_zstd_load()) {
		errno = ENOSYS;
		return -PFR_E_SYSTEM;
	}
	f->zbuf = malloc(PFR_ZCHUNK);
	f->zctx = pfr_zstd.create();
	if (!f->zbuf || !f->zctx)
		return -PFR_E_SYSTEM;
	if (pfr_zstd.is_error(
		    pfr_zstd.set(f->zctx, ZSTD_c_compressionLevel, zlevel)))
		return -PFR_E_INVAL;
	f->zlevel = zlevel;
	return 0;
#else
	errno = ENOSYS; /* built without zstd.h */
	return -PFR_E_SYSTEM;
#endif
}

uint64_t pfr__file_bytes(const struct pfr_perf_file *f)
{
	return f ? f->data_size + f->zused : 0;
}

int pfr_perf_file_add_event(struct pfr_perf_file *f,
			    const struct perf_event_attr *attr,
			    const char *name, const uint64_t *ids,
			    uint32_t nr_ids)
{
	struct pfr_file_event *ev;

	if (!f || !attr || (!ids && nr_ids) || f->started || !f->out)
		return -PFR_E_INVAL;
	ev = realloc(f->ev, (f->nr_ev + 1) * sizeof(*ev));
	if (!ev)
		return -PFR_E_SYSTEM;
	f->ev = ev;
	ev = &f->ev[f->nr_ev];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->attr.size = sizeof(ev->attr);
	snprintf(ev->name, sizeof(ev->name), "%s", name ? name : "");
	ev->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(uint64_t));
	if (!ev->ids)
		return -PFR_E_SYSTEM;
	if (nr_ids)
		memcpy(ev->ids, ids, nr_ids * sizeof(uint64_t));
	ev->nr_ids = nr_ids;
	f->nr_ev++;
	return 0;
}

int pfr_perf_file_set_cmdline(struct pfr_perf_file *f, int argc,
			      char *const *argv)
{
	size_t n = 1;
	char *p;

	if (!f || argc < 0 || (!argv && argc))
		return -PFR_E_INVAL;
	for (int i = 0; i < argc; i++) {
		if (!argv[i])
			return -PFR_E_INVAL;
		n += strlen(argv[i]) + 1;
	}
	free(f->cmdline);
	f->cmdline = p = malloc(n);
	if (!p)
		return -PFR_E_SYSTEM;
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]);

		memcpy(p, argv[i], l);
		p[l] = 0; /* NUL-separated list */
		p += l + 1;
	}
	*p = 1; /* end marker, replaced below */
	return 0;
}

/* --- what the samples hit, for HEADER_BUILD_ID --- */

static uint32_t pfr_str_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Rehashes the DSOs into a table of cap slots (a power of two); 0 or -1. */
static int pfr_dso_rehash(struct pfr_perf_file *f, uint32_t cap)
{
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (uint32_t i = 0; i < f->nr_dsos; i++) {
		uint32_t h = pfr_str_hash(f->dsos[i].name) & (cap - 1);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = i + 1;
	}
	free(f->dso_hash);
	f->dso_hash = t;
	f->dso_hash_cap = cap;
	return 0;
}

/* A DSO's index, added when new; -1 when out of memory.  Names are found
 * through a hash table (at most half full), so each MMAP costs O(1)
 * however many files were mapped. */
static int32_t pfr_dso_index(struct pfr_perf_file *f, const char *name)
{
	uint32_t h;

	if (2 * (f->nr_dsos + 1) > f->dso_hash_cap &&
	    (f->dso_hash_cap > UINT32_MAX / 2 ||
	     pfr_dso_rehash(f, f->dso_hash_cap ? 2 * f->dso_hash_cap : 128)))
		return -1;
	for (h = pfr_str_hash(name) & (f->dso_hash_cap - 1); f->dso_hash[h];
	     h = (h + 1) & (f->dso_hash_cap - 1))
		if (!strcmp(f->dsos[f->dso_hash[h] - 1].name, name))
			return (int32_t)(f->dso_hash[h] - 1);
	if (f->nr_dsos == f->cap_dsos) {
		uint32_t nc = f->cap_dsos ? 2 * f->cap_dsos : 64;
		struct pfr_dso *n = realloc(f->dsos, nc * sizeof(*n));

		if (!n)
			return -1;
		f->dsos = n;
		f->cap_dsos = nc;
	}
	f->dsos[f->nr_dsos].name = strdup(name);
	f->dsos[f->nr_dsos].hit = 0;
	if (!f->dsos[f->nr_dsos].name)
		return -1;
	f->dso_hash[h] = f->nr_dsos + 1;
	return (int32_t)f->nr_dsos++;
}

/* Follows the side-band: a process's file mappings (and [vdso]), shared
 * with a forked child, dropped at exec (see perf_maps.h). */
static void pfr_note_side_band(struct pfr_perf_file *f,
			       const struct pfr_record_header *hdr,
			       const void *payload, uint32_t len)
{
	struct pfr_perf_layout lay = {0, 0, 0, 0};
	struct pfr_perf_rec r;
	unsigned mode = hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	int32_t dso;

	if (pfr_perf_decode(&lay, hdr, payload, len, &r))
		return;
	switch (hdr->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (mode != PERF_RECORD_MISC_USER ||
		    (r.u.mmap.filename[0] != '/' &&
		     strcmp(r.u.mmap.filename, "[vdso]")))
			return;
		dso = pfr_dso_index(f, r.u.mmap.filename);
		if (dso >= 0)
			pfr__procs_mmap(&f->procs, r.u.mmap.pid, r.u.mmap.start,
					r.u.mmap.len, r.u.mmap.pgoff,
					(uintptr_t)dso);
		return;
	case PERF_RECORD_FORK:
		pfr__procs_fork(&f->procs, r.u.task.pid, r.u.task.ppid);
		return;
	case PERF_RECORD_COMM:
		if (hdr->misc & PERF_RECORD_MISC_COMM_EXEC)
			pfr__procs_exec(&f->procs, r.u.comm.pid);
		return;
	}
}

static void pfr_mark_hit(struct pfr_perf_file *f, unsigned mode, uint32_t pid,
			 uint64_t ip)
{
	const struct pfr__map *m;

	if (mode == PERF_RECORD_MISC_KERNEL) {
		f->kernel_hit = 1;
		return;
	}
	if (mode == PERF_RECORD_MISC_USER &&
	    (m = pfr__procs_find(&f->procs, pid, ip)))
		f->dsos[m->dso].hit = 1;
}

static int pfr_id_ev_cmp(const void *a, const void *b)
{
	const struct pfr_id_ev *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* Sorts every event's ids into f->ids (once), so that a record's event is
 * found in O(log ids), not by a scan of them all (a file may declare
 * many ids).  0, or -1 when out of memory. */
int pfr__file_index_ids(struct pfr_perf_file *f)
{
	size_t n = 0, k = 0;

	if (f->ids)
		return 0;
	for (uint32_t i = 0; i < f->nr_ev; i++)
		n += f->ev[i].nr_ids;
	if (!n)
		return 0;
	f->ids = malloc(n * sizeof(*f->ids));
	if (!f->ids)
		return -1;
	for (uint32_t i = 0; i < f->nr_ev; i++)
		for (uint32_t j = 0; j < f->ev[i].nr_ids; j++) {
			f->ids[k].id = pfr_perf_u64(f->ev[i].ids, j);
			f->ids[k].ev = i;
			f->ids[k].pad = 0;
			k++;
		}
	qsort(f->ids, n, sizeof(*f->ids), pfr_id_ev_cmp);
	f->nr_ids = n;
	return 0;
}

/* The first event (by index) that has id, or UINT32_MAX when none has
 * it. */
uint32_t pfr__file_find_id(const struct pfr_perf_file *f, uint64_t id)
{
	size_t lo = 0, hi = f->nr_ids;

	while (lo < hi) { /* the first entry whose id is >= id */
		size_t mid = lo + (hi - lo) / 2;

		((struct pfr_perf_file *)f)->id_probes++;
		if (f->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->nr_ids && f->ids[lo].id == id ? f->ids[lo].ev
						     : UINT32_MAX;
}

/* The first event (by index) that has id, or 0 when none has it. */
uint32_t pfr__file_event_of_id(const struct pfr_perf_file *f, uint64_t id)
{
	uint32_t ev = pfr__file_find_id(f, id);

	return ev == UINT32_MAX ? 0 : ev;
}

uint64_t pfr__perf_file_id_probes(const struct pfr_perf_file *f)
{
	return f ? f->id_probes : 0;
}

/* The layout of a sample's event (by its id when there are several). */
static const struct perf_event_attr *
pfr_sample_attr(const struct pfr_perf_file *f,
		const struct pfr_record_header *hdr, const void *payload,
		uint32_t len)
{
	uint64_t id;

	if (f->nr_ev > 1 && !pfr_perf_record_id(f->ev[0].attr.sample_type,
						f->ev[0].attr.sample_id_all,
						hdr, payload, len, &id))
		return &f->ev[pfr__file_event_of_id(f, id)].attr;
	return &f->ev[0].attr;
}

/* A sample: its time (for SAMPLE_TIME) and the DSO its ip falls in.  Only
 * the ip, as perf record's build-id pass marks them (perf 6.1: a DSO that
 * only appears in call chains is not listed). */
static void pfr_note_sample(struct pfr_perf_file *f,
			    const struct pfr_record_header *hdr,
			    const void *payload, uint32_t len)
{
	const struct perf_event_attr *a;
	struct pfr_perf_layout lay;
	struct pfr_perf_rec r;
	unsigned mode = hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (!f->nr_ev)
		return;
	a = pfr_sample_attr(f, hdr, payload, len);
	lay.sample_type = a->sample_type;
	lay.read_format = a->read_format;
	lay.sample_id_all = a->sample_id_all;
	lay.pad = 0;
	if (pfr_perf_decode(&lay, hdr, payload, len, &r))
		return;
	if (r.fields & PFR_PERF_F_TIME) {
		if (!f->nr_samples || r.time < f->first_time)
			f->first_time = r.time;
		if (!f->nr_samples || r.time > f->last_time)
			f->last_time = r.time;
	}
	f->nr_samples++;
	if (!(r.fields & PFR_PERF_F_TID))
		return;
	if (r.fields & PFR_PERF_F_IP)
		pfr_mark_hit(f, mode, r.pid, r.ip);
}

/* One HEADER_BUILD_ID entry (perf's struct perf_record_header_build_id):
 * header, pid, 20 id bytes, their count, 3 reserved, then the file name
 * padded to 64. */
static void pfr_put_build_id(FILE *o, uint16_t misc, const unsigned char *id,
			     size_t idlen, const char *name)
{
	static const char zero[64];
	unsigned char fixed[36];
	size_t l = strlen(name) + 1, padded = (l + 63) & ~(size_t)63;
	struct pfr_record_header h;
	int32_t pid = -1; /* the host machine */

	if (36 + padded > 0xffff)
		return;
	h.type = 0;
	h.misc = (uint16_t)(misc | PFR_MISC_BUILD_ID_SIZE);
	h.size = (uint16_t)(36 + padded);
	memset(fixed, 0, sizeof(fixed));
	memcpy(fixed, &h, 8);
	memcpy(fixed + 8, &pid, 4);
	memcpy(fixed + 12, id, idlen);
	fixed[32] = (unsigned char)idlen;
	fwrite(fixed, sizeof(fixed), 1, o);
	fwrite(name, l, 1, o);
	if (padded > l)
		fwrite(zero, padded - l, 1, o);
}

/* v in the other byte order when swap. */
static uint64_t pfr_elf_u(uint64_t v, int size, int swap)
{
	if (!swap)
		return v;
	if (size == 2)
		return __builtin_bswap16((uint16_t)v);
	if (size == 4)
		return __builtin_bswap32((uint32_t)v);
	return __builtin_bswap64(v);
}

/* One program header of an ELF file of either class and byte order: type,
 * offset and size of its contents in the file.  0, or -1 on a short read. */
static int pfr_elf_phdr(int fd, int elf64, int swap, uint64_t at,
			uint32_t *type, uint64_t *off, uint64_t *size)
{
	if (elf64) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)at) !=
		    (ssize_t)sizeof(ph))
			return -1;
		*type = (uint32_t)pfr_elf_u(ph.p_type, 4, swap);
		*off = pfr_elf_u(ph.p_offset, 8, swap);
		*size = pfr_elf_u(ph.p_filesz, 8, swap);
	} else {
		Elf32_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)at) !=
		    (ssize_t)sizeof(ph))
			return -1;
		*type = (uint32_t)pfr_elf_u(ph.p_type, 4, swap);
		*off = pfr_elf_u(ph.p_offset, 4, swap);
		*size = pfr_elf_u(ph.p_filesz, 4, swap);
	}
	return 0;
}

/* The build id of an ELF file (ELF64 or ELF32, of either byte order: a
 * recording may map another ABI's files, as qemu-user's guests do) from
 * its PT_NOTE segments.  The file is read
 * with pread(), not mapped: a file truncated meanwhile (it belongs to the
 * traced program, not to us) is a short read, never SIGBUS. */
static size_t pfr_file_build_id(const char *path, unsigned char id[20])
{
	struct stat st;
	union {
		unsigned char ident[EI_NIDENT];
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
	} eh;
	uint64_t phoff, phnum, phsz;
	size_t len, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int elf64, swap;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(eh) ||
	    pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.ident, ELFMAG, SELFMAG) ||
	    (eh.ident[EI_CLASS] != ELFCLASS64 &&
	     eh.ident[EI_CLASS] != ELFCLASS32)) {
		close(fd);
		return 0;
	}
	len = (size_t)st.st_size;
	elf64 = eh.ident[EI_CLASS] == ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	swap = eh.ident[EI_DATA] == ELFDATA2LSB;
#else
	swap = eh.ident[EI_DATA] == ELFDATA2MSB;
#endif
	phoff = elf64 ? pfr_elf_u(eh.e64.e_phoff, 8, swap)
		      : pfr_elf_u(eh.e32.e_phoff, 4, swap);
	phnum = pfr_elf_u(elf64 ? eh.e64.e_phnum : eh.e32.e_phnum, 2, swap);
	phsz = elf64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	if (pfr_elf_u(elf64 ? eh.e64.e_phentsize : eh.e32.e_phentsize, 2,
		      swap) == phsz &&
	    phoff <= len && phnum * phsz <= len - phoff)
		for (uint64_t i = 0; i < phnum && !got; i++) {
			uint64_t off, size;
			uint32_t type;
			unsigned char *n;

			if (pfr_elf_phdr(fd, elf64, swap, phoff + i * phsz,
					 &type, &off, &size))
				break;
			if (type != PT_NOTE || off > len || size > len - off ||
			    size > (1u << 20))
				continue;
			n = malloc(size ? size : 1);
			if (n &&
			    pread(fd, n, size, (off_t)off) == (ssize_t)size)
				got = pfr__notes_build_id(n, size, swap, id);
			free(n);
		}
	close(fd);
	return got;
}

/* HEADER_BUILD_ID: the build id of every DSO a sample hit -- the kernel
 * (from /sys/kernel/notes), the vdso (ours: every process of this ABI maps
 * the same), and the files -- so that perf can tell when a binary changed
 * since the recording.  As perf writes it: [vdso] whenever a process
 * mapped it, hit or not; with PFR__BUILDID_ALL every DSO mapped (perf
 * record --buildid-all), the kernel included. */
static int pfr_write_build_ids(struct pfr_perf_file *f, FILE *o)
{
	int all = f->buildids == PFR__BUILDID_ALL;
	unsigned char id[20];
	size_t n;

	if (f->kernel_hit || all) {
		unsigned char notes[4096];
		int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
		ssize_t got = fd < 0 ? -1 : read(fd, notes, sizeof(notes));

		if (fd >= 0)
			close(fd);
		if (got > 0 &&
		    (n = pfr__notes_build_id(notes, (size_t)got, 0, id)))
			pfr_put_build_id(o, PERF_RECORD_MISC_KERNEL, id, n,
					 "[kernel.kallsyms]");
	}
	for (uint32_t i = 0; i < f->nr_dsos; i++) {
		const char *name = f->dsos[i].name;

		if (!f->dsos[i].hit && !all && strcmp(name, "[vdso]"))
			continue;
		n = name[0] == '/' ? pfr_file_build_id(name, id)
				   : pfr__vdso_build_id(id);
		if (n)
			pfr_put_build_id(o, PERF_RECORD_MISC_USER, id, n, name);
	}
	return 0;
}

/* The ids and the attrs go first; the data follows them. */
static int pfr_pipe_start(struct pfr_perf_file *f);

static uint64_t pfr_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* The file's header but its features: data as written so far. */
static void pfr_fill_header(const struct pfr_perf_file *f,
			    struct pfr_file_header *h, uint64_t data_size)
{
	memset(h, 0, sizeof(*h));
	h->magic = PFR_PERF_MAGIC2;
	h->size = sizeof(*h);
	h->attr_size = sizeof(struct perf_event_attr) +
		       sizeof(struct pfr_file_section);
	h->attrs.offset = sizeof(*h);
	for (uint32_t i = 0; i < f->nr_ev; i++)
		h->attrs.offset += 8ULL * f->ev[i].nr_ids;
	h->attrs.size = (uint64_t)f->nr_ev * h->attr_size;
	h->data.offset = f->data_offset;
	h->data.size = data_size;
}

static int pfr_pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return -PFR_E_SYSTEM;
		}
		p = (const char *)p + w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

/* The buffered records to the file, then the header's data size to cover
 * them: a recorder killed in between leaves the size one write behind,
 * never past a record. */
static int pfr_out_flush(struct pfr_perf_file *f)
{
	uint64_t sz;

	if (!f->olen)
		return 0;
	if (pfr_pwrite_all(f->fd, f->obuf, f->olen,
			   f->data_offset + f->flushed))
		return -PFR_E_SYSTEM;
	f->flushed += f->olen;
	f->olen = 0;
	f->flush_ns = pfr_now_ns();
	sz = f->flushed;
	return pfr_pwrite_all(f->fd, &sz, sizeof(sz),
			      offsetof(struct pfr_file_header, data.size));
}

/* One whole record (at most 64 KiB: it fits in the buffer) in up to two
 * pieces. */
static int pfr_out_put(struct pfr_perf_file *f, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	int err;

	if (f->olen + alen + blen > PFR__FILE_BUF && (err = pfr_out_flush(f)))
		return err;
	memcpy(f->obuf + f->olen, a, alen);
	if (blen)
		memcpy(f->obuf + f->olen + alen, b, blen);
	f->olen += alen + blen;
	/* the first record at once: a file killed before its first full
	 * buffer still holds data that perf reads (it reads nothing, and
	 * fails, from a data size of 0) */
	return f->flushed ? 0 : pfr_out_flush(f);
}

static int pfr_file_start(struct pfr_perf_file *f)
{
	uint64_t off = sizeof(struct pfr_file_header);

	if (f->started)
		return 0;
	f->started = 1;
	if (pfr__file_index_ids(f))
		return -PFR_E_SYSTEM;
	if (f->pipe)
		return pfr_pipe_start(f);
	if (fseeko(f->out, (off_t)off, SEEK_SET))
		return -PFR_E_SYSTEM;
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		if (f->ev[i].nr_ids && fwrite(f->ev[i].ids, 8, f->ev[i].nr_ids,
					      f->out) != f->ev[i].nr_ids)
			return -PFR_E_SYSTEM;
		off += 8ULL * f->ev[i].nr_ids;
	}
	{
		uint64_t ids_off = sizeof(struct pfr_file_header);

		for (uint32_t i = 0; i < f->nr_ev; i++) {
			struct pfr_file_section s = {ids_off,
						     8ULL * f->ev[i].nr_ids};

			if (fwrite(&f->ev[i].attr, sizeof(f->ev[i].attr), 1,
				   f->out) != 1 ||
			    fwrite(&s, sizeof(s), 1, f->out) != 1)
				return -PFR_E_SYSTEM;
			ids_off += s.size;
		}
	}
	off += (uint64_t)f->nr_ev * (sizeof(struct perf_event_attr) +
				     sizeof(struct pfr_file_section));
	f->data_offset = off;
	/* A valid header from the start (data size 0, no features yet): the
	 * flushes keep its data size current, the close completes it. */
	{
		struct pfr_file_header h;

		pfr_fill_header(f, &h, 0);
		if (fseeko(f->out, 0, SEEK_SET) ||
		    fwrite(&h, sizeof(h), 1, f->out) != 1 || fflush(f->out))
			return -PFR_E_SYSTEM;
	}
	f->flush_ns = pfr_now_ns();
	return 0;
}

/*
 * -z: records are staged, then written as PERF_RECORD_COMPRESSED records
 * as perf writes them: one zstd stream for the whole file, flushed at the
 * end of each staged chunk and cut into records of at most 64 KiB, so
 * that one record never decompresses to more than a chunk (the COMPRESSED
 * feature's mmap_len, the reader's buffer).
 */
static int pfr_zflush(struct pfr_perf_file *f)
{
#ifdef PFR_HAVE_ZSTD
	ZSTD_inBuffer in = {f->zbuf, f->zused, 0};
	unsigned char rec[65535];
	size_t left;

	if (!f->zused)
		return 0;
	do {
		ZSTD_outBuffer out = {rec + 8, sizeof(rec) - 8, 0};
		struct pfr_record_header h;

		left = pfr_zstd.stream(f->zctx, &out, &in, ZSTD_e_flush);
		if (pfr_zstd.is_error(left)) {
			errno = EIO;
			return -PFR_E_SYSTEM;
		}
		if (!out.pos)
			continue;
		h.type = PFR_RECORD_COMPRESSED;
		h.misc = 0;
		h.size = (uint16_t)(out.pos + 8);
		memcpy(rec, &h, sizeof(h));
		if (pfr_out_put(f, rec, h.size, NULL, 0))
			return -PFR_E_SYSTEM;
		f->data_size += h.size;
		f->zout += h.size;
	} while (left || in.pos < in.size);
	f->zin += f->zused;
	f->zused = 0;
#else
	(void)f;
#endif
	return 0;
}

static int pfr_zstage(struct pfr_perf_file *f,
		      const struct pfr_record_header *hdr, const void *payload,
		      uint32_t len)
{
	int err;

	if (f->zused + hdr->size > PFR_ZCHUNK && (err = pfr_zflush(f)))
		return err;
	memcpy(f->zbuf + f->zused, hdr, sizeof(*hdr));
	if (len)
		memcpy(f->zbuf + f->zused + sizeof(*hdr), payload, len);
	f->zused += hdr->size;
	return 0;
}

int pfr_perf_file_write(struct pfr_perf_file *f,
			const struct pfr_record_header *hdr,
			const void *payload, uint32_t len)
{
	int err;

	/* not NULL, opened for writing, and the length the header says */
	if (!f || !hdr || (!payload && len) || !f->out ||
	    (uint64_t)len + sizeof(*hdr) != hdr->size)
		return -PFR_E_INVAL;
	err = pfr_file_start(f);
	if (err)
		return err;
	if (hdr->type == PERF_RECORD_SAMPLE)
		pfr_note_sample(f, hdr, payload, len);
	else if (hdr->type == PERF_RECORD_MMAP ||
		 hdr->type == PERF_RECORD_MMAP2 ||
		 hdr->type == PERF_RECORD_FORK || hdr->type == PERF_RECORD_COMM)
		pfr_note_side_band(f, hdr, payload, len);
	if (f->zlevel)
		return pfr_zstage(f, hdr, payload, len);
	if (!f->pipe) {
		if ((err = pfr_out_put(f, hdr, sizeof(*hdr), payload, len)))
			return err;
		f->data_size += hdr->size;
		return 0;
	}
	/* A record whose payload follows its header (the merge's copies,
	 * a ring's records that do not wrap) goes out in one call. */
	if ((const unsigned char *)payload ==
	    (const unsigned char *)hdr + sizeof(*hdr)) {
		if (fwrite(hdr, hdr->size, 1, f->out) != 1)
			return -PFR_E_SYSTEM;
	} else if (fwrite(hdr, sizeof(*hdr), 1, f->out) != 1 ||
		   (len && fwrite(payload, len, 1, f->out) != 1)) {
		return -PFR_E_SYSTEM;
	}
	f->data_size += hdr->size;
	return 0;
}

int pfr__file_write_round(struct pfr_perf_file *f)
{
	struct pfr_record_header h = {PFR_RECORD_FINISHED_ROUND, 0, 8};
	int err;

	if (!f || !f->out)
		return -PFR_E_INVAL;
	if ((err = pfr_file_start(f)) || (err = pfr_zflush(f)))
		return err;
	if (f->pipe) {
		if (fwrite(&h, sizeof(h), 1, f->out) != 1)
			return -PFR_E_SYSTEM;
		f->data_size += h.size;
		return 0;
	}
	if ((err = pfr_out_put(f, &h, sizeof(h), NULL, 0)))
		return err;
	f->data_size += h.size;
	/* A quiet recording's records reach the file within 100 ms too. */
	if (pfr_now_ns() - f->flush_ns >= 100000000ULL)
		return pfr_out_flush(f);
	return 0;
}

/* Whole tracefs file (they report size 0 to stat) into a malloc'ed
 * buffer; NULL on error. */
static char *pfr_slurp(const char *path, uint64_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	ssize_t r;

	if (fd < 0 || !b) {
		if (fd >= 0)
			close(fd);
		free(b);
		return NULL;
	}
	while ((r = read(fd, b + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				close(fd);
				return NULL;
			}
			b = nb;
			cap *= 2;
		}
	}
	close(fd);
	*len = n;
	return b;
}

/* [label NUL] u64 length, then the file's bytes. */
static int pfr_put_file(FILE *o, const char *label, const char *path)
{
	uint64_t n = 0;
	char *b = pfr_slurp(path, &n);

	if (!b)
		return -1;
	if (label)
		fwrite(label, strlen(label) + 1, 1, o);
	pfr__put_u64(o, n);
	if (n)
		fwrite(b, n, 1, o);
	free(b);
	return 0;
}

static int pfr_has_tracepoints(const struct pfr_perf_file *f)
{
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (f->ev[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    strchr(f->ev[i].name, ':'))
			return 1;
	return 0;
}

/* The tracepoint's "sys:name" of an event name, modifiers and filters
 * cut: 0, or -1 for an event that is not one. */
static int pfr_tp_name(const struct pfr_file_event *e, char *sys, size_t slen,
		       char *name, size_t nlen)
{
	const char *colon = strchr(e->name, ':');
	size_t sl, nl;

	if (e->attr.type != PERF_TYPE_TRACEPOINT || !colon)
		return -1;
	sl = (size_t)(colon - e->name);
	nl = strcspn(colon + 1, ":/ ");
	if (sl >= slen || nl >= nlen || !sl || !nl)
		return -1;
	memcpy(sys, e->name, sl);
	sys[sl] = 0;
	memcpy(name, colon + 1, nl);
	name[nl] = 0;
	return 0;
}

/*
 * HEADER_TRACING_DATA: what perf's trace_report() reads to decode
 * tracepoint samples: magic, version "0.6", endianness, sizeof(long), page
 * size, tracefs's events/header_page and header_event, no ftrace formats,
 * the format file of each recorded tracepoint grouped by subsystem, then
 * empty kallsyms, printk formats and saved cmdlines.
 */
static int pfr_write_tracing(struct pfr_perf_file *f, FILE *o)
{
	static const unsigned char magic[] = {23,  8,	68,  't', 'r',
					      'a', 'c', 'i', 'n', 'g'};
	const char *tfs = pfr_perf_tracefs_path();
	char p[512], sys[128], name[128];
	unsigned char b[2] = {0, (unsigned char)sizeof(long)};
	uint32_t nsys = 0;
	const union {
		uint16_t u;
		unsigned char c[2];
	} endian = {1};

	b[0] = endian.c[0] ? 0 : 1; /* 1: big-endian */
	fwrite(magic, sizeof(magic), 1, o);
	fwrite("0.6", 4, 1, o);
	fwrite(b, 2, 1, o);
	pfr__put_u32(o, (uint32_t)getpagesize());
	snprintf(p, sizeof(p), "%s/events/header_page", tfs);
	if (pfr_put_file(o, "header_page", p))
		return -1;
	snprintf(p, sizeof(p), "%s/events/header_event", tfs);
	if (pfr_put_file(o, "header_event", p))
		return -1;
	pfr__put_u32(o, 0); /* ftrace formats */
	/* One "system" entry per tracepoint event (perf accepts repeats). */
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (!pfr_tp_name(&f->ev[i], sys, sizeof(sys), name,
				 sizeof(name)))
			nsys++;
	pfr__put_u32(o, nsys);
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		if (pfr_tp_name(&f->ev[i], sys, sizeof(sys), name,
				sizeof(name)))
			continue;
		fwrite(sys, strlen(sys) + 1, 1, o);
		pfr__put_u32(o, 1);
		snprintf(p, sizeof(p), "%s/events/%s/%s/format", tfs, sys,
			 name);
		if (pfr_put_file(o, NULL, p))
			return -1;
	}
	pfr__put_u32(o, 0); /* kallsyms */
	pfr__put_u32(o, 0); /* printk formats */
	pfr__put_u64(o, 0); /* saved cmdlines */
	return 0;
}

static int pfr_write_feature(struct pfr_perf_file *f, int feat, FILE *o)
{
	struct utsname u;

	uname(&u);
	switch (feat) {
	case PFR_FEAT_TRACING_DATA:
		return pfr_has_tracepoints(f) ? pfr_write_tracing(f, o) : -1;
	case PFR_FEAT_BUILD_ID:
		return f->buildids == PFR__BUILDID_NONE
			       ? -1
			       : pfr_write_build_ids(f, o);
	case PFR_FEAT_HOSTNAME:
		pfr__put_string(o, u.nodename);
		return 0;
	case PFR_FEAT_OSRELEASE:
		pfr__put_string(o, u.release);
		return 0;
	case PFR_FEAT_VERSION:
		pfr__put_string(o, "perfring-" PFR_VERSION_STRING);
		return 0;
	case PFR_FEAT_ARCH:
		pfr__put_string(o, u.machine);
		return 0;
	case PFR_FEAT_NRCPUS:
		return pfr__feat_nrcpus(o);
	case PFR_FEAT_CPUDESC:
		return pfr__feat_cpudesc(o);
	case PFR_FEAT_CPUID:
		return pfr__feat_cpuid(o);
	case PFR_FEAT_TOTAL_MEM:
		return pfr__feat_total_mem(o);
	case PFR_FEAT_CMDLINE: {
		uint32_t nr = 0;
		const char *p = f->cmdline;

		for (; p && *p != 1; p += strlen(p) + 1)
			nr++;
		pfr__put_u32(o, nr);
		for (p = f->cmdline; p && *p != 1; p += strlen(p) + 1)
			pfr__put_string(o, p);
		return 0;
	}
	case PFR_FEAT_EVENT_DESC:
		pfr__put_u32(o, f->nr_ev);
		pfr__put_u32(o, sizeof(struct perf_event_attr));
		for (uint32_t i = 0; i < f->nr_ev; i++) {
			struct pfr_file_event *e = &f->ev[i];

			fwrite(&e->attr, sizeof(e->attr), 1, o);
			pfr__put_u32(o, e->nr_ids);
			pfr__put_string(o, e->name);
			if (e->nr_ids)
				fwrite(e->ids, 8, e->nr_ids, o);
		}
		return 0;
	case PFR_FEAT_CPU_TOPOLOGY:
		return pfr__feat_cpu_topology(o);
	case PFR_FEAT_NUMA_TOPOLOGY:
		return pfr__feat_numa_topology(o);
	case PFR_FEAT_PMU_MAPPINGS:
		return pfr__feat_pmu_mappings(o);
	case PFR_FEAT_GROUP_DESC:
		if (!f->nr_groups)
			return -1;
		pfr__put_u32(o, f->nr_groups);
		for (uint32_t i = 0; i < f->nr_groups; i++) {
			pfr__put_string(o, f->groups[i].name);
			pfr__put_u32(o, f->groups[i].leader);
			pfr__put_u32(o, f->groups[i].nr_members);
		}
		return 0;
	case PFR_FEAT_CACHE:
		return pfr__feat_cache(o);
	case PFR_FEAT_SAMPLE_TIME:
		pfr__put_u64(o, f->first_time);
		pfr__put_u64(o, f->last_time);
		return 0;
	case PFR_FEAT_MEM_TOPOLOGY:
		return pfr__feat_mem_topology(o);
	case PFR_FEAT_CLOCKID: {
		struct timespec r;

		/* the clock's resolution in ns, as perf writes it */
		if (f->clockid < 0 || clock_getres(f->clockid, &r))
			return -1;
		pfr__put_u64(o, (uint64_t)r.tv_sec * 1000000000ULL +
					(uint64_t)r.tv_nsec);
		return 0;
	}
	case PFR_FEAT_BPF_PROG_INFO:
		if (!f->bpf_set)
			return -1;
		pfr__put_u32(o, f->bpf_nprog);
		if (f->bpf_info_len)
			fwrite(f->bpf_info, f->bpf_info_len, 1, o);
		return 0;
	case PFR_FEAT_BPF_BTF:
		if (!f->bpf_set)
			return -1;
		pfr__put_u32(o, f->bpf_nbtf);
		if (f->bpf_btf_len)
			fwrite(f->bpf_btf, f->bpf_btf_len, 1, o);
		return 0;
	case PFR_FEAT_COMPRESSED:
		if (!f->zlevel)
			return -1;
		pfr__put_u32(o, 1); /* version */
		pfr__put_u32(o, 1); /* type: zstd */
		pfr__put_u32(o, (uint32_t)f->zlevel);
		pfr__put_u32(o, (uint32_t)(f->zout ? f->zin / f->zout : 1));
		pfr__put_u32(o,
			     PFR_ZCHUNK); /* mmap_len: decompressed at most */
		return 0;
	case PFR_FEAT_CPU_PMU_CAPS:
		return pfr__feat_cpu_pmu_caps(o);
	case PFR_FEAT_PMU_CAPS:
		return pfr__feat_pmu_caps(o);
	}
	return -1;
}

/* A user record of the pipe format: header, then body. */
static void pfr_pipe_record(FILE *o, uint32_t type, const void *a, size_t alen,
			    const void *b, size_t blen)
{
	struct pfr_record_header h;

	h.type = type;
	h.misc = 0;
	h.size = (uint16_t)(sizeof(h) + alen + blen);
	fwrite(&h, sizeof(h), 1, o);
	if (alen)
		fwrite(a, alen, 1, o);
	if (blen)
		fwrite(b, blen, 1, o);
}

/*
 * perf's pipe format: a 16-byte header, then what the file header and its
 * features would say, as records ahead of the data -- each event's attr
 * and ids (HEADER_ATTR) and name (EVENT_UPDATE), each feature known at the
 * start (HEADER_FEATURE, then the LAST_FEATURE mark), the tracepoints'
 * formats (HEADER_TRACING_DATA, its bytes following the record).
 */
static int pfr_pipe_start(struct pfr_perf_file *f)
{
	uint64_t ph[2] = {PFR_PERF_MAGIC2, 16};
	FILE *o = f->out;

	fwrite(ph, sizeof(ph), 1, o);
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		struct pfr_file_event *e = &f->ev[i];
		uint64_t upd[2] = {2 /* PERF_EVENT_UPDATE__NAME */, 0};
		unsigned char name[264];
		size_t nl = strlen(e->name) + 1;

		if (sizeof(e->attr) + 8ULL * e->nr_ids + 8 > 0xffff)
			return -PFR_E_INVAL;
		pfr_pipe_record(o, PFR_RECORD_HEADER_ATTR, &e->attr,
				sizeof(e->attr), e->ids, 8ULL * e->nr_ids);
		if (!e->nr_ids || !e->name[0])
			continue;
		upd[1] = e->ids[0];
		memset(name, 0, sizeof(name));
		memcpy(name, e->name, nl);
		pfr_pipe_record(o, PFR_RECORD_EVENT_UPDATE, upd, sizeof(upd),
				name, (nl + 7) & ~(size_t)7);
	}
	for (int b = 3; b < 32; b++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m;
		int bad;
		uint64_t id = (uint64_t)b;

		if (b == PFR_FEAT_BUILD_ID || b == PFR_FEAT_SAMPLE_TIME ||
		    b == PFR_FEAT_TRACING_DATA)
			continue; /* known at the end, or a record of its own */
		m = open_memstream(&buf, &len);
		if (!m)
			return -PFR_E_SYSTEM;
		bad = pfr_write_feature(f, b, m) | ferror(m);
		if (fclose(m))
			bad = 1;
		if (!bad && len && len + 16 <= 0xffff)
			pfr_pipe_record(o, PFR_RECORD_HEADER_FEATURE, &id, 8,
					buf, len);
		free(buf);
	}
	{
		uint64_t last = PFR_FEAT_LAST;

		pfr_pipe_record(o, PFR_RECORD_HEADER_FEATURE, &last, 8, NULL,
				0);
	}
	if (pfr_has_tracepoints(f)) {
		char *buf = NULL;
		size_t len = 0, al;
		FILE *m = open_memstream(&buf, &len);
		uint32_t sz[2] = {0, 0};
		static const char zero[8];
		int bad;

		if (!m)
			return -PFR_E_SYSTEM;
		bad = pfr_write_tracing(f, m) | ferror(m);
		if (fclose(m) || bad) {
			free(buf);
			return -PFR_E_SYSTEM;
		}
		al = (len + 7) & ~(size_t)7;
		sz[0] = (uint32_t)al;
		pfr_pipe_record(o, PFR_RECORD_HEADER_TRACING_DATA, sz,
				sizeof(sz), NULL, 0);
		fwrite(buf, len, 1, o);
		if (al > len)
			fwrite(zero, al - len, 1, o);
		free(buf);
	}
	return ferror(o) ? -PFR_E_SYSTEM : 0;
}

void pfr__file_free(struct pfr_perf_file *f)
{
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (!f->map)
			free(f->ev[i].ids);
	for (uint32_t i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i].name);
	pfr__procs_free(&f->procs);
	free(f->dso_hash);
	for (uint32_t i = 0; i < f->nr_groups; i++)
		free(f->groups[i].name);
	free(f->groups);
	free(f->ids);
	free(f->dsos);
	free(f->ev);
	free(f->cmdline);
	free(f->zbuf);
	free(f->obuf);
#ifdef PFR_HAVE_ZSTD
	if (f->zctx)
		pfr_zstd.free(f->zctx);
#endif
	free(f);
}

int pfr_perf_file_add_group(struct pfr_perf_file *f, const char *name,
			    uint32_t leader, uint32_t nr_members)
{
	struct pfr_file_group *g;

	if (!f || !f->out || leader >= f->nr_ev || !nr_members ||
	    nr_members > f->nr_ev - leader)
		return -PFR_E_INVAL;
	g = realloc(f->groups, (f->nr_groups + 1) * sizeof(*g));
	if (!g)
		return -PFR_E_SYSTEM;
	f->groups = g;
	g = &f->groups[f->nr_groups];
	g->name = strdup(name ? name : "");
	if (!g->name)
		return -PFR_E_SYSTEM;
	g->leader = leader;
	g->nr_members = nr_members;
	f->nr_groups++;
	return 0;
}

int pfr_perf_file_close(struct pfr_perf_file *f)
{
	struct pfr_file_section secs[PFR_FEAT_BITS];
	struct pfr_file_header h;
	uint64_t off;
	int nfeat = 0, err = 0;
	char *buf[PFR_FEAT_BITS];
	size_t blen[PFR_FEAT_BITS];

	if (!f)
		return 0; /* as free(NULL) */
	if (f->map) { /* opened for reading */
		free((void *)f->map);
		free(f->tail);
		free(f->win);
		free(f->zdec);
		free(f->zsrc);
		while (f->nzkeep)
			free(f->zkeep[--f->nzkeep]);
		free(f->zkeep);
		if (f->in_fd >= 0)
			close(f->in_fd);
		pfr__file_free(f);
		return 0;
	}
	if (!f->cmdline)
		pfr_perf_file_set_cmdline(f, 0, NULL);
	if (pfr_file_start(f) || (f->zlevel && pfr_zflush(f)) ||
	    (!f->pipe && pfr_out_flush(f)))
		err = -PFR_E_SYSTEM;
	if (f->pipe) { /* nothing to go back to */
		if (fclose(f->out) && !err)
			err = -PFR_E_SYSTEM;
		pfr__file_free(f);
		return err;
	}
	memset(&h, 0, sizeof(h));
	memset(secs, 0, sizeof(secs));
	/* Each feature into memory first: one the machine cannot describe is
	 * left out (its bit clear), as perf does.  They go in bit order. */
	for (int b = 1; b < 32 && !err; b++) {
		FILE *m;
		int bad;

		buf[nfeat] = NULL;
		blen[nfeat] = 0;
		m = open_memstream(&buf[nfeat], &blen[nfeat]);
		if (!m) {
			err = -PFR_E_SYSTEM;
			break;
		}
		bad = pfr_write_feature(f, b, m);
		bad |= ferror(m);
		if (fclose(m))
			bad = 1;
		if (bad || !blen[nfeat]) {
			free(buf[nfeat]);
			continue;
		}
		h.features[b / 64] |= 1ULL << (b % 64);
		nfeat++;
	}
	/* The index of feature sections (one per bit set), then their
	 * contents. */
	off = f->data_offset + f->data_size + nfeat * sizeof(secs[0]);
	if (!err && fseeko(f->out, (off_t)off, SEEK_SET))
		err = -PFR_E_SYSTEM;
	for (int i = 0; i < nfeat; i++) {
		if (!err && fwrite(buf[i], blen[i], 1, f->out) != 1)
			err = -PFR_E_SYSTEM;
		secs[i].offset = off;
		secs[i].size = blen[i];
		off += blen[i];
		free(buf[i]);
	}
	{
		uint64_t feat[PFR_FEAT_BITS / 64];

		memcpy(feat, h.features, sizeof(feat));
		pfr_fill_header(f, &h, f->data_size);
		memcpy(h.features, feat, sizeof(feat));
	}
	if (!err &&
	    (fseeko(f->out, (off_t)(f->data_offset + f->data_size), SEEK_SET) ||
	     (nfeat && fwrite(secs, nfeat * sizeof(secs[0]), 1, f->out) != 1) ||
	     fseeko(f->out, 0, SEEK_SET) ||
	     fwrite(&h, sizeof(h), 1, f->out) != 1))
		err = -PFR_E_SYSTEM;
	if (fclose(f->out) && !err)
		err = -PFR_E_SYSTEM;
	pfr__file_free(f);
	return err;
}
