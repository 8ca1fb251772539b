#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of the shared MPSC ring's own code with Relacy
# (tests/model/relacy_mpsc.cc): src/mpsc.c and <perfring/mpsc.h> compiled
# against relacy-mpsc-barrier.h with the host's compilers; 2 and 3
# producers and a reader pass, and each barrier mutant (R, C1, B, C2, A,
# D, the lock's acquire and release, the wake-up hand-shakes) is caught.
# Random search (100 000 executions) for the polling and sleeping
# reader, a context bound of 1 for the BLOCK producers' sleep (the
# bounded search of the polling cases, whose spin loops are free
# switches, does not end in minutes).  In make check-long (PFR_LONG=1)
# the bound goes one deeper and the random search runs 2 000 000.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
out=$build/tests/model
src=$top/tests/model
cc=${MODEL_CC:-cc}
cxx=${MODEL_CXX:-c++}

if [ ! -f /usr/include/relacy/relacy.hpp ]; then
	skip_all "relacy not installed (Debian relacy-dev; tools/deps.sh)"
fi
mkdir -p "$out"
bin=$out/relacy_mpsc
deps=("$src"/*.h "$src"/model_mpsc.c "$src"/relacy_mpsc.cc
	"$top"/src/mpsc.c "$top"/src/*.h "$top"/include/perfring/*.h
	"$top"/include/perfring/arch/*.h)
stale=1
if [ -x "$bin" ]; then
	stale=0
	for f in "${deps[@]}"; do
		[ "$f" -nt "$bin" ] && stale=1 && break
	done
fi
if [ $stale -eq 1 ]; then
	echo "# building $bin"
	if ! { $cc -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-function \
		-D_GNU_SOURCE -U_FORTIFY_SOURCE \
		-I"$top/include" -I"$top/src" -I"$src" \
		'-DPFR_BARRIER_OVERRIDE="relacy-mpsc-barrier.h"' \
		-c "$src/model_mpsc.c" -o "$out/model_mpsc.o" &&
		$cxx -std=c++17 -O1 -g -Wall -I"$src" \
			-c "$src/relacy_mpsc.cc" -o "$out/relacy_mpsc.o" &&
		$cxx -o "$bin" "$out/relacy_mpsc.o" "$out/model_mpsc.o"; } \
		>"$out/build-mpsc.log" 2>&1; then
		sed 's/^/# /' "$out/build-mpsc.log" | tail -n 30
		fail "the Relacy MPSC model builds"
		tap_done
	fi
fi
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-x 1 -i 2000000)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
