#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The seam tests (tests/seam/*.c): the library's sources compiled against
# seam-barrier.h (the C11 backend with a hook after every acquire and
# relaxed load and before every store into shared memory), so that a test
# runs another party's steps at one exact point of the code: a writer that
# leaves and joins between two loads of the group reader's scan
# (group_scan.c), a joiner killed between its ACTIVE store and its
# announcement while that scan's second pass opens its slot
# (group_join_kill.c: the slot is still reclaimed), a writer killed
# before each store of its LOST path (ring_lost_kill.c;
# group_lost_kill.c: a group's writer, whose slot the reader then
# reclaims and drains).
# Deterministic: no timing decides anything.  Each program prints its own
# TAP; this script numbers them as one.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
out=$build/tests/seam
cc=${CC:-cc}
mkdir -p "$out"

# seam_build NAME SOURCE...: builds $out/NAME from tests/seam/NAME.c and
# the library's SOURCEs, against the seam backend.
seam_build() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	$cc -O1 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra \
		-I"$top/include" -I"$top/src" -I"$top/tests" \
		-I"$top/tests/seam" \
		'-DPFR_BARRIER_OVERRIDE="seam-barrier.h"' -o "$out/$name" \
		"$top/tests/seam/$name.c" "$top/tests/tap.c" "$@" \
		-lpthread -lrt >"$out/$name.log" 2>&1
}

ring=("$top/src/ring/ring.c" "$top/src/ring/task.c" "$top/src/ring/opts.c")
for t in group_scan group_join_kill ring_lost_kill group_lost_kill; do
	extra=()
	case $t in group_scan | group_join_kill)
		extra=("$top/src/writers/merge.c") ;;
	esac
	[ "$t" = group_lost_kill ] &&
		extra=("$top/src/writers/group.c" "$top/src/writers/merge.c")
	if ! seam_build "$t" "${ring[@]}" ${extra[@]+"${extra[@]}"}; then
		sed 's/^/# /' "$out/$t.log" | tail -n 20
		fail "$t builds"
		continue
	fi
	# the program's TAP, renumbered into this script's
	"$out/$t" >"$out/$t.tap" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) pass "$t: ${line#ok * - }" ;;
		"not ok "*) fail "$t: ${line#not ok * - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$out/$t.tap"
	[ "$rc" = 0 ] || fail "$t exits 0 (got $rc)"
done
tap_done
