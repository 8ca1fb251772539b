#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf record's everyday invocations through perfring record: each one in
# the table either records a file that perf report and perf script read
# (exit 0, no warning), or is refused with the one-line "no equivalent"
# message (exit 2).  Nothing perf accepts may be an "unknown option".
# make check runs 37 of the 63 invocations and the 21 refusals;
# long_record_compat.sh (make check-long) all of them.
# Then what a perf user relies on: `perfring record -- CMD; perf report`
# with no options (./perf.data, mode 0600, the old one kept as
# perf.data.old), and the options whose effect the file shows (-C, globs,
# the cycles fallback, dummy:HG and perf's records on -a, -z, -B, -k,
# --switch-output, --max-size, -D), and perf's --no-NAME negations of
# record's and script's options.
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
works "-a -F 99 --call-graph dwarf" -a -F 99 --call-graph dwarf -- sleep 0.02
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
works_long "--buildid-all" --buildid-all -- true
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
	--phys-data --running-time --synth=no \
	"--switch-output-event=sched:sched_switch" "--control=fd:3"; do
	# shellcheck disable=SC2086
	refused $o
done

# perf's negations (--no-NAME, and --NAME of a --no-NAME option): perf
# 6.1's parse-options takes one for every long option of record and
# script.  Each is taken (its default back, or "without it") or refused
# in one line; none is an unknown option.
negs_rec="no-affinity no-aio no-all-cgroups no-all-cpus no-all-kernel
no-all-user no-aux-sample no-branch-any no-branch-filter no-buildid-all
no-buildid-mmap no-call-graph no-cgroup no-clang-opt no-clang-path
no-clockid no-code-page-size no-compression-level no-control no-count
no-cpu no-data no-data-page-size no-debuginfod no-delay no-dry-run
no-event no-exclude-perf no-filter no-freq no-group no-intr-regs
no-kcore no-kernel-callchains no-max-size no-mmap-flush no-mmap-pages
no-namespaces bpf-event buffering buildid buildid-cache inherit samples
no-num-thread-synthesize no-off-cpu no-output no-overwrite
no-per-thread no-period no-phys-data no-pid no-proc-map-timeout
no-quiet no-raw-samples no-realtime no-running-time no-sample-cpu
no-sample-identifier no-snapshot no-stat no-strict-freq
no-switch-events no-switch-max-files no-switch-output
no-switch-output-event no-synth no-tail-synthesize no-threads no-tid
no-timestamp no-timestamp-boundary no-timestamp-filename
no-transaction no-uid no-user-callchains no-user-regs no-verbose
no-vmlinux no-weight"
bad=""
nn=0
for n in $negs_rec; do
	nn=$((nn + 1))
	"$P" record --dry-run -q "--$n" -- true >neg.out 2>neg.err
	rc=$?
	{ [ $rc -eq 0 ] && [ ! -s neg.err ]; } ||
		{ [ $rc -eq 2 ] && [ "$(wc -l <neg.err)" -eq 1 ] &&
			grep -q 'no equivalent in perfring' neg.err; } ||
		bad="$bad --$n"
done
ok $([ -z "$bad" ]; echo $?) \
	"record: perf's $nn negations taken or refused in one line${bad:+; not:$bad}"
negs_scr="no-addr-range no-all-cpus no-call-ret-trace no-call-trace
no-comms no-cpu no-debug-mode no-deltatime no-demangle
no-demangle-kernel no-dlarg no-dlfilter no-dsos no-dump-raw-trace
no-dump-unsorted-raw-trace no-fields no-force no-full-source-path
no-gen-script no-graph-function no-guest-code no-guestkallsyms
no-guestmodules no-guestmount no-guestvmlinux no-header no-header-only
no-hide-call-graph no-inline no-input no-insn-trace no-itrace
no-kallsyms no-list no-list-dlfilters no-max-blocks no-max-stack no-ns
no-per-event-dump no-pid no-reltime no-script no-show-bpf-events
no-show-cgroup-events no-show-info no-show-kernel-path
no-show-lost-events no-show-mmap-events no-show-namespace-events
no-show-on-off-events no-show-round-events no-show-switch-events
no-show-task-events no-show-text-poke-events no-stitch-lbr no-stop-bt
no-switch-off no-switch-on no-symfs no-tid no-time no-verbose
no-vmlinux no-xed"
"$P" record -q -o s.data -- "$S" 0.02 2>/dev/null
"$P" script -i s.data >s.ref 2>/dev/null
bad=""
nn=0
for n in $negs_scr; do
	nn=$((nn + 1))
	"$P" script -i s.data "--$n" >neg.out 2>neg.err
	rc=$?
	case $n in
	no-input) ;; # ./perf.data: none here
	*)
		{ [ $rc -eq 0 ] && [ ! -s neg.err ] && cmp -s neg.out s.ref; } ||
			{ [ $rc -eq 2 ] && [ "$(wc -l <neg.err)" -eq 1 ] &&
				grep -q 'no equivalent in perfring' neg.err; } ||
			bad="$bad --$n"
		;;
	esac
done
ok $([ -z "$bad" ]; echo $?) \
	"script: perf's $nn negations give the default output or are refused in one line${bad:+; not:$bad}"
# ... with perf's meaning: the option back to its default.
"$P" record -q -B --buildid -o nb.data -- true
perf report --header-only -i nb.data 2>/dev/null |
	grep -q '^# missing features:.* BUILD_ID '
ok $([ $? -ne 0 ]; echo $?) "-B --buildid: build ids in the file again"
"$P" record -q --no-inherit --inherit -o ni.data -- true
perf evlist -v -i ni.data 2>/dev/null | grep -q 'inherit: 1'
ok $? "--no-inherit --inherit: inherit: 1 in the attr"
"$P" record -q -g --no-call-graph -o ng.data -- true
perf evlist -v -i ng.data 2>/dev/null | grep -q 'CALLCHAIN'
ok $([ $? -ne 0 ]; echo $?) "-g --no-call-graph: no call chains sampled"
"$P" record -q -z --no-compression-level -o nz.data -- true
perf report --header-only -i nz.data 2>/dev/null | grep -q '^# compressed'
ok $([ $? -ne 0 ]; echo $?) "-z --no-compression-level: not compressed"
"$P" script -i s.data --show-task-events --no-show-task-events >neg.out 2>&1
cmp -s neg.out s.ref
ok $? "script --show-task-events --no-show-task-events: samples only"
"$P" script -i s.data --header --no-header >neg.out 2>&1
cmp -s neg.out s.ref
ok $? "script --header --no-header: no header"

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
# BPF programs loaded at the start: KSYMBOL and BPF_EVENT records and the
# BPF_PROG_INFO feature, as perf writes them (a socket filter of two
# instructions, loaded by this test, is one; where bpf() is refused there
# is none to describe).
cat >bpfload.c <<'EOC'
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	struct bpf_insn insn[2] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K},
		{.code = BPF_JMP | BPF_EXIT},
	};
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	a.insns = (unsigned long)insn;
	a.insn_cnt = 2;
	a.license = (unsigned long)"MIT";
	strcpy(a.prog_name, "pfr_compat");
	fd = (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0)
		return 1;
	puts("loaded");
	fflush(stdout);
	sleep(5);
	return 0;
}
EOC
if cc -o bpfload bpfload.c 2>/dev/null && { ./bpfload >bpf.out & bp=$!; } &&
	sleep 0.5 && grep -q loaded bpf.out; then
	"$P" record -q -a -o bpf.data -- sleep 0.05
	perf record -q -a -o bpfp.data -- sleep 0.05 2>/dev/null
	"$P" record -q -a --no-bpf-event -o nbpf.data -- sleep 0.05
	kill $bp 2>/dev/null
	wait $bp 2>/dev/null
	for f in bpf bpfp; do
		perf report --header-only -I -i $f.data 2>/dev/null |
			grep -o '^# bpf_prog_info [0-9]*: bpf_prog_[0-9a-f]*_pfr_compat addr 0x[0-9a-f]* size [0-9]*' >$f.info
		perf report -D -i $f.data 2>/dev/null |
			grep -Eo 'PERF_RECORD_(KSYMBOL .*pfr_compat|BPF_EVENT type 1, flags 0, id [0-9]+)' |
			sort -u >$f.recs
	done
	ok $([ -s bpf.info ] && cmp -s bpf.info bpfp.info &&
		[ "$(wc -l <bpf.recs)" -ge 2 ] && cmp -s bpf.recs bpfp.recs; echo $?) \
		"a BPF program loaded: BPF_PROG_INFO, KSYMBOL and BPF_EVENT as perf writes them ($(cat bpf.info))"
	perf report -D -i nbpf.data 2>/dev/null | grep -q 'PERF_RECORD_KSYMBOL'
	ok $([ $? -ne 0 ]; echo $?) "--no-bpf-event: no KSYMBOL records"
else
	skip "no BPF program can be loaded here (bpf() refused)" \
		"a BPF program loaded: BPF_PROG_INFO, KSYMBOL and BPF_EVENT"
fi
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
