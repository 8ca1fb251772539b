#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shell tests' TAP library (tests/lib/tap.sh), run in small scripts:
# the result lines, numbering and plan it prints, and its exit status
# (0 all ok, 1 any not ok or a plan not met, 77 skipped with a reason).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
lib=$(cd "$(dirname "$0")/../lib" && pwd)/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# case DESC WANT-STATUS WANT-OUTPUT SCRIPT: SCRIPT run after sourcing the
# library must exit WANT-STATUS and print exactly WANT-OUTPUT.
case_() {
	local got rc
	printf '. "%s"\n%s\n' "$lib" "$4" >"$tmp/t.sh"
	got=$(bash "$tmp/t.sh" 2>&1)
	rc=$?
	[ "$rc" -eq "$2" ] && [ "$got" = "$3" ]
	ok $? "$1 (exit $rc)"
	[ "$got" = "$3" ] || { printf '%s\n' "$got" >"$tmp/got"; diag <"$tmp/got"; }
}

case_ "all ok: numbered results, the plan last, exit 0" 0 'ok 1 - a
ok 2 - b
ok 3 - c
1..3' 'ok 0 a; pass b; true; ok $? c; tap_done'

case_ "one not ok: exit 1, the log's tail shown" 1 'ok 1 - a
not ok 2 - b
#   line 2
#   line 3
1..2' 'printf "line 1\nline 2\nline 3\n" >log.$$; TAP_LOG_LINES=2
pass a; ok 3 b log.$$; rm -f log.$$; tap_done'

case_ "fail DESC: not ok, exit 1" 1 'not ok 1 - x
1..1' 'fail x; tap_done'

case_ "a non-numeric status is not ok" 1 'not ok 1 - x
1..1' 'ok "" x; tap_done'

case_ "skip: ok with the reason, exit 0" 0 'ok 1 - x # SKIP no y
1..1' 'skip "no y" x; tap_done'

case_ "skip_all: 1..0 with the reason, exit 77" 77 '1..0 # SKIP no y' \
	'skip_all "no y"; pass never'

case_ "tap_done --skip: the checks made, then exit 77" 77 'ok 1 - a
1..1
# SKIP no y' 'pass a; tap_done --skip "no y"'

case_ "tap_done --skip after a failure: exit 1" 1 'not ok 1 - a
1..1' 'fail a; tap_done --skip "no y"'

case_ "tap_plan first, met: exit 0" 0 '1..2
ok 1 - a
ok 2 - b' 'tap_plan 2; pass a; pass b; tap_done'

case_ "tap_plan not met: exit 1" 1 '1..3
ok 1 - a
# planned 3 results, reported 1' 'tap_plan 3; pass a; tap_done'

case_ "tap_error: a failure without a result line, exit 1" 1 'ok 1 - a
# b went wrong
1..1' 'pass a; tap_error "b went wrong"; tap_done'

case_ "diag: arguments or standard input as # lines" 0 '# a b
# c
# d
1..0' 'diag a b; printf "c\nd\n" | diag; tap_done'

case_ "run_ok: the command's status, its output only on failure" 1 'ok 1 - t
not ok 2 - f
#   oops
1..2' 'run_ok t echo quiet; run_ok f sh -c "echo oops; exit 3"; tap_done'

tap_done
