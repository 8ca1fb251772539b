/* SPDX-License-Identifier: MIT */
/* The perf.data library's handle (perfdata.c, perfdata_hdr.c). */
#ifndef PFR_SRC_PERFDATA_INT_H
#define PFR_SRC_PERFDATA_INT_H

#include <stdint.h>
#include <stdio.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "out.h"
#include "queue.h"

#define PFR_PD_NFEAT 12 /* text features 3 .. 11 */
#define PFR_PD_FEAT_MAX (1u << 20) /* largest text feature read */
#define PFR_PD_BID_MAX (64u << 20) /* largest BUILD_ID section read */
#define PFR_PD_FEAT_BUILD_ID 2

/* A record the queue delivered, waiting for pfr_perfdata_next(). */
struct pfr__pd_item {
	struct pfr_record_header hdr;
	unsigned char *payload; /* owned */
	uint32_t ev;
	uint64_t pos;
};

struct pfr_perfdata {
	char *path;
	struct pfr_perf_file *f;
	unsigned flags;
	unsigned max_frames;
	struct pfr__out *out; /* tracking and symbols */
	struct pfr__trace *tp; /* tracepoint formats, or NULL */
	struct pfr__zstd *zstd; /* a compressed file's stream, or NULL */
	struct pfr__queue q;
	struct pfr_perf_layout *lay; /* per event */
	uint32_t nev;
	/* delivered records: pend[head .. n) */
	struct pfr__pd_item *pend;
	size_t head, n, cap;
	int done, rc; /* reading ended; what next returns then */
	int oom; /* the queue's copy failed */
	/* the current event */
	struct pfr_perfdata_event ev;
	unsigned char *cur;
	struct pfr_perfdata_frame *frames;
	char **names;
	int nnames;
	struct pfr_perfdata_stats st;
	/* header features, read on first use */
	int feat_read;
	char *feat[PFR_PD_NFEAT];
	unsigned char *bid;
	size_t bid_len;
	/* printing: perf script's events under the last options */
	struct pfr__out_ev *oev;
	struct pfr_perfdata_print_opts popts;
	FILE *pf;
	int pset;
};

#endif
