/* SPDX-License-Identifier: MIT */
/*
 * perfring litmus - runs the litmus tests of cli/litmus/tests.c on this
 * CPU in the manner of litmus7: each test runs its threads pinned to
 * different CPUs over rounds of many instances (arrays of locations, one
 * instance per index), the threads of an instance released together by a
 * spin on the instance's start counter, and the final states histogrammed.
 * Every test states whether the model of this build's target allows its
 * condition; the command exits 1 if a forbidden outcome is ever observed.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <perfring/barrier.h>
#include <perfring/common.h>

#include "../cli.h"
#include "litmus.h"

#define LIT_MAX_ITEMS 6 /* observed values per state: 2 bits each */
#define LIT_MAX_CONDS 4

struct lit_item {
	int is_reg;
	int tid, slot; /* register: reg[tid][slot] */
	int var; /* final value of var */
	char name[16];
};

struct lit_model {
	unsigned bit;
	const char *name;
};

struct lit_opts {
	unsigned long long iterations;
	unsigned long long size;
	unsigned long long stride;
	int json;
};

/* One test's run: the shared state of its threads. */
struct lit_run {
	const struct cli_lit_test *t;
	struct cli_lit_ctx ctx;
	unsigned long long rounds;
	int ncpu, cpus[256];
	int oversub;
	/* round barrier */
	unsigned arrived, sense;
	/* observation */
	struct lit_item items[LIT_MAX_ITEMS];
	int nitems;
	int cond_item[LIT_MAX_CONDS], cond_val[LIT_MAX_CONDS];
	int nconds;
	uint64_t counts[1u << (2 * LIT_MAX_ITEMS)];
	/* progress over the whole command */
	unsigned long long *done_work, total_work;
	struct timespec start;
	int *progress_shown;
};

struct lit_worker {
	struct lit_run *run;
	int tid;
};

static const struct lit_model *lit_host_model(void)
{
	static const struct {
		const char *backend;
		struct lit_model m;
	} map[] = {
		{"x86_64", {PFR_LIT_TSO, "x86-TSO"}},
		{"s390x", {PFR_LIT_TSO, "s390x (TSO)"}},
		{"aarch64", {PFR_LIT_ARMV8, "ARMv8"}},
		{"ppc64", {PFR_LIT_POWER, "Power"}},
		{"ppc64le", {PFR_LIT_POWER, "Power"}},
		{"armv7", {PFR_LIT_ARMV7, "ARMv7"}},
		{"riscv64", {PFR_LIT_RVWMO, "RVWMO"}},
		{"c11", {PFR_LIT_C11, "C11"}},
	};
	static const struct lit_model fallback = {PFR_LIT_C11, "C11"};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].backend, PFR_BARRIER_BACKEND))
			return &map[i].m;
	return &fallback;
}

static double lit_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- describing a test ---- */

static const char *lit_fence_name(int f)
{
	switch (f) {
	case PFR_LIT_F_BARRIER:
		return "barrier()";
	case PFR_LIT_F_RMB:
		return "smp_rmb()";
	case PFR_LIT_F_WMB:
		return "smp_wmb()";
	case PFR_LIT_F_TMB:
		return "smp_tmb()";
	case PFR_LIT_F_MB:
		return "smp_mb()";
	default:
		return NULL;
	}
}

/* Writes thread tid's program in the kernel's spelling into buf. */
static void lit_describe(const struct cli_lit_test *t, int tid, char *buf,
			 size_t len)
{
	const struct cli_lit_prog *p = &t->prog[tid];
	size_t used = 0;
	int reg = 0;
	char r0[16] = "r0";

	buf[0] = 0;
	for (int j = 0; j < 2; j++) {
		const struct cli_lit_access *a = &p->a[j];
		const char *v = t->vars[a->var];
		char one[96];

		switch (a->op) {
		case PFR_LIT_ST:
			snprintf(one, sizeof(one), "%s(%s, %u);",
				 a->acc == PFR_LIT_REL ? "smp_store_release"
						       : "WRITE_ONCE",
				 v, a->val);
			break;
		case PFR_LIT_LD:
			snprintf(one, sizeof(one), "r%d = %s(%s);", reg,
				 a->acc == PFR_LIT_ACQ ? "smp_load_acquire"
						       : "READ_ONCE",
				 v);
			if (j == 0)
				snprintf(r0, sizeof(r0), "r%d", reg);
			reg++;
			break;
		case PFR_LIT_CST:
			snprintf(one, sizeof(one),
				 "if (%s == 1) { %sWRITE_ONCE(%s, %u); }", r0,
				 p->fence == PFR_LIT_F_ACQCTRL
					 ? "smp_acquire__after_ctrl_dep(); "
					 : "",
				 v, a->val);
			break;
		default:
			continue;
		}
		used += snprintf(buf + used, len - used, "%s%s",
				 used ? " " : "", one);
		if (used >= len)
			return;
		if (j == 0 && lit_fence_name(p->fence)) {
			used += snprintf(buf + used, len - used, " %s;",
					 lit_fence_name(p->fence));
			if (used >= len)
				return;
		}
	}
}

/* Builds the observed items (registers, then final values) and parses
 * the condition.  Returns 0, or -1 on a malformed table entry. */
static int lit_observe_setup(struct lit_run *r)
{
	const struct cli_lit_test *t = r->t;
	char cond[128], *save = NULL, *tok;

	r->nitems = 0;
	for (int tid = 0; tid < t->nthreads; tid++) {
		int k = 0;

		for (int j = 0; j < 2; j++) {
			struct lit_item *it = &r->items[r->nitems];

			if (t->prog[tid].a[j].op != PFR_LIT_LD)
				continue;
			if (r->nitems == LIT_MAX_ITEMS)
				return -1;
			it->is_reg = 1;
			it->tid = tid;
			it->slot = j;
			snprintf(it->name, sizeof(it->name), "%d:r%d", tid,
				 k++);
			r->nitems++;
		}
	}
	for (int v = 0; v < PFR_LIT_MAX_VARS; v++) {
		struct lit_item *it = &r->items[r->nitems];

		if (!(t->finals & (1u << v)))
			continue;
		if (r->nitems == LIT_MAX_ITEMS)
			return -1;
		it->is_reg = 0;
		it->var = v;
		snprintf(it->name, sizeof(it->name), "%s", t->vars[v]);
		r->nitems++;
	}
	snprintf(cond, sizeof(cond), "%s", t->cond);
	r->nconds = 0;
	for (tok = strtok_r(cond, "/\\", &save); tok;
	     tok = strtok_r(NULL, "/\\", &save)) {
		char *eq, *name = tok;
		int found = -1;

		while (*name == ' ')
			name++;
		eq = strchr(name, '=');
		if (!eq || r->nconds == LIT_MAX_CONDS)
			return -1;
		*eq = 0;
		for (char *e = eq - 1; e >= name && *e == ' '; e--)
			*e = 0;
		for (int i = 0; i < r->nitems; i++)
			if (!strcmp(r->items[i].name, name))
				found = i;
		if (found < 0)
			return -1;
		r->cond_item[r->nconds] = found;
		r->cond_val[r->nconds] = atoi(eq + 1);
		r->nconds++;
	}
	return r->nconds ? 0 : -1;
}

static int lit_state_witnesses(const struct lit_run *r, unsigned key)
{
	for (int c = 0; c < r->nconds; c++)
		if ((int)((key >> (2 * r->cond_item[c])) & 3) != r->cond_val[c])
			return 0;
	return 1;
}

static void lit_state_str(const struct lit_run *r, unsigned key, char *buf,
			  size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < r->nitems && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s=%u;",
				 i ? " " : "", r->items[i].name,
				 (key >> (2 * i)) & 3);
}

/* ---- running a test ---- */

/*
 * Sense-reversing barrier between rounds.  purpose: the reset of a round's
 * locations by thread 0 happens before every thread's first access, and
 * every thread's last access before thread 0 reads the results.  When the
 * threads outnumber the CPUs a waiter yields instead of spinning.
 */
static void lit_round_wait(struct lit_run *r, unsigned *sense)
{
	unsigned my = *sense ^ 1u;
	unsigned spins = 0;

	*sense = my;
	/* purpose: arrivals are ordered before the release of the round */
	if (__atomic_add_fetch(&r->arrived, 1, __ATOMIC_ACQ_REL) ==
	    r->ctx.nthreads) {
		__atomic_store_n(&r->arrived, 0, __ATOMIC_RELAXED);
		/* pairs with the acquire load below */
		__atomic_store_n(&r->sense, my, __ATOMIC_RELEASE);
		return;
	}
	for (;;) {
		/* pairs with the release store above */
		if (__atomic_load_n(&r->sense, __ATOMIC_ACQUIRE) == my)
			break;
		if (r->oversub || ++spins > (1u << 16))
			sched_yield();
		else
			pfr_cpu_relax();
	}
}

static void lit_reset(struct lit_run *r)
{
	size_t n = r->ctx.n;

	for (int v = 0; v < PFR_LIT_MAX_VARS; v++)
		memset(r->ctx.var[v], 0, n * r->ctx.stride * sizeof(uint32_t));
	memset(r->ctx.bar, 0, n * sizeof(uint32_t));
}

static void lit_tally(struct lit_run *r)
{
	const struct cli_lit_ctx *c = &r->ctx;

	for (size_t i = 0; i < c->n; i++) {
		unsigned key = 0;

		for (int k = 0; k < r->nitems; k++) {
			const struct lit_item *it = &r->items[k];
			uint32_t v = it->is_reg
					     ? c->reg[it->tid][it->slot][i]
					     : c->var[it->var][i * c->stride];

			key |= (v > 3 ? 3u : v) << (2 * k);
		}
		r->counts[key]++;
	}
}

static void lit_pin(const struct lit_run *r, int tid)
{
	cpu_set_t set;

	if (r->ncpu <= 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(r->cpus[tid % r->ncpu], &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void lit_progress(struct lit_run *r)
{
	struct timespec now;
	double el;

	*r->done_work += r->ctx.n;
	clock_gettime(CLOCK_MONOTONIC, &now);
	el = (now.tv_sec - r->start.tv_sec) +
	     (now.tv_nsec - r->start.tv_nsec) * 1e-9;
	if (el < 2.0)
		return;
	util_progress("perfring litmus",
		      (double)*r->done_work / (double)r->total_work, 0);
	*r->progress_shown = 1;
}

static void *lit_worker_main(void *arg)
{
	struct lit_worker *w = arg;
	struct lit_run *r = w->run;
	unsigned sense = 0;

	lit_pin(r, w->tid);
	for (unsigned long long round = 0; round < r->rounds; round++) {
		if (w->tid == 0)
			lit_reset(r);
		lit_round_wait(r, &sense);
		r->t->fn(&r->ctx, w->tid);
		lit_round_wait(r, &sense);
		if (w->tid == 0) {
			lit_tally(r);
			lit_progress(r);
		}
	}
	return NULL;
}

static void *lit_alloc(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 128, bytes + 128))
		return NULL;
	memset(p, 0, bytes + 128);
	return p;
}

static void lit_free_ctx(struct cli_lit_ctx *c)
{
	for (int v = 0; v < PFR_LIT_MAX_VARS; v++)
		free(c->var[v]);
	for (int t = 0; t < PFR_LIT_MAX_THREADS; t++)
		for (int j = 0; j < 2; j++)
			free(c->reg[t][j]);
	free(c->bar);
}

/* Runs one test; returns 0, or -1 when out of memory or threads. */
static int lit_run_test(struct lit_run *r, const struct lit_opts *o)
{
	struct cli_lit_ctx *c = &r->ctx;
	struct lit_worker w[PFR_LIT_MAX_THREADS];
	pthread_t th[PFR_LIT_MAX_THREADS];
	unsigned long long n = o->size;
	int started = 0, err = 0;

	if (n > o->iterations)
		n = o->iterations;
	r->rounds = (o->iterations + n - 1) / n;
	memset(c, 0, sizeof(*c));
	c->n = n;
	c->stride = o->stride;
	c->nthreads = r->t->nthreads;
	r->oversub = r->t->nthreads > r->ncpu;
	c->sync_instance = !r->oversub;
	for (int v = 0; v < PFR_LIT_MAX_VARS && !err; v++)
		err = !(c->var[v] =
				lit_alloc(n * c->stride * sizeof(uint32_t)));
	for (int t = 0; t < PFR_LIT_MAX_THREADS && !err; t++)
		for (int j = 0; j < 2 && !err; j++)
			err = !(c->reg[t][j] = lit_alloc(n * sizeof(uint32_t)));
	if (!err)
		err = !(c->bar = lit_alloc(n * sizeof(uint32_t)));
	if (err) {
		lit_free_ctx(c);
		return -1;
	}
	r->arrived = 0;
	r->sense = 0;
	memset(r->counts, 0, sizeof(r->counts));
	for (int t = 0; t < r->t->nthreads; t++) {
		w[t].run = r;
		w[t].tid = t;
	}
	for (int t = 1; t < r->t->nthreads; t++) {
		if (pthread_create(&th[t], NULL, lit_worker_main, &w[t])) {
			err = 1;
			break;
		}
		started = t;
	}
	if (err) {
		/* The started threads wait in the first round barrier for a
		 * thread that will never come: give up on the process. */
		fprintf(stderr, "perfring litmus: cannot start threads: %s\n",
			strerror(errno));
		exit(1);
	}
	lit_worker_main(&w[0]);
	for (int t = 1; t <= started; t++)
		pthread_join(th[t], NULL);
	lit_free_ctx(c);
	return 0;
}

/* ---- output ---- */

struct lit_result {
	uint64_t pos, neg;
	double secs;
	int forbidden; /* the host model forbids the condition */
	int beyond; /* ... only for the instructions of this build */
};

static const char *lit_observation(const struct lit_result *res)
{
	if (!res->pos)
		return "Never";
	if (!res->neg)
		return "Always";
	return "Sometimes";
}

static void lit_print_text(const struct lit_run *r,
			   const struct lit_result *res,
			   const struct lit_model *m)
{
	const struct cli_lit_test *t = r->t;
	unsigned nkeys = 1u << (2 * r->nitems), nstates = 0;
	char buf[256];

	printf("Test %s %s\n", t->name,
	       res->forbidden ? "Forbidden" : "Allowed");
	for (int tid = 0; tid < t->nthreads; tid++) {
		lit_describe(t, tid, buf, sizeof(buf));
		printf("  P%d: %s\n", tid, buf);
	}
	for (unsigned k = 0; k < nkeys; k++)
		nstates += r->counts[k] != 0;
	printf("Histogram (%u states)\n", nstates);
	for (unsigned k = 0; k < nkeys; k++) {
		if (!r->counts[k])
			continue;
		lit_state_str(r, k, buf, sizeof(buf));
		printf("%-10llu%s>%s\n", (unsigned long long)r->counts[k],
		       lit_state_witnesses(r, k) ? "*" : ":", buf);
	}
	printf("%s\n", res->pos ? "Ok" : "No");
	printf("Witnesses\nPositive: %llu, Negative: %llu\n",
	       (unsigned long long)res->pos, (unsigned long long)res->neg);
	printf("Condition exists (%s) is %svalidated\n", t->cond,
	       res->pos ? "" : "NOT ");
	printf("Model %s: %s -- %s\n", m->name,
	       !res->forbidden ? "allowed"
	       : res->beyond   ? "forbidden (by this build's instructions, "
				 "beyond the primitives' contract)"
			       : "forbidden",
	       t->why);
	printf("Observation %s %s %llu %llu\n", t->name, lit_observation(res),
	       (unsigned long long)res->pos, (unsigned long long)res->neg);
	printf("Time %s %.2f s (%.2f M instances/s, %s sync)\n", t->name,
	       res->secs, (res->pos + res->neg) / res->secs / 1e6,
	       r->ctx.sync_instance ? "per-instance" : "per-round");
	if (res->forbidden && res->pos && !res->beyond)
		printf("FAIL %s: the %s model forbids this outcome and it was "
		       "observed %llu times\n",
		       t->name, m->name, (unsigned long long)res->pos);
	if (res->forbidden && res->pos && res->beyond)
		printf("DEVIATION %s: observed %llu times although the %s "
		       "model forbids it for these instructions: this machine "
		       "(or emulator) is weaker than the model here; the "
		       "primitives never promised it\n",
		       t->name, (unsigned long long)res->pos, m->name);
	printf("\n");
}

static void lit_print_json(const struct lit_run *r,
			   const struct lit_result *res,
			   const struct lit_model *m)
{
	const struct cli_lit_test *t = r->t;
	unsigned nkeys = 1u << (2 * r->nitems);
	char buf[256];
	int first = 1;

	printf("{\"type\":\"test\",\"name\":");
	util_json_str(stdout, t->name);
	printf(",\"shape\":");
	util_json_str(stdout, t->shape);
	printf(",\"threads\":%d,\"code\":[", t->nthreads);
	for (int tid = 0; tid < t->nthreads; tid++) {
		lit_describe(t, tid, buf, sizeof(buf));
		printf("%s", tid ? "," : "");
		util_json_str(stdout, buf);
	}
	printf("],\"condition\":");
	util_json_str(stdout, t->cond);
	printf(",\"model\":");
	util_json_str(stdout, m->name);
	printf(",\"allowed\":%s,\"beyond_contract\":%s,\"why\":",
	       res->forbidden ? "false" : "true",
	       res->beyond ? "true" : "false");
	util_json_str(stdout, t->why);
	printf(",\"histogram\":[");
	for (unsigned k = 0; k < nkeys; k++) {
		if (!r->counts[k])
			continue;
		lit_state_str(r, k, buf, sizeof(buf));
		printf("%s{\"state\":", first ? "" : ",");
		util_json_str(stdout, buf);
		printf(",\"count\":%llu,\"witness\":%s}",
		       (unsigned long long)r->counts[k],
		       lit_state_witnesses(r, k) ? "true" : "false");
		first = 0;
	}
	printf("],\"positive\":%llu,\"negative\":%llu,\"observation\":\"%s\"",
	       (unsigned long long)res->pos, (unsigned long long)res->neg,
	       lit_observation(res));
	printf(",\"forbidden_observed\":%s,\"deviation\":%s,"
	       "\"seconds\":%.3f,\"sync\":\"%s\"}\n",
	       res->forbidden && res->pos && !res->beyond ? "true" : "false",
	       res->forbidden && res->pos && res->beyond ? "true" : "false",
	       res->secs, r->ctx.sync_instance ? "instance" : "round");
}

static void help(void)
{
	printf("usage: perfring litmus [options]\n\n"
	       "Runs litmus tests of the barrier primitives on this CPU, "
	       "litmus7-style:\nthreads pinned to different CPUs run many "
	       "instances of a test, released\ntogether instance by instance; "
	       "the final states are histogrammed.  Each\ntest states whether "
	       "this target's memory model allows its condition; the\ncommand "
	       "exits 1 if a forbidden outcome is ever observed.\n\n"
	       "  -n, --iterations N  instances of each test (default 1M; "
	       "k/M/G suffixes)\n"
	       "  -t, --test PATTERN  run the tests whose name matches the "
	       "glob PATTERN,\n"
	       "                      or whose shape is PATTERN (SB, MP, LB, "
	       "S, R, 2+2W,\n"
	       "                      WRC, IRIW, PUB, REUSE, RING-PUB, "
	       "RING-REUSE,\n"
	       "                      MPSC-PUB, GROUP-HANDOVER); repeatable\n"
	       "      --size N        instances per round (default 1000)\n"
	       "      --stride N      uint32 slots between instances "
	       "(default 1)\n"
	       "  -l, --list          list the tests and this target's "
	       "verdicts, run none\n"
	       "      --json          JSON Lines: a meta object, one object "
	       "per test, a summary\n"
	       "  -h, --help\n\n"
	       "A verdict marked forbidden* (--list) rests on this build's "
	       "instruction being\nstronger than the primitive promises "
	       "(e.g. smp_tmb is a full dmb ish on\naarch64); observing it "
	       "is reported as a DEVIATION of the machine or emulator\nfrom "
	       "the model, not as a failure.\n\n"
	       "Exit status: 0 no forbidden outcome observed, 1 one was "
	       "observed, 2 usage.\n\n"
	       "The code shapes (RING-PUB, RING-REUSE, MPSC-PUB, "
	       "GROUP-HANDOVER) run the\nlibrary's own inline functions "
	       "(pfr_writer_write, pfr_reader_begin/next/end,\npfr_mpsc_write, "
	       "pfr_group_join/leave/consume) over iterations/100 small\n"
	       "instances and check every record; a wrong, out-of-order or "
	       "missing record\nis forbidden on every model.\n");
}

static int lit_selected_name(const char *name, const char *shape,
			     char *const *pats, int npats)
{
	if (!npats)
		return 1;
	for (int i = 0; i < npats; i++)
		if (!fnmatch(pats[i], name, 0) || !strcasecmp(pats[i], name) ||
		    !strcasecmp(pats[i], shape))
			return 1;
	return 0;
}

static int lit_selected(const struct cli_lit_test *t, char *const *pats,
			int npats)
{
	return lit_selected_name(t->name, t->shape, pats, npats);
}

static int lit_host_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* The --test patterns. */
struct lit_sel {
	char *pats[64];
	int npats;
};

/* What the tests observed, over the run. */
struct lit_sum {
	int nfail, ndev;
	unsigned long long sb_pos, sb_all;
};

/* Parses the options: -1 to go on, else the exit status. */
static int lit_parse(int argc, char **argv, struct lit_opts *o,
		     struct lit_sel *sel, int *list)
{
	static const struct option opts[] = {
		{"iterations", required_argument, NULL, 'n'},
		{"test", required_argument, NULL, 't'},
		{"size", required_argument, NULL, 's'},
		{"stride", required_argument, NULL, 'S'},
		{"list", no_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned char seen[256] = {0};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "n:t:lh", opts, NULL)) != -1) {
		if (util_once("litmus", opts, seen, c, "t"))
			return PFR_EXIT_USAGE;
		switch (c) {
		case 'n':
			if (util_parse_u64(optarg, &o->iterations) ||
			    !o->iterations)
				return util_usage_error("litmus",
							"bad --iterations '%s'",
							optarg);
			break;
		case 's':
			if (util_parse_u64(optarg, &o->size) || !o->size ||
			    o->size > (1ULL << 24))
				return util_usage_error(
					"litmus", "bad --size '%s'", optarg);
			break;
		case 'S':
			if (util_parse_u64(optarg, &o->stride) || !o->stride ||
			    o->stride > 1024)
				return util_usage_error(
					"litmus", "bad --stride '%s'", optarg);
			break;
		case 't':
			if (sel->npats ==
			    (int)(sizeof(sel->pats) / sizeof(sel->pats[0])))
				return util_usage_error("litmus",
							"too many --test");
			sel->pats[sel->npats++] = optarg;
			break;
		case 'l':
			*list = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			help();
			return 0;
		default:
			return util_usage_error("litmus", "bad option");
		}
	}
	if (optind < argc)
		return util_usage_error("litmus", "unexpected argument '%s'",
					argv[optind]);
	return -1;
}

/* --list: one line (or JSON object) per selected test. */
static void lit_list(const struct lit_sel *sel, const struct lit_model *m,
		     int json)
{
	for (size_t i = 0; i < cli_lit_ntests; i++) {
		const struct cli_lit_test *t = &cli_lit_tests[i];

		if (!lit_selected(t, sel->pats, sel->npats))
			continue;
		if (json) {
			printf("{\"type\":\"list\",\"name\":");
			util_json_str(stdout, t->name);
			printf(",\"shape\":");
			util_json_str(stdout, t->shape);
			printf(",\"threads\":%d,\"condition\":", t->nthreads);
			util_json_str(stdout, t->cond);
			printf(",\"model\":");
			util_json_str(stdout, m->name);
			printf(",\"allowed\":%s,\"beyond_contract\":%s}\n",
			       t->forbidden & m->bit ? "false" : "true",
			       cli_lit_beyond(t) & m->bit ? "true" : "false");
		} else {
			printf("%-24s %-6s %d  %-10s %s\n", t->name, t->shape,
			       t->nthreads,
			       !(t->forbidden & m->bit)	    ? "allowed"
			       : cli_lit_beyond(t) & m->bit ? "forbidden*"
							    : "forbidden",
			       t->why);
		}
	}
}

/* --list for the code shapes: every one forbidden on every model. */
static void lit_list_codes(const struct lit_sel *sel, const struct lit_model *m,
			   int json)
{
	for (size_t i = 0; i < cli_lit_ncodes; i++) {
		const struct cli_lit_code *t = &cli_lit_codes[i];

		if (!lit_selected_name(t->name, t->shape, sel->pats,
				       sel->npats))
			continue;
		if (!json) {
			printf("%-24s %-6s %d  %-10s %s\n", t->name, t->shape,
			       t->nthreads, "forbidden", t->why);
			continue;
		}
		printf("{\"type\":\"list\",\"name\":");
		util_json_str(stdout, t->name);
		printf(",\"shape\":");
		util_json_str(stdout, t->shape);
		printf(",\"threads\":%d,\"condition\":\"0:bad=1\",\"model\":",
		       t->nthreads);
		util_json_str(stdout, m->name);
		printf(",\"allowed\":false,\"beyond_contract\":false,"
		       "\"code_shape\":true}\n");
	}
}

/* The first line (or JSON object): what runs, where. */
static void lit_print_meta(const struct lit_run *r, const struct lit_opts *o,
			   const struct lit_model *m, int nsel)
{
	if (o->json) {
		printf("{\"type\":\"meta\",\"version\":");
		util_json_str(stdout, pfr_version());
		printf(",\"backend\":");
		util_json_str(stdout, PFR_BARRIER_BACKEND);
		printf(",\"model\":");
		util_json_str(stdout, m->name);
		printf(",\"cpus\":%d,\"iterations\":%llu,\"size\":%llu,"
		       "\"stride\":%llu,\"tests\":%d}\n",
		       r->ncpu, o->iterations, o->size, o->stride, nsel);
	} else {
		printf("perfring litmus: %d tests, %llu instances each, "
		       "backend %s, model %s, %d CPUs\n\n",
		       nsel, o->iterations, PFR_BARRIER_BACKEND, m->name,
		       r->ncpu);
	}
}

/* Runs every selected test and prints its result; sum gets the
 * verdicts.  Returns 0, or 1 on an error (said on stderr). */
static int lit_run_all(struct lit_run *r, const struct lit_opts *o,
		       const struct lit_sel *sel, const struct lit_model *m,
		       struct lit_sum *sum)
{
	for (size_t i = 0; i < cli_lit_ntests; i++) {
		const struct cli_lit_test *t = &cli_lit_tests[i];
		struct lit_result res = {0, 0, 0, 0, 0};
		unsigned nkeys;
		double t0;

		if (!lit_selected(t, sel->pats, sel->npats))
			continue;
		r->t = t;
		if (lit_observe_setup(r)) {
			fprintf(stderr, "perfring litmus: malformed test %s\n",
				t->name);
			return 1;
		}
		t0 = lit_now();
		if (lit_run_test(r, o)) {
			fprintf(stderr, "perfring litmus: out of memory\n");
			return 1;
		}
		res.secs = lit_now() - t0;
		nkeys = 1u << (2 * r->nitems);
		for (unsigned k = 0; k < nkeys; k++) {
			if (lit_state_witnesses(r, k))
				res.pos += r->counts[k];
			else
				res.neg += r->counts[k];
		}
		res.forbidden = !!(t->forbidden & m->bit);
		res.beyond = !!(cli_lit_beyond(t) & m->bit);
		if (res.forbidden && res.pos && !res.beyond)
			sum->nfail++;
		if (res.forbidden && res.pos && res.beyond)
			sum->ndev++;
		if (!strcmp(t->shape, "SB") && !(t->forbidden & m->bit)) {
			sum->sb_pos += res.pos;
			sum->sb_all += res.pos + res.neg;
		}
		if (o->json)
			lit_print_json(r, &res, m);
		else
			lit_print_text(r, &res, m);
		fflush(stdout);
	}
	return 0;
}

/* Instances of a code shape: each checks tens of records, so a hundredth
 * of the barrier tests' count (at least one). */
static unsigned long long lit_code_instances(const struct lit_opts *o)
{
	return o->iterations / 100 ? o->iterations / 100 : 1;
}

/* A code shape's result, in the barrier tests' text form: the observed
 * item is whether an instance saw a wrong record (0:bad). */
static void lit_print_code_text(const struct cli_lit_code *t,
				const struct cli_lit_code_res *res,
				const struct lit_model *m, double secs)
{
	int nstates = !!res->pos + !!res->neg;

	printf("Test %s Forbidden\n", t->name);
	for (int tid = 0; tid < t->nthreads; tid++)
		printf("  P%d: %s\n", tid, t->code[tid]);
	printf("Histogram (%d states)\n", nstates);
	if (res->neg)
		printf("%-10llu:>0:bad=0;\n", (unsigned long long)res->neg);
	if (res->pos)
		printf("%-10llu*>0:bad=1;\n", (unsigned long long)res->pos);
	printf("%s\n", res->pos ? "Ok" : "No");
	printf("Witnesses\nPositive: %llu, Negative: %llu\n",
	       (unsigned long long)res->pos, (unsigned long long)res->neg);
	printf("Condition exists (0:bad=1) is %svalidated\n",
	       res->pos ? "" : "NOT ");
	printf("Model %s: forbidden (the library's claim, every model) -- "
	       "%s\n",
	       m->name, t->why);
	printf("Observation %s %s %llu %llu\n", t->name,
	       !res->pos   ? "Never"
	       : !res->neg ? "Always"
			   : "Sometimes",
	       (unsigned long long)res->pos, (unsigned long long)res->neg);
	printf("Time %s %.2f s (%llu records checked)\n", t->name, secs,
	       (unsigned long long)res->records);
	if (res->pos)
		printf("FAIL %s: the library's code showed a wrong record in "
		       "%llu instances; first: %s\n",
		       t->name, (unsigned long long)res->pos, res->first);
	printf("\n");
}

static void lit_print_code_json(const struct cli_lit_code *t,
				const struct cli_lit_code_res *res,
				const struct lit_model *m, double secs)
{
	printf("{\"type\":\"test\",\"name\":");
	util_json_str(stdout, t->name);
	printf(",\"shape\":");
	util_json_str(stdout, t->shape);
	printf(",\"threads\":%d,\"code\":[", t->nthreads);
	for (int tid = 0; tid < t->nthreads; tid++) {
		printf("%s", tid ? "," : "");
		util_json_str(stdout, t->code[tid]);
	}
	printf("],\"condition\":\"0:bad=1\",\"model\":");
	util_json_str(stdout, m->name);
	printf(",\"allowed\":false,\"beyond_contract\":false,\"why\":");
	util_json_str(stdout, t->why);
	printf(",\"histogram\":[");
	if (res->neg)
		printf("{\"state\":\"0:bad=0;\",\"count\":%llu,"
		       "\"witness\":false}%s",
		       (unsigned long long)res->neg, res->pos ? "," : "");
	if (res->pos)
		printf("{\"state\":\"0:bad=1;\",\"count\":%llu,"
		       "\"witness\":true}",
		       (unsigned long long)res->pos);
	printf("],\"positive\":%llu,\"negative\":%llu,\"observation\":\"%s\"",
	       (unsigned long long)res->pos, (unsigned long long)res->neg,
	       !res->pos   ? "Never"
	       : !res->neg ? "Always"
			   : "Sometimes");
	printf(",\"forbidden_observed\":%s,\"deviation\":false,"
	       "\"seconds\":%.3f,\"sync\":\"instance\",\"code_shape\":true,"
	       "\"records\":%llu,\"first_wrong\":",
	       res->pos ? "true" : "false", secs,
	       (unsigned long long)res->records);
	util_json_str(stdout, res->first);
	printf("}\n");
}

/* Runs every selected code shape; 0, or 1 on an error. */
static int lit_run_codes(const struct lit_run *r, const struct lit_opts *o,
			 const struct lit_sel *sel, const struct lit_model *m,
			 struct lit_sum *sum)
{
	for (size_t i = 0; i < cli_lit_ncodes; i++) {
		const struct cli_lit_code *t = &cli_lit_codes[i];
		struct cli_lit_code_res res;
		double t0;

		if (!lit_selected_name(t->name, t->shape, sel->pats,
				       sel->npats))
			continue;
		t0 = lit_now();
		if (cli_lit_code_run(t, lit_code_instances(o), r->cpus, r->ncpu,
				     &res)) {
			fprintf(stderr, "perfring litmus: %s did not run\n",
				t->name);
			return 1;
		}
		sum->nfail += res.pos != 0;
		if (o->json)
			lit_print_code_json(t, &res, m, lit_now() - t0);
		else
			lit_print_code_text(t, &res, m, lit_now() - t0);
		fflush(stdout);
	}
	return 0;
}

/* The last line (or JSON object): the verdicts over the run. */
static void lit_print_summary(const struct lit_opts *o,
			      const struct lit_model *m,
			      const struct lit_sum *sum, int nsel, double t_all)
{
	if (o->json) {
		printf("{\"type\":\"summary\",\"tests\":%d,"
		       "\"forbidden_observed\":%d,\"deviations\":%d,"
		       "\"sb_relaxed\":%llu,\"sb_instances\":%llu,"
		       "\"seconds\":%.3f}\n",
		       nsel, sum->nfail, sum->ndev, sum->sb_pos, sum->sb_all,
		       t_all);
	} else {
		if (sum->sb_all)
			printf("SB relaxed outcome (allowed by %s): observed "
			       "%llu times in %llu instances\n",
			       m->name, sum->sb_pos, sum->sb_all);
		printf("Summary: %d tests, %d with a forbidden outcome "
		       "observed, %d deviations from the model beyond the "
		       "primitives' contract, %.1f s\n",
		       nsel, sum->nfail, sum->ndev, t_all);
	}
}

int cli_cmd_litmus(int argc, char **argv)
{
	struct lit_opts o = {1000000, 1000, 1, 0};
	const struct lit_model *m = lit_host_model();
	struct lit_sel sel = {.npats = 0};
	struct lit_sum sum = {0, 0, 0, 0};
	int list = 0, nsel = 0, shown = 0, err;
	unsigned long long total = 0, done = 0;
	struct lit_run *r;
	double t_all;

	err = lit_parse(argc, argv, &o, &sel, &list);
	if (err >= 0)
		return err;
	for (size_t i = 0; i < cli_lit_ntests; i++)
		if (lit_selected(&cli_lit_tests[i], sel.pats, sel.npats))
			nsel++;
	for (size_t i = 0; i < cli_lit_ncodes; i++)
		if (lit_selected_name(cli_lit_codes[i].name,
				      cli_lit_codes[i].shape, sel.pats,
				      sel.npats))
			nsel++;
	if (!nsel)
		return util_usage_error("litmus", "no test matches '%s'",
					sel.pats[0]);
	if (list) {
		lit_list(&sel, m, o.json);
		lit_list_codes(&sel, m, o.json);
		return 0;
	}

	r = calloc(1, sizeof(*r));
	if (!r) {
		fprintf(stderr, "perfring litmus: out of memory\n");
		return 1;
	}
	r->ncpu = lit_host_cpus(r->cpus, 256);
	if (r->ncpu <= 0)
		r->ncpu = 1;
	for (size_t i = 0; i < cli_lit_ntests; i++)
		if (lit_selected(&cli_lit_tests[i], sel.pats, sel.npats)) {
			unsigned long long n =
				o.size < o.iterations ? o.size : o.iterations;

			total += (o.iterations + n - 1) / n * n;
		}
	lit_print_meta(r, &o, m, nsel);
	fflush(stdout);

	t_all = lit_now();
	clock_gettime(CLOCK_MONOTONIC, &r->start);
	r->done_work = &done;
	r->total_work = total;
	r->progress_shown = &shown;
	if (lit_run_all(r, &o, &sel, m, &sum) ||
	    lit_run_codes(r, &o, &sel, m, &sum)) {
		free(r);
		return 1;
	}
	if (shown)
		util_progress("perfring litmus", 1.0, 1);
	t_all = lit_now() - t_all;
	lit_print_summary(&o, m, &sum, nsel, t_all);
	free(r);
	return sum.nfail ? 1 : 0;
}
