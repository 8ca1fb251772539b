#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The other ways to run perfring record: an existing process (-p) or
# thread (-t), several -e at once (a tracepoint among them, with tracefs
# mounted on demand), -c periods, call chains (-g), context-switch records
# (--switch-events), and the flight recorder (--overwrite, snapshot on
# SIGUSR2 and at exit with PERF_EVENT_IOC_PAUSE_OUTPUT), each read back by
# perf script.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_spin
build_pingpong
cd "$tmp" || exit 1

# -p: a running process; recording ends when it exits.
./spin 0.6 &
pid=$!
sleep 0.1
timeout 20 $P record -F 1000 -p $pid -o p.data 2>p.err
ok $? "record -p $pid ends when the process exits"
wait $pid
c=$(perf script -i p.data -F tid 2>/dev/null | sort -u | tr -d ' \n')
s=$(perf script -i p.data 2>/dev/null | grep -c 'spin_here+0x')
ok $([ "$c" = "$pid" ] && [ "$s" -gt 100 ]; echo $?) \
	"-p samples are the process's ($c) and resolve to spin_here via the synthesized maps ($s)"
# -t: one thread.
./spin 0.6 &
pid=$!
sleep 0.1
timeout 20 $P record -F 1000 -t $pid --json >t.json 2>t.err
ok $? "record -t $pid"
wait $pid
c=$(grep '"type":"SAMPLE"' t.json | sed -n 's/.*"tid":\([0-9]*\).*/\1/p' | sort -u | tr -d '\n')
ok $([ "$c" = "$pid" ]; echo $?) "-t samples are that thread's ($c)"

# -a without a command: until SIGINT, then a complete file.
$P record -a -F 1000 -o int.data 2>int.err &
rp=$!
./spin 0.3
kill -INT $rp
wait $rp
ok $? "record -a stops cleanly on SIGINT"
ok $(perf script -i int.data 2>/dev/null | grep -q 'spin_here'; echo $?) \
	"and its file has the samples of a process started during the recording"

# Several events, one of them a tracepoint (tracefs mounted if needed).
$P record -e sched:sched_switch -e cpu-clock -e page-faults \
	-o multi.data -- ./pingpong 2000 2>multi.err
rc=$?
ok $rc "record -e sched:sched_switch -e cpu-clock -e page-faults"
[ $rc -eq 0 ] || diag <multi.err
ok $([ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]; echo $?) \
	"tracefs is mounted (perfring mounts it when root)"
perf script -i multi.data -F event 2>multi.perr | sort | uniq -c >events
diag <events
for e in sched:sched_switch cpu-clock page-faults; do
	ok $(grep -Eq " $e: *\$" events; echo $?) "perf script sees $e samples"
done
ok $([ ! -s multi.perr ]; echo $?) "perf script has no complaint about the tracepoint data"
diag <multi.perr
ok $(perf script -i multi.data 2>/dev/null | grep -q 'sched:sched_switch:.*prev_comm=pingpong'; echo $?) \
	"perf script decodes the tracepoint's fields (HEADER_TRACING_DATA)"
ok $($P script -i multi.data | grep -q ' sched:sched_switch: '; echo $?) \
	"perfring script names each sample's event by its id"

# tracefs not mounted: perfring (root) mounts it.  Tried in a private
# mount namespace, so that the machine's own mounts stay as they are.  With
# debugfs mounted, tracefs also shows (automounted) at
# /sys/kernel/debug/tracing, so debugfs goes too; then, with debugfs back
# and /sys/kernel/tracing gone, perfring must find and use the debugfs path.
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null
		umount /sys/kernel/debug/tracing 2>/dev/null
		umount /sys/kernel/debug 2>/dev/null
		grep -q ' tracefs ' /proc/self/mounts && exit 9
		[ -d /sys/kernel/debug/tracing/events ] && exit 10
		$P record -q -e sched:sched_switch -o ns.data -- true || exit 8
		grep -q ' /sys/kernel/tracing tracefs' /proc/self/mounts" 2>ns.err
	rc=$?
	ok $rc "with tracefs unmounted (and debugfs), record -e sched:sched_switch mounts it (status $rc)"
	diag <ns.err
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null
		grep -q ' /sys/kernel/tracing tracefs' /proc/self/mounts && exit 9
		grep -q ' /sys/kernel/debug debugfs' /proc/self/mounts ||
			mount -t debugfs nodev /sys/kernel/debug || exit 7
		[ -d /sys/kernel/debug/tracing/events ] || exit 6
		$P record -q -e sched:sched_switch -o dbg.data -- ./pingpong 200 || exit 8
		grep -q ' /sys/kernel/tracing tracefs' /proc/self/mounts && exit 5
		exit 0" 2>dbg.err
	rc=$?
	ok $rc "with tracefs only under debugfs, record uses /sys/kernel/debug/tracing (status $rc)"
	diag <dbg.err
	ok $(perf script -i dbg.data 2>/dev/null | grep -q 'sched:sched_switch:.*prev_comm=pingpong'; echo $?) \
		"and perf script decodes the tracepoint from the formats read there"
else
	skip "not root" "tracefs auto-mount"
fi

# -c: a fixed period.
$P record -e page-faults -c 1 --json -- ./pingpong 10 >pf.json 2>/dev/null
per=$(grep '"type":"SAMPLE"' pf.json | sed -n 's/.*"period":\([0-9]*\).*/\1/p' | sort -u | tr -d '\n')
ok $([ "$per" = 1 ]; echo $?) "-c 1: every sample's period is 1 ($per)"

# -g: call chains.
$P record -g -F 1000 -o g.data -- ./spin 0.2 2>/dev/null
ok $(perf script -i g.data 2>/dev/null | grep -q 'main+0x'; echo $?) \
	"-g: perf script shows call chains through main"
ok $($P script -i g.data --json --samples | grep -q '"callchain":\["0x'; echo $?) \
	"-g: perfring script decodes them"

# --switch-events: PERF_RECORD_SWITCH.
$P record --switch-events -e cpu-clock --json -- ./pingpong 500 >sw.json 2>/dev/null
ok $(grep -q '"type":"SWITCH"' sw.json; echo $?) "--switch-events: SWITCH records decoded"

# --overwrite: snapshots on SIGUSR2 and at exit, nothing twice.
$P record --overwrite -m 4 -F 1000 -o ow.data -- ./spin 1.5 2>ow.err &
rp=$!
sleep 0.7
kill -USR2 $rp
wait $rp
ok $? "record --overwrite -m 4 with SIGUSR2"
diag <ow.err
ok $(grep -q "2 snapshots" ow.err; echo $?) "two snapshots (SIGUSR2 and exit)"
perf script -i ow.data -F time 2>/dev/null >ow.times
dups=$(sort ow.times | uniq -d | wc -l)
ns=$(wc -l <ow.times)
ok $([ "$dups" -eq 0 ] && [ "$ns" -gt 100 ]; echo $?) "$ns samples, none written twice"
ok $(perf report --stdio -i ow.data 2>/dev/null | grep -v '^#' | grep -m1 '%' | grep -q spin_here; echo $?) \
	"the side-band (mmap) survives the overwrite ring: perf report resolves spin_here"
# With -m 4 (16 KiB) the ring holds < 300 samples: the first snapshot at
# 0.7 s of a 1.5 s run cannot have them all.
ok $([ "$ns" -lt 1400 ]; echo $?) "the flight recorder kept only the newest data ($ns of ~1500)"
tap_done
