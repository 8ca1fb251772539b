#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/bench-results.sh OUT [ROUNDS]: regenerates a results file of the
# single-ring benchmark: ROUNDS (default 3) runs of the command the README
# and docs/bench.md quote, each under a "================ round K" line,
# their output as perfring bench prints it (its first line names the
# machine: CPU model, CPU placement, kernel, compiler).  Needs the two CPUs
# to itself: --wait-idle waits up to 30 s for them before each round.
# The figures quoted from OUT (README.md, docs/bench.md) must then be
# updated: tests/readme/t_figures.sh fails while one is not in OUT.
set -eu
out=${1:?usage: tools/bench-results.sh OUT [ROUNDS]}
rounds=${2:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
bench=${PERFRING_BENCH:-$top/build/perfring-bench}
[ -x "$bench" ] || { echo "$bench: build it first (make)" >&2; exit 1; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for k in $(seq 1 "$rounds"); do
	echo "================ round $k ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown))"
	caps=32K,256K
	[ "$k" -eq 1 ] && caps=32K,256K,4M
	"$bench" --capacities "$caps" --payloads 8,64 --threads --reps 3 \
		--wait-idle 30
done >"$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
