#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring stress over every ordering x policy, threads and processes:
# zero corruption and written == read + lost, exactly.  Short here;
# long_stress.sh runs the 10-second version.
set -u
secs=${STRESS_SECONDS:-0.3}
n=0 fail=0
check() { # name, command...
	local name=$1 out rc
	shift
	n=$((n + 1))
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ "$(grep -c '"ok":true' <<<"$out")" -eq 9 ] &&
		! grep -q '"ok":false' <<<"$out"; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name (exit $rc)"
		echo "$out" | sed 's/^/# /'
		fail=$((fail + 1))
	fi
}
check "threads, all orderings and policies" \
	$PERFRING stress --all --seconds "$secs" --json
check "processes over POSIX shm, all orderings and policies" \
	$PERFRING stress --all --processes --seconds "$secs" --json
check "batched publication, processes" \
	$PERFRING stress --all --processes --batch 32 --seconds "$secs" --json
check "blocking reader (futex wake-ups), one-page ring, large records" \
	$PERFRING stress --all --wait --ring-size 4096 --sizes 16:2000 \
	--seconds "$secs" --json

# usage errors exit 2 with the cause
for bad in "--ordering weak" "--policy lossy" "--ring-size 1000" \
	"--sizes 8:4" "--sizes 16:40000" "--seconds x" "--bogus"; do
	n=$((n + 1))
	$PERFRING stress $bad >/dev/null 2>/tmp/pfr-stress-err.$$
	rc=$?
	if [ $rc -eq 2 ] && grep -q "perfring stress" /tmp/pfr-stress-err.$$; then
		echo "ok $n - 'stress $bad' is a usage error"
	else
		echo "not ok $n - 'stress $bad' exited $rc"
		fail=$((fail + 1))
	fi
done
rm -f /tmp/pfr-stress-err.$$
echo "1..$n"
[ $fail -eq 0 ]
