#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `perfring record -o -` writes perf's pipe format; perfring script reads
# it back, from the file (-i FILE) and from standard input (-i -), and
# prints the same sample lines as perf script of that file.  A recording
# of the same workload to a normal file prints sample lines of the same
# shape (the same events, the same columns).  perf's own pipe stream
# reads the same way, and a tracepoint's fields are decoded from the
# stream's tracing data (from a file).  A truncated stream is an
# error or a shorter listing, never a crash.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
cd "$tmp" || exit 1


"$P" record -q -o - -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
	>pipe.data 2>rec.err
ok $? "record -o - into a file"
ok $([ "$(head -c 8 pipe.data)" = PERFILE2 ]; echo $?) "it starts PERFILE2"

"$P" script -i pipe.data --samples >file.pfr 2>file.err
ok $? "perfring script -i FILE of the pipe stream exits 0"
ok $([ ! -s file.err ]; echo $?) "nothing on stderr"
diag <file.err
"$P" script -i - --samples <pipe.data >stdin.pfr 2>stdin.err
ok $? "perfring script -i - (a redirected file) exits 0"
cat pipe.data | "$P" script -i - --samples >cat.pfr 2>cat.err
ok $? "perfring script -i - (a pipe) exits 0"
diag <cat.err
perf script -i pipe.data >perf.out 2>/dev/null
n=$(wc -l <perf.out)
ok $([ "$n" -gt 0 ]; echo $?) "perf script prints $n sample lines"
diff perf.out file.pfr | head -20 | diag
ok $(cmp -s perf.out file.pfr; echo $?) "-i FILE: the same lines as perf script"
ok $(cmp -s perf.out stdin.pfr; echo $?) "-i - <FILE: the same lines"
ok $(cmp -s perf.out cat.pfr; echo $?) "... | -i -: the same lines"

# The same workload to a normal file: the same shape of sample lines.
"$P" record -q -o file.data -- sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
	>/dev/null 2>&1
ok $? "record -o file.data"
"$P" script -i file.data --samples >normal.pfr 2>/dev/null
# shape FILE: each sample line's event name and number of columns
shape() {
	awk '{ for (i = 4; i <= NF; i++) if ($i ~ /^[a-z][-a-z_:]*:$/) {
		print $i, NF; break } }' "$1" | sort -u
}
m=$(wc -l <normal.pfr)
ok $([ "$m" -gt 0 ]; echo $?) "the normal file prints $m sample lines"
ok $([ "$(shape normal.pfr)" = "$(shape file.pfr)" ]; echo $?) \
	"the same events in both ($(shape file.pfr | tr '\n' ' '))"

# perf's own pipe stream, read from standard input.
perf record -q -o - -- sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done' \
	>perfpipe.data 2>/dev/null
ok $? "perf record -o -"
"$P" script -i - --samples <perfpipe.data >pp.pfr 2>pp.err
ok $? "perfring script -i - of perf's stream exits 0"
diag <pp.err
perf script -i perfpipe.data >pp.perf 2>/dev/null
ok $([ -s pp.perf ] && cmp -s pp.perf pp.pfr; echo $?) \
	"the same lines as perf script ($(wc -l <pp.perf) lines)"

# Tracepoint fields from the stream's HEADER_TRACING_DATA (-i FILE).
"$P" record -q -e sched:sched_switch -a -o - -- sleep 0.2 >tp.data 2>/dev/null
ok $? "record -e sched:sched_switch -a -o -"
"$P" script -i tp.data --samples >tp.pfr 2>tp.err
perf script -i tp.data >tp.perf 2>/dev/null
ok $(grep -q 'prev_comm=' tp.pfr; echo $?) "sched_switch fields decoded"
ok $(cmp -s tp.perf tp.pfr; echo $?) \
	"the same lines as perf script ($(wc -l <tp.pfr) lines)"
diff tp.perf tp.pfr | head -10 | diag

# Truncated streams: an error or a shorter listing, never a crash.
sz=$(stat -c %s pipe.data)
bad=0
for cut in 0 8 16 40 100 $((sz / 3)) $((sz / 2)) $((sz - 7)); do
	head -c "$cut" pipe.data | "$P" script -i - --samples >cut.out 2>&1
	rc=$?
	[ "$rc" -le 1 ] || { bad=1; diag "cut at $cut: exit $rc"; }
done
ok $bad "truncated streams exit 0 or 1, never a signal"
tap_done
