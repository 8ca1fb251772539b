/* SPDX-License-Identifier: MIT */
/*
 * The kernel's perf ring from user space: event names, perf_event_open,
 * the mmap page and its data area, overwrite-mode snapshots.  The reader
 * itself is perfring's (<perfring/ring-proto.h>); the pairings with the
 * kernel are drawn in <perfring/perf.h>.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "abi/compat.h"
#include "ring/compiler.h"

/* The layout facts the reader relies on are the kernel's ABI. */
_Static_assert(offsetof(struct perf_event_mmap_page, data_head) == 1024,
	       "data_head at 1024");
_Static_assert(offsetof(struct perf_event_mmap_page, data_tail) == 1032,
	       "data_tail at 1032");
_Static_assert(offsetof(struct perf_event_mmap_page, data_offset) == 1040,
	       "data_offset at 1040");
_Static_assert(offsetof(struct perf_event_mmap_page, data_size) == 1048,
	       "data_size at 1048");
_Static_assert(sizeof(struct perf_event_header) ==
		       sizeof(struct pfr_record_header),
	       "perf header is perfring's record header");

const char *pfr_perf_strerror(int err)
{
	return pfr_strerror(err); /* it names both sets (src/abi/errors.c) */
}

/* --- event names --- */

struct pfr_perf_ev {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static const struct pfr_perf_ev pfr_perf_evs[] = {
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"context-switches", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"alignment-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_ALIGNMENT_FAULTS},
	{"emulation-faults", PERF_TYPE_SOFTWARE,
	 PERF_COUNT_SW_EMULATION_FAULTS},
	{"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-instructions", PERF_TYPE_HARDWARE,
	 PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};
#define PFR_PERF_NEVS (sizeof(pfr_perf_evs) / sizeof(pfr_perf_evs[0]))

const char *const *pfr_perf_event_names(void)
{
	static const char *names[PFR_PERF_NEVS + 1];

	if (!names[0])
		for (size_t i = 0; i < PFR_PERF_NEVS; i++)
			names[i] = pfr_perf_evs[i].name;
	return names;
}

void pfr_perf_attr_name(const struct perf_event_attr *attr, char *buf,
			size_t len)
{
	if (!buf || !len)
		return;
	if (!attr) {
		buf[0] = 0;
		return;
	}
	for (size_t i = 0; i < PFR_PERF_NEVS; i++)
		if (pfr_perf_evs[i].type == attr->type &&
		    pfr_perf_evs[i].config == attr->config) {
			snprintf(buf, len, "%s", pfr_perf_evs[i].name);
			return;
		}
	if (attr->type == PERF_TYPE_TRACEPOINT)
		snprintf(buf, len, "tracepoint %llu",
			 (unsigned long long)attr->config);
	else
		snprintf(buf, len, "raw 0x%x:0x%llx", attr->type,
			 (unsigned long long)attr->config);
}

static const char *pfr_perf_tracefs_env(void)
{
	const char *e = getenv("PFR_TRACEFS");

	return e && *e ? e : NULL;
}

static int pfr_perf_is_tracefs(const char *dir)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *pfr_perf_tracefs_path(void)
{
	const char *e = pfr_perf_tracefs_env();

	if (e)
		return e;
	if (pfr_perf_is_tracefs("/sys/kernel/debug/tracing") &&
	    !pfr_perf_is_tracefs("/sys/kernel/tracing"))
		return "/sys/kernel/debug/tracing";
	return "/sys/kernel/tracing";
}

/* Reads the tracepoint id of sys:name from tracefs. */
static int pfr_perf_tracepoint(const char *sys, const char *name, uint64_t *id,
			       int mount_tracefs)
{
	const char *dir = pfr_perf_tracefs_path();
	char p[512], buf[32];
	int fd;
	ssize_t n;

	if (strchr(sys, '/') || strchr(name, '/') || !*sys || !*name ||
	    strstr(sys, "..") || strstr(name, ".."))
		return -PFR_PERF_E_NO_TRACEPOINT;
	if (!pfr_perf_is_tracefs(dir)) {
		/* Not mounted: mount it when we may (root, and no test
		 * override). */
		if (!mount_tracefs || pfr_perf_tracefs_env() ||
		    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
			return -PFR_PERF_E_NO_TRACEFS;
		dir = "/sys/kernel/tracing";
		if (!pfr_perf_is_tracefs(dir))
			return -PFR_PERF_E_NO_TRACEFS;
	}
	snprintf(p, sizeof(p), "%s/events/%s/%s/id", dir, sys, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -PFR_PERF_E_NO_TRACEPOINT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -PFR_PERF_E_NO_TRACEPOINT;
	buf[n] = 0;
	*id = strtoull(buf, NULL, 10);
	return 0;
}

/*
 * Modifiers after ':' (perf's letters): u, k, h choose the privilege
 * levels counted (the first one excludes the others), G and H guest or
 * host, p precision (up to ppp), D pinned, e exclusive, I exclude idle.
 * Without any, perf excludes the guest.
 */
static int pfr_perf_modifiers(const char *m, struct perf_event_attr *a)
{
	int eu = a->exclude_user, ek = a->exclude_kernel, eh = a->exclude_hv;
	int eG = a->exclude_guest, eH = a->exclude_host;
	int excl = eu | ek | eh, excl_gh = 0, precise = a->precise_ip;

	for (; *m; m++) {
		switch (*m) {
		case 'u':
			if (!excl)
				excl = eu = ek = eh = 1;
			if (!excl_gh)
				eG = 1;
			eu = 0;
			break;
		case 'k':
			if (!excl)
				excl = eu = ek = eh = 1;
			ek = 0;
			break;
		case 'h':
			if (!excl)
				excl = eu = ek = eh = 1;
			eh = 0;
			break;
		case 'G':
			if (!excl_gh)
				excl_gh = eG = eH = 1;
			eG = 0;
			break;
		case 'H':
			if (!excl_gh)
				excl_gh = eG = eH = 1;
			eH = 0;
			break;
		case 'p':
			if (++precise > 3)
				return -1;
			if (!excl_gh) /* precision implies exclude_guest */
				eG = 1;
			break;
		case 'D':
			a->pinned = 1;
			break;
		case 'e':
			a->exclusive = 1;
			break;
		case 'I':
			a->exclude_idle = 1;
			break;
		default:
			return -1;
		}
	}
	a->exclude_user = (unsigned)eu;
	a->exclude_kernel = (unsigned)ek;
	a->exclude_hv = (unsigned)eh;
	a->exclude_guest = (unsigned)eG;
	a->exclude_host = (unsigned)eH;
	a->precise_ip = (unsigned)precise;
	return 0;
}

/* A number filling all of s: decimal, or hex after 0x, as perf's event
 * parser reads a term's value (010 is ten, not eight). */
static int pfr_perf_num(const char *s, uint64_t *v)
{
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	char *end;

	if (*s < '0' || *s > '9' || (hex && !isxdigit((unsigned char)s[2])))
		return -1;
	errno = 0;
	*v = strtoull(hex ? s + 2 : s, &end, hex ? 16 : 10);
	return errno || *end ? -1 : 0;
}

/* Sets bits of a PMU format ("config:0-7,21" or "config1:3") to v. */
static int pfr_perf_format_set(const char *fmt, uint64_t v,
			       struct perf_event_attr *a)
{
	__u64 *field;
	const char *p = strchr(fmt, ':');
	int bit = 0;

	if (!p)
		return -1;
	if (!strncmp(fmt, "config:", 7))
		field = &a->config;
	else if (!strncmp(fmt, "config1:", 8))
		field = &a->config1;
	else if (!strncmp(fmt, "config2:", 8))
		field = &a->config2;
	else
		return -1;
	for (p++; *p && *p != '\n';) {
		char *end;
		long lo = strtol(p, &end, 10), hi;

		if (end == p || lo < 0 || lo > 63)
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtol(p + 1, &end, 10);
			if (end == p + 1 || hi < lo || hi > 63)
				return -1;
			p = end;
		}
		for (long b = lo; b <= hi; b++, bit++)
			if (bit < 64 && ((v >> bit) & 1))
				*field |= 1ULL << b;
			else
				*field &= ~(1ULL << b);
		if (*p == ',')
			p++;
	}
	return bit < 64 && (v >> bit) ? -1 : 0;
}

static int pfr_perf_read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int pfr_perf_terms(const char *pmu, char *terms,
			  struct perf_event_attr *a,
			  struct pfr_perf_evinfo *info, int depth);

/* One term "key[=value]" of an event's /terms/. */
static int pfr_perf_term(const char *pmu, char *t, struct perf_event_attr *a,
			 struct pfr_perf_evinfo *info, int depth)
{
	char *eq = strchr(t, '='), p[512], buf[512];
	const char *val = eq ? eq + 1 : NULL;
	uint64_t v = 1;

	if (eq)
		*eq = 0;
	if (!*t)
		return -1;
	if (!strcmp(t, "name")) {
		if (!val || !*val)
			return -1;
		snprintf(info->name, sizeof(info->name), "%s", val);
		return 0;
	}
	if (!strcmp(t, "call-graph")) {
		if (!val)
			return -1;
		if (!strcmp(val, "fp"))
			info->terms |= PFR_PERF_TERM_CALLGRAPH_FP;
		else if (!strcmp(val, "no"))
			info->terms |= PFR_PERF_TERM_CALLGRAPH_NO;
		else
			return -1;
		return 0;
	}
	if (!strcmp(t, "inherit") || !strcmp(t, "no-inherit")) {
		if (val && (pfr_perf_num(val, &v) || v > 1))
			return -1;
		if (t[0] == 'n')
			v = !v;
		info->terms |=
			v ? PFR_PERF_TERM_INHERIT : PFR_PERF_TERM_NO_INHERIT;
		return 0;
	}
	if (val && pfr_perf_num(val, &v))
		return -1;
	if (!strcmp(t, "period")) {
		if (!val || !v)
			return -1;
		a->sample_period = v;
		a->freq = 0;
		info->terms |= PFR_PERF_TERM_PERIOD;
		return 0;
	}
	if (!strcmp(t, "freq")) {
		if (!val || !v)
			return -1;
		a->sample_freq = v;
		a->freq = 1;
		info->terms |= PFR_PERF_TERM_FREQ;
		return 0;
	}
	if (!strcmp(t, "time")) {
		info->terms |= v ? PFR_PERF_TERM_TIME : PFR_PERF_TERM_NO_TIME;
		return 0;
	}
	if (!strcmp(t, "config") || !strcmp(t, "config1") ||
	    !strcmp(t, "config2")) {
		if (!val)
			return -1;
		*(t[6] == '1'	? &a->config1
		  : t[6] == '2' ? &a->config2
				: &a->config) = v;
		return 0;
	}
	if (!pmu)
		return -1;
	/* The PMU's own formats ("event=0x3c"), then its named events. */
	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s/format/%s",
		 pmu, t);
	if (!pfr_perf_read_small(p, buf, sizeof(buf)))
		return pfr_perf_format_set(buf, v, a);
	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s/events/%s",
		 pmu, t);
	if (val || depth > 0 || strchr(t, '/') || strstr(t, "..") ||
	    pfr_perf_read_small(p, buf, sizeof(buf)))
		return -1;
	return pfr_perf_terms(pmu, buf, a, info, depth + 1);
}

static int pfr_perf_terms(const char *pmu, char *terms,
			  struct perf_event_attr *a,
			  struct pfr_perf_evinfo *info, int depth)
{
	char *save = NULL, *t;

	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save))
		if (pfr_perf_term(pmu, t, a, info, depth))
			return -1;
	return 0;
}

/* The PMU of that name: its type number, or -1. */
static int pfr_perf_pmu_type(const char *pmu, uint32_t *type)
{
	char p[512], buf[32];
	uint64_t v;

	if (!*pmu || strchr(pmu, '/') || strstr(pmu, ".."))
		return -1;
	snprintf(p, sizeof(p), "/sys/bus/event_source/devices/%s/type", pmu);
	if (pfr_perf_read_small(p, buf, sizeof(buf)) || pfr_perf_num(buf, &v) ||
	    v > UINT32_MAX)
		return -1;
	*type = (uint32_t)v;
	return 0;
}

/*
 * One event (no list, no group): NAME[/TERMS/][:MODS], PMU/TERMS/[:MODS],
 * rHEX[:MODS] or SYS:TRACEPOINT.
 */
static int pfr_perf_one(const char *spec, struct perf_event_attr *attr,
			struct pfr_perf_evinfo *info, int mount_tracefs)
{
	char base[256], terms[256], mods[32];
	const char *slash, *colon, *rest;
	size_t blen;
	int err;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	info->terms = 0;
	terms[0] = mods[0] = 0;
	if (strlen(spec) >= sizeof(info->name))
		return -PFR_PERF_E_EVENT_SYNTAX;
	memcpy(info->name, spec, strlen(spec) + 1);
	slash = strchr(spec, '/');
	colon = strchr(spec, ':');
	if (slash && (!colon || slash < colon)) {
		const char *close = strchr(slash + 1, '/');
		size_t tl;

		if (!close)
			return -PFR_PERF_E_EVENT_SYNTAX;
		tl = (size_t)(close - slash - 1);
		memcpy(terms, slash + 1, tl);
		terms[tl] = 0;
		blen = (size_t)(slash - spec);
		rest = close + 1;
		if (*rest && *rest != ':')
			return -PFR_PERF_E_EVENT_SYNTAX;
		colon = *rest ? rest : NULL;
	} else {
		blen = colon ? (size_t)(colon - spec) : strlen(spec);
	}
	memcpy(base, spec, blen);
	base[blen] = 0;
	if (colon && strlen(colon + 1) >= sizeof(mods))
		return -PFR_PERF_E_UNKNOWN_EVENT;
	if (colon)
		snprintf(mods, sizeof(mods), "%s", colon + 1);
	for (size_t i = 0; i < PFR_PERF_NEVS; i++) {
		if (strcmp(base, pfr_perf_evs[i].name))
			continue;
		attr->type = pfr_perf_evs[i].type;
		attr->config = pfr_perf_evs[i].config;
		goto common;
	}
	if (base[0] == 'r' && base[1] && !terms[0] &&
	    strspn(base + 1, "0123456789abcdefABCDEF") == strlen(base + 1)) {
		attr->type = PERF_TYPE_RAW;
		attr->config = strtoull(base + 1, NULL, 16);
		goto common;
	}
	if (slash && !pfr_perf_pmu_type(base, &attr->type)) {
		if (pfr_perf_terms(base, terms, attr, info, 0))
			return -PFR_PERF_E_EVENT_SYNTAX;
		terms[0] = 0;
		goto common;
	}
	if (!slash && colon && !strchr(colon + 1, ':')) {
		uint64_t id;

		err = pfr_perf_tracepoint(base, colon + 1, &id, mount_tracefs);
		if (err)
			return err;
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = id;
		attr->exclude_guest = 1;
		return 0;
	}
	return -PFR_PERF_E_UNKNOWN_EVENT;
common:
	if (terms[0] && pfr_perf_terms(NULL, terms, attr, info, 0))
		return -PFR_PERF_E_EVENT_SYNTAX;
	if (!mods[0])
		attr->exclude_guest = 1;
	else if (pfr_perf_modifiers(mods, attr))
		return -PFR_PERF_E_UNKNOWN_EVENT;
	return 0;
}

int pfr_perf_event_parse(const char *spec, struct perf_event_attr *attr,
			 char *name, size_t namelen, int mount_tracefs)
{
	struct pfr_perf_evinfo info;
	int err;

	if (!spec || !attr)
		return -PFR_E_INVAL;
	if (strpbrk(spec, ",{}"))
		return -PFR_PERF_E_EVENT_SYNTAX;
	err = pfr_perf_one(spec, attr, &info, mount_tracefs);
	if (!err && name)
		snprintf(name, namelen, "%s", info.name);
	return err;
}

/* Length of the next item of a list: up to a ',' outside {} and //. */
static size_t pfr_perf_item(const char *s, int *bad)
{
	size_t i = 0;
	int depth = 0, slash = 0;

	for (; s[i]; i++) {
		if (s[i] == '/')
			slash = !slash;
		else if (!slash && s[i] == '{')
			depth++;
		else if (!slash && s[i] == '}' && --depth < 0)
			break;
		else if (!slash && !depth && s[i] == ',')
			break;
	}
	*bad = depth != 0 || slash;
	return i;
}

int pfr_perf_event_list_parse(const char *list, struct perf_event_attr *attrs,
			      struct pfr_perf_evinfo *info, uint32_t max,
			      uint32_t *nr, int mount_tracefs)
{
	const char *s = list;
	uint32_t n;

	if (!nr || (max && (!attrs || !info)))
		return -PFR_E_INVAL;
	n = *nr;
	if (!list || !*list)
		return -PFR_PERF_E_EVENT_SYNTAX;
	while (*s) {
		int bad;
		size_t len = pfr_perf_item(s, &bad);
		char item[512];

		if (bad || !len || len >= sizeof(item))
			return -PFR_PERF_E_EVENT_SYNTAX;
		memcpy(item, s, len);
		item[len] = 0;
		s += len;
		if (*s == ',' && !*++s)
			return -PFR_PERF_E_EVENT_SYNTAX;
		if (item[0] == '{') {
			/* {a,b,...}[:mods]: a group led by its first event,
			 * the modifiers applying to every member. */
			char *close = strrchr(item, '}'), *m, *q;
			uint32_t leader = n;

			if (!close || close == item + 1 ||
			    (close[1] && close[1] != ':'))
				return -PFR_PERF_E_EVENT_SYNTAX;
			m = close[1] ? close + 2 : NULL;
			*close = 0;
			for (q = item + 1; *q;) {
				size_t l = pfr_perf_item(q, &bad);
				char one[512];
				int err;

				if (bad || !l || q[0] == '{')
					return -PFR_PERF_E_EVENT_SYNTAX;
				if (n >= max)
					return -PFR_PERF_E_TOO_MANY;
				memcpy(one, q, l);
				one[l] = 0;
				q += l;
				if (*q == ',' && !*++q)
					return -PFR_PERF_E_EVENT_SYNTAX;
				err = pfr_perf_one(one, &attrs[n], &info[n],
						   mount_tracefs);
				if (err)
					return err;
				if (m && *m && pfr_perf_modifiers(m, &attrs[n]))
					return -PFR_PERF_E_UNKNOWN_EVENT;
				info[n].leader = leader;
				info[n].nr_members = 0;
				n++;
			}
			info[leader].nr_members = n - leader;
			continue;
		}
		if (n >= max)
			return -PFR_PERF_E_TOO_MANY;
		{
			int err = pfr_perf_one(item, &attrs[n], &info[n],
					       mount_tracefs);

			if (err)
				return err;
		}
		info[n].leader = n;
		info[n].nr_members = 1;
		n++;
	}
	*nr = n;
	return 0;
}

int pfr_perf_cpu_list(const char *s, int *cpus, int max)
{
	int count = 0;

	if (!s || !*s || (!cpus && max > 0))
		return -PFR_E_INVAL;
	while (*s && *s != '\n') {
		char *end;
		long a, b;

		if (*s < '0' || *s > '9')
			return -PFR_E_INVAL;
		a = strtol(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			if (s[1] < '0' || s[1] > '9')
				return -PFR_E_INVAL;
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		if (a > 1 << 20 || b > 1 << 20 || b < a)
			return -PFR_E_INVAL;
		for (long c = a; c <= b; c++) {
			int dup = 0;

			for (int k = 0; k < count; k++)
				dup |= cpus[k] == (int)c;
			if (dup)
				continue;
			if (count == max)
				return -PFR_PERF_E_TOO_MANY;
			cpus[count++] = (int)c;
		}
		if (*s == ',' && s[1])
			s++;
		else if (*s && *s != '\n')
			return -PFR_E_INVAL;
	}
	return count;
}

int pfr_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		  int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int pfr_perf_online_cpus(int *cpus, int max)
{
	char buf[4096];
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int count;

	if (!cpus && max > 0) {
		if (fd >= 0)
			close(fd);
		return -PFR_E_INVAL;
	}
	if (fd < 0)
		return -PFR_E_SYSTEM;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -PFR_E_SYSTEM;
	buf[n] = 0;
	count = pfr_perf_cpu_list(buf, cpus, max);
	return count < 0 ? -PFR_E_SYSTEM : count;
}

/* --- the mmap ring --- */

int pfr_perf_ring_map(struct pfr_perf_ring *ring, int fd, int cpu,
		      uint32_t data_pages, int overwrite)
{
	long psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg;
	uint64_t off, size;
	void *base;
	int err;

	if (!ring)
		return -PFR_E_INVAL;
	memset(ring, 0, sizeof(*ring));
	ring->fd = fd;
	ring->cpu = cpu;
	if (!data_pages || (data_pages & (data_pages - 1)) || psz <= 0)
		return -PFR_E_INVAL;
	ring->map_len = ((size_t)data_pages + 1) * (size_t)psz;
	base = mmap(NULL, ring->map_len,
		    overwrite ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	if (base == MAP_FAILED)
		return -PFR_E_SYSTEM;
	ring->base = base;
	ring->page = pg = (struct perf_event_mmap_page *)base;
	ring->overwrite = overwrite;
	/* Kernels before 4.1 leave data_offset/data_size zero: the data area
	 * then starts at the second page and fills the rest. */
	off = PFR_READ_ONCE(pg->data_offset);
	size = PFR_READ_ONCE(pg->data_size);
	if (!off && !size) {
		off = (uint64_t)psz;
		size = (uint64_t)data_pages * (uint64_t)psz;
	}
	if (off < sizeof(*pg) || size < 8 || (size & (size - 1)) ||
	    off > ring->map_len || size > ring->map_len - off) {
		pfr_perf_ring_unmap(ring);
		return -PFR_E_LAYOUT;
	}
	ring->data_size = size;
	ring->scratch = malloc(PFR_RECORD_MAX + 8);
	if (!ring->scratch) {
		pfr_perf_ring_unmap(ring);
		return -PFR_E_SYSTEM;
	}
	if (overwrite) {
		/* read by pfr_perf_ring_snapshot() only, over the data area
		 * found here: data_offset is not loaded (nor trusted) again */
		ring->reader.data = (unsigned char *)base + off;
		return 0;
	}
	/* __u64 is unsigned long long, uint64_t unsigned long: same
	 * object, another spelling of the type. */
	err = pfr_reader_init(
		&ring->reader, (const uint64_t *)(void *)&pg->data_head,
		(uint64_t *)(void *)&pg->data_tail, (unsigned char *)base + off,
		size, PFR_ORDER_ACQREL, 0, ring->scratch);
	if (err) {
		pfr_perf_ring_unmap(ring);
		return err;
	}
	return 0;
}

void pfr_perf_ring_unmap(struct pfr_perf_ring *ring)
{
	if (!ring)
		return;
	if (ring->base)
		munmap(ring->base, ring->map_len);
	free(ring->scratch);
	ring->base = NULL;
	ring->page = NULL;
	ring->scratch = NULL;
}

/* pfr_perf_ring_snapshot() as of PERFRING_0.3: the callback stop rule
 * of docs/api.md (fn's negative value returned, after the output is
 * resumed); src/abi/compat.c serves 0.1's, where any nonzero value
 * stopped with the count returned. */
int64_t pfr__perf_ring_snapshot_v03(struct pfr_perf_ring *ring,
				    int (*fn)(void *arg,
					      const struct pfr_record *rec),
				    void *arg)
{
	struct perf_event_mmap_page *pg = ring ? ring->page : NULL;
	struct pfr_reader rd;
	struct pfr_record rec;
	uint64_t head, start, end, written;
	int64_t n = 0;
	int err;

	if (!pg || !fn || !ring->overwrite)
		return -PFR_E_INVAL;
	if (ioctl(ring->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1))
		return -PFR_E_SYSTEM;
	/* C: pairs with the kernel's smp_wmb() (B) in
	 * perf_output_put_handle(); the pause above also stopped it. */
	head = pfr_smp_load_acquire((uint64_t *)(void *)&pg->data_head);
	/* Backward ring: head counts down from 0; the newest record is at
	 * head and the records run forward from there to the oldest.  Before
	 * the first wrap only 0 - head bytes were ever written. */
	written = (uint64_t)0 - head;
	start = head;
	end = head + (written < ring->data_size ? written : ring->data_size);
	/* A private (head, tail) pair over the shared data lets the one
	 * reader walk it; its "tail" store goes to our local copy. */
	err = pfr_reader_init(&rd, &end, &start, ring->reader.data,
			      ring->data_size, PFR_ORDER_ACQREL, 0,
			      ring->scratch);
	if (!err && pfr_reader_begin_unpaced(&rd) >= 0) {
		while (pfr_reader_next(&rd, &rec) == 1) {
			int stop = fn(arg, &rec);

			n++;
			if (stop) {
				if (stop < 0)
					n = stop; /* fn's error */
				break;
			}
		}
		/* A negative result is the record the oldest edge cut. */
	}
	ring->snap_head = head;
	if (ioctl(ring->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0))
		return -PFR_E_SYSTEM;
	return err ? err : n;
}
PFR__SYMVER_DEFAULT(pfr__perf_ring_snapshot_v03, pfr_perf_ring_snapshot,
		    "PERFRING_0.3");
