/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/sweep.c - `perfring bench --capacities LIST`: the whole bench
 * (every contestant selected, perfring and the peers alike) once per
 * queue capacity, each run in a child process with --capacity, one after
 * the other; with --plot, one plot of throughput against capacity, a
 * panel per payload, from the reported placement of each run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../util/util.h"
#include "../core/bench_cmd.h"
#include "spsc.h"

#define SWEEP_MAX 8
#define SERIES_MAX 64

/* "32K", "32Ki", "4M", "262144": bytes (K and M are binary here). */
static int parse_cap(const char *s, size_t len, unsigned long long *out)
{
	char buf[32];
	unsigned long long v;

	if (!len || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (util_parse_size(buf, &v)) /* the grammar of --capacity */
		return -1;
	if (v < 4096 || v > (1ull << 30) || (v & (v - 1)))
		return -1;
	*out = v;
	return 0;
}

struct series {
	char label[96];
	FILE *f;
	char path[600];
	int n;
	size_t payload[SWEEP_MAX * 8];
	double cap[SWEEP_MAX * 8], med[SWEEP_MAX * 8];
};

/* Plots the rows of `data` (capacity payload med lo hi label). */
static int sweep_plot(const char *file, const char *data)
{
	char dir[] = "/tmp/perfring-sweep.XXXXXX", path[600], line[512];
	static struct series s[SERIES_MAX];
	size_t payloads[8];
	int ns = 0, np = 0, rc = -1;
	const char *ext = strrchr(file, '.');
	FILE *in = fopen(data, "r"), *gp;

	if (!in || !mkdtemp(dir)) {
		if (in)
			fclose(in);
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		unsigned long long cap;
		size_t payload;
		double med, lo, hi;
		char lab[96];
		int i, k;

		if (sscanf(line, "%llu %zu %lf %lf %lf %95[^\n]", &cap,
			   &payload, &med, &lo, &hi, lab) != 6)
			continue;
		for (k = 0; k < np && payloads[k] != payload; k++)
			;
		if (k == np && np < 8)
			payloads[np++] = payload;
		for (i = 0; i < ns && strcmp(s[i].label, lab); i++)
			;
		if (i == ns) {
			if (ns == SERIES_MAX)
				continue;
			snprintf(s[ns].label, sizeof(s[ns].label), "%s", lab);
			snprintf(s[ns].path, sizeof(s[ns].path), "%s/s%d.dat",
				 dir, ns);
			s[ns].f = fopen(s[ns].path, "w");
			if (!s[ns].f)
				continue;
			ns++;
		}
		if (s[i].n < SWEEP_MAX * 8) {
			s[i].payload[s[i].n] = payload;
			s[i].cap[s[i].n] = (double)cap / 1024;
			s[i].med[s[i].n++] = med;
		}
		(void)lo;
		(void)hi;
	}
	fclose(in);
	/* each payload's points together, in capacity order (the runs came
	 * in that order), so that gnuplot joins them */
	for (int i = 0; i < ns; i++) {
		for (int k = 0; k < np; k++)
			for (int j = 0; j < s[i].n; j++)
				if (s[i].payload[j] == payloads[k])
					fprintf(s[i].f, "%zu %g %g\n",
						s[i].payload[j], s[i].cap[j],
						s[i].med[j]);
		fclose(s[i].f);
	}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	gp = fopen(path, "w");
	if (!gp)
		goto out;
	fprintf(gp, "set terminal %s noenhanced\nset output '%s'\n",
		ext && !strcmp(ext, ".svg")
			? "svg size 1400,640 dynamic font 'sans,11'"
			: "pngcairo size 1400,640 font 'sans,10'",
		file);
	fprintf(gp,
		"set multiplot layout 1,%d title 'perfring bench: "
		"throughput against queue capacity (each capacity its own "
		"run, its reported placement)'\n",
		np ? np : 1);
	fprintf(gp, "set logscale xy\nset grid\nset key outside bottom center "
		    "horizontal maxrows 6 font ',8'\n"
		    "set xlabel 'capacity, KiB'\n"
		    "set ylabel 'million messages / s (median)'\n");
	for (int k = 0; k < np; k++) {
		fprintf(gp, "set title '%zu-byte payloads'\nplot ",
			payloads[k]);
		for (int i = 0; i < ns; i++)
			fprintf(gp,
				"%s'%s' using 2:($1==%zu?$3:1/0) with "
				"linespoints lw %s dt %d lc %d pt %d title "
				"'%s'",
				i ? ", " : "", s[i].path, payloads[k],
				strncmp(s[i].label, "perfring", 8) ? "1.5"
								   : "2",
				strncmp(s[i].label, "perfring", 8) ? 2 : 1,
				1 + i % 13, 1 + i % 8, s[i].label);
		fprintf(gp, "\n");
	}
	fprintf(gp, "unset multiplot\n");
	fclose(gp);
	rc = run_gnuplot(path);
	unlink(path);
out:
	for (int i = 0; i < ns; i++)
		unlink(s[i].path);
	rmdir(dir);
	return rc;
}

int bench_sweep(int argc, char **argv)
{
	unsigned long long caps[SWEEP_MAX];
	const char *list = NULL, *plot = NULL;
	char data[] = "/tmp/perfring-sweep-data.XXXXXX", capstr[32];
	char **av;
	int ncaps = 0, ac = 0, human = 1, rc = 0, fd = -1;

	av = calloc((size_t)argc + 5, sizeof(*av));
	if (!av)
		return 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "--capacities") && i + 1 < argc) ||
		    !strncmp(a, "--capacities=", 13)) {
			if (list) {
				free(av);
				return util_usage_error(
					"bench", "--capacities given twice");
			}
			list = a[12] == '=' ? a + 13 : argv[++i];
		} else if (!strcmp(a, "--plot") && i + 1 < argc) {
			plot = argv[++i];
		} else if (!strncmp(a, "--plot=", 7)) {
			plot = a + 7;
		} else if (!strcmp(a, "--capacity") ||
			   !strncmp(a, "--capacity=", 11)) {
			free(av);
			return util_usage_error(
				"bench", "--capacity and --capacities exclude "
					 "each other");
		} else {
			if (!strcmp(a, "--json") || !strcmp(a, "--csv"))
				human = 0;
			av[ac++] = argv[i];
		}
	}
	while (list && *list && ncaps < SWEEP_MAX) {
		size_t len = strcspn(list, ",");

		if (parse_cap(list, len, &caps[ncaps++])) {
			free(av);
			return util_usage_error(
				"bench", "--capacities wants a list of powers "
					 "of two from 4K to 1M..., e.g. "
					 "32K,256K,4M");
		}
		list += len + (list[len] == ',');
	}
	if (!ncaps || (list && *list)) {
		free(av);
		return util_usage_error("bench",
					"--capacities wants 1 to 8 sizes");
	}
	if (plot) {
		fd = mkstemp(data);
		if (fd < 0) {
			free(av);
			return 1;
		}
		close(fd);
	}
	for (int c = 0; c < ncaps; c++) {
		int n = ac, status = 0;
		pid_t pid;

		snprintf(capstr, sizeof(capstr), "%llu", caps[c]);
		av[n++] = (char *)"--capacity";
		av[n++] = capstr;
		if (plot) {
			av[n++] = (char *)"--sweep-data";
			av[n++] = data;
		}
		av[n] = NULL;
		if (human)
			printf("%s######## capacity %llu KiB ########\n\n",
			       c ? "\n" : "", caps[c] / 1024);
		fflush(NULL);
		pid = fork();
		if (pid < 0) {
			rc = 1;
			break;
		}
		if (pid == 0) {
			optind = 0; /* a fresh getopt in the child */
			fflush(NULL);
			_exit(bench_main(n, av));
		}
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	}
	if (plot) {
		if (sweep_plot(plot, data)) {
			fprintf(stderr,
				"perfring bench: could not draw %s (is "
				"gnuplot installed?)\n",
				plot);
			rc = 1;
		}
		unlink(data);
	}
	free(av);
	return rc;
}
