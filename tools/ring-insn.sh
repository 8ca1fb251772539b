#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per message of single-ring contestants, before and after a
# change, counted by callgrind, not timed: perfring-bench --single-thread
# runs each contestant's producer loop, then its consumer loop, on one
# thread, so neither waits and no other CPU's noise enters.  Each row is
# run on its own; the inclusive count of every function whose name holds
# "produce" or "consume" (the contestant's two loops) is divided by the
# messages.
#   tools/ring-insn.sh BEFORE-BENCH AFTER-BENCH [CAPACITY] > FILE
# ROWS (environment, comma-separated) overrides the rows below.
set -eu -o pipefail
before=$1 after=$2 cap=${3:-32768} n=${N_MSGS:-200000}
rows=${ROWS:-perfring acqrel,perfring acqrel batch,rte_ring burst,rte_ring dequeue burst}
# shellcheck source=tools/callgrind-lib.sh
. "$(dirname "$0")/callgrind-lib.sh"
cg_start ring-insn "instructions per message (callgrind, inclusive), 8-byte payloads, capacity $cap, $n messages"
echo "# before: $before; after: $after"
printf '%-28s %-34s %10s %10s\n' row function before after
IFS=, read -r -a list <<<"$rows"
for row in "${list[@]}"; do
	for side in before after; do
		bin=${!side}
		valgrind --tool=callgrind --callgrind-out-file="$tmp/$side.out" \
			"$bin" --single-thread "$n" --payloads 8 --capacity "$cap" \
			--threads --only "$row" >"$tmp/$side.log" 2>&1 || {
			echo "ring-insn: $bin failed on \"$row\"" >&2
			tail -5 "$tmp/$side.log" >&2
			exit 1
		}
		cg_annotate "$tmp/$side.out" |
			awk -v n="$n" '/(produce|consume)[a-z_]* \[/ {
				gsub(",", "", $1); f = $NF; sub(/^\[/, "", f)
				fn = $(NF-1); sub(/.*:/, "", fn)
				printf "%s %.2f\n", fn, $1 / n }' >"$tmp/$side.fn"
	done
	join -a1 -a2 -e - -o 0,1.2,2.2 <(sort "$tmp/before.fn") <(sort "$tmp/after.fn") |
		while read -r fn b a; do
			printf '%-28s %-34s %10s %10s\n' "$row" "$fn" "$b" "$a"
		done
done
