#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring test runner: runs each test program or script with a time-out,
# keeps its output in $PFR_BUILD/test-logs, and ends with one line
#   N passed, N failed, N skipped
# Exit status of a test: 0 pass, 77 skip (its reason is printed), else fail.
# Tests whose name ends in .sh run under bash; others under $RUNNER (qemu
# for the cross runs) when it is set.
set -u
timeout_s=600
while getopts t: opt; do
	case $opt in
	t) timeout_s=$OPTARG ;;
	*) echo "usage: run.sh [-t SECONDS] TEST..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

# A log whose only TAP plan line ("1..N", at the start of a line) is
# followed by exactly N top-level results matches its plan; a log with no
# plan, or several (nested runs print their own), is not checked here.
tap_plan_ok()
{
	awk '/^1\.\.[0-9]+/ { plans++; n = substr($1, 4) + 0 }
	     /^(not )?ok [0-9]+/ { results++ }
	     END { exit !(plans != 1 || n == results || n == 0) }' "$1"
}

logdir=${PFR_BUILD:-build}/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0
failed=()
for t in "$@"; do
	name=$t
	case $t in
	"${PFR_BUILD:-build}"/*) name=${t#"${PFR_BUILD:-build}/"} ;;
	build*/*) name=${t#*/} ;;
	esac
	log=$logdir/$(echo "$name" | tr '/' '_').log
	start=$(date +%s%N)
	case $t in
	*.sh) timeout -k 10 "$timeout_s" bash "$t" >"$log" 2>&1 ;;
	*) timeout -k 10 "$timeout_s" ${RUNNER:-} "$t" >"$log" 2>&1 ;;
	esac
	rc=$?
	# A test that exits 0 but printed a TAP failure ("not ok" at the start
	# of a line, not marked TODO) or fewer checks than its plan failed.
	if [ "$rc" -eq 0 ]; then
		if grep -E '^not ok' "$log" | grep -qv '# *TODO'; then
			rc=1
			echo "run.sh: exit 0 but a 'not ok' line above" >>"$log"
		elif ! tap_plan_ok "$log"; then
			rc=1
			echo "run.sh: exit 0 but the TAP plan does not match" >>"$log"
		fi
	fi
	ms=$((($(date +%s%N) - start) / 1000000))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	case $rc in
	0) pass=$((pass + 1)); printf 'PASS  %-44s %6ss\n' "$name" "$secs" ;;
	77)
		skip=$((skip + 1))
		why=$(grep -m1 -o 'SKIP.*' "$log" || echo 'SKIP (no reason given)')
		printf 'SKIP  %-44s %s\n' "$name" "$why"
		;;
	124 | 137)
		fail=$((fail + 1)); failed+=("$name")
		printf 'FAIL  %-44s timed out after %ss\n' "$name" "$timeout_s"
		;;
	*)
		fail=$((fail + 1)); failed+=("$name")
		printf 'FAIL  %-44s exit %d\n' "$name" "$rc"
		;;
	esac
done
for f in "${failed[@]+"${failed[@]}"}"; do
	log=$logdir/$(echo "$f" | tr '/' '_').log
	echo "---- $f (last 40 lines of $log)"
	tail -n 40 "$log"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ $((pass + fail)) -gt 0 ]
