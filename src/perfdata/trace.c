/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint fields with libtraceevent, the library perf itself decodes
 * them with.  The formats come from the perf.data file's
 * HEADER_TRACING_DATA feature section (not from this machine's tracefs:
 * the file may come from another kernel).  That section, as perf and
 * perfring write it: "\027\010Dtracing", a version string, an endianness
 * byte, sizeof(long), the page size (u32), tracefs's header_page and
 * header_event files (label, u64 size, bytes), the ftrace formats (u32
 * count, each u64 size and bytes), the event formats (u32 systems, each a
 * name, a u32 count and formats as above), kallsyms and printk formats
 * (u32 size, bytes each) and, from version 0.6, saved cmdlines (u64 size,
 * bytes).  The file is untrusted: every size is checked against the
 * section, and sample data against the event's format before libtraceevent
 * reads it.
 */
#ifndef PFR_NO_SCRIPT_LIBS
#include <event-parse.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "../../util/util.h"
#include "trace.h"

#ifndef PFR_NO_SCRIPT_LIBS
#define PFR_TRACE_MAX (64u << 20) /* largest section read */
#define PFR_TRACE_SANDBOX_S 30 /* the sandbox's time limit */
#define PFR_FEAT_TRACING_DATA 1

struct pfr__trace {
	struct tep_handle *tep;
	unsigned char *buf; /* sample data copy, NUL-terminated */
	size_t cap;
};

struct pfr__cur {
	const unsigned char *p;
	size_t n, off;
	int bad;
};

static const void *pfr__take(struct pfr__cur *c, uint64_t len)
{
	const void *r;

	if (c->bad || len > c->n - c->off) {
		c->bad = 1;
		return NULL;
	}
	r = c->p + c->off;
	c->off += (size_t)len;
	return r;
}

static uint64_t pfr__take_u(struct pfr__cur *c, unsigned width)
{
	const void *q = pfr__take(c, width);
	uint32_t v32 = 0;
	uint64_t v64 = 0;

	if (!q)
		return 0;
	if (width == 4) {
		memcpy(&v32, q, 4);
		return v32;
	}
	memcpy(&v64, q, 8);
	return v64;
}

static const char *pfr__take_str(struct pfr__cur *c)
{
	const char *s = (const char *)c->p + c->off;
	const void *z;

	if (c->bad || c->off >= c->n)
		return c->bad = 1, NULL;
	z = memchr(s, 0, c->n - c->off);
	if (!z)
		return c->bad = 1, NULL;
	c->off += (size_t)((const char *)z - s) + 1;
	return s;
}

/* len bytes at the cursor as a NUL-terminated copy (libtraceevent's
 * parsers want strings). */
static char *pfr__take_copy(struct pfr__cur *c, uint64_t len)
{
	const void *q = pfr__take(c, len);
	char *s = q ? malloc((size_t)len + 1) : NULL;

	if (s) {
		memcpy(s, q, (size_t)len);
		s[len] = 0;
	}
	return s;
}

/* count formats of system sys, each u64 size and bytes. */
static int pfr__trace_formats(struct pfr__trace *t, struct pfr__cur *c,
			      uint32_t count, const char *sys)
{
	for (uint32_t i = 0; i < count && !c->bad; i++) {
		char *fmt = pfr__take_copy(c, pfr__take_u(c, 8));

		if (!fmt)
			return -1;
		/* An event that does not parse stays undecoded, as in perf. */
		tep_parse_event(t->tep, fmt, strlen(fmt), sys);
		free(fmt);
	}
	return c->bad ? -1 : 0;
}

/* A "label" NUL, u64 size, bytes block; its bytes copied, or NULL. */
static char *pfr__trace_block(struct pfr__cur *c, const char *label,
			      uint64_t *len)
{
	const char *l = pfr__take_str(c);

	if (!l || strcmp(l, label))
		return c->bad = 1, NULL;
	*len = pfr__take_u(c, 8);
	return pfr__take_copy(c, *len);
}

static int pfr__trace_parse(struct pfr__trace *t, struct pfr__cur *c)
{
	static const unsigned char magic[] = {23,  8,	68,  't', 'r',
					      'a', 'c', 'i', 'n', 'g'};
	const unsigned char *m = pfr__take(c, sizeof(magic)), *eb;
	const char *ver = pfr__take_str(c);
	uint32_t nsys;
	uint64_t len;
	char *s;

	eb = pfr__take(c, 2);
	if (!m || memcmp(m, magic, sizeof(magic)) || !ver || !eb || eb[0])
		return -1; /* only little-endian files (this machine's) */
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, eb[1]);
	tep_set_page_size(t->tep, (int)pfr__take_u(c, 4));
	s = pfr__trace_block(c, "header_page", &len);
	if (!s)
		return -1;
	tep_parse_header_page(t->tep, s, (unsigned long)len, eb[1]);
	free(s);
	free(pfr__trace_block(c, "header_event", &len));
	if (c->bad ||
	    pfr__trace_formats(t, c, (uint32_t)pfr__take_u(c, 4), "ftrace"))
		return -1;
	nsys = (uint32_t)pfr__take_u(c, 4);
	for (uint32_t i = 0; i < nsys && !c->bad; i++) {
		const char *sys = pfr__take_str(c);

		if (!sys ||
		    pfr__trace_formats(t, c, (uint32_t)pfr__take_u(c, 4), sys))
			return -1;
	}
	free(pfr__take_copy(c, pfr__take_u(c, 4))); /* kallsyms */
	s = pfr__take_copy(c, pfr__take_u(c, 4));
	if (s && *s)
		tep_parse_printk_formats(t->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

/* Where perf's pipe format (a 16-byte header, then records) holds its
 * tracing data: the bytes that follow the HEADER_TRACING_DATA record,
 * which comes ahead of the data (the first kernel record ends the
 * search).  0, or -1 when it has none. */
static int pfr__trace_in_pipe(int fd, uint64_t sec[2])
{
	uint64_t at = 16;

	for (;;) {
		struct {
			uint32_t type;
			uint16_t misc, size;
			uint32_t len, pad;
		} r;

		if (pread(fd, &r, 8, (off_t)at) != 8 || r.size < 8 ||
		    r.type < 64)
			return -1;
		if (r.type == 66) { /* PERF_RECORD_HEADER_TRACING_DATA */
			if (r.size < 12 || pread(fd, &r, 12, (off_t)at) != 12)
				return -1;
			sec[0] = at + r.size;
			sec[1] = r.len;
			return 0;
		}
		at += r.size;
	}
}

/* The HEADER_TRACING_DATA section of a perf.data file (PERFILE2, this
 * machine's byte order: the u64 magic compared as a number, as the
 * writer stored it), in a new buffer; NULL when it has none. */
#define PFR_TRACE_MAGIC 0x32454c4946524550ull /* "PERFILE2" */

static unsigned char *pfr__trace_section(int fd, size_t *len, const char **why)
{
	uint64_t h[13], sec[2], at;
	unsigned char *b;
	int idx = 0;

	if (pread(fd, h, 16, 0) == 16 && h[0] == PFR_TRACE_MAGIC &&
	    h[1] == 16) {
		if (pfr__trace_in_pipe(fd, sec))
			return *why = "", NULL;
		goto read;
	}
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    h[0] != PFR_TRACE_MAGIC)
		return *why = "not a perf.data file with a header", NULL;
	if (!(h[9] & (1ULL << PFR_FEAT_TRACING_DATA)))
		return *why = "", NULL;
	idx = (int)(h[9] & 1); /* sections of lower feature bits first */
	at = h[5] + h[6] + (uint64_t)idx * sizeof(sec);
	if (at < h[5] ||
	    pread(fd, sec, sizeof(sec), (off_t)at) != (ssize_t)sizeof(sec))
		return *why = "feature table out of the file", NULL;
read:
	if (sec[1] > PFR_TRACE_MAX)
		return *why = "tracing data too large", NULL;
	b = malloc(sec[1] ? sec[1] : 1);
	if (!b)
		return *why = "out of memory", NULL;
	if (pread(fd, b, sec[1], (off_t)sec[0]) != (ssize_t)sec[1]) {
		free(b);
		return *why = "tracing data out of the file", NULL;
	}
	*len = sec[1];
	return b;
}

static int pfr__trace_print_to(struct pfr__trace *t, FILE *f, int json,
			       const void *raw, uint32_t size);

/*
 * Sample data for the sandbox: every byte fill (0x00, 0xff, 0x80), or,
 * with fill -1, each field 3 and each __data_loc field 8 bytes at the
 * end of the record; common_type names ev.
 */
static void pfr__trace_pattern(struct tep_event *ev, unsigned char *b,
			       uint32_t size, int fill)
{
	struct tep_format_field *lists[2] = {ev->format.common_fields,
					     ev->format.fields};

	memset(b, fill < 0 ? 0 : fill, size);
	for (int k = 0; fill < 0 && k < 2; k++)
		for (struct tep_format_field *fl = lists[k]; fl;
		     fl = fl->next) {
			uint32_t v = fl->flags & TEP_FIELD_IS_DYNAMIC
					     ? 8u << 16 | (size - 8)
					     : 3;

			if (fl->offset >= 0 && fl->size > 0 &&
			    (uint64_t)fl->offset + (uint64_t)fl->size <= size)
				memcpy(b + fl->offset, &v,
				       fl->size < 4 ? (size_t)fl->size : 4);
		}
	for (struct tep_format_field *fl = lists[0]; fl; fl = fl->next)
		if (!strcmp(fl->name, "common_type") && fl->size == 2 &&
		    fl->offset >= 0 && (uint32_t)fl->offset + 2 <= size) {
			uint16_t id = (uint16_t)ev->id;

			memcpy(b + fl->offset, &id, 2);
		}
}

/* Prints every event of t, as text and as JSON, from hostile data: every
 * byte 0x00, 0xff, 0x80, then small numbers. */
static void pfr__trace_try_all(struct pfr__trace *t)
{
	static const int fills[] = {0x00, 0xff, 0x80, -1};
	struct tep_event **evs = tep_list_events(t->tep, TEP_EVENT_SORT_ID);
	static unsigned char b[512];
	FILE *null = fopen("/dev/null", "w");

	for (int i = 0; evs && evs[i] && null; i++)
		for (int k = 0; k < (int)(sizeof(fills) / sizeof(fills[0]));
		     k++) {
			pfr__trace_pattern(evs[i], b, sizeof(b), fills[k]);
			pfr__trace_print_to(t, null, 0, b, sizeof(b));
			pfr__trace_print_to(t, null, 1, b, sizeof(b));
		}
	if (null)
		fclose(null);
}

/*
 * The stored formats are untrusted text, and libtraceevent's parser is
 * not hardened against every malformed one (a crafted format can make it
 * crash, or run for hours): they are parsed, and each event printed from
 * hostile data (pfr__trace_try_all()), in a child process first, which
 * must be done within PFR_TRACE_SANDBOX_S seconds.  Returns 0 when the
 * child came through.
 */
static int pfr__trace_sandbox(const struct pfr__cur *c0)
{
	int st;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct pfr__cur c = *c0;
		struct pfr__trace t = {0};
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2); /* the parent's parse warns once */
		alarm(PFR_TRACE_SANDBOX_S); /* a print that never ends */
		t.tep = tep_alloc();
		if (!t.tep || pfr__trace_parse(&t, &c))
			_exit(1);
		pfr__trace_try_all(&t);
		_exit(0);
	}
	if (pid < 0)
		return -1;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The formats of the tracing data (b, n), which stays the caller's. */
struct pfr__trace *pfr__trace_open_mem(const void *b, size_t n,
				       const char **why)
{
	struct pfr__trace *t;
	struct pfr__cur c = {b, n, 0, 0};

	if (pfr__trace_sandbox(&c)) {
		*why = "the stored formats do not parse";
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->tep = tep_alloc();
	if (!t || !t->tep || pfr__trace_parse(t, &c)) {
		*why = t && t->tep ? "malformed tracing data" : "out of memory";
		pfr__trace_free(t);
		t = NULL;
	}
	return t;
}

struct pfr__trace *pfr__trace_open(const char *path, const char **why)
{
	struct pfr__trace *t;
	size_t n = 0;
	int fd = util_open_regular(path);
	unsigned char *b;

	*why = "cannot open the file";
	if (fd < 0)
		return NULL;
	b = pfr__trace_section(fd, &n, why);
	close(fd);
	if (!b)
		return NULL;
	t = pfr__trace_open_mem(b, n, why);
	free(b);
	return t;
}

struct pfr__trace *pfr__trace_open_tracefs(const char *const *events,
					   unsigned n, const char **why)
{
	struct pfr__trace *t = calloc(1, sizeof(*t));
	int got = 0;

	*why = "out of memory";
	if (!t || !(t->tep = tep_alloc())) {
		free(t);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++) {
		const char *colon = events[i] ? strchr(events[i], ':') : NULL;
		char path[512], sys[128], buf[65536];
		size_t sl, len = 0;
		ssize_t r;
		int fd;

		if (!colon || (sl = (size_t)(colon - events[i])) >= sizeof(sys))
			continue; /* not a tracepoint */
		memcpy(sys, events[i], sl);
		sys[sl] = 0;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format",
			 pfr_perf_tracefs_path(), sys, colon + 1);
		fd = util_open_regular(path);
		if (fd < 0)
			continue;
		while (len < sizeof(buf) - 1 &&
		       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		close(fd);
		buf[len] = 0;
		if (tep_parse_event(t->tep, buf, len, sys) ==
		    TEP_ERRNO__SUCCESS)
			got++;
	}
	if (!got) {
		*why = n ? "no tracepoint format could be read" : "";
		pfr__trace_free(t);
		return NULL;
	}
	return t;
}

void pfr__trace_free(struct pfr__trace *t)
{
	if (!t)
		return;
	if (t->tep)
		tep_free(t->tep);
	free(t->buf);
	free(t);
}

/* Where a __data_loc (or __rel_loc) field fl's contents lie in data:
 * offset and length.  0, or -1 when fl is not one or cannot be read. */
static int pfr__trace_loc(struct tep_format_field *fl, const void *data,
			  uint64_t *off, uint64_t *len)
{
	unsigned long long v;

	if (!fl || !(fl->flags & TEP_FIELD_IS_DYNAMIC) || fl->size != 4 ||
	    fl->offset < 0 || tep_read_number_field(fl, data, &v))
		return -1;
	*off = v & 0xffff;
	*len = (v >> 16) & 0xffff;
	if (fl->flags & TEP_FIELD_IS_RELATIVE)
		*off += (uint64_t)fl->offset + 4;
	return 0;
}

/* 0 when every field of the list lies inside the size bytes at data,
 * dynamic (__data_loc) fields' contents included. */
static int pfr__trace_check(struct tep_format_field *fl, const void *data,
			    uint32_t size)
{
	for (; fl; fl = fl->next) {
		uint64_t off, len;

		if (fl->offset < 0 || fl->size < 0 ||
		    (uint64_t)fl->offset + (uint64_t)fl->size > size)
			return -1;
		if (!(fl->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (pfr__trace_loc(fl, data, &off, &len) || off + len > size)
			return -1;
	}
	return 0;
}

/* For scripts (json 2): an array that is no string as {"hex":BYTES},
 * the bytes perf hands a script as a bytearray; 1 if fl was one. */
static int pfr__trace_json_bytes(FILE *f, struct tep_format_field *fl,
				 const unsigned char *data, uint32_t size)
{
	uint64_t off = (uint64_t)fl->offset, len = (uint64_t)fl->size;

	if (!(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
	    (fl->flags & TEP_FIELD_IS_STRING) || fl->offset < 0)
		return 0;
	if ((fl->flags & TEP_FIELD_IS_DYNAMIC) &&
	    pfr__trace_loc(fl, data, &off, &len))
		return 0;
	if (off > size || len > size - off)
		return 0;
	fputs("{\"hex\":\"", f);
	for (uint64_t i = 0; i < len; i++) {
		putc("0123456789abcdef"[data[off + i] >> 4], f);
		putc("0123456789abcdef"[data[off + i] & 15], f);
	}
	fputs("\"}", f);
	return 1;
}

/* One field as a JSON member: numbers as numbers, pointers as hex strings
 * (json 2: numbers), the rest (strings, arrays) as libtraceevent prints
 * them (json 2: arrays that are no string as pfr__trace_json_bytes()). */
static void pfr__trace_json_field(FILE *f, struct tep_format_field *fl,
				  void *data, uint32_t size, int first,
				  int json)
{
	unsigned long long v;
	struct trace_seq s;

	fputs(first ? "" : ",", f);
	util_json_str(f, fl->name);
	fputc(':', f);
	if (json == 2 && pfr__trace_json_bytes(f, fl, data, size))
		return;
	if (!(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
			   TEP_FIELD_IS_STRING)) &&
	    !tep_read_number_field(fl, data, &v)) {
		int sh = 64 - 8 * fl->size;

		if ((fl->flags & TEP_FIELD_IS_POINTER) && json != 2)
			fprintf(f, "\"0x%llx\"", v);
		else if (fl->flags & TEP_FIELD_IS_SIGNED)
			fprintf(f, "%lld",
				sh > 0 && sh < 64 ? (long long)(v << sh) >> sh
						  : (long long)v);
		else
			fprintf(f, "%llu", v);
		return;
	}
	trace_seq_init(&s);
	tep_print_field_content(&s, data, (int)size, fl);
	trace_seq_terminate(&s);
	util_json_str(f, s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
}

/*
 * What libtraceevent reads of a sample is decided in part by the sample:
 * the length of __print_hex() and __print_array(), the index of a[i], the
 * width and precision of %*d and %.*d.  Each is computed here from the
 * record, the way libtraceevent computes it, and checked before the
 * record is printed: bytes read lie inside the record, widths are at
 * most PFR_TRACE_WIDTH_MAX, divisors are non-zero constants (a divisor
 * from the sample could be 0).  What cannot be computed is refused: the
 * event is then not decoded.
 */
#define PFR_TRACE_WIDTH_MAX 4096
#define PFR_TRACE_DEPTH_MAX 64

struct pfr__eval {
	struct tep_event *ev;
	const unsigned char *data;
	uint32_t size;
};

/* The field a TEP_PRINT_FIELD argument names, or NULL. */
static struct tep_format_field *pfr__arg_field(const struct pfr__eval *e,
					       const struct tep_print_arg *a)
{
	if (!a || a->type != TEP_PRINT_FIELD)
		return NULL;
	if (a->field.field)
		return a->field.field;
	return a->field.name ? tep_find_any_field(e->ev, a->field.name) : NULL;
}

/*
 * Where the array an argument names starts in the record, and its
 * element size: a field (REC->arr) or a dynamic array
 * (__get_dynamic_array(x)).  0, or -1 for anything else.
 */
static int pfr__arg_array(const struct pfr__eval *e,
			  const struct tep_print_arg *a, uint64_t *off,
			  uint64_t *esz)
{
	struct tep_format_field *fl;
	uint64_t len, loc;

	if (a && a->type == TEP_PRINT_DYNAMIC_ARRAY) {
		fl = a->dynarray.field;
		if (pfr__trace_loc(fl, e->data, off, &len))
			return -1;
	} else {
		fl = pfr__arg_field(e, a);
		if (!fl || fl->offset < 0)
			return -1;
		*off = (uint64_t)fl->offset;
		/* a __data_loc field named as REC->x: libtraceevent may read
		 * from the field or from where it points; the later start
		 * bounds both reads */
		if ((fl->flags & TEP_FIELD_IS_DYNAMIC) &&
		    !pfr__trace_loc(fl, e->data, &loc, &len) && loc > *off)
			*off = loc;
	}
	*esz = fl->elementsize ? fl->elementsize : 1;
	return 0;
}

/* 0 when n elements of esz bytes from off lie inside the record. */
static int pfr__in_record(const struct pfr__eval *e, uint64_t off, uint64_t n,
			  uint64_t esz)
{
	if (off > e->size || !esz)
		return -1;
	return n > (e->size - off) / esz ? -1 : 0;
}

static int pfr__eval(const struct pfr__eval *e, const struct tep_print_arg *a,
		     int depth, uint64_t *v);

/* a[i]: the element, after its place is checked against the record. */
static int pfr__eval_index(const struct pfr__eval *e,
			   const struct tep_print_arg *a, int depth,
			   uint64_t *v)
{
	uint64_t off, esz, i;

	if (pfr__arg_array(e, a->op.left, &off, &esz) ||
	    pfr__eval(e, a->op.right, depth + 1, &i) || esz > 8 ||
	    i > UINT32_MAX || pfr__in_record(e, off + i * esz, 1, esz))
		return -1;
	*v = tep_read_number(e->ev->tep, e->data + off + i * esz, (int)esz);
	return 0;
}

/* A binary operator's value (x op y); -1 for one not known. */
static int pfr__eval_binop(const char *op, uint64_t x, uint64_t y, uint64_t *v)
{
	static const char *const ops[] = {"+",	"-",  "*", "/", "%",  "<<",
					  ">>", "&",  "|", "^", "&&", "||",
					  "==", "!=", "<", ">", "<=", ">="};
	int k = -1;

	for (int i = 0; i < (int)(sizeof(ops) / sizeof(ops[0])); i++)
		if (!strcmp(op, ops[i]))
			k = i;
	switch (k) {
	case 0:
		*v = x + y;
		break;
	case 1:
		*v = x - y;
		break;
	case 2:
		*v = x * y;
		break;
	case 3:
	case 4:
		if (!y)
			return -1;
		*v = k == 3 ? x / y : x % y;
		break;
	case 5:
		*v = y < 64 ? x << y : 0;
		break;
	case 6:
		*v = y < 64 ? x >> y : 0;
		break;
	case 7:
		*v = x & y;
		break;
	case 8:
		*v = x | y;
		break;
	case 9:
		*v = x ^ y;
		break;
	case 10:
		*v = x && y;
		break;
	case 11:
		*v = x || y;
		break;
	case 12:
		*v = x == y;
		break;
	case 13:
		*v = x != y;
		break;
	case 14:
		*v = (int64_t)x < (int64_t)y;
		break;
	case 15:
		*v = (int64_t)x > (int64_t)y;
		break;
	case 16:
		*v = (int64_t)x <= (int64_t)y;
		break;
	case 17:
		*v = (int64_t)x >= (int64_t)y;
		break;
	default:
		return -1;
	}
	return 0;
}

/* An operator: c ? a : b, a[i], unary ! ~ -, or a binary one. */
static int pfr__eval_op(const struct pfr__eval *e,
			const struct tep_print_arg *a, int depth, uint64_t *v)
{
	const char *op = a->op.op;
	const struct tep_print_arg *r = a->op.right;
	uint64_t x = 0, y;

	if (!op)
		return -1;
	if (!strcmp(op, "["))
		return pfr__eval_index(e, a, depth, v);
	if (!strcmp(op, "?")) {
		if (!r || r->type != TEP_PRINT_OP || !r->op.op ||
		    strcmp(r->op.op, ":") ||
		    pfr__eval(e, a->op.left, depth + 1, &x))
			return -1;
		return pfr__eval(e, x ? r->op.left : r->op.right, depth + 1, v);
	}
	if (pfr__eval(e, r, depth + 1, &y))
		return -1;
	if (!a->op.left) { /* unary */
		if (!strcmp(op, "!") || !strcmp(op, "~") || !strcmp(op, "-")) {
			*v = op[0] == '!' ? !y : op[0] == '~' ? ~y : 0 - y;
			return 0;
		}
		return -1;
	}
	if (pfr__eval(e, a->op.left, depth + 1, &x))
		return -1;
	return pfr__eval_binop(op, x, y, v);
}

/* The number an argument has for this record, as libtraceevent computes
 * it; 0, or -1 when it cannot be computed here. */
static int pfr__eval(const struct pfr__eval *e, const struct tep_print_arg *a,
		     int depth, uint64_t *v)
{
	struct tep_format_field *fl;
	unsigned long long n;
	uint64_t off;

	if (!a || depth > PFR_TRACE_DEPTH_MAX)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if (!a->atom.atom)
			return -1;
		*v = strtoull(a->atom.atom, NULL, 0);
		return 0;
	case TEP_PRINT_FIELD:
		fl = pfr__arg_field(e, a);
		if (!fl || fl->offset < 0 || fl->size < 0 ||
		    (uint64_t)fl->offset + (uint64_t)fl->size > e->size ||
		    tep_read_number_field(fl, e->data, &n))
			return -1;
		*v = n;
		return 0;
	case TEP_PRINT_TYPE:
		return pfr__eval(e, a->typecast.item, depth + 1, v);
	case TEP_PRINT_OP:
		return pfr__eval_op(e, a, depth, v);
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return pfr__trace_loc(a->dynarray.field, e->data, &off, v);
	default:
		return -1;
	}
}

/* __print_hex(array, len) and __print_array(array, count, el_size): every
 * element inside the record. */
static int pfr__arrays_ok(const struct pfr__eval *e,
			  const struct tep_print_arg *a, int depth)
{
	const struct tep_print_arg *arr, *cnt;
	uint64_t off, esz = 1, n;

	if (a->type == TEP_PRINT_INT_ARRAY) {
		arr = a->int_array.field;
		cnt = a->int_array.count;
		if (pfr__eval(e, a->int_array.el_size, depth + 1, &esz) ||
		    (esz != 1 && esz != 2 && esz != 4 && esz != 8))
			return -1;
	} else {
		arr = a->hex.field;
		cnt = a->hex.size;
	}
	if (pfr__arg_array(e, arr, &off, &n) ||
	    pfr__eval(e, cnt, depth + 1, &n))
		return -1;
	return pfr__in_record(e, off, n, esz);
}

/* A divisor in a print format: a non-zero constant. */
static int pfr__trace_divisor_ok(const struct tep_print_arg *a)
{
	return a && a->type == TEP_PRINT_ATOM && a->atom.atom &&
	       strtoull(a->atom.atom, NULL, 0) != 0;
}

static int pfr__trace_args_ok(const struct pfr__eval *e,
			      const struct tep_print_arg *a, int depth);

/* One argument, its operands included (see pfr__trace_args_ok()). */
static int pfr__trace_arg_ok(const struct pfr__eval *e,
			     const struct tep_print_arg *a, int depth)
{
	uint64_t v;

	switch (a->type) {
	case TEP_PRINT_OP:
		if (a->op.op && (a->op.op[0] == '/' || a->op.op[0] == '%') &&
		    !pfr__trace_divisor_ok(a->op.right))
			return -1;
		if (a->op.op && !strcmp(a->op.op, "[") &&
		    pfr__eval_index(e, a, depth, &v))
			return -1;
		return pfr__trace_args_ok(e, a->op.left, depth + 1) ||
		       pfr__trace_args_ok(e, a->op.right, depth + 1);
	case TEP_PRINT_INT_ARRAY:
		if (!pfr__trace_divisor_ok(a->int_array.el_size))
			return -1;
		return pfr__arrays_ok(e, a, depth) ||
		       pfr__trace_args_ok(e, a->int_array.count, depth + 1);
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		return pfr__arrays_ok(e, a, depth) ||
		       pfr__trace_args_ok(e, a->hex.size, depth + 1);
	case TEP_PRINT_TYPE:
		return pfr__trace_args_ok(e, a->typecast.item, depth + 1);
	case TEP_PRINT_FLAGS:
		return pfr__trace_args_ok(e, a->flags.field, depth + 1);
	case TEP_PRINT_SYMBOL:
		return pfr__trace_args_ok(e, a->symbol.field, depth + 1);
	case TEP_PRINT_FUNC:
		return pfr__trace_args_ok(e, a->func.args, depth + 1);
	case TEP_PRINT_DYNAMIC_ARRAY:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return pfr__trace_args_ok(e, a->dynarray.index, depth + 1);
	default:
		return 0;
	}
}

/*
 * 0 when the print arguments at a, for this record, divide only by
 * non-zero constants and read only inside the record: the lengths of
 * __print_hex() and __print_array() and the indexes of a[i], computed
 * from the record, stay inside it.
 */
static int pfr__trace_args_ok(const struct pfr__eval *e,
			      const struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next)
		if (depth > PFR_TRACE_DEPTH_MAX ||
		    pfr__trace_arg_ok(e, a, depth))
			return -1;
	return 0;
}

/* A width or precision argument (the * of %*d, %.*d): at most
 * PFR_TRACE_WIDTH_MAX either way for this record. */
static int pfr__width_ok(const struct pfr__eval *e,
			 const struct tep_print_arg *a)
{
	uint64_t v;

	if (pfr__eval(e, a, 0, &v))
		return -1;
	return v + PFR_TRACE_WIDTH_MAX > 2 * PFR_TRACE_WIDTH_MAX ? -1 : 0;
}

/*
 * The conversions of the print format, each paired with its arguments
 * as libtraceevent pairs them (a * width or precision takes one before
 * the value): 0 when every * argument is a small number for this record,
 * -1 when one is not or the arguments run out before a *.
 */
static int pfr__trace_widths_ok(const struct pfr__eval *e, const char *p,
				const struct tep_print_arg *a)
{
	for (; p && *p; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		p += strspn(p, "#0- +'");
		for (int prec = 0; prec < 2; prec++) {
			if (*p == '*') {
				if (!a || pfr__width_ok(e, a))
					return -1;
				a = a->next;
				p++;
			} else {
				p += strspn(p, "0123456789");
			}
			if (prec || *p != '.')
				break;
			p++;
		}
		if (!*p)
			break;
		a = a ? a->next : NULL; /* the value */
	}
	return 0;
}

static int pfr__trace_print_to(struct pfr__trace *t, FILE *f, int json,
			       const void *raw, uint32_t size)
{
	struct tep_record rec = {0};
	struct tep_event *ev;
	struct pfr__eval e;
	struct trace_seq s;

	if (!t || size < 2 || size > PFR_TRACE_MAX)
		return 0;
	/* a copy with a NUL after it: a string field without one ends */
	if (t->cap < (size_t)size + 1) {
		unsigned char *nb = realloc(t->buf, (size_t)size + 1);

		if (!nb)
			return 0;
		t->buf = nb;
		t->cap = (size_t)size + 1;
	}
	memcpy(t->buf, raw, size);
	t->buf[size] = 0;
	rec.data = t->buf;
	rec.size = (int)size;
	/* the type field, where the formats put it, lies in the data */
	ev = tep_get_first_event(t->tep);
	if (!ev || pfr__trace_check(tep_find_common_field(ev, "common_type"),
				    t->buf, size))
		return 0;
	ev = tep_find_event_by_record(t->tep, &rec);
	if (!ev || pfr__trace_check(ev->format.common_fields, t->buf, size) ||
	    pfr__trace_check(ev->format.fields, t->buf, size))
		return 0;
	e.ev = ev;
	e.data = t->buf;
	e.size = size;
	if (!json && (pfr__trace_args_ok(&e, ev->print_fmt.args, 0) ||
		      pfr__trace_widths_ok(&e, ev->print_fmt.format,
					   ev->print_fmt.args)))
		return 0; /* it would read past the record, or run for long */
	if (!f)
		return 1;
	if (json) {
		fputs(",\"fields\":{", f);
		for (struct tep_format_field *fl = ev->format.fields; fl;
		     fl = fl->next)
			pfr__trace_json_field(f, fl, t->buf, size,
					      fl == ev->format.fields, json);
		fputc('}', f);
		return 1;
	}
	trace_seq_init(&s);
	tep_print_event(t->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	util_text_str(f, s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return 1;
}

/* --- fields for the perf.data library (pfr__trace_field()) --- */

/* The event of the tracepoint data (raw, size), every field of it
 * checked to lie inside; NULL when none.  The data is copied into t->buf
 * first (as pfr__trace_print_to() does). */
static struct tep_event *pfr__trace_event_of(struct pfr__trace *t,
					     const void *raw, uint32_t size)
{
	struct tep_record rec = {0};
	struct tep_event *ev;

	if (!t || !raw || size < 2 || size > PFR_TRACE_MAX)
		return NULL;
	if (t->cap < (size_t)size + 1) {
		unsigned char *nb = realloc(t->buf, (size_t)size + 1);

		if (!nb)
			return NULL;
		t->buf = nb;
		t->cap = (size_t)size + 1;
	}
	memcpy(t->buf, raw, size);
	t->buf[size] = 0;
	rec.data = t->buf;
	rec.size = (int)size;
	ev = tep_get_first_event(t->tep);
	if (!ev || pfr__trace_check(tep_find_common_field(ev, "common_type"),
				    t->buf, size))
		return NULL;
	ev = tep_find_event_by_record(t->tep, &rec);
	if (!ev || pfr__trace_check(ev->format.common_fields, t->buf, size) ||
	    pfr__trace_check(ev->format.fields, t->buf, size))
		return NULL;
	return ev;
}

int pfr__trace_nr_fields(struct pfr__trace *t, const void *raw, uint32_t size)
{
	struct tep_event *ev = pfr__trace_event_of(t, raw, size);

	return ev ? ev->format.nr_common + ev->format.nr_fields : 0;
}

/* An array or string field's bytes, pointing into raw. */
static int pfr__trace_array(struct tep_format_field *fl, const void *raw,
			    uint32_t size, struct pfr_perfdata_value *v)
{
	uint64_t off = (uint64_t)fl->offset, len = (uint64_t)fl->size;
	const char *p;

	if ((fl->flags & TEP_FIELD_IS_DYNAMIC) &&
	    pfr__trace_loc(fl, raw, &off, &len))
		return -1;
	if (off > size || len > size - off)
		return -1;
	p = (const char *)raw + off;
	v->len = (uint32_t)len;
	if (fl->flags & TEP_FIELD_IS_STRING) {
		const char *z = memchr(p, 0, (size_t)len);

		v->kind = PFR_PERFDATA_STRING;
		v->str = p;
		v->len = z ? (uint32_t)(z - p) : (uint32_t)len;
	} else {
		v->kind = PFR_PERFDATA_BYTES;
		v->bytes = p;
		v->elem_size = fl->elementsize;
	}
	return 0;
}

int pfr__trace_field(struct pfr__trace *t, const void *raw, uint32_t size,
		     int i, const char *name, struct pfr_perfdata_value *v)
{
	struct tep_event *ev = pfr__trace_event_of(t, raw, size);
	struct tep_format_field *fl = NULL;
	unsigned long long u;

	if (!ev)
		return -1;
	for (int k = 0, c = 0; k < 2 && !fl; k++) {
		fl = k ? ev->format.fields : ev->format.common_fields;
		for (; fl; fl = fl->next, c++)
			if (name ? !strcmp(fl->name, name) : c == i)
				break;
	}
	if (!fl || fl->offset < 0 || fl->size < 0)
		return -1;
	memset(v, 0, sizeof(*v));
	v->name = fl->name;
	v->type = fl->type;
	v->common = !strncmp(fl->name, "common_", 7);
	if (fl->flags &
	    (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
		return pfr__trace_array(fl, raw, size, v);
	if (tep_read_number_field(fl, t->buf, &u))
		return -1;
	v->u = u;
	if ((fl->flags & TEP_FIELD_IS_SIGNED) &&
	    !(fl->flags & TEP_FIELD_IS_POINTER)) {
		int sh = 64 - 8 * fl->size;

		v->kind = PFR_PERFDATA_SIGNED;
		v->i = sh > 0 && sh < 64 ? (int64_t)(u << sh) >> sh
					 : (int64_t)u;
		v->u = (uint64_t)v->i;
	} else {
		v->kind = PFR_PERFDATA_UNSIGNED;
		v->i = (int64_t)u;
	}
	return 0;
}

#else
/* Built without libtraceevent (a cross build): no fields. */
struct pfr__trace *pfr__trace_open(const char *path, const char **why)
{
	(void)path;
	*why = "perfring built without libtraceevent";
	return NULL;
}

struct pfr__trace *pfr__trace_open_tracefs(const char *const *events,
					   unsigned n, const char **why)
{
	(void)events;
	(void)n;
	*why = "perfring built without libtraceevent";
	return NULL;
}

struct pfr__trace *pfr__trace_open_mem(const void *b, size_t n,
				       const char **why)
{
	(void)b;
	(void)n;
	*why = "perfring built without libtraceevent";
	return NULL;
}

void pfr__trace_free(struct pfr__trace *t)
{
	(void)t;
}

static int pfr__trace_print_to(struct pfr__trace *t, FILE *f, int json,
			       const void *raw, uint32_t size)
{
	(void)t;
	(void)f;
	(void)json;
	(void)raw;
	(void)size;
	return 0;
}
#endif

int pfr__trace_print(struct pfr__trace *t, FILE *f, int json, const void *raw,
		     uint32_t size)
{
	return pfr__trace_print_to(t, f, json, raw, size);
}

#ifdef PFR_NO_SCRIPT_LIBS
int pfr__trace_nr_fields(struct pfr__trace *t, const void *raw, uint32_t size)
{
	(void)t;
	(void)raw;
	(void)size;
	return 0;
}

int pfr__trace_field(struct pfr__trace *t, const void *raw, uint32_t size,
		     int i, const char *name, struct pfr_perfdata_value *v)
{
	(void)t;
	(void)raw;
	(void)size;
	(void)i;
	(void)name;
	(void)v;
	return -1;
}
#endif
