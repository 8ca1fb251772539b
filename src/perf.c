/* SPDX-License-Identifier: MIT */
/*
 * The kernel's perf ring from user space: event names, perf_event_open,
 * the mmap page and its data area, overwrite-mode snapshots.  The reader
 * itself is perfring's (<perfring/ring-proto.h>); the pairings with the
 * kernel are drawn in <perfring/perf.h>.
 */
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

#include "compiler.h"

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

static const char *const pfr_perf_errors[] = {
	[PFR_PERF_E_UNKNOWN_EVENT - PFR_PERF_E_BASE] = "unknown event",
	[PFR_PERF_E_NO_TRACEFS - PFR_PERF_E_BASE] = "tracefs is not mounted",
	[PFR_PERF_E_NO_TRACEPOINT - PFR_PERF_E_BASE] = "no such tracepoint",
	[PFR_PERF_E_SAMPLE_TYPE - PFR_PERF_E_BASE] =
		"sample_type has fields this decoder does not support",
	[PFR_PERF_E_TRUNCATED - PFR_PERF_E_BASE] =
		"a field runs past the end of its record",
	[PFR_PERF_E_STRING - PFR_PERF_E_BASE] =
		"a string is not terminated inside its record",
	[PFR_PERF_E_FILE_MAGIC - PFR_PERF_E_BASE] =
		"not a perf.data file (bad magic, or another byte order)",
	[PFR_PERF_E_FILE_LAYOUT - PFR_PERF_E_BASE] =
		"perf.data header or section out of bounds",
};

const char *pfr_perf_strerror(int err)
{
	/* The magnitude in unsigned arithmetic: -INT_MIN does not fit an
	 * int. */
	unsigned int e = err < 0 ? 0u - (unsigned int)err : (unsigned int)err;

	if (e >= PFR_PERF_E_BASE && e < PFR_PERF_E__END)
		return pfr_perf_errors[e - PFR_PERF_E_BASE];
	return pfr_strerror(err);
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

int pfr_perf_event_parse(const char *spec, struct perf_event_attr *attr,
			 char *name, size_t namelen, int mount_tracefs)
{
	char base[256];
	const char *colon;
	size_t blen;

	if (!spec || !attr || strlen(spec) >= sizeof(base))
		return -PFR_E_INVAL;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	colon = strchr(spec, ':');
	blen = colon ? (size_t)(colon - spec) : strlen(spec);
	memcpy(base, spec, blen);
	base[blen] = 0;
	for (size_t i = 0; i < PFR_PERF_NEVS; i++) {
		if (strcmp(base, pfr_perf_evs[i].name))
			continue;
		if (colon && strcmp(colon, ":u") && strcmp(colon, ":k"))
			return -PFR_PERF_E_UNKNOWN_EVENT;
		attr->type = pfr_perf_evs[i].type;
		attr->config = pfr_perf_evs[i].config;
		if (colon && colon[1] == 'u')
			attr->exclude_kernel = attr->exclude_hv = 1;
		if (colon && colon[1] == 'k')
			attr->exclude_user = 1;
		if (name)
			snprintf(name, namelen, "%s", spec);
		return 0;
	}
	if (colon && !strchr(colon + 1, ':')) {
		uint64_t id;
		int err = pfr_perf_tracepoint(base, colon + 1, &id,
					      mount_tracefs);

		if (err)
			return err;
		attr->type = PERF_TYPE_TRACEPOINT;
		attr->config = id;
		if (name)
			snprintf(name, namelen, "%s", spec);
		return 0;
	}
	return -PFR_PERF_E_UNKNOWN_EVENT;
}

int pfr_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		  int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

int pfr_perf_online_cpus(int *cpus, int max)
{
	char buf[4096], *p = buf;
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int count = 0;

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
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p)
			return -PFR_E_SYSTEM;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			p = end;
		}
		for (long c = a; c <= b; c++)
			if (count < max)
				cpus[count++] = (int)c;
		if (*p == ',')
			p++;
	}
	return count;
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

int64_t pfr_perf_ring_snapshot(struct pfr_perf_ring *ring,
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

	if (!pg || !ring->overwrite)
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
	if (!err && pfr_reader_begin(&rd) >= 0) {
		while (pfr_reader_next(&rd, &rec) == 1) {
			n++;
			if (fn && fn(arg, &rec))
				break;
		}
		/* A negative result is the record the oldest edge cut. */
	}
	ring->snap_head = head;
	if (ioctl(ring->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0))
		return -PFR_E_SYSTEM;
	return err ? err : n;
}
