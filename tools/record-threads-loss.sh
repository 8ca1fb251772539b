#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring record's loss at 8 MiB rings (-m 8M): one reader thread against
# --threads (a reader thread per CPU), interleaved (single, threads,
# single, threads, ...) on the same running workload:
#   storm   a sched_switch storm: two processes ping-pong a byte over
#           pipes, recorded with -a -e sched:sched_switch (every switch)
#   dwarf   -a -F 10000 --call-graph dwarf (8 KiB of user stack a sample)
#           while two processes spin: the highest byte rate this machine
#           gives a recorder
# For each run: the recorder's CPU seconds (user + sys), the samples in
# the file and the samples lost (perf report --stats: the per-event
# LOST_SAMPLES counts, as tools/record-vs-perf.sh counts them), and the
# lost fraction lost / (samples + lost); then the median and range per
# case and the ratio of the medians, threads / single.  Writes the runs
# and the summary to the file given (default
# docs/results/threads-loss.txt) and to standard output.
#   tools/record-threads-loss.sh [-n REPS] [-d SECONDS] [-o FILE]
set -u
reps=5 dur=2 out=docs/results/threads-loss.txt
while getopts n:d:o: o; do
	case $o in
	n) reps=$OPTARG ;;
	d) dur=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
P=${PERFRING:-$top/build/perfring}
case $out in /*) ;; *) out=$PWD/$out ;; esac
tmp=$(mktemp -d /tmp/pfr-tl.XXXXXX)
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
cat >spin.c <<'EOC'
int main(void)
{
	volatile unsigned long x = 0;

	for (;;)
		x++;
}
EOC
cc -O2 -o pp pp.c && cc -O2 -o spin spin.c || exit 1

measure() { # OPTS...: cpu samples lost
	local cpu samples lost
	rm -f r.data r.data.old
	/usr/bin/time -f '%U %S' -o t.out "$P" record -q -o r.data "$@" \
		-- sleep "$dur" >/dev/null 2>rec.err
	cpu=$(awk 'END { printf "%.3f", $1 + $2 }' t.out)
	perf report --stats -i r.data >st.out 2>/dev/null
	samples=$(awk '/^ *SAMPLE events:/ { print $3; exit }' st.out)
	lost=$(awk '/LOST_SAMPLES events:/ && !/%/ { s += $3 } END { print s + 0 }' st.out)
	echo "${cpu:-0} ${samples:-0} ${lost:-0}"
}

{
	echo "# perfring record, loss at 8 MiB rings: one reader against --threads"
	echo "# tools/record-threads-loss.sh -n $reps -d $dur, $(date -u +%FT%TZ)"
	echo "# $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n1), $(nproc) vCPUs, kernel $(uname -r), $("$P" --version 2>/dev/null | head -n1)"
	echo "# placement: time-shared, unpinned: the recorder, its reader threads and the"
	echo "# workload share the $(nproc) vCPUs with whatever else runs (load average at"
	echo "# the start: $(cut -d' ' -f1-3 /proc/loadavg))"
	echo "# workload readers rep cpu_s samples lost lost_fraction"
} >"$out"

for wl in storm dwarf; do
	if [ $wl = storm ]; then
		./pp & w1=$!
		w2=
		ev="-a -e sched:sched_switch"
	else
		./spin & w1=$!
		./spin & w2=$!
		ev="-a -F 10000 --call-graph dwarf"
	fi
	sleep 0.5
	for ((r = 1; r <= reps; r++)); do
		for rd in single threads; do
			th=""
			[ $rd = threads ] && th="--threads"
			# shellcheck disable=SC2086
			read -r cpu samples lost < <(measure $ev -m 8M $th)
			frac=$(awk -v s="$samples" -v l="$lost" \
				'BEGIN { printf "%.4f", s + l ? l / (s + l) : 0 }')
			echo "$wl $rd $r $cpu $samples $lost $frac" | tee -a "$out"
		done
	done
	kill $w1 $w2 2>/dev/null
	wait $w1 $w2 2>/dev/null
done

python3 - "$out" <<'EOP' | tee -a "$out"
import sys, statistics as S
rows = [l.split() for l in open(sys.argv[1]) if l[0] != "#" and len(l.split()) == 7]
print("\n# summary: median (min-max) of %d interleaved runs" % (len(rows) // 4))
print("# workload readers      cpu_s               samples                lost            lost_fraction")
med = {}
for wl in ("storm", "dwarf"):
    for rd in ("single", "threads"):
        rs = [r for r in rows if r[0] == wl and r[1] == rd]
        if not rs:
            continue
        col = lambda i: [float(r[i]) for r in rs]
        m = [S.median(col(i)) for i in (3, 4, 5, 6)]
        med[wl, rd] = m
        print("%-8s %-8s %6.3f (%.3f-%.3f) %8d (%d-%d) %8d (%d-%d) %.4f (%.4f-%.4f)" % (
            wl, rd, m[0], min(col(3)), max(col(3)), m[1], min(col(4)), max(col(4)),
            m[2], min(col(5)), max(col(5)), m[3], min(col(6)), max(col(6))))
for wl in ("storm", "dwarf"):
    s, t = med.get((wl, "single")), med.get((wl, "threads"))
    if s and t:
        print("ratio %s threads/single: lost %s, lost fraction %s, cpu %.2f" % (
            wl, "%.2f" % (t[2] / s[2]) if s[2] else "n/a (single lost 0)",
            "%.2f" % (t[3] / s[3]) if s[3] else "n/a", t[0] / s[0] if s[0] else 0))
EOP
