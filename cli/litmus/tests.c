/* SPDX-License-Identifier: MIT */
/*
 * The litmus tests perfring runs on the host CPU.  Each test is a few
 * threads of at most "access; fence; access"; each thread is compiled into
 * its own loop over an array of instances (as litmus7 does), with the
 * access kinds and the fence folded in at compile time, so that what runs
 * is exactly the instruction <perfring/barrier.h> emits on this target.
 *
 * Each test names the memory models that forbid its condition (the
 * "exists" clause).  The model is the one of the instructions this build
 * emits, not only the primitive's contract: on aarch64 smp_tmb() is a full
 * "dmb ish", so SB+tmbs is forbidden there; on Power it is lwsync and SB's
 * relaxed outcome is allowed.  Where a verdict depends on an architectural
 * subtlety the comment beside the test gives the reason.  The verdicts:
 *
 *   TSO     only a store followed by a load of another location may be
 *           reordered (x86-TSO; s390x behaves the same and, like x86, is
 *           multi-copy atomic).  So every shape without a W->R edge is
 *           forbidden with no fence at all; SB and R need smp_mb().
 *   ARMv8   other-multi-copy atomic: a cycle is forbidden when every
 *           thread orders its two accesses.  "dmb ishld" orders earlier
 *           loads before later loads and stores; "dmb ishst" only stores
 *           before stores; LDAR after STLR is ordered (RCsc).
 *   Power   not multi-copy atomic.  lwsync orders R->R, R->W, W->W and is
 *           cumulative, so MP, LB, S, 2+2W and WRC are forbidden with
 *           lwsyncs, but R+lwsync+sync and IRIW+lwsyncs are allowed; only
 *           sync orders W->R.
 *   ARMv7   "dmb ish" behaves as Power's sync (every barrier here except
 *           smp_wmb is dmb ish); smp_wmb is "dmb ishst".  Where the
 *           published models leave the answer for dmb ishst open, the
 *           test is marked allowed (a conservative statement).
 *   RVWMO   multi-copy atomic; each FENCE orders exactly its pred/succ
 *           sets (fence r,r; fence w,w; fence.tso; fence rw,rw; acquire =
 *           ld + fence r,rw; release = fence rw,w + st).
 *   C11     ISO C11 with the C++20 rules for seq_cst fences.  Fences order
 *           only through reads-from (release fence ... store read by a load
 *           ... acquire fence), so e.g. 2+2W is allowed even with release
 *           fences, and a control dependency orders nothing.
 */
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include <perfring/barrier.h>

#include "litmus.h"

#define LIT_INLINE static inline __attribute__((always_inline))

LIT_INLINE uint32_t lit_load(uint32_t *p, int acc)
{
	if (acc == PFR_LIT_ACQ) {
		/* purpose: the acquire under test */
		return pfr_smp_load_acquire(p);
	}
	return PFR_READ_ONCE(*p);
}

LIT_INLINE void lit_store(uint32_t *p, uint32_t v, int acc)
{
	if (acc == PFR_LIT_REL) {
		/* purpose: the release under test */
		pfr_smp_store_release(p, v);
	} else {
		PFR_WRITE_ONCE(*p, v);
	}
}

LIT_INLINE void lit_fence(int f)
{
	switch (f) {
	case PFR_LIT_F_BARRIER:
		pfr_barrier();
		break;
	case PFR_LIT_F_RMB:
		pfr_smp_rmb(); /* purpose: the fence under test */
		break;
	case PFR_LIT_F_WMB:
		pfr_smp_wmb(); /* purpose: the fence under test */
		break;
	case PFR_LIT_F_TMB:
		pfr_smp_tmb(); /* purpose: the fence under test */
		break;
	case PFR_LIT_F_MB:
		pfr_smp_mb(); /* purpose: the fence under test */
		break;
	default:
		break;
	}
}

/*
 * Releases the threads of instance i together: each adds one to bar[i] and
 * spins until all have.  Timing only: the round barrier in the runner
 * orders the set-up, so this needs no ordering of its own (relaxed).
 */
LIT_INLINE void lit_sync(uint32_t *b, uint32_t nthreads)
{
	unsigned spins = 0;

	__atomic_fetch_add(b, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(b, __ATOMIC_RELAXED) != nthreads) {
		/* A partner descheduled by other load on the machine. */
		if (++spins & 0xffff)
			pfr_cpu_relax();
		else
			sched_yield();
	}
}

/* The loop every thread runs: one instance after another. */
LIT_INLINE void lit_thread(struct cli_lit_ctx *c, int tid,
			   const struct cli_lit_prog p)
{
	const size_t n = c->n, s = c->stride;
	const uint32_t nth = c->nthreads;
	const int sync = c->sync_instance;
	uint32_t *a0 = c->var[p.a[0].var], *a1 = c->var[p.a[1].var];
	uint32_t *o0 = c->reg[tid][0], *o1 = c->reg[tid][1];
	uint32_t *bar = c->bar;

	for (size_t i = 0; i < n; i++) {
		uint32_t v0 = 0, v1 = 0;

		if (sync)
			lit_sync(bar + i, nth);
		if (p.a[0].op == PFR_LIT_ST)
			lit_store(a0 + i * s, p.a[0].val, p.a[0].acc);
		else if (p.a[0].op == PFR_LIT_LD)
			v0 = lit_load(a0 + i * s, p.a[0].acc);
		lit_fence(p.fence);
		if (p.a[1].op == PFR_LIT_ST) {
			lit_store(a1 + i * s, p.a[1].val, p.a[1].acc);
		} else if (p.a[1].op == PFR_LIT_LD) {
			v1 = lit_load(a1 + i * s, p.a[1].acc);
		} else if (p.a[1].op == PFR_LIT_CST) {
			if (v0 == 1) {
				if (p.fence == PFR_LIT_F_ACQCTRL) {
					/* purpose: the upgrade under test */
					pfr_smp_acquire__after_ctrl_dep();
				}
				lit_store(a1 + i * s, p.a[1].val, p.a[1].acc);
			}
		}
		if (p.a[0].op == PFR_LIT_LD)
			o0[i] = v0;
		if (p.a[1].op == PFR_LIT_LD)
			o1[i] = v1;
	}
}

/* clang-format off */
/* Program notation for the table. */
#define ST(v, k) { PFR_LIT_ST, v, k, PFR_LIT_ONCE }
#define STR(v, k) { PFR_LIT_ST, v, k, PFR_LIT_REL }
#define LD(v) { PFR_LIT_LD, v, 0, PFR_LIT_ONCE }
#define LDA(v) { PFR_LIT_LD, v, 0, PFR_LIT_ACQ }
#define CST(v, k) { PFR_LIT_CST, v, k, PFR_LIT_ONCE }
#define NOP { PFR_LIT_NOP, 0, 0, 0 }
#define P(a, f, b) { { a, b }, PFR_LIT_F_##f }
#define P1(a) { { a, NOP }, PFR_LIT_F_NONE }
#define X 0
#define Y 1

#define TSO PFR_LIT_TSO
#define A8 PFR_LIT_ARMV8
#define PW PFR_LIT_POWER
#define A7 PFR_LIT_ARMV7
#define RV PFR_LIT_RVWMO
#define C11 PFR_LIT_C11
#define ALL PFR_LIT_ALL
#define NO 0

#define XY { "x", "y", 0 }
#define PUBV { "rec", "head", 0 }
#define REUSEV { "tail", "slot", 0 }

/*
 * T(id, name, shape, variables, threads, finals, condition, forbidden-by,
 *   what it shows, thread programs...)
 */
#define LIT_TESTS(T)                                                           \
	/* SB: store buffering; only a W->R order forbids it. */               \
	T(sb, "SB", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", NO,                   \
	  "the one reordering TSO allows", P(ST(X, 1), NONE, LD(Y)),           \
	  P(ST(Y, 1), NONE, LD(X)))                                            \
	T(sb_b, "SB+barriers", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", NO,        \
	  "a compiler barrier does not stop the store buffer",                 \
	  P(ST(X, 1), BARRIER, LD(Y)), P(ST(Y, 1), BARRIER, LD(X)))            \
	/* ARMv8: LDAR after STLR is ordered (RCsc). */                        \
	T(sb_ra, "SB+rel+acq", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", A8,        \
	  "release then acquire does not order W->R (except ARMv8 RCsc)",     \
	  P(STR(X, 1), NONE, LDA(Y)), P(STR(Y, 1), NONE, LDA(X)))              \
	/* smp_tmb is dmb ish on aarch64 and armv7: a full barrier there. */   \
	T(sb_t, "SB+tmbs", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", A8 | A7,       \
	  "the TSO barrier leaves W->R unordered",                            \
	  P(ST(X, 1), TMB, LD(Y)), P(ST(Y, 1), TMB, LD(X)))                    \
	T(sb_m1, "SB+mb+po", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", NO,          \
	  "one smp_mb is not enough: both sides need it (wake-up)",           \
	  P(ST(X, 1), MB, LD(Y)), P(ST(Y, 1), NONE, LD(X)))                    \
	T(sb_m, "SB+mbs", "SB", XY, 2, 0, "0:r0=0 /\\ 1:r0=0", ALL,            \
	  "smp_mb on both sides forbids it everywhere",                        \
	  P(ST(X, 1), MB, LD(Y)), P(ST(Y, 1), MB, LD(X)))                      \
	/* MP: message passing. */                                             \
	T(mp, "MP", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,                  \
	  "stale data after the flag", P(ST(X, 1), NONE, ST(Y, 1)),            \
	  P(LD(Y), NONE, LD(X)))                                               \
	T(mp_b, "MP+barriers", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,       \
	  "compiler barriers suffice only on TSO",                             \
	  P(ST(X, 1), BARRIER, ST(Y, 1)), P(LD(Y), BARRIER, LD(X)))            \
	T(mp_wr, "MP+wmb+rmb", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,       \
	  "smp_wmb pairs with smp_rmb", P(ST(X, 1), WMB, ST(Y, 1)),            \
	  P(LD(Y), RMB, LD(X)))                                                \
	T(mp_wp, "MP+wmb+po", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,        \
	  "the reader's barrier removed", P(ST(X, 1), WMB, ST(Y, 1)),          \
	  P(LD(Y), NONE, LD(X)))                                               \
	T(mp_pr, "MP+po+rmb", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,        \
	  "the writer's barrier removed", P(ST(X, 1), NONE, ST(Y, 1)),         \
	  P(LD(Y), RMB, LD(X)))                                                \
	T(mp_ra, "MP+rel+acq", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,       \
	  "release pairs with acquire", P(ST(X, 1), NONE, STR(Y, 1)),          \
	  P(LDA(Y), NONE, LD(X)))                                              \
	T(mp_t, "MP+tmbs", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,           \
	  "the TSO barrier orders W->W and R->R", P(ST(X, 1), TMB, ST(Y, 1)),  \
	  P(LD(Y), TMB, LD(X)))                                                \
	T(mp_m, "MP+mbs", "MP", XY, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,            \
	  "full barriers", P(ST(X, 1), MB, ST(Y, 1)), P(LD(Y), MB, LD(X)))     \
	/* LB: load buffering. */                                              \
	T(lb, "LB", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", TSO,                  \
	  "a store before an earlier load completes", P(LD(X), NONE, ST(Y, 1)), \
	  P(LD(Y), NONE, ST(X, 1)))                                            \
	T(lb_b, "LB+barriers", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", TSO,       \
	  "compiler barriers suffice only on TSO",                             \
	  P(LD(X), BARRIER, ST(Y, 1)), P(LD(Y), BARRIER, ST(X, 1)))            \
	T(lb_ar, "LB+acq+rel", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", ALL,       \
	  "acquire reading from a release orders R->W on both sides",         \
	  P(LDA(X), NONE, ST(Y, 1)), P(LD(Y), NONE, STR(X, 1)))                \
	/* rmb is dmb ishld (ARMv8: R->RW), lwsync, dmb ish; fence r,r on   */ \
	/* RISC-V does not order R->W; two C11 acquire fences never sync.   */ \
	T(lb_r, "LB+rmbs", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1",                \
	  TSO | A8 | PW | A7, "smp_rmb promises only R->R",                    \
	  P(LD(X), RMB, ST(Y, 1)), P(LD(Y), RMB, ST(X, 1)))                    \
	/* wmb: only Power's lwsync happens to order R->W. */                  \
	T(lb_w, "LB+wmbs", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", TSO | PW,      \
	  "smp_wmb cannot serve as A or D", P(LD(X), WMB, ST(Y, 1)),           \
	  P(LD(Y), WMB, ST(X, 1)))                                             \
	T(lb_t, "LB+tmbs", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", ALL,           \
	  "the TSO barrier orders R->W", P(LD(X), TMB, ST(Y, 1)),              \
	  P(LD(Y), TMB, ST(X, 1)))                                             \
	T(lb_m, "LB+mbs", "LB", XY, 2, 0, "0:r0=1 /\\ 1:r0=1", ALL,            \
	  "full barriers", P(LD(X), MB, ST(Y, 1)), P(LD(Y), MB, ST(X, 1)))     \
	/* S: W->W then R->W, observed through the final value of x. */        \
	T(s, "S", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", TSO,                  \
	  "write-to-write order seen through coherence",                       \
	  P(ST(X, 2), NONE, ST(Y, 1)), P(LD(Y), NONE, ST(X, 1)))               \
	T(s_b, "S+barriers", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", TSO,       \
	  "compiler barriers suffice only on TSO",                             \
	  P(ST(X, 2), BARRIER, ST(Y, 1)), P(LD(Y), BARRIER, ST(X, 1)))         \
	T(s_wp, "S+wmb+po", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", TSO,        \
	  "the reader side unordered", P(ST(X, 2), WMB, ST(Y, 1)),             \
	  P(LD(Y), NONE, ST(X, 1)))                                            \
	/* C11: release fence -> acquire fence synchronizes. */                \
	T(s_wr, "S+wmb+rmb", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2",            \
	  TSO | A8 | PW | A7 | C11,                                            \
	  "smp_rmb gives R->W only by accident of its instruction",            \
	  P(ST(X, 2), WMB, ST(Y, 1)), P(LD(Y), RMB, ST(X, 1)))                 \
	T(s_wa, "S+wmb+acq", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", ALL,       \
	  "smp_wmb then an acquire read", P(ST(X, 2), WMB, ST(Y, 1)),          \
	  P(LDA(Y), NONE, ST(X, 1)))                                           \
	T(s_ra, "S+rel+acq", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", ALL,       \
	  "release pairs with acquire", P(ST(X, 2), NONE, STR(Y, 1)),          \
	  P(LDA(Y), NONE, ST(X, 1)))                                           \
	T(s_t, "S+tmbs", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", ALL,           \
	  "the TSO barrier", P(ST(X, 2), TMB, ST(Y, 1)),                       \
	  P(LD(Y), TMB, ST(X, 1)))                                             \
	T(s_m, "S+mbs", "S", XY, 2, 1u << X, "1:r0=1 /\\ x=2", ALL,            \
	  "full barriers", P(ST(X, 2), MB, ST(Y, 1)), P(LD(Y), MB, ST(X, 1)))  \
	/* R: W->W then W->R; Power allows it with lwsync + sync. */           \
	T(r, "R", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0", NO,                   \
	  "W->R needs a full barrier", P(ST(X, 1), NONE, ST(Y, 1)),            \
	  P(ST(Y, 2), NONE, LD(X)))                                            \
	T(r_b, "R+barriers", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0", NO,        \
	  "compiler barriers do not stop the store buffer",                    \
	  P(ST(X, 1), BARRIER, ST(Y, 1)), P(ST(Y, 2), BARRIER, LD(X)))         \
	/* armv7 dmb ishst: left open by the models, stated allowed. */        \
	T(r_wm, "R+wmb+mb", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0",             \
	  TSO | A8 | RV, "non-multi-copy-atomic Power allows it",              \
	  P(ST(X, 1), WMB, ST(Y, 1)), P(ST(Y, 2), MB, LD(X)))                  \
	T(r_rm, "R+rel+mb", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0",             \
	  TSO | A8 | RV | A7, "release is lwsync on Power: still allowed",     \
	  P(ST(X, 1), NONE, STR(Y, 1)), P(ST(Y, 2), MB, LD(X)))                \
	T(r_tm, "R+tmb+mb", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0",             \
	  TSO | A8 | RV | A7, "the TSO barrier as the W->W order",            \
	  P(ST(X, 1), TMB, ST(Y, 1)), P(ST(Y, 2), MB, LD(X)))                  \
	T(r_m, "R+mbs", "R", XY, 2, 1u << Y, "y=2 /\\ 1:r0=0", ALL,            \
	  "full barriers", P(ST(X, 1), MB, ST(Y, 1)), P(ST(Y, 2), MB, LD(X)))  \
	/* 2+2W: two W->W edges closed by coherence. */                        \
	T(w2, "2+2W", "2+2W", XY, 2, (1u << X) | (1u << Y), "x=1 /\\ y=1",     \
	  TSO, "stores to different locations reordered",                     \
	  P(ST(X, 1), NONE, ST(Y, 2)), P(ST(Y, 1), NONE, ST(X, 2)))            \
	T(w2_b, "2+2W+barriers", "2+2W", XY, 2, (1u << X) | (1u << Y),         \
	  "x=1 /\\ y=1", TSO, "compiler barriers suffice only on TSO",         \
	  P(ST(X, 1), BARRIER, ST(Y, 2)), P(ST(Y, 1), BARRIER, ST(X, 2)))      \
	/* C11: no reads-from, so no fence synchronizes. */                    \
	T(w2_w, "2+2W+wmbs", "2+2W", XY, 2, (1u << X) | (1u << Y),             \
	  "x=1 /\\ y=1", TSO | A8 | PW | RV, "smp_wmb orders W->W",            \
	  P(ST(X, 1), WMB, ST(Y, 2)), P(ST(Y, 1), WMB, ST(X, 2)))              \
	T(w2_r, "2+2W+rels", "2+2W", XY, 2, (1u << X) | (1u << Y),             \
	  "x=1 /\\ y=1", TSO | A8 | PW | RV | A7,                              \
	  "release stores (C11: no reads, no ordering)",                      \
	  P(ST(X, 1), NONE, STR(Y, 2)), P(ST(Y, 1), NONE, STR(X, 2)))          \
	T(w2_t, "2+2W+tmbs", "2+2W", XY, 2, (1u << X) | (1u << Y),             \
	  "x=1 /\\ y=1", TSO | A8 | PW | RV | A7, "the TSO barrier",           \
	  P(ST(X, 1), TMB, ST(Y, 2)), P(ST(Y, 1), TMB, ST(X, 2)))              \
	T(w2_m, "2+2W+mbs", "2+2W", XY, 2, (1u << X) | (1u << Y),              \
	  "x=1 /\\ y=1", ALL, "full barriers", P(ST(X, 1), MB, ST(Y, 2)),      \
	  P(ST(Y, 1), MB, ST(X, 2)))                                           \
	/* WRC: write-to-read causality, three threads. */                     \
	T(wrc, "WRC", "WRC", XY, 3, 0, "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0", TSO,    \
	  "causality through a third thread", P1(ST(X, 1)),                    \
	  P(LD(X), NONE, ST(Y, 1)), P(LD(Y), NONE, LD(X)))                     \
	T(wrc_b, "WRC+barriers", "WRC", XY, 3, 0,                              \
	  "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0", TSO,                                 \
	  "compiler barriers suffice only on TSO", P1(ST(X, 1)),               \
	  P(LD(X), BARRIER, ST(Y, 1)), P(LD(Y), BARRIER, LD(X)))               \
	T(wrc_rr, "WRC+rel+rmb", "WRC", XY, 3, 0,                              \
	  "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0", ALL, "release is cumulative",       \
	  P1(ST(X, 1)), P(LD(X), NONE, STR(Y, 1)), P(LD(Y), RMB, LD(X)))       \
	/* C11: the acquire reads a relaxed store: nothing synchronizes. */    \
	T(wrc_ar, "WRC+acq+rmb", "WRC", XY, 3, 0,                              \
	  "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0", TSO | A8 | PW | A7 | RV,             \
	  "an acquire is not cumulative in C11 (nor in the LKMM)",            \
	  P1(ST(X, 1)), P(LDA(X), NONE, ST(Y, 1)), P(LD(Y), RMB, LD(X)))       \
	T(wrc_t, "WRC+tmbs", "WRC", XY, 3, 0, "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0",  \
	  ALL, "the TSO barrier", P1(ST(X, 1)), P(LD(X), TMB, ST(Y, 1)),       \
	  P(LD(Y), TMB, LD(X)))                                                \
	T(wrc_m, "WRC+mbs", "WRC", XY, 3, 0, "1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0",   \
	  ALL, "full barriers", P1(ST(X, 1)), P(LD(X), MB, ST(Y, 1)),          \
	  P(LD(Y), MB, LD(X)))                                                 \
	/* IRIW: two readers disagree on the order of two writes. */           \
	T(iriw, "IRIW", "IRIW", XY, 4, 0,                                      \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", TSO,                      \
	  "independent writes seen in different orders", P1(ST(X, 1)),        \
	  P1(ST(Y, 1)), P(LD(X), NONE, LD(Y)), P(LD(Y), NONE, LD(X)))          \
	T(iriw_b, "IRIW+barriers", "IRIW", XY, 4, 0,                           \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", TSO,                      \
	  "compiler barriers suffice only on TSO", P1(ST(X, 1)), P1(ST(Y, 1)), \
	  P(LD(X), BARRIER, LD(Y)), P(LD(Y), BARRIER, LD(X)))                  \
	/* Power (lwsync) and C11 (acquire fences) allow IRIW+rmbs. */         \
	T(iriw_r, "IRIW+rmbs", "IRIW", XY, 4, 0,                               \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", TSO | A8 | A7 | RV,       \
	  "multi-copy atomicity: only smp_mb is portable", P1(ST(X, 1)),      \
	  P1(ST(Y, 1)), P(LD(X), RMB, LD(Y)), P(LD(Y), RMB, LD(X)))            \
	T(iriw_a, "IRIW+acqs", "IRIW", XY, 4, 0,                               \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", TSO | A8 | A7 | RV,       \
	  "acquire loads do not restore multi-copy atomicity", P1(ST(X, 1)),  \
	  P1(ST(Y, 1)), P(LDA(X), NONE, LD(Y)), P(LDA(Y), NONE, LD(X)))        \
	T(iriw_t, "IRIW+tmbs", "IRIW", XY, 4, 0,                               \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", TSO | A8 | A7 | RV,       \
	  "the TSO barrier (lwsync on Power)", P1(ST(X, 1)), P1(ST(Y, 1)),     \
	  P(LD(X), TMB, LD(Y)), P(LD(Y), TMB, LD(X)))                          \
	T(iriw_m, "IRIW+mbs", "IRIW", XY, 4, 0,                                \
	  "2:r0=1 /\\ 2:r1=0 /\\ 3:r0=1 /\\ 3:r1=0", ALL, "full barriers",     \
	  P1(ST(X, 1)), P1(ST(Y, 1)), P(LD(X), MB, LD(Y)),                     \
	  P(LD(Y), MB, LD(X)))                                                 \
	/* The ring's publication, B with C: MP on the record and head. */     \
	T(pub, "PUB", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,             \
	  "no B, no C: the reader sees head before the record", \
	  P(ST(X, 1), NONE, ST(Y, 1)), P(LD(Y), NONE, LD(X)))                  \
	T(pub_f, "PUB+FULL", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,      \
	  "FULL: B smp_wmb, C smp_rmb", P(ST(X, 1), WMB, ST(Y, 1)),            \
	  P(LD(Y), RMB, LD(X)))                                                \
	T(pub_a, "PUB+ACQREL", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,    \
	  "ACQREL: B release, C acquire", P(ST(X, 1), NONE, STR(Y, 1)),        \
	  P(LDA(Y), NONE, LD(X)))                                              \
	T(pub_c, "PUB+CTRLDEP", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", ALL,   \
	  "CTRLDEP: B smp_wmb, C acquire", P(ST(X, 1), WMB, ST(Y, 1)),         \
	  P(LDA(Y), NONE, LD(X)))                                              \
	T(pub_nb, "PUB+noB", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,      \
	  "B removed", P(ST(X, 1), NONE, ST(Y, 1)), P(LD(Y), RMB, LD(X)))      \
	T(pub_nc, "PUB+noC", "PUB", PUBV, 2, 0, "1:r0=1 /\\ 1:r1=0", TSO,      \
	  "C removed", P(ST(X, 1), WMB, ST(Y, 1)), P(LD(Y), NONE, LD(X)))      \
	/* The ring's slot reuse, A with D: LB on tail and the slot.  The   */ \
	/* writer loads tail; the reader reads the slot, then frees it.     */ \
	T(reuse, "REUSE", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1", TSO,     \
	  "no A, no D: the writer overwrites a record being read",            \
	  P(LD(X), NONE, ST(Y, 1)), P(LD(Y), NONE, ST(X, 1)))                  \
	T(reuse_f, "REUSE+FULL", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1",   \
	  ALL, "FULL: A smp_mb, D smp_mb", P(LD(X), MB, ST(Y, 1)),             \
	  P(LD(Y), MB, ST(X, 1)))                                              \
	T(reuse_a, "REUSE+ACQREL", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1", \
	  ALL, "ACQREL: A acquire, D release", P(LDA(X), NONE, ST(Y, 1)),      \
	  P(LD(Y), NONE, STR(X, 1)))                                           \
	/* Hardware orders a load before a store that depends on it by     */  \
	/* control; C11 does not.                                           */ \
	T(reuse_c, "REUSE+CTRLDEP", "REUSE", REUSEV, 2, 0,                     \
	  "0:r0=1 /\\ 1:r0=1", TSO | A8 | PW | A7 | RV,                        \
	  "CTRLDEP: A a control dependency, D release",                        \
	  P(LD(X), NONE, CST(Y, 1)), P(LD(Y), NONE, STR(X, 1)))                \
	T(reuse_cq, "REUSE+CTRLDEP+acqctrl", "REUSE", REUSEV, 2, 0,            \
	  "0:r0=1 /\\ 1:r0=1", ALL,                                            \
	  "CTRLDEP with smp_acquire__after_ctrl_dep in the branch",            \
	  P(LD(X), ACQCTRL, CST(Y, 1)), P(LD(Y), NONE, STR(X, 1)))             \
	T(reuse_na, "REUSE+noA", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1",   \
	  TSO, "A removed", P(LD(X), NONE, ST(Y, 1)), P(LD(Y), MB, ST(X, 1)))  \
	T(reuse_nd, "REUSE+noD", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1",   \
	  TSO, "D removed", P(LD(X), MB, ST(Y, 1)), P(LD(Y), NONE, ST(X, 1)))  \
	/* rmb as A: R->W only where its instruction happens to give it.   */  \
	T(reuse_ra, "REUSE+rmbA", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1",  \
	  TSO | A8 | PW | A7 | C11, "the classic mistake: smp_rmb as A",       \
	  P(LD(X), RMB, ST(Y, 1)), P(LD(Y), MB, ST(X, 1)))                     \
	T(reuse_wd, "REUSE+wmbD", "REUSE", REUSEV, 2, 0, "0:r0=1 /\\ 1:r0=1",  \
	  TSO | PW | C11, "the classic mistake: smp_wmb as D",                 \
	  P(LD(X), MB, ST(Y, 1)), P(LD(Y), WMB, ST(X, 1)))

#define LIT_FN(id, name, shape, vars, nth, finals, cond, forb, why, ...)      \
	static void id##_fn(struct cli_lit_ctx *c, int tid)                    \
	{                                                                      \
		static const struct cli_lit_prog p[PFR_LIT_MAX_THREADS] = {    \
			__VA_ARGS__                                            \
		};                                                             \
		switch (tid) {                                                 \
		case 0:                                                        \
			lit_thread(c, 0, p[0]);                                \
			break;                                                 \
		case 1:                                                        \
			lit_thread(c, 1, p[1]);                                \
			break;                                                 \
		case 2:                                                        \
			if (nth > 2)                                           \
				lit_thread(c, 2, p[2]);                        \
			break;                                                 \
		default:                                                       \
			if (nth > 3)                                           \
				lit_thread(c, 3, p[3]);                        \
			break;                                                 \
		}                                                              \
	}

LIT_TESTS(LIT_FN)

#define LIT_ENTRY(id, name, shape, vars, nth, finals, cond, forb, why, ...)   \
	{ name, shape, vars, nth, finals, cond, forb, why, { __VA_ARGS__ },    \
	  id##_fn },

const struct cli_lit_test cli_lit_tests[] = { LIT_TESTS(LIT_ENTRY) };
/* clang-format on */
const size_t cli_lit_ntests = sizeof(cli_lit_tests) / sizeof(cli_lit_tests[0]);

/*
 * Verdicts that hold only because this build's instruction is stronger than
 * the primitive promises (smp_rmb promises R->R, smp_wmb W->W, smp_tmb
 * R->R, R->W and W->W, an acquire orders its load before later accesses, a
 * release earlier accesses before its store).  A conforming machine still
 * forbids the outcome, but a weaker implementation of the same primitive
 * would not, and neither does every emulator: qemu-user on an x86 host, for
 * one, does not order an STLR before a later LDAR.  Observing one of these
 * is reported as a deviation from the model, not as a barrier bug.
 */
static const struct {
	const char *name;
	unsigned models;
} lit_beyond[] = {
	{"SB+rel+acq", A8}, /* RCsc LDAR/STLR */
	{"SB+tmbs", A8 | A7}, /* smp_tmb is a full dmb ish */
	{"LB+rmbs", A8 | PW | A7}, /* dmb ishld, lwsync, dmb ish: R->W */
	{"LB+wmbs", PW}, /* lwsync: R->W */
	{"S+wmb+rmb", A8 | PW | A7 | C11}, /* R->W from rmb's instruction */
	{"R+rel+mb", A7}, /* release is a full dmb ish */
	{"R+tmb+mb", A7}, /* smp_tmb is a full dmb ish */
	{"WRC+acq+rmb", PW | A7}, /* cumulativity of lwsync / dmb ish */
	{"IRIW+rmbs", A7}, /* smp_rmb is a full dmb ish */
	{"IRIW+acqs", A7}, /* acquire ends in a full dmb ish */
	{"REUSE+rmbA", A8 | PW | A7 | C11},
	{"REUSE+wmbD", PW | C11},
};

unsigned cli_lit_beyond(const struct cli_lit_test *t)
{
	for (size_t i = 0; i < sizeof(lit_beyond) / sizeof(lit_beyond[0]); i++)
		if (!strcmp(lit_beyond[i].name, t->name))
			return lit_beyond[i].models & t->forbidden;
	return 0;
}
