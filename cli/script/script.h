/* SPDX-License-Identifier: MIT */
/* `perfring script`'s state and its pieces: options (opts.c), the
 * header and the raw dump (dump.c). */
#ifndef PFR_CLI_SCRIPT_H
#define PFR_CLI_SCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include <perfring/perf.h>
#include <perfring/perfdata.h>

/* What the output is (S->flags). */
#define CLI_OUT_JSON 0x1u /* --json */
#define CLI_OUT_NO_SYMS 0x4u /* --no-symbols */
#define CLI_OUT_JSON_PY 0x8u /* -s: JSON for perf's Python scripts */
#define CLI_SHOW_ALL (2 * PFR_PERFDATA_SHOW_OTHER - 1)

/* perf script's style: the printer's options (-F per output type, the
 * side-band records shown, --ns, --reltime, -G). */
struct cli_style {
	unsigned fields[PFR_PERFDATA_NTYPES]; /* -F, per output type */
	unsigned user_set; /* bit t: fields[t] came from -F */
	unsigned show; /* PFR_PERFDATA_SHOW_* */
	int ns, reltime, hide_callgraph;
};

struct cli_trange {
	uint64_t start, stop; /* 0: open */
};

struct cli_script {
	const char *in;
	const char *buildid_dir; /* --buildid-dir: the build-id cache */
	unsigned flags; /* CLI_OUT_* */
	int file_order, dump, header, header_only, samples_only;
	unsigned long long queue_mib;
	struct cli_style style;
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
	/* the file, read with the perf.data library */
	struct pfr_perfdata *pd;
	struct pfr_perf_file *f; /* pd's */
	struct pfr_perfdata_print_opts popts; /* from style and flags */
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
