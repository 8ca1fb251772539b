#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model checking of a group's slot claim, leave and reclaim with Relacy
# (tests/model/relacy_group.cc): 2 and 3 joiners taking one slot in turn,
# an owner that dies and is reclaimed, and each ordering of the hand-over
# (J, P, L, S, F) weakened to relaxed must be caught.  One TAP line per
# case.  In make check-long (PFR_LONG=1) the random search runs longer.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
out=$build/tests/model
src=$top/tests/model
# A host program even in cross and sanitizer runs (see lib.sh).
cxx=${MODEL_CXX:-c++}

if [ ! -f /usr/include/relacy/relacy.hpp ]; then
	skip_all "relacy not installed (Debian relacy-dev; tools/deps.sh)"
fi
mkdir -p "$out"
bin=$out/relacy_group
if [ ! -x "$bin" ] || [ "$src/relacy_group.cc" -nt "$bin" ]; then
	echo "# building $bin"
	if ! $cxx -std=c++17 -O1 -g -Wall -o "$bin" "$src/relacy_group.cc" \
		>"$out/build_group.log" 2>&1; then
		sed 's/^/# /' "$out/build_group.log" | tail -n 30
		fail "the Relacy group model builds"
		tap_done
	fi
fi
args=()
[ "${PFR_LONG:-0}" = 1 ] && args+=(-i 2000000)
exec "$bin" ${args[@]+"${args[@]}"} "$@"
