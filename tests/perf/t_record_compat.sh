#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's everyday invocations through perfring record: each one in
# the table either records a file that perf report and perf script read
# (exit 0, no warning), or is refused with the one-line "no equivalent"
# message (exit 2).  Nothing perf accepts may be an "unknown option".
# make check runs 36 of the 62 invocations and the 22 refusals;
# long_record_compat.sh (make check-long) all of them.
# Then what a perf user relies on: `perfring record -- CMD; perf report`
# with no options (./perf.data, mode 0600, the old one kept as
# perf.data.old), and the options whose effect the file shows (-C, globs,
# the cycles fallback, dummy:HG and perf's records on -a, -z, -B, -k,
# --switch-output, --max-size, -D).
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
build_spin
cd "$tmp" || exit 1
S="$tmp/spin"

# A file perf reads: perf script (every record parsed; and perf report
# with REPORT=1) exits 0, without a warning or an error on stderr.
perf_reads() { # FILE
	: >rep.err
	perf script -i "$1" >scr.out 2>scr.err &&
		{ [ -z "${REPORT:-}" ] ||
			perf report --stdio -i "$1" >rep.out 2>rep.err; } &&
		! grep -Eiq 'warn|error|corrupt|invalid|unknown|not supported' \
			rep.err scr.err
}

# Records with the options in a directory of its own, two at a time (the
# results are read in order at the end); ok when perf reads the file.
nw=0
works() { # DESC OPTIONS... -- CMD
	local desc=$1
	shift
	nw=$((nw + 1))
	mkdir "w$nw" && printf '%s\n' "$desc" >"w$nw/desc"
	(
		cd "w$nw" || exit 1
		if "$P" record -q -o c.data "$@" >rec.out 2>rec.err &&
			[ -s c.data ] && perf_reads c.data; then
			echo 0 >rc
		else
			echo 1 >rc
		fi
	) &
	while [ "$(jobs -rp | wc -l)" -gt 2 ]; do
		wait -n
	done
}
# The rest of the list only in make check-long (long_record_compat.sh).
works_long() {
	[ -n "${PFR_COMPAT_ALL:-}" ] && works "$@"
}
works_results() {
	wait_for_works
	for ((i = 1; i <= nw; i++)); do
		if [ "$(cat "w$i/rc" 2>/dev/null)" = 0 ]; then
			pass "works: perfring record $(cat "w$i/desc")"
		else
			fail "works: perfring record $(cat "w$i/desc")" "w$i/rec.err"
			cat "w$i/scr.err" "w$i/rep.err" 2>/dev/null | head -n 5 | diag
		fi
	done
}

# Refused: exit 2, one line, "no equivalent".
refused() { # OPTIONS...
	"$P" record "$@" -- true >rec.out 2>rec.err
	local rc=$?
	ok $([ $rc -eq 2 ] && [ "$(wc -l <rec.err)" -eq 1 ] &&
		grep -q 'no equivalent in perfring' rec.err; echo $?) \
		"refused: perfring record $*: '$(head -c 150 rec.err)' (exit $rc)"
}

sleep 600 &
bg=$!
wait_for_works() { # every works job, not the background sleep
	while [ "$(jobs -rp | grep -cvx "$bg")" -gt 0 ]; do
		wait -n
	done
}
REPORT=1 works "(defaults)" -- "$S" 0.05
works "-F 99" -F 99 -- true
works_long "-F max" -F max -- true
works "-c 100000" -c 100000 -- "$S" 0.02
works "-e cpu-clock" -e cpu-clock -- true
works "-e task-clock" -e task-clock -- "$S" 0.02
works "-e cycles" -e cycles -- "$S" 0.02
works_long "-e cycles:u" -e cycles:u -- true
works_long "-e cpu-clock,task-clock" -e cpu-clock,task-clock -- true
works "-e '{cpu-clock,task-clock}'" -e '{cpu-clock,task-clock}' -- true
works "-e page-faults -c 1" -e page-faults -c 1 -- true
REPORT=1 works "-e sched:sched_switch -a" -e sched:sched_switch -a -- sleep 0.02
works "-e 'sched:sched_process_*'" -e 'sched:sched_process_*' -- true
works "-e 'syscalls:sys_enter_open*'" -e 'syscalls:sys_enter_open*' -- true
works "-g" -g -- "$S" 0.02
works "--call-graph fp" --call-graph fp -- true
REPORT=1 works "--call-graph dwarf" --call-graph dwarf -- "$S" 0.02
works_long "--call-graph=dwarf,4096" --call-graph=dwarf,4096 -- true
REPORT=1 works "-a" -a -- sleep 0.02
works_long "-ag" -ag -- sleep 0.02
works "-C 0" -C 0 -- sleep 0.02
works "-p PID" -p $bg -- sleep 0.02
works "-t TID" -t $bg -- sleep 0.02
works "-m 16" -m 16 -- true
works_long "-m 1M" -m 1M -- true
works "-i" -i -- true
works_long "--no-inherit" --no-inherit -- true
works "-d" -d -- true
works_long "-R" -R -- true
works "--all-user" --all-user -- true
works_long "--all-kernel" --all-kernel -- true
works "-B" -B -- true
works_long "--no-buildid" --no-buildid -- true
works_long "-N" -N -- true
works "-k mono" -k mono -- true
works_long "--clockid=monotonic_raw" --clockid=monotonic_raw -- true
works "-D 10" -D 10 -- "$S" 0.05
works_long "--delay=10" --delay=10 -- true
works "--max-size=1M" --max-size=1M -- true
REPORT=1 works "-z" -z -- "$S" 0.02
works_long "--compression-level=3" --compression-level=3 -- true
works "--switch-events" --switch-events -- true
works_long "-T" -T -- true
works_long "-P" -P -- true
works_long "--sample-cpu" --sample-cpu -- true
works_long "--sample-identifier" --sample-identifier -- true
works "--strict-freq" --strict-freq -F 99 -- true
works_long "-v" -v -- true
works "--group -e cpu-clock,task-clock" --group -e cpu-clock,task-clock -- true
works "--overwrite" --overwrite -- true
works "-a -e sched:sched_switch --filter 'prev_pid != 0'" -a \
	-e sched:sched_switch --filter 'prev_pid != 0' -- sleep 0.02
works "-a -e sched:sched_switch --exclude-perf" -a -e sched:sched_switch \
	--exclude-perf -- sleep 0.02
works "-g --user-callchains" -g --user-callchains -- true
works_long "-g --kernel-callchains" -g --kernel-callchains -- true
works "--no-bpf-event" --no-bpf-event -- true
works "-r 1" -r 1 -- true
works_long "--mmap-flush=1" --mmap-flush=1 -- true
works_long "--affinity=cpu" --affinity=cpu -- true
works_long "--proc-map-timeout 500" --proc-map-timeout 500 -- true
works_long "--num-thread-synthesize=2" --num-thread-synthesize=2 -- true
works_long "--tail-synthesize" --tail-synthesize -- true
works_long "--no-buffering" --no-buffering -- true
works_results
kill $bg 2>/dev/null
wait $bg 2>/dev/null

for o in -I --intr-regs=ax -b "-j any" -W --per-thread --off-cpu \
	--namespaces --all-cgroups --kcore --aio -S -s -n --transaction \
	--phys-data --running-time --synth=no --buildid-all \
	"--switch-output-event=sched:sched_switch" "--control=fd:3"; do
	# shellcheck disable=SC2086
	refused $o
done

# perf's pipe format, and --dry-run.
"$P" record -q -o - -- true 2>/dev/null | perf report --stdio -i - >rep.out 2>rep.err
ok $? "works: perfring record -o - | perf report -i -"
rm -f perf.data
"$P" record -q --dry-run -- true
ok $([ $? -eq 0 ] && [ ! -e perf.data ]; echo $?) "--dry-run: exit 0, no file"

# What a perf user types: no -o, then perf report with no option.
mkdir d && cd d || exit 1
"$P" record -q -- "$S" 0.05 >rec.out 2>rec.err
mode=$(stat -c %a perf.data 2>/dev/null)
ok $([ "$mode" = 600 ] && [ ! -s rec.out ]; echo $?) \
	"record -- CMD writes ./perf.data, mode $mode (perf: 600), nothing on stdout"
perf report </dev/null >rep.out 2>rep.err
ok $([ $? -eq 0 ] && grep -q spin_here rep.out; echo $?) \
	"then 'perf report' with no option reads it (spin_here listed)"
"$P" record -q -- true
ok $([ -s perf.data.old ] && [ -e perf.data ]; echo $?) \
	"the next recording keeps the previous one as perf.data.old"
"$P" record -q --stream -- "$S" 0.02 >st.out 2>/dev/null
ok $(grep -q 'cpu-clock:.*spin_here' st.out; echo $?) \
	"--stream prints the records in perf script's shape"
cd .. || exit 1

# What the options change in the file.
"$P" record -q -C 0 -o c0.data -- sleep 0.3
perf script -i c0.data -F cpu 2>/dev/null | tr -d ' ' | sort -u >c0.cpus
ok $([ "$(cat c0.cpus)" = "[000]" ]; echo $?) \
	"-C 0 -- sleep: every task on CPU 0 ($(wc -l < <(perf script -i c0.data 2>/dev/null)) samples, CPUs: $(tr '\n' ' ' <c0.cpus))"
"$P" record -q -e 'sched:sched_process_*' -o g.data -- true
n=$(perf evlist -i g.data 2>/dev/null | grep -c '^sched:sched_process_')
ok $([ "$n" -ge 4 ]; echo $?) "-e 'sched:sched_process_*': $n tracepoints"
"$P" record -e cycles -o cy.data -- true 2>cy.err
ev=$(perf evlist -i cy.data 2>/dev/null | head -n1)
if perf stat -e cycles true >/dev/null 2>&1 &&
	! perf stat -e cycles true 2>&1 | grep -q 'not supported'; then
	ok $([ "$ev" = cycles ]; echo $?) "-e cycles with a PMU: $ev"
else
	ok $([ "$ev" = cpu-clock ] && grep -q 'falls back' cy.err; echo $?) \
		"-e cycles without a PMU: recorded as $ev, with a warning"
fi
"$P" record -q -a -o a.data -- sleep 0.05
perf evlist -v -i a.data >a.ev 2>/dev/null
grep -q '^dummy:HG: .*ksymbol: 1, bpf_event: 1' a.ev
ok $? "-a: perf's dummy:HG tracking event with ksymbol and bpf_event"
perf report -D -i a.data 2>/dev/null |
	grep -Eo 'PERF_RECORD_(ID_INDEX|THREAD_MAP|CPU_MAP|FINISHED_ROUND|FINISHED_INIT)' |
	sort -u >a.recs
ok $([ "$(wc -l <a.recs)" -eq 5 ]; echo $?) \
	"-a: ID_INDEX, THREAD_MAP, CPU_MAP, FINISHED_INIT, FINISHED_ROUND ($(tr '\n' ' ' <a.recs))"
"$P" record -q -z -a -o z.data -- sleep 0.05
perf report --header-only -i z.data 2>/dev/null | grep -q '^# compressed : Zstd, level = 1'
ok $? "-z: perf's COMPRESSED feature (zstd, level 1)"
zs=$(perf script -i z.data 2>/dev/null | wc -l)
ok $([ "$zs" -gt 0 ]; echo $?) "-z: perf script decompresses $zs samples"
"$P" record -q -B -o b.data -- "$S" 0.02
perf report --header-only -i b.data 2>/dev/null |
	grep -q '^# missing features:.* BUILD_ID '
ok $? "-B: no BUILD_ID feature in the file (perf's -B neither)"
"$P" record -q -k mono -o k.data -- true
perf evlist -v -i k.data 2>/dev/null | grep 'use_clockid: 1' |
	grep -q 'clockid: 1$'
ok $? "-k mono: use_clockid and CLOCK_MONOTONIC in the attr"
mkdir sw && cd sw || exit 1
"$P" record -q --switch-output -a -- sleep 0.6 2>sw.err &
rp=$!
sleep 0.3
kill -USR2 $rp
wait $rp
n=0
for f in perf.data.[0-9]*; do
	[ -e "$f" ] && perf_reads "$f" && n=$((n + 1))
done
ok $([ $n -eq 2 ] && [ ! -e perf.data ]; echo $?) \
	"--switch-output, SIGUSR2 once: $n time-stamped files perf reads"
cd .. || exit 1
# --max-size: perf stops once the data written passes the size (checked
# after each write: one round of records past it at most).
"$P" record -q -a -F 20000 -m 16 --max-size=1M -o ms.data -- sleep 3 2>ms.err
sz=$(stat -c %s ms.data)
ok $([ "$sz" -gt $((1024 * 1024)) ] && [ "$sz" -lt $((2 * 1024 * 1024)) ] &&
	grep -q 'size limit reached' ms.err && perf_reads ms.data; echo $?) \
	"--max-size=1M: stopped at $sz bytes, perf reads the file"
tap_done
