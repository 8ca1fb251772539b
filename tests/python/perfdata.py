# SPDX-License-Identifier: MIT
"""perfring.perfdata against `perfring script --json` (TAP;
tests/python/t_python_perfdata.sh makes the files).

usage: perfdata.py DIR PERFRING [tp]
  DIR/g.data, DIR/g.json    a -g recording of DIR/busy and its JSON Lines
  DIR/tp.data, DIR/tp.json  a tracepoint recording (when "tp" is given)

Checks: every record, in order, has the JSON's type, and every sample its
time, cpu, pid, tid, comm, event name, ip, period, id, sym, symoff, dso and
call-chain frames (ip, addr, sym, symoff, dso); the events are kept in a
list first, so what is decoded after the reader moved on is checked too;
tracepoint fields by name with Python types; the header's features; a
build id the file records; comm() and resolve(); as_dict(); "-" reads
standard input; a missing file, a file that is no perf.data and files cut
short raise perfring.Error with .code and .errno; after close() every use
raises ValueError (no crash: each such case runs in a python3 of its
own).
"""
import errno
import json
import os
import socket
import subprocess
import sys

import perfring
import perfring.perfdata as perfdata

D, PERFRING = sys.argv[1], sys.argv[2]
TP = len(sys.argv) > 3 and sys.argv[3] == "tp"
n_test = 0
failed = 0


def ok(cond, desc, why=""):
    global n_test, failed
    n_test += 1
    print("%sok %d - %s" % ("" if cond else "not ", n_test, desc))
    if not cond:
        failed += 1
        for line in str(why).splitlines()[:30]:
            print("#   " + line)
    sys.stdout.flush()


def skip(reason, desc):
    global n_test
    n_test += 1
    print("ok %d - %s # SKIP %s" % (n_test, desc, reason))


def path(name):
    return os.path.join(D, name)


def log(name):
    try:
        with open(path(name), errors="replace") as f:
            return f.read()[-3000:]
    except OSError as e:
        return str(e)


def jlines(name):
    with open(path(name)) as f:
        return [json.loads(line) for line in f if line.strip()]


def hx(v):
    return int(v, 16) if isinstance(v, str) else v


def frame_diff(fr, js):
    """None, or what differs between Frame fr and a JSON frame js."""
    want = (hx(js["ip"]), hx(js["addr"]), js["sym"], js.get("symoff"),
            js["dso"])
    got = (fr.ip, fr.addr, fr.sym, fr.symoff, fr.dso)
    return None if want == got else "frame %r != json %r" % (got, want)


def sample_diff(ev, js):
    """None, or the first difference of sample ev from JSON js."""
    want = {"time": js.get("time"), "cpu": js.get("cpu"),
            "pid": js.get("pid"), "tid": js.get("tid"),
            "comm": js.get("comm"), "name": js.get("event"),
            "ip": hx(js.get("ip")), "period": js.get("period"),
            "id": js.get("id"), "sym": js.get("sym"),
            "symoff": js.get("symoff"), "dso": js.get("dso")}
    for k, v in want.items():
        got = getattr(ev, k)
        if got != v:
            return "%s: %r, json %r" % (k, got, v)
    jf = js.get("frames")
    if jf is not None:
        # the binding's frame 0 is the sample's ip; --json's frames are
        # the chain's (FP chains: the same first entry)
        ch = [f for f in ev.callchain if not f.inlined]
        if len(ch) != len(jf):
            return "%d frames, json %d: %r" % (len(ch), len(jf), ch)
        for fr, j in zip(ch, jf):
            d = frame_diff(fr, j)
            if d:
                return d
    return None


def check_samples():
    recs = jlines("g.json")
    pd = perfdata.open(path("g.data"))
    evs = list(pd)  # kept: decoded after the reader moved on
    st = pd.stats()
    ok([e.type for e in evs] == [j["type"] for j in recs],
       "g.data: %d records, each of the type --json gives" % len(evs),
       "binding %d, json %d" % (len(evs), len(recs)))
    pairs = [(e, j) for e, j in zip(evs, recs) if j["type"] == "SAMPLE"]
    bad = [(i, sample_diff(e, j)) for i, (e, j) in enumerate(pairs)]
    bad = [b for b in bad if b[1]]
    ok(len(pairs) >= 1000 and not bad,
       "%d samples: time, cpu, pid, tid, comm, event, ip, period, id, "
       "sym, symoff, dso and every call-chain frame as --json" %
       len(pairs), "%d differ; first: sample %r" % (len(bad), bad[:1]))
    nchain = sum(len(e.callchain) for e, _ in pairs)
    ours = sum(1 for e, _ in pairs if e.dso == path("busy") and
               e.sym in ("leaf", "middle"))
    # (a leaf function's caller may be missed by frame pointers, as
    # perf misses it: leaf, main is a chain too)
    chained = sum(1 for e, _ in pairs
                  if e.callchain[0].sym in ("leaf", "middle") and
                  "main" in [f.sym for f in e.callchain[1:4]])
    ok(ours > len(pairs) // 2 and chained > len(pairs) // 4,
       "the busy loop's samples resolve to leaf/middle in %s, their "
       "chains reach main (%d of %d, %d chains, %d frames)" %
       (path("busy"), ours, len(pairs), chained, nchain))
    ok(st["records"] == len(evs) and st["bad"] == 0 and
       not st["unfinished"], "stats(): records %d, bad 0, finished"
       % len(evs), repr(st))
    e = pairs[len(pairs) // 2][0]
    d = e.as_dict()
    ok(d["time"] == e.time and d["sym"] == e.sym and d["type"] == "SAMPLE"
       and d["callchain"] == [f.as_dict() for f in e.callchain] and
       json.dumps(d) and "fields" not in d,
       "as_dict() holds the attributes (and serializes to JSON)", repr(d))
    comms = [e for e in evs if e.type == "COMM"]
    ok(comms and comms[-1].comm_record["comm"] == "busy" and
       comms[-1].comm_record["exec"],
       "a COMM record's comm_record: busy, exec",
       repr([c.comm_record for c in comms]))
    mm = [e.mmap for e in evs if e.type in ("MMAP", "MMAP2")]
    ok(any(m["filename"] == path("busy") for m in mm),
       "an MMAP record names %s" % path("busy"), repr(mm[:6]))
    for e, _ in pairs:  # decoded while the reader is open (see below)
        e.callchain
    pd.close()
    return pairs


def check_samples_only(pairs):
    with perfdata.open(path("g.data"), samples_only=True) as pd:
        got = [(e.time, e.tid, e.comm, e.sym) for e in pd]
    want = [(e.time, e.tid, e.comm, e.sym) for e, _ in pairs]
    ok(got == want, "samples_only=True: the %d samples alone, the same"
       % len(want), "%d vs %d" % (len(got), len(want)))


def check_process_model(pairs):
    e = [e for e, _ in pairs if e.sym == "leaf"][-1]
    with perfdata.open(path("g.data")) as pd:
        for x in pd:
            if x.time == e.time and x.type == "SAMPLE":
                fr = pd.resolve(x.pid, x.ip)
                comm = pd.comm(x.tid)
                break
    ok(fr.sym == "leaf" and fr.symoff == e.symoff and fr.dso == e.dso
       and comm == "busy",
       "resolve(pid, ip) and comm(tid) at a sample: leaf in busy",
       "%r %r" % (fr, comm))


def check_features():
    with perfdata.open(path("g.data")) as pd:
        f = pd.features
        names = pd.event_names
    hdr = subprocess.run([PERFRING, "script", "--header-only", "-i",
                          path("g.data")], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    want = {}
    for line in hdr.splitlines():
        for k, tag in (("hostname", "# hostname : "),
                       ("osrelease", "# os release : "),
                       ("arch", "# arch : ")):
            if line.startswith(tag):
                want[k] = line[len(tag):]
    ok(want and all(f.get(k) == v for k, v in want.items()) and
       f.get("hostname") == socket.gethostname() and
       f.get("osrelease") == os.uname().release,
       "features: hostname, os release, arch as --header-only shows them",
       "%r vs %r" % (f, want))
    ok(names == ["cpu-clock"], "event_names: ['cpu-clock']", repr(names))


def check_buildid():
    with perfdata.open(path("g.data")) as pd:
        bid = pd.buildid(path("busy"))
        none = pd.buildid("/no/such/object")
    note = subprocess.run(["readelf", "-n", path("busy")],
                          stdout=subprocess.PIPE, universal_newlines=True,
                          stderr=subprocess.DEVNULL).stdout
    real = [ln.split(":")[1].strip() for ln in note.splitlines()
            if "Build ID:" in ln]
    if bid is None:
        skip("this recorder writes no HEADER_BUILD_ID",
             "buildid(busy) is the binary's build id")
    else:
        ok(real and bid == real[0], "buildid(busy) is the binary's build "
           "id %s" % bid, "%r vs %r" % (bid, real))
    ok(none is None, "buildid() of an object the file does not record: "
       "None", repr(none))


def field_value(v):
    """--json's text of a field, as the binding gives it."""
    if isinstance(v, str) and v.startswith("ARRAY[") and v.endswith("]"):
        return bytes.fromhex(v[6:-1].replace(", ", ""))
    return v


def fields_diff(ev, js):
    want = js.get("fields", {})
    got = ev.fields
    if list(got) != list(want):
        return "names %r, json %r" % (list(got), list(want))
    for k, v in want.items():
        g = got[k]
        if isinstance(v, str) and v.startswith("0x") and isinstance(g, int):
            v = int(v, 16)  # --json writes pointers in hex
        else:
            v = field_value(v)
        if g != v or type(g) is not type(v):
            return "%s: %r, json %r" % (k, g, v)
    return None


def check_tracepoints():
    if not TP:
        for d in ("tracepoint samples as --json", "fields with types",
                  "field(), common_fields, raw, text"):
            skip("no tracefs (or tracepoints refused): %s" %
                 log("tp.log").strip()[-200:].replace("\n", " "), d)
        return
    recs = jlines("tp.json")
    pd = perfdata.open(path("tp.data"))
    evs = list(pd)
    pairs = [(e, j) for e, j in zip(evs, recs) if j["type"] == "SAMPLE"]
    bad = [sample_diff(e, j) for e, j in pairs]
    bad = [b for b in bad if b]
    ok(len(evs) == len(recs) and len(pairs) > 10 and not bad,
       "tp.data: %d tracepoint samples as --json (ids, comm, sym, ...)" %
       len(pairs), "%d vs %d records; %r" % (len(evs), len(recs), bad[:2]))
    bad = [(j["event"], fields_diff(e, j)) for e, j in pairs]
    bad = [b for b in bad if b[1]]
    names = sorted(set(j["event"] for _, j in pairs))
    ok(not bad, "every field of %s by name, ints, strs and bytes as "
       "--json" % ", ".join(names), repr(bad[:3]))
    sw = [e for e, _ in pairs if e.name == "sched:sched_switch"]
    sc = [e for e, _ in pairs if e.name == "raw_syscalls:sys_enter"]
    e = sw[0] if sw else pairs[0][0]
    good = (e.field("prev_comm") == e.fields["prev_comm"] and
            isinstance(e.fields["prev_pid"], int) and
            isinstance(e.fields["prev_comm"], str) and
            e.common_fields["common_pid"] == e.raw[4] | e.raw[5] << 8 |
            e.raw[6] << 16 | e.raw[7] << 24 and
            e.is_tracepoint and "prev_comm=" in e.text) if sw else False
    if sc:
        a = sc[0].fields["args"]
        good = good and isinstance(a, bytes) and len(a) == 48
    ok(good, "field(), common_fields, raw, text of sched_switch; "
       "raw_syscalls' args as 48 bytes",
       repr((e.fields, e.common_fields, e.text)))
    # the formats decoded in Python (one unpack a sample) against the
    # library's pfr_perfdata_field() (PERFRING_PY_C_FIELDS=1), all fields
    py = [(e.fields, e.common_fields) for e, _ in pairs]
    planned = sorted(pd.event_names[i] for i, p in pd._plans.items() if p)
    pd.close()
    os.environ["PERFRING_PY_C_FIELDS"] = "1"
    with perfdata.open(path("tp.data")) as pd2:
        cl = [(e.fields, e.common_fields) for e in pd2
              if e.type == "SAMPLE"]
        unplanned = not any(pd2._plans.values())
    del os.environ["PERFRING_PY_C_FIELDS"]
    same = len(py) == len(cl) and all(
        a == b and all(type(a[0][k]) is type(b[0][k]) for k in a[0])
        for a, b in zip(py, cl))
    ok(same and unplanned and len(planned) == len(names),
       "the formats decoded in Python (%s) give every field of every "
       "sample as the library's pfr_perfdata_field()" % ", ".join(planned),
       "%r" % [(a, b) for a, b in zip(py, cl) if a != b][:2])


def child(code):
    """code run in a python3 of its own: (exit status, output)."""
    p = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def check_errors():
    try:
        perfdata.open(path("no-such.data"))
        e = None
    except perfring.Error as x:
        e = x
    ok(e is not None and e.code == perfring.E_SYSTEM and
       e.errno == errno.ENOENT and isinstance(e, OSError),
       "a missing file: Error, .code E_SYSTEM, .errno ENOENT", repr(e))
    with open(path("not.data"), "wb") as f:
        f.write(b"this is not a perf.data file\n" * 40)
    try:
        perfdata.open(path("not.data"))
        e = None
    except perfring.Error as x:
        e = x
    ok(e is not None and e.code == perfdata.PERF_E_FILE_MAGIC and
       e.errno is None and "pfr_perfdata_open" in str(e),
       "not a perf.data: Error, .code PERF_E_FILE_MAGIC, .errno None",
       repr(e) + " " + str(e))
    with open(path("g.data"), "rb") as f:
        data = f.read()
    with open(path("head.data"), "wb") as f:
        f.write(data[:60])  # inside the 104-byte header
    try:
        perfdata.open(path("head.data"))
        e = None
    except perfring.Error as x:
        e = x
    ok(e is not None and e.code in (perfdata.PERF_E_FILE_MAGIC,
                                    perfdata.PERF_E_FILE_LAYOUT) and
       e.errno is None,
       "a file cut inside its header: Error, .code PERF_E_FILE_MAGIC or "
       "_LAYOUT, .errno None", repr(e))
    # cut inside the data section: the records before the cut, then the
    # end (the header's data size past the end reads as unfinished) or
    # an Error with a record-size code; never a crash
    cut = len(data) // 2 + 3
    with open(path("cut.data"), "wb") as f:
        f.write(data[:cut])
    n, e, st = 0, None, None
    try:
        with perfdata.open(path("cut.data")) as pd:
            for ev in pd:
                n += 1
                ev.callchain
            st = pd.stats()
    except perfring.Error as x:
        e = x
    full = len(jlines("g.json"))
    # the header's data size past the file's end: refused at open
    # (PERF_E_FILE_LAYOUT), or the records before the cut and then an
    # Error or stats() saying so; never a crash
    ok(n == 0 and e is not None and e.code == perfdata.PERF_E_FILE_LAYOUT
       and e.errno is None or
       0 < n < full and (e is not None and e.code and e.errno is None or
                         st is not None and (st["cut"] or
                                             st["unfinished"])),
       "a file cut in its data: Error PERF_E_FILE_LAYOUT at open, or the "
       "records before the cut and then an Error or stats() saying so "
       "(%d of %d read)" % (n, full), "%r %r" % (e, st))
    # a recorder killed before its header was written: perf's header
    # with data size 0, the data to the end of the file, cut in a record
    h = bytearray(data[:104])
    h[48:56] = bytes(8)  # data.size
    h[72:104] = bytes(32)  # no features
    body = data[104:cut]
    with open(path("killed.data"), "wb") as f:
        f.write(bytes(h) + body)
    n, e, st = 0, None, None
    try:
        with perfdata.open(path("killed.data")) as pd:
            for ev in pd:
                n += 1
            st = pd.stats()
    except perfring.Error as x:
        e = x
    ok(e is None and 0 < n < full and st["unfinished"] and st["cut"],
       "a file whose header was never completed, cut in a record: %d "
       "records read, stats() unfinished and cut" % n, "%r %r" % (e, st))


AFTER_CLOSE = """
import sys, perfring, perfring.perfdata as perfdata
pd = perfdata.open(sys.argv[1] if len(sys.argv) > 1 else %r)
it = iter(pd)
ev = next(it)
while ev.type != "SAMPLE":
    ev = next(it)
pd.close()
pd.close()  # twice: nothing
for name, f in (("next", lambda: next(it)), ("features", lambda: pd.features),
                ("stats", pd.stats), ("comm", lambda: pd.comm(1)),
                ("callchain", lambda: ev.callchain),
                ("buildid", lambda: pd.buildid("x"))):
    try:
        f()
    except ValueError as e:
        print("raised", name, e)
        continue
    print("no ValueError for", name)
    sys.exit(3)
print(ev.time, ev.tid)  # the numbers were read at the step
"""


CLOSE_RACE = """
import sys, threading, time, perfring.perfdata as perfdata
stops = 0
for rnd in range(6):
    pd = perfdata.open(%r)
    seen = []
    def work():
        try:
            for ev in pd:
                for fr in ev.callchain:
                    fr.sym
                seen.append(ev)
        except ValueError:
            pass
        try:  # events read before the close: their names, or ValueError
            for ev in seen[-50:]:
                ev.callchain
        except ValueError:
            pass
    t = threading.Thread(target=work)
    t.start()
    time.sleep(0.002 * rnd)
    pd.close()
    t.join()
    stops += 1
print("rounds", stops)
"""


def check_close():
    rc, out = child(AFTER_CLOSE % path("g.data"))
    ok(rc == 0 and out.count("raised") == 6,
       "after close(): next, features, stats, comm, an event's call "
       "chain, buildid raise ValueError; close() twice; no crash", out)
    rc, out = child(CLOSE_RACE % path("g.data"))
    ok(rc == 0 and "rounds 6" in out,
       "close() while another thread iterates and decodes call chains: "
       "6 rounds, no crash", out)
    rc, out = child("import perfring.perfdata as p\n"
                    "p.Reader(1)\n")
    ok(rc != 0 and "TypeError" in out and "perfdata.open()" in out,
       "Reader(raw handle) raises TypeError", out)


def check_stdin(pairs):
    code = ("import perfring.perfdata as p\n"
            "with p.open('-') as pd:\n"
            "    print(sum(1 for e in pd if e.type == 'SAMPLE'))\n")
    with open(path("g.data"), "rb") as f:
        p = subprocess.run([sys.executable, "-c", code], stdin=f,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True)
    ok(p.returncode == 0 and p.stdout.strip() == str(len(pairs)),
       "open('-') reads standard input: %d samples" % len(pairs), p.stdout)


def main():
    ok(os.path.exists(path("g.json")) and os.path.getsize(path("g.json")),
       "perfring record -g and script --json made g.data, g.json",
       log("rec.log"))
    if failed:
        print("1..%d" % n_test)
        return 1
    pairs = check_samples()
    check_samples_only(pairs)
    check_process_model(pairs)
    check_features()
    check_buildid()
    check_tracepoints()
    check_errors()
    check_close()
    check_stdin(pairs)
    print("1..%d" % n_test)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
