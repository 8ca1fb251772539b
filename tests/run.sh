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
