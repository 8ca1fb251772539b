/* SPDX-License-Identifier: MIT */
/*
 * perfring litmus - the table of litmus tests run on the host CPU and the
 * context their threads run in.  cli/litmus/tests.c holds the tests (one
 * compiled thread function per test, so every barrier is the real inline
 * instruction), cli/litmus/litmus.c the runner.
 */
#ifndef PFR_CLI_LITMUS_H
#define PFR_CLI_LITMUS_H

#include <stddef.h>
#include <stdint.h>

#define PFR_LIT_MAX_THREADS 4
#define PFR_LIT_MAX_VARS 3

/* Memory models the tests state their verdict in, one bit each. */
enum cli_lit_model {
	PFR_LIT_TSO = 1 << 0, /* x86-64 (x86-TSO), s390x (TSO-like) */
	PFR_LIT_ARMV8 = 1 << 1, /* aarch64: other-multi-copy-atomic ARMv8 */
	PFR_LIT_POWER =
		1 << 2, /* ppc64/ppc64le: Power, not multi-copy atomic */
	PFR_LIT_ARMV7 = 1 << 3, /* armv7 */
	PFR_LIT_RVWMO = 1 << 4, /* riscv64 */
	PFR_LIT_C11 =
		1 << 5, /* the C11 backend: ISO C11 (SC fences as C++20) */
};
#define PFR_LIT_ALL 0x3f

/*
 * Everything one thread needs for one round of instances.  Instance i of
 * variable v lives at var[v][i * stride]; the loads of thread t land in
 * reg[t][0..1][i]; bar[i] is instance i's start counter.
 */
struct cli_lit_ctx {
	uint32_t *var[PFR_LIT_MAX_VARS];
	uint32_t *reg[PFR_LIT_MAX_THREADS][2];
	uint32_t *bar;
	size_t n; /* instances in this round */
	size_t stride; /* in uint32_t units */
	uint32_t nthreads;
	int sync_instance; /* spin on bar[i] before every instance */
};

typedef void cli_lit_thread_fn(struct cli_lit_ctx *c, int tid);

/*
 * One thread's program: a[0]; fence; a[1].  A load of a[j] lands in
 * reg[tid][j].  PFR_LIT_CST is a store done only when a[0] loaded 1 (a
 * control dependency on that load).
 */
enum cli_lit_op { PFR_LIT_NOP, PFR_LIT_ST, PFR_LIT_LD, PFR_LIT_CST };
enum cli_lit_acc { PFR_LIT_ONCE, PFR_LIT_REL, PFR_LIT_ACQ };
enum cli_lit_fence {
	PFR_LIT_F_NONE,
	PFR_LIT_F_BARRIER,
	PFR_LIT_F_RMB,
	PFR_LIT_F_WMB,
	PFR_LIT_F_TMB,
	PFR_LIT_F_MB,
	PFR_LIT_F_ACQCTRL, /* smp_acquire__after_ctrl_dep() inside the if */
};

struct cli_lit_access {
	uint8_t op, var, val, acc;
};

struct cli_lit_prog {
	struct cli_lit_access a[2];
	uint8_t fence;
};

struct cli_lit_test {
	const char *name; /* e.g. "SB+mbs" */
	const char *shape; /* e.g. "SB" */
	const char *vars[PFR_LIT_MAX_VARS]; /* location names */
	int nthreads;
	unsigned finals; /* bit v: variable v's final value observed */
	const char *cond; /* "0:r0=0 /\ 1:r0=0" */
	unsigned forbidden; /* models (cli_lit_model) that forbid cond */
	const char *why; /* one line: what the test shows */
	struct cli_lit_prog prog[PFR_LIT_MAX_THREADS];
	cli_lit_thread_fn *fn;
};

extern const struct cli_lit_test cli_lit_tests[];
extern const size_t cli_lit_ntests;

/* The models among t->forbidden whose verdict rests on this build's
 * instruction being stronger than the primitive's contract. */
unsigned cli_lit_beyond(const struct cli_lit_test *t);

/*
 * Code shapes (cli/litmus/code.c): litmus tests whose threads run the
 * library's own inline functions (the ring's publication and reuse, the
 * shared ring's commit, the group's hand-over) over many small instances,
 * each checking every record it reads.  An instance is positive when a
 * record was wrong (a payload not its own, out of order or missing): the
 * library's claim is that this is Never, on every model.
 */
struct cli_lit_code_res {
	uint64_t pos, neg; /* instances with / without a wrong record */
	uint64_t records; /* records checked */
	char first[256]; /* the first wrong record, said in words */
};

struct cli_lit_code {
	const char *name; /* e.g. "RING-PUB+ACQREL" */
	const char *shape; /* e.g. "RING-PUB" */
	int nthreads;
	const char *code[PFR_LIT_MAX_THREADS]; /* what each thread runs */
	const char *why;
	int kind; /* private to cli/litmus/code.c */
	int ordering; /* enum pfr_ordering of the ring or group */
};

extern const struct cli_lit_code cli_lit_codes[];
extern const size_t cli_lit_ncodes;

/* Runs n instances of t on the CPUs cpus[0..ncpu-1]; 0, or -1 when a
 * ring or a thread cannot be made (said on stderr). */
int cli_lit_code_run(const struct cli_lit_code *t, unsigned long long n,
		     const int *cpus, int ncpu, struct cli_lit_code_res *res);

#endif
