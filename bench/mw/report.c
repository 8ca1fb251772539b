/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/report.c - the report of the many-writer bench (see
 * bench/mw/cmd.h): the run's description, a row per result (a table or
 * JSON Lines), the targets, and the readers' stalls with 3 or more
 * writers.
 */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <perfring/barrier.h>
#include <perfring/common.h>

#include "../../util/util.h"
#include "../core/cmd_opts.h"
#include "cmd.h"

static void flags(char *buf, size_t len, const struct mw_cell *c)
{
	int busy = 0;

	for (int r = 0; r < c->nreps; r++)
		busy += c->used[r] && c->busy[r];
	snprintf(buf, len, "%s%s%s%s", c->failed ? "failed," : "",
		 busy * 2 > c->nreps ? "busy," : "", c->mixed ? "mixed," : "",
		 c->capped ? "capped," : "");
	if (*buf)
		buf[strlen(buf) - 1] = 0;
}

static const struct mw_cell *best_of(const struct mw_cell *cells, int ncells,
				     int kind, size_t payload, unsigned writers,
				     double *v)
{
	const struct mw_cell *b = NULL;
	double bv = 0, lo, hi;

	for (int i = 0; i < ncells; i++) {
		const struct mw_cell *c = &cells[i];
		double x;

		if ((c->q->kind & PFR_MW_KIND_MASK) != kind ||
		    c->payload != payload || c->writers != writers ||
		    c->failed || c->unsupported || !c->nreps)
			continue;
		x = mw_cell_med(c, c->mps, &lo, &hi);
		if (!b || x > bv) {
			b = c;
			bv = x;
		}
	}
	*v = bv;
	return b;
}

static void targets(FILE *out, const struct mw_cell *cells, int ncells,
		    const struct mw_opts *op)
{
	static const struct {
		int mine, peer;
		const char *name, *peers;
	} t[2] = {
		{PFR_MW_KIND_GROUP, PFR_MW_KIND_SUBQ, "group",
		 "moodycamel ConcurrentQueue"},
		{PFR_MW_KIND_MPSC, PFR_MW_KIND_SHARED, "mpsc",
		 "rte_ring MP / ck_ring MPSC"},
	};
	static const size_t pl[2] = {8, 64};
	char la[96], lb[96];

	if (!op->json)
		fprintf(out, "\ntargets (ratios within this run and "
			     "placement)\n");
	for (int k = 0; k < 2; k++)
		for (unsigned w = 1; w <= 2; w++)
			for (int p = 0; p < 2; p++) {
				const struct mw_cell *a, *b;
				double va, vb;

				a = best_of(cells, ncells, t[k].mine, pl[p], w,
					    &va);
				b = best_of(cells, ncells, t[k].peer, pl[p], w,
					    &vb);
				if (!a || !b || vb <= 0)
					continue;
				mw_label(la, sizeof(la), a->q);
				mw_label(lb, sizeof(lb), b->q);
				if (op->json) {
					fprintf(out,
						"{\"kind\":\"target\","
						"\"target\":\"%s >= best %s\","
						"\"writers\":%u,\"payload\":%zu,"
						"\"perfring\":",
						t[k].name, t[k].peers, w,
						pl[p]);
					util_json_str(out, la);
					fprintf(out, ",\"peer\":");
					util_json_str(out, lb);
					fprintf(out,
						",\"perfring_mps\":%.0f,"
						"\"peer_mps\":%.0f,"
						"\"ratio\":%.3f,\"met\":%s}\n",
						va, vb, va / vb,
						va >= vb ? "true" : "false");
				} else {
					fprintf(out,
						"  %-5s %u writer%s %2zu B: %s "
						"%.1f / %s %.1f M/s = %.2fx "
						"%s\n",
						t[k].name, w, w > 1 ? "s" : " ",
						pl[p], la, va / 1e6, lb,
						vb / 1e6, va / vb,
						va >= vb ? "MET" : "missed");
				}
			}
}

#ifndef PFR_BENCH_CFLAGS
#define PFR_BENCH_CFLAGS "unknown"
#endif

/* The CPU list as given, or how the default places them. */
static const char *cpus_text(const struct mw_opts *op, char *buf, size_t len)
{
	size_t k = 0;

	if (!bench_pinned) {
		snprintf(buf, len, "none pinned");
		return buf;
	}
	if (!op->ncpus) {
		snprintf(buf, len,
			 "default (reader on the first, writers on the "
			 "others while they last, then on all in turn)");
		return buf;
	}
	buf[0] = 0;
	for (int i = 0; i < op->ncpus && k + 16 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%d",
				      i == 0   ? "reader "
				      : i == 1 ? ", writers "
					       : ",",
				      op->cpus[i]);
	return buf;
}

/* A cell's CPUs: "R:w0,w1,...". */
static void cell_cpus(const struct mw_cell *c, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	if (!c->place.pinned) {
		snprintf(buf, len, "unpinned");
		return;
	}
	for (unsigned i = 0; i <= c->writers && k + 8 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%d",
				      i == 0   ? ""
				      : i == 1 ? ":"
					       : ",",
				      c->cpus[i]);
}

static void print_meta(FILE *out, const struct mw_opts *op, double rlo,
		       double rhi, double mw_busy_share,
		       const struct mw_cell *cells, int ncells)
{
	char cpu[256], kern[256] = "unknown", pn[24], cl[256];
	struct utsname u;
	cpu_set_t set;
	int ncpu = 0;

	bench_cpu_model(cpu, sizeof(cpu));
	if (!uname(&u))
		snprintf(kern, sizeof(kern), "%s %s %s", u.sysname, u.release,
			 u.machine);
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set))
		ncpu = CPU_COUNT(&set);
	if (!op->json) {
		printf("perfring bench --writers: %s, %d CPUs; CPUs %s; %s; "
		       "capacity %zu KiB in all\n",
		       cpu, ncpu, cpus_text(op, cl, sizeof(cl)),
		       op->processes ? "writers are processes"
				     : "writers are threads",
		       op->capacity / 1024);
		printf("vCPU placement of the results: cache-line round trip "
		       "%.0f-%.0f ns; CPUs %.0f%% busy before the run\n",
		       rlo, rhi, 100 * mw_busy_share);
		return;
	}
	fprintf(out, "{\"kind\":\"meta\",\"bench\":\"writers\",\"cpu\":");
	util_json_str(out, cpu);
	fprintf(out, ",\"kernel\":");
	util_json_str(out, kern);
	fprintf(out,
		",\"ncpu\":%d,\"cpus\":\"%s\","
		"\"processes\":%s,\"capacity\":%zu,\"reps\":%d,"
		"\"time_ms\":%.0f,\"quick\":%s,\"writers\":[",
		ncpu, cpus_text(op, cl, sizeof(cl)),
		op->processes ? "true" : "false", op->capacity, op->reps,
		op->run_ms, op->quick ? "true" : "false");
	for (int i = 0; i < op->nw; i++)
		fprintf(out, "%s%u", i ? "," : "", op->wcount[i]);
	fprintf(out, "],\"payloads\":[");
	for (int i = 0; i < op->np; i++)
		fprintf(out, "%s\"%s\"", i ? "," : "",
			mw_payload_name(op->payloads[i], pn, sizeof(pn)));
	fprintf(out,
		"],\"rtt_ns\":[%.1f,%.1f],\"busy_before\":%.3f,"
		"\"stall\":\"reader polls found nothing while a writer was "
		"still sending: from the first empty poll to the next "
		"message\",\"compiler\":",
		rlo, rhi, mw_busy_share);
	util_json_str(out, util_compiler());
	fprintf(out, ",\"flags\":");
	util_json_str(out, PFR_BENCH_CFLAGS);
	/* the contestants of this run (a cell per writer count and
	 * payload each) */
	fprintf(out, ",\"contestants\":[");
	for (int i = 0; i < ncells; i++) {
		char lab[96];

		if (i && cells[i].q == cells[i - 1].q)
			continue;
		mw_label(lab, sizeof(lab), cells[i].q);
		if (i)
			fputc(',', out);
		util_json_str(out, lab);
	}
	fprintf(out, "]}\n");
}

static void print_cell(FILE *out, const struct mw_cell *c,
		       const struct mw_opts *op)
{
	char lab[96], fl[64], pn[24];
	double m = 0, lo = 0, hi = 0, p99 = 0, smax = 0, wmin = 0, wmax = 0,
	       share = 0, rtt = 0, fair = 0;
	char cc[PFR_MW_MAX_WRITERS * 5 + 16];

	mw_label(lab, sizeof(lab), c->q);
	flags(fl, sizeof(fl), c);
	mw_payload_name(c->payload, pn, sizeof(pn));
	if (!c->failed && !c->unsupported) {
		m = mw_cell_med(c, c->mps, &lo, &hi);
		p99 = mw_cell_med(c, c->p99, NULL, NULL);
		smax = mw_cell_maxv(c, c->smax);
		wmin = mw_cell_med(c, c->wmin, NULL, NULL);
		wmax = mw_cell_med(c, c->wmax, NULL, NULL);
		share = mw_cell_med(c, c->stall_share, NULL, NULL);
		rtt = mw_cell_med(c, c->rtt, NULL, NULL);
		fair = mw_cell_med(c, c->fair, NULL, NULL);
	}
	cell_cpus(c, cc, sizeof(cc));
	if (op->json) {
		fprintf(out, "{\"kind\":\"writers\",\"queue\":");
		util_json_str(out, c->q->name);
		fprintf(out, ",\"variant\":");
		util_json_str(out, c->q->variant);
		fprintf(out, ",\"label\":");
		util_json_str(out, lab);
		fprintf(out,
			",\"writers\":%u,\"payload\":\"%s\","
			"\"processes\":%s,\"placement\":\"%s\","
			"\"writers_own_cpu\":%u,\"writers_with_reader\":%u,"
			"\"writers_time_shared\":%u,\"cpus\":\"%s\","
			"\"supported\":%s",
			c->writers, pn, op->processes ? "true" : "false",
			mw_place_name(&c->place), c->place.own, c->place.reader,
			c->place.timeshared, cc,
			c->unsupported ? "false" : "true");
		if (c->unsupported) {
			fprintf(out, "}\n");
			return;
		}
		fprintf(out, ",\"per_writer_order\":%s",
			c->q->kind & PFR_MW_UNORDERED ? "false" : "true");
		fprintf(out,
			",\"runs\":%d,\"messages_per_run\":%llu,"
			"\"verified\":%s,\"messages_verified\":%llu",
			c->nreps, (unsigned long long)c->n,
			c->failed ? "false" : "true",
			(unsigned long long)c->messages);
		if (!c->failed)
			fprintf(out,
				",\"mps\":%.0f,\"mps_min\":%.0f,"
				"\"mps_max\":%.0f,\"writer_mps_min\":%.3f,"
				"\"writer_mps_max\":%.3f,"
				"\"stall_p99_ns\":%.0f,\"stall_max_ns\":%.0f,"
				"\"stall_share\":%.4f,\"rtt_ns\":%.1f,"
				"\"fairness\":%.3f",
				m, lo, hi, wmin * 1e6, wmax * 1e6, p99, smax,
				share, rtt, fair);
		fprintf(out, ",\"flags\":\"%s\"", fl);
		if (c->failed) {
			fprintf(out, ",\"error\":");
			util_json_str(out, c->why);
		}
		fprintf(out, "}\n");
		return;
	}
	if (c->unsupported)
		return;
	if (c->failed) {
		fprintf(out, "%-26s %2u %4s  FAILED: %s\n", lab, c->writers, pn,
			c->why);
		return;
	}
	fprintf(out,
		"%-26s %2u %4s %8.2f  %7.2f-%-7.2f %5.2f %7.2f %7.2f %9.1f "
		"%9.1f %5.1f%% %-18s %-9s %s\n",
		lab, c->writers, pn, m / 1e6, lo / 1e6, hi / 1e6, fair, wmin,
		wmax, p99 / 1e3, smax / 1e3, 100 * share,
		mw_place_name(&c->place), cc, fl);
}

/* With 3 or more writers: the reader's stall. */
static void stalls(FILE *out, const struct mw_cell *cells, int ncells)
{
	for (int i = 0; i < ncells; i++) {
		const struct mw_cell *c = &cells[i];
		int kind = c->q->kind & PFR_MW_KIND_MASK;
		char lab[96], pn[24];

		if ((kind != PFR_MW_KIND_GROUP && kind != PFR_MW_KIND_MPSC) ||
		    c->writers < 3 || c->failed || c->unsupported)
			continue;
		mw_label(lab, sizeof(lab), c->q);
		fprintf(out,
			"  %s, %u writers (%s), %s B: reader stall p99 "
			"%.1f us, max %.1f us; slowest writer %.2f M/s, "
			"fairness %.2f\n",
			lab, c->writers, mw_place_name(&c->place),
			mw_payload_name(c->payload, pn, sizeof(pn)),
			mw_cell_med(c, c->p99, NULL, NULL) / 1e3,
			mw_cell_maxv(c, c->smax) / 1e3,
			mw_cell_med(c, c->wmin, NULL, NULL),
			mw_cell_med(c, c->fair, NULL, NULL));
	}
}

int mw_report(FILE *out, const struct mw_cell *cells, int ncells,
	      const struct mw_opts *op, double rlo, double rhi, double bshare)
{
	int rc = 0;

	print_meta(out, op, rlo, rhi, bshare, cells, ncells);
	if (!op->json) {
		fprintf(out,
			"\n%-26s %2s %4s %8s  %-15s %5s %7s %7s %9s %9s %6s "
			"%-18s %-9s %s\n",
			"contestant", "w", "B", "M msg/s", "  range", "fair",
			"wr min", "wr max", "stall p99", "stall max", "stall",
			"placement", "CPUs", "flags");
		fprintf(out,
			"%-26s %2s %4s %8s  %-15s %5s %7s %7s %9s %9s %6s "
			"%-18s %-9s\n",
			"", "", "", "(median)", "", "", "M/s", "M/s", "us",
			"us", "share", "", "R:writers");
	}
	for (int i = 0; i < ncells; i++) {
		print_cell(out, &cells[i], op);
		if (cells[i].failed)
			rc = 1;
	}
	targets(out, cells, ncells, op);
	if (!op->json)
		stalls(out, cells, ncells);
	return rc;
}
