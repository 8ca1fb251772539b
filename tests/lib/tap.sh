# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The shell tests' TAP output and exit status, sourced by every
# tests/*/t_*.sh and long_*.sh that prints results itself:
#   . "$(dirname "$0")/../lib/tap.sh"
#
# Results are numbered in the order they are reported.  The plan ("1..N")
# is printed at the end by tap_done, or first by tap_plan when the count is
# known up front (tap_done then checks it).  Exit status (tap_done,
# skip_all): 0 every result ok, 1 any not ok (or a plan not met), 77 the
# whole test skipped with a reason (the machine cannot run it).
#
#   tap_plan N               print "1..N" now; tap_done checks N were run
#   ok STATUS DESC [LOG]     "ok" when STATUS is 0, else "not ok" and the
#                            last $TAP_LOG_LINES (30) lines of LOG, if any
#   pass DESC                "ok"
#   fail DESC [LOG]          "not ok" (and LOG's tail, as ok does)
#   run_ok DESC CMD...       runs CMD (stdout and stderr to a log), then
#                            ok with its exit status and that log
#   skip REASON DESC         "ok N - DESC # SKIP REASON": one result the
#                            machine cannot check
#   skip_all REASON          "1..0 # SKIP REASON", exit 77 (nothing run)
#   diag [TEXT...]           TEXT, or standard input, as "# " lines
#   tap_error TEXT           a failure that is not a result of its own
#                            (shown as a diagnostic; tap_done exits 1)
#   tap_done [--skip REASON] the plan (unless tap_plan printed it), then
#                            exit 1 on any failure; else with --skip,
#                            "# SKIP REASON" and exit 77; else exit 0
#
# TAP_N (results so far) and TAP_FAILED (failures so far) may be read.

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=
: "${TAP_LOG_LINES:=30}"

tap_plan() { # tap_plan N
	TAP_PLANNED=$1
	echo "1..$1"
}

diag() { # diag [TEXT...]: TEXT or standard input as "# " lines
	if [ $# -gt 0 ]; then
		printf '%s\n' "$*" | sed 's/^/# /'
	else
		sed 's/^/# /'
	fi
}

tap_show_log() { # tap_show_log LOG: its last lines, indented
	[ -n "${1:-}" ] && [ -s "$1" ] || return 0
	tail -n "$TAP_LOG_LINES" "$1" | sed 's/^/#   /'
}

pass() { # pass DESC
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $1"
}

fail() { # fail DESC [LOG]
	TAP_N=$((TAP_N + 1))
	TAP_FAILED=$((TAP_FAILED + 1))
	echo "not ok $TAP_N - $1"
	tap_show_log "${2:-}"
}

ok() { # ok STATUS DESC [LOG]: STATUS 0 is ok, anything else not ok
	case $1 in
	0) pass "$2" ;;
	*) fail "$2" "${3:-}" ;;
	esac
}

run_ok() { # run_ok DESC CMD...: ok by CMD's exit status, its log if not
	local desc=$1 log rc
	shift
	log=$(mktemp)
	"$@" >"$log" 2>&1
	rc=$?
	ok $rc "$desc" "$log"
	rm -f "$log"
	return $rc
}

skip() { # skip REASON DESC
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - $2 # SKIP $1"
}

skip_all() { # skip_all REASON: nothing in this test can run here
	echo "1..0 # SKIP $*"
	exit 77
}

tap_error() { # tap_error TEXT: count a failure without a result line
	TAP_FAILED=$((TAP_FAILED + 1))
	diag "$*"
}

tap_done() { # tap_done [--skip REASON]
	local why=
	[ "${1:-}" = --skip ] && why=${2:-no reason given}
	if [ -z "$TAP_PLANNED" ]; then
		echo "1..$TAP_N"
	elif [ "$TAP_PLANNED" -ne "$TAP_N" ]; then
		diag "planned $TAP_PLANNED results, reported $TAP_N"
		TAP_FAILED=$((TAP_FAILED + 1))
	fi
	[ "$TAP_FAILED" -eq 0 ] || exit 1
	if [ -n "$why" ]; then
		echo "# SKIP $why"
		exit 77
	fi
	exit 0
}
