/* SPDX-License-Identifier: MIT */
/* The perfring command's subcommand entry points; the helpers they share
 * with perfring-bench are util/util.h's. */
#ifndef PFR_CLI_H
#define PFR_CLI_H

#include "../util/util.h"

/* Each subcommand: argv[0] is the subcommand's name.  Returns the exit
 * status.  A subcommand not linked into this build is a null pointer. */
typedef int cli_cmd_fn(int argc, char **argv);
extern cli_cmd_fn cli_cmd_info __attribute__((weak));
extern cli_cmd_fn cli_cmd_stress __attribute__((weak));
extern cli_cmd_fn cli_cmd_record __attribute__((weak));
extern cli_cmd_fn cli_cmd_script __attribute__((weak));
extern cli_cmd_fn cli_cmd_litmus __attribute__((weak));
extern cli_cmd_fn cli_cmd_bench __attribute__((weak));

#endif
