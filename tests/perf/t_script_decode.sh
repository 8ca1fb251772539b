#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `perfring script` prints what Debian's `perf script -i` prints for the
# same file: tracepoint fields decoded from the formats the file stores
# (libtraceevent), call chain and sample symbols (libelf/libdw), in perf
# script's default line shape - compared line by line on perfring's own
# files and on perf's; --json holds the decoded fields and the frames'
# symbols.  A file whose stored format puts a field out of the sample is
# printed without that event's fields, never read out of bounds.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
cd "$tmp" || exit 1

# A busy loop with known functions: main -> middle -> leaf.  Frame
# pointers, so that -g (fp) chains are whole.
cat >busy.c <<'EOC'
#include <stdlib.h>
#include <unistd.h>
volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) void middle(unsigned long n)
{
	leaf(n);
	leaf(n / 2);
}
int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], 0, 0) : 30000000;

	for (int k = 0; k < 4; k++) {
		middle(n);
		if (argc > 2) /* switch out: a sched_switch with a call chain */
			usleep(10000);
	}
	return 0;
}
EOC
cc -O1 -fno-omit-frame-pointer -o busy busy.c || exit 1

# same_as_perf FILE WHAT: perfring script --samples and perf script print
# the same lines (perf script prints samples only by default).
same_as_perf() {
	"$P" script -i "$1" --samples >"$1.pfr" 2>"$1.err"
	local rc=$?
	perf script -i "$1" >"$1.perf" 2>/dev/null
	ok $((rc != 0)) "$2: perfring script exits 0 ($rc)"
	ok $([ ! -s "$1.err" ]; echo $?) "$2: nothing on stderr"
	diag <"$1.err"
	ok $([ "$(wc -l <"$1.perf")" -gt 0 ]; echo $?) \
		"$2: perf script prints $(wc -l <"$1.perf") lines"
	diff "$1.perf" "$1.pfr" >"$1.diff" # <: perf, >: perfring
	ok $? "$2: the same lines as perf script ($(wc -l <"$1.pfr") lines)"
	head -20 "$1.diff" | diag
}

# 1. Tracepoint fields, perfring's file.
"$P" record -q -e sched:sched_switch -a -o tp.data -- sleep 0.2 \
	>/dev/null 2>&1
ok $? "record -e sched:sched_switch -a -- sleep 0.2"
same_as_perf tp.data "sched_switch -a"
grep -m1 'sched:sched_switch: prev_comm=' tp.data.pfr | diag
ok $(grep -q 'sched:sched_switch: prev_comm=.* prev_pid=[0-9]* .*==> next_comm=.* next_pid=[0-9]' \
	tp.data.pfr; echo $?) "sched_switch lines hold prev_comm=... ==> next_comm=..."

# The JSON says the same as the text, field by field.
"$P" script -i tp.data --samples --json >tp.json 2>/dev/null
python3 - tp.json tp.data.pfr >tp.check 2>&1 <<'EOP'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
text = [l for l in open(sys.argv[2]) if 'sched:sched_switch:' in l]
assert recs and len(recs) == len(text), (len(recs), len(text))
for r, t in zip(recs, text):
    f = r["fields"]
    want = "prev_comm=%s prev_pid=%d prev_prio=%d" % (
        f["prev_comm"], f["prev_pid"], f["prev_prio"])
    assert want in t, (want, t)
    want = "next_comm=%s next_pid=%d next_prio=%d" % (
        f["next_comm"], f["next_pid"], f["next_prio"])
    assert t.rstrip().endswith(want), (want, t)
print(len(recs), "records")
EOP
ok $? "--json: every line parses, \"fields\" match the text ($(cat tp.check))"

# 2. Tracepoint fields from perf's own file (its formats, its layout).
perf record -q -e sched:sched_switch -a -o ptp.data -- sleep 0.2 \
	>/dev/null 2>&1
ok $? "perf record -e sched:sched_switch -a -- sleep 0.2"
same_as_perf ptp.data "perf's sched_switch file"

# 3. Call chains: -g -F 999.  Every line is the same, frame addresses
# (perf shows a user frame as its offset in the file) and symbols too.
"$P" record -q -g -F 999 -o cg.data -- ./busy >/dev/null 2>&1
ok $? "record -g -F 999 -- ./busy"
same_as_perf cg.data "-g -F 999 busy loop"
ok $(grep -Eq '^	 +[0-9a-f]+ leaf\+0x[0-9a-f]+ \(.*/busy\)$' cg.data.pfr
	echo $?) "call chain frames name leaf+0x.. (busy)"
ok $(grep -Eq '^	 +[0-9a-f]+ __libc_start_call_main\+0x[0-9a-f]+ \(.*libc\.so\.6\)$' \
	cg.data.pfr; echo $?) "call chain frames name libc's functions"
"$P" script -i cg.data --samples --json >cg.json 2>/dev/null
python3 - cg.json >cg.check 2>&1 <<'EOP'
import json, sys
syms = set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    for fr in r["frames"]:
        assert fr["ip"].startswith("0x") and "dso" in fr, fr
        syms.add((fr["sym"], fr["dso"].rsplit("/", 1)[-1]))
for want in (("leaf", "busy"), ("main", "busy")):
    assert want in syms, (want, sorted(syms)[:20])
print(len(syms), "distinct frames")
EOP
ok $? "--json: frames name leaf and main in busy ($(cat cg.check))"

# 4. The sample's own ip and symbol, no call chain.
"$P" record -q -F 999 -o ip.data -- ./busy >/dev/null 2>&1
ok $? "record -F 999 -- ./busy"
same_as_perf ip.data "samples without a call chain"

# 5. A tracepoint with its call chain.  A CPU-bound program alone may run
# without a single context switch on an idle machine: busy sleeps between
# its loops, so it switches out every time.
"$P" record -q -g -e sched:sched_switch -o tpg.data -- ./busy 3000000 sleep \
	>/dev/null 2>&1
ok $? "record -g -e sched:sched_switch -- ./busy (sleeping between loops)"
same_as_perf tpg.data "sched_switch with call chains"

# 6. A stored format that puts prev_pid past the end of the sample: that
# event's fields are not printed (perfring falls back to period and ip),
# nothing is read out of bounds, the exit status is 0.
python3 - tp.data bad.data <<'EOP'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.find(b"field:pid_t prev_pid;\toffset:")
assert i > 0
j = b.index(b";", i + 22)
off = b[i + 29:j]
b[i + 29:j] = b"9" * len(off) if len(off) > 1 else b"99"[:len(off)]
open(sys.argv[2], "wb").write(b)
EOP
ok $? "a copy whose sched_switch format has prev_pid at offset 99..."
"$P" script -i bad.data --samples >bad.out 2>bad.err
ok $? "script on it exits 0"
ok $(grep -q 'prev_comm=' bad.out; [ $? -ne 0 ] && [ -s bad.out ]; echo $?) \
	"its sched_switch samples print without fields ($(wc -l <bad.out) lines)"
tap_done
