/* SPDX-License-Identifier: MIT */
/*
 * perfring script: print the records of a perf.data file (perfring's or
 * perf's own), one line each in perf script's default shape, or JSON
 * Lines.  See man/perfring-script.1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "cli.h"
#include "perf_out.h"
#include "perf_trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring script [-i FILE] [--json] [--samples] "
		"[--no-symbols]\n"
		"                       [--file-order]\n"
		"\n"
		"Prints the records of a perf.data file (default ./perf.data) "
		"in perf\n"
		"script's shape, or JSON Lines with --json.\n"
		"  -i, --input FILE  the file to read\n"
		"      --json        one JSON object per record\n"
		"      --samples     samples only (side-band records are used "
		"but not printed)\n"
		"      --no-symbols  print addresses without looking up "
		"symbols\n"
		"      --file-order  as stored, not sorted by time\n"
		"Exit status: 0, 1 unreadable or malformed file, 2 usage.\n");
}

struct idx {
	uint64_t time, seq;
	struct pfr_record rec;
	uint32_t ev;
};

static int idx_cmp(const void *a, const void *b)
{
	const struct idx *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pfr_cmd_script(int argc, char **argv)
{
	struct idx *idx = NULL;
	size_t nidx = 0, capidx = 0;
	int file_order = 0;
	const char *in = "perf.data";
	unsigned flags = 0;
	struct pfr_perf_file *f;
	struct pfr_out *o;
	struct pfr_trace *tp;
	const char *why = "";
	struct pfr_record rec;
	int err, n;
	uint64_t records = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-i") ||
			   !strcmp(argv[i], "--input")) {
			if (i + 1 >= argc)
				return pfr_cli_usage_error(
					"script", "option '%s' needs a file",
					argv[i]);
			in = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			flags |= PFR_OUT_JSON;
		} else if (!strcmp(argv[i], "--samples")) {
			flags |= PFR_OUT_SAMPLES_ONLY;
		} else if (!strcmp(argv[i], "--no-symbols")) {
			flags |= PFR_OUT_NO_SYMS;
		} else if (!strcmp(argv[i], "--file-order")) {
			file_order = 1;
		} else {
			return pfr_cli_usage_error(
				"script", "unknown argument '%s'", argv[i]);
		}
	}
	/* Only a regular file: a FIFO would block the open for a writer
	 * (the library refuses one too, and reads the file without mapping
	 * it, so that a truncation meanwhile cannot raise SIGBUS). */
	n = strcmp(in, "-") ? pfr_cli_open_regular(in) : -1;
	if (n < 0 && errno == EINVAL) {
		fprintf(stderr,
			"perfring script: %s: not a regular file (a FIFO, "
			"device or socket cannot be read as perf.data)\n",
			in);
		return 1;
	}
	if (n >= 0)
		close(n);
	err = pfr_perf_file_open(&f, in);
	if (err) {
		fprintf(stderr, "perfring script: %s: %s\n", in,
			err == -PFR_E_SYSTEM ? strerror(errno)
					     : pfr_perf_strerror(err));
		if (err == -PFR_E_SYSTEM && errno == ENOENT)
			fprintf(stderr,
				"Fix: record one first (perfring "
				"record -o %s -- CMD), or give -i FILE.\n",
				in);
		return 1;
	}
	o = pfr_out_new(stdout, flags);
	if (!o) {
		pfr_perf_file_close(f);
		return 1;
	}
	/* Tracepoint fields from the formats the file stores. */
	/* Not from standard input: its stream is read once, by the library */
	tp = strcmp(in, "-") ? pfr_trace_open(in, &why) : NULL;
	if (!tp && *why)
		fprintf(stderr,
			"perfring script: %s: tracepoint fields not decoded: "
			"%s\n",
			in, why);
	pfr_out_set_trace(o, tp);
	/* perf writes each ring's records in turn (FINISHED_ROUND marks the
	 * rounds), so a file is in time order only per CPU: index every
	 * record, then sort the index by time (stable: side-band records
	 * without a time keep their place at the front). */
	while ((n = pfr_perf_file_next(f, &rec)) == 1) {
		uint32_t ev = pfr_perf_file_event_of(f, &rec.hdr, rec.payload,
						     rec.len);
		struct pfr_perf_layout lay;
		struct pfr_perf_rec d;

		if (nidx == capidx) {
			size_t nc = capidx ? capidx * 2 : 4096;
			struct idx *ni = realloc(idx, nc * sizeof(*ni));

			if (!ni) {
				fprintf(stderr,
					"perfring script: out of memory\n");
				free(idx);
				pfr_out_free(o);
				pfr_trace_free(tp);
				pfr_perf_file_close(f);
				return 1;
			}
			idx = ni;
			capidx = nc;
		}
		pfr_perf_file_layout(f, ev, &lay);
		idx[nidx].rec = rec;
		idx[nidx].ev = ev;
		idx[nidx].seq = nidx;
		idx[nidx].time = 0;
		if (!pfr_perf_decode(&lay, &rec.hdr, rec.payload, rec.len,
				     &d) &&
		    (d.fields & PFR_PERF_F_TIME))
			idx[nidx].time = d.time;
		nidx++;
	}
	if (!file_order && nidx) /* idx is NULL when nidx is 0 */
		qsort(idx, nidx, sizeof(*idx), idx_cmp);
	for (size_t i = 0; i < nidx; i++) {
		struct pfr_perf_layout lay;

		pfr_perf_file_layout(f, idx[i].ev, &lay);
		pfr_out_record(o, pfr_perf_file_event_name(f, idx[i].ev), &lay,
			       &idx[i].rec.hdr, idx[i].rec.payload,
			       idx[i].rec.len);
		records++;
	}
	free(idx);
	err = 0;
	if (n < 0) {
		fprintf(stderr,
			"perfring script: %s: malformed record after %llu "
			"records: %s\n",
			in, (unsigned long long)records, pfr_perf_strerror(n));
		err = 1;
	}
	if (pfr_out_bad(o))
		fprintf(stderr,
			"perfring script: %llu of %llu records malformed, "
			"skipped\n",
			(unsigned long long)pfr_out_bad(o),
			(unsigned long long)records);
	pfr_out_free(o);
	pfr_trace_free(tp);
	pfr_perf_file_close(f);
	return err;
}
