#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring before and after a change, timed, interleaved
# (before, after, before, after, ...): by default the lock-based
# reservation at f7d16ad against this tree's lock-free one.
#
#   tools/mpsc-ab.sh [-b BEFORE_TREE] [-a AFTER_TREE] [-n REPS] [-o FILE]
#
# A tree is a source tree whose build/ holds perfring and
# mpsc-reserve-bench (built here with make -j2 when missing); without -b,
# a worktree of BEFORE_REV (default f7d16ad) is made in a temporary
# directory and built; -a defaults to this tree.  Each repetition runs,
# for each tree in turn:
#   1. perfring bench --writers 1,2 --cpus 0,1,0 --payloads 8 --reps 1
#      --only 'perfring mpsc,rte_ring,ck_ring' --json: the reader on CPU 0;
#      1 writer on CPU 1 (own CPU), 2 writers on CPUs 1 and 0 (one shares
#      the reader's CPU); contestants perfring mpsc (pfr_mpsc_write),
#      perfring mpsc burst (pfr_mpsc_write_burst of 32) and the peers the
#      build links (rte_ring MP, ck_ring MPSC), every message verified;
#   2. build/mpsc-reserve-bench pair 1 1: 2 producers pinned to CPUs 0
#      and 1, the reader on CPU 1, BLOCK, 16-byte payload, 1 s; its
#      fairness is over the whole second (written by the slower producer
#      over the faster).
# Then per row: median and range per tree, after/before of the medians
# and the median of the per-repetition after/before ratios (each pair of
# runs is adjacent in time), fairness medians.  The peers' code is the
# same in both trees: their after/before is the noise of the machine.
# Output: FILE (default docs/results/mpsc-ab.txt); a failed run (exit
# status, a message not verified) is recorded and makes the exit status 1.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
before='' after=$top out=$top/docs/results/mpsc-ab.txt reps=7
rev=${BEFORE_REV:-f7d16ad}
while getopts b:a:n:o: o; do
	case $o in
	b) before=$OPTARG ;;
	a) after=$OPTARG ;;
	n) reps=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
tmp=$(mktemp -d /tmp/pfr-mpsc-ab.XXXXXX)
wt=
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	[ -n "$wt" ] && git -C "$top" worktree remove --force "$wt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$before" ]; then
	wt=$tmp/before
	git -C "$top" worktree add --detach "$wt" "$rev" >/dev/null 2>&1 || {
		echo "mpsc-ab: cannot make a worktree of $rev" >&2
		exit 1
	}
	before=$wt
fi
for t in "$before" "$after"; do
	make -C "$t" -j2 build/perfring build/mpsc-reserve-bench \
		>"$tmp/make.log" 2>&1 || {
		echo "mpsc-ab: build failed in $t:" >&2
		tail -n 20 "$tmp/make.log" >&2
		exit 1
	}
done
if [ "$(nproc)" -lt 2 ]; then
	echo "mpsc-ab: needs CPUs 0 and 1" >&2
	exit 1
fi
# shellcheck disable=SC2054 # the commas are in the arguments
cmd=(bench --writers 1,2 --cpus 0,1,0 --payloads 8 --reps 1
	--only 'perfring mpsc,rte_ring,ck_ring' --json)
{
	echo "# perfring shared MPSC ring, before/after, interleaved"
	echo "# tools/mpsc-ab.sh -b ${before} -a ${after} -n $reps, $(date -u +%FT%TZ)"
	echo "# before: $(git -C "$before" log -1 --format='%h %s' | cut -c1-70)"
	echo "# after:  $(git -C "$after" log -1 --format='%h %s' | cut -c1-70)"
	echo "# $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n1), $(nproc) vCPUs shared with other jobs (other builds ran during"
	echo "# the runs; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)), kernel $(uname -r)"
	echo "# per repetition, before then after: perfring ${cmd[*]}"
	echo "#   placement: reader on CPU 0; 1 writer on CPU 1 = own CPU;"
	echo "#   2 writers on CPUs 1,0 = one writer shares the reader's CPU"
	echo "#   (time-shared with the reader), the other has CPU 1"
	echo "# then: build/mpsc-reserve-bench pair 1 1 (producers on CPUs 0"
	echo "#   and 1, reader on CPU 1: it shares producer 1's CPU; BLOCK)"
	echo "# raw: rep side label writers placement cpus mps fairness"
	echo "#      writer_mps_min/max rtt_ns verified flags busy_before"
} >"$out"
fail=0
for ((rep = 1; rep <= reps; rep++)); do
	for side in before after; do
		if [ $side = before ]; then t=$before; else t=$after; fi
		"$t/build/perfring" "${cmd[@]}" >"$tmp/j" 2>"$tmp/e"
		rc=$?
		python3 - "$tmp/j" "$rep" "$side" "$rc" >>"$out" <<'EOP' || fail=1
import json, sys
path, rep, side, rc = sys.argv[1:5]
busy = "?"
bad = rc != "0"
for line in open(path):
    r = json.loads(line)
    if r.get("kind") == "meta":
        busy = "%.2f" % r.get("busy_before", -1)
    if r.get("kind") != "writers" or not r.get("supported"):
        continue
    ratio = (r["writer_mps_min"] / r["writer_mps_max"]
             if r.get("writer_mps_max") else 0)
    print("raw %s %s %s %d %s %s %.0f %.3f %.3f %.0f %s %s %s" % (
        rep, side, r["label"].replace(" ", "_"), r["writers"],
        r["placement"].replace(" ", "_"), r["cpus"], r["mps"],
        r["fairness"], ratio, r["rtt_ns"], r["verified"],
        r["flags"] or "-", busy))
    bad = bad or not r["verified"]
if bad:
    print("FAILED rep %s %s: exit status %s" % (rep, side, rc))
sys.exit(1 if bad else 0)
EOP
		[ "$rc" -eq 0 ] || sed 's/^/# stderr: /' "$tmp/e" >>"$out"
		if "$t/build/mpsc-reserve-bench" pair 1 1 >"$tmp/p" 2>&1; then
			# rep 0: 9.12 M records read/s, fairness 0.80 (...), ..., 0 bad
			awk -v rep="$rep" -v s="$side" '/^rep/ {
				printf "raw %s %s reserve-bench_pair 2 reader_on_cpu1 1:0,1 %.0f %s - - %s - -\n",
				       rep, s, $3 * 1e6, $8, ($NF == "bad" && $(NF-1) == 0) ? "true" : "false"
			}' "$tmp/p" >>"$out"
			grep -q ' 0 bad$' "$tmp/p" || {
				echo "FAILED rep $rep $side: reserve-bench pair: $(cat "$tmp/p")" >>"$out"
				fail=1
			}
		else
			echo "FAILED rep $rep $side: reserve-bench pair: $(cat "$tmp/p")" >>"$out"
			fail=1
		fi
	done
done

python3 - "$out" >>"$out.sum" <<'EOP'
import collections, statistics, sys
runs = collections.defaultdict(dict)  # (label, writers, placement) -> {(side, rep): row}
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0] != "raw":
        continue
    rep, side, label, w, place, cpus = f[1], f[2], f[3], f[4], f[5], f[6]
    mps = float(f[7])
    fair = float(f[8]) if f[8] != "-" else None
    rr = float(f[9]) if f[9] != "-" else None
    runs[(label, int(w), place, cpus)][(side, rep)] = (mps, fair, rr)

def med(xs):
    return statistics.median(xs) if xs else float("nan")

print("")
print("Summary: M msgs/s median (min-max) over the repetitions; after/before")
print("of the medians, and the median of the per-repetition ratios; fairness")
print("median (bench: slowest/fastest writer's messages when the first")
print("finished; reserve-bench: over the whole second); rate = the writers'")
print("own rates, slowest/fastest (median).")
print("%-22s %2s %-20s %-7s %-21s %-21s %5s %5s %11s %11s" % (
    "contestant", "w", "placement", "cpus", "before", "after", "a/b",
    "pairs", "fair b->a", "rate b->a"))
for key in sorted(runs, key=lambda k: (k[1], k[0])):
    d = runs[key]
    s = {}
    for side in ("before", "after"):
        s[side] = [v for (sd, _), v in sorted(d.items()) if sd == side]
    b = [x[0] / 1e6 for x in s["before"]]
    a = [x[0] / 1e6 for x in s["after"]]
    reps = sorted({r for (_, r) in d})
    pr = [d[("after", r)][0] / d[("before", r)][0] for r in reps
          if ("after", r) in d and ("before", r) in d and d[("before", r)][0]]
    fb = med([x[1] for x in s["before"] if x[1] is not None])
    fa = med([x[1] for x in s["after"] if x[1] is not None])
    rb = med([x[2] for x in s["before"] if x[2] is not None])
    ra = med([x[2] for x in s["after"] if x[2] is not None])
    label, w, place, cpus = key
    def cell(x):
        return "%6.2f (%.2f-%.2f)" % (med(x), min(x), max(x)) if x else "-"
    def pair(x, y):
        return "%.2f->%.2f" % (x, y) if x == x and y == y else "-"
    print("%-22s %2d %-20s %-7s %-21s %-21s %5.2f %5.2f %11s %11s" % (
        label.replace("_", " "), w, place.replace("_", " "), cpus, cell(b),
        cell(a), med(a) / med(b) if b and a else float("nan"), med(pr),
        pair(fb, fa), pair(rb, ra)))
    print("%-22s    n=%d before, %d after" % ("", len(b), len(a)))
EOP
cat "$out.sum" >>"$out"
rm -f "$out.sum"
echo "wrote $out"
exit $fail
