/* SPDX-License-Identifier: MIT */
/*
 * Instruction probes: one small function per barrier primitive per size.
 * tests/insn/insn-check.sh compiles this file at -O2 with each target's
 * gcc, and tools/insn-table.sh reads the ordering instructions of each
 * pfr_probe_* function from that target's objdump; the check compares them
 * with tests/insn/expected.txt, t_insn_docs.sh turns them into
 * docs/instructions.md, and mk/insn.mk compiles this file with the build's
 * own compiler into the table `perfring info` prints.  Nothing here runs.
 *
 * Every probe takes its object by pointer, so the access cannot be folded
 * away, and does nothing else, so only the primitive's own instructions and
 * the return remain.
 */
#include <stdint.h>

#include <perfring/barrier.h>

/* Keeps -Wmissing-prototypes quiet: the probes exist to be disassembled. */
#define PFR__PROBE(ret, name, args)                                            \
	ret pfr_probe_##name args;                                             \
	ret pfr_probe_##name args

PFR__PROBE(void, barrier, (void))
{
	pfr_barrier();
}

PFR__PROBE(void, cpu_relax, (void))
{
	pfr_cpu_relax();
}

PFR__PROBE(void, smp_mb, (void))
{
	pfr_smp_mb(); /* purpose: probe */
}

PFR__PROBE(void, smp_rmb, (void))
{
	pfr_smp_rmb(); /* purpose: probe */
}

PFR__PROBE(void, smp_wmb, (void))
{
	pfr_smp_wmb(); /* purpose: probe */
}

PFR__PROBE(void, smp_tmb, (void))
{
	pfr_smp_tmb(); /* purpose: probe */
}

PFR__PROBE(void, acquire__after_ctrl_dep, (void))
{
	pfr_smp_acquire__after_ctrl_dep(); /* purpose: probe */
}

#define PFR__PROBE_SIZED(bits)                                                 \
	PFR__PROBE(uint##bits##_t, read_once_##bits,                           \
		   (const uint##bits##_t *p))                                  \
	{                                                                      \
		return PFR_READ_ONCE(*p);                                      \
	}                                                                      \
	PFR__PROBE(void, write_once_##bits,                                    \
		   (uint##bits##_t * p, uint##bits##_t v))                     \
	{                                                                      \
		PFR_WRITE_ONCE(*p, v);                                         \
	}                                                                      \
	PFR__PROBE(uint##bits##_t, load_acquire_##bits,                        \
		   (const uint##bits##_t *p))                                  \
	{                                                                      \
		return pfr_smp_load_acquire(p); /* purpose: probe */           \
	}                                                                      \
	PFR__PROBE(void, store_release_##bits,                                 \
		   (uint##bits##_t * p, uint##bits##_t v))                     \
	{                                                                      \
		pfr_smp_store_release(p, v); /* purpose: probe */              \
	}

PFR__PROBE_SIZED(8)
PFR__PROBE_SIZED(16)
PFR__PROBE_SIZED(32)
PFR__PROBE_SIZED(64)
