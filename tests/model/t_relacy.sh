#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of the ring's own code with Relacy (tests/model/README.md):
# builds tests/model/ (src/ring.c, <perfring/ring-proto.h> and
# <perfring/ring-inline.h> compiled against relacy-barrier.h, plus the
# Relacy harness) with the host's
# compilers, then runs every case: each ordering passes, each mutant (A,
# B, C or D removed or weakened, either smp_mb of a wake-up hand-shake
# removed) is caught.  One TAP line per case.  In make check-long
# (PFR_LONG=1) ACQREL's and CTRLDEP's A-D get a full search and every
# other context-bounded search goes one preemption deeper.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
out=$build/tests/model
src=$top/tests/model
# The model is a host program even in cross and sanitizer runs: the host's
# compilers, no sanitizer (Relacy switches stacks), no $RUNNER.
cc=${MODEL_CC:-cc}
cxx=${MODEL_CXX:-c++}

if [ ! -f /usr/include/relacy/relacy.hpp ]; then
	skip_all "relacy not installed (Debian relacy-dev; tools/deps.sh)"
fi
mkdir -p "$out"
bin=$out/relacy_ring
# Rebuilt when any input is newer (the ring's headers and src/ring.c
# included).
deps=("$src"/*.h "$src"/*.c "$src"/*.cc "$top"/src/ring.c "$top"/src/*.h
	"$top"/include/perfring/*.h "$top"/include/perfring/arch/*.h)
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
		'-DPFR_BARRIER_OVERRIDE="relacy-barrier.h"' \
		-c "$src/model_ring.c" -o "$out/model_ring.o" &&
		$cxx -std=c++17 -O1 -g -Wall -I"$src" \
			-c "$src/relacy_ring.cc" -o "$out/relacy_ring.o" &&
		$cxx -o "$bin" "$out/relacy_ring.o" "$out/model_ring.o"; } \
		>"$out/build.log" 2>&1; then
		sed 's/^/# /' "$out/build.log" | tail -n 30
		fail "the Relacy model builds"
		tap_done
	fi
fi
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-L -x 1)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
