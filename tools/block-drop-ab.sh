#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# BLOCK against DROP, before and after a change to the BLOCK writer's wait,
# interleaved: perfring bench's "BLOCK / DROP" target lines (per-record,
# batched, tail per record; 8-byte records at 32 KiB by default) from two
# perfring-bench binaries run in turn, B A B A ..., REPS times each.
# Prints every run, then per shape the median of each side and the median
# of the per-pair after/before ratios.
#   tools/block-drop-ab.sh BEFORE-BENCH AFTER-BENCH [REPS] [CAPACITY] > FILE
set -eu -o pipefail
before=$1 after=$2 reps=${3:-7} cap=${4:-32K}
rows='perfring acqrel single,perfring acqrel single drop,perfring acqrel,perfring acqrel drop,perfring acqrel batch,perfring acqrel batch drop'
run() {
	"$1" --reps 5 --time 60 --threads --no-peers --payloads 8 \
		--capacity "$cap" --only "$rows" 2>/dev/null |
		awk '/BLOCK \/ DROP/ { sub("x", "", $(NF-3)); printf "%s ", $(NF-3) }'
}
echo "# tools/block-drop-ab.sh: BLOCK / DROP (perfring bench target lines), 8 B, capacity $cap"
echo "# $(date -u +%FT%TZ); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(nproc) CPUs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# placement: producer CPU 0, consumer CPU 1 (pinned by the bench); other jobs time-share both"
echo "# columns: per-record batched tail-per-record"
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
for i in $(seq "$reps"); do
	b=$(run "$before"); a=$(run "$after")
	echo "before $i $b"; echo "after  $i $a"
	echo "$i $b $a" >>"$tmp"
done
python3 - "$tmp" <<'PY'
import sys, statistics as st
rows = [l.split() for l in open(sys.argv[1])]
names = ["per-record", "batched", "tail per record"]
for k, n in enumerate(names):
    try:
        b = [float(r[1 + k]) for r in rows]; a = [float(r[4 + k]) for r in rows]
    except (IndexError, ValueError):
        print(f"{n}: incomplete"); continue
    pr = [x / y for x, y in zip(a, b) if y > 0]
    print(f"{n:16s} before median {st.median(b):.2f} [{min(b):.2f}-{max(b):.2f}]  "
          f"after median {st.median(a):.2f} [{min(a):.2f}-{max(a):.2f}]  "
          f"after/before per pair median {st.median(pr):.2f}")
PY
