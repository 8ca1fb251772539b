#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring stress --mode mpsc: N producers into one shared ring, threads
# and processes (a memfd inherited across fork), DROP and BLOCK, polling
# and sleeping reader; every record checked (producer slot, checksum,
# per-writer sequence), written = read + lost per writer, and every writer
# committed a record at least every 2 s (max_gap_ns).  Then the
# failure cases: a producer stopped between reserve and commit and killed
# (the reader reports the stall, then skips the dead producer's record),
# the reader killed (every producer exits with status 3; a new reader
# re-attaches and drains), and usage errors.  Short here (STRESS_SECONDS).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/usage.sh
. "$(dirname "$0")/../lib/usage.sh"
secs=${STRESS_SECONDS:-0.3}
check() { # name, expected "ok":true lines, command...
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '"ok":true' <<<"$out")" -eq "$want" ] &&
		! grep -q '"ok":false' <<<"$out"; then
		pass "$name"
		grep '^{' <<<"$out" | diag
	else
		fail "$name (exit $rc)"
		echo "$out" | diag
	fi
}
S="$PERFRING stress --mode mpsc --seconds $secs --json"
check "threads, 4 writers, drop and block" 2 $S --writers 4 --policy all
check "threads, 8 writers (more than CPUs), sleeping reader" 2 \
	$S --writers 8 --policy all --wait
check "processes over a memfd, 4 writers, drop and block" 2 \
	$S --writers 4 --policy all --processes
check "processes, 3 writers, one-page ring, large records" 2 \
	$S --writers 3 --policy all --processes --ring-size 4096 --sizes 24:2000
check "kill -9 of a producer mid-record (processes): stall reported, \
record skipped as discarded" 2 $S --writers 3 --policy all --processes \
	--kill-writer
check "a producer thread ends mid-record: stall reported, record skipped" \
	1 $S --writers 3 --kill-writer --wait
check "kill -9 of the reader: producers exit 3, a new reader re-attaches" 2 \
	$S --writers 3 --policy all --processes --kill-reader

# the kill-writer runs: exactly one record skipped, after a stall report
# (live producers preempted past the 20 ms stall time-out on a loaded
# machine may add stalls of their own, never skipped records)
out=$($S --writers 2 --processes --kill-writer 2>&1)
if grep -q '"dead_skipped":1,' <<<"$out" &&
	grep -Eq '"stalls":[1-9][0-9]*,' <<<"$out" &&
	grep -q '"ok":true' <<<"$out"; then
	pass "dead-producer rule: stall reported, one skipped record"
else
	fail "dead-producer rule"
	echo "$out" | diag
fi

# usage errors exit 2 with the cause
usage_errors "stress --mode mpsc" "--writers 0" "--writers 9999" \
	"--policy overwrite" "--sizes 8:4" "--sizes 16:40" "--ring-size 1000" \
	"--seconds x" "--kill-reader" "--writers 1 --kill-writer" "--bogus"
if $PERFRING stress --mode mpsc --help | grep -q -- '--kill-writer'; then
	pass "--help"
else
	fail "--help"
fi
tap_done
