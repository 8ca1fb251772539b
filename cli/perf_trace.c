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

#include "cli.h"
#include "perf_trace.h"

#ifndef PFR_NO_SCRIPT_LIBS
#define PFR_TRACE_MAX (64u << 20) /* largest section read */
#define PFR_FEAT_TRACING_DATA 1

struct pfr_trace {
	struct tep_handle *tep;
	unsigned char *buf; /* sample data copy, NUL-terminated */
	size_t cap;
};

struct pfr_cur {
	const unsigned char *p;
	size_t n, off;
	int bad;
};

static const void *pfr_take(struct pfr_cur *c, uint64_t len)
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

static uint64_t pfr_take_u(struct pfr_cur *c, unsigned width)
{
	const void *q = pfr_take(c, width);
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

static const char *pfr_take_str(struct pfr_cur *c)
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
static char *pfr_take_copy(struct pfr_cur *c, uint64_t len)
{
	const void *q = pfr_take(c, len);
	char *s = q ? malloc((size_t)len + 1) : NULL;

	if (s) {
		memcpy(s, q, (size_t)len);
		s[len] = 0;
	}
	return s;
}

/* count formats of system sys, each u64 size and bytes. */
static int pfr_trace_formats(struct pfr_trace *t, struct pfr_cur *c,
			     uint32_t count, const char *sys)
{
	for (uint32_t i = 0; i < count && !c->bad; i++) {
		char *fmt = pfr_take_copy(c, pfr_take_u(c, 8));

		if (!fmt)
			return -1;
		/* An event that does not parse stays undecoded, as in perf. */
		tep_parse_event(t->tep, fmt, strlen(fmt), sys);
		free(fmt);
	}
	return c->bad ? -1 : 0;
}

/* A "label" NUL, u64 size, bytes block; its bytes copied, or NULL. */
static char *pfr_trace_block(struct pfr_cur *c, const char *label,
			     uint64_t *len)
{
	const char *l = pfr_take_str(c);

	if (!l || strcmp(l, label))
		return c->bad = 1, NULL;
	*len = pfr_take_u(c, 8);
	return pfr_take_copy(c, *len);
}

static int pfr_trace_parse(struct pfr_trace *t, struct pfr_cur *c)
{
	static const unsigned char magic[] = {23,  8,	68,  't', 'r',
					      'a', 'c', 'i', 'n', 'g'};
	const unsigned char *m = pfr_take(c, sizeof(magic)), *eb;
	const char *ver = pfr_take_str(c);
	uint32_t nsys;
	uint64_t len;
	char *s;

	eb = pfr_take(c, 2);
	if (!m || memcmp(m, magic, sizeof(magic)) || !ver || !eb || eb[0])
		return -1; /* only little-endian files (this machine's) */
	tep_set_file_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(t->tep, TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, eb[1]);
	tep_set_page_size(t->tep, (int)pfr_take_u(c, 4));
	s = pfr_trace_block(c, "header_page", &len);
	if (!s)
		return -1;
	tep_parse_header_page(t->tep, s, (unsigned long)len, eb[1]);
	free(s);
	free(pfr_trace_block(c, "header_event", &len));
	if (c->bad ||
	    pfr_trace_formats(t, c, (uint32_t)pfr_take_u(c, 4), "ftrace"))
		return -1;
	nsys = (uint32_t)pfr_take_u(c, 4);
	for (uint32_t i = 0; i < nsys && !c->bad; i++) {
		const char *sys = pfr_take_str(c);

		if (!sys ||
		    pfr_trace_formats(t, c, (uint32_t)pfr_take_u(c, 4), sys))
			return -1;
	}
	free(pfr_take_copy(c, pfr_take_u(c, 4))); /* kallsyms */
	s = pfr_take_copy(c, pfr_take_u(c, 4));
	if (s && *s)
		tep_parse_printk_formats(t->tep, s);
	free(s);
	return c->bad ? -1 : 0;
}

/* Where perf's pipe format (a 16-byte header, then records) holds its
 * tracing data: the bytes that follow the HEADER_TRACING_DATA record,
 * which comes ahead of the data (the first kernel record ends the
 * search).  0, or -1 when it has none. */
static int pfr_trace_in_pipe(int fd, uint64_t sec[2])
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
 * machine's byte order), in a new buffer; NULL when it has none. */
static unsigned char *pfr_trace_section(int fd, size_t *len, const char **why)
{
	uint64_t h[13], sec[2], at;
	unsigned char *b;
	int idx = 0;

	if (pread(fd, h, 16, 0) == 16 && !memcmp(h, "PERFILE2", 8) &&
	    h[1] == 16) {
		if (pfr_trace_in_pipe(fd, sec))
			return *why = "", NULL;
		goto read;
	}
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    memcmp(h, "PERFILE2", 8))
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

/* Prints every event of t once, from zeroed data of its format's size. */
static void pfr_trace_try_all(struct pfr_trace *t)
{
	struct tep_event **evs = tep_list_events(t->tep, TEP_EVENT_SORT_ID);

	for (int i = 0; evs && evs[i]; i++) {
		static unsigned char zero[4096];
		struct tep_record rec = {0};
		struct trace_seq s;

		rec.data = zero;
		rec.size = sizeof(zero) - 1;
		trace_seq_init(&s);
		tep_print_event(t->tep, &s, &rec, "%s", TEP_PRINT_INFO);
		trace_seq_destroy(&s);
	}
}

/*
 * The stored formats are untrusted text, and libtraceevent's parser is
 * not hardened against every malformed one (a crafted format can make it
 * crash): they are parsed, and each event printed once, in a child
 * process first.  Returns 0 when the child came through.
 */
static int pfr_trace_sandbox(const struct pfr_cur *c0)
{
	int st;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct pfr_cur c = *c0;
		struct pfr_trace t = {0};
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2); /* the parent's parse warns once */
		t.tep = tep_alloc();
		if (!t.tep || pfr_trace_parse(&t, &c))
			_exit(1);
		pfr_trace_try_all(&t);
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
struct pfr_trace *pfr_trace_open_mem(const void *b, size_t n, const char **why)
{
	struct pfr_trace *t;
	struct pfr_cur c = {b, n, 0, 0};

	if (pfr_trace_sandbox(&c)) {
		*why = "the stored formats do not parse";
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (t)
		t->tep = tep_alloc();
	if (!t || !t->tep || pfr_trace_parse(t, &c)) {
		*why = t && t->tep ? "malformed tracing data" : "out of memory";
		pfr_trace_free(t);
		t = NULL;
	}
	return t;
}

struct pfr_trace *pfr_trace_open(const char *path, const char **why)
{
	struct pfr_trace *t;
	size_t n = 0;
	int fd = pfr_cli_open_regular(path);
	unsigned char *b;

	*why = "cannot open the file";
	if (fd < 0)
		return NULL;
	b = pfr_trace_section(fd, &n, why);
	close(fd);
	if (!b)
		return NULL;
	t = pfr_trace_open_mem(b, n, why);
	free(b);
	return t;
}

struct pfr_trace *pfr_trace_open_tracefs(const char *const *events, unsigned n,
					 const char **why)
{
	struct pfr_trace *t = calloc(1, sizeof(*t));
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
		fd = pfr_cli_open_regular(path);
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
		pfr_trace_free(t);
		return NULL;
	}
	return t;
}

void pfr_trace_free(struct pfr_trace *t)
{
	if (!t)
		return;
	if (t->tep)
		tep_free(t->tep);
	free(t->buf);
	free(t);
}

/* 0 when every field of the list lies inside the size bytes at data,
 * dynamic (__data_loc) fields' contents included. */
static int pfr_trace_check(struct tep_format_field *fl, const void *data,
			   uint32_t size)
{
	for (; fl; fl = fl->next) {
		unsigned long long v, off, len;

		if (fl->offset < 0 || fl->size < 0 ||
		    (uint64_t)fl->offset + (uint64_t)fl->size > size)
			return -1;
		if (!(fl->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (fl->size != 4 || tep_read_number_field(fl, data, &v))
			return -1;
		off = v & 0xffff;
		len = v >> 16;
		if (fl->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned long long)fl->offset + 4;
		if (off + len > size)
			return -1;
	}
	return 0;
}

/* One field as a JSON member: numbers as numbers, pointers as hex strings,
 * the rest (strings, arrays) as libtraceevent prints them. */
static void pfr_trace_json_field(FILE *f, struct tep_format_field *fl,
				 void *data, uint32_t size, int first)
{
	unsigned long long v;
	struct trace_seq s;

	fputs(first ? "" : ",", f);
	pfr_cli_json_str(f, fl->name);
	fputc(':', f);
	if (!(fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC |
			   TEP_FIELD_IS_STRING)) &&
	    !tep_read_number_field(fl, data, &v)) {
		int sh = 64 - 8 * fl->size;

		if (fl->flags & TEP_FIELD_IS_POINTER)
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
	pfr_cli_json_str(f, s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
}

/* A divisor in a print format: a non-zero constant. */
static int pfr_trace_divisor_ok(const struct tep_print_arg *a)
{
	return a && a->type == TEP_PRINT_ATOM && a->atom.atom &&
	       strtoull(a->atom.atom, NULL, 0) != 0;
}

/*
 * 0 when the print arguments at a divide only by non-zero constants: a
 * format from the file may divide by a field, and libtraceevent would
 * then divide by zero on data where that field is 0.
 */
static int pfr_trace_args_ok(const struct tep_print_arg *a, int depth)
{
	for (; a; a = a->next) {
		int bad = 0;

		if (depth > 64)
			return -1;
		switch (a->type) {
		case TEP_PRINT_OP:
			if ((a->op.op[0] == '/' || a->op.op[0] == '%') &&
			    !pfr_trace_divisor_ok(a->op.right))
				return -1;
			bad = pfr_trace_args_ok(a->op.left, depth + 1) ||
			      pfr_trace_args_ok(a->op.right, depth + 1);
			break;
		case TEP_PRINT_INT_ARRAY:
			if (!pfr_trace_divisor_ok(a->int_array.el_size))
				return -1;
			bad = pfr_trace_args_ok(a->int_array.field,
						depth + 1) ||
			      pfr_trace_args_ok(a->int_array.count, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			bad = pfr_trace_args_ok(a->typecast.item, depth + 1);
			break;
		case TEP_PRINT_FLAGS:
			bad = pfr_trace_args_ok(a->flags.field, depth + 1);
			break;
		case TEP_PRINT_SYMBOL:
			bad = pfr_trace_args_ok(a->symbol.field, depth + 1);
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			bad = pfr_trace_args_ok(a->hex.field, depth + 1) ||
			      pfr_trace_args_ok(a->hex.size, depth + 1);
			break;
		case TEP_PRINT_FUNC:
			bad = pfr_trace_args_ok(a->func.args, depth + 1);
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			bad = pfr_trace_args_ok(a->dynarray.index, depth + 1);
			break;
		default:
			break;
		}
		if (bad)
			return -1;
	}
	return 0;
}

int pfr_trace_print(struct pfr_trace *t, FILE *f, int json, const void *raw,
		    uint32_t size)
{
	struct tep_record rec = {0};
	struct tep_event *ev;
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
	if (!ev || pfr_trace_check(tep_find_common_field(ev, "common_type"),
				   t->buf, size))
		return 0;
	ev = tep_find_event_by_record(t->tep, &rec);
	if (!ev || pfr_trace_check(ev->format.common_fields, t->buf, size) ||
	    pfr_trace_check(ev->format.fields, t->buf, size))
		return 0;
	if (!json && pfr_trace_args_ok(ev->print_fmt.args, 0))
		return 0; /* the text would divide by a field */
	if (!f)
		return 1;
	if (json) {
		fputs(",\"fields\":{", f);
		for (struct tep_format_field *fl = ev->format.fields; fl;
		     fl = fl->next)
			pfr_trace_json_field(f, fl, t->buf, size,
					     fl == ev->format.fields);
		fputc('}', f);
		return 1;
	}
	trace_seq_init(&s);
	tep_print_event(t->tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	pfr_cli_text_str(f, s.buffer ? s.buffer : "");
	trace_seq_destroy(&s);
	return 1;
}
#else
/* Built without libtraceevent (a cross build): no fields. */
struct pfr_trace *pfr_trace_open(const char *path, const char **why)
{
	(void)path;
	*why = "perfring built without libtraceevent";
	return NULL;
}

struct pfr_trace *pfr_trace_open_tracefs(const char *const *events, unsigned n,
					 const char **why)
{
	(void)events;
	(void)n;
	*why = "perfring built without libtraceevent";
	return NULL;
}

struct pfr_trace *pfr_trace_open_mem(const void *b, size_t n, const char **why)
{
	(void)b;
	(void)n;
	*why = "perfring built without libtraceevent";
	return NULL;
}

void pfr_trace_free(struct pfr_trace *t)
{
	(void)t;
}

int pfr_trace_print(struct pfr_trace *t, FILE *f, int json, const void *raw,
		    uint32_t size)
{
	(void)t;
	(void)f;
	(void)json;
	(void)raw;
	(void)size;
	return 0;
}
#endif
