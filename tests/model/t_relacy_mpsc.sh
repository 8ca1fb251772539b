#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of the shared MPSC ring's own code with Relacy
# (tests/model/relacy_mpsc.cc): src/writers/mpsc.c and <perfring/mpsc.h>
# compiled against relacy-mpsc-barrier.h with the host's compilers, the
# library's own CAS orders included.  2 and 3 producers and a reader pass
# (records reusing zeroed space, PAD, bursts, DROP's LOST records, producers
# killed between their CAS and their header or before their commit, a stale
# announcement, slot reuse (a dead owner's too), a reader replacing one
# killed while zeroing), a ring attached while it is created is refused or
# whole, and each mutant (N, R, H, B, C1, C2, A, D and the takeover's D, the
# slow path's acquire of prod_pos, the slot claim and leave, creation's
# smp_wmb and attachment's smp_rmb, the wake-up hand-shakes) is caught;
# reader-takeover-block: the takeover wakes a BLOCK producer asleep for the
# space it frees. Random search (100 000 executions) for the polling and
# sleeping reader, a full search for attachment, a context bound of 1 for
# the BLOCK producers' sleep (2 019 078 executions, about 80 s).  In make
# check-long (PFR_LONG=1) the random search runs 2 000 000; the bound stays
# 1 (each level multiplies the BLOCK case's executions).
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
# shellcheck source=tests/model/lib.sh
. "$(dirname "$0")/lib.sh"
bin=$out/relacy_mpsc
deps=("$src"/*.h "$src"/model_mpsc.c "$src"/relacy_mpsc.cc
	"$top"/src/writers/mpsc.c "$top"/src/*/*.h "$top"/include/perfring/*.h
	"$top"/include/perfring/arch/*.h)
model_build mpsc relacy-mpsc-barrier.h build-mpsc.log "MPSC model" "${deps[@]}"
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-i 2000000)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
