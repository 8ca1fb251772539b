/* SPDX-License-Identifier: MIT */
/*
 * bench/mw/cmd.c - perfring-bench --writers: many writers, one reader:
 * perfring's group (one ring per writer, drained by one reader) and its
 * shared MPSC ring against the multi-producer queues linked into this
 * build.  This file holds the options and the order of the steps (see
 * bench/mw/cmd.h for the method).
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfring/common.h>

#include "../../util/util.h"
#include "../core/bench_cmd.h"
#include "../core/cmd_opts.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring-bench --writers LIST [options]\n"
		"   or: perfring bench --writers LIST [options]\n"
		"\n"
		"Many writers, one reader: every writer count in LIST, each "
		"writer sending\nits share of the messages, all started "
		"together; aggregate messages/s\nas the reader receives them, "
		"every message verified (writer, per-writer\nsequence number, "
		"length, sum).  Contestants: perfring group (a ring per\n"
		"writer, unordered drain), perfring mpsc (one shared ring), "
		"and the peers\nlinked into this build: rte_ring MP/SC "
		"(single, burst), ck_ring MPSC,\nmoodycamel ConcurrentQueue "
		"(producer tokens, implicit producers),\natomic_queue MPMC, "
		"boost::lockfree::queue, liburcu wfcqueue, a mutex.\n"
		"\n"
		"  --writers LIST     writer counts, e.g. 1,2,4,8 (1..%d)\n"
		"  --payloads LIST    8, 64 and/or mix (default all three); "
		"mix: 8 to 256\n"
		"                     bytes per message (132 on average); "
		"slot queues carry\n"
		"                     it in 256-byte slots\n"
		"  --processes        writers are processes (queues in shared "
		"memory; only\n"
		"                     the contestants that can)\n"
		"  --cpus LIST        the reader's CPU, then the writers' "
		"(cycled when\n"
		"                     there are more writers), e.g. 0,1,2,3; "
		"default: every\n"
		"                     CPU we may run on, the reader on the "
		"first, each\n"
		"                     writer on a CPU of its own while they "
		"last, then on\n"
		"                     all of them in turn (the reader's "
		"included)\n"
		"  --reps N           repetitions (default 5)\n"
		"  --time MS          target duration of one run (default "
		"200, quick 12)\n"
		"  --quick            short runs\n"
		"  --reader           the group's reader alone (one thread, "
		"rings filled\n"
		"                     from it): pfr_group_drain() and "
		"pfr_group_consume()\n"
		"                     against one ring's pfr_reader_consume() "
		"(same records)\n"
		"  --plot FILE        throughput against writers, a line per "
		"contestant and\n"
		"                     a panel per payload, PNG or SVG "
		"(gnuplot)\n"
		"  --capacity BYTES   queue capacity in all, a power of two "
		"(default\n"
		"                     256Ki; a group splits it between its "
		"writers)\n"
		"  --only LIST        contestants by name or label\n"
		"  --no-peers         perfring only\n"
		"  --json             JSON Lines: a meta object, one object "
		"per result,\n"
		"                     then the targets\n"
		"  -h, --help         this text\n"
		"\n"
		"Placement (each row says which its writers had): own CPU "
		"(no other\nwriter, not the reader's), shared with reader, "
		"time-shared (with another\nwriter: they interleave by "
		"preemption).  Fairness: the slowest writer's\nmessages "
		"over the fastest's, as the reader had received them when "
		"the\nfirst writer finished (median over the runs).\n"
		"\n"
		"Reader stall: an interval from a poll of the reader that "
		"finds nothing to\nread to the next message it receives, "
		"counted while a writer is still\nsending.  Reported: its "
		"99th percentile (median over the runs), its\nlongest, and "
		"the share of the run spent stalled.  Per-writer M/s: each\n"
		"writer's messages over its own time (min and max over the "
		"writers).\nExit status: 0; 1 when a run failed, a message "
		"did not verify or a writer\nsent nothing; 2 for a usage "
		"error.\n",
		PFR_MW_MAX_WRITERS);
}

static int parse_list(const char *s, struct mw_opts *op)
{
	op->nw = 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v < 1 || v > PFR_MW_MAX_WRITERS ||
		    op->nw == MW_MAX_WCOUNTS)
			return -1;
		op->wcount[op->nw++] = (unsigned)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return op->nw ? 0 : -1;
}

static int parse_cpus(const char *s, struct mw_opts *op)
{
	op->ncpus = 0;
	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v >= CPU_SETSIZE ||
		    op->ncpus == PFR_MW_MAX_WRITERS + 1)
			return -1;
		op->cpus[op->ncpus++] = (int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return op->ncpus ? 0 : -1;
}

static int parse_payloads(const char *s, struct mw_opts *op)
{
	op->np = 0;
	while (*s) {
		size_t k = strcspn(s, ",");

		if (op->np == 3)
			return -1;
		if (k == 1 && s[0] == '8')
			op->payloads[op->np++] = 8;
		else if (k == 2 && !strncmp(s, "64", 2))
			op->payloads[op->np++] = 64;
		else if (k == 3 && !strncmp(s, "mix", 3))
			op->payloads[op->np++] = PFR_MW_MIX;
		else
			return -1;
		s += k;
		if (*s == ',')
			s++;
	}
	return op->np ? 0 : -1;
}

/* --cpus comes first: it takes a list here (getopt_long takes the first
 * entry of an exact name), not the common option's two CPUs */
static const struct option lopts[] = {
	{"cpus", required_argument, NULL, 'L'},
	PFR_BENCH_COMMON_LOPTS,
	{"writers", required_argument, NULL, 'w'},
	{"plot", required_argument, NULL, 'p'},
	{"reader", no_argument, NULL, 'R'},
	{NULL, 0, NULL, 0},
};

/* One option of this command's own (the common ones are read by
 * bench_getopt()); returns -1 to go on, else the exit status. */
static int parse_one(void *ctx, int opt, char **argv)
{
	struct mw_opts *op = (struct mw_opts *)ctx;

	switch (opt) {
	case 'w':
		if (parse_list(optarg, op))
			return util_usage_error(
				"bench", "--writers wants a list of 1..%d",
				PFR_MW_MAX_WRITERS);
		break;
	case 'P':
		if (parse_payloads(optarg, op))
			return util_usage_error(
				"bench", "with --writers, --payloads wants a "
					 "list of 8,64,mix");
		break;
	case 'X':
		op->processes = 1;
		break;
	case 'T':
		op->processes = 0;
		break;
	case 'L':
		if (parse_cpus(optarg, op))
			return util_usage_error(
				"bench", "with --writers, --cpus wants a list "
					 "of CPU numbers (the reader's first)");
		break;
	case 'p':
		op->plot = optarg;
		break;
	case 'R':
		op->reader_only = 1;
		break;
	case 'h':
		usage(stdout);
		return 0;
	default:
		return util_usage_error("bench",
					"with --writers: unknown option or "
					"missing value in '%s'",
					argv[optind - 1]);
	}
	return -1;
}

/* Returns -1 when the command runs, else its exit status. */
static int parse_opts(int argc, char **argv, struct mw_opts *op)
{
	struct bench_common c;
	int rc;

	memset(op, 0, sizeof(*op));
	op->payloads[0] = 8;
	op->payloads[1] = 64;
	op->payloads[2] = PFR_MW_MIX;
	op->np = 3;
	rc = bench_getopt(argc, argv, lopts, &c, MW_MAX_REPS, parse_one, op);
	if (rc >= 0)
		return rc;
	PFR_BENCH_COMMON_TO(op, &c);
	if (!op->nw)
		return util_usage_error("bench", "--writers wants a list");
	return -1;
}

/* Pinning needs every CPU of the list in our affinity mask; returns the
 * share of the CPUs busy before the run. */
static double host(const struct mw_opts *op)
{
	double bshare;
	cpu_set_t set;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		bench_pinned = 0;
	for (int i = 0; i < op->ncpus && bench_pinned; i++)
		if (!CPU_ISSET(op->cpus[i], &set)) {
			bench_pinned = 0;
			fprintf(stderr,
				"perfring bench: CPU %d is not available: "
				"running unpinned (every writer time-shared)"
				"\n",
				op->cpus[i]);
		}
	bshare = busy_share(op->quick ? 100 : 300);
	bench_warn_busy(bshare);
	return bshare;
}

/* A cell per selected contestant, writer count and payload. */
static int add_cells(struct mw_cell *cells, const struct mw_opts *op)
{
	int ncells = 0;

	for (int i = 0; i < mw_nqueues; i++) {
		char lab[96];

		mw_label(lab, sizeof(lab), mw_queues[i]);
		if (!mw_selected(op->only, mw_queues[i]->name, lab))
			continue;
		if (op->processes && !mw_queues[i]->processes_ok)
			continue;
		for (int w = 0; w < op->nw; w++)
			for (int p = 0; p < op->np; p++) {
				struct mw_cell *c = &cells[ncells++];

				c->q = mw_queues[i];
				c->writers = op->wcount[w];
				c->payload = op->payloads[p];
				mw_place(op, c->writers, c->cpus, &c->place);
			}
	}
	return ncells;
}

int bench_mw_main(int argc, char **argv)
{
	struct mw_opts op;
	struct mw_cell *cells;
	int ncells, rc;
	double rlo = 0, rhi = 0, bshare;

	rc = parse_opts(argc, argv, &op);
	if (rc >= 0)
		return rc;
	if (op.reader_only)
		return mw_reader_only(&op);
	bshare = host(&op);
	mw_pattern = (uint64_t *)bench_alloc(64, PFR_BENCH_MAX_PAYLOAD);
	mw_body_sum = (uint64_t *)calloc(PFR_BENCH_MAX_PAYLOAD / 8 + 1, 8);
	mw_collect(op.peers);
	cells = (struct mw_cell *)calloc(
		(size_t)mw_nqueues * (size_t)op.np * (size_t)op.nw + 1,
		sizeof(*cells));
	if (!mw_pattern || !mw_body_sum || !cells) {
		free(mw_pattern);
		free(mw_body_sum);
		free(cells);
		return 1;
	}
	for (size_t i = 0; i < PFR_BENCH_MAX_PAYLOAD / 8; i++)
		mw_pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	for (size_t k = 3; k <= PFR_BENCH_MAX_PAYLOAD / 8; k++)
		mw_body_sum[k] = mw_body_sum[k - 1] + mw_pattern[k - 2];
	ncells = add_cells(cells, &op);
	bench_calibrate_ticks();
	mw_warm_up(cells, ncells, &op);
	mw_rounds(cells, ncells, &op);
	mw_choose_runs(cells, ncells, &rlo, &rhi);
	rc = mw_report(stdout, cells, ncells, &op, rlo, rhi, bshare);
	if (op.plot && mw_plot(op.plot, cells, ncells, &op, rlo, rhi)) {
		fprintf(stderr, "perfring bench: --plot %s: gnuplot failed\n",
			op.plot);
		rc = rc ? rc : 1;
	}
	free(mw_pattern);
	free(mw_body_sum);
	free(cells);
	return rc;
}
