#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Not part of make check: the reader CPU time of perfring record against
# perf record on the same workload, for docs/record.md.  Two processes
# ping-pong a byte over pipes in the background (about 200k context
# switches a second on two vCPUs); each recorder samples every context
# switch on every CPU (-a -e context-switches -c 1) for SECS seconds into
# a perf.data file with the same ring size, and its own user+sys CPU time
# is measured by /usr/bin/time (its child, `sleep`, adds nothing).  Contestants are
# interleaved; REPS repetitions (default 1: the figure the issue asks for).
. "$(dirname "$0")/lib.sh"
secs=${SECS:-3}
reps=${REPS:-1}
build_pingpong
cd "$tmp" || exit 1
./pingpong 1000000000 &
wl=$!
sleep 0.5
cpu_of() { # command...: prints the recorder's user+sys seconds
	/usr/bin/time -f "%U %S" -o time.out "$@" >/dev/null 2>run.err
	awk '{ printf "%.2f", $1 + $2 }' time.out
}
for r in $(seq "$reps"); do
	a=$(cpu_of perf record -q -a -m 128 -e context-switches -c 1 -o perf.data -- sleep "$secs")
	pa=$(perf report --stats -i perf.data 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
	b=$(cpu_of perf record -q -a -m 128 --no-buildid -e context-switches -c 1 -o perf-nb.data -- sleep "$secs")
	pb=$(perf report --stats -i perf-nb.data 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
	c=$(cpu_of "$P" record -a -m 128 -e context-switches -c 1 -o pfr.data -- sleep "$secs")
	pc=$(perf report --stats -i pfr.data 2>/dev/null | awk '/SAMPLE events/ { print $3; exit }')
	echo "run $r: perf record ${a} s ($pa samples), perf record --no-buildid ${b} s ($pb samples), perfring record ${c} s ($pc samples)"
	grep 'reader CPU' run.err
	awk -v a="$a" -v b="$b" -v c="$c" -v pa="$pa" -v pb="$pb" -v pc="$pc" 'BEGIN {
		printf "  CPU per sample: perf %.2f us, perf --no-buildid %.2f us, perfring %.2f us\n", a / pa * 1e6, b / pb * 1e6, c / pc * 1e6
		printf "  ratio perfring/perf = %.2f per run, %.2f per sample; perfring/perf --no-buildid = %.2f per run, %.2f per sample\n", c / a, (c / pc) / (a / pa), c / b, (c / pc) / (b / pb) }'
done
kill $wl
wait $wl 2>/dev/null
