#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring stress --mode group: N writers, one reader, every record
# verified (per-writer sequence numbers and checksums; time order in
# --ordered runs) and written == read + lost for every writer, exactly;
# threads and processes, DROP and BLOCK, polling and sleeping readers; the
# failure drills: a writer killed with SIGKILL (its slot reclaimed and
# rejoined), the reader killed (every writer notices and exits 3), the
# reader role handed to a new process; the same with the batched reader
# (--consume); and progress: with 8 writers, every record a writer had
# published before a drain call began came out by the end of that call
# (so no writer waits while the others have more than 2 (N - 1) R records
# delivered).  Short here (STRESS_SECONDS).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/usage.sh
. "$(dirname "$0")/../lib/usage.sh"
secs=${STRESS_SECONDS:-0.5}
check() { # name, arguments...
	local name=$1 out rc
	shift
	out=$($PERFRING stress --mode group --seconds "$secs" --json "$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -q '"result":"pass"' <<<"$out" &&
		grep -q '"corrupt":0,"bad_seq":0,"bad_order":0' <<<"$out"; then
		pass "$name"
		echo "$out" | diag
	else
		fail "$name (exit $rc)"
		echo "$out" | diag
	fi
}
for pol in drop block; do
	check "threads, unordered, $pol" --writers 4 --policy $pol
	check "threads, ordered, $pol, sleeping reader" --writers 4 \
		--policy $pol --ordered --wait
	check "processes, unordered, $pol, sleeping reader" --writers 3 \
		--policy $pol --processes --wait
	check "processes, ordered, $pol" --writers 3 --policy $pol \
		--processes --ordered
done
check "8 writers on a small ring, ordered" --writers 8 --ordered \
	--ring-size 4096
for rd in "" --consume; do
	out=$($PERFRING stress --mode group --seconds "$secs" --json \
		--writers 8 --policy block --ring-size 4096 $rd 2>&1)
	if grep -q '"result":"pass"' <<<"$out" &&
		grep -q '"progress_short":0,' <<<"$out" &&
		! grep -q '"progress_checks":0,' <<<"$out"; then
		pass "progress, 8 writers, block ${rd:-(drain)}: every writer's records out by the next call"
	else
		fail "progress, 8 writers, block ${rd:-(drain)}"
	fi
	echo "$out" | diag
done
check "consume: threads, unordered, drop" --writers 4 --consume
check "consume: threads, ordered, block, sleeping reader" --writers 4 \
	--policy block --ordered --wait --consume
check "consume: processes, kill -9 of a writer" --writers 3 --processes \
	--kill-writer --consume
check "consume: reader handed over, block" --writers 3 --processes \
	--reattach --policy block --consume
check "kill -9 of a writer: reclaimed, rejoined" --writers 3 --processes \
	--kill-writer
check "kill -9 of a writer, ordered, block" --writers 3 --processes \
	--kill-writer --ordered --policy block
check "kill -9 of the reader: the writers exit 3" --writers 3 \
	--processes --kill-reader
check "reader handed over to a new process, ordered" --writers 3 \
	--processes --reattach --ordered
check "reader handed over, block, sleeping" --writers 2 --processes \
	--reattach --policy block --wait

# the killed reader: the writers' exit statuses are checked by the stress
# itself; a wrong drill combination is a usage error
usage_errors "stress --mode group" "--writers 0" "--policy overwrite" \
	"--kill-writer" "--processes --kill-writer --kill-reader" \
	"--slots 2 --writers 3"
tap_done
