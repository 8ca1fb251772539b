/* SPDX-License-Identifier: MIT */
/*
 * perfring script: print the samples of a perf.data file (perfring's or
 * perf's own) as perf script does, with perf script's options (-F, --time,
 * --tid, --pid, --comms, -C, --ns, --reltime, -G, -D, --header,
 * --show-*-events), or as JSON Lines, or hands them to a perf Python
 * script (-s, python.c).  The file is streamed: records are
 * read through a window and put in time order a round at a time within a
 * memory cap (queue.c).  See man/perfring-script.1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>

#include "../cli.h"
#include "perf/perf_read.h"
#include "perfdata/out.h"
#include "perfdata/trace.h"
#include "perfdata/zstd.h"
#include "script.h"
#include "perfdata/queue.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring script [-i FILE] [-F FIELDS] [--time RANGE] "
		"[--tid TIDS]\n"
		"         [--pid PIDS] [--comms COMMS] [-C CPUS] [--ns] "
		"[--reltime] [-G]\n"
		"         [-D] [--header | --header-only] [--show-*-events] "
		"[--json]\n"
		"         [--no-symbols] [--file-order] [--queue-size MIB]\n"
		"\n"
		"Prints the samples of a perf.data file (default ./perf.data) "
		"as perf script\n"
		"does, or JSON Lines with --json.  Options as perf script "
		"spells them (-Gi F,\n"
		"-iF, --input=F, prefixes of long names).\n"
		"  -i, --input FILE       the file to read (- : standard "
		"input)\n"
		"      --buildid-dir DIR  the build-id cache for rebuilt or "
		"moved files\n"
		"                         (default $PERF_BUILDID_DIR, "
		"~/.debug)\n"
		"  -F, --fields [TYPE:]LIST  perf script's fields: comm tid "
		"pid time cpu\n"
		"                         event trace ip sym symoff dso "
		"period addr;\n"
		"                         TYPE hw sw trace raw break "
		"hw-cache; +f/-f edit\n"
		"      --time START,STOP  samples in [START, STOP] (seconds, "
		"either empty)\n"
		"      --tid, --pid LIST  samples of these threads / "
		"processes\n"
		"      --comms LIST       samples of threads of these "
		"names\n"
		"  -C, --cpu LIST         samples on these cpus\n"
		"      --ns               times in nanoseconds\n"
		"      --reltime          times from the first record's\n"
		"  -G, --hide-call-graph  no call chains\n"
		"  -D, --dump-raw-trace   every record in file order, in "
		"hex\n"
		"      --header, --header-only  the file's header first "
		"(only)\n"
		"      --show-task-events, --show-mmap-events, "
		"--show-switch-events,\n"
		"      --show-namespace-events, --show-lost-events, "
		"--show-round-events,\n"
		"      --show-bpf-events, --show-cgroup-events, "
		"--show-text-poke-events,\n"
		"      --show-all-events  side-band records too (perfring: "
		"all of them)\n"
		"      --json             one JSON object per record\n"
		"      --no-symbols       addresses without symbols\n"
		"      --samples          with --json: samples only\n"
		"      --buildid-dir DIR  the build-id cache (default "
		"~/.debug)\n"
		"  -f, --force            accepted; perfring checks no "
		"owner\n"
		"      --file-order       as stored, not sorted by time\n"
		"      --queue-size MIB   memory for sorting (default 64)\n"
		"  -s, --script FILE.py [--] [ARGS]  run a perf script -s "
		"Python script\n"
		"  -g, --gen-script python  write perf-script.py for the "
		"file's events\n"
		"  -l, --list             perf's installed scripts\n"
		"      report NAME [ARGS], record NAME [ARGS]  (first) run "
		"perf's wrappers\n"
		"      --no-NAME          perf's negation: the option's "
		"default back\n"
		"Exit status: 0, 1 unreadable or malformed file, 2 usage.\n");
}

/* One delivered record: tracked, filtered, printed. */
static void cli_script_deliver(void *arg, const struct pfr__q_item *it)
{
	struct cli_script *S = arg;
	struct pfr_perf_rec r;
	const struct pfr__out_ev *e = &S->ev[it->ev < S->nev ? it->ev : 0];

	if (S->dump) {
		struct pfr_record rec = {it->hdr, it->payload,
					 it->hdr.size - 8u, it->pos};

		cli_script_dump(S, &rec, it->ev < S->nev ? it->ev : 0);
		return;
	}
	S->records++;
	if (pfr_perf_decode(&e->lay, &it->hdr, it->payload, it->hdr.size - 8,
			    &r)) {
		S->bad++;
		return;
	}
	pfr__out_track(S->out, &r);
	if (!cli_script_keep(S, &r))
		return;
	pfr__out_event(S->out, e, &r, &it->hdr, it->payload);
}

/* Reads every record into the queue (or straight out with --file-order,
 * or as hex with -D).  Returns 0, or the reader's error. */
static int cli_script_read(struct cli_script *S, struct pfr__queue *q)
{
	struct pfr_record rec;
	const char *why = "";
	uint64_t cut;
	int n;

	while ((n = pfr_perf_file_next(S->f, &rec)) == 1 ||
	       n == -PFR_PERF_E_COMPRESSED) {
		if (n < 0) { /* perf record -z: zstd, loaded now */
			if (pfr__zstd_reader(S->f, &why)) {
				fprintf(stderr,
					"perfring script: %s: records "
					"compressed (record -z) and %s\n",
					S->in, why);
				return n;
			}
			continue;
		}
		uint32_t ev = pfr_perf_file_event_of(S->f, &rec.hdr,
						     rec.payload, rec.len);
		struct pfr_perf_rec d;
		int has_time;

		if (ev >= S->nev)
			ev = 0;
		/* -D, as perf: perf's own records (64 and up) dumped as
		 * read, the kernel's as delivered in time order */
		if (S->dump && rec.hdr.type >= 64)
			cli_script_dump(S, &rec, ev);
		has_time = !pfr_perf_decode(&S->ev[ev].lay, &rec.hdr,
					    rec.payload, rec.len, &d) &&
			   (d.fields & PFR_PERF_F_TIME);
		if (rec.hdr.type == 68 /* FINISHED_ROUND */)
			pfr__q_round(q);
		if (S->dump && rec.hdr.type >= 64)
			continue;
		if (pfr__q_add(q, has_time ? d.time : 0, has_time, ev, &rec)) {
			fprintf(stderr, "perfring script: out of memory\n");
			return -PFR_E_SYSTEM;
		}
		if (S->file_order)
			pfr__q_flush(q);
	}
	/* at the end, or at a malformed record: what came before it is
	 * printed (perf warns and reads on) */
	pfr__q_flush(q);
	if (n == 0 && pfr__perf_file_unfinished(S->f, &cut) && cut)
		fprintf(stderr,
			"perfring script: warning: %s: its last record is cut "
			"short (%llu bytes), skipped\n",
			S->in, (unsigned long long)cut);
	return n;
}

static int cli_script_open(struct cli_script *S)
{
	int n, err;

	/* Only a regular file: a FIFO would block the open for a writer
	 * (the library refuses one too, and reads the file without mapping
	 * it, so that a truncation meanwhile cannot raise SIGBUS). */
	n = strcmp(S->in, "-") ? util_open_regular(S->in) : -1;
	if (n < 0 && errno == EINVAL) {
		fprintf(stderr,
			"perfring script: %s: not a regular file (a FIFO, "
			"device or socket cannot be read as perf.data)\n",
			S->in);
		return 1;
	}
	if (n >= 0)
		close(n);
	err = pfr__perf_file_open_stream(&S->f, S->in);
	if (err) {
		fprintf(stderr, "perfring script: %s: %s\n", S->in,
			err == -PFR_E_SYSTEM ? strerror(errno)
					     : pfr_perf_strerror(err));
		if (err == -PFR_E_SYSTEM && errno == ENOENT)
			fprintf(stderr,
				"Fix: record one first (perfring "
				"record -o %s -- CMD), or give -i FILE.\n",
				S->in);
		return 1;
	}
	if (pfr__perf_file_unfinished(S->f, NULL))
		fprintf(stderr,
			"perfring script: warning: %s: its header was never "
			"completed (data size 0 or stale: was the recorder "
			"killed?); reading up to its last complete record\n",
			S->in);
	return 0;
}

/* Tracepoint fields from the formats the file or stream carries. */
static void cli_script_trace(struct cli_script *S)
{
	const char *why = "";
	uint64_t len;
	const void *td = pfr__perf_file_tracing(S->f, &len);

	S->tp = td ? pfr__trace_open_mem(td, (size_t)len, &why) : NULL;
	if (!S->tp && *why)
		fprintf(stderr,
			"perfring script: %s: tracepoint fields not decoded: "
			"%s\n",
			S->in, why);
	pfr__out_set_trace(S->out, S->tp);
}

static int cli_script_run(struct cli_script *S)
{
	struct pfr__queue q;
	int n, err = 0;

	if (cli_script_open(S))
		return 1;
	if (S->header && cli_script_header(S))
		err = 1;
	if (err || S->header_only)
		goto out;
	if (S->py_mode && cli_script_py_start(S)) {
		err = 1;
		goto out;
	}
	S->out = pfr__out_new(S->py_feed ? S->py_feed : stdout, S->flags);
	if (!S->out || cli_script_events(S)) {
		err = S->out ? PFR_EXIT_USAGE : 1;
		goto out;
	}
	cli_script_trace(S);
	if (strcmp(S->in, "-"))
		pfr__out_read_buildids(S->out, S->in, S->buildid_dir);
	pfr__out_set_style(S->out, &S->style);
	pfr__q_init(&q, S->queue_mib << 20, cli_script_deliver, S);
	n = cli_script_read(S, &q);
	pfr__q_free(&q);
	if (n == 0 && pfr__zstd_cut_frame()) {
		fprintf(stderr,
			"perfring script: %s: the compressed stream ends "
			"inside zstd frame %llu (cut short, or a frame whose "
			"size field runs past the data): the records in it "
			"are lost, %llu records read\n",
			S->in, pfr__zstd_cut_frame(),
			(unsigned long long)S->records);
		err = 1;
	}
	pfr__zstd_reader_free();
	if (n == -PFR_PERF_E_COMPRESSED) {
		err = 1;
	} else if (n < 0) {
		fprintf(stderr,
			"perfring script: %s: malformed record after %llu "
			"records: %s\n",
			S->in, (unsigned long long)S->records,
			pfr_perf_strerror(n));
		err = 1;
	}
	if (q.late)
		fprintf(stderr,
			"perfring script: %llu records out of time order by "
			"more than --queue-size %llu MiB holds: printed "
			"where they came\n",
			(unsigned long long)q.late,
			(unsigned long long)S->queue_mib);
	if (S->bad)
		fprintf(stderr,
			"perfring script: %llu of %llu records malformed, "
			"skipped\n",
			(unsigned long long)S->bad,
			(unsigned long long)S->records);
out:
	pfr__out_free(S->out);
	if (S->py_mode) {
		int rc = cli_script_py_finish(S);

		err = err ? err : rc;
	}
	pfr__trace_free(S->tp);
	free(S->ev);
	pfr_perf_file_close(S->f);
	cli_script_opts_free(S);
	return err;
}

int cli_cmd_script(int argc, char **argv)
{
	struct cli_script S;
	int r;

	memset(&S, 0, sizeof(S));
	S.in = "perf.data";
	S.queue_mib = 64;
	r = cli_script_opts(&S, argc, argv);
	if (r == 1) {
		usage(stdout);
		return 0;
	}
	if (r) {
		cli_script_opts_free(&S);
		return PFR_EXIT_USAGE;
	}
	if (S.py_mode && S.py_mode != 's' && S.py_mode != 'g')
		return cli_script_py_exec(&S); /* -l, report, record */
	return cli_script_run(&S);
}
