#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of the ring's own code with Relacy (tests/model/README.md):
# builds tests/model/ (src/ring/ring.c, <perfring/ring-proto.h> and
# <perfring/ring-inline.h> compiled against relacy-barrier.h, plus the
# Relacy harness) with the host's
# compilers, then runs every case: each ordering passes, each mutant (A,
# B, C or D removed or weakened, either smp_mb of a wake-up hand-shake
# removed) is caught.  One TAP line per case.  In make check-long
# (PFR_LONG=1) ACQREL's and CTRLDEP's A-D get a full search and every
# other context-bounded search goes one preemption deeper.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
# shellcheck source=tests/model/lib.sh
. "$(dirname "$0")/lib.sh"
bin=$out/relacy_ring
# Rebuilt when any input is newer (the ring's headers and src/ring/ring.c
# included).
deps=("$src"/*.h "$src"/*.c "$src"/*.cc "$top"/src/ring/ring.c
	"$top"/src/perf/perf.c "$top"/src/*/*.h
	"$top"/include/perfring/*.h "$top"/include/perfring/arch/*.h)
model_build ring relacy-barrier.h build.log "model" "${deps[@]}"
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-L -x 1)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
