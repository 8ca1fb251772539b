/* SPDX-License-Identifier: MIT */
/*
 * perf.data files, written so that perf report and perf script read them
 * and read whether perf or perfring wrote them.  The format is the one in
 * the kernel's tools/perf/Documentation/perf.data-file-format.txt:
 *
 *   [file header][ids of event 0][ids of event 1]...[attrs][data ...]
 *   [feature sections' index][feature contents]
 *
 * The header names the attrs and data sections; the feature bitmap in the
 * header says which feature sections follow the data, their index starting
 * right at data.offset + data.size.  Everything is native-endian.  On
 * reading, every section is checked against the file size before use.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "compiler.h"

#define PFR_PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
/* perf's own misc flag in a BUILD_ID entry: the id's length is in its
 * size byte (tools/lib/perf/include/perf/event.h). */
#define PFR_MISC_BUILD_ID_SIZE (1u << 15)

/* Feature bits (tools/perf/util/header.h, HEADER_*). */
enum {
	PFR_FEAT_TRACING_DATA = 1,
	PFR_FEAT_BUILD_ID = 2,
	PFR_FEAT_HOSTNAME = 3,
	PFR_FEAT_OSRELEASE = 4,
	PFR_FEAT_VERSION = 5,
	PFR_FEAT_ARCH = 6,
	PFR_FEAT_NRCPUS = 7,
	PFR_FEAT_CMDLINE = 11,
	PFR_FEAT_EVENT_DESC = 12,
	PFR_FEAT_BITS = 256,
};

struct pfr_file_section {
	uint64_t offset, size;
};

struct pfr_file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct pfr_file_section attrs, data, event_types;
	uint64_t features[PFR_FEAT_BITS / 64];
};
_Static_assert(sizeof(struct pfr_file_header) == 104, "perf_file_header");

struct pfr_file_event {
	struct perf_event_attr attr;
	char name[256];
	uint64_t *ids;
	uint32_t nr_ids;
};

struct pfr_perf_file {
	/* writing */
	FILE *out;
	int fd;
	int started;
	uint64_t data_offset, data_size;
	char *cmdline;
	char **dsos; /* files named by MMAP/MMAP2 records, for BUILD_ID */
	uint32_t nr_dsos, cap_dsos;
	int kernel_mapped;
	/* reading */
	const unsigned char *map;
	size_t map_len;
	uint64_t pos, end;
	/* both */
	struct pfr_file_event *ev;
	uint32_t nr_ev;
};

int pfr_perf_file_create(struct pfr_perf_file **fp, const char *path)
{
	struct pfr_perf_file *f = calloc(1, sizeof(*f));
	struct stat st = {0};

	if (!f)
		return -PFR_E_SYSTEM;
	/* O_NONBLOCK: a FIFO fails at once (ENXIO) instead of waiting for
	 * a reader; one that has a reader is refused below */
	f->fd = open(path,
		     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK |
			     O_NOCTTY,
		     0644);
	if (f->fd < 0) {
		free(f);
		return -PFR_E_SYSTEM;
	}
	if (fstat(f->fd, &st) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
	    fcntl(f->fd, F_SETFL, fcntl(f->fd, F_GETFL) & ~O_NONBLOCK)) {
		int e = S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ? EINVAL
								     : errno;

		close(f->fd);
		free(f);
		errno = e;
		return -PFR_E_SYSTEM;
	}
	f->out = fdopen(f->fd, "w");
	if (!f->out) {
		close(f->fd);
		free(f);
		return -PFR_E_SYSTEM;
	}
	setvbuf(f->out, NULL, _IOFBF, 1 << 20);
	*fp = f;
	return 0;
}

int pfr_perf_file_add_event(struct pfr_perf_file *f,
			    const struct perf_event_attr *attr,
			    const char *name, const uint64_t *ids,
			    uint32_t nr_ids)
{
	struct pfr_file_event *ev;

	if (f->started || !f->out)
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

	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
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

/* Remembers the file an MMAP/MMAP2 record maps (once each), for the
 * BUILD_ID feature. */
static void pfr_note_dso(struct pfr_perf_file *f,
			 const struct pfr_record_header *hdr,
			 const void *payload, uint32_t len)
{
	struct pfr_perf_layout lay = {0, 0, 0, 0};
	struct pfr_perf_rec r;
	unsigned mode = hdr->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (f->nr_ev)
		lay.sample_type = f->ev[0].attr.sample_type,
		lay.sample_id_all = f->ev[0].attr.sample_id_all;
	if (pfr_perf_decode(&lay, hdr, payload, len, &r))
		return;
	if (mode == PERF_RECORD_MISC_KERNEL) {
		f->kernel_mapped = 1;
		return;
	}
	if (mode != PERF_RECORD_MISC_USER || r.u.mmap.filename[0] != '/')
		return;
	for (uint32_t i = f->nr_dsos; i-- > 0;)
		if (!strcmp(f->dsos[i], r.u.mmap.filename))
			return;
	if (f->nr_dsos == f->cap_dsos) {
		uint32_t nc = f->cap_dsos ? 2 * f->cap_dsos : 64;
		char **n = realloc(f->dsos, nc * sizeof(*n));

		if (!n)
			return;
		f->dsos = n;
		f->cap_dsos = nc;
	}
	f->dsos[f->nr_dsos] = strdup(r.u.mmap.filename);
	if (f->dsos[f->nr_dsos])
		f->nr_dsos++;
}

/* The GNU build id in a sequence of ELF notes [p, p + n); its length, or
 * 0. */
static size_t pfr_notes_build_id(const unsigned char *p, size_t n,
				 unsigned char id[20])
{
	size_t o = 0;

	while (n - o >= 12) {
		uint32_t nsz, dsz, type;
		size_t nal, dal;

		memcpy(&nsz, p + o, 4);
		memcpy(&dsz, p + o + 4, 4);
		memcpy(&type, p + o + 8, 4);
		o += 12;
		nal = ((size_t)nsz + 3) & ~(size_t)3;
		dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nal > n - o || dal > n - o - nal)
			return 0;
		if (type == 3 /* NT_GNU_BUILD_ID */ && nsz == 4 &&
		    !memcmp(p + o, "GNU", 4) && dsz >= 1 && dsz <= 20) {
			memcpy(id, p + o + nal, dsz);
			return dsz;
		}
		o += nal + dal;
	}
	return 0;
}

/* The build id of an ELF64 file from its PT_NOTE segments.  The file is
 * read with pread(), not mapped: a file truncated meanwhile (it belongs to
 * the traced program, not to us) is a short read, never SIGBUS. */
static size_t pfr_file_build_id(const char *path, unsigned char id[20])
{
	struct stat st;
	Elf64_Ehdr eh;
	size_t len, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(eh) ||
	    pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh)) {
		close(fd);
		return 0;
	}
	len = (size_t)st.st_size;
	if (!memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phoff <= len &&
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) <= len - eh.e_phoff)
		for (int i = 0; i < eh.e_phnum && !got; i++) {
			Elf64_Phdr ph;
			unsigned char *n;

			if (pread(fd, &ph, sizeof(ph),
				  (off_t)(eh.e_phoff + i * sizeof(ph))) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type != PT_NOTE || ph.p_offset > len ||
			    ph.p_filesz > len - ph.p_offset ||
			    ph.p_filesz > (1u << 20))
				continue;
			n = malloc(ph.p_filesz ? ph.p_filesz : 1);
			if (n &&
			    pread(fd, n, ph.p_filesz, (off_t)ph.p_offset) ==
				    (ssize_t)ph.p_filesz)
				got = pfr_notes_build_id(n, ph.p_filesz, id);
			free(n);
		}
	close(fd);
	return got;
}

/* One HEADER_BUILD_ID entry (perf's struct perf_record_header_build_id):
 * header, pid, 20 id bytes, their count, 3 reserved, then the file name
 * padded to 64. */
static int pfr_put_build_id(FILE *o, uint16_t misc, const unsigned char *id,
			    size_t idlen, const char *name, uint64_t *size)
{
	static const char zero[64];
	unsigned char fixed[36];
	size_t l = strlen(name) + 1, padded = (l + 63) & ~(size_t)63;
	struct pfr_record_header h;
	int32_t pid = -1; /* the host machine */

	if (36 + padded > 0xffff)
		return 0;
	h.type = 0;
	h.misc = (uint16_t)(misc | PFR_MISC_BUILD_ID_SIZE);
	h.size = (uint16_t)(36 + padded);
	memset(fixed, 0, sizeof(fixed));
	memcpy(fixed, &h, 8);
	memcpy(fixed + 8, &pid, 4);
	memcpy(fixed + 12, id, idlen);
	fixed[32] = (unsigned char)idlen;
	if (fwrite(fixed, sizeof(fixed), 1, o) != 1 ||
	    fwrite(name, l, 1, o) != 1 ||
	    (padded > l && fwrite(zero, padded - l, 1, o) != 1))
		return -1;
	*size += h.size;
	return 0;
}

/* HEADER_BUILD_ID: the build id of every mapped file that has one, and of
 * the running kernel (/sys/kernel/notes), so that perf can tell when a
 * binary changed since the recording. */
static int pfr_write_build_ids(struct pfr_perf_file *f, uint64_t *size)
{
	unsigned char id[20];
	size_t n;

	if (f->kernel_mapped) {
		unsigned char notes[4096];
		int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
		ssize_t got = fd < 0 ? -1 : read(fd, notes, sizeof(notes));

		if (fd >= 0)
			close(fd);
		if (got > 0 &&
		    (n = pfr_notes_build_id(notes, (size_t)got, id)) &&
		    pfr_put_build_id(f->out, PERF_RECORD_MISC_KERNEL, id, n,
				     "[kernel.kallsyms]", size))
			return -1;
	}
	for (uint32_t i = 0; i < f->nr_dsos; i++)
		if ((n = pfr_file_build_id(f->dsos[i], id)) &&
		    pfr_put_build_id(f->out, PERF_RECORD_MISC_USER, id, n,
				     f->dsos[i], size))
			return -1;
	return 0;
}

/* The ids and the attrs go first; the data follows them. */
static int pfr_file_start(struct pfr_perf_file *f)
{
	uint64_t off = sizeof(struct pfr_file_header);

	if (f->started)
		return 0;
	f->started = 1;
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
	return 0;
}

int pfr_perf_file_write(struct pfr_perf_file *f,
			const struct pfr_record_header *hdr,
			const void *payload, uint32_t len)
{
	int err = pfr_file_start(f);

	if (err)
		return err;
	if ((uint64_t)len + sizeof(*hdr) != hdr->size)
		return -PFR_E_INVAL;
	if (hdr->type == PERF_RECORD_MMAP || hdr->type == PERF_RECORD_MMAP2)
		pfr_note_dso(f, hdr, payload, len);
	if (fwrite(hdr, sizeof(*hdr), 1, f->out) != 1 ||
	    (len && fwrite(payload, len, 1, f->out) != 1))
		return -PFR_E_SYSTEM;
	f->data_size += hdr->size;
	return 0;
}

/* A perf_header_string: u32 length (with the NUL, padded to 64), bytes. */
static int pfr_put_string(FILE *o, const char *s, uint64_t *size)
{
	static const char zero[64];
	uint32_t l = (uint32_t)strlen(s) + 1;
	uint32_t padded = (l + 63) & ~63u;

	if (fwrite(&padded, 4, 1, o) != 1 || fwrite(s, l, 1, o) != 1 ||
	    (padded > l && fwrite(zero, padded - l, 1, o) != 1))
		return -1;
	*size += 4 + padded;
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

static int pfr_put_file(FILE *o, const char *label, const char *path,
			uint64_t *size, int len8)
{
	uint64_t n = 0;
	char *b = pfr_slurp(path, &n);
	int err = 0;

	if (!b)
		return -1;
	if (label && fwrite(label, strlen(label) + 1, 1, o) != 1)
		err = -1;
	if (label)
		*size += strlen(label) + 1;
	if (!err && len8 && fwrite(&n, 8, 1, o) != 1)
		err = -1;
	if (!err && n && fwrite(b, n, 1, o) != 1)
		err = -1;
	*size += 8 + n;
	free(b);
	return err;
}

static int pfr_has_tracepoints(const struct pfr_perf_file *f)
{
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (f->ev[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    strchr(f->ev[i].name, ':'))
			return 1;
	return 0;
}

/*
 * HEADER_TRACING_DATA: what perf's trace_report() reads to decode
 * tracepoint samples: magic, version "0.6", endianness, sizeof(long), page
 * size, tracefs's events/header_page and header_event, no ftrace formats,
 * the format file of each recorded tracepoint grouped by subsystem, then
 * empty kallsyms, printk formats and saved cmdlines.
 */
static int pfr_write_tracing(struct pfr_perf_file *f, uint64_t *size)
{
	static const unsigned char magic[] = {23,  8,	68,  't', 'r',
					      'a', 'c', 'i', 'n', 'g'};
	const char *tfs = pfr_perf_tracefs_path();
	FILE *o = f->out;
	char p[512];
	unsigned char b[2] = {0, (unsigned char)sizeof(long)};
	uint32_t psz = (uint32_t)getpagesize(), nsys = 0, zero4 = 0;
	uint64_t zero8 = 0;
	const union {
		uint16_t u;
		unsigned char c[2];
	} endian = {1};

	b[0] = endian.c[0] ? 0 : 1; /* 1: big-endian */
	if (fwrite(magic, sizeof(magic), 1, o) != 1 ||
	    fwrite("0.6", 4, 1, o) != 1 || fwrite(b, 2, 1, o) != 1 ||
	    fwrite(&psz, 4, 1, o) != 1)
		return -1;
	*size += sizeof(magic) + 4 + 2 + 4;
	snprintf(p, sizeof(p), "%s/events/header_page", tfs);
	if (pfr_put_file(o, "header_page", p, size, 1))
		return -1;
	snprintf(p, sizeof(p), "%s/events/header_event", tfs);
	if (pfr_put_file(o, "header_event", p, size, 1))
		return -1;
	if (fwrite(&zero4, 4, 1, o) != 1) /* ftrace formats */
		return -1;
	*size += 4;
	/* One "system" entry per tracepoint event (perf accepts repeats). */
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (f->ev[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    strchr(f->ev[i].name, ':'))
			nsys++;
	if (fwrite(&nsys, 4, 1, o) != 1)
		return -1;
	*size += 4;
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		char sys[128];
		const char *colon = strchr(f->ev[i].name, ':');
		uint32_t one = 1;
		size_t sl;

		if (f->ev[i].attr.type != PERF_TYPE_TRACEPOINT || !colon)
			continue;
		sl = (size_t)(colon - f->ev[i].name);
		if (sl >= sizeof(sys))
			return -1;
		memcpy(sys, f->ev[i].name, sl);
		sys[sl] = 0;
		if (fwrite(sys, sl + 1, 1, o) != 1 ||
		    fwrite(&one, 4, 1, o) != 1)
			return -1;
		*size += sl + 1 + 4;
		snprintf(p, sizeof(p), "%s/events/%s/%s/format", tfs, sys,
			 colon + 1);
		if (pfr_put_file(o, NULL, p, size, 1))
			return -1;
	}
	if (fwrite(&zero4, 4, 1, o) != 1 || fwrite(&zero4, 4, 1, o) != 1 ||
	    fwrite(&zero8, 8, 1, o) != 1)
		return -1;
	*size += 16;
	return 0;
}

static int pfr_write_feature(struct pfr_perf_file *f, int feat, uint64_t *size)
{
	struct utsname u;
	FILE *o = f->out;

	uname(&u);
	switch (feat) {
	case PFR_FEAT_TRACING_DATA:
		return pfr_write_tracing(f, size);
	case PFR_FEAT_BUILD_ID:
		return pfr_write_build_ids(f, size);
	case PFR_FEAT_HOSTNAME:
		return pfr_put_string(o, u.nodename, size);
	case PFR_FEAT_OSRELEASE:
		return pfr_put_string(o, u.release, size);
	case PFR_FEAT_VERSION:
		return pfr_put_string(o, "perfring-" PFR_VERSION_STRING, size);
	case PFR_FEAT_ARCH:
		return pfr_put_string(o, u.machine, size);
	case PFR_FEAT_NRCPUS: {
		long n = sysconf(_SC_NPROCESSORS_CONF);
		long on = sysconf(_SC_NPROCESSORS_ONLN);
		uint32_t v[2] = {(uint32_t)(n > 0 ? n : 1),
				 (uint32_t)(on > 0 ? on : 1)};

		/* perf reads nr_cpus_avail, then nr_cpus_online. */
		if (fwrite(v, sizeof(v), 1, o) != 1)
			return -1;
		*size += sizeof(v);
		return 0;
	}
	case PFR_FEAT_CMDLINE: {
		uint32_t nr = 0;
		const char *p = f->cmdline;

		for (; p && *p != 1; p += strlen(p) + 1)
			nr++;
		if (fwrite(&nr, 4, 1, o) != 1)
			return -1;
		*size += 4;
		for (p = f->cmdline; p && *p != 1; p += strlen(p) + 1)
			if (pfr_put_string(o, p, size))
				return -1;
		return 0;
	}
	case PFR_FEAT_EVENT_DESC: {
		uint32_t v[2] = {f->nr_ev, sizeof(struct perf_event_attr)};

		if (fwrite(v, sizeof(v), 1, o) != 1)
			return -1;
		*size += sizeof(v);
		for (uint32_t i = 0; i < f->nr_ev; i++) {
			struct pfr_file_event *e = &f->ev[i];

			if (fwrite(&e->attr, sizeof(e->attr), 1, o) != 1 ||
			    fwrite(&e->nr_ids, 4, 1, o) != 1)
				return -1;
			*size += sizeof(e->attr) + 4;
			if (pfr_put_string(o, e->name, size))
				return -1;
			if (e->nr_ids &&
			    fwrite(e->ids, 8, e->nr_ids, o) != e->nr_ids)
				return -1;
			*size += 8ULL * e->nr_ids;
		}
		return 0;
	}
	}
	return -1;
}

static void pfr_file_free(struct pfr_perf_file *f)
{
	for (uint32_t i = 0; i < f->nr_ev; i++)
		if (!f->map)
			free(f->ev[i].ids);
	for (uint32_t i = 0; i < f->nr_dsos; i++)
		free(f->dsos[i]);
	free(f->dsos);
	free(f->ev);
	free(f->cmdline);
	free(f);
}

int pfr_perf_file_close(struct pfr_perf_file *f)
{
	static const int all[] = {
		PFR_FEAT_TRACING_DATA, PFR_FEAT_BUILD_ID, PFR_FEAT_HOSTNAME,
		PFR_FEAT_OSRELEASE,    PFR_FEAT_VERSION,  PFR_FEAT_ARCH,
		PFR_FEAT_NRCPUS,       PFR_FEAT_CMDLINE,  PFR_FEAT_EVENT_DESC};
	enum { NALL = sizeof(all) / sizeof(all[0]) };
	int feats[NALL], nfeat = 0;
	struct pfr_file_section secs[NALL];
	struct pfr_file_header h;
	uint64_t off;
	int err = 0;

	if (f->map) { /* opened for reading */
		free((void *)f->map);
		pfr_file_free(f);
		return 0;
	}
	if (pfr_file_start(f))
		err = -PFR_E_SYSTEM;
	if (!f->cmdline)
		pfr_perf_file_set_cmdline(f, 0, NULL);
	/* The features this file has, in bit order. */
	for (int i = 0; i < NALL; i++)
		if (all[i] != PFR_FEAT_TRACING_DATA || pfr_has_tracepoints(f))
			feats[nfeat++] = all[i];
	memset(&h, 0, sizeof(h));
	memset(secs, 0, sizeof(secs));
	/* The index of feature sections (one per bit set), then their
	 * contents. */
	off = f->data_offset + f->data_size + nfeat * sizeof(secs[0]);
	if (!err && fseeko(f->out, (off_t)off, SEEK_SET))
		err = -PFR_E_SYSTEM;
	for (int i = 0; i < nfeat && !err; i++) {
		uint64_t size = 0;

		if (pfr_write_feature(f, feats[i], &size)) {
			err = -PFR_E_SYSTEM;
			break;
		}
		secs[i].offset = off;
		secs[i].size = size;
		off += size;
		h.features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
	}
	h.magic = PFR_PERF_MAGIC2;
	h.size = sizeof(h);
	h.attr_size = sizeof(struct perf_event_attr) +
		      sizeof(struct pfr_file_section);
	h.attrs.offset = sizeof(h);
	for (uint32_t i = 0; i < f->nr_ev; i++)
		h.attrs.offset += 8ULL * f->ev[i].nr_ids;
	h.attrs.size = (uint64_t)f->nr_ev * h.attr_size;
	h.data.offset = f->data_offset;
	h.data.size = f->data_size;
	if (!err &&
	    (fseeko(f->out, (off_t)(f->data_offset + f->data_size), SEEK_SET) ||
	     fwrite(secs, nfeat * sizeof(secs[0]), 1, f->out) != 1 ||
	     fseeko(f->out, 0, SEEK_SET) ||
	     fwrite(&h, sizeof(h), 1, f->out) != 1))
		err = -PFR_E_SYSTEM;
	if (fclose(f->out) && !err)
		err = -PFR_E_SYSTEM;
	pfr_file_free(f);
	return err;
}

/* --- reading --- */

static int pfr_in_file(const struct pfr_perf_file *f,
		       const struct pfr_file_section *s)
{
	return s->offset <= f->map_len && s->size <= f->map_len - s->offset;
}

/* Reads a perf_header_string at *off inside [*, end); 0 or -1. */
static int pfr_get_string(const struct pfr_perf_file *f, uint64_t *off,
			  uint64_t end, const char **s)
{
	uint32_t l;

	if (end - *off < 4)
		return -1;
	memcpy(&l, f->map + *off, 4);
	*off += 4;
	if (l == 0 || l > end - *off || !memchr(f->map + *off, 0, l))
		return -1;
	*s = (const char *)f->map + *off;
	*off += l;
	return 0;
}

/* Names from the EVENT_DESC feature, matched to attrs by position. */
static void pfr_read_event_desc(struct pfr_perf_file *f,
				const struct pfr_file_section *s)
{
	uint64_t off = s->offset, end = s->offset + s->size;
	uint32_t nr, asz;

	if (end - off < 8)
		return;
	memcpy(&nr, f->map + off, 4);
	memcpy(&asz, f->map + off + 4, 4);
	off += 8;
	for (uint32_t i = 0; i < nr && i < f->nr_ev; i++) {
		uint32_t nids;
		const char *name;

		if (end - off < (uint64_t)asz + 4)
			return;
		off += asz;
		memcpy(&nids, f->map + off, 4);
		off += 4;
		if (pfr_get_string(f, &off, end, &name))
			return;
		if ((end - off) / 8 < nids)
			return;
		off += 8ULL * nids;
		if (*name)
			snprintf(f->ev[i].name, sizeof(f->ev[i].name), "%s",
				 name);
	}
}

int pfr_perf_file_open(struct pfr_perf_file **fp, const char *path)
{
	struct pfr_perf_file *f;
	struct pfr_file_header h;
	struct stat st;
	unsigned char *m;
	size_t len, got = 0;
	/* O_NONBLOCK: a FIFO would block open() until a writer came */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -PFR_E_SYSTEM;
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return -PFR_E_SYSTEM;
	}
	if (!S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2) {
		close(fd);
		errno = S_ISDIR(st.st_mode)   ? EISDIR
			: S_ISREG(st.st_mode) ? EFBIG
					      : EINVAL;
		return -PFR_E_SYSTEM;
	}
	if (st.st_size < (off_t)sizeof(h)) {
		close(fd);
		return -PFR_PERF_E_FILE_MAGIC;
	}
	/* Read, not mapped: a file truncated while it is read is a short
	 * file (a malformed record), where a mapping would raise SIGBUS. */
	len = (size_t)st.st_size;
	m = malloc(len);
	while (m && got < len) {
		ssize_t r = pread(fd, m + got, len - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!m)
		return -PFR_E_SYSTEM;
	if (got < sizeof(h)) {
		free(m);
		return -PFR_PERF_E_FILE_MAGIC;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(m);
		return -PFR_E_SYSTEM;
	}
	f->map = m;
	f->map_len = got; /* shorter if it was truncated meanwhile */
	f->fd = -1;
	memcpy(&h, m, sizeof(h));
	if (h.magic != PFR_PERF_MAGIC2) {
		pfr_perf_file_close(f);
		return -PFR_PERF_E_FILE_MAGIC;
	}
	if (h.size < sizeof(h) || h.attr_size < PERF_ATTR_SIZE_VER0 + 16 ||
	    h.attr_size > (1u << 16) || !pfr_in_file(f, &h.attrs) ||
	    !pfr_in_file(f, &h.data) || h.attrs.size % h.attr_size ||
	    h.attrs.size / h.attr_size > 4096) {
		pfr_perf_file_close(f);
		return -PFR_PERF_E_FILE_LAYOUT;
	}
	f->nr_ev = (uint32_t)(h.attrs.size / h.attr_size);
	f->ev = calloc(f->nr_ev ? f->nr_ev : 1, sizeof(*f->ev));
	if (!f->ev) {
		pfr_perf_file_close(f);
		return -PFR_E_SYSTEM;
	}
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		const unsigned char *a =
			f->map + h.attrs.offset + (uint64_t)i * h.attr_size;
		uint64_t asz = h.attr_size - 16;
		struct pfr_file_section ids;

		/* Zero-extend an older attr; ignore a newer one's tail. */
		memcpy(&f->ev[i].attr, a,
		       asz < sizeof(f->ev[i].attr) ? asz
						   : sizeof(f->ev[i].attr));
		memcpy(&ids, a + asz, sizeof(ids));
		if (!pfr_in_file(f, &ids) || ids.size % 8) {
			pfr_perf_file_close(f);
			return -PFR_PERF_E_FILE_LAYOUT;
		}
		/* ids stay in the mapping (8-aligned in every writer). */
		f->ev[i].ids = (uint64_t *)(uintptr_t)(f->map + ids.offset);
		f->ev[i].nr_ids = (uint32_t)(ids.size / 8);
		pfr_perf_attr_name(&f->ev[i].attr, f->ev[i].name,
				   sizeof(f->ev[i].name));
	}
	/* Feature sections: only EVENT_DESC is used (for the names). */
	{
		struct pfr_file_section idx = {h.data.offset + h.data.size, 0};
		uint32_t k = 0;

		for (int b = 1; b < PFR_FEAT_BITS; b++) {
			struct pfr_file_section s;

			if (!(h.features[b / 64] & (1ULL << (b % 64))))
				continue;
			idx.size = 16ULL * (k + 1);
			if (!pfr_in_file(f, &idx))
				break;
			memcpy(&s, f->map + idx.offset + 16ULL * k, 16);
			k++;
			if (b == PFR_FEAT_EVENT_DESC && pfr_in_file(f, &s))
				pfr_read_event_desc(f, &s);
		}
	}
	f->pos = h.data.offset;
	f->end = h.data.offset + h.data.size;
	*fp = f;
	return 0;
}

uint32_t pfr_perf_file_nr_events(const struct pfr_perf_file *f)
{
	return f->nr_ev;
}

const struct perf_event_attr *pfr_perf_file_attr(const struct pfr_perf_file *f,
						 uint32_t i)
{
	return i < f->nr_ev ? &f->ev[i].attr : NULL;
}

const char *pfr_perf_file_event_name(const struct pfr_perf_file *f, uint32_t i)
{
	return i < f->nr_ev ? f->ev[i].name : "?";
}

void pfr_perf_file_layout(const struct pfr_perf_file *f, uint32_t i,
			  struct pfr_perf_layout *lay)
{
	memset(lay, 0, sizeof(*lay));
	if (i >= f->nr_ev)
		return;
	lay->sample_type = f->ev[i].attr.sample_type;
	lay->read_format = f->ev[i].attr.read_format;
	lay->sample_id_all = f->ev[i].attr.sample_id_all;
}

uint32_t pfr_perf_file_event_of(const struct pfr_perf_file *f,
				const struct pfr_record_header *hdr,
				const void *payload, uint32_t len)
{
	uint64_t id;

	if (f->nr_ev < 2 || pfr_perf_record_id(f->ev[0].attr.sample_type,
					       f->ev[0].attr.sample_id_all, hdr,
					       payload, len, &id))
		return 0;
	for (uint32_t i = 0; i < f->nr_ev; i++)
		for (uint32_t j = 0; j < f->ev[i].nr_ids; j++)
			if (pfr_perf_u64(f->ev[i].ids, j) == id)
				return i;
	return 0;
}

int pfr_perf_file_next(struct pfr_perf_file *f, struct pfr_record *rec)
{
	struct pfr_record_header h;

	if (!f->map)
		return -PFR_E_INVAL;
	if (f->pos >= f->end)
		return 0;
	if (f->end - f->pos < sizeof(h))
		return -PFR_E_RECSIZE_PAST_HEAD;
	memcpy(&h, f->map + f->pos, sizeof(h));
	if (h.size < sizeof(h))
		return -PFR_E_RECSIZE_ZERO;
	if (h.size > f->end - f->pos)
		return -PFR_E_RECSIZE_PAST_HEAD;
	rec->hdr = h;
	rec->payload = f->map + f->pos + sizeof(h);
	rec->len = h.size - (uint32_t)sizeof(h);
	rec->pos = f->pos;
	f->pos += h.size;
	return 1;
}
