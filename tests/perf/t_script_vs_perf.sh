#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring script against perf script, line for line: the same files
# (recorded by perf record and by perfring record: a C++ program with an
# inlined function and a template, with no call chain, with -g, with
# --call-graph dwarf, and sched tracepoints system-wide, also as perf's
# pipe stream, and compressed with -z: PERF_RECORD_COMPRESSED, zstd), the
# same options (-F field sets, per-type -F, +/- edits,
# --ns, --reltime, -G, --time windows, --tid, --pid, --comms, -C,
# --show-task-events, --show-mmap-events, --header-only, -D), the same
# output.  The differences docs/script.md lists are normalised away
# first, and only those: the name perf's addr2line gives an assembly
# function's frame (glibc's syscall wrappers), and -D's per-record
# detail after the hex dump.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
command -v g++ >/dev/null || skip_all "g++ is missing"
cd "$tmp" || exit 1

cat >box.cc <<'EOC'
#include <cstdio>
#include <cstdlib>
namespace ns {
template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T work(int n);
};
static inline double inner(double x, int i) { return x * 1.0000001 + i; }
template <typename T> T Box<T>::work(int n)
{
	T s = v;
	for (int i = 0; i < n; i++)
		s = inner(s, i);
	return s;
}
} // namespace ns
__attribute__((noinline)) static double outer(int n)
{
	ns::Box<double> b{1.0};
	double s = 0;
	for (int k = 0; k < 40; k++)
		s += b.work(n);
	return s;
}
int main(int argc, char **argv)
{
	std::printf("%g\n", outer(argc > 1 ? std::atoi(argv[1]) : 4000000));
	return 0;
}
EOC
g++ -g -O2 -fno-omit-frame-pointer -o box box.cc
ok $? "a C++ program with a template and an inlined function builds"
nm box | grep -q _ZN2ns3BoxIdE4workEi
ok $? "its symbols are mangled (_ZN2ns3BoxIdE4workEi)"

# Each recording: NAME then the command that writes NAME.data.
rec() {
	local name=$1
	shift
	"$@" >"$name.rec.out" 2>&1
	ok $? "recorded $name ($*)"
	diag <"$name.rec.out"
}
rec perf_cpu perf record -o perf_cpu.data -F 1000 ./box
rec perf_fp perf record -o perf_fp.data -g -F 1000 ./box
rec perf_dwarf perf record -o perf_dwarf.data --call-graph dwarf -F 500 ./box
rec perf_tp perf record -o perf_tp.data -e sched:sched_switch \
	-e sched:sched_process_exec -a -- sleep 0.2
rec pfr_cpu "$P" record -q -o pfr_cpu.data -- ./box
rec pfr_dwarf "$P" record -q -o pfr_dwarf.data --call-graph dwarf -F 500 \
	-- ./box
rec pfr_tp "$P" record -q -o pfr_tp.data -e sched:sched_switch -a \
	-- sleep 0.2
perf record -q -o - -e sched:sched_switch -a -- sleep 0.2 >perf_pipe.data \
	2>/dev/null
ok $? "recorded perf_pipe (perf record -o - -e sched:sched_switch -a)"
rec perf_z perf record -z -o perf_z.data -g -F 1000 ./box
rec pfr_z "$P" record -q -z -o pfr_z.data -g -F 1000 -- ./box
rec pfr_ztp "$P" record -q -z -o pfr_ztp.data -e sched:sched_switch -a \
	-- sleep 0.2
perf record -q -z -o - -e sched:sched_switch -a -- sleep 0.2 \
	>perf_zpipe.data 2>/dev/null
ok $? "recorded perf_zpipe (perf record -z -o - -e sched:sched_switch -a)"

# The documented differences, made equal on both sides (docs/script.md).
norm() {
	sed -E '/\(inlined\)$/s/ (__GI_)?_*([A-Za-z])/ \2/' "$1"
}

# same FILE OPTIONS...: the two outputs, normalised, are identical.
nsame=0
same() {
	local f=$1 rp rf
	shift
	"$P" script -i "$f" "$@" >a.out 2>a.err
	rp=$?
	perf script -i "$f" "$@" >b.out 2>b.err
	rf=$?
	if [ $rp -eq 0 ] && [ $rf -eq 0 ] && [ -s b.out ] &&
		cmp -s <(norm a.out) <(norm b.out); then
		nsame=$((nsame + 1))
		pass "$f $*: the same $(wc -l <b.out) lines as perf script"
	else
		fail "$f $*: perfring (exit $rp) and perf (exit $rf) differ"
		diff <(norm a.out) <(norm b.out) | head -20 | diag
		diag <a.err
	fi
}

same perf_cpu.data
same perf_cpu.data -F comm,tid,time,ip,sym
same perf_cpu.data --show-task-events --show-mmap-events
same perf_fp.data
same perf_fp.data -F +pid,-period --ns
same perf_fp.data --reltime -G
for f in perf_dwarf pfr_dwarf; do
	same $f.data
	same $f.data -F sw:comm,tid,ip,sym,symoff,dso
	same $f.data -F ip,sym
	same $f.data --comms box
	same $f.data --show-task-events --show-mmap-events
done
same pfr_cpu.data
same pfr_cpu.data -F -time,+pid
same pfr_cpu.data -G --ns
for f in perf_tp pfr_tp; do
	same $f.data
	same $f.data -F trace:comm,tid,event,trace
	same $f.data -F tid,time,period
	tid=$(perf script -i $f.data -F tid 2>/dev/null | sed -n 5p | tr -d ' ')
	same $f.data --tid "$tid"
	t1=$(perf script -i $f.data -F time 2>/dev/null | sed -n 10p | tr -d ' :')
	t2=$(perf script -i $f.data -F time 2>/dev/null | sed -n 40p | tr -d ' :')
	same $f.data --time "$t1,$t2"
done
t1=$(perf script -i perf_tp.data -F time 2>/dev/null | sed -n 10p | tr -d ' :')
t2=$(perf script -i perf_tp.data -F time 2>/dev/null | sed -n 40p | tr -d ' :')
tid=$(perf script -i perf_tp.data -F tid 2>/dev/null | sed -n 5p | tr -d ' ')
same perf_tp.data -F comm,cpu,event
same perf_tp.data -C 0
same perf_tp.data --show-task-events
pid=$(perf script -i perf_tp.data -F pid 2>/dev/null | sed -n 5p | tr -d ' ')
same perf_tp.data --pid "$pid"
same perf_tp.data --time "$t1,"
same perf_tp.data --time ",$t2"
# -z: the records decompressed (zstd), as perf script does.
for f in perf_z pfr_z; do
	same $f.data
	same $f.data -F comm,tid,time,ip,sym --show-task-events
done
same pfr_ztp.data
same pfr_ztp.data -F trace:comm,tid,event,trace
same perf_dwarf.data --header-only
same perf_tp.data --header-only
same pfr_dwarf.data --header-only

# perf's pipe stream from standard input: tracepoint fields decoded.
"$P" script -i - <perf_pipe.data >a.out 2>a.err &&
	perf script -i perf_pipe.data >b.out 2>/dev/null && [ -s b.out ] &&
	cmp -s a.out b.out
ok $? "script -i - of perf's pipe stream: the same $(wc -l <b.out) lines"
grep -q 'prev_comm=.*==> next_comm=' a.out
ok $? "... with sched_switch's fields decoded"

# ... compressed (-z) too.
"$P" script -i - <perf_zpipe.data >a.out 2>a.err &&
	perf script -i perf_zpipe.data >b.out 2>/dev/null && [ -s b.out ] &&
	cmp -s a.out b.out
ok $? "script -i - of perf's compressed pipe stream: the same $(wc -l <b.out) lines"

# -D: the hex dumps, in perf's order (its own records as read, the
# kernel's in time order).
hex='^(\.$|\. \.\.\. raw|\.  [0-9a-f]{4}: |0x[0-9a-f]+@)'
for f in perf_dwarf pfr_tp; do
	"$P" script -D -i $f.data | grep -E "$hex" >a.out
	perf script -D -i $f.data 2>/dev/null | grep -E "$hex" >b.out
	[ -s b.out ] && cmp -s a.out b.out
	ok $? "$f -D: the same $(wc -l <b.out) hex-dump lines as perf"
done

# What perf shows for the C++ program, perfring shows too.
"$P" script -i perf_dwarf.data >a.out 2>/dev/null
grep -q 'ns::Box<double>::work+0x' a.out
ok $? "a C++ symbol demangled as perf does (ns::Box<double>::work)"
grep -q '(inlined)$' a.out && grep -q ' outer+0x' a.out &&
	grep -q ' main+0x' a.out
ok $? "DWARF stacks unwound: outer, main and inlined frames"
# perfring record's own output decodes tracepoints too (this machine's
# formats), as text and as JSON.
"$P" record --stream -e sched:sched_switch -a -- sleep 0.1 >rec.txt 2>/dev/null
grep -q 'sched:sched_switch: prev_comm=.* ==> next_comm=' rec.txt
ok $? "record's streaming text: sched_switch's fields decoded"
"$P" record --json -e sched:sched_switch -a -- sleep 0.1 >rec.json \
	2>/dev/null
grep -q '"fields":{"prev_comm":' rec.json
ok $? "record --json: sched_switch's fields decoded"
[ $nsame -ge 35 ]
ok $? "$nsame option sets identical to perf script"
tap_done
