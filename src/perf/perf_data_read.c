/* SPDX-License-Identifier: MIT */
/*
 * perf.data files read, whether perf or perfring wrote them, in perf's file
 * format or its pipe format (src/perf/perf_data_int.h).  Every section is
 * checked against the file size before use; the writer is perf_data.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "ring/compiler.h"
#include "perf/perf_data_int.h"
#include "perf/perf_read.h"
#include "perf/perf_header.h"

/* Whether section s is in the bytes held: the whole file, or a stream's
 * head (before the data) or tail (after it). */
static int pfr_in_file(const struct pfr_perf_file *f,
		       const struct pfr_file_section *s)
{
	if (s->offset <= f->head_len && s->size <= f->head_len - s->offset)
		return 1;
	return f->tail && s->offset >= f->tail_off &&
	       s->offset - f->tail_off <= f->tail_len &&
	       s->size <= f->tail_len - (s->offset - f->tail_off);
}

/* The byte at file offset off, inside a section pfr_in_file() accepted.
 * Both buffers hold the file's own bytes, and the head and the tail may
 * overlap (a data section that starts inside the header): an offset at or
 * past the tail's start is served from the tail, which holds everything up
 * to the file's end, so a read that starts there and stays inside its
 * section stays inside the tail; one before it stays inside the head. */
static const unsigned char *pfr_at(const struct pfr_perf_file *f, uint64_t off)
{
	if (f->tail && off >= f->tail_off)
		return f->tail + (off - f->tail_off);
	return f->map + off;
}

/* Reads a perf_header_string at *off inside [*, end); 0 or -1. */
static int pfr_get_string(const struct pfr_perf_file *f, uint64_t *off,
			  uint64_t end, const char **s)
{
	uint32_t l;

	if (end - *off < 4)
		return -1;
	memcpy(&l, pfr_at(f, *off), 4);
	*off += 4;
	if (l == 0 || l > end - *off || !memchr(pfr_at(f, *off), 0, l))
		return -1;
	*s = (const char *)pfr_at(f, *off);
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
	memcpy(&nr, pfr_at(f, off), 4);
	memcpy(&asz, pfr_at(f, off + 4), 4);
	off += 8;
	for (uint32_t i = 0; i < nr && i < f->nr_ev; i++) {
		uint32_t nids;
		const char *name;

		if (end - off < (uint64_t)asz + 4)
			return;
		off += asz;
		memcpy(&nids, pfr_at(f, off), 4);
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

/* The most of a pipe-format stream read from standard input. */
#define PFR_PIPE_MAX (1ULL << 30)

/* All of standard input (a pipe), up to PFR_PIPE_MAX bytes (EFBIG past). */
static int pfr_read_stdin(unsigned char **mp, size_t *lenp)
{
	unsigned char *m = NULL, *n;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t r;

		if (len == cap) {
			if (cap >= PFR_PIPE_MAX) {
				free(m);
				errno = EFBIG;
				return -PFR_E_SYSTEM;
			}
			cap = cap ? cap * 2 : 1u << 16;
			n = realloc(m, cap);
			if (!n) {
				free(m);
				return -PFR_E_SYSTEM;
			}
			m = n;
		}
		r = read(0, m + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(m);
			errno = e;
			return -PFR_E_SYSTEM;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	*mp = m;
	*lenp = len;
	return 0;
}

/* A regular file, read whole (not mapped: a file truncated while it is
 * read is a short file, where a mapping would raise SIGBUS). */
static int pfr_read_file(const char *path, unsigned char **mp, size_t *lenp)
{
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
	len = (size_t)st.st_size;
	m = malloc(len ? len : 1);
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
	*mp = m;
	*lenp = got; /* shorter if it was truncated meanwhile */
	return 0;
}

/* The end of the data section: as the header says, or for a file whose
 * header was never completed (no feature, the data size behind the end of
 * the file: written at the start and after each write by a recorder
 * killed before its close, or 0 as perf writes it at its start) the end
 * of the file.  The header's sections are in the file (checked). */
static uint64_t pfr_data_end(const struct pfr_file_header *h, uint64_t len,
			     int *open_end)
{
	uint64_t end = h->data.offset + h->data.size, feat = 0;

	for (size_t i = 0; i < PFR_FEAT_BITS / 64; i++)
		feat |= h->features[i];
	*open_end = !feat && end < len;
	return *open_end ? len : end;
}

int pfr_perf_file_unfinished(const struct pfr_perf_file *f, uint64_t *cut)
{
	if (cut)
		*cut = f ? f->cut : 0;
	return f ? f->open_end : 0;
}

/* The attrs, their ids and the feature sections of perf.data's header. */
static int pfr_open_header(struct pfr_perf_file *f)
{
	struct pfr_file_header h;

	if (f->map_len < sizeof(h))
		return -PFR_PERF_E_FILE_MAGIC;
	memcpy(&h, f->map, sizeof(h));
	if (h.size < sizeof(h) || h.attr_size < PERF_ATTR_SIZE_VER0 + 16 ||
	    h.attr_size > (1u << 16) || !pfr_in_file(f, &h.attrs) ||
	    h.data.offset > f->map_len ||
	    h.data.size > f->map_len - h.data.offset ||
	    h.attrs.size % h.attr_size || h.attrs.size / h.attr_size > 4096)
		return -PFR_PERF_E_FILE_LAYOUT;
	f->nr_ev = (uint32_t)(h.attrs.size / h.attr_size);
	f->ev = calloc(f->nr_ev ? f->nr_ev : 1, sizeof(*f->ev));
	if (!f->ev)
		return -PFR_E_SYSTEM;
	for (uint32_t i = 0; i < f->nr_ev; i++) {
		const unsigned char *a =
			pfr_at(f, h.attrs.offset + (uint64_t)i * h.attr_size);
		uint64_t asz = h.attr_size - 16;
		struct pfr_file_section ids;

		/* Zero-extend an older attr; ignore a newer one's tail. */
		memcpy(&f->ev[i].attr, a,
		       asz < sizeof(f->ev[i].attr) ? asz
						   : sizeof(f->ev[i].attr));
		memcpy(&ids, a + asz, sizeof(ids));
		if (!pfr_in_file(f, &ids) || ids.size % 8)
			return -PFR_PERF_E_FILE_LAYOUT;
		/* ids stay in the mapping (8-aligned in every writer). */
		f->ev[i].ids = (uint64_t *)(uintptr_t)pfr_at(f, ids.offset);
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
			memcpy(&s, pfr_at(f, idx.offset + 16ULL * k), 16);
			k++;
			if (b == PFR_FEAT_EVENT_DESC && pfr_in_file(f, &s))
				pfr_read_event_desc(f, &s);
			if (b == PFR_FEAT_TRACING_DATA && pfr_in_file(f, &s)) {
				f->tracing = pfr_at(f, s.offset);
				f->tracing_len = s.size;
			}
		}
	}
	f->pos = h.data.offset;
	f->end = pfr_data_end(&h, f->map_len, &f->open_end);
	return 0;
}

/* A HEADER_ATTR record of the pipe format: the attr (attr.size bytes),
 * then its ids. */
static int pfr_pipe_attr(struct pfr_perf_file *f, const unsigned char *p,
			 uint32_t len)
{
	struct pfr_file_event *e;
	uint32_t asz;

	if (len < PERF_ATTR_SIZE_VER0)
		return -PFR_PERF_E_FILE_LAYOUT;
	memcpy(&asz, p + 4, 4); /* attr.size */
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > len || asz % 8 ||
	    (len - asz) % 8 || ((uintptr_t)(p + asz)) % 8 || f->nr_ev >= 4096)
		return -PFR_PERF_E_FILE_LAYOUT;
	e = realloc(f->ev, (f->nr_ev + 1) * sizeof(*f->ev));
	if (!e)
		return -PFR_E_SYSTEM;
	f->ev = e;
	e = &f->ev[f->nr_ev++];
	memset(e, 0, sizeof(*e));
	memcpy(&e->attr, p, asz < sizeof(e->attr) ? asz : sizeof(e->attr));
	/* ids stay in the buffer: 8-aligned, checked above */
	e->ids = (uint64_t *)(uintptr_t)(p + asz);
	e->nr_ids = (len - asz) / 8;
	pfr_perf_attr_name(&e->attr, e->name, sizeof(e->name));
	return 0;
}

/* EVENT_UPDATE of type NAME: { u64 type, u64 id, char name[] }, for the
 * first of the nr_ev events known then that has id (found in the sorted
 * index, as perf finds it by id). */
static void pfr_pipe_update(struct pfr_perf_file *f, const unsigned char *p,
			    uint32_t len, uint32_t nr_ev)
{
	uint64_t type, id;
	uint32_t ev;
	size_t nl;

	if (len < 17)
		return;
	memcpy(&type, p, 8);
	memcpy(&id, p + 8, 8);
	nl = strnlen((const char *)p + 16, len - 16);
	if (type != 2 /* PERF_EVENT_UPDATE__NAME */ || !nl || nl == len - 16)
		return;
	ev = pfr__file_find_id(f, id);
	if (ev < nr_ev)
		snprintf(f->ev[ev].name, sizeof(f->ev[ev].name), "%s",
			 (const char *)p + 16);
}

/* HEADER_EVENT_TYPE: { u64 config, char name[64] } of a tracepoint, for
 * the first nr_ev events (those known then). */
static void pfr_pipe_event_type(struct pfr_perf_file *f, const unsigned char *p,
				uint32_t len, uint32_t nr_ev)
{
	uint64_t cfg;

	if (len < 72 || !memchr(p + 8, 0, 64))
		return;
	memcpy(&cfg, p, 8);
	for (uint32_t i = 0; i < nr_ev; i++)
		if (f->ev[i].attr.type == PERF_TYPE_TRACEPOINT &&
		    f->ev[i].attr.config == cfg)
			snprintf(f->ev[i].name, sizeof(f->ev[i].name), "%s",
				 (const char *)p + 8);
}

/* A naming record of the pipe format (EVENT_UPDATE, HEADER_EVENT_TYPE),
 * kept to be applied once every id is indexed: where it is, and how many
 * events were known when it came. */
struct pfr_pipe_name {
	uint64_t pos;
	uint32_t nr_ev, pad;
};

/* Applies the naming records, in their order in the stream. */
static void pfr_pipe_names(struct pfr_perf_file *f,
			   const struct pfr_pipe_name *nm, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pfr_record_header h;
		const unsigned char *p = f->map + nm[i].pos + sizeof(h);

		memcpy(&h, f->map + nm[i].pos, sizeof(h));
		if (h.type == PFR_RECORD_EVENT_UPDATE)
			pfr_pipe_update(f, p, h.size - (uint32_t)sizeof(h),
					nm[i].nr_ev);
		else
			pfr_pipe_event_type(f, p, h.size - (uint32_t)sizeof(h),
					    nm[i].nr_ev);
	}
}

/*
 * The record at f->pos of a pipe-format stream, whole and in bounds:
 * 1 (its header in *h, *skip: its size plus the raw bytes that follow a
 * HEADER_TRACING_DATA), 0 at the end, or a negative error.
 */
static const unsigned char *pfr_win(struct pfr_perf_file *f, uint64_t off,
				    size_t n);

/* n bytes at off of a pipe-format stream: from the file through the
 * window when it is streamed, else from the bytes held; NULL past the
 * file's end. */
static const unsigned char *pfr_pipe_at(struct pfr_perf_file *f, uint64_t off,
					size_t n)
{
	return f->in_fd >= 0 ? pfr_win(f, off, n) : f->map + off;
}

static int pfr_pipe_peek(struct pfr_perf_file *f, struct pfr_record_header *h,
			 uint64_t *skip)
{
	const unsigned char *p;
	uint32_t extra = 0;

	if (f->pos >= f->end)
		return 0;
	if (f->end - f->pos < sizeof(*h))
		return -PFR_E_RECSIZE_PAST_HEAD;
	p = pfr_pipe_at(f, f->pos,
			sizeof(*h) + 4 <= f->end - f->pos ? sizeof(*h) + 4
							  : sizeof(*h));
	if (!p)
		return -PFR_E_RECSIZE_PAST_HEAD;
	memcpy(h, p, sizeof(*h));
	if (h->size < sizeof(*h))
		return -PFR_E_RECSIZE_ZERO;
	if (h->size > f->end - f->pos)
		return -PFR_E_RECSIZE_PAST_HEAD;
	if (h->type == PFR_RECORD_HEADER_TRACING_DATA) {
		if (h->size < sizeof(*h) + 4)
			return -PFR_E_RECSIZE_PAST_HEAD;
		memcpy(&extra, p + sizeof(*h), 4);
		if (extra > f->end - f->pos - h->size)
			return -PFR_E_RECSIZE_PAST_HEAD;
	}
	*skip = h->size + (uint64_t)extra;
	return 1;
}

/*
 * perf's pipe format: the 16-byte header, then records, perf's own
 * (type >= 64) among the data.  One pass takes the attrs and notes the
 * naming records, applied in their order once every id is indexed (an
 * EVENT_UPDATE then costs O(log ids), not a scan of every id);
 * pfr_perf_file_next() passes over perf's own records.  A malformed
 * record ends the pass: pfr_perf_file_next() reports it when it gets
 * there.
 */
static int pfr_open_pipe(struct pfr_perf_file *f)
{
	struct pfr_record_header h;
	struct pfr_file_section desc = {0, 0};
	struct pfr_pipe_name *nm = NULL;
	size_t nr_nm = 0, cap_nm = 0;
	uint64_t skip;
	int err = 0;

	f->pipe = 1;
	f->pos = 16;
	f->end = f->map_len;
	while (!err && pfr_pipe_peek(f, &h, &skip) == 1) {
		const unsigned char *p = f->map + f->pos + sizeof(h);
		uint32_t len = h.size - (uint32_t)sizeof(h);
		uint64_t feat = 0;

		if (h.type == PFR_RECORD_HEADER_ATTR) {
			err = pfr_pipe_attr(f, p, len);
		} else if (h.type == PFR_RECORD_EVENT_UPDATE ||
			   h.type == PFR_RECORD_HEADER_EVENT_TYPE) {
			if (nr_nm == cap_nm) {
				size_t nc = cap_nm ? 2 * cap_nm : 64;
				void *n = realloc(nm, nc * sizeof(*nm));

				if (!n) {
					err = -PFR_E_SYSTEM;
					break;
				}
				nm = n;
				cap_nm = nc;
			}
			nm[nr_nm].pos = f->pos;
			nm[nr_nm].nr_ev = f->nr_ev;
			nm[nr_nm++].pad = 0;
		} else if (h.type == PFR_RECORD_HEADER_TRACING_DATA) {
			f->tracing = p + len; /* the bytes after the record */
			f->tracing_len = skip - h.size;
		} else if (h.type == PFR_RECORD_HEADER_FEATURE && len >= 8) {
			memcpy(&feat, p, 8);
			if (feat == PFR_FEAT_EVENT_DESC) {
				desc.offset = f->pos + sizeof(h) + 8;
				desc.size = len - 8;
			}
		}
		f->pos += skip;
	}
	if (!err && nr_nm && pfr__file_index_ids(f))
		err = -PFR_E_SYSTEM;
	if (!err)
		pfr_pipe_names(f, nm, nr_nm);
	free(nm);
	if (err)
		return err;
	if (desc.size) /* names by position: once every attr is known */
		pfr_read_event_desc(f, &desc);
	f->pos = 16;
	return 0;
}

int pfr_perf_file_open(struct pfr_perf_file **fp, const char *path)
{
	struct pfr_perf_file *f;
	uint64_t h[2];
	unsigned char *m;
	size_t len;
	int err;

	if (!fp || !path)
		return -PFR_E_INVAL;
	err = !strcmp(path, "-") ? pfr_read_stdin(&m, &len)
				 : pfr_read_file(path, &m, &len);
	if (err)
		return err;
	if (len < sizeof(h)) {
		free(m);
		return -PFR_PERF_E_FILE_MAGIC;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		free(m);
		return -PFR_E_SYSTEM;
	}
	f->map = m;
	f->map_len = len;
	f->head_len = len;
	f->fd = -1;
	f->in_fd = -1;
	memcpy(h, m, sizeof(h));
	if (h[0] != PFR_PERF_MAGIC2)
		err = -PFR_PERF_E_FILE_MAGIC;
	else if (h[1] == 16)
		err = pfr_open_pipe(f);
	else
		err = pfr_open_header(f);
	if (!err && pfr__file_index_ids(f))
		err = -PFR_E_SYSTEM;
	if (err) {
		pfr_perf_file_close(f);
		return err;
	}
	*fp = f;
	return 0;
}

/* The window size a stream reads the data section with. */
#define PFR_WIN_MIN (1u << 20)

/* Reads n bytes at off of the stream's file into buf; 0 or -1. */
static int pfr_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
				  (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/*
 * A stream's bytes [off, off + n) of the data section, read into the
 * window (which moves forward with the reader): a pointer valid until the
 * next call, or NULL (read error, or the file was truncated meanwhile).
 */
static const unsigned char *pfr_win(struct pfr_perf_file *f, uint64_t off,
				    size_t n)
{
	size_t keep = 0, want;

	if (off >= f->win_off && off - f->win_off <= f->win_len &&
	    n <= f->win_len - (off - f->win_off))
		return f->win + (off - f->win_off);
	if (off >= f->win_off && off - f->win_off < f->win_len) {
		keep = f->win_len - (size_t)(off - f->win_off);
		memmove(f->win, f->win + (off - f->win_off), keep);
	}
	want = n > PFR_WIN_MIN ? n : PFR_WIN_MIN;
	if (want > f->end - off)
		want = n > f->end - off ? n : (size_t)(f->end - off);
	if (want > f->win_cap) {
		unsigned char *w = realloc(f->win, want);

		if (!w)
			return NULL;
		f->win = w;
		f->win_cap = want;
	}
	f->win_off = off;
	f->win_len = keep;
	while (f->win_len < want) { /* a file cut short: what is there */
		ssize_t r = pread(f->in_fd, f->win + f->win_len,
				  want - f->win_len, (off_t)(off + f->win_len));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		f->win_len += (size_t)r;
	}
	return f->win_len >= n ? f->win : NULL;
}

/* A stream's header: reads the file's head (up to its data section) and
 * tail (after it); the data section itself stays on disk. */
static int pfr_stream_header(struct pfr_perf_file *f, int fd)
{
	struct pfr_file_header h;
	unsigned char *m;
	struct stat st;

	if (fstat(fd, &st))
		return -PFR_E_SYSTEM;
	f->map_len = (size_t)st.st_size;
	if (f->map_len < 16 || pfr_pread_all(fd, &h, 16, 0) ||
	    h.magic != PFR_PERF_MAGIC2)
		return -PFR_PERF_E_FILE_MAGIC;
	if (h.size == 16)
		return 2; /* the pipe format: streamed too */
	if (f->map_len < sizeof(h) || pfr_pread_all(fd, &h, sizeof(h), 0))
		return -PFR_PERF_E_FILE_MAGIC;
	if (h.data.offset > f->map_len ||
	    h.data.size > f->map_len - h.data.offset)
		return -PFR_PERF_E_FILE_LAYOUT;
	if (h.data.offset > (64u << 20) ||
	    (f->map_len - h.data.offset - h.data.size > (256u << 20) &&
	     pfr_data_end(&h, f->map_len, &f->open_end) < f->map_len))
		return 1; /* headers this large: the caller reads it whole */
	f->head_len = h.data.offset > sizeof(h) ? h.data.offset : sizeof(h);
	f->tail_off = pfr_data_end(&h, f->map_len, &f->open_end);
	f->tail_len = f->map_len - f->tail_off;
	m = malloc(f->head_len);
	f->map = m;
	f->tail = malloc(f->tail_len ? f->tail_len : 1);
	if (!m || !f->tail)
		return -PFR_E_SYSTEM;
	if (pfr_pread_all(fd, m, f->head_len, 0) ||
	    pfr_pread_all(fd, f->tail, f->tail_len, f->tail_off))
		return -PFR_PERF_E_FILE_LAYOUT;
	return 0;
}

/* Appends n bytes at off of the file to the growing buffer *m. */
static int pfr_meta_put(struct pfr_perf_file *f, unsigned char **m, size_t *len,
			size_t *cap, const void *src, uint64_t off, size_t n)
{
	if (*len + n > *cap) {
		size_t nc = (*len + n) * 2;
		unsigned char *b = realloc(*m, nc);

		if (!b)
			return -PFR_E_SYSTEM;
		*m = b;
		*cap = nc;
	}
	if (src)
		memcpy(*m + *len, src, n);
	else if (pfr_pread_all(f->in_fd, *m + *len, n, off))
		return -PFR_E_RECSIZE_PAST_HEAD;
	*len += n;
	return 0;
}

/*
 * A pipe-format file streamed: one pass through the window copies perf's
 * own records (attrs, names, features, tracing data: the stream's real
 * header content) into a buffer that pfr_open_pipe() reads as it reads a
 * whole file, each at the same offset modulo 8 as in the file (a filler
 * record before it, when needed: ids are read in place); the data stay
 * on disk and pfr_perf_file_next() reads them through the window.
 */
static int pfr_stream_pipe(struct pfr_perf_file *f)
{
	static const uint64_t magic[2] = {PFR_PERF_MAGIC2, 16};
	unsigned char *m = NULL;
	size_t len = 0, cap = 0;
	struct pfr_record_header h;
	uint64_t skip, fsize = f->map_len;
	int err;

	f->pos = 16;
	f->end = fsize;
	err = pfr_meta_put(f, &m, &len, &cap, magic, 0, 16);
	while (!err && pfr_pipe_peek(f, &h, &skip) == 1) {
		if (h.type >= PFR_RECORD_HEADER_ATTR &&
		    h.type != PFR_RECORD_COMPRESSED) {
			size_t gap = (size_t)((f->pos - len) % 8);
			struct pfr_record_header fill = {0xffff, 0, 0};

			fill.size = (uint16_t)(8 + gap);
			if (gap)
				err = pfr_meta_put(f, &m, &len, &cap, NULL, 0,
						   fill.size);
			if (gap && !err)
				memcpy(m + len - fill.size, &fill,
				       sizeof(fill));
			if (!err)
				err = pfr_meta_put(f, &m, &len, &cap, NULL,
						   f->pos, (size_t)skip);
		}
		f->pos += skip;
	}
	f->map = m;
	if (err)
		return err;
	f->map_len = len;
	f->head_len = len;
	err = pfr_open_pipe(f); /* reads the copy */
	f->map_len = fsize;
	f->end = fsize;
	f->pos = 16;
	f->win_off = f->win_len = 0;
	return err;
}

/* A file descriptor to read standard input from: itself when it is a
 * regular file, else a temporary file (unlinked) it is copied into, so
 * that a pipe is streamed from disk like a file, not held in memory. */
static int pfr_stdin_fd(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096], buf[1 << 16];
	struct stat st;
	int fd;

	if (!fstat(0, &st) && S_ISREG(st.st_mode))
		return fcntl(0, F_DUPFD_CLOEXEC, 3);
	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/perfring-stdin.XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0)
			return -1;
		unlink(path);
	}
	for (;;) {
		ssize_t r = read(0, buf, sizeof(buf)), w = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r)
				return fd;
			break;
		}
		while (w < r) {
			ssize_t k = write(fd, buf + w, (size_t)(r - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				goto fail;
			w += k;
		}
	}
fail : {
	int e = errno;

	close(fd);
	errno = e;
}
	return -1;
}

int pfr_perf_file_open_stream(struct pfr_perf_file **fp, const char *path)
{
	struct pfr_perf_file *f;
	int fd, err;

	if (!fp || !path)
		return -PFR_E_INVAL;
	if (!strcmp(path, "-"))
		fd = pfr_stdin_fd();
	else
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -PFR_E_SYSTEM;
	f = calloc(1, sizeof(*f));
	if (!f) {
		close(fd);
		return -PFR_E_SYSTEM;
	}
	f->fd = -1;
	f->in_fd = fd;
	err = pfr_stream_header(f, fd);
	if (err == 2) {
		err = pfr_stream_pipe(f);
	} else if (err == 1) { /* headers this large: read whole */
		char fdp[32];

		free((void *)f->map);
		free(f->tail);
		free(f);
		snprintf(fdp, sizeof(fdp), "/dev/fd/%d", fd);
		err = pfr_perf_file_open(fp, fdp);
		close(fd);
		return err;
	} else if (!err) {
		err = pfr_open_header(f);
	}
	if (!err && pfr__file_index_ids(f))
		err = -PFR_E_SYSTEM;
	f->zstream = 1;
	if (err) {
		if (!f->map)
			f->map =
				malloc(1); /* so that close frees as a reader */
		pfr_perf_file_close(f);
		return err;
	}
	*fp = f;
	return 0;
}

const void *pfr_perf_file_tracing(const struct pfr_perf_file *f, uint64_t *len)
{
	if (len)
		*len = f && f->tracing ? f->tracing_len : 0;
	return f ? f->tracing : NULL;
}

uint32_t pfr_perf_file_nr_events(const struct pfr_perf_file *f)
{
	return f ? f->nr_ev : 0;
}

const struct perf_event_attr *pfr_perf_file_attr(const struct pfr_perf_file *f,
						 uint32_t i)
{
	return f && i < f->nr_ev ? &f->ev[i].attr : NULL;
}

const char *pfr_perf_file_event_name(const struct pfr_perf_file *f, uint32_t i)
{
	return f && i < f->nr_ev ? f->ev[i].name : "?";
}

void pfr_perf_file_layout(const struct pfr_perf_file *f, uint32_t i,
			  struct pfr_perf_layout *lay)
{
	if (!lay)
		return;
	memset(lay, 0, sizeof(*lay));
	if (!f || i >= f->nr_ev)
		return;
	lay->sample_type = f->ev[i].attr.sample_type;
	lay->read_format = f->ev[i].attr.read_format;
	lay->sample_id_all = f->ev[i].attr.sample_id_all;
}

uint32_t pfr_perf_file_event_of(const struct pfr_perf_file *f,
				const struct pfr_record_header *hdr,
				const void *payload, uint32_t len)
{
	struct pfr_perf_layout lay;
	struct pfr_perf_rec r;
	uint64_t id;

	if (!f || f->nr_ev < 2)
		return 0;
	if (!pfr_perf_record_id(f->ev[0].attr.sample_type,
				f->ev[0].attr.sample_id_all, hdr, payload, len,
				&id))
		return pfr__file_event_of_id(f, id);
	/* No IDENTIFIER: perf then gives every event the same sample_type,
	 * so that ID sits at the same place in all (perf's id_pos). */
	pfr_perf_file_layout(f, 0, &lay);
	if (!(lay.sample_type & PERF_SAMPLE_ID) ||
	    pfr_perf_decode(&lay, hdr, payload, len, &r) ||
	    !(r.fields & PFR_PERF_F_ID))
		return 0;
	return pfr__file_event_of_id(f, r.id);
}

/* A record that runs past the data's end: in a file whose header was
 * never completed, the last one, cut short by the recorder's end (the end
 * of the records, its bytes counted in f->cut); else an error. */
static int pfr_cut(struct pfr_perf_file *f)
{
	if (!f->open_end)
		return -PFR_E_RECSIZE_PAST_HEAD;
	f->cut = f->end - f->pos;
	f->pos = f->end;
	return 0;
}

/* The next record as stored (a COMPRESSED one too): as
 * pfr_perf_file_next(). */
static int pfr_next_stored(struct pfr_perf_file *f, struct pfr_record *rec)
{
	struct pfr_record_header h;

	if (f->pipe) { /* perf's own records are not data */
		uint64_t skip;
		int r;

		while ((r = pfr_pipe_peek(f, &h, &skip)) == 1 &&
		       h.type >= PFR_RECORD_HEADER_ATTR &&
		       h.type != PFR_RECORD_COMPRESSED)
			f->pos += skip;
		if (r <= 0)
			return r;
	}
	if (f->pos >= f->end)
		return 0;
	if (f->end - f->pos < sizeof(h))
		return pfr_cut(f);
	if (f->in_fd >= 0) { /* a stream: through the window */
		const unsigned char *p = pfr_win(f, f->pos, sizeof(h));

		if (!p)
			return -PFR_E_RECSIZE_PAST_HEAD;
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h))
			return -PFR_E_RECSIZE_ZERO;
		if (h.size > f->end - f->pos)
			return pfr_cut(f);
		p = pfr_win(f, f->pos, h.size);
		if (!p)
			return -PFR_E_RECSIZE_PAST_HEAD;
		rec->hdr = h;
		rec->payload = p + sizeof(h);
		rec->len = h.size - (uint32_t)sizeof(h);
		rec->pos = f->pos;
		f->pos += h.size;
		return 1;
	}
	memcpy(&h, f->map + f->pos, sizeof(h));
	if (h.size < sizeof(h))
		return -PFR_E_RECSIZE_ZERO;
	if (h.size > f->end - f->pos)
		return pfr_cut(f);
	rec->hdr = h;
	rec->payload = f->map + f->pos + sizeof(h);
	rec->len = h.size - (uint32_t)sizeof(h);
	rec->pos = f->pos;
	f->pos += h.size;
	return 1;
}

int pfr_perf_file_set_inflate(struct pfr_perf_file *f, pfr_perf_inflate_fn fn,
			      void *arg)
{
	if (!f || !f->map || f->zstarted)
		return -PFR_E_INVAL;
	f->inflate = fn;
	f->inflate_arg = arg;
	return 0;
}

/* Bounds what one COMPRESSED record may decompress to (perf's records
 * hold at most a ring's worth, perfring's 256 KiB). */
#define PFR_ZDEC_MAX (256u << 20)
/* Bounds what a file read whole keeps decompressed until its close (its
 * records' payloads stay valid until then), as PFR_PIPE_MAX bounds what
 * it reads. */
#define PFR_ZKEEP_MAX (1ULL << 30)
/* A stream's one decompression buffer: a record is at most 64 KiB, so
 * one always fits after the part of one left over. */
#define PFR_ZSTREAM_BUF (256u << 10)

/*
 * Decompresses a COMPRESSED record's payload after the bytes of zdec not
 * yet returned (a record may continue from one COMPRESSED record into the
 * next), for a file read whole: a buffer some of whose records were
 * returned is kept (the caller may still hold them) and a new one started,
 * one none were returned from is reused (empty COMPRESSED records cost
 * nothing), and what is kept is capped at PFR_ZKEEP_MAX.  Returns 0 or
 * -PFR_PERF_E_FILE_LAYOUT (a stream decompresses by steps instead:
 * pfr_inflate_step()).
 */
static int pfr_inflate_rec(struct pfr_perf_file *f, const struct pfr_record *c)
{
	size_t rest = f->zlen - f->zpos, used = 0, cap = f->zcap;
	unsigned char *buf = f->zdec;
	long got = 0;
	int full = 0;

	if (cap < rest + 2 * (size_t)c->len + (64u << 10))
		cap = rest + 2 * (size_t)c->len + (64u << 10);
	if (f->zdec && f->zpos) { /* keep the old buffer's records */
		unsigned char **k =
			realloc(f->zkeep, (f->nzkeep + 1) * sizeof(*k));

		if (!k)
			return -PFR_E_SYSTEM;
		f->zkeep = k;
		if (f->zkept + f->zcap > PFR_ZKEEP_MAX)
			return -PFR_PERF_E_FILE_LAYOUT;
		buf = malloc(cap);
		if (!buf)
			return -PFR_E_SYSTEM;
		memcpy(buf, f->zdec + f->zpos, rest);
		f->zkeep[f->nzkeep++] = f->zdec;
		f->zkept += f->zcap;
	} else { /* none, or none of its records returned: reused */
		if (cap > f->zcap) {
			unsigned char *b = realloc(buf, cap);

			if (!b)
				return -PFR_E_SYSTEM;
			buf = b;
		}
	}
	f->zdec = buf;
	f->zcap = cap;
	f->zpos = 0;
	f->zlen = rest;
	/* Until the input is taken and the decompressor left room unused
	 * (a full buffer: it may hold more). */
	while (used < c->len || full) {
		size_t in_used = 0, room;

		if (f->zcap - f->zlen < (64u << 10)) {
			unsigned char *b;

			if (f->zcap >= PFR_ZDEC_MAX ||
			    f->zkept + 2 * f->zcap > PFR_ZKEEP_MAX)
				return -PFR_PERF_E_FILE_LAYOUT;
			b = realloc(f->zdec, 2 * f->zcap);
			if (!b)
				return -PFR_E_SYSTEM;
			f->zdec = b;
			f->zcap *= 2;
		}
		room = f->zcap - f->zlen;
		got = f->inflate(f->inflate_arg,
				 (const unsigned char *)c->payload + used,
				 c->len - used, &in_used, f->zdec + f->zlen,
				 room);
		if (got < 0 || (size_t)got > room || in_used > c->len - used ||
		    (!got && !in_used && used < c->len))
			return -PFR_PERF_E_FILE_LAYOUT;
		used += in_used;
		f->zlen += (size_t)got;
		full = (size_t)got == room;
	}
	f->zrec_pos = c->pos;
	return 0;
}

/* The next whole record of zdec: 1, or 0 when none is whole there. */
static int pfr_next_inflated(struct pfr_perf_file *f, struct pfr_record *rec)
{
	struct pfr_record_header h;
	size_t rest = f->zlen - f->zpos;

	if (rest < sizeof(h))
		return 0;
	memcpy(&h, f->zdec + f->zpos, sizeof(h));
	if (h.size < sizeof(h))
		return -PFR_E_RECSIZE_ZERO;
	if (h.size > rest)
		return 0;
	rec->hdr = h;
	rec->payload = f->zdec + f->zpos + sizeof(h);
	rec->len = h.size - (uint32_t)sizeof(h);
	rec->pos = f->zrec_pos;
	f->zpos += h.size;
	return 1;
}

/*
 * A stream's next step of decompression: the records left over move to
 * the start of its one buffer (of PFR_ZSTREAM_BUF bytes), and the
 * decompressor fills what room is left from the rest of the COMPRESSED
 * record's payload.  Memory stays that buffer's whatever a frame expands
 * to.  Returns 0 or -PFR_PERF_E_FILE_LAYOUT.
 */
static int pfr_inflate_step(struct pfr_perf_file *f)
{
	size_t rest = f->zlen - f->zpos, in_used = 0, room;
	long got;

	if (!f->zdec) {
		f->zdec = malloc(PFR_ZSTREAM_BUF);
		if (!f->zdec)
			return -PFR_E_SYSTEM;
		f->zcap = PFR_ZSTREAM_BUF;
	}
	if (rest && f->zpos)
		memmove(f->zdec, f->zdec + f->zpos, rest);
	f->zpos = 0;
	f->zlen = rest;
	room = f->zcap - f->zlen;
	got = f->inflate(f->inflate_arg, f->zsrc + f->zsrc_used,
			 f->zsrc_len - f->zsrc_used, &in_used,
			 f->zdec + f->zlen, room);
	if (got < 0 || (size_t)got > room ||
	    in_used > f->zsrc_len - f->zsrc_used ||
	    (!got && !in_used && f->zsrc_used < f->zsrc_len))
		return -PFR_PERF_E_FILE_LAYOUT;
	f->zsrc_used += in_used;
	f->zlen += (size_t)got;
	f->zfull = (size_t)got == room;
	return 0;
}

/* A stream takes a COMPRESSED record's payload, decompressed by steps. */
static int pfr_inflate_take(struct pfr_perf_file *f, const struct pfr_record *c)
{
	if (!f->zsrc) {
		f->zsrc = malloc(1u << 16); /* a record's most */
		if (!f->zsrc)
			return -PFR_E_SYSTEM;
	}
	memcpy(f->zsrc, c->payload, c->len);
	f->zsrc_len = c->len;
	f->zsrc_used = 0;
	f->zrec_pos = c->pos;
	return 0;
}

int pfr_perf_file_next(struct pfr_perf_file *f, struct pfr_record *rec)
{
	int r;

	if (!f || !rec || !f->map)
		return -PFR_E_INVAL;
	for (;;) {
		if (f->zpos < f->zlen) {
			r = pfr_next_inflated(f, rec);
			if (r)
				return r;
		}
		if (f->zstream && (f->zsrc_used < f->zsrc_len || f->zfull)) {
			r = pfr_inflate_step(f);
			if (r)
				return r;
			continue;
		}
		r = pfr_next_stored(f, rec);
		if (r != 1 || rec->hdr.type != PFR_RECORD_COMPRESSED) {
			/* a record cut off at the end of the stream */
			if (r >= 0 && f->zpos < f->zlen)
				return -PFR_PERF_E_FILE_LAYOUT;
			return r;
		}
		if (!f->inflate) { /* stays at it, for a decompressor */
			f->pos -= rec->hdr.size;
			return -PFR_PERF_E_COMPRESSED;
		}
		f->zstarted = 1;
		r = f->zstream ? pfr_inflate_take(f, rec)
			       : pfr_inflate_rec(f, rec);
		if (r)
			return r;
	}
}
