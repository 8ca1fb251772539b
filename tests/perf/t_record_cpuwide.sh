#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring record -a: one ring per online CPU, merged into time order, with
# a context-switch-heavy workload (two processes ping-ponging a byte over
# pipes) sampling every context switch.  At the default ring size nothing
# is lost; with a one-page ring (-m 1) records are lost, and perfring's
# count equals the sum of the kernel's PERF_RECORD_LOST records exactly
# (as perf script reads them from the file, and as perfring script does).
# The workload: -e context-switches -c 1 samples every switch.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_pingpong
cd "$tmp" || exit 1
ncpu=$(getconf _NPROCESSORS_ONLN)
rounds=${PFR_PINGPONG:-30000}

$P record -a -e context-switches -c 1 -o all.data -- ./pingpong $rounds 2>all.err
ok $? "record -a -e context-switches -c 1 -- pingpong $rounds"
diag <all.err
samples=$(sed -n 's/.* \([0-9]*\) samples, .*/\1/p' all.err)
lost=$(sed -n 's/.* samples, \([0-9]*\) lost .*/\1/p' all.err)
ok $([ "$samples" -ge $((2 * rounds)) ]; echo $?) \
	"$samples context-switch samples (>= 2 per round trip: $((2 * rounds)))"
ok $([ "$lost" -eq 0 ]; echo $?) "zero lost at the default ring size (lost: $lost)"
ok $(grep -q "from $ncpu rings" all.err; echo $?) "one ring per online CPU ($ncpu)"
perf report --stdio -i all.data >all.rep 2>all.rerr
ok $([ $? -eq 0 ] && ! grep -qi -e warn -e error -e lost all.rerr; echo $?) \
	"perf report reads the -a file (synthesized threads and maps) without a warning"
diag <all.rerr
cpus=$(perf script -i all.data -F cpu 2>/dev/null | sort -u | wc -l)
ok $([ "$cpus" -eq "$ncpu" ]; echo $?) "samples from all $ncpu CPUs in one file ($cpus)"

# Time order across rings: the merged stream never goes back in time.
$P script -i all.data --json --file-order | grep -v '"time":0,' |
	sed -n 's/.*"time":\([0-9]*\).*/\1/p' >times
ok $(sort -n -c times 2>/dev/null; echo $?) "the file's $(wc -l <times) records from $ncpu rings are stored in timestamp order"
$P record -a -e context-switches -c 1 --json -- ./pingpong 2000 >stream.json 2>/dev/null
grep -v '"type":"summary"' stream.json | sed -n 's/.*"time":\([0-9]*\).*/\1/p' |
	awk '$1 > 0' >stimes
ok $(sort -n -c stimes 2>/dev/null; echo $?) "the live stream merged from $ncpu rings is in timestamp order ($(wc -l <stimes) records)"

# A one-page ring: loss, counted exactly.  The reader keeps up with a 4 KiB
# ring most of the time, so it is made to fall behind for certain: stopped
# (SIGSTOP) for 0.2 s while the workload runs, the kernel meanwhile
# dropping and counting what does not fit.  The kernel writes its LOST
# record at its next write into the ring, so the workload goes on for
# 0.3 s after the reader resumed (a workload that ended while the reader
# was stopped leaves the loss in PERF_FORMAT_LOST alone: LOST_SAMPLES).
: >running
$P record -a -m 1 -e context-switches -c 1 -o small.data -- \
	sh -c 'while [ -e running ]; do ./pingpong 2000; done' 2>small.err &
rp=$!
sleep 0.3
kill -STOP $rp
sleep 0.2
kill -CONT $rp
sleep 0.3
rm -f running
wait $rp
ok $? "record -a -m 1 (one data page per ring), reader stopped for 0.2 s"
diag <small.err
lost=$(sed -n 's/.* samples, \([0-9]*\) lost .*/\1/p' small.err)
lrec=$(sed -n 's/.* lost (in \([0-9]*\) LOST records).*/\1/p' small.err)
ok $([ "$lost" -gt 0 ]; echo $?) "records lost with a 4 KiB ring: $lost in $lrec LOST records"
perf script --show-lost-events -i small.data 2>/dev/null | grep 'PERF_RECORD_LOST' >perf.lost
psum=$(awk '{ s += $NF } END { print s + 0 }' perf.lost)
pn=$(wc -l <perf.lost)
ok $([ "$psum" -eq "$lost" ] && [ "$pn" -eq "$lrec" ]; echo $?) \
	"perf script finds $pn LOST records totalling $psum in the file (perfring counted $lrec, $lost)"
jsum=$($P script -i small.data --json | grep '"type":"LOST"' |
	sed -n 's/.*"lost":\([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
ok $([ "$jsum" -eq "$lost" ]; echo $?) "perfring script sums the same: $jsum"
perf report --stdio -i small.data >/dev/null 2>rep.err
ok $(grep -q "lost $lrec chunks" rep.err; echo $?) "perf report warns of exactly $lrec lost chunks"
tap_done
