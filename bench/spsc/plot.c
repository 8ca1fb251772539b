/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/plot.c - --plot of the one-writer bench: throughput (messages/s
 * and GB/s) against payload for every contestant of the reference
 * placement, by gnuplot; and, for --capacities (bench/spsc/sweep.c), the rows
 * each capacity's run adds to the sweep's plot of throughput against
 * capacity.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spsc.h"

int run_gnuplot(const char *script)
{
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
									: -1;
}

/* One data file per contestant (dir/sN.dat: payload, M/s median, min,
 * max, GB/s) and dir/memcpy.dat; returns the number of series. */
static int plot_data(const char *dir, const struct cell *cells, int ncells,
		     const double *memcpy_gbps, const struct opts *op)
{
	char path[512];
	int series = 0;
	FILE *d;

	for (int i = 0; i < ncells; i++) {
		if (i && cells[i].q == cells[i - 1].q)
			continue;
		snprintf(path, sizeof(path), "%s/s%d.dat", dir, series++);
		d = fopen(path, "w");
		if (!d)
			break;
		for (int j = i; j < ncells && cells[j].q == cells[i].q; j++) {
			double med, lo, hi;

			if (cells[j].unsupported || cells[j].failed)
				continue;
			cell_stats(&cells[j], &med, &lo, &hi);
			fprintf(d, "%zu %g %g %g %g\n", cells[j].payload,
				med / 1e6, lo / 1e6, hi / 1e6,
				med * (double)cells[j].payload / 1e9);
		}
		fclose(d);
	}
	snprintf(path, sizeof(path), "%s/memcpy.dat", dir);
	d = fopen(path, "w");
	if (d) {
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
			if (op->payload_on[p] && memcpy_gbps[p] > 0)
				fprintf(d, "%zu %g\n", bench_payloads[p],
					memcpy_gbps[p]);
		fclose(d);
	}
	return series;
}

/* The two panels (messages/s, GB/s), a line per series. */
static void plot_panels(FILE *gp, const char *dir, const struct cell *cells,
			int ncells)
{
	char lab[96];

	for (int panel = 0; panel < 2; panel++) {
		int s = 0;

		fprintf(gp, "set ylabel '%s'\nplot ",
			panel ? "GB/s (payload bytes)"
			      : "million messages / s (median)");
		for (int i = 0; i < ncells; i++) {
			int peer = strcmp(cells[i].q->name, "perfring") != 0;

			if (i && cells[i].q == cells[i - 1].q)
				continue;
			label(lab, sizeof(lab), cells[i].q);
			/* perfring solid, the peers dashed */
			fprintf(gp,
				"%s'%s/s%d.dat' using 1:%d with linespoints "
				"lw %s dt %d pt %d lc %d title '%s'",
				s ? ", " : "", dir, s, panel ? 5 : 2,
				peer ? "1.5" : "2", peer ? 2 : 1, 1 + s % 13,
				1 + s % 8, lab);
			s++;
		}
		if (panel)
			fprintf(gp,
				", '%s/memcpy.dat' using 1:2 with lines lw 3 "
				"lc rgb 'black' title 'memcpy (one core)'",
				dir);
		fprintf(gp, "\n");
	}
}

int write_plot(const char *file, struct cell *cells, int ncells,
	       const double *memcpy_gbps, const struct meta *m,
	       const struct opts *op)
{
	char dir[] = "/tmp/perfring-plot.XXXXXX", path[512];
	const char *ext = strrchr(file, '.');
	const char *term;
	FILE *gp;
	int series, rc;

	if (ext && !strcmp(ext, ".svg"))
		term = "svg size 1400,640 dynamic font 'sans,11'";
	else
		term = "pngcairo size 1400,640 font 'sans,10'";
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	gp = fopen(path, "w");
	if (!gp) {
		rmdir(dir);
		return -1;
	}
	fprintf(gp, "set terminal %s noenhanced\nset output '%s'\n", term,
		file);
	fprintf(gp,
		"set multiplot layout 1,2 title 'perfring bench: %s, "
		"producer CPU%d, consumer CPU%d, capacity %zu KiB (1 MiB "
		"for 64 KiB); vCPU placement: round trip %.0f-%.0f ns'\n",
		m->cpu, bench_cpu[0], bench_cpu[1], op->capacity / 1024,
		m->nbands ? m->bands[m->ref].lo : 0,
		m->nbands ? m->bands[m->ref].hi : 0);
	fprintf(gp, "set logscale xy\nset grid\nset key outside bottom center "
		    "horizontal maxrows 6 font ',8'\n"
		    "set xlabel 'payload bytes'\n"
		    "set xtics ('8' 8, '64' 64, '256' 256, '1K' 1024, '4K' "
		    "4096, '64K' 65520)\n");
	series = plot_data(dir, cells, ncells, memcpy_gbps, op);
	plot_panels(gp, dir, cells, ncells);
	fprintf(gp, "unset multiplot\n");
	fclose(gp);
	rc = run_gnuplot(path);
	/* leave the script and data next to nothing: remove them */
	for (int s = 0; s < series; s++) {
		snprintf(path, sizeof(path), "%s/s%d.dat", dir, s);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/memcpy.dat", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	unlink(path);
	rmdir(dir);
	return rc;
}

/* --capacities: appends this run's medians (reported placement) to the
 * sweep's data file: capacity payload med lo hi label. */
void sweep_rows(const char *file, const struct cell *cells, int ncells,
		const struct opts *op)
{
	FILE *f = fopen(file, "a");
	char lab[96];

	if (!f)
		return;
	for (int i = 0; i < ncells; i++) {
		double med, lo, hi;

		if (cells[i].unsupported || cells[i].failed || !cells[i].nreps)
			continue;
		cell_stats(&cells[i], &med, &lo, &hi);
		label(lab, sizeof(lab), cells[i].q);
		fprintf(f, "%zu %zu %g %g %g %s\n",
			PFR_BENCH_CAPACITY_FOR(op->capacity, cells[i].payload),
			cells[i].payload, med / 1e6, lo / 1e6, hi / 1e6, lab);
	}
	fclose(f);
}
