/* SPDX-License-Identifier: MIT */
/*
 * `perfring script`'s options, spelled as perf script spells them: a
 * value after the option, joined to a short one (-iFILE) or after '=' for
 * a long one (--input=FILE); -F's fields per output type with perf's
 * rules; and the sample filters (--time, --tid, --pid, --comms, -C).
 */
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "../cli.h"
#include "../perfopt.h"
#include "script.h"

/* perf script's field names (tools/perf/builtin-script.c), with the
 * perfring field each maps to, 0 for one perfring does not print. */
static const struct {
	const char *name;
	unsigned fld;
} cli_fields[] = {
	{"comm", PFR_PERFDATA_FLD_COMM},
	{"tid", PFR_PERFDATA_FLD_TID},
	{"pid", PFR_PERFDATA_FLD_PID},
	{"time", PFR_PERFDATA_FLD_TIME},
	{"cpu", PFR_PERFDATA_FLD_CPU},
	{"event", PFR_PERFDATA_FLD_EVENT},
	{"trace", PFR_PERFDATA_FLD_TRACE},
	{"ip", PFR_PERFDATA_FLD_IP},
	{"sym", PFR_PERFDATA_FLD_SYM},
	{"symoff", PFR_PERFDATA_FLD_SYMOFF},
	{"dso", PFR_PERFDATA_FLD_DSO},
	{"period", PFR_PERFDATA_FLD_PERIOD},
	{"addr", PFR_PERFDATA_FLD_ADDR},
	{"srcline", 0},
	{"iregs", 0},
	{"uregs", 0},
	{"brstack", 0},
	{"brstacksym", 0},
	{"flags", 0},
	{"bpf-output", 0},
	{"brstackinsn", 0},
	{"brstackinsnlen", 0},
	{"brstackoff", 0},
	{"callindent", 0},
	{"insn", 0},
	{"insnlen", 0},
	{"synth", 0},
	{"phys_addr", 0},
	{"metric", 0},
	{"misc", 0},
	{"srccode", 0},
	{"ipc", 0},
	{"data_page_size", 0},
	{"code_page_size", 0},
	{"ins_lat", 0},
	{"tod", 0},
	{"weight", 0},
	{"data_src", 0},
	{"cgroup", 0},
};

/* -F's type names, as perf's event_type() and its parser know them. */
static const struct {
	const char *name;
	int type;
} cli_ftypes[] = {
	{"hw", 0}, {"sw", 1}, {"trace", 2}, {"raw", 4}, {"break", 5},
};

static const char *const cli_type_names[PFR_PERFDATA_NTYPES] = {
	"hardware", "software",	  "tracepoint", "hardware-cache",
	"raw",	    "breakpoint", "other",
};

static int cli_err(const char *fmt, const char *a)
{
	fprintf(stderr, "perfring script: ");
	fprintf(stderr, fmt, a);
	fputc('\n', stderr);
	return -1;
}

/* One field name of -F: its PFR_PERFDATA_FLD_ bit, or 0 (message printed). */
static unsigned cli_field(const char *tok)
{
	for (size_t i = 0; i < sizeof(cli_fields) / sizeof(cli_fields[0]); i++)
		if (!strcmp(tok, cli_fields[i].name)) {
			if (!cli_fields[i].fld)
				cli_err("-F field '%s' is perf's, but perfring "
					"does not print it",
					tok);
			return cli_fields[i].fld;
		}
	cli_err("-F: invalid field '%s' requested", tok);
	return 0;
}

/* A field invalid for output type t (perf's invalid_fields). */
static int cli_field_invalid(int t, unsigned fld)
{
	return fld == PFR_PERFDATA_FLD_TRACE && t != PERF_TYPE_TRACEPOINT &&
	       t != PFR_PERFDATA_NTYPES - 1;
}

/* Applies one field of -F to type t (-1: every type). */
static int cli_apply(struct cli_style *s, unsigned *user_fields, int t,
		     unsigned fld, int remove, const char *tok)
{
	for (int j = 0; j < PFR_PERFDATA_NTYPES; j++) {
		if (t >= 0 && j != t)
			continue;
		if (cli_field_invalid(j, fld)) {
			if (t >= 0)
				return cli_err("-F: '%s' not valid for "
					       "these events",
					       tok);
			fprintf(stderr,
				"'%s' not valid for %s events. Ignoring.\n",
				tok, cli_type_names[j]);
			continue;
		}
		if (remove) {
			s->fields[j] &= ~fld;
			if (t < 0)
				user_fields[j] &= ~fld;
		} else {
			s->fields[j] |= fld;
			if (t < 0)
				user_fields[j] |= fld;
		}
		s->user_set |= 1u << j;
	}
	return 0;
}

/* One -F argument, perf's parse_output_fields(): [TYPE:]LIST where LIST
 * sets the fields, or edits the defaults with +f and -f. */
static int cli_parse_fields(struct cli_script *S, unsigned *user_fields,
			    const char *arg)
{
	struct cli_style *s = &S->style;
	char *copy = strdup(arg), *tok, *save = NULL, *list = copy;
	int t = -1, change = 0; /* 0 none yet, 1 set, 2 add, 3 remove */
	const char *colon = strchr(arg, ':');

	if (!copy)
		return -1;
	if (colon) {
		size_t n = (size_t)(colon - arg);

		for (size_t i = 0; i < sizeof(cli_ftypes) / sizeof(*cli_ftypes);
		     i++)
			if (strlen(cli_ftypes[i].name) == n &&
			    !strncmp(arg, cli_ftypes[i].name, n))
				t = cli_ftypes[i].type;
		if (t < 0) {
			free(copy);
			return cli_err("-F: unknown event type in '%s'", arg);
		}
		list = copy + n + 1;
		if (*list != '+' && *list != '-')
			s->fields[t] = 0;
		s->user_set |= 1u << t;
	} else if (!*arg) {
		free(copy);
		return cli_err("-F: no fields%s", "");
	} else if (!strchr(arg, '+') && !strchr(arg, '-')) {
		for (int j = 0; j < PFR_PERFDATA_NTYPES; j++) {
			s->fields[j] = 0;
			user_fields[j] = 0;
		}
	}
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int c = *tok == '+' ? 2 : *tok == '-' ? 3 : 1;
		unsigned fld;

		if ((c == 1 && change > 1) || (c > 1 && change == 1)) {
			free(copy);
			return cli_err("-F: cannot mix +-field with "
				       "overridden fields in '%s'",
				       arg);
		}
		change = c;
		fld = cli_field(c > 1 ? tok + 1 : tok);
		if (!fld || cli_apply(s, user_fields, t, fld, c == 3, tok)) {
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

/* perf's message for a -F field the samples of event name lack. */
static void cli_missing(const char *name, unsigned fld)
{
	const char *f = "?", *a = "?";

	for (size_t i = 0; i < sizeof(cli_fields) / sizeof(cli_fields[0]); i++)
		if (cli_fields[i].fld == fld)
			f = cli_fields[i].name;
	switch (fld) {
	case PFR_PERFDATA_FLD_TID:
	case PFR_PERFDATA_FLD_PID:
		a = "TID";
		break;
	case PFR_PERFDATA_FLD_TIME:
		a = "TIME";
		break;
	case PFR_PERFDATA_FLD_CPU:
		a = "CPU";
		break;
	case PFR_PERFDATA_FLD_PERIOD:
		a = "PERIOD";
		break;
	case PFR_PERFDATA_FLD_ADDR:
		a = "ADDR";
		break;
	case PFR_PERFDATA_FLD_TRACE:
		a = "RAW";
		break;
	default:
		a = "IP";
		break;
	}
	fprintf(stderr,
		"Samples for '%s' event do not have %s attribute set. "
		"Cannot print '%s' field.\n",
		name, a, f);
}

int cli_script_events(struct cli_script *S)
{
	uint32_t n = pfr_perf_file_nr_events(S->f);
	unsigned user_fields[PFR_PERFDATA_NTYPES] = {0}, checked = 0;
	struct pfr_perfdata_print_opts *po = &S->popts;

	for (int j = 0; j < PFR_PERFDATA_NTYPES; j++)
		S->style.fields[j] = pfr_perfdata_default_fields((unsigned)j);
	for (int i = 0; i < S->nfields_arg; i++)
		if (cli_parse_fields(S, user_fields, S->fields_arg[i]))
			return -1;
	memset(po, 0, sizeof(*po));
	po->sz = sizeof(*po);
	po->flags = ((S->flags & CLI_OUT_JSON) ? PFR_PERFDATA_PRINT_JSON : 0u) |
		    ((S->flags & CLI_OUT_JSON_PY) ? PFR_PERFDATA_PRINT_JSON_PY
						  : 0u) |
		    (S->style.ns ? PFR_PERFDATA_PRINT_NS : 0u) |
		    (S->style.reltime ? PFR_PERFDATA_PRINT_RELTIME : 0u) |
		    (S->style.hide_callgraph ? PFR_PERFDATA_PRINT_NO_CALLCHAIN
					     : 0u);
	po->show = S->style.show & CLI_SHOW_ALL;
	memcpy(po->fields, S->style.fields, sizeof(po->fields));
	po->fields_set = S->style.user_set;
	S->nev = n;
	for (uint32_t i = 0; i < n; i++) {
		const struct perf_event_attr *a = pfr_perf_file_attr(S->f, i);
		int t = a->type < PERF_TYPE_MAX ? (int)a->type
						: PFR_PERFDATA_NTYPES - 1;
		int fl = pfr_perfdata_print_fields(S->pd, i, po);

		if (fl < 0)
			return -1;
		/* perf: a field -F named for every type must be there, in
		 * the first event of the type (the tracking dummy aside) */
		if (checked & (1u << t))
			continue;
		checked |= 1u << t;
		if (a->type == PERF_TYPE_SOFTWARE &&
		    a->config == PERF_COUNT_SW_DUMMY)
			continue;
		for (unsigned b = 1; b <= PFR_PERFDATA_FLD_ADDR; b <<= 1)
			if ((user_fields[t] & b) && !((unsigned)fl & b)) {
				cli_missing(pfr_perf_file_event_name(S->f, i),
					    b);
				return -1;
			}
	}
	return 0;
}

/* "SEC[.FRAC]" (up to nanoseconds) into ns; 0 or -1. */
static int cli_parse_ts(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, d = 0;

	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -1;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return -1;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, d++)
			if (d < 9)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
	if (i != n)
		return -1;
	for (; d < 9; d++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

/* --time: "START,STOP" ranges separated by blanks, either end empty. */
static int cli_parse_time(struct cli_script *S, const char *arg)
{
	const char *p = arg;

	if (strchr(arg, '%'))
		return cli_err("--time '%s': percentages are perf's, not "
			       "perfring's (give START,STOP in seconds)",
			       arg);
	while (*p) {
		const char *end = p + strcspn(p, " "), *comma;
		struct cli_trange r = {0, 0}, *nt;

		comma = memchr(p, ',', (size_t)(end - p));
		if (!comma ||
		    (comma > p &&
		     cli_parse_ts(p, (size_t)(comma - p), &r.start)) ||
		    (end > comma + 1 &&
		     cli_parse_ts(comma + 1, (size_t)(end - comma - 1),
				  &r.stop)) ||
		    (r.stop && r.start > r.stop))
			return cli_err("--time '%s': expected START,STOP "
				       "(seconds.fraction, either empty)",
				       arg);
		nt = realloc(S->times, (size_t)(S->ntimes + 1) * sizeof(*nt));
		if (!nt)
			return -1;
		S->times = nt;
		S->times[S->ntimes++] = r;
		p = end + strspn(end, " ");
	}
	return 0;
}

/* A comma-separated list of ids for --tid or --pid. */
static int cli_parse_ids(const char *opt, const char *arg, uint32_t **ids,
			 int *n)
{
	const char *p = arg;

	for (;;) {
		char tok[24];
		size_t l = strcspn(p, ",");
		uint32_t v, *ni;

		if (!l || l >= sizeof(tok))
			return cli_err("%s: expected numbers separated by ','",
				       opt);
		memcpy(tok, p, l);
		tok[l] = 0;
		if (strspn(tok, "0123456789") != l || util_parse_u32(tok, &v))
			return cli_err("%s: expected numbers separated by ','",
				       opt);
		ni = realloc(*ids, (size_t)(*n + 1) * sizeof(*ni));
		if (!ni)
			return -1;
		*ids = ni;
		(*ids)[(*n)++] = v;
		if (!p[l])
			return 0;
		p += l + 1;
	}
}

static int cli_parse_comms(struct cli_script *S, const char *arg)
{
	const char *p = arg;

	for (;;) {
		size_t l = strcspn(p, ",");
		char **nc = realloc(S->comms,
				    (size_t)(S->ncomms + 1) * sizeof(*nc));

		if (!nc)
			return -1;
		S->comms = nc;
		S->comms[S->ncomms] = strndup(p, l);
		if (!S->comms[S->ncomms])
			return -1;
		S->ncomms++;
		if (!p[l])
			return 0;
		p += l + 1;
	}
}

static int cli_parse_cpus(struct cli_script *S, const char *arg)
{
	int n;

	S->cpus = malloc(4096 * sizeof(*S->cpus));
	if (!S->cpus)
		return -1;
	n = pfr_perf_cpu_list(arg, S->cpus, 4096);
	if (n <= 0)
		return cli_err("-C '%s': expected a cpu list such as 0-3,8",
			       arg);
	S->ncpus = n;
	return 0;
}

static int cli_has_id(const uint32_t *ids, int n, uint32_t v)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == v)
			return 1;
	return 0;
}

int cli_script_keep(struct cli_script *S, const struct pfr_perf_rec *r)
{
	int ok = !S->ntimes;

	if (S->ncpus && (r->fields & PFR_PERF_F_CPU)) {
		ok = 0;
		for (int i = 0; i < S->ncpus; i++)
			if ((uint32_t)S->cpus[i] == r->cpu)
				ok = 1;
		if (!ok)
			return 0;
		ok = !S->ntimes;
	}
	if (r->type != PERF_RECORD_SAMPLE)
		return 1;
	for (int i = 0; i < S->ntimes && !ok; i++)
		ok = (r->fields & PFR_PERF_F_TIME) &&
		     r->time >= S->times[i].start &&
		     (!S->times[i].stop || r->time <= S->times[i].stop);
	if (!ok)
		return 0;
	if (S->ntids && !cli_has_id(S->tids, S->ntids, r->tid))
		return 0;
	if (S->npids && !cli_has_id(S->pids, S->npids, r->pid))
		return 0;
	if (S->ncomms) {
		const char *c = pfr_perfdata_comm(S->pd, r->tid);

		ok = 0;
		for (int i = 0; i < S->ncomms && !ok; i++)
			ok = !strcmp(S->comms[i], c);
	}
	return ok;
}

/* The options of perf script, in its grammar (cli/perfopt.h). */
enum {
	O_INPUT = 1,
	O_FIELDS,
	O_SCRIPT,
	O_GEN_SCRIPT,
	O_LIST,
	O_TIME,
	O_TID,
	O_PID,
	O_COMMS,
	O_CPU,
	O_QUEUE_SIZE,
	O_JSON,
	O_SAMPLES,
	O_NO_SYMS,
	O_FILE_ORDER,
	O_NS,
	O_RELTIME,
	O_HIDE_CALLGRAPH,
	O_DUMP,
	O_HEADER,
	O_HEADER_ONLY,
	O_SHOW,
	O_BUILDID_DIR,
	O_HELP,
	O_NOOP, /* accepted; perfring always does it */
	O_NONE, /* perf has it, perfring does not */
};

#define ALWAYS_DEMANGLES "it always demangles C++ and Rust names"
#define ALWAYS_INLINES "it always shows inlined frames of DWARF stacks"

/* perf script's options (cli_perfopt: short, long, value, id, why).  The
 * O_NONE ones are perf 6.1's (builtin-script.c) that perfring has no
 * equivalent for: refused, and their negation (--no-NAME) is their
 * default, without them, which is what perfring does. */
static const struct cli_perfopt sopts[] = {
	{'i', "input", 1, O_INPUT, NULL},
	{'F', "fields", 1, O_FIELDS, NULL},
	{'s', "script", 1, O_SCRIPT, NULL},
	{'g', "gen-script", 1, O_GEN_SCRIPT, NULL},
	{'l', "list", 0, O_LIST, NULL},
	{0, "time", 1, O_TIME, NULL},
	{0, "tid", 1, O_TID, NULL},
	{0, "pid", 1, O_PID, NULL},
	{0, "comms", 1, O_COMMS, NULL},
	{'C', "cpu", 1, O_CPU, NULL},
	{0, "queue-size", 1, O_QUEUE_SIZE, NULL},
	{0, "json", 0, O_JSON, NULL},
	{0, "samples", 0, O_SAMPLES, NULL},
	{0, "no-symbols", 0, O_NO_SYMS, NULL},
	{0, "file-order", 0, O_FILE_ORDER, NULL},
	{0, "ns", 0, O_NS, NULL},
	{0, "reltime", 0, O_RELTIME, NULL},
	{'G', "hide-call-graph", 0, O_HIDE_CALLGRAPH, NULL},
	{'D', "dump-raw-trace", 0, O_DUMP, NULL},
	{0, "header", 0, O_HEADER, NULL},
	{0, "header-only", 0, O_HEADER_ONLY, NULL},
	{0, "show-task-events", 0, O_SHOW, NULL},
	{0, "show-mmap-events", 0, O_SHOW, NULL},
	{0, "show-switch-events", 0, O_SHOW, NULL},
	{0, "show-namespace-events", 0, O_SHOW, NULL},
	{0, "show-lost-events", 0, O_SHOW, NULL},
	{0, "show-round-events", 0, O_SHOW, NULL},
	{0, "show-bpf-events", 0, O_SHOW, NULL},
	{0, "show-cgroup-events", 0, O_SHOW, NULL},
	{0, "show-text-poke-events", 0, O_SHOW, NULL},
	{0, "show-all-events", 0, O_SHOW, NULL},
	{0, "buildid-dir", 1, O_BUILDID_DIR, NULL},
	{'h', "help", 0, O_HELP, NULL},
	{'f', "force", 0, O_NOOP, NULL}, /* perfring checks no owner */
	/* perf has them, perfring does not. */
	{0, "demangle", 0, O_NONE, ALWAYS_DEMANGLES},
	{0, "inline", 0, O_NONE, ALWAYS_INLINES},
	{0, "addr-range", 1, O_NONE, NULL},
	{0, "all-cpus", 0, O_NONE, NULL},
	{0, "call-ret-trace", 0, O_NONE, NULL},
	{0, "call-trace", 0, O_NONE, NULL},
	{0, "debug-mode", 0, O_NONE, NULL},
	{0, "deltatime", 0, O_NONE, NULL},
	{0, "demangle-kernel", 0, O_NONE, NULL},
	{0, "dlarg", 1, O_NONE, NULL},
	{0, "dlfilter", 1, O_NONE, NULL},
	{0, "dsos", 1, O_NONE, NULL},
	{0, "dump-unsorted-raw-trace", 0, O_NONE, NULL},
	{0, "full-source-path", 0, O_NONE, NULL},
	{0, "graph-function", 1, O_NONE, NULL},
	{0, "guest-code", 0, O_NONE, NULL},
	{0, "guestkallsyms", 1, O_NONE, NULL},
	{0, "guestmodules", 1, O_NONE, NULL},
	{0, "guestmount", 1, O_NONE, NULL},
	{0, "guestvmlinux", 1, O_NONE, NULL},
	{0, "insn-trace", 0, O_NONE, NULL},
	{0, "itrace", 2, O_NONE, NULL},
	{0, "kallsyms", 1, O_NONE, NULL},
	{0, "list-dlfilters", 0, O_NONE, NULL},
	{0, "max-blocks", 1, O_NONE, NULL},
	{0, "max-stack", 1, O_NONE, NULL},
	{0, "per-event-dump", 0, O_NONE, NULL},
	{0, "show-info", 0, O_NONE, NULL},
	{0, "show-kernel-path", 0, O_NONE, NULL},
	{0, "show-on-off-events", 0, O_NONE, NULL},
	{0, "stitch-lbr", 0, O_NONE, NULL},
	{0, "stop-bt", 1, O_NONE, NULL},
	{0, "switch-off", 1, O_NONE, NULL},
	{0, "switch-on", 1, O_NONE, NULL},
	{0, "symbols", 1, O_NONE, NULL},
	{0, "symfs", 1, O_NONE, NULL},
	{0, "verbose", 0, O_NONE, NULL},
	{0, "vmlinux", 1, O_NONE, NULL},
	{0, "xed", 0, O_NONE, NULL},
};

/* The records each --show-*-events adds (by its long name). */
static const struct {
	const char *name;
	unsigned show;
} cli_shows[] = {
	{"show-task-events", PFR_PERFDATA_SHOW_TASK},
	{"show-mmap-events", PFR_PERFDATA_SHOW_MMAP},
	{"show-switch-events", PFR_PERFDATA_SHOW_SWITCH},
	{"show-namespace-events", PFR_PERFDATA_SHOW_NAMESPACE},
	{"show-lost-events", PFR_PERFDATA_SHOW_LOST},
	{"show-round-events", PFR_PERFDATA_SHOW_ROUND},
	{"show-bpf-events", PFR_PERFDATA_SHOW_BPF},
	{"show-cgroup-events", PFR_PERFDATA_SHOW_CGROUP},
	{"show-text-poke-events", PFR_PERFDATA_SHOW_TEXT_POKE},
	{"show-all-events", ~0u},
};

static unsigned cli_show_bits(const char *name)
{
	for (size_t k = 0; k < sizeof(cli_shows) / sizeof(cli_shows[0]); k++)
		if (!strcmp(name, cli_shows[k].name))
			return cli_shows[k].show;
	return 0;
}

/* perf script's one-line refusal of an option perfring has none of. */
static int cli_no_equivalent(const char *spelled, const char *why)
{
	fprintf(stderr, "perfring script: %s: no equivalent in perfring%s%s\n",
		spelled, why ? "; " : "", why ? why : "");
	return -1;
}

/* An option with a value (one perfring checks as it comes).  0 or -1. */
static int cli_apply_value(struct cli_script *S, const struct cli_perfopt *o,
			   const char *v)
{
	switch (o->id) {
	case O_INPUT:
		S->in = v;
		return 0;
	case O_FIELDS:
		if (S->nfields_arg == 8)
			return cli_err("too many -F%s", "");
		S->fields_arg[S->nfields_arg++] = v;
		return 0;
	case O_SCRIPT:
	case O_GEN_SCRIPT:
		S->py_mode = o->id == O_SCRIPT ? 's' : 'g';
		S->py_what = v;
		return 0;
	case O_TIME:
		return cli_parse_time(S, v);
	case O_TID:
		return cli_parse_ids("--tid", v, &S->tids, &S->ntids);
	case O_PID:
		return cli_parse_ids("--pid", v, &S->pids, &S->npids);
	case O_COMMS:
		return cli_parse_comms(S, v);
	case O_CPU:
		return cli_parse_cpus(S, v);
	case O_QUEUE_SIZE:
		if (util_parse_u64(v, &S->queue_mib) || !S->queue_mib ||
		    S->queue_mib > (1ULL << 20))
			return cli_err("--queue-size '%s': MiB, 1 to 1048576",
				       v);
		return 0;
	case O_BUILDID_DIR:
		S->buildid_dir = v;
		return 0;
	}
	return cli_no_equivalent(o->l ? o->l : "?", o->why);
}

/* One option (v: its value, NULL for a flag).  0, 1 for --help, or -1. */
static int cli_opt_apply(void *arg, const struct cli_perfopt *o, const char *v,
			 const char *spelled)
{
	struct cli_script *S = arg;

	switch (o->id) {
	case O_LIST:
		S->py_mode = 'l';
		return 0;
	case O_JSON:
		S->flags |= CLI_OUT_JSON;
		return 0;
	case O_SAMPLES:
		S->samples_only = 1; /* text: the default, as in perf */
		return 0;
	case O_NO_SYMS:
		S->flags |= CLI_OUT_NO_SYMS;
		return 0;
	case O_FILE_ORDER:
		S->file_order = 1;
		return 0;
	case O_NS:
		S->style.ns = 1;
		return 0;
	case O_RELTIME:
		S->style.reltime = 1;
		return 0;
	case O_HIDE_CALLGRAPH:
		S->style.hide_callgraph = 1;
		return 0;
	case O_DUMP:
		S->dump = 1;
		return 0;
	case O_HEADER:
		S->header |= 1;
		return 0;
	case O_HEADER_ONLY:
		S->header |= 2;
		S->header_only = 1;
		return 0;
	case O_SHOW:
		S->style.show |= cli_show_bits(o->l);
		return 0;
	case O_HELP:
		return 1;
	case O_NOOP:
		return 0;
	case O_NONE:
		return cli_no_equivalent(spelled, o->why);
	}
	return cli_apply_value(S, o, v);
}

/*
 * perf's negation of an option, --no-NAME (or --NAME of --no-symbols):
 * the option back to its default; for one perfring has no equivalent of,
 * the default is "without it", what perfring does.  (perfring's own
 * --no-symbols is not perf's negation of its --symbols filter:
 * docs/script.md.)  0, or -1 with the one-line refusal.
 */
static int cli_opt_negate(void *arg, const struct cli_perfopt *o,
			  const char *spelled)
{
	struct cli_script *S = arg;

	switch (o->id) {
	case O_INPUT:
		S->in = "perf.data";
		return 0;
	case O_FIELDS:
		S->nfields_arg = 0;
		return 0;
	case O_TIME:
		S->ntimes = 0;
		return 0;
	case O_TID:
		S->ntids = 0;
		return 0;
	case O_PID:
		S->npids = 0;
		return 0;
	case O_COMMS:
		while (S->ncomms)
			free(S->comms[--S->ncomms]);
		return 0;
	case O_CPU:
		S->ncpus = 0;
		return 0;
	case O_QUEUE_SIZE:
		S->queue_mib = 64;
		return 0;
	case O_JSON:
		S->flags &= ~CLI_OUT_JSON;
		return 0;
	case O_SAMPLES:
		S->samples_only = 0;
		return 0;
	case O_NO_SYMS:
		S->flags &= ~CLI_OUT_NO_SYMS;
		return 0;
	case O_FILE_ORDER:
		S->file_order = 0;
		return 0;
	case O_NS:
		S->style.ns = 0;
		return 0;
	case O_RELTIME:
		S->style.reltime = 0;
		return 0;
	case O_HIDE_CALLGRAPH:
		S->style.hide_callgraph = 0;
		return 0;
	case O_DUMP:
		S->dump = 0;
		return 0;
	case O_HEADER:
		S->header &= ~1;
		return 0;
	case O_HEADER_ONLY:
		S->header &= ~2;
		S->header_only = 0;
		return 0;
	case O_SHOW:
		S->style.show &= ~cli_show_bits(o->l);
		return 0;
	case O_BUILDID_DIR:
		S->buildid_dir = NULL;
		return 0;
	case O_SCRIPT: /* perf's negations of these are no-ops */
	case O_GEN_SCRIPT:
	case O_LIST:
	case O_NOOP:
		return 0;
	case O_NONE: /* without it: what perfring does */
		return o->why ? cli_no_equivalent(spelled, o->why) : 0;
	}
	return cli_no_equivalent(spelled, NULL); /* --no-help */
}

/* The script's arguments: argv[i] on (perf stops at the first word that
 * is no option); 0, or -1 out of memory. */
static int cli_py_args(struct cli_script *S, int argc, char **argv, int i)
{
	S->py_args = calloc((size_t)(argc - i + 1), sizeof(*S->py_args));
	if (!S->py_args)
		return cli_err("out of memory%s", "");
	while (i < argc)
		S->py_args[S->npy_args++] = argv[i++];
	return 0;
}

int cli_script_opts(struct cli_script *S, int argc, char **argv)
{
	const struct cli_perfopt_cmd cmd = {
		"script",      sopts,	       sizeof(sopts) / sizeof(sopts[0]),
		cli_opt_apply, cli_opt_negate, S};
	int rest, dashdash, r;

	/* perf script report NAME [ARGS], record NAME [ARGS] */
	if (argc > 2 &&
	    (!strcmp(argv[1], "report") || !strcmp(argv[1], "record"))) {
		S->py_mode = argv[1][2] == 'p' ? 'p' : 'r';
		S->py_what = argv[2];
		return cli_py_args(S, argc, argv, 3);
	}
	r = cli_perfopt_parse(&cmd, argc, argv, &rest, &dashdash);
	if (r)
		return r == 1 ? 1 : -1;
	if ((dashdash || rest < argc) && cli_py_args(S, argc, argv, rest))
		return -1;
	if (S->dump && (S->flags & CLI_OUT_JSON))
		return cli_err("-D and --json: choose one%s", "");
	if (S->py_args && !S->py_mode) {
		util_usage_error("script", "unknown argument '%s'",
				 S->npy_args ? S->py_args[0] : "--");
		return -1;
	}
	if (S->py_mode && (S->dump || (S->flags & CLI_OUT_JSON)))
		return cli_err("-s, -g, -l: not with -D or --json%s", "");
	if (S->py_mode == 's' || S->py_mode == 'g') { /* samples, as JSON */
		S->flags |= CLI_OUT_JSON | CLI_OUT_JSON_PY;
		S->samples_only = 1;
		S->style.show =
			PFR_PERFDATA_SHOW_TASK; /* comm's times (db export) */
	}
	/* JSON Lines (perfring's own) carry every record unless told */
	if ((S->flags & CLI_OUT_JSON) && !S->style.show && !S->samples_only)
		S->style.show = CLI_SHOW_ALL;
	return 0;
}

void cli_script_opts_free(struct cli_script *S)
{
	for (int i = 0; i < S->ncomms; i++)
		free(S->comms[i]);
	free(S->comms);
	free(S->times);
	free(S->tids);
	free(S->pids);
	free(S->cpus);
	free(S->py_args);
	S->py_args = NULL;
	S->npy_args = 0;
	S->comms = NULL;
	S->times = NULL;
	S->tids = S->pids = NULL;
	S->cpus = NULL;
	S->ncomms = 0;
}
