/* SPDX-License-Identifier: MIT */
/*
 * bench/core/cmd_opts.c - the options and host checks both perfring-bench
 * commands share (see bench/core/cmd_opts.h).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "../../util/util.h"
#include "bench.h"
#include "cmd_opts.h"

#define NOT_COMMON (-2)

static int parse_cpus(const char *arg)
{
	int a, b;
	char extra;

	if (sscanf(arg, "%d,%d%c", &a, &b, &extra) != 2 || a < 0 || b < 0 ||
	    a == b || a >= CPU_SETSIZE || b >= CPU_SETSIZE)
		return util_usage_error("bench",
					"--cpus wants two different CPU "
					"numbers, e.g. 0,1");
	bench_cpu[0] = a;
	bench_cpu[1] = b;
	return -1;
}

/* The common options that take a number; returns -1 when it is
 * accepted, else the exit status. */
static int parse_number(struct bench_common *c, int opt, const char *arg)
{
	unsigned long long v;
	int bad = util_parse_u64(arg, &v);

	switch (opt) {
	case 'r':
		if (bad || v < 1 || v > (unsigned long long)c->max_reps)
			return util_usage_error("bench", "--reps wants 1..%d",
						c->max_reps);
		c->reps = (int)v;
		break;
	case 't':
		if (bad || v < 1 || v > 60000)
			return util_usage_error("bench",
						"--time wants 1..60000 ms");
		c->run_ms = (double)v;
		c->times_set = 1;
		break;
	case 'k':
		bad = util_parse_size(arg, &v); /* a size: K is 1024 */
		if (bad || v < 4096 || v > (1ull << 30) || (v & (v - 1)))
			return util_usage_error(
				"bench", "--capacity wants a power of two "
					 "from 4096 to 1Gi");
		c->capacity = (size_t)v;
		break;
	}
	return -1;
}

/* One common option: -1 to go on, NOT_COMMON when opt is another, else
 * the exit status. */
static int parse_common(struct bench_common *c, int opt, const char *arg)
{
	switch (opt) {
	case 'q':
		c->quick = 1;
		break;
	case 'j':
		c->json = 1;
		break;
	case 'o':
		c->only = arg;
		break;
	case 'N':
		c->peers = 0;
		break;
	case 'C':
		return parse_cpus(arg);
	case 'r':
	case 't':
	case 'k':
		return parse_number(c, opt, arg);
	default:
		return NOT_COMMON;
	}
	return -1;
}

int bench_getopt(int argc, char **argv, const struct option *lopts,
		 struct bench_common *c, int max_reps, bench_opt_fn own,
		 void *ctx)
{
	unsigned char seen[256] = {0};
	int opt, rc;

	memset(c, 0, sizeof(*c));
	c->reps = 5;
	c->max_reps = max_reps;
	c->run_ms = 200;
	c->capacity = PFR_BENCH_CAPACITY;
	c->peers = 1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		rc = util_once("bench", lopts, seen, opt, NULL);
		if (rc)
			return rc;
		rc = parse_common(c, opt, optarg);
		if (rc == NOT_COMMON)
			rc = own(ctx, opt, argv);
		if (rc >= 0)
			return rc;
	}
	if (optind < argc)
		return util_usage_error("bench", "unexpected argument '%s'",
					argv[optind]);
	if (c->quick && !c->times_set)
		c->run_ms = 12;
	return -1;
}

int bench_check_cpus(const char *note)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) ||
	    !CPU_ISSET(bench_cpu[0], &set) || !CPU_ISSET(bench_cpu[1], &set)) {
		bench_pinned = 0;
		fprintf(stderr,
			"perfring bench: CPUs %d and %d are not both "
			"available: running unpinned%s\n",
			bench_cpu[0], bench_cpu[1], note);
	}
	return CPU_COUNT(&set);
}

int bench_warn_busy(double share)
{
	if (share <= 0.10)
		return 0;
	fprintf(stderr,
		"perfring bench: warning: the bench CPUs were %.0f%% busy "
		"before the run: results will be noisy\n",
		100 * share);
	return 1;
}

void bench_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!c || (strncmp(line, "model name", 10) &&
			   strncmp(line, "Processor", 9) &&
			   strncmp(line, "cpu model", 9) &&
			   strncmp(line, "uarch", 5)))
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		c[strcspn(c, "\n")] = 0;
		snprintf(buf, len, "%s", c);
		break;
	}
	fclose(f);
}
