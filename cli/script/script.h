/* SPDX-License-Identifier: MIT */
/* `perfring script`'s state and its pieces: options (opts.c), the
 * header and the raw dump (dump.c). */
#ifndef PFR_CLI_SCRIPT_H
#define PFR_CLI_SCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include <perfring/perf.h>

#include "perfdata/out.h"

struct cli_trange {
	uint64_t start, stop; /* 0: open */
};

struct cli_script {
	const char *in;
	const char *buildid_dir; /* --buildid-dir: the build-id cache */
	unsigned flags; /* PFR_OUT_* */
	int file_order, dump, header, header_only, samples_only;
	unsigned long long queue_mib;
	struct pfr__out_style style;
	/* -F's text per output type, applied once the events are known */
	const char *fields_arg[8];
	int nfields_arg;
	/* filters */
	struct cli_trange *times;
	int ntimes;
	uint32_t *tids, *pids;
	int ntids, npids;
	char **comms;
	int ncomms;
	int *cpus;
	int ncpus;
	/* the file */
	struct pfr_perf_file *f;
	struct pfr__out *out;
	struct pfr__trace *tp;
	struct pfr__out_ev *ev;
	uint32_t nev;
	uint64_t records, bad;
	/* perf's scripting (python.c): -s FILE, -l, -g LANG, report NAME,
	 * record NAME, and the script's arguments */
	int py_mode; /* 0, or 's', 'l', 'g', 'p' (report), 'r' (record) */
	const char *py_what; /* -s's file, -g's language, report's name */
	char **py_args;
	int npy_args;
	FILE *py_feed; /* -s, -g: the runner's event stream */
	int py_pid;
};

/* Parses argv; 0, 1 for --help, or -1 (message printed). */
int cli_script_opts(struct cli_script *S, int argc, char **argv);
void cli_script_opts_free(struct cli_script *S);
/* The events' output fields from the file's attrs and -F; 0, or -1 when
 * -F asks for a field the samples lack (message printed, as perf). */
int cli_script_events(struct cli_script *S);
/* Whether a decoded record passes --time, --tid, --pid, --comms, -C. */
int cli_script_keep(struct cli_script *S, const struct pfr_perf_rec *r);
/* --header: the file's header as perf script prints it; 0 or -1. */
int cli_script_header(struct cli_script *S);
/* -l, report, record: runs perf's script runner (python.c); the exit
 * status. */
int cli_script_py_exec(struct cli_script *S);
/* -s, -g: starts the runner with S->py_feed its stream; 0 or -1. */
int cli_script_py_start(struct cli_script *S);
/* Ends the stream and waits for the runner; its exit status. */
int cli_script_py_finish(struct cli_script *S);
/* -D: one record in hex, as perf script -D. */
void cli_script_dump(struct cli_script *S, const struct pfr_record *rec,
		     uint32_t ev);

#endif
