/* SPDX-License-Identifier: MIT */
/* Shared pieces of the perfring command: subcommand entry points and small
 * output helpers. */
#ifndef PFR_CLI_H
#define PFR_CLI_H

#include <stdio.h>

/* Exit status for a usage error, as every perfring subcommand uses. */
#define PFR_EXIT_USAGE 2

/* Each subcommand: argv[0] is the subcommand's name.  Returns the exit
 * status.  A subcommand not linked into this build is a null pointer. */
typedef int pfr_cmd_fn(int argc, char **argv);
extern pfr_cmd_fn pfr_cmd_info __attribute__((weak));
extern pfr_cmd_fn pfr_cmd_stress __attribute__((weak));
extern pfr_cmd_fn pfr_cmd_record __attribute__((weak));
extern pfr_cmd_fn pfr_cmd_script __attribute__((weak));
extern pfr_cmd_fn pfr_cmd_litmus __attribute__((weak));
extern pfr_cmd_fn pfr_cmd_bench __attribute__((weak));

/* Prints "perfring CMD: message" and a hint to run --help; returns 2. */
int pfr_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes s as a JSON string literal (with quotes) to f. */
void pfr_cli_json_str(FILE *f, const char *s);

/* Parses a non-negative integer with an optional k/M/G suffix (powers of
 * 1000, or of 1024 with "Ki"/"Mi"/"Gi").  Returns 0 or -1 when malformed. */
int pfr_cli_parse_u64(const char *s, unsigned long long *out);

/* A progress line on stderr, rewritten in place when stderr is a terminal
 * and printed at most once a second otherwise.  Finish with done=1. */
void pfr_cli_progress(const char *what, double fraction, int done);

#endif
