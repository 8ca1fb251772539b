/* SPDX-License-Identifier: MIT */
/*
 * The perf.data header features that describe the machine a recording was
 * made on, laid out as the kernel's
 * tools/perf/Documentation/perf.data-file-format.txt describes them and
 * filled from /proc and /sys: CPU description and id, CPU counts and
 * topology, memory size and NUMA nodes, memory blocks, caches, the PMUs'
 * type numbers and capabilities.  perf report --header-only prints them;
 * some perf commands need them (perf data convert reads CPUID).
 */
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "perf/perf_header.h"

#define PFR_SYS_CPU "/sys/devices/system/cpu"
#define PFR_SYS_NODE "/sys/devices/system/node"
#define PFR_SYS_PMU "/sys/bus/event_source/devices"
#define PFR_MAX_CPUS 4096

void pfr__put_u32(FILE *o, uint32_t v)
{
	fwrite(&v, 4, 1, o);
}

void pfr__put_u64(FILE *o, uint64_t v)
{
	fwrite(&v, 8, 1, o);
}

void pfr__put_string(FILE *o, const char *s)
{
	static const char zero[64];
	uint32_t l = (uint32_t)strlen(s) + 1;
	uint32_t padded = (l + 63) & ~63u;

	pfr__put_u32(o, padded);
	fwrite(s, l, 1, o);
	if (padded > l)
		fwrite(zero, padded - l, 1, o);
}

/* The first line of a small file, without its newline; 0 or -1. */
static int pfr_read_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int pfr_read_long(const char *path, long *v)
{
	char b[64], *end;

	if (pfr_read_line(path, b, sizeof(b)) || !b[0])
		return -1;
	*v = strtol(b, &end, 0);
	return end == b ? -1 : 0;
}

/* A cpu list ("0-3,8") into a bitmap of max bits; the highest set, or -1
 * when the list is empty or malformed. */
static int pfr_list_bits(const char *s, unsigned char *bits, int max)
{
	int hi = -1;

	memset(bits, 0, (size_t)(max + 7) / 8);
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b;

		if (end == s || a < 0)
			return -1;
		b = a;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -1;
			s = end;
		}
		for (long c = a; c <= b && c < max; c++) {
			bits[c / 8] |= (unsigned char)(1u << (c % 8));
			hi = (int)c;
		}
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return hi;
}

static unsigned char pfr_online[PFR_MAX_CPUS / 8];

/* Online CPUs (bitmap in pfr_online) and nr_cpus_avail, the highest
 * present CPU + 1 (perf's count); 0 or -1. */
static int pfr_cpus(int *nr_avail, int *nr_online)
{
	unsigned char present[PFR_MAX_CPUS / 8];
	char b[4096];
	int hi, n = 0;

	if (pfr_read_line(PFR_SYS_CPU "/present", b, sizeof(b)) ||
	    (hi = pfr_list_bits(b, present, PFR_MAX_CPUS)) < 0)
		return -1;
	if (pfr_read_line(PFR_SYS_CPU "/online", b, sizeof(b)) ||
	    pfr_list_bits(b, pfr_online, PFR_MAX_CPUS) < 0)
		return -1;
	for (int c = 0; c < PFR_MAX_CPUS; c++)
		n += (pfr_online[c / 8] >> (c % 8)) & 1;
	*nr_avail = hi + 1;
	*nr_online = n;
	return 0;
}

static int pfr_is_online(int c)
{
	return c < PFR_MAX_CPUS && ((pfr_online[c / 8] >> (c % 8)) & 1);
}

int pfr__feat_nrcpus(FILE *o)
{
	int avail, online;

	if (pfr_cpus(&avail, &online))
		return -1;
	pfr__put_u32(o, (uint32_t)avail);
	pfr__put_u32(o, (uint32_t)online);
	return 0;
}

/* The value of the first /proc/cpuinfo line whose key is one of keys,
 * runs of blanks squashed to one space. */
static int pfr_cpuinfo(const char *const *keys, char *out, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *p, *q;
		size_t kl;

		if (!colon)
			continue;
		for (kl = (size_t)(colon - line);
		     kl && (line[kl - 1] == ' ' || line[kl - 1] == '\t'); kl--)
			;
		for (int k = 0; keys[k] && found; k++) {
			if (strlen(keys[k]) != kl || memcmp(line, keys[k], kl))
				continue;
			p = colon + 1;
			q = out;
			while (*p == ' ' || *p == '\t')
				p++;
			for (; *p && *p != '\n' && q + 1 < out + len; p++) {
				int blank = *p == ' ' || *p == '\t';

				if (blank && (p[1] == ' ' || p[1] == '\t' ||
					      p[1] == '\n' || !p[1]))
					continue;
				*q++ = blank ? ' ' : *p;
			}
			*q = 0;
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int pfr__feat_cpudesc(FILE *o)
{
	/* The keys perf looks for on each architecture. */
	static const char *const keys[] = {
		"model name", "Processor", "cpu model", "cpu",
		"uarch",      "isa",	   NULL};
	char d[512];

	if (pfr_cpuinfo(keys, d, sizeof(d)) || !d[0])
		return -1;
	pfr__put_string(o, d);
	return 0;
}

int pfr__feat_cpuid(FILE *o)
{
	char s[128];
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d, family, model;
	char vendor[13];

	if (!__get_cpuid(0, &a, &b, &c, &d))
		return -1;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return -1;
	/* perf's "vendor,family,model,stepping", with the extended family
	 * and model folded in. */
	family = (a >> 8) & 0xf;
	model = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 0x6)
		model += ((a >> 16) & 0xf) << 4;
	snprintf(s, sizeof(s), "%s,%u,%u,%u", vendor, family, model, a & 0xf);
#elif defined(__aarch64__)
	char m[64];
	unsigned long long v;

	/* perf's form: MIDR_EL1 of the first CPU, in 16 hex digits. */
	if (pfr_read_line(PFR_SYS_CPU "/cpu0/regs/identification/midr_el1", m,
			  sizeof(m)))
		return -1;
	v = strtoull(m, NULL, 0);
	snprintf(s, sizeof(s), "0x%016llx", v);
#else
	(void)s;
	return -1;
#endif
	pfr__put_string(o, s);
	return 0;
}

/* A "Key: N kB" line of a meminfo file, in kB. */
static int pfr_meminfo(const char *path, const char *key, uint64_t *kb)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);

		if (k && k[strlen(key)] == ':') {
			*kb = strtoull(k + strlen(key) + 1, NULL, 10);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

int pfr__feat_total_mem(FILE *o)
{
	uint64_t kb;

	if (pfr_meminfo("/proc/meminfo", "MemTotal", &kb))
		return -1;
	pfr__put_u64(o, kb);
	return 0;
}

/* Distinct strings, in first-seen order. */
struct pfr_strset {
	char **s;
	uint32_t n;
};

static int pfr_strset_add(struct pfr_strset *set, const char *s)
{
	char **n;

	for (uint32_t i = 0; i < set->n; i++)
		if (!strcmp(set->s[i], s))
			return 0;
	n = realloc(set->s, (set->n + 1) * sizeof(*n));
	if (!n)
		return -1;
	set->s = n;
	if (!(set->s[set->n] = strdup(s)))
		return -1;
	set->n++;
	return 0;
}

static void pfr_strset_free(struct pfr_strset *set)
{
	for (uint32_t i = 0; i < set->n; i++)
		free(set->s[i]);
	free(set->s);
	set->s = NULL;
	set->n = 0;
}

static void pfr_strset_put(FILE *o, struct pfr_strset *set)
{
	pfr__put_u32(o, set->n);
	for (uint32_t i = 0; i < set->n; i++)
		pfr__put_string(o, set->s[i]);
	pfr_strset_free(set);
}

/* A topology file of cpu c: the first of two names that exists. */
static int pfr_topo(int c, const char *name, const char *old, char *b,
		    size_t len)
{
	char p[128];

	snprintf(p, sizeof(p), PFR_SYS_CPU "/cpu%d/topology/%s", c, name);
	if (!pfr_read_line(p, b, len))
		return 0;
	if (!old)
		return -1;
	snprintf(p, sizeof(p), PFR_SYS_CPU "/cpu%d/topology/%s", c, old);
	return pfr_read_line(p, b, len);
}

static int32_t pfr_topo_id(int c, const char *name)
{
	char p[128];
	long v;

	snprintf(p, sizeof(p), PFR_SYS_CPU "/cpu%d/topology/%s", c, name);
	return pfr_read_long(p, &v) ? -1 : (int32_t)v;
}

/*
 * CPU_TOPOLOGY: the distinct package ("sibling sockets") and core
 * ("sibling threads") cpu lists of the online CPUs, each CPU's core and
 * socket id (-1 for one offline), then the distinct die lists and each
 * CPU's die id.
 */
int pfr__feat_cpu_topology(FILE *o)
{
	struct pfr_strset pkg = {0, 0}, core = {0, 0}, die = {0, 0};
	char b[4096];
	int avail, online, err = 0;

	if (pfr_cpus(&avail, &online))
		return -1;
	for (int c = 0; c < avail && !err; c++) {
		if (!pfr_is_online(c))
			continue;
		if (pfr_topo(c, "package_cpus_list", "core_siblings_list", b,
			     sizeof(b)) ||
		    pfr_strset_add(&pkg, b) ||
		    pfr_topo(c, "core_cpus_list", "thread_siblings_list", b,
			     sizeof(b)) ||
		    pfr_strset_add(&core, b))
			err = -1;
		else if (!pfr_topo(c, "die_cpus_list", NULL, b, sizeof(b)) &&
			 pfr_strset_add(&die, b))
			err = -1;
	}
	if (err || !pkg.n) {
		pfr_strset_free(&pkg);
		pfr_strset_free(&core);
		pfr_strset_free(&die);
		return -1;
	}
	pfr_strset_put(o, &pkg);
	pfr_strset_put(o, &core);
	for (int c = 0; c < avail; c++) {
		int on = pfr_is_online(c);

		pfr__put_u32(o,
			     (uint32_t)(on ? pfr_topo_id(c, "core_id") : -1));
		pfr__put_u32(
			o, (uint32_t)(on ? pfr_topo_id(c, "physical_package_id")
					 : -1));
	}
	if (die.n) {
		pfr_strset_put(o, &die);
		for (int c = 0; c < avail; c++)
			pfr__put_u32(
				o, (uint32_t)(pfr_is_online(c)
						      ? pfr_topo_id(c, "die_id")
						      : -1));
	}
	return 0;
}

/*
 * NUMA_TOPOLOGY: for each online node, its number, total and free memory
 * (kB) and its cpu list.
 */
int pfr__feat_numa_topology(FILE *o)
{
	unsigned char nodes[1024 / 8];
	char b[4096], p[128];
	int hi;
	uint32_t nr = 0;

	if (pfr_read_line(PFR_SYS_NODE "/online", b, sizeof(b)) ||
	    (hi = pfr_list_bits(b, nodes, 1024)) < 0)
		return -1;
	for (int n = 0; n <= hi; n++)
		nr += (nodes[n / 8] >> (n % 8)) & 1;
	pfr__put_u32(o, nr);
	for (int n = 0; n <= hi; n++) {
		uint64_t total = 0, free_kb = 0;

		if (!((nodes[n / 8] >> (n % 8)) & 1))
			continue;
		snprintf(p, sizeof(p), PFR_SYS_NODE "/node%d/meminfo", n);
		if (pfr_meminfo(p, "MemTotal", &total) ||
		    pfr_meminfo(p, "MemFree", &free_kb))
			return -1;
		snprintf(p, sizeof(p), PFR_SYS_NODE "/node%d/cpulist", n);
		if (pfr_read_line(p, b, sizeof(b)))
			return -1;
		pfr__put_u32(o, (uint32_t)n);
		pfr__put_u64(o, total);
		pfr__put_u64(o, free_kb);
		pfr__put_string(o, b);
	}
	return 0;
}

/* PMU_MAPPINGS: each PMU's type number and name. */
int pfr__feat_pmu_mappings(FILE *o)
{
	DIR *d = opendir(PFR_SYS_PMU);
	struct dirent *de;
	char p[512];
	long type;
	uint32_t nr = 0;

	if (!d)
		return -1;
	/* Twice over the directory: the count goes first. */
	for (int pass = 0; pass < 2; pass++) {
		rewinddir(d);
		if (pass)
			pfr__put_u32(o, nr);
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), PFR_SYS_PMU "/%s/type",
				 de->d_name);
			if (pfr_read_long(p, &type))
				continue;
			if (!pass) {
				nr++;
				continue;
			}
			if (!nr)
				break;
			nr--;
			pfr__put_u32(o, (uint32_t)type);
			pfr__put_string(o, de->d_name);
		}
	}
	closedir(d);
	return nr ? -1 : 0; /* the directory changed between passes */
}

struct pfr_cache {
	uint32_t level, line, sets, ways;
	char type[32], size[32], map[256];
};

static int pfr_cache_cmp(const void *a, const void *b)
{
	const struct pfr_cache *x = a, *y = b;

	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	return strcmp(x->type, y->type);
}

/*
 * CACHE: version 1, then the distinct caches of the online CPUs (level,
 * line size, sets, ways, type, size and the cpus sharing it), by level.
 * A machine that shows none (some virtual machines) gets an empty list,
 * as perf writes it.
 */
int pfr__feat_cache(FILE *o)
{
	struct pfr_cache *c = NULL;
	uint32_t n = 0;
	int avail, online;

	if (pfr_cpus(&avail, &online))
		return -1;
	for (int cpu = 0; cpu < avail; cpu++) {
		if (!pfr_is_online(cpu))
			continue;
		for (int i = 0; i < 32; i++) {
			struct pfr_cache e;
			char p[160];
			long v;
			uint32_t k;

			memset(&e, 0, sizeof(e));
#define PFR_IDX(f)                                                             \
	snprintf(p, sizeof(p), PFR_SYS_CPU "/cpu%d/cache/index%d/" f, cpu, i)
			PFR_IDX("level");
			if (pfr_read_long(p, &v))
				break;
			e.level = (uint32_t)v;
			PFR_IDX("coherency_line_size");
			e.line = pfr_read_long(p, &v) ? 0 : (uint32_t)v;
			PFR_IDX("number_of_sets");
			e.sets = pfr_read_long(p, &v) ? 0 : (uint32_t)v;
			PFR_IDX("ways_of_associativity");
			e.ways = pfr_read_long(p, &v) ? 0 : (uint32_t)v;
			PFR_IDX("type");
			pfr_read_line(p, e.type, sizeof(e.type));
			PFR_IDX("size");
			pfr_read_line(p, e.size, sizeof(e.size));
			PFR_IDX("shared_cpu_list");
			pfr_read_line(p, e.map, sizeof(e.map));
#undef PFR_IDX
			for (k = 0; k < n; k++)
				if (c[k].level == e.level &&
				    !strcmp(c[k].type, e.type) &&
				    !strcmp(c[k].map, e.map))
					break;
			if (k < n)
				continue;
			{
				struct pfr_cache *nc =
					realloc(c, (n + 1) * sizeof(*c));

				if (!nc) {
					free(c);
					return -1;
				}
				c = nc;
				c[n++] = e;
			}
		}
	}
	if (n)
		qsort(c, n, sizeof(*c), pfr_cache_cmp);
	pfr__put_u32(o, 1);
	pfr__put_u32(o, n);
	for (uint32_t k = 0; k < n; k++) {
		pfr__put_u32(o, c[k].level);
		pfr__put_u32(o, c[k].line);
		pfr__put_u32(o, c[k].sets);
		pfr__put_u32(o, c[k].ways);
		pfr__put_string(o, c[k].type);
		pfr__put_string(o, c[k].size);
		pfr__put_string(o, c[k].map);
	}
	free(c);
	return 0;
}

/*
 * MEM_TOPOLOGY: version 1, the memory block size, then per online node
 * its number and a bitmap of its memory blocks (memoryN entries of the
 * node's directory), the bitmap preceded by its length in bits.
 */
int pfr__feat_mem_topology(FILE *o)
{
	unsigned char nodes[1024 / 8];
	char b[4096], p[128];
	long bsize;
	int hi;
	uint32_t nr = 0;

	if (pfr_read_line("/sys/devices/system/memory/block_size_bytes", b,
			  sizeof(b)))
		return -1;
	bsize = strtol(b, NULL, 16);
	if (bsize <= 0 || pfr_read_line(PFR_SYS_NODE "/online", b, sizeof(b)) ||
	    (hi = pfr_list_bits(b, nodes, 1024)) < 0)
		return -1;
	for (int n = 0; n <= hi; n++)
		nr += (nodes[n / 8] >> (n % 8)) & 1;
	pfr__put_u64(o, 1);
	pfr__put_u64(o, (uint64_t)bsize);
	pfr__put_u64(o, nr);
	for (int n = 0; n <= hi; n++) {
		DIR *d;
		struct dirent *de;
		uint64_t *set = NULL, bits = 0, words;

		if (!((nodes[n / 8] >> (n % 8)) & 1))
			continue;
		snprintf(p, sizeof(p), PFR_SYS_NODE "/node%d", n);
		d = opendir(p);
		if (!d)
			return -1;
		/* Twice: the highest block sizes the bitmap. */
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "memory", 6) &&
			    de->d_name[6] >= '0' && de->d_name[6] <= '9') {
				uint64_t m = strtoull(de->d_name + 6, NULL, 10);

				if (m + 1 > bits)
					bits = m + 1;
			}
		words = (bits + 63) / 64;
		if (bits > (1ULL << 24) ||
		    !(set = calloc(words ? words : 1, 8))) {
			closedir(d);
			return -1;
		}
		rewinddir(d);
		while ((de = readdir(d)))
			if (!strncmp(de->d_name, "memory", 6) &&
			    de->d_name[6] >= '0' && de->d_name[6] <= '9') {
				uint64_t m = strtoull(de->d_name + 6, NULL, 10);

				if (m < bits)
					set[m / 64] |= 1ULL << (m % 64);
			}
		closedir(d);
		pfr__put_u64(o, (uint64_t)n);
		pfr__put_u64(o, bits);
		pfr__put_u64(o, bits);
		if (words)
			fwrite(set, 8, words, o);
		free(set);
	}
	return 0;
}

/* A PMU's capabilities (the files in its caps/ directory): the count,
 * then name and value of each.  -1 when it has none. */
static int pfr_put_caps(FILE *o, const char *pmu, int count_only)
{
	char p[512], v[512];
	DIR *d;
	struct dirent *de;
	uint32_t n = 0;

	snprintf(p, sizeof(p), PFR_SYS_PMU "/%s/caps", pmu);
	d = opendir(p);
	if (!d)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		rewinddir(d);
		if (pass && !count_only)
			pfr__put_u32(o, n);
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), PFR_SYS_PMU "/%s/caps/%s", pmu,
				 de->d_name);
			if (pfr_read_line(p, v, sizeof(v)))
				continue;
			if (!pass) {
				n++;
			} else if (!count_only) {
				pfr__put_string(o, de->d_name);
				pfr__put_string(o, v);
			}
		}
		if (count_only)
			break;
	}
	closedir(d);
	return n ? 0 : -1;
}

/* CPU_PMU_CAPS: the core PMU's capabilities (a machine without one, such
 * as a virtual machine that exposes no counters, has no such feature). */
int pfr__feat_cpu_pmu_caps(FILE *o)
{
	if (pfr_put_caps(NULL, "cpu", 1))
		return -1;
	return pfr_put_caps(o, "cpu", 0);
}

/* PMU_CAPS: every other PMU with capabilities: its caps, then its name. */
int pfr__feat_pmu_caps(FILE *o)
{
	DIR *d = opendir(PFR_SYS_PMU);
	struct dirent *de;
	uint32_t nr = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "cpu") &&
		    !pfr_put_caps(NULL, de->d_name, 1))
			nr++;
	pfr__put_u32(o, nr);
	rewinddir(d);
	while (nr && (de = readdir(d)))
		if (de->d_name[0] != '.' && strcmp(de->d_name, "cpu") &&
		    !pfr_put_caps(NULL, de->d_name, 1)) {
			pfr_put_caps(o, de->d_name, 0);
			pfr__put_string(o, de->d_name);
			nr--;
		}
	closedir(d);
	return 0;
}

/* --- build ids --- */

size_t pfr__notes_build_id(const unsigned char *p, size_t n, int swap,
			   unsigned char id[20])
{
	size_t o = 0;

	while (n - o >= 12) {
		uint32_t nsz, dsz, type;
		size_t nal, dal;

		memcpy(&nsz, p + o, 4);
		memcpy(&dsz, p + o + 4, 4);
		memcpy(&type, p + o + 8, 4);
		if (swap) {
			nsz = __builtin_bswap32(nsz);
			dsz = __builtin_bswap32(dsz);
			type = __builtin_bswap32(type);
		}
		o += 12;
		nal = ((size_t)nsz + 3) & ~(size_t)3;
		dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nal > n - o || dal > n - o - nal)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 &&
		    !memcmp(p + o, "GNU", 4) && dsz >= 1 && dsz <= 20) {
			memcpy(id, p + o + nal, dsz);
			return dsz;
		}
		o += nal + dal;
	}
	return 0;
}

size_t pfr__elf_build_id(const unsigned char *m, size_t len,
			 unsigned char id[20])
{
	Elf64_Ehdr eh;
	size_t got = 0;

	if (len < sizeof(eh))
		return 0;
	memcpy(&eh, m, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > len ||
	    (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > len - eh.e_phoff)
		return 0;
	for (int i = 0; i < eh.e_phnum && !got; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, m + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE && ph.p_offset <= len &&
		    ph.p_filesz <= len - ph.p_offset)
			got = pfr__notes_build_id(m + ph.p_offset, ph.p_filesz,
						  0, id);
	}
	return got;
}

size_t pfr__vdso_build_id(unsigned char id[20])
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	FILE *f;
	char line[256];
	size_t len = 0;

	if (!base)
		return 0;
	/* The mapping's length, from our own maps. */
	f = fopen("/proc/self/maps", "r");
	while (f && !len && fgets(line, sizeof(line), f)) {
		unsigned long s, e;

		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &s, &e) == 2 && s == base && e > s)
			len = e - s;
	}
	if (f)
		fclose(f);
	if (!len)
		return 0;
	return pfr__elf_build_id((const unsigned char *)base, len, id);
}
