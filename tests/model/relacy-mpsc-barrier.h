/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy-mpsc-barrier.h - the barrier backend of the MPSC
 * model build: relacy-barrier.h's mapping (every ONCE access, acquire,
 * release, fence, memcpy() and syscall() a call into the harness), plus
 * the shared ring's two CAS macros.  Selected with
 * -DPFR_BARRIER_OVERRIDE='"relacy-mpsc-barrier.h"'.  Test-only.
 */
#include "relacy-barrier.h"
#include "model_mpsc.h"

#define pfr__mpsc_cas_acquire(p, expp, v)                                      \
	pfr_model_cas((p), (expp), (v), PFR_MODEL_ACQUIRE, PFR_MODEL_SITE)
#define pfr__mpsc_cas_acqrel(p, expp, v)                                       \
	pfr_model_cas((p), (expp), (v), PFR_MODEL_ACQ_REL, PFR_MODEL_SITE)
