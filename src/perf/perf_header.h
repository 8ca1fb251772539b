/* SPDX-License-Identifier: MIT */
/*
 * Internal: the contents of the perf.data header features that describe
 * the machine (src/perf/perf_header.c), each written to a stdio stream.  Every
 * writer returns 0, or -1 when the machine does not offer what the feature
 * needs (the caller then leaves the feature out, as perf does).
 */
#ifndef PFR_SRC_PERF_HEADER_H
#define PFR_SRC_PERF_HEADER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A perf_header_string: u32 length (with the NUL, padded to 64), bytes. */
void pfr__put_string(FILE *o, const char *s);
void pfr__put_u32(FILE *o, uint32_t v);
void pfr__put_u64(FILE *o, uint64_t v);

int pfr__feat_nrcpus(FILE *o);
int pfr__feat_cpudesc(FILE *o);
int pfr__feat_cpuid(FILE *o);
int pfr__feat_total_mem(FILE *o);
int pfr__feat_cpu_topology(FILE *o);
int pfr__feat_numa_topology(FILE *o);
int pfr__feat_pmu_mappings(FILE *o);
int pfr__feat_cache(FILE *o);
int pfr__feat_mem_topology(FILE *o);
int pfr__feat_cpu_pmu_caps(FILE *o);
int pfr__feat_pmu_caps(FILE *o);

/* The GNU build id in a sequence of ELF notes [p, p + n), whose header
 * words are in the other byte order when swap: its length (at most 20),
 * or 0. */
size_t pfr__notes_build_id(const unsigned char *p, size_t n, int swap,
			   unsigned char id[20]);
/* The build id of an ELF64 image of len bytes at m (a mapped file or the
 * vdso), from its PT_NOTE segments: its length, or 0. */
size_t pfr__elf_build_id(const unsigned char *m, size_t len,
			 unsigned char id[20]);
/* The build id of this process's vdso (every process of this ABI maps the
 * same one): its length, or 0. */
size_t pfr__vdso_build_id(unsigned char id[20]);

/* Which DSOs the BUILD_ID feature lists: those the samples hit (perf
 * record's default), none (the feature left out: -B), every one mapped
 * (--buildid-all). */
#define PFR__BUILDID_HIT 0
#define PFR__BUILDID_NONE 1
#define PFR__BUILDID_ALL 2

/* The writer's options of a file pfr_perf_file_create() made, before its
 * first record: the BUILD_ID feature's DSOs (PFR__BUILDID_*), the events'
 * clock for CLOCKID (-1: perf's), zstd compression at level zlevel (0:
 * none; not for the pipe format).  Returns 0 or -PFR_E_INVAL /
 * -PFR_E_SYSTEM. */
struct pfr_perf_file;
int pfr__file_set_opts(struct pfr_perf_file *f, int buildids, int clockid,
		       int zlevel);
/* A FINISHED_ROUND record (after the records of a round; with -z the
 * round's compressed records go out first).  Returns 0 or an error. */
int pfr__file_write_round(struct pfr_perf_file *f);
/* The data bytes written so far (staged ones included). */
uint64_t pfr__file_bytes(const struct pfr_perf_file *f);

/* The BPF_PROG_INFO and BPF_BTF features' entries (perf's layout), kept
 * by the caller until the file is closed; without a call, neither
 * feature is written. */
void pfr__file_set_bpf(struct pfr_perf_file *f, const unsigned char *info,
		       size_t info_len, uint32_t nprog,
		       const unsigned char *btf, size_t btf_len, uint32_t nbtf);

#endif
