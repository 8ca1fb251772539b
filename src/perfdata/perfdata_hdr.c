/* SPDX-License-Identifier: MIT */
/*
 * The perf.data library's header features, build ids and printer
 * (<perfring/perfdata.h>).  The features are read again from the file, on
 * first use, as `perfring script --header` does: the feature bitmap of
 * the header says which sections follow the data, their index first
 * (perf's tools/perf/util/header.c layout).  The file is untrusted: every
 * offset and size is checked against it.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "../../util/util.h"
#include "buildid.h"
#include "perfdata_int.h"
#include "trace.h"

_Static_assert(PFR_PERFDATA_SHOW_TASK == PFR_SHOW_TASK &&
		       PFR_PERFDATA_SHOW_MMAP == PFR_SHOW_MMAP &&
		       PFR_PERFDATA_SHOW_SWITCH == PFR_SHOW_SWITCH &&
		       PFR_PERFDATA_SHOW_NAMESPACE == PFR_SHOW_NAMESPACE &&
		       PFR_PERFDATA_SHOW_LOST == PFR_SHOW_LOST &&
		       PFR_PERFDATA_SHOW_ROUND == PFR_SHOW_ROUND &&
		       PFR_PERFDATA_SHOW_BPF == PFR_SHOW_BPF &&
		       PFR_PERFDATA_SHOW_CGROUP == PFR_SHOW_CGROUP &&
		       PFR_PERFDATA_SHOW_TEXT_POKE == PFR_SHOW_TEXT_POKE &&
		       PFR_PERFDATA_SHOW_OTHER == PFR_SHOW_OTHER,
	       "the public SHOW bits are out.h's");
_Static_assert(PFR_PERFDATA_FLD_COMM == PFR_FLD_COMM &&
		       PFR_PERFDATA_FLD_TID == PFR_FLD_TID &&
		       PFR_PERFDATA_FLD_PID == PFR_FLD_PID &&
		       PFR_PERFDATA_FLD_TIME == PFR_FLD_TIME &&
		       PFR_PERFDATA_FLD_CPU == PFR_FLD_CPU &&
		       PFR_PERFDATA_FLD_EVENT == PFR_FLD_EVENT &&
		       PFR_PERFDATA_FLD_TRACE == PFR_FLD_TRACE &&
		       PFR_PERFDATA_FLD_IP == PFR_FLD_IP &&
		       PFR_PERFDATA_FLD_SYM == PFR_FLD_SYM &&
		       PFR_PERFDATA_FLD_SYMOFF == PFR_FLD_SYMOFF &&
		       PFR_PERFDATA_FLD_DSO == PFR_FLD_DSO &&
		       PFR_PERFDATA_FLD_PERIOD == PFR_FLD_PERIOD &&
		       PFR_PERFDATA_FLD_ADDR == PFR_FLD_ADDR &&
		       PFR_PERFDATA_NTYPES == PFR_OUT_NTYPES,
	       "the public FLD bits and types are out.h's");

#define PFR_PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" */

/* perf_file_header (src/perf/perf_data_int.h's, read here again). */
struct pfr__pd_fhdr {
	uint64_t magic, size, attr_size;
	uint64_t attrs[2], data[2], event_types[2];
	uint64_t features[4];
};

/* n bytes at off of fd, all of them: 0 or -1. */
static int pfr__pd_pread(int fd, void *b, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r =
			pread(fd, (char *)b + got, n - got, (off_t)(off + got));

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* A perf_header_string at p (n bytes left): u32 length, then the bytes
 * (NUL-padded); a copy, *used its size; NULL when it runs past n. */
static char *pfr__pd_hstr(const unsigned char *p, size_t n, size_t *used)
{
	uint32_t len;

	if (n < 4)
		return NULL;
	memcpy(&len, p, 4);
	if (len > n - 4)
		return NULL;
	*used = 4 + (size_t)len;
	return strndup((const char *)p + 4, len);
}

/* CMDLINE: u32 count, then the words, joined by spaces. */
static char *pfr__pd_cmdline(const unsigned char *p, size_t n)
{
	size_t off = 4, used, tl = 0;
	char *t = NULL;
	uint32_t nr;

	if (n < 4)
		return NULL;
	memcpy(&nr, p, 4);
	for (uint32_t i = 0; i < nr; i++) {
		char *w = pfr__pd_hstr(p + off, n - off, &used), *nt;
		size_t wl;

		if (!w)
			break;
		wl = strlen(w);
		nt = realloc(t, tl + wl + 2);
		if (!nt) {
			free(w);
			break;
		}
		t = nt;
		if (tl)
			t[tl++] = ' ';
		memcpy(t + tl, w, wl + 1);
		tl += wl;
		free(w);
		off += used;
	}
	return t ? t : strdup("");
}

/* The text of feature bit (3 .. 11) from its section's n bytes at p. */
static char *pfr__pd_feat_text(int bit, const unsigned char *p, size_t n)
{
	char num[48];
	size_t used;

	switch (bit) {
	case PFR_PERFDATA_FEAT_NRCPUS: {
		uint32_t avail, online;

		if (n < 8)
			return NULL;
		memcpy(&avail, p, 4);
		memcpy(&online, p + 4, 4);
		snprintf(num, sizeof(num), "%u %u", online, avail);
		return strdup(num);
	}
	case PFR_PERFDATA_FEAT_TOTAL_MEM: {
		uint64_t kb;

		if (n < 8)
			return NULL;
		memcpy(&kb, p, 8);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)kb);
		return strdup(num);
	}
	case PFR_PERFDATA_FEAT_CMDLINE:
		return pfr__pd_cmdline(p, n);
	default:
		return pfr__pd_hstr(p, n, &used);
	}
}

/* One feature section (bit, at sec[0], sec[1] bytes) taken in. */
static void pfr__pd_feat_one(struct pfr_perfdata *pd, int fd, uint64_t fsize,
			     int bit, const uint64_t *sec)
{
	unsigned char *b;
	size_t cap =
		bit == PFR_PD_FEAT_BUILD_ID ? PFR_PD_BID_MAX : PFR_PD_FEAT_MAX;

	if (sec[0] > fsize || sec[1] > fsize - sec[0] || sec[1] > cap)
		return;
	b = malloc(sec[1] ? (size_t)sec[1] : 1);
	if (!b)
		return;
	if (pfr__pd_pread(fd, b, (size_t)sec[1], sec[0])) {
		free(b);
		return;
	}
	if (bit == PFR_PD_FEAT_BUILD_ID) {
		pd->bid = b;
		pd->bid_len = (size_t)sec[1];
		return;
	}
	pd->feat[bit] = pfr__pd_feat_text(bit, b, (size_t)sec[1]);
	free(b);
}

/* Reads the features this library gives out, once. */
static void pfr__pd_feats(struct pfr_perfdata *pd)
{
	struct pfr__pd_fhdr h;
	uint64_t table, k = 0;
	struct stat st;
	int fd;

	if (pd->feat_read)
		return;
	pd->feat_read = 1;
	if (!strcmp(pd->path, "-") || pfr_perf_file_unfinished(pd->f, NULL))
		return;
	fd = util_open_regular(pd->path);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || pfr__pd_pread(fd, &h, sizeof(h), 0) ||
	    h.magic != PFR_PD_MAGIC || h.data[0] > (uint64_t)st.st_size ||
	    h.data[1] > (uint64_t)st.st_size - h.data[0])
		goto out;
	table = h.data[0] + h.data[1];
	for (int bit = 0; bit < 256; bit++) {
		uint64_t sec[2];

		if (!(h.features[bit / 64] >> (bit % 64) & 1))
			continue;
		if (bit >= PFR_PD_FEAT_BUILD_ID && bit < PFR_PD_NFEAT &&
		    !pfr__pd_pread(fd, sec, sizeof(sec), table + 16 * k))
			pfr__pd_feat_one(pd, fd, (uint64_t)st.st_size, bit,
					 sec);
		k++;
	}
out:
	close(fd);
}

PFR_API const char *pfr_perfdata_feature(struct pfr_perfdata *pd, unsigned feat)
{
	if (!pd || feat < PFR_PERFDATA_FEAT_HOSTNAME ||
	    feat > PFR_PERFDATA_FEAT_CMDLINE)
		return NULL;
	pfr__pd_feats(pd);
	return pd->feat[feat];
}

/*
 * HEADER_BUILD_ID's records (perf's struct perf_record_header_build_id):
 * a header (u32 type, u16 misc, u16 size), s32 pid, 24 bytes of build id
 * (with PERF_RECORD_MISC_BUILD_ID_SIZE in misc: 20 bytes, then its
 * length in one byte), then the file's name, NUL-terminated, up to size.
 */
#define PFR_PD_BID_REC 36u /* the bytes before the name */
#define PFR_PD_MISC_BID_SIZE (1u << 15)

PFR_API int pfr_perfdata_buildid(struct pfr_perfdata *pd, const char *path,
				 unsigned char *id, size_t *len)
{
	size_t off = 0;

	if (!pd || !path || !len || (!id && *len))
		return -PFR_E_INVAL;
	pfr__pd_feats(pd);
	while (pd->bid && pd->bid_len - off >= PFR_PD_BID_REC) {
		const unsigned char *r = pd->bid + off;
		uint16_t misc, size;
		size_t n = 20;

		memcpy(&misc, r + 4, 2);
		memcpy(&size, r + 6, 2);
		if (size < PFR_PD_BID_REC || size > pd->bid_len - off)
			break;
		off += size;
		if (misc & PFR_PD_MISC_BID_SIZE)
			n = r[12 + 20] < 20 ? r[12 + 20] : 20;
		if (strnlen((const char *)r + PFR_PD_BID_REC,
			    size - PFR_PD_BID_REC) != strlen(path) ||
		    memcmp(r + PFR_PD_BID_REC, path, strlen(path)))
			continue;
		if (*len < n) {
			*len = n;
			return -PFR_E_NOSPC;
		}
		memcpy(id, r + 12, n);
		*len = n;
		return 0;
	}
	return -PFR_E_AGAIN;
}

/* --- the printer --- */

#define PFR_PD_PRINT_FLAGS                                                     \
	(PFR_PERFDATA_PRINT_JSON | PFR_PERFDATA_PRINT_NS |                     \
	 PFR_PERFDATA_PRINT_RELTIME | PFR_PERFDATA_PRINT_NO_CALLCHAIN |        \
	 PFR_PERFDATA_PRINT_JSON_PY)
#define PFR_PD_FLD_ALL 0x1fffu
#define PFR_PD_SHOW_ALL 0x3ffu

static int pfr__pd_print_opts(const struct pfr_perfdata_print_opts *o,
			      struct pfr_perfdata_print_opts *out)
{
	size_t sz;

	memset(out, 0, sizeof(*out));
	if (!o)
		return 0;
	sz = o->sz ? o->sz : sizeof(*o);
	if (sz < sizeof(o->sz))
		return -PFR_E_INVAL;
	for (size_t i = sizeof(*o); i < sz; i++)
		if (((const unsigned char *)o)[i])
			return -PFR_E_INVAL;
	memcpy(out, o, sz < sizeof(*o) ? sz : sizeof(*o));
	out->sz = sizeof(*out);
	if ((out->flags & ~PFR_PD_PRINT_FLAGS) ||
	    (out->show & ~PFR_PD_SHOW_ALL) ||
	    (out->fields_set & ~((1u << PFR_PERFDATA_NTYPES) - 1)))
		return -PFR_E_INVAL;
	for (int t = 0; t < PFR_PERFDATA_NTYPES; t++)
		if (out->fields[t] & ~PFR_PD_FLD_ALL)
			return -PFR_E_INVAL;
	return 0;
}

/* perf script's default style under o, for every event. */
static int pfr__pd_style(struct pfr_perfdata *pd,
			 const struct pfr_perfdata_print_opts *o)
{
	struct pfr__out_style s;
	int any_chain = 0;
	uint32_t n = pd->nev;

	memset(&s, 0, sizeof(s));
	for (int t = 0; t < PFR_OUT_NTYPES; t++)
		s.fields[t] = (o->fields_set >> t & 1)
				      ? o->fields[t]
				      : pfr__out_default_fields(t);
	s.user_set = o->fields_set;
	s.show = o->show;
	s.ns = !!(o->flags & PFR_PERFDATA_PRINT_NS);
	s.reltime = !!(o->flags & PFR_PERFDATA_PRINT_RELTIME);
	s.hide_callgraph = !!(o->flags & PFR_PERFDATA_PRINT_NO_CALLCHAIN);
	if (!pd->oev) {
		pd->oev = calloc(n ? n : 1, sizeof(*pd->oev));
		if (!pd->oev)
			return -PFR_E_SYSTEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		int w = (int)strlen(pfr_perf_file_event_name(pd->f, i));

		if (w > s.name_width)
			s.name_width = w;
		if (pfr_perf_file_attr(pd->f, i)->sample_type &
		    PERF_SAMPLE_CALLCHAIN)
			any_chain = 1;
	}
	for (uint32_t i = 0; i < n; i++)
		pfr__out_ev_init(
			&pd->oev[i], &s, pfr_perf_file_event_name(pd->f, i),
			pfr_perf_file_attr(pd->f, i), &pd->lay[i], any_chain);
	pfr__out_set_style(pd->out, &s);
	pd->popts = *o;
	pd->pset = 1;
	return 0;
}

PFR_API int pfr_perfdata_print(struct pfr_perfdata *pd,
			       const struct pfr_perfdata_event *ev, FILE *f,
			       const struct pfr_perfdata_print_opts *o)
{
	struct pfr_perfdata_print_opts po;
	int err;

	if (!pd || !ev || !f || !pd->nev)
		return -PFR_E_INVAL;
	err = pfr__pd_print_opts(o, &po);
	if (err)
		return err;
	if (!pd->pset || memcmp(&po, &pd->popts, sizeof(po))) {
		err = pfr__pd_style(pd, &po);
		if (err)
			return err;
	}
	if (ev->decoded)
		return 0; /* as perfring script: malformed, not printed */
	pfr__out_set_file(
		pd->out, f,
		((po.flags & PFR_PERFDATA_PRINT_JSON) ? PFR_OUT_JSON : 0u) |
			((po.flags & PFR_PERFDATA_PRINT_JSON_PY)
				 ? PFR_OUT_JSON_PY
				 : 0u));
	pfr__out_event(pd->out, &pd->oev[ev->evidx < pd->nev ? ev->evidx : 0],
		       &ev->rec, &ev->hdr, ev->payload);
	pfr__out_set_file(pd->out, NULL, 0); /* f is the caller's */
	if (ferror(f)) {
		if (!errno)
			errno = EIO;
		return -PFR_E_SYSTEM;
	}
	return 0;
}

PFR_API unsigned pfr_perfdata_default_fields(unsigned t)
{
	return t < PFR_PERFDATA_NTYPES ? pfr__out_default_fields((int)t) : 0;
}

PFR_API int pfr_perfdata_print_fields(struct pfr_perfdata *pd, uint32_t evidx,
				      const struct pfr_perfdata_print_opts *o)
{
	struct pfr_perfdata_print_opts po;
	int err;

	if (!pd || evidx >= pd->nev)
		return -PFR_E_INVAL;
	err = pfr__pd_print_opts(o, &po);
	if (err)
		return err;
	if (!pd->pset || memcmp(&po, &pd->popts, sizeof(po))) {
		err = pfr__pd_style(pd, &po);
		if (err)
			return err;
	}
	return (int)pd->oev[evidx].fields;
}

/* --- printing records as they come --- */

struct pfr_perfdata_printer {
	struct pfr__out *out;
};

PFR_API int pfr_perfdata_printer_new(struct pfr_perfdata_printer **pp, FILE *f,
				     unsigned flags,
				     const char *const *tracepoints, unsigned n)
{
	struct pfr_perfdata_printer *p;
	const char *why = "";

	if (pp)
		*pp = NULL;
	if (!pp || !f || (n && !tracepoints) ||
	    (flags &
	     ~(PFR_PERFDATA_PRINT_JSON | PFR_PERFDATA_PRINT_NO_SYMBOLS)))
		return -PFR_E_INVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -PFR_E_SYSTEM;
	p->out = pfr__out_new(
		f, ((flags & PFR_PERFDATA_PRINT_JSON) ? PFR_OUT_JSON : 0u) |
			   ((flags & PFR_PERFDATA_PRINT_NO_SYMBOLS)
				    ? PFR_OUT_NO_SYMS
				    : 0u));
	if (!p->out) {
		free(p);
		errno = ENOMEM;
		return -PFR_E_SYSTEM;
	}
	if (n)
		pfr__out_take_trace(
			p->out, pfr__trace_open_tracefs(tracepoints, n, &why));
	*pp = p;
	return 0;
}

PFR_API int pfr_perfdata_printer_record(struct pfr_perfdata_printer *p,
					const char *event,
					const struct pfr_perf_layout *lay,
					const struct pfr_record_header *hdr,
					const void *payload, uint32_t len)
{
	uint64_t bad;

	if (!p || !lay || !hdr || (!payload && len))
		return -PFR_E_INVAL;
	bad = pfr__out_bad(p->out);
	pfr__out_record(p->out, event ? event : "", lay, hdr, payload, len);
	return pfr__out_bad(p->out) == bad ? 0 : -PFR_E_INVAL;
}

PFR_API uint64_t pfr_perfdata_printer_bad(const struct pfr_perfdata_printer *p)
{
	return p ? pfr__out_bad(p->out) : 0;
}

PFR_API void pfr_perfdata_printer_free(struct pfr_perfdata_printer *p)
{
	if (!p)
		return;
	pfr__out_free(p->out);
	free(p);
}

PFR_API int pfr_perfdata_buildid_cache_add(const char *path, const char *dir)
{
	struct pfr__bids b = {NULL, 0};
	char buf[4096];
	int n, err = 0;

	if (!path)
		return -PFR_E_INVAL;
	n = pfr__bids_read(&b, path);
	if (n < 0)
		return -PFR_PERF_E_FILE_LAYOUT;
	if (n == 0)
		return 0;
	/* perf makes the cache's directory itself, not its parents */
	if (!pfr__bid_cache_dir(dir, buf, sizeof(buf))) {
		errno = ENAMETOOLONG;
		err = -PFR_E_SYSTEM;
	} else if ((mkdir(buf, 0755) && errno != EEXIST) ||
		   pfr__bid_cache_add(&b, buf)) {
		err = -PFR_E_SYSTEM;
	}
	pfr__bids_free(&b);
	return err ? err : n;
}
