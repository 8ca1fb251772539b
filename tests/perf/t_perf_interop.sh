#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every perf command that reads perf.data accepts perfring's, with nothing
# on stderr: perf report, perf script, perf report/script --time 0%-50%
# (SAMPLE_TIME), perf data convert --to-json (CPUID; it lists the
# samples), perf evlist, perf buildid-list (the sampled DSOs' ids, [vdso]
# included), perf report --header-only (the machine's features), perf
# sched timehist (a sched_switch recording), perf annotate, and perf diff
# against perf's own file of the same workload.  Then the lost-sample count
# perf report prints (PERF_RECORD_LOST_SAMPLES).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_spin
build_pingpong
cd "$tmp" || exit 1

# A workload that spends its time in the vdso.
cat >vd.c <<'EOC'
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
	struct timespec a, b;
	double secs = argc > 1 ? atof(argv[1]) : 1.0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
	return 0;
}
EOC
cc -O1 -o vd vd.c

quiet() { # file: empty (what it holds is shown after the verdict)
	[ ! -s "$1" ]
}

perf record -q -F 1000 -g -o perf.data -- ./spin 1 >/dev/null 2>&1
$P record -q -F 1000 -g -o pfr.data -- ./spin 1 2>pfr.err
ok $? "perfring record -F 1000 -g -- spin 1"
diag <pfr.err

perf report --stdio -i pfr.data >rep.out 2>rep.err
rc=$?
ok $([ $rc -eq 0 ] && quiet rep.err; echo $?) "perf report: exit $rc, stderr empty"
[ -s rep.err ] && diag <rep.err
perf script -i pfr.data >scr.out 2>scr.err
rc=$?
all=$(grep -c 'cpu-clock:' scr.out)
ok $([ $rc -eq 0 ] && [ "$all" -gt 500 ] && quiet scr.err; echo $?) \
	"perf script: exit $rc, $all samples, stderr empty"
[ -s scr.err ] && diag <scr.err

perf report --stdio --time 0%-50% -i pfr.data >half.out 2>half.err
rc=$?
hs=$(sed -n 's/^# Samples: \([0-9]*\) .*/\1/p' half.out | head -n1)
ok $([ $rc -eq 0 ] && [ -n "$hs" ] && [ "$hs" -gt 0 ] && [ "$hs" -lt "$all" ] &&
	quiet half.err; echo $?) \
	"perf report --time 0%-50%: $hs of $all samples, stderr empty"
[ -s half.err ] && diag <half.err
perf script --time 0%-50% -i pfr.data >halfs.out 2>halfs.err
rc=$?
hn=$(grep -c 'cpu-clock:' halfs.out)
ok $([ $rc -eq 0 ] && [ "$hn" -gt 0 ] && [ "$hn" -lt "$all" ] && quiet halfs.err; echo $?) \
	"perf script --time 0%-50%: $hn of $all samples"
[ -s halfs.err ] && diag <halfs.err

perf data convert --to-json out.json -i pfr.data >conv.out 2>conv.err
rc=$?
js=$(grep -c '"timestamp"' out.json 2>/dev/null)
grep -v '^\[ perf data convert: ' conv.err >conv.warn
ok $([ $rc -eq 0 ] && [ "$js" -eq "$all" ] && quiet conv.warn; echo $?) \
	"perf data convert --to-json: exit $rc, ${js:-0} samples listed (perf script: $all)"
[ -s conv.warn ] && diag <conv.warn
ok $(grep -q '"cpuid": "' out.json && grep -q '"symbol": "spin_here"' out.json; echo $?) \
	"the JSON has the CPU id and symbolized samples"

perf evlist -i pfr.data >ev.out 2>ev.err
rc=$?
ok $([ $rc -eq 0 ] && grep -qx cpu-clock ev.out && quiet ev.err; echo $?) \
	"perf evlist: $(tr '\n' ' ' <ev.out)"
[ -s ev.err ] && diag <ev.err

perf buildid-list -i pfr.data >bid.out 2>bid.err
perf buildid-list -i perf.data >bid.ref 2>/dev/null
rc=$?
mine=$(awk '$2 ~ /\/spin$/ { print $1 }' bid.out)
theirs=$(awk '$2 ~ /\/spin$/ { print $1 }' bid.ref)
ok $([ -n "$mine" ] && [ "$mine" = "$theirs" ] && quiet bid.err; echo $?) \
	"perf buildid-list: spin's id is perf's ($mine)"
[ -s bid.err ] && diag <bid.err
# Only what the samples hit: every DSO listed is one perf report shows,
# but [vdso], which perf lists whenever it is mapped, hit or not.
extra=0
while read -r _ dso; do
	[ "$dso" = "[vdso]" ] && continue
	base=${dso##*/}
	grep -qF -- "$base" rep.out || extra=$((extra + 1))
done <bid.out
ok $([ $extra -eq 0 ]; echo $?) "buildid-list lists only DSOs with samples ($(wc -l <bid.out) listed, $extra without)"

perf report --header-only -I -i pfr.data >hdr.out 2>hdr.err
for k in "cpudesc" "cpuid" "total memory" "sibling threads" \
	"node0 cpu list" "pmu mappings" "time of first sample" \
	"sample duration"; do
	ok $(grep -q "^# $k" hdr.out; echo $?) "header: $(grep -m1 "^# $k" hdr.out | cut -c3-)"
done
want=$(perf report --header-only -i perf.data 2>/dev/null | sed -n 's/^# missing features: //p' | tr ' ' '\n' | grep -v '^$' | sort)
got=$(sed -n 's/^# missing features: //p' hdr.out | tr ' ' '\n' | grep -v '^$' | sort)
extra=$(comm -13 <(echo "$want") <(echo "$got") | grep -v -e BPF_PROG_INFO -e BPF_BTF | tr '\n' ' ')
ok $([ -z "$extra" ]; echo $?) \
	"no feature missing that perf's own file has (BPF ones aside): ${extra:-none}"

perf annotate --stdio -s spin_here -i pfr.data >ann.out 2>ann.err
rc=$?
ok $([ $rc -eq 0 ] && grep -q 'spin_here' ann.out && grep -Eq '(add|cmp|jmp|call|mov)' ann.out &&
	quiet ann.err; echo $?) "perf annotate spin_here: exit $rc, disassembly, stderr empty"
[ -s ann.err ] && diag <ann.err

perf diff perf.data pfr.data >diff.out 2>diff.err
rc=$?
ok $([ $rc -eq 0 ] && grep -q 'spin_here' diff.out && quiet diff.err; echo $?) \
	"perf diff perf.data pfr.data: exit $rc, spin_here paired"
[ -s diff.err ] && diag <diff.err

# perf sched timehist on a sched_switch recording (with call chains, which
# it shows by default).
$P record -q -g -a -e sched:sched_switch -o sw.data -- ./pingpong 2000 2>sw.err
ok $? "perfring record -g -a -e sched:sched_switch -- pingpong 2000"
perf sched timehist -i sw.data >th.out 2>th.err
rc=$?
ok $([ $rc -eq 0 ] && grep -q 'pingpong' th.out && quiet th.err; echo $?) \
	"perf sched timehist: exit $rc, $(grep -c pingpong th.out) pingpong lines, stderr empty"
[ -s th.err ] && diag <th.err

# -p on a running process: [vdso] mapped, symbolized, build id listed.
./vd 2 &
vpid=$!
sleep 0.2
$P record -q -F 1000 -p $vpid -o vd.data 2>vd.err
wait $vpid
perf report --stdio -i vd.data 2>/dev/null | grep -v '^#' >vd.rep
ok $(grep -q '\[vdso\]' vd.rep; echo $?) "-p: samples in [vdso] ($(grep -c '\[vdso\]' vd.rep) lines)"
ok $(grep -q '__vdso_clock_gettime' vd.rep; echo $?) "and perf resolves __vdso_clock_gettime"
(
	./vd 1.5 &
	vpid=$!
	sleep 0.2
	perf record -q -F 1000 -p $vpid -o vdref.data -- sleep 1 >/dev/null
	wait $vpid
) 2>/dev/null # perf's reference; its job messages are not ours
v1=$(perf buildid-list -i vd.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
v2=$(perf buildid-list -i vdref.data 2>/dev/null | awk '$2 == "[vdso]" { print $1 }')
ok $([ -n "$v1" ] && [ "$v1" = "$v2" ]; echo $?) \
	"perf buildid-list lists [vdso] with perf's id (${v1:-none}; perf: ${v2:-none})"

# --call-graph dwarf: perf report unwinds the sampled user stacks of a
# program built without frame pointers.
cat >deep.c <<'EOC'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void leaf(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i;
}
__attribute__((noinline)) void mid(void)
{
	leaf();
	sink++;
}
int main(int argc, char **argv)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		mid();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 <
		 atof(argv[1]));
	return 0;
}
EOC
cc -O2 -g -fomit-frame-pointer -o deep deep.c
$P record -q --call-graph dwarf -F 1000 -o dw.data -- ./deep 0.3 2>dw.err
ok $? "perfring record --call-graph dwarf -- deep (no frame pointers)"
perf report --stdio --no-children -i dw.data >dw.rep 2>dw.rerr
ok $(awk '/\[\.\] leaf/ { f = 1 } f && /main/ { m = 1 } f && /mid/ { d = 1 }
	END { exit !(m && d) }' dw.rep; echo $?) \
	"perf report unwinds leaf <- mid <- main from the sampled stacks"
quiet dw.rerr || diag <dw.rerr

# Lost samples: perf report's total is the kernel's count (PERF_FORMAT_LOST,
# read at the end), which is at least what the LOST records say (the
# kernel reports a loss in the ring only once there is room again).
$P record -m 1 -e sched:sched_switch --json -o lost.data -- ./pingpong 50000 2>lost.err |
	grep '"type":"summary"' >lost.json
lost=$(json_num "$(cat lost.json)" lost)
counted=$(json_num "$(cat lost.json)" lost_counted)
tot=$(perf report --stdio -i lost.data 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
ok $([ -n "$counted" ] && [ "$tot" = "$counted" ] && [ "$counted" -ge "$lost" ]; echo $?) \
	"perf report's Total Lost Samples ($tot) = the kernel's count ($counted) >= the LOST records' ($lost)"
tap_done
