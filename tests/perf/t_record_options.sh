#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's option grammar in perfring record: each spelling in the
# table is recorded by perf and by perfring, and `perf evlist -v` of both
# files must agree on every attr field the options decide (type, config,
# period or frequency, privilege levels, precision, inheritance, call
# chains, addresses) and on the groups (`perf evlist -g`).  Then what the
# attrs cannot show: -m sizes, -C, -p PID -- cmd, -o - (perf's pipe format),
# -u, --filter, -G, and the options perfring has no equivalent for (one
# line, exit 2).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_spin
build_pingpong
cd "$tmp" || exit 1

# The fields compared, from a `perf evlist -v` line (perf's
# "{ sample_period, sample_freq }" key holds a comma: renamed first).
fields() {
	sed -e 's/{ sample_period, sample_freq }/period/' \
		-e 's/{ wakeup_events, wakeup_watermark }/wakeup/' "$1" |
		while IFS= read -r line; do
			case $line in '#'*) continue ;; esac
			name=${line%%: *}
			rest=${line#*: }
			out="$name"
			for k in type config config1 period freq exclude_user \
				exclude_kernel exclude_hv exclude_guest \
				exclude_host precise_ip pinned inherit disabled \
				exclude_callchain_user mmap_data \
				sample_regs_user sample_stack_user; do
				v=$(tr ',' '\n' <<<", $rest" |
					sed -n "s/^ $k: //p" | head -n1)
				out="$out $k=${v:-0}"
			done
			st=$(sed -n 's/.*sample_type: \([A-Z_|]*\).*/\1/p' <<<"$rest")
			# RAW is not compared: perfring samples the union of
			# its events' fields (one layout per recording), so a
			# software event recorded with a tracepoint has RAW.
			for b in CALLCHAIN ADDR REGS_USER STACK_USER DATA_SRC; do
				case "|$st|" in *"|$b|"*) out="$out $b" ;; esac
			done
			echo "$out"
		done
}

tracefs=0
[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] &&
	tracefs=1

row=0
while IFS= read -r spec; do
	case $spec in '' | '#'*) continue ;; esac
	case $spec in *sched:*) [ $tracefs = 1 ] || {
		skip "tracefs cannot be mounted here" "$spec"
		continue
	} ;; esac
	row=$((row + 1))
	# shellcheck disable=SC2086 # the spelling is word-split on purpose
	perf record -q $spec -o ref$row.data -- true >/dev/null 2>&1
	# shellcheck disable=SC2086
	$P record -q $spec -o pfr$row.data -- true >/dev/null 2>pfr$row.err
	rc=$?
	perf evlist -v -i ref$row.data >ref$row.ev 2>/dev/null
	perf evlist -v -i pfr$row.data >pfr$row.ev 2>/dev/null
	fields ref$row.ev >ref$row.f
	fields pfr$row.ev >pfr$row.f
	perf evlist -g -i ref$row.data 2>/dev/null | grep -v '^#' >ref$row.g
	perf evlist -g -i pfr$row.data 2>/dev/null | grep -v '^#' >pfr$row.g
	same=1
	[ -s ref$row.f ] && cmp -s ref$row.f pfr$row.f && cmp -s ref$row.g pfr$row.g || same=0
	ok $([ $rc -eq 0 ] && [ $same = 1 ]; echo $?) \
		"record $spec: the attrs perf evlist shows are perf's own ($(wc -l <ref$row.f) events)"
	if [ $same = 0 ] || [ $rc -ne 0 ]; then
		diag <pfr$row.err
		diff ref$row.f pfr$row.f | diag
		diff ref$row.g pfr$row.g | diag
	fi
done <<'EOF'
-e cpu-clock
-F99 -e page-faults
-F 99 -e page-faults
--freq=99 -e page-faults
--freq 99 -e page-faults
--fre=99 -e page-faults
-c 7 -e page-faults,cpu-clock
--count=7 -e page-faults -e cpu-clock
-e page-faults
-e cpu-clock:u
-e cpu-clock:k
-e page-faults:uk
-e cpu-clock:ppp
-e {cpu-clock,page-faults}:u
-e {cpu-clock,page-faults},task-clock
-e cpu-clock/period=1234/
-e task-clock/freq=500/
-F max -e task-clock
-e sched:sched_switch
-F 99 -e sched:sched_switch
-e sched:sched_switch,cpu-clock
-g -e cpu-clock
-gF99 -e cpu-clock
--call-graph=fp -e cpu-clock
--call-graph fp -e cpu-clock
--call-graph dwarf -e cpu-clock
--call-graph=dwarf,4096 -e task-clock
-d -e cpu-clock
-i -e cpu-clock
--no-inherit -e cpu-clock
--all-user -e cpu-clock
--all-kernel -e cpu-clock
-e cs -c 1
EOF

# -m: pages (rounded up to a power of two) or a size.
for m in "8M 8192" "16K 16" "3 16" "4 16" "2m 2048"; do
	set -- $m
	$P record -m "$1" -o m.data -- true 2>m.err
	ok $(grep -q "rings* of $2 KiB" m.err; echo $?) "-m $1: rings of $2 KiB"
done

# -C: only that CPU's samples.
$P record -q -C 0 -F 1000 -o c.data -- taskset -c 0 ./spin 0.3 2>/dev/null
cpus=$(perf script -i c.data -F cpu 2>/dev/null | tr -d ' []' | sort -u | tr '\n' ' ')
n0=$(perf script -i c.data 2>/dev/null | grep -c spin_here)
ok $([ "$cpus" = "000 " ] && [ "$n0" -gt 0 ]; echo $?) \
	"-C 0: samples on CPU 0 only ($cpus), $n0 of them in spin_here"
$P record -q -C 0-99999 -- true 2>/dev/null
ok $([ $? -eq 2 ]; echo $?) "-C with a CPU that is not online: exit 2"

# -p PID -- cmd: the pid is recorded while the command runs, the command
# itself is not.
./spin 3 &
spid=$!
sleep 0.1
$P record -q -F 1000 -p $spid -o p.data -- sleep 0.5 2>p.err
rc=$?
alive=$(kill -0 $spid 2>/dev/null && echo yes)
kill $spid 2>/dev/null
wait $spid 2>/dev/null
pids=$(perf script -i p.data -F pid 2>/dev/null | tr -d ' ' | sort -u | tr '\n' ' ')
ns=$(perf script -i p.data -F pid 2>/dev/null | wc -l)
ok $([ $rc -eq 0 ] && [ "$alive" = yes ] && [ "$pids" = "$spid " ] &&
	[ "$ns" -gt 0 ]; echo $?) \
	"-p $spid -- sleep 0.5: $ns samples of pid $pids, stopped with the command, the process still running"
diag <p.err

# -o -: perf's pipe format, read by perf report -i - and perf script -i -.
$P record -q -F 1000 -o - -- ./spin 0.3 2>pipe.err >pipe.data
ok $? "-o - writes to standard output"
perf report -i - --stdio <pipe.data >pipe.rep 2>pipe.rerr
rc=$?
ok $([ $rc -eq 0 ] && grep -v '^#' pipe.rep | grep -m1 '%' | grep -q spin_here &&
	[ ! -s pipe.rerr ]; echo $?) "perf report -i - reads it without a warning, spin_here on top"
diag <pipe.rerr
n1=$(perf script -i - <pipe.data 2>/dev/null | wc -l)
ok $([ "$n1" -gt 200 ]; echo $?) "perf script -i - lists its $n1 samples"
$P record -q -e sched:sched_switch -o - -- ./pingpong 100 2>/dev/null |
	perf script -i - 2>/dev/null | grep -q 'prev_comm=pingpong'
ok $? "-o - with a tracepoint: perf script decodes its fields (tracing data in the pipe)"

# -u: the user's processes.
su nobody -s /bin/sh -c "$tmp/spin 3" 2>/dev/null &
sleep 0.2
nob=$(pgrep -u nobody -n spin)
$P record -q -F 1000 -u nobody -o u.data -- sleep 0.4 2>u.err
pkill -u nobody -f "$tmp/spin" 2>/dev/null
wait 2>/dev/null
ucomm=$(perf script -i u.data -F comm,pid 2>/dev/null | awk '{ print $1, $2 }' | sort -u | tr '\n' ';')
ok $([ -n "$nob" ] && [ "$ucomm" = "spin $nob;" ]; echo $?) \
	"-u nobody: samples of nobody's spin only ($ucomm pid ${nob:-none})"
diag <u.err

# --filter: the kernel keeps only matching tracepoint hits.
if [ $tracefs = 1 ]; then
	$P record -q -e sched:sched_switch --filter 'prev_comm == "pingpong"' \
		-o f.data -- ./pingpong 500 2>f.err
	other=$(perf script -i f.data 2>/dev/null | grep -vc 'prev_comm=pingpong')
	all=$(perf script -i f.data 2>/dev/null | wc -l)
	ok $([ "$all" -gt 100 ] && [ "$other" -eq 0 ]; echo $?) \
		"--filter 'prev_comm == \"pingpong\"': $all switches, $other of other tasks"
	$P record -q -e cpu-clock --filter 'x == 1' -- true 2>/dev/null
	ok $([ $? -eq 2 ]; echo $?) "--filter after a non-tracepoint event: exit 2"
fi

# -G: only the cgroup's tasks (in the cgroup2 hierarchy, where every
# cgroup can be followed by perf events).
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
v1=$(awk '$3 == "cgroup" && $4 ~ /perf_event/ { print $2; exit }' /proc/self/mounts)
[ -n "$v1" ] && root=$v1
cg=$root/pfr-test-$$
if [ -n "$root" ] && mkdir "$cg" 2>/dev/null; then
	sh -c "echo \$\$ >$cg/cgroup.procs && exec $tmp/spin 2" &
	gpid=$!
	./spin 2 &
	opid=$!
	sleep 0.2
	$P record -q -a -G pfr-test-$$ -F 1000 -o g.data -- sleep 0.5 2>g.err
	rc=$?
	kill $gpid $opid 2>/dev/null
	wait $gpid $opid 2>/dev/null
	rmdir "$cg" 2>/dev/null
	gp=$(perf script -i g.data -F pid 2>/dev/null | tr -d ' ' | sort -u | tr '\n' ' ')
	ok $([ $rc -eq 0 ] && [ "$gp" = "$gpid " ]; echo $?) \
		"-a -G cgroup: samples of the cgroup's task only ($gp; want $gpid, not $opid)"
	diag <g.err
else
	skip "no cgroup hierarchy to create a cgroup in" "-G"
fi
$P record -G foo -- true 2>/dev/null
ok $([ $? -eq 2 ]; echo $?) "-G without -a: exit 2"

# No equivalent: one line, exit 2.
for o in "--off-cpu" "--call-graph=lbr" "-s" \
	"--per-thread" "-b"; do
	# shellcheck disable=SC2086
	$P record $o -- true 2>ne.err >/dev/null
	rc=$?
	ok $([ $rc -eq 2 ] && [ "$(wc -l <ne.err)" -eq 1 ] &&
		grep -q "no equivalent in perfring" ne.err; echo $?) \
		"$o: '$(cat ne.err)' (exit $rc)"
done
for bad in "--fre" "--no-such" "-Q" "-e {cpu-clock" "-e cpu-clock:x" \
	"-e cpu-clock/period=/" "-m 8X" "-F" "-F0" "-ca"; do
	# shellcheck disable=SC2086
	$P record $bad -- true >/dev/null 2>&1
	rc=$?
	ok $([ $rc -eq 2 ] || [ $rc -eq 4 ]; echo $?) "record $bad: refused (exit $rc)"
done
tap_done
