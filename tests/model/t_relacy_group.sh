#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of a group's own code with Relacy
# (tests/model/relacy_group.cc): src/writers/group.c, src/ring/ring.c and
# src/writers/merge.c compiled against relacy-group-barrier.h (seams for
# the processes, /proc and the shared object in tests/model/model_group.c)
# with the host's compilers; 2 and 3 writers and the reader: join,
# publish, leave, scan, free, a dead writer's reclaim, slot reuse by a
# second writer, the ordered reader's rescan and the sleep hand-shake
# pass, and each hook-made mutant (J with P, L, S, F, the CAS free, the
# wake-up barriers) is caught.  Random search, 20 000 executions per case;
# in make check-long (PFR_LONG=1) 500 000.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
# shellcheck source=tests/model/lib.sh
. "$(dirname "$0")/lib.sh"
bin=$out/relacy_group
deps=("$src"/*.h "$src"/model_group.c "$src"/relacy_group.cc
	"$top"/src/writers/group.c "$top"/src/writers/merge.c
	"$top"/src/ring/ring.c "$top"/src/*/*.h "$top"/include/perfring/*.h
	"$top"/include/perfring/arch/*.h)
model_build group relacy-group-barrier.h build-group.log "group model" \
	"${deps[@]}"
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-i 500000)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
