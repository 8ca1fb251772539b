# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared parts of the Relacy tests of the library's own code,
# t_relacy.sh (the ring) and t_relacy_mpsc.sh (sourced, not run): TAP,
# top, out (the build directory of the models), src (tests/model), the
# compilers; the whole test skipped (77) when Relacy is not installed;
# and model_build.
set -u
# shellcheck source=tests/lib/tap.sh
. "${BASH_SOURCE[0]%/*}/../lib/tap.sh"
top=${PFR_TOP:-$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)}
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

# model_build NAME BARRIER LOG WHAT DEP...: builds $out/relacy_NAME from
# tests/model/model_NAME.c (the library's code, compiled against the
# barrier header BARRIER) and relacy_NAME.cc (the Relacy harness) when it
# is missing or older than a DEP; the compilers' output goes to $out/LOG.
# When the build fails: that output, "not ok - the Relacy WHAT builds"
# and the end of the test.
model_build() {
	local name=$1 barrier=$2 log=$out/$3 what=$4 bin=$out/relacy_$1
	local stale=1 f
	shift 4
	if [ -x "$bin" ]; then
		stale=0
		for f in "$@"; do
			[ "$f" -nt "$bin" ] && stale=1 && break
		done
	fi
	[ $stale -eq 1 ] || return 0
	echo "# building $bin"
	if ! { $cc -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-function \
		-D_GNU_SOURCE -U_FORTIFY_SOURCE \
		-I"$top/include" -I"$top/src" -I"$src" \
		"-DPFR_BARRIER_OVERRIDE=\"$barrier\"" \
		-c "$src/model_$name.c" -o "$out/model_$name.o" &&
		$cxx -std=c++17 -O1 -g -Wall -I"$src" \
			-c "$src/relacy_$name.cc" -o "$out/relacy_$name.o" &&
		$cxx -o "$bin" "$out/relacy_$name.o" "$out/model_$name.o"; } \
		>"$log" 2>&1; then
		sed 's/^/# /' "$log" | tail -n 30
		fail "the Relacy $what builds"
		tap_done
	fi
}
