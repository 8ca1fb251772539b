#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The recorder's CPU, two perfring builds against perf record --no-buildid,
# interleaved (A, B, perf, A, B, perf, ...) on the same running workload:
#   storm   two processes ping-pong a byte over pipes, recorded with
#           -a -e sched:sched_switch
#   f20000  -a -F 20000 (cpu-clock) while two processes spin
# Each run: the recorder's task-clock (perf stat, ms), the samples in the
# file (perf report --stats) and the cost per sample (ns); then per case
# the median and range, and the ratios of the medians to perf's.  perfring
# runs with its defaults (build ids written), perf with --no-buildid.
#   tools/record-cpu-ab.sh A_PERFRING B_PERFRING [-n REPS] [-d SECONDS]
#       [-o FILE]      (default docs/results/record-cpu-ab.txt)
set -u
A=$1 B=$2
shift 2
reps=5 dur=3 out=docs/results/record-cpu-ab.txt
while getopts n:d:o: o; do
	case $o in
	n) reps=$OPTARG ;;
	d) dur=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
tmp=$(mktemp -d /tmp/pfr-cpu.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cat >pp.c <<'EOC'
#include <unistd.h>
int main(void)
{
	int a[2], b[2];
	char c = 'x';

	if (pipe(a) || pipe(b))
		return 1;
	if (fork() == 0) {
		close(a[1]);
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
printf 'int main(void)\n{\n\tvolatile unsigned long x = 0;\n\n\tfor (;;)\n\t\tx++;\n}\n' >spin.c
cc -O2 -o pp pp.c && cc -O2 -o spin spin.c || exit 1
{
	echo "# the recorder's CPU: A=$A, B=$B, perf=perf record --no-buildid"
	echo "# tools/record-cpu-ab.sh -n $reps -d $dur, $(date -u +%FT%TZ)"
	echo "# $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n1), $(nproc) vCPUs, kernel $(uname -r), $(perf version | head -n1)"
	echo "# placement: time-shared, unpinned: recorder and workload on the same $(nproc)"
	echo "# vCPUs with whatever else runs (load average at the start: $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "# workload recorder rep task_clock_ms samples ns_per_sample"
} >"$out"
for wl in storm f20000; do
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
	for ((r = 1; r <= reps; r++)); do
		for rec in A B perf; do
			case $rec in
			A) c="$A record" ;;
			B) c="$B record" ;;
			perf) c="perf record --no-buildid" ;;
			esac
			rm -f r.data r.data.old
			# shellcheck disable=SC2086
			perf stat -x, -o st.txt -e task-clock -- $c $ev -o r.data \
				-- sleep "$dur" >/dev/null 2>&1
			ms=$(awk -F, '/task-clock/ { print $1 }' st.txt)
			n=$(perf report --stats -i r.data 2>/dev/null |
				awk '/^ *SAMPLE events:/ { print $3; exit }')
			echo "$wl $rec $r $ms ${n:-0} $(awk -v m="$ms" -v n="${n:-0}" \
				'BEGIN { printf "%.0f", n ? m * 1e6 / n : 0 }')" |
				tee -a "$out"
		done
	done
	kill $w1 $w2 2>/dev/null
	wait $w1 $w2 2>/dev/null
done
python3 - "$out" <<'EOP' | tee -a "$out"
import sys, statistics as S
rows = [l.split() for l in open(sys.argv[1]) if l[0] != "#" and len(l.split()) == 6]
print("\n# summary: median (min-max)")
med = {}
for wl in ("storm", "f20000"):
    for rec in ("A", "B", "perf"):
        rs = [r for r in rows if r[0] == wl and r[1] == rec]
        if not rs:
            continue
        ms = [float(r[3]) for r in rs]
        ns = [float(r[5]) for r in rs]
        med[wl, rec] = (S.median(ms), S.median(ns))
        print("%-7s %-5s task-clock %7.1f ms (%.1f-%.1f)  %6.0f ns/sample (%.0f-%.0f)" % (
            wl, rec, S.median(ms), min(ms), max(ms), S.median(ns), min(ns), max(ns)))
for wl in ("storm", "f20000"):
    p = med.get((wl, "perf"))
    for rec in ("A", "B"):
        m = med.get((wl, rec))
        if m and p and p[0] and p[1]:
            print("ratio %-7s %s / perf --no-buildid: task-clock %.3f, per sample %.3f" % (
                wl, rec, m[0] / p[0], m[1] / p[1]))
EOP
