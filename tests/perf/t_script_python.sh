#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perf's Python scripts run unchanged under `perfring script -s`: the
# scripts Debian's perf installs (stackcollapse, flamegraph,
# syscall-counts, syscall-counts-by-pid, failed-syscalls-by-pid,
# futex-contention, event_analyzing_sample, export-to-sqlite - its
# database then queried) run with `perf script -s` and with `perfring
# script -s` on the same perf.data files, and print the same; a script of
# our own compares what the handlers receive (perf's argument lists, the
# param_dict keys, trace_unhandled, the context helpers, the script's
# arguments); -l, report NAME and -g python as perf.  The differences
# docs/script.md lists (map bounds, symbol ends) are left out of the
# comparison, by name.  PERFRING_PYTHON is the interpreter perf links
# (the system's python3), so that both see the same modules.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_perf_tool
cd "$tmp" || exit 1

export PERFRING_PYTHON=/usr/bin/python3
[ -x "$PERFRING_PYTHON" ] || PERFRING_PYTHON=python3
SD=""
for d in "${PERF_EXEC_PATH:-}" /usr/libexec/perf-core /usr/lib/perf-core \
	/usr/share/perf-core; do
	[ -n "$d" ] && [ -f "$d/scripts/python/stackcollapse.py" ] &&
		SD=$d/scripts/python && break
done
[ -n "$SD" ] || skip_all "perf's Python scripts are not installed"
perf version --build-options 2>/dev/null | grep -q 'libpython: \[ on' ||
	skip_all "this perf is built without Python scripting"
if [ ! -d /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
fi
[ -d /sys/kernel/tracing/events/raw_syscalls ] ||
	skip_all "no tracefs with raw_syscalls events"

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
int main(void)
{
	for (int k = 0; k < 4; k++) {
		middle(20000000);
		usleep(1000);
	}
	return 0;
}
EOC
cc -O1 -fno-omit-frame-pointer -o busy busy.c || exit 1
# threads that contend for a lock (futexes), syscalls that fail
cat >fx.py <<'EOC'
import threading
lock = threading.Lock()
def work():
    for i in range(3000):
        with lock:
            pass
ts = [threading.Thread(target=work) for _ in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
for p in ("/nonexistent", "/etc/hostname"):
    try:
        open(p).close()
    except OSError:
        pass
EOC

# The files: perf record's, or perfring record's (PFR_PYSCRIPT_REC=perfring,
# long_script_python.sh)
rec=perf
[ "${PFR_PYSCRIPT_REC:-perf}" = perfring ] && rec=$P
"$rec" record -q -g -o cyc.data ./busy >/dev/null 2>&1
ok $? "${rec##*/} record -g ./busy"
"$rec" record -q -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-e syscalls:sys_enter_futex -e syscalls:sys_exit_futex -o sc.data \
	-- "$PERFRING_PYTHON" fx.py >/dev/null 2>&1
ok $? "${rec##*/} record -e raw_syscalls:* -e syscalls:*_futex python3 fx.py"

# The records of a file whose events share one sample_type (ID, no
# IDENTIFIER) are named after their own event, not the first one.
perf script -i sc.data -F event >ev.perf 2>/dev/null
"$P" script -i sc.data -F event >ev.pfr 2>/dev/null
cmp -s ev.perf ev.pfr
ok $? "sc.data: each record's event as perf's ($(sort -u ev.perf | wc -l) events)"
diff ev.perf ev.pfr | head -5 | diag

# same NAME FILE SCRIPT [ARGS...]: perf script -s and perfring script -s
# print the same (stdout), both exit 0.
same() {
	local n=$1 f=$2
	shift 2
	perf script -i "$f" -s "$@" >"$n.perf" 2>"$n.perf.err"
	local rp=$?
	"$P" script -i "$f" -s "$@" >"$n.pfr" 2>"$n.pfr.err"
	local rf=$?
	if [ $rp -ne 0 ] || [ $rf -ne 0 ] || [ ! -s "$n.perf" ]; then
		fail "$n: perf exits $rp, perfring $rf, perf prints $(wc -l <"$n.perf") lines"
		tail -5 "$n.pfr.err" | diag
		return
	fi
	cmp -s "$n.perf" "$n.pfr"
	ok $? "$n: the same $(wc -l <"$n.perf") lines as perf script -s"
	diff "$n.perf" "$n.pfr" | head -10 | diag
}

same stackcollapse cyc.data "$SD/stackcollapse.py"
same stackcollapse-kernel cyc.data "$SD/stackcollapse.py" -- --kernel
same syscall-counts sc.data "$SD/syscall-counts.py"
same syscall-counts-comm sc.data "$SD/syscall-counts.py" python3
same syscall-counts-by-pid sc.data "$SD/syscall-counts-by-pid.py"
same failed-syscalls-by-pid sc.data "$SD/failed-syscalls-by-pid.py"
same futex-contention sc.data "$SD/futex-contention.py"
rm -f /dev/shm/perf.db
perf script -i cyc.data -s "$SD/event_analyzing_sample.py" >eas.perf 2>&1
rm -f /dev/shm/perf.db
"$P" script -i cyc.data -s "$SD/event_analyzing_sample.py" >eas.pfr 2>&1
rm -f /dev/shm/perf.db
cmp -s eas.perf eas.pfr
ok $? "event_analyzing_sample: the same $(wc -l <eas.perf) lines (its sqlite tables summed)"
diff eas.perf eas.pfr | head -10 | diag

# flamegraph: the JSON (HTML needs d3-flame-graph's template, which the
# JSON is put into)
perf script -i cyc.data -s "$SD/flamegraph.py" -- -f json -o fg.perf.json \
	>/dev/null 2>&1
"$P" script -i cyc.data -s "$SD/flamegraph.py" -- -f json -o fg.pfr.json \
	>/dev/null 2>&1
[ -s fg.perf.json ] && cmp -s fg.perf.json fg.pfr.json
ok $? "flamegraph -f json: the same $(wc -c <fg.perf.json 2>/dev/null) bytes"

# export-to-sqlite (PySide2's QtSql, as perf's script needs it): every
# table the same, but for symbols' sym_end and binding
if "$PERFRING_PYTHON" -c 'import PySide2.QtSql' 2>/dev/null; then
	perf script -i cyc.data -s "$SD/export-to-sqlite.py" perf.db \
		>/dev/null 2>&1
	"$P" script -i cyc.data -s "$SD/export-to-sqlite.py" pfr.db \
		>sqlite.err 2>&1
	ok $? "export-to-sqlite pfr.db exits 0"
	tail -3 sqlite.err | diag
	"$PERFRING_PYTHON" - perf.db pfr.db >sqlite.check 2>&1 <<'EOP'
import sqlite3, sys
a, b = (sqlite3.connect(p) for p in sys.argv[1:3])
cols = {"symbols": "id, dso_id, sym_start, name"}
bad = 0
for (t,) in a.execute("select name from sqlite_master where type='table' "
                      "order by name"):
    q = "select %s from %s order by id" % (cols.get(t, "*"), t)
    ra, rb = a.execute(q).fetchall(), b.execute(q).fetchall()
    print("%s: %d rows, %s" % (t, len(ra), "same" if ra == rb else "DIFFER"))
    bad += ra != rb
    if ra != rb:  # the rows that differ, for a failure seen once
        diff = [(x, y) for x, y in zip(ra, rb) if x != y]
        for x, y in diff[:5]:
            print("  perf:     %r\n  perfring: %r" % (x, y))
        if len(ra) != len(rb):
            print("  rows: perf %d, perfring %d" % (len(ra), len(rb)))
q = ("select command, pid, tid, symbol, dso_short_name, count(*) from "
     "samples_view group by 1, 2, 3, 4, 5 order by 6 desc, 4")
ra, rb = a.execute(q).fetchall(), b.execute(q).fetchall()
print("samples_view by symbol: %d groups, top %s" % (len(ra), ra[:1]))
bad += ra != rb or not ra
sys.exit(1 if bad else 0)
EOP
	ok $? "export-to-sqlite: the databases hold the same (queried)"
	diag <sqlite.check
else
	skip "python3-pyside2.qtsql is not installed" "export-to-sqlite"
	skip "python3-pyside2.qtsql is not installed" "export-to-sqlite query"
fi

# What the handlers receive, from a script of our own.
cat >args.py <<'EOC'
import os, sys
sys.path.append(os.environ['PERF_EXEC_PATH'] + \
	'/scripts/python/Perf-Trace-Util/lib/Perf/Trace')
from perf_trace_context import *
from Core import *
from Util import *
n = autodict()
def trace_begin():
    print("begin", sys.argv[1:])
def show(name, a):
    a = list(a)
    print(name, len(a), [x for x in a[2:7]], a[8:])
def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs,
                            common_nsecs, common_pid, common_comm,
                            common_callchain, id, args):
    show(event_name, (event_name, context, common_cpu, common_secs,
                      common_nsecs, common_pid, common_comm, None, id, args))
    print("ctx", common_pc(context), common_flags(context),
          nsecs_str(nsecs(common_secs, common_nsecs)))
def syscalls__sys_exit_futex(*a):
    show(a[0], a)
def trace_unhandled(event_name, context, event_fields_dict):
    d = dict(event_fields_dict)
    d.pop("common_callchain")
    print("unhandled", event_name, sorted(d.items()))
def process_event(p):
    s = p["sample"]
    # not compared: attr (perfring: b""), dso_map_start and dso_map_end
    # (perfring: absent; docs/script.md)
    print("event", p["ev_name"], p["comm"], p.get("symbol"), p.get("dso"),
          p.get("symoff"), p.get("dso_bid"),
          sorted(k for k in p if k not in
                 ("attr", "dso_map_start", "dso_map_end")),
          [(k, s[k]) for k in sorted(s)],
          [(c["ip"], c.get("sym", {}).get("name"), c.get("sym_off"),
            c.get("dso")) for c in p["callchain"]])
def trace_end():
    print("end")
EOC
same handlers-tp sc.data args.py one -two
same handlers-sample cyc.data args.py

# -l and report NAME, as perf's
perf script -l >l.perf 2>&1
"$P" script -l >l.pfr 2>&1
cmp -s l.perf l.pfr
ok $? "script -l: perf's list ($(wc -l <l.perf) lines)"
diff l.perf l.pfr | head -5 | diag
perf script report syscall-counts -i sc.data >rep.perf 2>&1
"$P" script report syscall-counts -i sc.data >rep.pfr 2>&1
cmp -s rep.perf rep.pfr
ok $? "script report syscall-counts -i sc.data: perf's $(wc -l <rep.perf) lines"

# -g python: a skeleton with the handlers of the file's events, which runs
rm -f perf-script.py
"$P" script -i sc.data -g python >/dev/null 2>&1 && [ -s perf-script.py ]
ok $? "script -g python writes perf-script.py"
grep -q '^def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm, common_callchain, id, args, perf_sample_dict):' \
	perf-script.py
ok $? "perf-script.py: raw_syscalls__sys_enter with perf's arguments"
"$P" script -i sc.data -s perf-script.py >gen.out 2>gen.err
ok $? "perf-script.py runs ($(grep -c raw_syscalls__sys_enter gen.out) sys_enter lines)"
tail -3 gen.err | diag

# perfring's stand-in Core and Util (for machines without perf's) give
# what perf's give
"$PERFRING_PYTHON" - "$top/python/perfring/perf_trace" \
	"$SD/Perf-Trace-Util/lib/Perf/Trace" >core.out 2>&1 <<'EOP'
import importlib.util, sys
def load(d, n):
    s = importlib.util.spec_from_file_location(n + d[-5:], "%s/%s.py" % (d, n))
    m = importlib.util.module_from_spec(s)
    s.loader.exec_module(m)
    return m
(C, U), (PC, PU) = [(load(d, "Core"), load(d, "Util")) for d in sys.argv[1:3]]
for M in (C, PC):
    M.define_flag_field("e", "f", "|")
    for v, n in ((0, "NONE"), (1, "A"), (2, "B"), (4, "C")):
        M.define_flag_value("e", "f", v, n)
    M.define_symbolic_field("e", "s")
    for v, n in ((0, "Z"), (3, "T")):
        M.define_symbolic_value("e", "s", v, n)
bad = [v for v in range(9) if C.flag_str("e", "f", v) != PC.flag_str("e", "f", v)
       or C.symbol_str("e", "s", v) != PC.symbol_str("e", "s", v)]
bad += [v for v in range(32) if C.trace_flag_str(v) != PC.trace_flag_str(v)]
bad += [x for x in (0, 1, 10**9, 12345678901)
        if U.nsecs_str(x) != PU.nsecs_str(x) or U.nsecs(3, x) != PU.nsecs(3, x)
        or U.nsecs_secs(x) != PU.nsecs_secs(x)]
bad += [x for x in (1, 2, 4, 22, -2, 9999) if U.strerror(x) != PU.strerror(x)]
d1, d2 = {}, {}
for v in (5, 3, 9, 1):
    U.add_stats(d1, "k", v)
    PU.add_stats(d2, "k", v)
bad += [d1] if d1 != d2 else []
e, pe = C.EventHeaders(1, 2, 3, 4, "c", []), PC.EventHeaders(1, 2, 3, 4, "c", [])
bad += [e.ts()] if (e.ts(), e.ts_format()) != (pe.ts(), pe.ts_format()) else []
print("differ:", bad)
sys.exit(1 if bad else 0)
EOP
ok $? "perfring's Core and Util answer as perf's"
tail -3 core.out | diag

# long_script_python.sh: perfring script record NAME / report NAME round
# trips, against perf script report on the same recording
if [ "$rec" = "$P" ]; then
	for n in syscall-counts syscall-counts-by-pid failed-syscalls-by-pid; do
		"$P" script record "$n" -o "$n.data" -- ls /nonexistent / \
			>/dev/null 2>&1
		[ -s "$n.data" ]
		ok $? "perfring script record $n writes its file"
		perf script report "$n" -i "$n.data" >"$n.perf" 2>/dev/null
		"$P" script report "$n" -i "$n.data" >"$n.pfr" 2>/dev/null
		cmp -s "$n.perf" "$n.pfr" && [ -s "$n.perf" ]
		ok $? "$n: perfring script report prints perf's $(wc -l <"$n.perf") lines"
		diff "$n.perf" "$n.pfr" | head -5 | diag
	done
fi
tap_done
