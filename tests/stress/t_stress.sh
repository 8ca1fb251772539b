#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring stress over every ordering x policy, threads and processes
# (a sealed memfd, and a named shm object that must not outlive the run):
# zero corruption and written == read + lost, exactly.  Short here;
# long_stress.sh runs the 10-second version.  The counts are what the
# run did, not how much: the writer's time starts once the reader runs.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/usage.sh
. "$(dirname "$0")/../lib/usage.sh"
secs=${STRESS_SECONDS:-0.3}
check() { # name, command...
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '"ok":true' <<<"$out")" -eq 9 ] &&
		! grep -q '"ok":false' <<<"$out"; then
		pass "$name"
	else
		fail "$name (exit $rc)"
		echo "$out" | diag
	fi
}
# In DROP mode most records may be lost; the text output says why.
out=$($PERFRING stress --policy drop --seconds 0.1 2>&1)
grep -q '^lost: records a DROP writer discarded' <<<"$out"
ok $? "stress --policy drop explains the lost column"
check "threads, all orderings and policies" \
	$PERFRING stress --all --seconds "$secs" --json
check "processes over a sealed memfd, all orderings and policies" \
	$PERFRING stress --all --processes --seconds "$secs" --json
check "processes over a named POSIX shm object, all orderings and policies" \
	$PERFRING stress --all --shm --seconds "$secs" --json
$PERFRING stress --shm --seconds 0.1 >/dev/null 2>&1 &
spid=$!
wait $spid
if [ ! -e "/dev/shm/perfring-stress-$spid" ]; then
	pass "--shm leaves no /dev/shm/perfring-stress-$spid"
else
	fail "/dev/shm/perfring-stress-$spid left behind"
fi
check "batched publication, processes" \
	$PERFRING stress --all --processes --batch 32 --seconds "$secs" --json
check "blocking reader (futex wake-ups), one-page ring, large records" \
	$PERFRING stress --all --wait --ring-size 4096 --sizes 16:2000 \
	--seconds "$secs" --json

# usage errors exit 2 with the cause
usage_errors stress "--ordering weak" "--policy lossy" "--ring-size 1000" \
	"--sizes 8:4" "--sizes 16:40000" "--sizes 4294967312:4294967320" \
	"--sizes 16:24x" "--seconds x" "--bogus"
tap_done
