/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/report.c - the report of the one-writer bench (see bench/spsc/spsc.h):
 * the run's description (host, limits, placements), then for the
 * reference placement (and any other most contestants ran in) a row per
 * throughput and latency result, as a table, JSON Lines or CSV, and the
 * targets (bench/spsc/targets.c); --plot draws the reference (bench/spsc/plot.c).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <perfring/barrier.h>
#include <perfring/common.h>
#include <perfring/ring.h>

#include "../../util/util.h"
#include "spsc.h"

#ifndef PFR_BENCH_CFLAGS
#define PFR_BENCH_CFLAGS "unknown"
#endif

void json_kv_str(FILE *f, const char *k, const char *v, int comma)
{
	fprintf(f, "%s\"%s\":", comma ? "," : "", k);
	util_json_str(f, v);
}

static void flags_str(char *buf, size_t len, int busy, int drift, int failed)
{
	snprintf(buf, len, "%s%s%s%s%s", busy ? "busy" : "",
		 busy && drift ? "," : "", drift ? "few-runs" : "",
		 (busy || drift) && failed ? "," : "", failed ? "failed" : "");
}

/* ---- the run: host, limits, placements ---- */

static void head_json_meta(const struct bench *b)
{
	const struct meta *m = &b->m;
	const struct opts *op = &b->op;
	FILE *out = b->out;
	int k = 0;

	fprintf(out, "{\"kind\":\"meta\"");
	json_kv_str(out, "perfring", pfr_version(), 1);
	json_kv_str(out, "cpu", m->cpu, 1);
	fprintf(out, ",\"cpus_online\":%ld,\"cpus_allowed\":%d",
		sysconf(_SC_NPROCESSORS_ONLN), m->ncpu);
	fprintf(out, ",\"producer_cpu\":%d,\"consumer_cpu\":%d,\"pinned\":%s",
		bench_cpu[0], bench_cpu[1], bench_pinned ? "true" : "false");
	json_kv_str(out, "kernel", m->kernel, 1);
	json_kv_str(out, "compiler", util_compiler(), 1);
	json_kv_str(out, "flags", PFR_BENCH_CFLAGS, 1);
	json_kv_str(out, "backend", PFR_BARRIER_BACKEND, 1);
	fprintf(out,
		",\"capacity_bytes\":%zu,\"reps\":%d,\"run_ms\":%g,"
		"\"quick\":%s",
		op->capacity, op->reps, op->run_ms,
		op->quick ? "true" : "false");
	fprintf(out, ",\"busy_at_start\":%s,\"busy_at_start_share\":%.3f",
		m->busy_start ? "true" : "false", m->busy_start_share);
	fprintf(out, ",\"rtt_ns_min\":%.1f,\"rtt_ns_max\":%.1f", m->rtt_min,
		m->rtt_max);
	fprintf(out, ",\"rounds\":%d,\"placements\":[", b->nrounds);
	for (int i = 0; i < m->nbands; i++)
		fprintf(out,
			"%s{\"rtt_ns_lo\":%.1f,\"rtt_ns_hi\":%.1f,\"runs\":%d,"
			"\"reference\":%s}",
			i ? "," : "", m->bands[i].lo, m->bands[i].hi,
			m->bands[i].runs, i == m->ref ? "true" : "false");
	fprintf(out, "]");
	fprintf(out, ",\"contestants\":[");
	for (int i = 0; i < b->ncells; i++) {
		const struct cell *c = &b->cells[i];

		if (i &&
		    (c->q == c[-1].q || !strcmp(c->q->name, c[-1].q->name)))
			continue;
		fprintf(out, "%s", k++ ? "," : "");
		util_json_str(out, c->q->name);
	}
	fprintf(out, "]}\n");
}

static void head_json(const struct bench *b, double rtt_med)
{
	const struct opts *op = &b->op;
	FILE *out = b->out;

	head_json_meta(b);
	fprintf(out,
		"{\"kind\":\"rtt\",\"rtt_ns\":%.1f,\"rtt_ns_mean\":%.1f,"
		"\"one_way_ns\":%.1f}\n",
		rtt_med, b->rtt_mean0, rtt_med / 2);
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
		if (op->payload_on[p])
			fprintf(out,
				"{\"kind\":\"memcpy\",\"payload_bytes\":%zu,"
				"\"gbytes_per_s\":%.2f}\n",
				bench_payloads[p], b->memcpy_gbps[p]);
	for (int k = 0; k < 2; k++)
		fprintf(out,
			"{\"kind\":\"xcore\",\"working_set_bytes\":%zu,"
			"\"gbytes_per_s\":%.2f}\n",
			k ? PFR_BENCH_CAPACITY_FOR(op->capacity,
						   PFR_BENCH_MAX_PAYLOAD)
			  : op->capacity,
			b->xcore_gbps[k]);
	for (int i = 0; i < b->nbar; i++) {
		fprintf(out, "{\"kind\":\"barrier\"");
		json_kv_str(out, "primitive", b->bar[i].name, 1);
		fprintf(out, ",\"ns_per_op\":%.3f}\n", b->bar[i].ns);
	}
}

static void head_csv(const struct bench *b, double rtt_med)
{
	FILE *out = b->out;

	fprintf(out, "kind,contestant,variant,payload_bytes,batched,"
		     "batch,ordering,policy,transport,"
		     "msgs_per_s_median,msgs_per_s_min,"
		     "msgs_per_s_max,gbytes_per_s_median,rtt_ns,"
		     "verified,reps,messages,lost,latency_ns_p50,"
		     "latency_ns_p99,flags,placement\n");
	fprintf(out, "rtt,,,,,,,,,,,,,%.1f,,,,,%.1f,,,%d\n", rtt_med,
		rtt_med / 2, b->m.ref);
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
		if (b->op.payload_on[p])
			fprintf(out,
				"memcpy,memcpy,,%zu,,,,,,,,,%.3f,,,,,,,,,\n",
				bench_payloads[p], b->memcpy_gbps[p]);
	fprintf(out, "xcore,xcore,,%zu,,,,,,,,,%.3f,,,,,,,,,\n", b->op.capacity,
		b->xcore_gbps[0]);
}

static void head_text(const struct bench *b, double rtt_med)
{
	const struct meta *m = &b->m;
	const struct opts *op = &b->op;
	FILE *out = b->out;

	fprintf(out,
		"perfring bench %s: %s; producer CPU%d, consumer CPU%d%s; "
		"%s; %s %s; barrier backend %s\n",
		pfr_version(), m->cpu, bench_cpu[0], bench_cpu[1],
		bench_pinned ? " (pinned)" : " (NOT pinned)", m->kernel,
		util_compiler(), PFR_BENCH_CFLAGS, PFR_BARRIER_BACKEND);
	fprintf(out,
		"capacity %zu KiB (1 MiB for 65520-byte payloads); %d "
		"interleaved repetitions of %g ms runs; median [min-max]\n",
		op->capacity / 1024, op->reps, op->run_ms);
	if (m->busy_start)
		fprintf(out,
			"WARNING: the CPUs were %.0f%% busy before the "
			"run\n",
			100 * m->busy_start_share);
	fprintf(out,
		"\ncache-line round trip CPU%d<->CPU%d, reported placement: "
		"%.1f ns median (one-way %.1f ns); all rounds %.1f..%.1f ns\n",
		bench_cpu[0], bench_cpu[1], rtt_med, rtt_med / 2, m->rtt_min,
		m->rtt_max);
	if (m->nbands > 1) {
		fprintf(out, "vCPU placements seen (round trip, runs):");
		for (int k = 0; k < m->nbands; k++)
			fprintf(out, "%s %.0f-%.0f ns %d%s", k ? ";" : "",
				m->bands[k].lo, m->bands[k].hi,
				m->bands[k].runs,
				k == m->ref ? " (reported)" : "");
		fprintf(out, "\n");
	}
	fprintf(out, "memcpy, one core, GB/s:");
	for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++)
		if (op->payload_on[p])
			fprintf(out, "  %zu B %.1f", bench_payloads[p],
				b->memcpy_gbps[p]);
	fprintf(out,
		"\ncross-core read (CPU%d writes, CPU%d reads), GB/s: %zu KiB "
		"%.1f, %zu KiB %.1f",
		bench_cpu[0], bench_cpu[1], op->capacity / 1024,
		b->xcore_gbps[0],
		PFR_BENCH_CAPACITY_FOR(op->capacity, PFR_BENCH_MAX_PAYLOAD) /
			1024,
		b->xcore_gbps[1]);
	fprintf(out, "\nbarriers, ns per operation:");
	for (int i = 0; i < b->nbar; i++)
		fprintf(out, "%s %s %.2f", i ? "," : "", b->bar[i].name,
			b->bar[i].ns);
	fprintf(out, "\n");
}

/* ---- throughput rows ---- */

static void row_json(FILE *out, const struct cell *c, int k, int ref,
		     double med, double lo, double hi, int verified)
{
	char lab[96];

	label(lab, sizeof(lab), c->q);
	fprintf(out,
		"{\"kind\":\"throughput\",\"placement\":%d,"
		"\"reference\":%s",
		k, k == ref ? "true" : "false");
	json_kv_str(out, "contestant", c->q->name, 1);
	json_kv_str(out, "label", lab, 1);
	json_kv_str(out, "variant", c->q->variant, 1);
	fprintf(out, ",\"payload_bytes\":%zu,\"batched\":%s,\"batch\":%u",
		c->payload, c->q->batched ? "true" : "false",
		c->q->batched ? c->batch : 1);
	if (c->q->ordering >= 0) {
		json_kv_str(out, "ordering", ord_name(c->q->ordering), 1);
		json_kv_str(out, "policy", pol_name(c->q->policy), 1);
	}
	json_kv_str(out, "transport", c->q->processes ? "processes" : "threads",
		    1);
	fprintf(out,
		",\"msgs_per_s_median\":%.0f,\"msgs_per_s_min\":%.0f,"
		"\"msgs_per_s_max\":%.0f,\"gbytes_per_s_median\":%.3f,"
		"\"rtt_ns\":%.1f,\"verified\":%s,\"reps\":%d,"
		"\"messages\":%llu,\"lost\":%llu,\"busy\":%s,"
		"\"few_runs\":%s,\"runs_other_placement\":%d",
		med, lo, hi, med * (double)c->payload / 1e9, cell_rtt(c),
		verified ? "true" : "false", c->nreps,
		(unsigned long long)c->messages, (unsigned long long)c->lost,
		c->busy ? "true" : "false", c->drift ? "true" : "false",
		c->other);
	fprintf(out, ",\"sleeps_per_s\":[%.0f,%.0f]",
		c->secs > 0 ? c->sleeps[0] / c->secs : 0,
		c->secs > 0 ? c->sleeps[1] / c->secs : 0);
	if (c->failed)
		json_kv_str(out, "error", c->why, 1);
	fprintf(out, "}\n");
}

static void row_csv(FILE *out, const struct cell *c, int k, double med,
		    double lo, double hi, int verified)
{
	char fl[64];

	flags_str(fl, sizeof(fl), c->busy, c->drift, c->failed);
	fprintf(out,
		"throughput,%s,%s,%zu,%s,%u,%s,%s,%s,%.0f,%.0f,%.0f,%.3f,"
		"%.1f,%s,%d,%llu,%llu,,,\"%s\",%d\n",
		c->q->name, c->q->variant, c->payload,
		c->q->batched ? "true" : "false", c->q->batched ? c->batch : 1,
		ord_name(c->q->ordering), pol_name(c->q->policy),
		c->q->processes ? "processes" : "threads", med, lo, hi,
		med * (double)c->payload / 1e9, cell_rtt(c),
		verified ? "true" : "false", c->nreps,
		(unsigned long long)c->messages, (unsigned long long)c->lost,
		fl, k);
}

static void row_text(FILE *out, const struct cell *c, double med, double lo,
		     double hi, int verified)
{
	char range[32], fl[64], lab[96];

	label(lab, sizeof(lab), c->q);
	flags_str(fl, sizeof(fl), c->busy, c->drift, c->failed);
	snprintf(range, sizeof(range), "[%.1f-%.1f]", lo / 1e6, hi / 1e6);
	fprintf(out, "%-34s %7zu %9.1f %-21s %7.2f %5.0f %-4s %s", lab,
		c->payload, med / 1e6, range, med * (double)c->payload / 1e9,
		cell_rtt(c), verified ? "yes" : "NO", fl);
	if (c->q->policy == PFR_POLICY_DROP && c->sent)
		fprintf(out, " lost %.1f%%",
			100.0 * (double)c->lost / (double)c->sent);
	if (c->failed)
		fprintf(out, " (%s)", c->why);
	fprintf(out, "\n");
}

/* The throughput rows of placement k (pass 0: the reference). */
static void rows(const struct bench *b, int pass, int k)
{
	const struct opts *op = &b->op;

	for (int i = 0; i < b->ncells; i++) {
		const struct cell *c = &b->cells[i];
		double med, lo, hi;
		int verified = !c->failed && c->messages > 0;

		/* another placement lists what ran in it */
		if (c->unsupported || (pass && !c->nreps))
			continue;
		cell_stats(c, &med, &lo, &hi);
		if (op->json)
			row_json(b->out, c, k, b->m.ref, med, lo, hi, verified);
		else if (op->csv)
			row_csv(b->out, c, k, med, lo, hi, verified);
		else
			row_text(b->out, c, med, lo, hi, verified);
	}
}

/* ---- latency rows ---- */

static void lat_row(const struct bench *b, const struct lat_cell *l, int k)
{
	const struct opts *op = &b->op;
	FILE *out = b->out;
	double p50 = median(l->p50, l->nreps, NULL, NULL);
	double p99 = median(l->p99, l->nreps, NULL, NULL);
	double rt = median(l->rtt, l->nreps, NULL, NULL);
	int ok = !l->failed && l->verified && (l->nreps + l->other) > 0;
	char lab[96];

	snprintf(lab, sizeof(lab), "perfring %s%s%s", ord_name(l->ordering),
		 l->policy == PFR_POLICY_DROP ? " drop" : "",
		 l->flags & PFR_RING_INBAND ? " inband" : "");
	if (op->json) {
		fprintf(out,
			"{\"kind\":\"latency\",\"placement\":%d,"
			"\"reference\":%s",
			k, k == b->m.ref ? "true" : "false");
		json_kv_str(out, "contestant", "perfring", 1);
		json_kv_str(out, "label", lab, 1);
		fprintf(out, ",\"payload_bytes\":%zu,\"batched\":false",
			l->payload);
		json_kv_str(out, "ordering", ord_name(l->ordering), 1);
		json_kv_str(out, "policy", pol_name(l->policy), 1);
		json_kv_str(out, "transport", "threads", 1);
		fprintf(out, ",\"inband\":%s",
			l->flags & PFR_RING_INBAND ? "true" : "false");
		fprintf(out,
			",\"latency_ns_p50\":%.1f,\"latency_ns_p99\":%.1f,"
			"\"rtt_ns\":%.1f,\"verified\":%s,\"reps\":%d}\n",
			p50, p99, rt, ok ? "true" : "false", l->nreps);
	} else if (op->csv) {
		fprintf(out,
			"latency,perfring,,%zu,false,1,%s,%s,threads,,,,,"
			"%.1f,%s,%d,,,%.1f,%.1f,,%d\n",
			l->payload, ord_name(l->ordering), pol_name(l->policy),
			rt, ok ? "true" : "false", l->nreps, p50, p99, k);
	} else {
		fprintf(out, "%-34s %7zu %9.1f %9.1f %5.0f %s\n", lab,
			l->payload, p50, p99, rt, ok ? "yes" : "NO");
	}
}

static void lat_rows(const struct bench *b, int pass, int k)
{
	if (!b->op.json && !b->op.csv && b->nlats)
		fprintf(b->out,
			"\none-way latency, ping-pong over two rings (half "
			"the round trip), ns\n%-34s %7s %9s %9s %5s %s\n",
			"contestant", "payload", "p50", "p99", "rtt", "ok");
	for (int i = 0; i < b->nlats; i++)
		if (!pass || b->lats[i].nreps)
			lat_row(b, &b->lats[i], k);
}

/* ---- one placement's results ---- */

static void placement_head(const struct bench *b, int k)
{
	const struct meta *m = &b->m;

	if (b->op.json || b->op.csv)
		return;
	if (m->nbands)
		fprintf(b->out,
			"\n== placement %d: cache-line round trip %.0f-%.0f ns "
			"(%s) ==\n",
			k, m->bands[k].lo, m->bands[k].hi,
			k == m->ref ? "reported: the most contestants complete"
				    : "also seen");
	fprintf(b->out, "\n%-34s %7s %9s %-21s %7s %5s %-4s %s\n", "contestant",
		"payload", "Mmsg/s", "[min-max]", "GB/s", "rtt", "ok", "flags");
}

/* Placement k's results (pass 0: the reference's, which also go to the
 * capacity sweep's data and the plot); returns 1 when the plot failed. */
static int report_pass(struct bench *b, int pass, int k)
{
	struct opts *op = &b->op;

	op->placement = k;
	op->reference = k == b->m.ref;
	placement_head(b, k);
	rows(b, pass, k);
	lat_rows(b, pass, k);
	emit_targets(b->out, op, b->cells, b->ncells, b->lats, b->nlats,
		     b->memcpy_gbps, b->xcore_gbps);
	if (pass)
		return 0;
	if (op->sweep_data)
		sweep_rows(op->sweep_data, b->cells, b->ncells, op);
	if (op->plot && write_plot(op->plot, b->cells, b->ncells,
				   b->memcpy_gbps, &b->m, op)) {
		fprintf(stderr,
			"perfring bench: could not draw %s (is gnuplot "
			"installed?)\n",
			op->plot);
		return 1;
	}
	return 0;
}

int report(struct bench *b)
{
	const struct meta *m = &b->m;
	double rtt_med =
		placement_rtt(b->cells, b->ncells,
			      median(b->rtt_round, b->nrounds, NULL, NULL));
	int rc = 0;

	for (int i = 0; i < b->ncells; i++)
		if (b->cells[i].failed)
			rc = 1;
	for (int i = 0; i < b->nlats; i++)
		if (b->lats[i].failed || !b->lats[i].verified)
			rc = 1;
	if (b->op.json)
		head_json(b, rtt_med);
	else if (b->op.csv)
		head_csv(b, rtt_med);
	else
		head_text(b, rtt_med);
	for (int pass = 0; pass <= m->nbands; pass++) {
		int k = pass ? pass - 1 : m->ref;

		if (pass &&
		    (k == m->ref ||
		     !band_reportable(b->all_cells, b->ncells, &m->bands[k])))
			continue;
		if (pass)
			use_band(b->cells, b->all_cells, b->ncells, b->lats,
				 b->all_lats, b->nlats, &m->bands[k],
				 b->op.reps);
		if (report_pass(b, pass, k))
			rc = 1;
	}
	return rc;
}
