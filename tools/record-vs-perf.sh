#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring record against perf record on the same workloads, interleaved:
# the recorder's CPU time (user + sys of the recorder, whose command is a
# sleep) and the samples it lost, for
#   storm   a sched_switch storm: two processes ping-pong a byte over pipes,
#           recorded with -a -e sched:sched_switch (every switch)
#   f20000  -F 20000 -a (cpu-clock) while two processes spin
# at the default ring size and at a small one (-m 4: 16 KiB), with the
# recorders perf record and perfring record, each with and without
# --no-buildid, and perfring record --threads.  Every repetition runs every recorder once,
# in turn, on the same running workload (perfring also with --no-buildid:
# both write the build ids of the DSOs the samples hit by default).  Writes JSON Lines (a meta line
# naming the machine, one line per run, one summary line per case with the
# median and range) to the file given (default docs/record-results.jsonl)
# and a table on standard output.  Loss is also given as a fraction,
# lost / (samples + lost), and, per repetition, as the ratio of each
# perfring recorder's loss to perf's in the same repetition (median and
# range of those ratios).
#   tools/record-vs-perf.sh [-n REPS] [-d SECONDS] [-o FILE] [-m SIZES]
#                           [-w WORKLOADS] [-r RECORDERS] [-b PERFRING]
#                           [-l HOGS]
#   -m  ring sizes, "default" or -m's value (default: "default 4")
#   -w  workloads (default: "storm f20000")
#   -r  recorders (default: all five above)
#   -b  a second perfring binary, the recorder "before" (a build of an
#       earlier commit), run in turn with the others
#   -l  HOGS spinning processes run throughout as background load (their
#       number is in the meta line; 0 by default)
set -u
reps=5 dur=2 out=docs/record-results.jsonl sizes="default 4"
workloads="storm f20000" before='' hogs=0
recorders="perf perf-no-buildid perfring perfring-no-buildid perfring-threads"
while getopts n:d:o:m:w:r:b:l: o; do
	case $o in
	n) reps=$OPTARG ;;
	d) dur=$OPTARG ;;
	o) out=$OPTARG ;;
	m) sizes=$OPTARG ;;
	w) workloads=$OPTARG ;;
	r) recorders=$OPTARG ;;
	b) before=$OPTARG ;;
	l) hogs=$OPTARG ;;
	*) exit 2 ;;
	esac
done
if [ -n "$before" ]; then
	before=$(cd "$(dirname "$before")" && pwd)/$(basename "$before")
	case " $recorders " in *" before "*) ;; *) recorders="$recorders before" ;; esac
fi
top=$(cd "$(dirname "$0")/.." && pwd)
P=${PERFRING:-$top/build/perfring}
case $out in /*) ;; *) out=$PWD/$out ;; esac
tmp=$(mktemp -d /tmp/pfr-rvp.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
command -v perf >/dev/null || { echo "perf(1) is missing" >&2; exit 1; }

cat >pp.c <<'EOC'
#include <unistd.h>
int main(void)
{
	int a[2], b[2];
	char c = 'x';

	if (pipe(a) || pipe(b))
		return 1;
	if (fork() == 0) {
		close(a[1]); /* the parent's end: its death is EOF here */
		close(b[0]);
		for (;;)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
	}
	for (;;)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
}
EOC
cat >spin.c <<'EOC'
int main(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}
EOC
cc -O2 -o pp pp.c && cc -O2 -o spin spin.c || exit 1

# The recorder's user+sys seconds, samples and lost samples.
measure() { # NAME OPTS...
	local name=$1 cpu samples lost
	shift
	rm -rf r.data r.data.old
	case $name in
	# not perf*: that pattern took perfring* too, and every "perfring"
	# run before this was perf record's
	perf | perf-no-buildid) /usr/bin/time -f '%U %S' -o t.out perf record -q -o r.data \
		"$@" -- sleep "$dur" >/dev/null 2>rec.err ;;
	before) /usr/bin/time -f '%U %S' -o t.out "$before" record -q \
		-o r.data "$@" -- sleep "$dur" >/dev/null 2>rec.err ;;
	*) /usr/bin/time -f '%U %S' -o t.out "$P" record -q -o r.data \
		"$@" -- sleep "$dur" >/dev/null 2>rec.err ;;
	esac
	cpu=$(awk 'END { printf "%.3f", $1 + $2 }' t.out)
	# perf report's "Total Lost Samples": the sum of the per-event
	# LOST_SAMPLES counts --stats lists (the kernel's PERF_FORMAT_LOST)
	perf report --stats -i r.data >st.out 2>/dev/null
	samples=$(awk '/^ *SAMPLE events:/ { print $3; exit }' st.out)
	lost=$(awk '/LOST_SAMPLES events:/ && !/%/ { s += $3 } END { print s + 0 }' st.out)
	echo "${cpu:-0} ${samples:-0} ${lost:-0}"
}

opts_of() { # RECORDER
	case $1 in
	perf) echo "" ;;
	perf-no-buildid) echo "--no-buildid" ;;
	perfring) echo "" ;;
	perfring-no-buildid) echo "--no-buildid" ;;
	perfring-threads) echo "--threads" ;;
	before) echo "" ;;
	esac
}

{
	printf '{"type":"meta","host":"%s","kernel":"%s","cpu":"%s",' \
		"$(hostname)" "$(uname -r)" \
		"$(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n1)"
	printf '"cpus":%s,"perf":"%s","perfring":"%s","date":"%s",' "$(nproc)" \
		"$(perf version | head -n1)" "$("$P" --version 2>/dev/null | head -n1)" \
		"$(date -u +%FT%TZ)"
	printf '"load_at_start":"%s","reps":%s,"seconds":%s,' \
		"$(cut -d' ' -f1-3 /proc/loadavg)" "$reps" "$dur"
	printf '"recorders":"%s","before":"%s","hogs":%s,' "$recorders" \
		"$([ -n "$before" ] && "$before" --version 2>/dev/null | head -n1)" "$hogs"
	printf '"placement":"time-shared, unpinned: the recorders, the workload and %s spinning processes share %s CPUs with whatever else runs"}\n' "$hogs" "$(nproc)"
} >"$out"

for ((h = 0; h < hogs; h++)); do
	./spin &
done
for wl in $workloads; do
	if [ $wl = storm ]; then
		./pp & w1=$!
		w2=
		ev="-a -e sched:sched_switch"
	else
		./spin & w1=$!
		./spin & w2=$!
		ev="-a -F 20000"
	fi
	sleep 0.5
	for m in $sizes; do
		mo=""
		[ $m = default ] || mo="-m $m"
		for ((r = 1; r <= reps; r++)); do
			[ -e /proc/$w1 ] || { echo "the workload died" >&2; exit 1; }
			# The order turns by one each repetition (no recorder
			# always follows the same one)
			# shellcheck disable=SC2086
			set -- $recorders
			for ((k = 0; k < (r - 1) % $#; k++)); do
				set -- "${@:2}" "$1"
			done
			for rec in "$@"; do
				# shellcheck disable=SC2046,SC2086
				read -r cpu samples lost < <(measure $rec $ev $mo $(opts_of $rec))
				printf '{"type":"run","workload":"%s","m":"%s","recorder":"%s","rep":%d,"cpu_s":%s,"samples":%s,"lost":%s}\n' \
					$wl $m $rec $r "$cpu" "$samples" "$lost" >>"$out"
				printf '%-7s m=%-7s %-17s rep %d: cpu %6.3f s  samples %8s  lost %8s\n' \
					$wl $m $rec $r "$cpu" "$samples" "$lost"
			done
		done
	done
	kill $w1 $w2 2>/dev/null
	wait $w1 $w2 2>/dev/null
done
# shellcheck disable=SC2046 # the background load's pids
kill $(jobs -p) 2>/dev/null

# Median and range per case, and the ratios of the medians.
python3 - "$out" <<'EOP'
import json, sys, statistics as S
path = sys.argv[1]
runs = [json.loads(l) for l in open(path) if '"type":"run"' in l]
cases = {}
for r in runs:
    cases.setdefault((r["workload"], r["m"], r["recorder"]), []).append(r)
summ = []
for (wl, m, rec), rs in sorted(cases.items()):
    cpu = [r["cpu_s"] for r in rs]
    lost = [r["lost"] for r in rs]
    smp = [r["samples"] for r in rs]
    fr = [r["lost"] / (r["lost"] + r["samples"]) if r["lost"] + r["samples"] else 0.0
          for r in rs]
    summ.append({"type": "summary", "workload": wl, "m": m, "recorder": rec,
                 "runs": len(rs), "cpu_s_median": S.median(cpu),
                 "cpu_s_min": min(cpu), "cpu_s_max": max(cpu),
                 "lost_median": S.median(lost), "lost_min": min(lost),
                 "lost_max": max(lost), "runs_with_loss": sum(1 for x in lost if x),
                 "samples_median": S.median(smp),
                 "lost_frac_median": round(S.median(fr), 4),
                 "lost_frac_min": round(min(fr), 4),
                 "lost_frac_max": round(max(fr), 4)})
med = {(s["workload"], s["m"], s["recorder"]): s for s in summ}
with open(path, "a") as f:
    for s in summ:
        f.write(json.dumps(s) + "\n")
    for (wl, m, rec), s in sorted(med.items()):
        if not rec.startswith("perfring") and rec != "before":
            continue
        for ref in ("perf", "perf-no-buildid"):
            p = med.get((wl, m, ref))
            if p and p["cpu_s_median"]:
                f.write(json.dumps({"type": "ratio", "workload": wl, "m": m,
                        "recorder": rec, "against": ref,
                        "cpu_ratio_of_medians": round(s["cpu_s_median"] / p["cpu_s_median"], 3)}) + "\n")
    # Loss against perf's in the same repetition: each perfring
    # recorder's lost / perf's lost, rep by rep (none where perf lost
    # nothing), then the median and range of those ratios.
    byrep = {(r["workload"], r["m"], r["recorder"], r["rep"]): r for r in runs}
    for (wl, m, rec), rs in sorted(cases.items()):
        if rec.startswith("perf") and not rec.startswith("perfring"):
            continue
        rat = []
        for r in rs:
            p = byrep.get((wl, m, "perf", r["rep"]))
            if p and p["lost"]:
                rat.append(r["lost"] / p["lost"])
        if rat:
            f.write(json.dumps({"type": "loss_ratio", "workload": wl, "m": m,
                    "recorder": rec, "against": "perf", "reps": len(rat),
                    "per_rep": [round(x, 3) for x in rat],
                    "median": round(S.median(rat), 3),
                    "min": round(min(rat), 3), "max": round(max(rat), 3)}) + "\n")
print("%-7s %-8s %-17s %18s %26s %22s %8s" % ("load", "-m", "recorder", "cpu s (min-max)", "lost median (min-max)", "frac median (min-max)", "lossy"))
for s in summ:
    print("%-7s %-8s %-17s %6.3f (%.3f-%.3f) %10d (%d-%d) %.4f (%.4f-%.4f) %5d/%d" % (
        s["workload"], s["m"], s["recorder"], s["cpu_s_median"], s["cpu_s_min"],
        s["cpu_s_max"], s["lost_median"], s["lost_min"], s["lost_max"],
        s["lost_frac_median"], s["lost_frac_min"], s["lost_frac_max"],
        s["runs_with_loss"], s["runs"]))
# (json.dumps writes "type": "ratio", with a space: parse, then compare)
for r in (json.loads(l) for l in open(path)):
    if r.get("type") == "ratio":
        print("ratio %-7s m=%-7s %-17s / %-16s = %.2f" % (r["workload"], r["m"], r["recorder"], r["against"], r["cpu_ratio_of_medians"]))
    if r.get("type") == "loss_ratio":
        print("lost  %-7s m=%-7s %-17s / perf, per rep: median %.2f (%.2f-%.2f) of %d" % (r["workload"], r["m"], r["recorder"], r["median"], r["min"], r["max"], r["reps"]))
EOP
