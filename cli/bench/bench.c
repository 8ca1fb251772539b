/* SPDX-License-Identifier: MIT */
/*
 * perfring bench - runs the benchmark program, perfring-bench, with the
 * same arguments.  The benchmark links the peers it measures against
 * (DPDK, ck, liburcu, C++ queues); keeping it a program of its own keeps
 * them out of the perfring command.  It is looked for next to this
 * program (the build directory, or BINDIR after `make install-bench`),
 * then in LIBEXECDIR/perfring.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli.h"

#ifndef PFR_LIBEXECDIR
#define PFR_LIBEXECDIR "/usr/local/libexec/perfring"
#endif

#define PFR_BENCH_PROG "perfring-bench"

/* dir/perfring-bench into buf for the directory of this program;
 * returns 0, or -1 when /proc/self/exe cannot be read. */
static int next_to_self(char *buf, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	if ((size_t)snprintf(buf, len, "%s/%s", self, PFR_BENCH_PROG) >= len)
		return -1;
	return 0;
}

int cli_cmd_bench(int argc, char **argv)
{
	char here[PATH_MAX + 32];
	const char *where[2];
	int nwhere = 0, err = ENOENT;
	char **av = calloc((size_t)argc + 1, sizeof(*av));

	if (!av)
		return 1;
	if (!next_to_self(here, sizeof(here)))
		where[nwhere++] = here;
	where[nwhere++] = PFR_LIBEXECDIR "/" PFR_BENCH_PROG;
	for (int i = 1; i < argc; i++)
		av[i] = argv[i];
	for (int i = 0; i < nwhere; i++) {
		av[0] = (char *)where[i];
		execv(where[i], av);
		if (errno != ENOENT || err == ENOENT)
			err = errno;
	}
	fprintf(stderr,
		"perfring bench: the benchmark is a program of its own, "
		"%s, and it %s:\n  %s%s%s\n"
		"Build it with 'make' (it is build/%s) and install it "
		"next to perfring\nwith 'make install-bench'.\n",
		PFR_BENCH_PROG,
		err == ENOENT ? "was not found" : "could not be run", where[0],
		nwhere > 1 ? "\n  " : "", nwhere > 1 ? where[1] : "",
		PFR_BENCH_PROG);
	if (err != ENOENT)
		fprintf(stderr, "perfring bench: %s\n", strerror(err));
	free(av);
	return 127;
}
