/* SPDX-License-Identifier: MIT */
/*
 * The perf.data library (<perfring/perfdata.h>): what `perfring script`
 * does with a file, as an API.  The core's streaming reader gives the
 * records (pfr_perf_file_open_stream()); they go through perf's ordered
 * queue (queue.c: a round at a time, within a cap) into a FIFO of
 * delivered records, which pfr_perfdata_next() hands out one by one,
 * each tracked first (out.c: thread names, process maps) and a sample's
 * call chain symbolized (out.c, elf.c, unwind.c).  Tracepoint fields come
 * from trace.c, compressed files through zstd.c, and the header features
 * are read again from the file, as `perfring script --header` reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "../../util/util.h"
#include "out.h"
#include "trace.h"
#include "zstd.h"
#include "perfdata_int.h"

#define PFR_PD_FLAGS                                                           \
	(PFR_PERFDATA_FILE_ORDER | PFR_PERFDATA_NO_SYMBOLS |                   \
	 PFR_PERFDATA_NO_INLINE | PFR_PERFDATA_NO_UNWIND |                     \
	 PFR_PERFDATA_SAMPLES_ONLY | PFR_PERFDATA_OWN_AS_READ |                \
	 PFR_PERFDATA_NO_FRAMES)
#define PFR_PD_QUEUE_DEFAULT (64ull << 20)
#define PFR_PD_FRAMES_DEFAULT 512u
#define PFR_PD_FRAMES_MAX 65536u
/* Reads the options within sz; -PFR_E_INVAL for a bad sz or a nonzero
 * byte past the known fields. */
static int pfr__pd_opts(const struct pfr_perfdata_opts *o,
			struct pfr_perfdata_opts *out)
{
	size_t sz;

	memset(out, 0, sizeof(*out));
	if (!o)
		return 0;
	sz = o->sz ? o->sz : sizeof(*o);
	if (sz < sizeof(o->sz))
		return -PFR_E_INVAL;
	if (sz > sizeof(*o)) {
		const unsigned char *p = (const unsigned char *)o;

		for (size_t i = sizeof(*o); i < sz; i++)
			if (p[i])
				return -PFR_E_INVAL;
		sz = sizeof(*o);
	}
	memcpy(out, o, sz);
	if (out->flags & ~PFR_PD_FLAGS)
		return -PFR_E_INVAL;
	return 0;
}

/* The queue's delivery: the record is copied into the FIFO. */
static void pfr__pd_deliver(void *arg, const struct pfr__q_item *it)
{
	struct pfr_perfdata *pd = arg;
	size_t len = it->hdr.size - 8u;
	struct pfr__pd_item *x;

	if (pd->head == pd->n)
		pd->head = pd->n = 0;
	if (pd->n == pd->cap) {
		size_t nc = pd->cap ? pd->cap * 2 : 1024;

		if (pd->head) { /* room at the front first */
			memmove(pd->pend, pd->pend + pd->head,
				(pd->n - pd->head) * sizeof(*pd->pend));
			pd->n -= pd->head;
			pd->head = 0;
		} else {
			x = realloc(pd->pend, nc * sizeof(*x));
			if (!x) {
				pd->oom = 1;
				return;
			}
			pd->pend = x;
			pd->cap = nc;
		}
	}
	x = &pd->pend[pd->n];
	x->payload = malloc(len ? len : 1);
	if (!x->payload) {
		pd->oom = 1;
		return;
	}
	memcpy(x->payload, it->payload, len);
	x->hdr = it->hdr;
	x->ev = it->ev;
	x->pos = it->pos;
	pd->n++;
}

/* The file's events: layouts, and the tracepoint formats. */
static int pfr__pd_events(struct pfr_perfdata *pd)
{
	uint64_t len;
	const void *td = pfr_perf_file_tracing(pd->f, &len);
	const char *why = "";

	pd->nev = pfr_perf_file_nr_events(pd->f);
	pd->lay = calloc(pd->nev ? pd->nev : 1, sizeof(*pd->lay));
	if (!pd->lay)
		return -PFR_E_SYSTEM;
	for (uint32_t i = 0; i < pd->nev; i++)
		pfr_perf_file_layout(pd->f, i, &pd->lay[i]);
	pd->tp = td ? pfr__trace_open_mem(td, (size_t)len, &why) : NULL;
	pfr__out_set_trace(pd->out, pd->tp);
	return 0;
}

/* Only a regular file (or "-"): a FIFO would block, a device is no
 * perf.data.  0, or -PFR_E_SYSTEM with errno. */
static int pfr__pd_check_path(const char *path)
{
	int fd;

	if (!strcmp(path, "-"))
		return 0;
	fd = util_open_regular(path);
	if (fd < 0)
		return -PFR_E_SYSTEM;
	close(fd);
	return 0;
}

PFR_API int pfr_perfdata_open(struct pfr_perfdata **pdp, const char *path,
			      const struct pfr_perfdata_opts *o)
{
	struct pfr_perfdata_opts op;
	struct pfr_perfdata *pd;
	int err;

	if (pdp)
		*pdp = NULL;
	if (!pdp || !path)
		return -PFR_E_INVAL;
	err = pfr__pd_opts(o, &op);
	if (err)
		return err;
	if (op.max_frames > PFR_PD_FRAMES_MAX)
		return -PFR_E_INVAL;
	err = pfr__pd_check_path(path);
	if (err)
		return err;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -PFR_E_SYSTEM;
	pd->flags = op.flags;
	pd->max_frames = op.max_frames ? op.max_frames : PFR_PD_FRAMES_DEFAULT;
	pd->path = strdup(path);
	pd->frames = calloc(pd->max_frames, sizeof(*pd->frames));
	pd->names = calloc(pd->max_frames, sizeof(*pd->names));
	pd->out = pfr__out_new(NULL, (op.flags & PFR_PERFDATA_NO_SYMBOLS)
					     ? PFR_OUT_NO_SYMS
					     : 0);
	if (!pd->path || !pd->frames || !pd->names || !pd->out) {
		err = -PFR_E_SYSTEM;
		goto fail;
	}
	err = pfr_perf_file_open_stream(&pd->f, path);
	if (err)
		goto fail;
	err = pfr__pd_events(pd);
	if (err)
		goto fail;
	if (!(op.flags & PFR_PERFDATA_NO_UNWIND))
		pfr__out_use_unwind(pd->out);
	/* the recorded build ids, for symbols through the build-id cache
	 * (a pipe's records carry none this reader looks up) */
	if (strcmp(path, "-"))
		pfr__out_read_buildids(pd->out, path, op.buildid_dir);
	pfr__q_init(&pd->q,
		    op.queue_bytes ? (size_t)op.queue_bytes
				   : (size_t)PFR_PD_QUEUE_DEFAULT,
		    pfr__pd_deliver, pd);
	pd->st.unfinished = pfr_perf_file_unfinished(pd->f, NULL);
	*pdp = pd;
	return 0;
fail : {
	int e = errno;

	pfr_perfdata_close(pd);
	errno = e;
}
	return err;
}

/* Frees what the current event holds. */
static void pfr__pd_drop(struct pfr_perfdata *pd)
{
	for (int i = 0; i < pd->nnames; i++)
		free(pd->names[i]);
	pd->nnames = 0;
	free(pd->cur);
	pd->cur = NULL;
}

PFR_API int pfr_perfdata_close(struct pfr_perfdata *pd)
{
	if (!pd)
		return 0;
	pfr__pd_drop(pd);
	for (size_t i = pd->head; i < pd->n; i++)
		free(pd->pend[i].payload);
	free(pd->pend);
	pfr__q_free(&pd->q);
	pfr__out_free(pd->out);
	pfr__trace_free(pd->tp);
	pfr_perf_file_close(pd->f);
	pfr__zstd_free(pd->zstd);
	for (int i = 0; i < PFR_PD_NFEAT; i++)
		free(pd->feat[i]);
	free(pd->bid);
	free(pd->oev);
	free(pd->lay);
	free(pd->frames);
	free(pd->names);
	free(pd->path);
	free(pd);
	return 0;
}

PFR_API struct pfr_perf_file *pfr_perfdata_file(const struct pfr_perfdata *pd)
{
	return pd ? pd->f : NULL;
}

/* The end of the records, or an error: what is queued goes out. */
static void pfr__pd_end(struct pfr_perfdata *pd, int rc)
{
	pfr__q_flush(&pd->q);
	pd->done = 1;
	pd->rc = rc;
	pd->st.zstd_cut_frame = rc ? 0 : pfr__zstd_cut(pd->zstd);
	if (pd->st.zstd_cut_frame)
		pd->rc = -PFR_PERF_E_FILE_LAYOUT; /* records lost in a frame */
	pfr_perf_file_unfinished(pd->f, &pd->st.cut);
	pd->st.late = pd->q.late;
	pd->st.capped = pd->q.capped;
}

/* Reads one record of the file into the queue (which may deliver). */
static void pfr__pd_read(struct pfr_perfdata *pd)
{
	struct pfr_perf_layout none = {0};
	struct pfr_record rec;
	struct pfr_perf_rec d;
	const char *why = "";
	uint32_t ev;
	int n, has_time;

	n = pfr_perf_file_next(pd->f, &rec);
	if (n == -PFR_PERF_E_COMPRESSED && !pd->zstd) {
		pd->zstd = pfr__zstd_new(pd->f, &why);
		if (!pd->zstd)
			pfr__pd_end(pd, n);
		return;
	}
	if (n <= 0) {
		pfr__pd_end(pd, n);
		return;
	}
	ev = pfr_perf_file_event_of(pd->f, &rec.hdr, rec.payload, rec.len);
	has_time = !pfr_perf_decode(ev < pd->nev ? &pd->lay[ev] : &none,
				    &rec.hdr, rec.payload, rec.len, &d) &&
		   (d.fields & PFR_PERF_F_TIME);
	if ((pd->flags & PFR_PERFDATA_OWN_AS_READ) && rec.hdr.type >= 64) {
		/* as read, then what its round releases (perf script -D) */
		struct pfr__q_item it = {0,	  0,
					 rec.pos, ev,
					 rec.hdr, (unsigned char *)rec.payload};

		pfr__pd_deliver(pd, &it);
		if (rec.hdr.type == 68 /* FINISHED_ROUND */)
			pfr__q_round(&pd->q);
	} else {
		if (rec.hdr.type == 68 /* FINISHED_ROUND */)
			pfr__q_round(&pd->q);
		if (pfr__q_add(&pd->q, has_time ? d.time : 0, has_time, ev,
			       &rec))
			pd->oom = 1;
	}
	if (pd->flags & PFR_PERFDATA_FILE_ORDER)
		pfr__q_flush(&pd->q);
	if (pd->oom) {
		errno = ENOMEM;
		pfr__pd_end(pd, -PFR_E_SYSTEM);
	}
}

/* The thread a record is about: a sample's, a side-band record's. */
static uint32_t pfr__pd_tid(const struct pfr_perf_rec *r)
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

/* Makes the FIFO's first record the current event. */
static void pfr__pd_take(struct pfr_perfdata *pd)
{
	struct pfr__pd_item *x = &pd->pend[pd->head++];
	struct pfr_perfdata_event *e = &pd->ev;
	struct pfr_perf_layout none = {0};
	unsigned what = 0;

	memset(e, 0, sizeof(*e));
	e->sz = sizeof(*e);
	pd->cur = x->payload;
	e->evidx = x->ev < pd->nev ? x->ev : 0;
	e->name = pfr_perf_file_event_name(pd->f, e->evidx);
	e->attr = pfr_perf_file_attr(pd->f, e->evidx);
	e->hdr = x->hdr;
	e->type = x->hdr.type;
	e->payload = x->payload;
	e->len = x->hdr.size - 8u;
	e->pos = x->pos;
	e->decoded = pfr_perf_decode(pd->nev ? &pd->lay[e->evidx] : &none,
				     &e->hdr, e->payload, e->len, &e->rec);
	pd->st.records++;
	if (e->decoded) {
		memset(&e->rec, 0, sizeof(e->rec));
		e->rec.type = e->hdr.type;
		e->rec.misc = e->hdr.misc;
		e->rec.size = e->hdr.size;
		pd->st.bad++;
		return;
	}
	pfr__out_track(pd->out, &e->rec);
	e->comm = pfr__out_comm(pd->out, pfr__pd_tid(&e->rec));
	if (e->type != PERF_RECORD_SAMPLE || !e->attr ||
	    (pd->flags & PFR_PERFDATA_NO_FRAMES))
		return;
	if (pd->flags & PFR_PERFDATA_NO_UNWIND)
		what |= PFR_OUT_FR_NO_UNWIND;
	if (pd->flags & PFR_PERFDATA_NO_INLINE)
		what |= PFR_OUT_FR_NO_INLINE;
	e->nr_frames = (uint32_t)pfr__out_frames(
		pd->out, e->attr, &e->rec, e->payload, e->len, what, pd->frames,
		(int)pd->max_frames, pd->names, &pd->nnames);
	e->frames = pd->frames;
}

PFR_API int pfr_perfdata_next(struct pfr_perfdata *pd,
			      const struct pfr_perfdata_event **ev)
{
	if (!pd || !ev)
		return -PFR_E_INVAL;
	for (;;) {
		pfr__pd_drop(pd);
		while (pd->head == pd->n && !pd->done)
			pfr__pd_read(pd);
		if (pd->head == pd->n) {
			if (pd->rc == -PFR_E_SYSTEM)
				errno = ENOMEM;
			return pd->rc;
		}
		pfr__pd_take(pd);
		if ((pd->flags & PFR_PERFDATA_SAMPLES_ONLY) &&
		    pd->ev.type != PERF_RECORD_SAMPLE)
			continue;
		*ev = &pd->ev;
		return 1;
	}
}

PFR_API int pfr_perfdata_stats(const struct pfr_perfdata *pd,
			       struct pfr_perfdata_stats *st)
{
	struct pfr_perfdata_stats s;
	size_t sz;

	if (!pd || !st)
		return -PFR_E_INVAL;
	sz = st->sz ? st->sz : sizeof(s);
	if (sz < sizeof(st->sz))
		return -PFR_E_INVAL;
	s = pd->st;
	s.late = pd->q.late;
	s.capped = pd->q.capped;
	s.sz = sz < sizeof(s) ? sz : sizeof(s);
	memcpy(st, &s, s.sz);
	return 0;
}

/* --- tracepoint fields --- */

/* ev's raw tracepoint data, or NULL. */
static const void *pfr__pd_raw(const struct pfr_perfdata *pd,
			       const struct pfr_perfdata_event *ev,
			       uint32_t *size)
{
	if (!pd || !ev || !pd->tp || ev->type != PERF_RECORD_SAMPLE ||
	    ev->decoded || !(ev->rec.fields & PFR_PERF_F_RAW) || !ev->rec.raw)
		return NULL;
	*size = ev->rec.raw_size;
	return ev->rec.raw;
}

PFR_API int pfr_perfdata_nr_fields(struct pfr_perfdata *pd,
				   const struct pfr_perfdata_event *ev)
{
	uint32_t size;
	const void *raw = pfr__pd_raw(pd, ev, &size);

	return raw ? pfr__trace_nr_fields(pd->tp, raw, size) : 0;
}

PFR_API int pfr_perfdata_field(struct pfr_perfdata *pd,
			       const struct pfr_perfdata_event *ev, int i,
			       struct pfr_perfdata_value *v)
{
	uint32_t size;
	const void *raw = pfr__pd_raw(pd, ev, &size);

	if (!raw || !v || i < 0)
		return -PFR_E_INVAL;
	return pfr__trace_field(pd->tp, raw, size, i, NULL, v) ? -PFR_E_INVAL
							       : 0;
}

PFR_API int pfr_perfdata_field_by_name(struct pfr_perfdata *pd,
				       const struct pfr_perfdata_event *ev,
				       const char *name,
				       struct pfr_perfdata_value *v)
{
	uint32_t size;
	const void *raw = pfr__pd_raw(pd, ev, &size);

	if (!raw || !v || !name)
		return -PFR_E_INVAL;
	return pfr__trace_field(pd->tp, raw, size, -1, name, v) ? -PFR_E_INVAL
								: 0;
}

PFR_API int pfr_perfdata_trace_text(struct pfr_perfdata *pd,
				    const struct pfr_perfdata_event *ev,
				    char *buf, size_t len)
{
	uint32_t size;
	const void *raw = pfr__pd_raw(pd, ev, &size);
	char *text = NULL;
	size_t n = 0;
	FILE *m;
	int ok;

	if (!raw || (!buf && len))
		return -PFR_E_INVAL;
	m = open_memstream(&text, &n);
	if (!m)
		return -PFR_E_SYSTEM;
	ok = pfr__trace_print(pd->tp, m, 0, raw, size);
	if (fclose(m) || !ok || n > INT32_MAX) {
		free(text);
		return ok ? -PFR_E_SYSTEM : -PFR_E_INVAL;
	}
	if (len) {
		size_t k = n < len ? n : len - 1;

		memcpy(buf, text, k);
		buf[k] = 0;
	}
	free(text);
	return (int)n;
}

/* --- the process model --- */

PFR_API const char *pfr_perfdata_comm(struct pfr_perfdata *pd, uint32_t tid)
{
	return pd ? pfr__out_comm(pd->out, tid) : NULL;
}

PFR_API int pfr_perfdata_resolve(struct pfr_perfdata *pd, uint32_t pid,
				 uint64_t addr, unsigned flags,
				 struct pfr_perfdata_frame *fr)
{
	if (!pd || !fr || (flags & ~PFR_PERFDATA_FRAME_KERNEL))
		return -PFR_E_INVAL;
	pfr__out_frame_at(pd->out, pid, addr,
			  !!(flags & PFR_PERFDATA_FRAME_KERNEL), fr);
	return !!(fr->flags & PFR_PERFDATA_FRAME_FOUND);
}
