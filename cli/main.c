/* SPDX-License-Identifier: MIT */
/* perfring - the command: dispatches to one subcommand per file in cli/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/common.h>

#include "cli.h"

struct cli_cmd {
	const char *name;
	cli_cmd_fn *fn;
	const char *summary;
};

static const struct cli_cmd *cmds(void)
{
	static struct cli_cmd table[7];

	if (!table[0].name) {
		const struct cli_cmd all[] = {
			{"info", cli_cmd_info,
			 "version, target, barrier backend and instructions"},
			{"stress", cli_cmd_stress,
			 "verified writer/reader run over a ring"},
			{"record", cli_cmd_record,
			 "record the kernel's perf ring into perf.data"},
			{"script", cli_cmd_script,
			 "print the records of a perf.data file"},
			{"litmus", cli_cmd_litmus,
			 "run litmus tests of the barriers on this CPU"},
			{"bench", cli_cmd_bench,
			 "benchmark the ring against peers and limits "
			 "(make install-bench)"},
		};
		size_t n = 0;

		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			if (all[i].fn)
				table[n++] = all[i];
	}
	return table;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: perfring [--version] [--help] [--buildid-dir DIR] "
		   "<command> [<args>]\n\n"
		   "commands:\n");
	for (const struct cli_cmd *c = cmds(); c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\n'perfring <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	/* perf's global option: the build-id cache for the command, passed
	 * on in PERF_BUILDID_DIR as perf does */
	if (argc > 1 && !strncmp(argv[1], "--buildid-dir=", 14)) {
		setenv("PERF_BUILDID_DIR", argv[1] + 14, 1);
		argc--;
		argv++;
	} else if (argc > 2 && !strcmp(argv[1], "--buildid-dir")) {
		setenv("PERF_BUILDID_DIR", argv[2], 1);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		usage(stderr);
		return PFR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			char *av[] = {argv[2], (char *)"--help", NULL};

			for (const struct cli_cmd *c = cmds(); c->name; c++)
				if (!strcmp(c->name, argv[2]))
					return c->fn(2, av);
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("perfring %s\n", pfr_version());
		return 0;
	}
	for (const struct cli_cmd *c = cmds(); c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return c->fn(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		return util_usage_error(NULL, "unknown option '%s'", argv[1]);
	return util_usage_error(NULL, "unknown command '%s'", argv[1]);
}
