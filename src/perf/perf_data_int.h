/* SPDX-License-Identifier: MIT */
/*
 * Internal: the perf.data format and the file object shared by the
 * writer (src/perf/perf_data.c) and the reader (src/perf/perf_data_read.c).
 * The format is the one in the kernel's
 * tools/perf/Documentation/perf.data-file-format.txt:
 *
 *   [file header][ids of event 0][ids of event 1]...[attrs][data ...]
 *   [feature sections' index][feature contents]
 *
 * The header names the attrs and data sections; the feature bitmap in the
 * header says which feature sections follow the data, their index starting
 * right at data.offset + data.size.  Everything is native-endian.
 */
#ifndef PFR_SRC_PERF_DATA_INT_H
#define PFR_SRC_PERF_DATA_INT_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <perfring/perf.h>

#include "perf/perf_maps.h"

#define PFR_PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
/* perf's own record types of the pipe format (tools/lib/perf/include/perf/
 * event.h). */
#define PFR_RECORD_HEADER_ATTR 64
#define PFR_RECORD_HEADER_EVENT_TYPE 65
#define PFR_RECORD_HEADER_TRACING_DATA 66
#define PFR_RECORD_EVENT_UPDATE 78
#define PFR_RECORD_HEADER_FEATURE 80
#define PFR_RECORD_FINISHED_ROUND 68
#define PFR_RECORD_COMPRESSED 81
#define PFR_ZCHUNK (256u << 10) /* -z: bytes staged per compression */
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
	PFR_FEAT_CPUDESC = 8,
	PFR_FEAT_CPUID = 9,
	PFR_FEAT_TOTAL_MEM = 10,
	PFR_FEAT_CMDLINE = 11,
	PFR_FEAT_EVENT_DESC = 12,
	PFR_FEAT_CPU_TOPOLOGY = 13,
	PFR_FEAT_NUMA_TOPOLOGY = 14,
	PFR_FEAT_PMU_MAPPINGS = 16,
	PFR_FEAT_GROUP_DESC = 17,
	PFR_FEAT_CACHE = 20,
	PFR_FEAT_SAMPLE_TIME = 21,
	PFR_FEAT_MEM_TOPOLOGY = 22,
	PFR_FEAT_CLOCKID = 23,
	PFR_FEAT_BPF_PROG_INFO = 25,
	PFR_FEAT_BPF_BTF = 26,
	PFR_FEAT_COMPRESSED = 27,
	PFR_FEAT_CPU_PMU_CAPS = 28,
	PFR_FEAT_PMU_CAPS = 31,
	PFR_FEAT_LAST = 32, /* the pipe format's end-of-features mark */
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

struct pfr_dso {
	char *name;
	int hit; /* a sample's ip or call chain falls in it */
};

struct pfr_id_ev { /* one id of an event, for the sorted index */
	uint64_t id;
	uint32_t ev, pad;
};

struct pfr_file_group {
	char *name;
	uint32_t leader, nr_members;
};

/* The write buffer of a perf.data file (not a pipe): a write() per
 * 64 KiB.  Larger saves few system calls and makes the pause in which the
 * recorder does not drain its rings longer (a 1 MiB write into the page
 * cache takes about half a millisecond, a third of the time a 16 KiB ring
 * takes to fill under a sched_switch storm). */
#define PFR__FILE_BUF (64u * 1024)

struct pfr_perf_file {
	/* writing */
	FILE *out;
	/* A file's records (not a pipe's): whole records, PFR__FILE_BUF at
	 * most, written at data_offset + flushed; after each write the
	 * header's data size becomes flushed, so that a recorder killed at
	 * any moment leaves a file read up to its last record on disk. */
	char *obuf;
	size_t olen;
	uint64_t flushed;
	uint64_t flush_ns; /* CLOCK_MONOTONIC of the last write */
	int fd;
	int started;
	int pipe; /* perf's pipe format: no header to seek back to */
	uint64_t data_offset, data_size;
	char *cmdline;
	struct pfr_dso *dsos; /* mapped files and [vdso], for BUILD_ID */
	uint32_t nr_dsos, cap_dsos;
	uint32_t *dso_hash; /* open addressing: index + 1, or 0 */
	uint32_t dso_hash_cap;
	struct pfr__procs procs; /* each process's mappings */
	int kernel_hit;
	uint64_t nr_samples, first_time, last_time; /* SAMPLE_TIME */
	struct pfr_file_group *groups; /* GROUP_DESC */
	uint32_t nr_groups;
	int buildids; /* PFR__BUILDID_*: BUILD_ID's DSOs */
	int clockid; /* CLOCKID: the events' clock, or -1 */
	int zlevel; /* > 0: records go out zstd-compressed (COMPRESSED) */
	unsigned char *zbuf; /* records waiting to be compressed */
	size_t zused;
	uint64_t zin, zout; /* bytes before and after, for the ratio */
	void *zctx; /* ZSTD_CCtx */
	/* BPF_PROG_INFO and BPF_BTF: count, then the entries (not owned) */
	const unsigned char *bpf_info, *bpf_btf;
	size_t bpf_info_len, bpf_btf_len;
	uint32_t bpf_nprog, bpf_nbtf;
	int bpf_set;
	/* reading */
	const unsigned char *map; /* the file, or in a stream its head */
	size_t map_len; /* the file's length (in a stream too) */
	size_t head_len; /* bytes at map: map_len, or in a stream data's offset */
	unsigned char *tail; /* a stream: the file after its data section */
	uint64_t tail_off, tail_len;
	int in_fd; /* a stream: the file, read through win */
	unsigned char *win; /* a stream: bytes [win_off, win_off + win_len) */
	uint64_t win_off;
	size_t win_len, win_cap;
	const unsigned char *tracing; /* HEADER_TRACING_DATA's bytes, or NULL */
	uint64_t tracing_len;
	uint64_t pos, end;
	/* the header's data size was 0 or stale (no features: a recorder
	 * killed before its close): the data runs to the end of the file,
	 * and cut is the length of a last record cut short */
	int open_end;
	uint64_t cut;
	/* reading COMPRESSED records: the decompressed bytes [zpos, zlen) of
	 * zdec are records still to return (a stream reuses zdec; a file read
	 * whole keeps each buffer in zkeep until close, for the payloads) */
	pfr_perf_inflate_fn inflate;
	void *inflate_arg;
	unsigned char *zdec;
	size_t zpos, zlen, zcap;
	uint64_t zrec_pos; /* the COMPRESSED record's position */
	unsigned char **zkeep;
	size_t nzkeep;
	uint64_t zkept; /* bytes of the kept buffers (a file read whole) */
	/* a stream decompresses as it reads: the COMPRESSED record's
	 * payload (copied: the window moves), zsrc_used bytes of it taken,
	 * zfull when the last call filled zdec (it may hold more) */
	unsigned char *zsrc;
	size_t zsrc_len, zsrc_used;
	int zfull;
	int zstream; /* records read whole come from a stream's one buffer */
	int zstarted; /* a COMPRESSED record was decompressed */
	/* both */
	struct pfr_file_event *ev;
	uint32_t nr_ev;
	struct pfr_id_ev *ids; /* every event's ids, sorted; NULL: none */
	size_t nr_ids;
	uint64_t id_probes; /* entries of ids looked at (the tests count) */
};

/* Sorts every event's ids into f->ids (src/perf/perf_data.c). */
int pfr__file_index_ids(struct pfr_perf_file *f);

/* The first event (by index) that has id, or 0 when none has it. */
uint32_t pfr__file_event_of_id(const struct pfr_perf_file *f, uint64_t id);
/* The same, or UINT32_MAX when none has it. */
uint32_t pfr__file_find_id(const struct pfr_perf_file *f, uint64_t id);
/* How many entries of f's sorted id index its lookups have looked at
 * (each a step of a binary search); 0 for NULL. */
uint64_t pfr__perf_file_id_probes(const struct pfr_perf_file *f);

/* Frees f and what it owns, but neither f->map nor f->out. */
void pfr__file_free(struct pfr_perf_file *f);

#endif
