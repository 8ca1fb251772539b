# SPDX-License-Identifier: MIT
"""perf's Python scripting interface, run by `perfring script -s FILE.py`.

perfring script decodes the samples (the same decoding as its -F and
--json output) and writes them as JSON Lines to a pipe; this module reads
them and calls the script's functions as perf script -s does:

  trace_begin(), trace_end()
  SYSTEM__EVENT(event_name, context, common_cpu, common_secs, common_nsecs,
                common_pid, common_comm, common_callchain, FIELDS...
                [, perf_sample_dict])        for a tracepoint's samples
  trace_unhandled(event_name, context, event_fields_dict
                  [, perf_sample_dict])      a tracepoint without handler
  process_event(param_dict)                  any other sample

It provides the module perf_trace_context (common_pc, common_flags,
common_lock_depth, perf_sample_insn, ...) and, when perf's own
Perf-Trace-Util is not installed, Core and Util (perfring/perf_trace/).
Also: -l (the scripts perf installs), -g python (a skeleton), report NAME
and record NAME (perf's bin/NAME-report and NAME-record wrappers, with
`perf` run as perfring).  Invoked by perfring only:

  python3 -m perfring.perfscript -s|-g|-l|-p|-r WHAT INPUT -- ARGS...
"""
import json
import os
import sys
import types

NSEC = 1000000000
# perf's data_src of a sample that has none (PERF_MEM_DATA_SRC_NONE) and
# how perf prints it
DATA_SRC_NONE = 0x5080021
DATA_SRC_NONE_STR = "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A"
PERF_DIRS = ("/usr/libexec/perf-core", "/usr/lib/perf-core",
             "/usr/share/perf-core", "/usr/local/libexec/perf-core",
             "/usr/local/lib/perf-core", "/usr/local/share/perf-core")


def perf_exec_path():
    """The directory holding perf's scripts/ (PERF_EXEC_PATH first)."""
    env = os.environ.get("PERF_EXEC_PATH")
    cands = ((env,) if env else ()) + PERF_DIRS
    for d in cands:
        if os.path.isdir(os.path.join(d, "scripts", "python")):
            return d
    return env


class Context(object):
    """What perf's context capsule stands for: the current sample."""
    __slots__ = ("raw", "ev")

    def __init__(self):
        self.raw = b""
        self.ev = None


def _raw_byte(ctx, i):
    return ctx.raw[i] if len(ctx.raw) > i else 0


def _make_trace_context():
    """The module perf builds into its interpreter, perf_trace_context."""
    m = types.ModuleType("perf_trace_context")

    def common_pc(ctx):
        return _raw_byte(ctx, 3)  # common_preempt_count

    def common_flags(ctx):
        return _raw_byte(ctx, 2)  # common_flags

    def common_lock_depth(ctx):
        return -1  # kernels have had no common_lock_depth since 2.6.37

    def perf_sample_insn(ctx):
        return None  # perfring records no instruction bytes

    def perf_set_itrace_options(ctx, opts):
        return -1  # no AUX traces

    def perf_sample_srcline(ctx):
        return (None, 0)

    def perf_sample_srccode(ctx):
        return (None, 0, None)

    for f in (common_pc, common_flags, common_lock_depth, perf_sample_insn,
              perf_set_itrace_options, perf_sample_srcline,
              perf_sample_srccode):
        setattr(m, f.__name__, f)
    return m


def _i32(b, at):
    return int.from_bytes(b[at:at + 4], "little", signed=True)


def _argcount(fn):
    code = getattr(fn, "__code__", None)
    if code is None:
        return -1
    if code.co_flags & 0x04:  # *args: takes whatever it gets
        return -1
    return code.co_argcount


def _frames(ev):
    """perf's callchain list from the sample's symbolized frames."""
    out = []
    for fr in ev.get("frames", ()):
        ip = int(fr["ip"], 16)
        d = {"ip": ip}
        off = fr.get("symoff")
        if off is not None:
            start = int(fr["addr"], 16) - off
            d["sym"] = {"start": start, "end": start, "binding": 1,
                        "name": fr["sym"]}
            d["sym_off"] = off
        dso = fr.get("dso")
        if dso and dso != "[unknown]":
            d["dso"] = dso
        out.append(d)
    return out


def _field(v):
    """A tracepoint field's value as perf hands it to scripts."""
    c = v.__class__
    if c is dict:  # an array that is no string: perf's bytearray
        return bytearray.fromhex(v["hex"])
    if c is not str:
        return v
    # the same as libtraceevent prints it, ARRAY[b0, b1, ...]
    if v.startswith("ARRAY[") and v.endswith("]"):
        try:
            return bytearray.fromhex(v[6:-1].replace(", ", ""))
        except ValueError:
            return v
    return v


def _notes_build_id(b):
    """The GNU build id among ELF notes b, as hex, or None."""
    i = 0
    while i + 12 <= len(b):
        nsz, dsz, typ = (int.from_bytes(b[i + k:i + k + 4], "little")
                         for k in (0, 4, 8))
        name = i + 12
        desc = name + ((nsz + 3) & ~3)
        if typ == 3 and b[name:name + nsz] == b"GNU\0":
            return b[desc:desc + dsz].hex()
        i = desc + ((dsz + 3) & ~3)
    return None


_BUILD_IDS = {}


def build_id(dso):
    """A dso's build id as perf writes it (hex; "" when none): the file's
    NT_GNU_BUILD_ID note, the running kernel's for [kernel.kallsyms]."""
    bid = _BUILD_IDS.get(dso)
    if bid is not None:
        return bid
    bid = ""
    try:
        if dso == "[kernel.kallsyms]":
            with open("/sys/kernel/notes", "rb") as f:
                bid = _notes_build_id(f.read()) or ""
        elif not dso.startswith("["):
            with open(dso, "rb") as f:
                h = f.read(64)
                if h[:4] == b"\x7fELF" and h[4] == 2 and h[5] == 1:
                    shoff = int.from_bytes(h[0x28:0x30], "little")
                    shsz = int.from_bytes(h[0x3a:0x3c], "little")
                    shn = int.from_bytes(h[0x3c:0x3e], "little")
                    f.seek(shoff)
                    sh = f.read(shsz * shn)
                    for k in range(shn):
                        e = sh[k * shsz:(k + 1) * shsz]
                        if int.from_bytes(e[4:8], "little") != 7:
                            continue  # not SHT_NOTE
                        off = int.from_bytes(e[0x18:0x20], "little")
                        size = int.from_bytes(e[0x20:0x28], "little")
                        f.seek(off)
                        bid = _notes_build_id(f.read(min(size, 1 << 16)))
                        if bid:
                            break
                    bid = bid or ""
    except (OSError, ValueError):
        bid = ""
    _BUILD_IDS[dso] = bid
    return bid


def _sample_dict(ev, chain):
    """perf's perf_sample_dict / param_dict for a sample."""
    misc = ev.get("misc", 0)
    ip = int(ev["ip"], 16) if "ip" in ev else 0
    raw = bytes.fromhex(ev["raw"]) if "raw" in ev else b""
    s = {"pid": ev.get("pid", 0), "tid": ev.get("tid", 0),
         "cpu": ev.get("cpu", 0xffffffff), "ip": ip,
         "time": ev.get("time", 0), "period": ev.get("period", 0),
         "phys_addr": 0, "addr": ev.get("addr", 0),
         "values": [(0, 0, 0)], "weight": 0, "transaction": 0,
         "datasrc": DATA_SRC_NONE, "datasrc_decode": DATA_SRC_NONE_STR,
         "cpumode": misc & 7}
    d = {"ev_name": ev.get("event", ""), "attr": b"", "sample": s,
         "raw_buf": raw, "comm": ev.get("comm", ""),
         "brstack": [], "brstacksym": [], "iregs": "", "uregs": "",
         "callchain": chain}
    if ev.get("dso") and ev["dso"] != "[unknown]":
        d["dso"] = ev["dso"]
        d["dso_bid"] = build_id(ev["dso"])
    if "symoff" in ev:
        d["symbol"] = ev["sym"]
        d["symoff"] = ev["symoff"]
    return d


# perf's branch types (PERF_IP_FLAG_* combinations) and names, which its
# database export writes first
_BRANCH = ((0, "no branch"), (1, "unconditional jump"), (3, "call"),
           (5, "return"), (9, "conditional jump"), (19, "system call"),
           (21, "return from system call"), (33, "asynchronous branch"),
           (67, "software interrupt"), (69, "return from interrupt"),
           (99, "hardware interrupt"), (129, "transaction abort"))


def _branch_types():
    out = list(_BRANCH)
    out += [(256 | t, "trace begin / " + n) for t, n in _BRANCH]
    out[len(_BRANCH) + 1] = (257, "trace begin")
    out += [(512 | t, n + " / trace end") for t, n in _BRANCH]
    out[2 * len(_BRANCH) + 1] = (513, "trace end")
    for t, n in ((2051, "vm entry"), (4099, "vm exit")):
        out += [(t, n), (t | 256, "trace begin / " + n),
                (t | 512, n + " / trace end")]
    return out


def _s64(x):
    """perf's db export hands 64-bit addresses over as signed."""
    return x - (1 << 64) if x >= (1 << 63) else x


class DbExport(object):
    """perf's database export (a script setting perf_db_export_mode):
    the *_table() calls perf's db-export makes, ids given as perf gives
    them, in order of first use."""

    def __init__(self, ns):
        self.ns = ns
        self.ids = {}  # (kind, key) -> id
        self.last = {}  # kind -> last id
        self.comm_time = {}  # tid -> (time, exec) of its COMM record
        self.nsample = 0

    def begin(self):
        for t, n in _branch_types():
            self._call("branch_type_table", t, n)

    def _id(self, kind, key):
        k = (kind, key)
        i = self.ids.get(k)
        if i is not None:
            return i, False
        i = self.last.get(kind, 0) + 1
        self.last[kind] = i
        self.ids[k] = i
        return i, True

    def _call(self, name, *args):
        fn = self.ns.get(name)
        if callable(fn):
            fn(*args)

    def comm(self, ev):
        self.comm_time[ev.get("tid")] = (ev.get("time", 0),
                                         1 if ev.get("exec") else 0)

    def sample(self, ev):
        ev_id, new = self._id("evsel", ev.get("event", ""))
        if new:
            self._call("evsel_table", ev_id, ev.get("event", ""))
        m_id, new = self._id("machine", -1)
        if new:
            self._call("machine_table", m_id, -1, "")
        pid, tid = ev.get("pid", -1), ev.get("tid", -1)
        main_id, new = self._id("thread", pid)
        if new:
            self._call("thread_table", main_id, m_id, main_id, pid, pid)
        t_id = main_id
        if tid != pid:
            t_id, new = self._id("thread", tid)
            if new:
                self._call("thread_table", t_id, m_id, main_id, pid, tid)
        comm = ev.get("comm", "")
        c_id, new = self._id("comm", (pid, comm))
        if new:
            ct, ex = self.comm_time.get(pid, (0, 0))
            self._call("comm_table", c_id, comm, main_id, ct, ex)
            ctid, _ = self._id("comm_thread", (c_id, main_id))
            self._call("comm_thread_table", ctid, c_id, main_id)
        if t_id != main_id:
            ctid, new = self._id("comm_thread", (c_id, t_id))
            if new:
                self._call("comm_thread_table", ctid, c_id, t_id)
        ip = int(ev["ip"], 16) if "ip" in ev else 0
        dso = ev.get("dso")
        d_id = s_id = off = 0
        if dso and dso != "[unknown]":
            d_id, new = self._id("dso", dso)
            if new:
                short = dso if dso.startswith("[") else \
                    os.path.basename(dso)
                self._call("dso_table", d_id, m_id, short, dso,
                           build_id(dso))
            if "symoff" in ev:
                off = ev["symoff"]
                start = int(ev.get("dso_addr", ev["ip"]), 16) - off
                s_id, new = self._id("symbol", (d_id, ev["sym"]))
                if new:
                    self._call("symbol_table", s_id, d_id, _s64(start),
                               _s64(start), 1, ev["sym"])
        self.nsample += 1
        cpu = ev.get("cpu", -1)
        self._call("sample_table", self.nsample, ev_id, m_id, t_id, c_id,
                   d_id, s_id, off, _s64(ip), ev.get("time", 0), cpu, 0, 0, 0, 0,
                   ev.get("period", 0), 0, 0, DATA_SRC_NONE, 0, 0, 0, 0, 0,
                   0)


class Runner(object):
    def __init__(self, ns):
        self.ns = ns
        self.ctx = Context()
        self.handlers = {}  # event name -> (handler or None, wants dict)
        self.process_event = ns.get("process_event")
        self.unhandled = ns.get("trace_unhandled")
        self.unhandled_dict = _argcount(self.unhandled) == 4
        self.pe_dict = None

    def handler(self, name):
        h = self.handlers.get(name)
        if h is None:
            hname = name.replace(":", "__", 1)
            fn = self.ns.get(hname)
            h = (hname, fn if callable(fn) else None, _argcount(fn))
            self.handlers[name] = h
        return h

    def tracepoint(self, ev, fields):
        name = ev.get("event", "")
        h = self.handlers.get(name)
        hname, fn, argc = h if h is not None else self.handler(name)
        ctx = self.ctx
        raw = ctx.raw = bytes.fromhex(ev["raw"]) if "raw" in ev else b""
        ctx.ev = ev
        chain = _frames(ev) if "frames" in ev else []
        # perf: common_pid is the raw data's (the thread's id)
        pid = _i32(raw, 4) if len(raw) >= 8 else ev.get("pid", 0)
        t = ev.get("time", 0)
        cpu = ev.get("cpu", 0xffffffff)
        if cpu == 0xffffffff:
            cpu = -1
        vals = [_field(v) for v in fields.values()]
        if fn is not None:
            args = [hname, ctx, cpu, t // NSEC, t % NSEC,
                    pid, ev.get("comm", ""), chain]
            args.extend(vals)
            if argc == len(args) + 1:
                args.append(_sample_dict(ev, chain))
            fn(*args)
            return
        if self.unhandled is None:
            return
        d = {"common_cpu": cpu, "common_s": t // NSEC,
             "common_ns": t % NSEC, "common_pid": pid,
             "common_comm": ev.get("comm", ""), "common_callchain": chain}
        d.update(zip(fields.keys(), vals))
        if self.unhandled_dict:
            self.unhandled(hname, ctx, d, _sample_dict(ev, chain))
        else:
            self.unhandled(hname, ctx, d)

    def run(self, feed):
        ns = self.ns
        db = DbExport(ns) if ns.get("perf_db_export_mode") else None
        if callable(ns.get("trace_begin")):
            ns["trace_begin"]()
        if db is not None:  # perf: after trace_begin
            db.begin()
        loads = json.JSONDecoder().decode
        pe = self.process_event
        for line in feed:
            ev = loads(line)
            ty = ev.get("type")
            if ty != "SAMPLE":
                if ty == "COMM" and db is not None:
                    db.comm(ev)
                continue
            if db is not None:
                db.sample(ev)
                continue
            fields = ev.get("fields")
            if fields is not None or ev.get("tracepoint"):
                self.tracepoint(ev, fields or {})
            elif pe is not None:
                self.ctx.raw = b""
                self.ctx.ev = ev
                pe(_sample_dict(ev, _frames(ev)))
        if callable(ns.get("trace_end")):
            ns["trace_end"]()


def _setup_paths():
    """perf_trace_context, and Core/Util: perf's installed ones first."""
    sys.modules["perf_trace_context"] = _make_trace_context()
    d = perf_exec_path()
    if d:
        os.environ.setdefault("PERF_EXEC_PATH", d)
        lib = os.path.join(d, "scripts", "python", "Perf-Trace-Util", "lib",
                           "Perf", "Trace")
        if os.path.isdir(lib):
            sys.path.append(lib)
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(
        __file__)), "perf_trace"))


def run_script(path, args):
    feed_fd = int(os.environ.get("PERFRING_FEED_FD", "-1"))
    feed = os.fdopen(feed_fd, "r", buffering=1 << 16, closefd=True)
    _setup_paths()
    sys.argv = [path] + list(args)
    sdir = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, sdir)
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec")
    ns = {"__name__": "__main__", "__file__": path,
          "__builtins__": __builtins__}
    exec(code, ns)
    Runner(ns).run(feed)
    feed.close()
    return 0


def gen_script(lang, data):
    """-g python: perf-script.py with a handler per event seen."""
    if lang not in ("python", "py"):
        sys.stderr.write("perfring script: -g %s: only python\n" % lang)
        return 2
    feed = os.fdopen(int(os.environ["PERFRING_FEED_FD"]), "r")
    events = {}  # name -> list of field names, or None (not a tracepoint)
    for line in feed:
        ev = json.loads(line)
        if ev.get("type") != "SAMPLE":
            continue
        name = ev.get("event", "")
        if name not in events:
            f = ev.get("fields")
            events[name] = list(f.keys()) if f is not None else None
    out = "perf-script.py"
    with open(out, "w") as o:
        o.write(_skeleton(events))
    sys.stderr.write("generated Python script: %s\n" % out)
    return 0


def _skeleton(events):
    L = ["# perf script event handlers, generated by perfring script -g "
         "python",
         "# Licensed under the terms of the GNU GPL License version 2",
         "",
         "# The common_* event handler fields are the most useful fields "
         "common to",
         "# all events.  They don't necessarily correspond to the "
         "'common_*' fields",
         "# in the format files.  Those fields not available as handler "
         "params can",
         "# be retrieved using Python functions of the form "
         "common_*(context).",
         "# See the perf-script-python Documentation for the list of "
         "available functions.",
         "",
         "from __future__ import print_function",
         "",
         "import os",
         "import sys",
         "",
         "sys.path.append(os.environ['PERF_EXEC_PATH'] + \\",
         "\t'/scripts/python/Perf-Trace-Util/lib/Perf/Trace')",
         "",
         "from perf_trace_context import *",
         "from Core import *",
         "",
         "",
         "def trace_begin():",
         "\tprint(\"in trace_begin\")",
         "",
         "def trace_end():",
         "\tprint(\"in trace_end\")",
         ""]
    for name, fields in events.items():
        if fields is None:
            continue
        h = name.replace(":", "__", 1)
        args = ["event_name", "context", "common_cpu", "common_secs",
                "common_nsecs", "common_pid", "common_comm",
                "common_callchain"] + fields + ["perf_sample_dict"]
        L.append("def %s(%s):" % (h, ", ".join(args)))
        L.append("\t\tprint_header(event_name, common_cpu, common_secs, "
                 "common_nsecs,")
        L.append("\t\t\tcommon_pid, common_comm)")
        L.append("")
        if fields:
            L.append("\t\tprint(\"" + ", ".join(
                "%s=%%s" % f for f in fields) + "\" % \\")
            L.append("\t\t(" + ", ".join(fields) + ",))")
        L.append("")
        L.append("\t\tprint('Sample: {'+get_dict_as_string("
                 "perf_sample_dict['sample'], ', ')+'}')")
        L.append("")
        L.append("\t\tfor node in common_callchain:")
        L.append("\t\t\tif 'sym' in node:")
        L.append("\t\t\t\tprint(\"\t[%x] %s%s%s%s\" % (")
        L.append("\t\t\t\t\tnode['ip'], node['sym']['name'],")
        L.append("\t\t\t\t\t\"+0x{:x}\".format(node['sym_off']) "
                 "if 'sym_off' in node else \"\",")
        L.append("\t\t\t\t\t\" ({})\".format(node['dso']) "
                 "if 'dso' in node else \"\",")
        L.append("\t\t\t\t\t\" \" + node['sym_srcline'] "
                 "if 'sym_srcline' in node else \"\"))")
        L.append("\t\t\telse:")
        L.append("\t\t\t\tprint(\"\t[%x]\" % (node['ip']))")
        L.append("")
        L.append("\t\tprint()")
        L.append("")
    L += ["def trace_unhandled(event_name, context, event_fields_dict, "
          "perf_sample_dict):",
          "\t\tprint(get_dict_as_string(event_fields_dict))",
          "\t\tprint('Sample: {'+get_dict_as_string("
          "perf_sample_dict['sample'], ', ')+'}')",
          "",
          "def print_header(event_name, cpu, secs, nsecs, pid, comm):",
          "\tprint(\"%-20s %5u %05u.%09u %8u %-20s \" % \\",
          "\t(event_name, cpu, secs, nsecs, pid, comm), end=\"\")",
          "",
          "def get_dict_as_string(a_dict, delimiter=' '):",
          "\treturn delimiter.join(['%s=%s'%(k,str(v))"
          "for k,v in sorted(a_dict.items())])",
          ""]
    return "\n".join(L)


def _wrappers(d):
    """NAME -> (args, description) of perf's report wrappers."""
    out = {}
    for lang in ("perl", "python"):
        b = os.path.join(d, "scripts", lang, "bin")
        if not os.path.isdir(b):
            continue
        for f in os.listdir(b):  # readdir order, as perf
            if not f.endswith("-report"):
                continue
            name = f[:-len("-report")]
            desc, args = "", ""
            with open(os.path.join(b, f), errors="replace") as fh:
                for line in fh:
                    t = line[1:].lstrip() if line.startswith("#") else ""
                    if t.startswith("description:"):
                        desc = t[len("description:"):].strip()
                    elif t.startswith("args:"):
                        args = t[len("args:"):].strip()
            out.setdefault(name, (args, desc))
    return out


def list_scripts():
    d = perf_exec_path()
    print("List of available trace scripts:")
    if not d:
        return 0
    try:
        for name, (args, desc) in _wrappers(d).items():
            print("  %-36s %s" % ((name + " " + args) if args else name,
                                  desc))
        sys.stdout.flush()
    except BrokenPipeError:  # a reader that stopped early (head, grep -q)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def run_wrapper(kind, name, args):
    """report/record NAME: perf's wrapper with `perf` standing for
    perfring."""
    d = perf_exec_path()
    path = None
    for lang in ("python", "perl"):
        p = os.path.join(d or "", "scripts", lang, "bin",
                         "%s-%s" % (name, kind))
        if os.path.isfile(p):
            path = p
            break
    if path is None:
        sys.stderr.write("perfring script: %s %s: no such script "
                         "(perf's scripts looked for under %s)\n" %
                         (kind, name, d or " ".join(PERF_DIRS)))
        return 2
    os.environ["PERF_EXEC_PATH"] = d
    shim = 'perf() { "$PERFRING" "$@"; }; w=$1; shift; . "$w"'
    os.execvp("bash", ["bash", "-c", shim, "bash", path] + list(args))
    return 127


def main(argv):
    mode, what, data = argv[1], argv[2], argv[3]
    args = argv[5:] if len(argv) > 4 and argv[4] == "--" else argv[4:]
    if mode == "-s":
        return run_script(what, args)
    if mode == "-g":
        return gen_script(what, data)
    if mode == "-l":
        return list_scripts()
    if mode in ("-p", "-r"):
        return run_wrapper("report" if mode == "-p" else "record", what,
                           args)
    sys.stderr.write("perfring.perfscript: run by perfring script\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
