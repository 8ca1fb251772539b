/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/cmd.c - perfring-bench (and `perfring bench`): perfring's ring
 * against the peers and against the machine's physical limits, in one
 * run.  This file holds the options and the order of the steps; the
 * method is in bench/spsc/method.c and bench/spsc/placement.c, the report in
 * bench/spsc/report.c, bench/spsc/targets.c and bench/spsc/plot.c (see bench/spsc/spsc.h).
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <perfring/common.h>
#include <perfring/ring.h>

#include "../../util/util.h"
#include "../core/bench_cmd.h"
#include "../core/cmd_opts.h"
#include "spsc.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: perfring-bench [options]\n"
		"   or: perfring bench [options]\n"
		"\n"
		"Throughput of perfring's ring (each ordering, per-record and "
		"batched\npublication, BLOCK and DROP, threads and processes) "
		"and of the peers\nlinked into this build, with payloads of 8, "
		"64, 256, 1024, 4096 and\n65520 bytes (the largest a perf "
		"record carries: its u16 size is 65528\nwith the 8-byte "
		"header); one-way latency over two rings; and the\nmachine's "
		"limits: cache-line round trip, memcpy bandwidth, barrier "
		"costs.\n"
		"\n"
		"  --quick            short runs, no extra rounds\n"
		"  --reps N           repetitions per result (default 5, "
		"minimum 1)\n"
		"  --time MS          target duration of one run (default "
		"200, quick 12)\n"
		"  --cpus A,B         producer and consumer CPUs (default "
		"0,1)\n"
		"  --capacity BYTES   queue capacity, a power of two (default "
		"256Ki;\n"
		"                     at least 16 records: 1 MiB for 65520 "
		"bytes)\n"
		"  --capacities LIST  the whole run once per capacity, e.g. "
		"32K,256K,4M\n"
		"                     (K, M: KiB, MiB); --plot then draws "
		"throughput\n"
		"                     against capacity\n"
		"  --payloads LIST    a subset of 8,64,256,1024,4096,65520\n"
		"  --only LIST        contestants by name (perfring,rte_ring,"
		"ck_ring,\n"
		"                     boost_spsc,atomic_queue,mutex_condvar) "
		"or by\n"
		"                     label as the table prints it (\"perfring "
		"acqrel batch\")\n"
		"  --threads          perfring between threads only\n"
		"  --processes        perfring between processes only (POSIX "
		"shared memory)\n"
		"  --no-peers         perfring only\n"
		"  --json             JSON Lines: a meta object, then one "
		"object per result\n"
		"  --csv              CSV, one row per result\n"
		"  --plot FILE        throughput against payload, PNG or SVG "
		"(gnuplot)\n"
		"  --single-thread N  no measurement: each contestant's "
		"producer and\n"
		"                     consumer loops alternate on one thread "
		"for N\n"
		"                     messages (for valgrind --tool=callgrind "
		"instruction\n"
		"                     counts per message)\n"
		"  --wait-idle S      before the run and before each round, "
		"wait up to S\n"
		"                     seconds for the two CPUs to be idle "
		"(others' jobs)\n"
		"  -h, --help         this text\n"
		"  --writers LIST     many writers, one reader: a bench of its "
		"own\n                     (perfring bench --writers 1 --help)\n"
		"\n"
		"Each run sits between two cache-line round-trip probes; a run "
		"during which\nthe host moved the vCPUs is repeated, and results "
		"are grouped by placement\n(round trip): ratios compare "
		"contestants within one placement.\n"
		"A progress line goes to stderr.  Exit status: 0, 1 when a "
		"run failed or\na message did not verify, 2 for a usage "
		"error.\n");
}

static int parse_payloads(const char *s, struct opts *o)
{
	memset(o->payload_on, 0, sizeof(o->payload_on));
	while (*s) {
		char buf[32];
		size_t k = strcspn(s, ",");
		unsigned long long v;
		int i;

		if (k >= sizeof(buf))
			return -1;
		memcpy(buf, s, k);
		buf[k] = 0;
		if (util_parse_size(buf, &v))
			return -1;
		if (v == 65536)
			v = PFR_BENCH_MAX_PAYLOAD;
		i = bench_payload_index(v);
		if (i < 0)
			return -1;
		o->payload_on[i] = 1;
		s += k;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

static const struct option lopts[] = {
	PFR_BENCH_COMMON_LOPTS,
	{"csv", no_argument, NULL, 'c'},
	{"plot", required_argument, NULL, 'p'},
	{"single-thread", required_argument, NULL, 'S'},
	{"wait-idle", required_argument, NULL, 'W'},
	{"capacities", required_argument, NULL, 'K'},
	{"sweep-data", required_argument, NULL, 'D'}, /* internal */
	{NULL, 0, NULL, 0},
};

/* --wait-idle and --single-thread; returns -1 when it is accepted, else
 * the exit status. */
static int parse_number(struct opts *op, int opt, const char *arg)
{
	unsigned long long v;
	int bad = util_parse_u64(arg, &v);

	if (opt == 'W') {
		if (bad || v > 86400)
			return util_usage_error("bench",
						"--wait-idle wants seconds");
		op->wait_idle = (double)v;
	} else {
		if (bad || v < 1)
			return util_usage_error(
				"bench", "--single-thread wants a count");
		op->single = v;
	}
	return -1;
}

/* One option of this command's own (the common ones are read by
 * bench_getopt()); returns -1 to go on, else the exit status. */
static int parse_one(void *ctx, int opt, char **argv)
{
	struct opts *op = (struct opts *)ctx;

	switch (opt) {
	case 'c':
		op->csv = 1;
		break;
	case 'p':
		op->plot = optarg;
		break;
	case 'T':
		op->threads = 1;
		break;
	case 'X':
		op->processes = 1;
		break;
	case 'D':
		op->sweep_data = optarg;
		break;
	case 'W':
	case 'S':
		return parse_number(op, opt, optarg);
	case 'P':
		if (parse_payloads(optarg, op))
			return util_usage_error("bench",
						"--payloads wants a list of "
						"8,64,256,1024,4096,65520");
		break;
	case 'h':
		usage(stdout);
		return 0;
	default:
		if (optopt)
			return util_usage_error(
				"bench",
				"option '-%c' is unknown or needs a value",
				optopt);
		return util_usage_error(
			"bench", "unknown option or missing value in '%s'",
			argv[optind - 1]);
	}
	return -1;
}

/* Returns -1 when the command runs, else its exit status. */
static int parse_opts(int argc, char **argv, struct opts *op)
{
	struct bench_common c;
	int rc;
	char bad[64];

	memset(op, 0, sizeof(*op));
	for (int i = 0; i < PFR_BENCH_NPAYLOADS; i++)
		op->payload_on[i] = 1;
	rc = bench_getopt(argc, argv, lopts, &c, MAX_REPS, parse_one, op);
	if (rc >= 0)
		return rc;
	PFR_BENCH_COMMON_TO(op, &c);
	if (op->json && op->csv)
		return util_usage_error("bench",
					"--json and --csv exclude each other");
	if (op->threads && op->processes)
		return util_usage_error(
			"bench",
			"--threads and --processes exclude each other");
	if (op->only && only_unknown(op->only, bad, sizeof(bad)))
		return util_usage_error(
			"bench",
			"--only: '%s' names no contestant in this build (see "
			"--help)",
			bad);
	return -1;
}

/* The host: CPUs (pinning needs both in our affinity mask), model,
 * kernel, and whether the two CPUs are busy before the run. */
static void host(struct meta *m, const struct opts *op)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	m->ncpu = bench_check_cpus(" (results flagged)");
	bench_cpu_model(m->cpu, sizeof(m->cpu));
	if (!uname(&u))
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname,
			 u.release, u.machine);
	/* /proc/stat while we sleep; with --wait-idle, wait for the CPUs
	 * to calm down first */
	m->busy_start_share = busy_share(op->quick ? 100 : 300);
	if (op->wait_idle > 0 && m->busy_start_share > 0.10)
		m->busy_start_share = wait_idle(op->wait_idle);
	m->busy_start = bench_warn_busy(m->busy_start_share);
}

/* A cell per selected contestant and payload. */
static void add_cells(struct bench *b)
{
	const struct opts *op = &b->op;
	char lab[96];

	for (int i = 0; i < nqueues; i++) {
		const struct bench_queue *q = all_queues[i];
		int is_pfr = !strncmp(q->name, "perfring", 8);

		label(lab, sizeof(lab), q);
		if ((!is_pfr && !op->peers) ||
		    (!name_selected(op->only, q->name) &&
		     !name_selected(op->only, lab)) ||
		    (is_pfr && q->processes && op->threads) ||
		    (is_pfr && !q->processes && op->processes) ||
		    (is_pfr && !tsan_ok(q->ordering)))
			continue;
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
			struct cell *c = &b->cells[b->ncells];
			size_t cap;

			if (!op->payload_on[p])
				continue;
			c->q = q;
			c->payload = bench_payloads[p];
			cap = PFR_BENCH_CAPACITY_FOR(op->capacity, c->payload);
			/* batches fill at most half the queue */
			c->batch = (unsigned)(cap / 2 / (c->payload + 8));
			if (c->batch > 32)
				c->batch = 32;
			if (c->batch < 1)
				c->batch = 1;
			b->ncells++;
		}
	}
}

/* perfring's latency: four orderings and policies, every payload. */
static void add_lats(struct bench *b)
{
	static const int lo[5][3] = {
		{PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, 0},
		{PFR_ORDER_CTRLDEP, PFR_POLICY_BLOCK, 0},
		{PFR_ORDER_FULL, PFR_POLICY_BLOCK, 0},
		{PFR_ORDER_ACQREL, PFR_POLICY_DROP, 0},
		{PFR_ORDER_ACQREL, PFR_POLICY_BLOCK, PFR_RING_INBAND},
	};

	if (!name_selected(b->op.only, "perfring") || b->op.processes)
		return;
	for (int k = 0; k < 5; k++)
		for (int p = 0; p < PFR_BENCH_NPAYLOADS; p++) {
			struct lat_cell *l = &b->lats[b->nlats];

			if (!b->op.payload_on[p] || !tsan_ok(lo[k][0]))
				continue;
			l->ordering = lo[k][0];
			l->policy = lo[k][1];
			l->flags = (uint32_t)lo[k][2];
			l->payload = bench_payloads[p];
			l->verified = 1;
			b->nlats++;
		}
}

static void bench_free(struct bench *b, uint64_t *pattern)
{
	free(pattern);
	free(b->cells);
	free(b->lats);
	free(b->all_cells);
	free(b->all_lats);
	free(b);
}

int bench_main(int argc, char **argv)
{
	struct bench *b = (struct bench *)calloc(1, sizeof(*b));
	uint64_t *pattern = NULL;
	int rc;

	if (!b)
		return 1;
	rc = parse_opts(argc, argv, &b->op);
	if (rc >= 0) {
		free(b);
		return rc;
	}
	b->out = stdout;
	host(&b->m, &b->op);
	pattern = (uint64_t *)bench_alloc(64, PFR_BENCH_MAX_PAYLOAD);
	collect_queues();
	b->cells = (struct cell *)calloc((size_t)nqueues * PFR_BENCH_NPAYLOADS,
					 sizeof(*b->cells));
	b->lats = (struct lat_cell *)calloc(5 * PFR_BENCH_NPAYLOADS,
					    sizeof(*b->lats));
	if (!pattern || !b->cells || !b->lats) {
		bench_free(b, pattern);
		return 1;
	}
	for (size_t i = 0; i < PFR_BENCH_MAX_PAYLOAD / 8; i++)
		pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	msg_pattern = pattern;
	add_cells(b);
	add_lats(b);
	if (b->op.single) {
		rc = single_thread(b->cells, b->ncells, &b->op);
	} else {
		probe_limits(b);
		warm_up(b);
		run_rounds(b);
		if (choose_placement(b)) {
			fprintf(stderr, "perfring bench: out of memory\n");
			rc = 1;
		} else {
			rc = report(b);
		}
		fflush(b->out);
	}
	bench_free(b, pattern);
	return rc;
}
