#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring's perf.data against Debian's perf: the same workload recorded by
# `perf record` and `perfring record` gives sample counts within 5% (both
# are 1 s of CPU time at 1000 Hz); `perf script -i` on perfring's file
# lists exactly the samples (tid, time, ip) that `perfring script` prints;
# `perf report --stdio -i` exits 0 without warnings and puts spin_here on
# top; the build ids are perf's; and `perfring script` reads perf's own
# file, sample for sample.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_spin
cd "$tmp" || exit 1

perf record -q -e cpu-clock -F 1000 -o perf.data -- ./spin 1 >/dev/null 2>perf.err
ok $? "perf record -e cpu-clock -F 1000 -- spin 1"
$P record -F 1000 --json -o pfr.data -- ./spin 1 >pfr.json 2>pfr.err
ok $? "perfring record -F 1000 --json -o pfr.data -- spin 1 (file and stream)"
diag <pfr.err

perf script -i perf.data -F tid,time,ip 2>/dev/null >perf.samples
perf script -i pfr.data -F tid,time,ip 2>perf-on-pfr.err >perf-on-pfr.samples
ok $? "perf script -i pfr.data exits 0"
ok $([ ! -s perf-on-pfr.err ]; echo $?) "perf script prints no warning on perfring's file"
diag <perf-on-pfr.err
a=$(wc -l <perf.samples) b=$(wc -l <perf-on-pfr.samples)
d=$((a > b ? a - b : b - a))
ok $([ $((d * 100)) -le $((a * 5)) ] && [ "$a" -gt 500 ]; echo $?) \
	"sample counts agree within 5%: perf record $a, perfring record $b"
summ=$(json_num "$(grep '"type":"summary"' pfr.json)" samples)
ok $([ "$summ" = "$b" ]; echo $?) "perfring's summary ($summ samples) = what perf reads from its file ($b)"

# Same samples, field by field: perf's view of the file against perfring's.
awk '{ sub(":", "", $2); print $1, $2, $3 }' \
	perf-on-pfr.samples | sort >x.perf
tti() { # JSON Lines on stdin -> "tid sec.usec ip" of each sample, sorted
	grep '"type":"SAMPLE"' |
		sed -n 's/.*"time":\([0-9]*\).*"tid":\([0-9]*\).*"ip":"0x\([0-9a-f]*\)".*/\2 \1 \3/p' |
		awk '{ printf "%s %d.%06d %s\n", $1, $2 / 1e9, ($2 % 1000000000) / 1000, $3 }' |
		sort
}
tti <pfr.json >x.printed
ok $(cmp -s x.perf x.printed; echo $?) "perf script -i lists exactly the $(wc -l <x.printed) samples perfring record printed (tid, time, ip)"
cmp -s x.perf x.printed || diff x.perf x.printed | head -5 | diag
$P script -i pfr.data --json --samples 2>/dev/null | tti >x.pfr
ok $(cmp -s x.perf x.pfr; echo $?) "and the same as perfring script reads from the file"
cmp -s x.perf x.pfr || diff x.perf x.pfr | head -5 | diag

perf report --stdio -i pfr.data >report.out 2>report.err
ok $? "perf report --stdio -i pfr.data exits 0"
ok $(! grep -qi -e warn -e error report.err report.out &&
	! grep -qi lost report.err; echo $?) "perf report prints no warning"
grep -i -e warn -e error report.err | diag
top=$(grep -v '^#' report.out | grep -m1 '%')
ok $(grep -q 'spin_here' <<<"$top"; echo $?) "perf report's top entry is spin_here: $top"

# The BUILD_ID feature: the binary's id as its ELF note has it.
bid=$(perf buildid-list -i pfr.data 2>/dev/null | awk '$2 ~ /\/spin$/ { print $1 }')
want=$(perf buildid-list -i perf.data 2>/dev/null | awk '$2 ~ /\/spin$/ { print $1 }')
ok $([ -n "$bid" ] && [ "$bid" = "$want" ]; echo $?) \
	"perf buildid-list finds spin's build id in perfring's file (${bid:-none}; perf's: ${want:-none})"

# perfring script on perf's own file.
c=$($P script -i perf.data --json --samples | grep -c '"type":"SAMPLE"')
ok $([ "$c" -eq "$a" ]; echo $?) "perfring script reads perf's own perf.data: $c samples (perf: $a)"
s=$($P script -i perf.data --samples | grep -c 'spin_here+0x')
ok $([ $((s * 100)) -ge $((a * 90)) ]; echo $?) "and symbolizes them ($s in spin_here)"
tap_done
