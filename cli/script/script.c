/* SPDX-License-Identifier: MIT */
/*
 * perfring script: print the samples of a perf.data file (perfring's or
 * perf's own) as perf script does, with perf script's options (-F, --time,
 * --tid, --pid, --comms, -C, --ns, --reltime, -G, -D, --header,
 * --show-*-events), or as JSON Lines, or hands them to a perf Python
 * script (-s, python.c).  A client of the perf.data library
 * (<perfring/perfdata.h>): it streams the file, puts the records in time
 * order a round at a time within a memory cap, tracks them and prints
 * them as perf script does.  See man/perfring-script.1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

#include "../cli.h"
#include "script.h"

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

/* One record, tracked by the library: filtered and printed (or dumped in
 * hex with -D). */
static void cli_script_event(struct cli_script *S,
			     const struct pfr_perfdata_event *ev)
{
	if (S->dump) {
		struct pfr_record rec = {ev->hdr, ev->payload, ev->len,
					 ev->pos};

		cli_script_dump(S, &rec, ev->evidx);
		return;
	}
	S->records++;
	if (ev->decoded) {
		S->bad++;
		return;
	}
	if (!cli_script_keep(S, &ev->rec))
		return;
	pfr_perfdata_print(S->pd, ev, S->py_feed ? S->py_feed : stdout,
			   &S->popts);
}

/* Reads every record in time order (or as stored with --file-order; -D:
 * perf's own records as read).  Returns 0, or the reader's error. */
static int cli_script_read(struct cli_script *S)
{
	const struct pfr_perfdata_event *ev;
	struct pfr_perfdata_stats st = {.sz = sizeof(st)};
	int n;

	while ((n = pfr_perfdata_next(S->pd, &ev)) == 1)
		cli_script_event(S, ev);
	pfr_perfdata_stats(S->pd, &st);
	if (n == -PFR_PERF_E_COMPRESSED)
		fprintf(stderr,
			"perfring script: %s: records compressed (record -z) "
			"and libzstd.so.1 cannot be loaded (Debian: libzstd1) "
			"or this perfring was built without zstd.h\n",
			S->in);
	/* at the end, or at a malformed record: what came before it is
	 * printed (perf warns and reads on) */
	if (n == 0 && st.cut)
		fprintf(stderr,
			"perfring script: warning: %s: its last record is cut "
			"short (%llu bytes), skipped\n",
			S->in, (unsigned long long)st.cut);
	if (st.zstd_cut_frame) {
		fprintf(stderr,
			"perfring script: %s: the compressed stream ends "
			"inside zstd frame %llu (cut short, or a frame whose "
			"size field runs past the data): the records in it "
			"are lost, %llu records read\n",
			S->in, (unsigned long long)st.zstd_cut_frame,
			(unsigned long long)S->records);
		return 1;
	}
	if (n < 0 && n != -PFR_PERF_E_COMPRESSED)
		fprintf(stderr,
			"perfring script: %s: malformed record after %llu "
			"records: %s\n",
			S->in, (unsigned long long)S->records,
			pfr_perf_strerror(n));
	if (st.late)
		fprintf(stderr,
			"perfring script: %llu records out of time order by "
			"more than --queue-size %llu MiB holds: printed "
			"where they came\n",
			(unsigned long long)st.late,
			(unsigned long long)S->queue_mib);
	return n < 0;
}

static int cli_script_open(struct cli_script *S)
{
	struct pfr_perfdata_opts o = {.sz = sizeof(o)};
	struct pfr_perfdata_stats st = {.sz = sizeof(st)};
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
	/* the printer resolves frames itself: none computed twice */
	o.flags = PFR_PERFDATA_NO_FRAMES | PFR_PERFDATA_NO_UNWIND |
		  (S->file_order ? PFR_PERFDATA_FILE_ORDER : 0u) |
		  (S->dump ? PFR_PERFDATA_OWN_AS_READ : 0u) |
		  ((S->flags & CLI_OUT_NO_SYMS) ? PFR_PERFDATA_NO_SYMBOLS : 0u);
	o.queue_bytes = (uint64_t)S->queue_mib << 20;
	o.buildid_dir = S->buildid_dir;
	err = pfr_perfdata_open(&S->pd, S->in, &o);
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
	S->f = pfr_perfdata_file(S->pd);
	if (!pfr_perfdata_stats(S->pd, &st) && st.unfinished)
		fprintf(stderr,
			"perfring script: warning: %s: its header was never "
			"completed (data size 0 or stale: was the recorder "
			"killed?); reading up to its last complete record\n",
			S->in);
	return 0;
}

static int cli_script_run(struct cli_script *S)
{
	int err = 0;

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
	if (cli_script_events(S)) {
		err = PFR_EXIT_USAGE;
		goto out;
	}
	err = cli_script_read(S);
	if (S->bad)
		fprintf(stderr,
			"perfring script: %llu of %llu records malformed, "
			"skipped\n",
			(unsigned long long)S->bad,
			(unsigned long long)S->records);
out:
	if (S->py_mode) {
		int rc;

		if (S->py_feed)
			fflush(S->py_feed);
		rc = cli_script_py_finish(S);
		err = err ? err : rc;
	}
	pfr_perfdata_close(S->pd);
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
