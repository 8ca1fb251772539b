/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/plot.c - --plot of the many-writer bench: throughput
 * (the median, with the range of the runs as error bars) against the
 * number of writers, a line per contestant, a panel per payload, by
 * gnuplot.  The x axis names each writer count's placement (own CPU,
 * shared with reader, time-shared), since a figure means nothing without
 * it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/cmd_opts.h"
#include "cmd.h"
#include "../spsc/spsc.h"

/* dir/sP_Q.dat for payload index p, contestant series q: writers, M/s
 * median, min, max.  Returns the number of contestants. */
static int mw_plot_data(const char *dir, const struct mw_cell *cells,
			int ncells, const struct mw_opts *op)
{
	char path[512];
	int series = 0;

	for (int i = 0; i < ncells; i++) {
		if (i && cells[i].q == cells[i - 1].q)
			continue;
		for (int p = 0; p < op->np; p++) {
			FILE *d;

			snprintf(path, sizeof(path), "%s/s%d_%d.dat", dir, p,
				 series);
			d = fopen(path, "w");
			if (!d)
				return series;
			for (int j = i; j < ncells && cells[j].q == cells[i].q;
			     j++) {
				const struct mw_cell *c = &cells[j];
				double m, lo, hi;

				if (c->payload != op->payloads[p] ||
				    c->unsupported || c->failed || !c->nreps)
					continue;
				m = mw_cell_med(c, c->mps, &lo, &hi);
				fprintf(d, "%u %g %g %g\n", c->writers, m / 1e6,
					lo / 1e6, hi / 1e6);
			}
			fclose(d);
		}
		series++;
	}
	return series;
}

/* The x tics: each writer count with its placement. */
static void mw_plot_xtics(FILE *gp, const struct mw_cell *cells, int ncells,
			  const struct mw_opts *op)
{
	fprintf(gp, "set xtics (");
	for (int w = 0; w < op->nw; w++) {
		const char *pn = "";

		for (int i = 0; i < ncells; i++)
			if (cells[i].writers == op->wcount[w]) {
				pn = mw_place_name(&cells[i].place);
				break;
			}
		fprintf(gp, "%s\"%u\\n%s\" %u", w ? ", " : "", op->wcount[w],
			pn, op->wcount[w]);
	}
	fprintf(gp, ")\n");
}

static void mw_plot_panels(FILE *gp, const char *dir,
			   const struct mw_cell *cells, int ncells,
			   const struct mw_opts *op)
{
	char lab[96], pn[24];

	for (int p = 0; p < op->np; p++) {
		int s = 0;

		fprintf(gp,
			"set title '%s-byte messages'\n"
			"set ylabel 'million messages / s (median, range)'\n"
			"plot ",
			mw_payload_name(op->payloads[p], pn, sizeof(pn)));
		for (int i = 0; i < ncells; i++) {
			int mine;

			if (i && cells[i].q == cells[i - 1].q)
				continue;
			mine = !strncmp(cells[i].q->name, "perfring", 8);
			mw_label(lab, sizeof(lab), cells[i].q);
			/* perfring solid, the peers dashed */
			fprintf(gp,
				"%s'%s/s%d_%d.dat' using 1:2:3:4 with "
				"yerrorlines lw %s dt %d pt %d lc %d "
				"title '%s'",
				s ? ", " : "", dir, p, s, mine ? "2" : "1.5",
				mine ? 1 : 2, 1 + s % 13, 1 + s % 8, lab);
			s++;
		}
		fprintf(gp, "\n");
	}
}

int mw_plot(const char *file, const struct mw_cell *cells, int ncells,
	    const struct mw_opts *op, double rlo, double rhi)
{
	char dir[] = "/tmp/perfring-mwplot.XXXXXX", path[512], cpu[256];
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
	bench_cpu_model(cpu, sizeof(cpu));
	fprintf(gp, "set terminal %s noenhanced\nset output '%s'\n", term,
		file);
	fprintf(gp,
		"set multiplot layout 1,%d title 'perfring bench --writers: "
		"%s, %s, capacity %zu KiB; vCPU placement: round trip "
		"%.0f-%.0f ns'\n",
		op->np, cpu,
		op->processes ? "writers are processes" : "writers are threads",
		op->capacity / 1024, rlo, rhi);
	fprintf(gp, "set logscale xy\nset grid\nset key outside bottom center "
		    "horizontal maxrows 5 font ',8'\n"
		    "set bmargin 9\n"
		    "set xlabel 'writers (and their placement)' offset 0,-1\n");
	mw_plot_xtics(gp, cells, ncells, op);
	series = mw_plot_data(dir, cells, ncells, op);
	mw_plot_panels(gp, dir, cells, ncells, op);
	fprintf(gp, "unset multiplot\n");
	fclose(gp);
	rc = run_gnuplot(path);
	for (int p = 0; p < op->np; p++)
		for (int s = 0; s < series; s++) {
			snprintf(path, sizeof(path), "%s/s%d_%d.dat", dir, p,
				 s);
			unlink(path);
		}
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	unlink(path);
	rmdir(dir);
	return rc;
}
