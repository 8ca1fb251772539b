/* SPDX-License-Identifier: MIT */
/* perfring info - version, target, barrier backend. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include <perfring/barrier.h>
#include <perfring/common.h>

#include "cli.h"

static void help(void)
{
	printf("usage: perfring info [--json]\n\n"
	       "Prints perfring's version, the target it was built for, the\n"
	       "barrier backend in use and the instruction each barrier\n"
	       "primitive compiles to in this build.\n\n"
	       "  --json    one JSON object instead of the table\n"
	       "  -h, --help\n");
}

int pfr_cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, c;
	struct utsname u;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			help();
			return 0;
		default:
			return pfr_cli_usage_error("info", "bad option");
		}
	}
	if (optind < argc)
		return pfr_cli_usage_error("info", "unexpected argument '%s'",
					   argv[optind]);
	uname(&u);
	if (json) {
		printf("{\"version\":");
		pfr_cli_json_str(stdout, pfr_version());
		printf(",\"target\":");
		pfr_cli_json_str(stdout, u.machine);
		printf(",\"backend\":");
		pfr_cli_json_str(stdout, PFR_BARRIER_BACKEND);
		printf("}\n");
		return 0;
	}
	printf("perfring %s\n", pfr_version());
	printf("target:  %s\n", u.machine);
	printf("backend: %s\n", PFR_BARRIER_BACKEND);
	return 0;
}
