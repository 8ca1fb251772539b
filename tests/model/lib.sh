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
# barrier header BARRIER) and relacy_NAME.cc (the Relacy harness).  Each
# object is rebuilt only when it is missing or older than its inputs:
# model_NAME.o than a DEP, relacy_NAME.o than relacy_NAME.cc or a header
# of tests/model (so that an edit of the library's code, as in the
# mutation runs of tools/mutate.py, recompiles the small C file only).
# The compilers' output goes to $out/LOG.  When the build fails: that
# output, "not ok - the Relacy WHAT builds" and the end of the test.
model_build() {
	local name=$1 barrier=$2 log=$out/$3 what=$4 bin=$out/relacy_$1
	local mo=$out/model_$1.o ro=$out/relacy_$1.o link=0 f
	shift 4
	: >"$log"
	if model_stale "$mo" "$@"; then
		echo "# building $mo"
		link=1
		$cc -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-function \
			-D_GNU_SOURCE -U_FORTIFY_SOURCE \
			-I"$top/include" -I"$top/src" -I"$src" \
			"-DPFR_BARRIER_OVERRIDE=\"$barrier\"" \
			-c "$src/model_$name.c" -o "$mo" >>"$log" 2>&1 ||
			model_build_failed "$what" "$log"
	fi
	if model_stale "$ro" "$src/relacy_$name.cc" "$src"/*.h; then
		echo "# building $ro"
		link=1
		$cxx -std=c++17 -O1 -g -Wall -I"$src" \
			-c "$src/relacy_$name.cc" -o "$ro" >>"$log" 2>&1 ||
			model_build_failed "$what" "$log"
	fi
	for f in "$mo" "$ro"; do
		[ "$f" -nt "$bin" ] && link=1
	done
	if [ $link -eq 1 ] || [ ! -x "$bin" ]; then
		$cxx -o "$bin" "$ro" "$mo" >>"$log" 2>&1 ||
			model_build_failed "$what" "$log"
	fi
}

# model_stale OBJ DEP...: 0 (true) when OBJ is missing or older than a DEP.
model_stale() {
	local obj=$1 f
	shift
	[ -f "$obj" ] || return 0
	for f in "$@"; do
		[ "$f" -nt "$obj" ] && return 0
	done
	return 1
}

model_build_failed() {
	sed 's/^/# /' "$2" | tail -n 30
	fail "the Relacy $1 builds"
	tap_done
}
