# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared setup of the tests/harden shell tests (sourced, not run): TAP,
# the paths (top, build, P: the perfring command, cc), out (where the
# helpers are built), a temporary directory tmp removed on exit, and
# build_tool.
set -u
# shellcheck source=tests/lib/tap.sh
. "${BASH_SOURCE[0]%/*}/../lib/tap.sh"
top=${PFR_TOP:-$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
# shellcheck disable=SC2034 # P is the tests' own
P=${PERFRING:-$build/perfring}
cc=${CC:-cc}
out=$build/tests/harden
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# build_tool TOOL DESC [CFLAGS...]: builds tests/harden/harden_tool.c with
# perfring script's sources and the library's (and their libraries, as
# mk/script.mk links them) into TOOL, with CFLAGS; when that fails, the
# build log as diagnostics, "not ok DESC" and the end of the test.
build_tool() {
	local tool=$1 desc=$2 libs
	shift 2
	libs="$(pkg-config --cflags --libs libtraceevent libelf libdw) -liberty"
	# shellcheck disable=SC2086
	if ! $cc "$@" -std=gnu11 -D_GNU_SOURCE -Wall -Wextra \
		-I"$top/include" -I"$top/src" -I"$top/cli" -o "$tool" \
		"$top/tests/harden/harden_tool.c" "$top"/cli/script/*.c \
		"$top/cli/perfopt.c" \
		"$top/util/util.c" \
		"$top"/src/*/*.c \
		$libs -ldl -lpthread -lrt >"$tmp/build.log" 2>&1; then
		diag <"$tmp/build.log"
		fail "$desc"
		tap_done
	fi
}
