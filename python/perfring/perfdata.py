# SPDX-License-Identifier: MIT
"""perf.data files from Python: libperfring-perfdata (<perfring/perfdata.h>)
over ctypes, read as `perfring script` reads them.

    import perfring.perfdata as perfdata
    with perfdata.open("perf.data") as pd:          # "-": standard input
        print(pd.features.get("hostname"), pd.event_names)
        for ev in pd:                               # time order
            if ev.type == "SAMPLE":
                print(ev.time, ev.comm, ev.tid, ev.name, ev.sym, ev.dso)
                for fr in ev.callchain:             # Frame: ip, sym, dso,
                    print("  ", fr.sym, fr.dso)     # symoff, inlined
                if ev.fields:                       # tracepoint fields
                    print(ev.fields)

An event's numbers (type, time, pid, tid, cpu, ip, addr, period, ...) are
read with one unpack when the reader steps to it; what costs more (the
call chain's frames and their symbol names, the tracepoint fields, the
raw data) is decoded the first time it is touched, from a copy taken at
that step, so an event stays readable after the reader has moved on (kept
in a list, say).  One C call per event steps the reader; symbol and file
names are converted to str once per file.

Errors raise perfring.Error (.code the library's PFR_E_* / PFR_PERF_E_*,
.errno the system errno or None); a closed reader raises ValueError, as
every handle of the package does.

The library is libperfring-perfdata.so.0: $PERFRING_PERFDATA_LIB, else
beside the libperfring the package loaded ($PERFRING_LIB's directory, the
LIBDIR `make install` recorded), else by the dynamic linker.
"""
import ctypes
import ctypes.util
import os
import re
import struct
import sys

from perfring import _core
from perfring._core import (
    _Handle, Error, LibraryNotFound, _check, _uint, _vp, _cp, _int, _u8,
    _u16, _u32, _u64, _i64, _size, _RecordHeader, P, E_AGAIN, E_INVAL,
    E_NOSPC, E_SYSTEM)

# pfr_perfdata_opts.flags
FILE_ORDER = 0x1
NO_SYMBOLS = 0x2
NO_INLINE = 0x4
NO_UNWIND = 0x8
SAMPLES_ONLY = 0x10
OWN_AS_READ = 0x20  # perf's own records as read (script -D's order)
NO_FRAMES = 0x40  # samples without frames (no call chain, no sym/dso)
# pfr_perfdata_frame.flags
FRAME_KERNEL, FRAME_FOUND, FRAME_INLINED, FRAME_UNWOUND = 0x1, 0x2, 0x4, 0x8
# enum pfr_perfdata_kind
SIGNED, UNSIGNED, STRING, BYTES = 1, 2, 3, 4
# PFR_PERF_E_* (<perfring/perf.h>)
(PERF_E_UNKNOWN_EVENT, PERF_E_NO_TRACEFS, PERF_E_NO_TRACEPOINT,
 PERF_E_SAMPLE_TYPE, PERF_E_TRUNCATED, PERF_E_STRING, PERF_E_FILE_MAGIC,
 PERF_E_FILE_LAYOUT) = range(100, 108)
PERF_E_COMPRESSED = 116
# PERF_RECORD_SAMPLE, PERF_TYPE_TRACEPOINT
_SAMPLE, _TRACEPOINT = 9, 2
# PFR_PERF_F_*
_F_IP, _F_TID, _F_TIME, _F_ADDR, _F_ID, _F_STREAM, _F_CPU, _F_PERIOD = (
    0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x40, 0x80)
_F_CALLCHAIN, _F_RAW = 0x100, 0x200

# header features: perf's HEADER_* numbers, by the names of perf's header
FEATURES = {"hostname": 3, "osrelease": 4, "version": 5, "arch": 6,
            "nrcpus": 7, "cpudesc": 8, "cpuid": 9, "total_mem": 10,
            "cmdline": 11}

# perf's record type names (pfr_perf_record_name() has them all; these
# spare a call for the common ones)
_RECORD_NAMES = {1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT",
                 5: "THROTTLE", 6: "UNTHROTTLE", 7: "FORK", 8: "READ",
                 9: "SAMPLE", 10: "MMAP2", 14: "SWITCH",
                 15: "SWITCH_CPU_WIDE", 68: "FINISHED_ROUND"}


class _Opts(ctypes.Structure):
    # struct pfr_perfdata_opts
    _fields_ = [("sz", _size), ("flags", ctypes.c_uint),
                ("max_frames", ctypes.c_uint), ("buildid_dir", _cp),
                ("queue_bytes", _u64)]


class _MmapU(ctypes.Structure):
    _fields_ = [("pid", _u32), ("tid", _u32), ("start", _u64),
                ("len", _u64), ("pgoff", _u64), ("prot", _u32),
                ("flags", _u32), ("filename", _vp)]


class _CommU(ctypes.Structure):
    _fields_ = [("pid", _u32), ("tid", _u32), ("comm", _vp)]


class _TaskU(ctypes.Structure):
    _fields_ = [("pid", _u32), ("ppid", _u32), ("tid", _u32),
                ("ptid", _u32), ("time", _u64)]


class _LostU(ctypes.Structure):
    _fields_ = [("id", _u64), ("lost", _u64)]


class _ThrottleU(ctypes.Structure):
    _fields_ = [("time", _u64), ("id", _u64), ("stream_id", _u64)]


class _SwU(ctypes.Structure):
    _fields_ = [("next_prev_pid", _u32), ("next_prev_tid", _u32)]


class _KsymU(ctypes.Structure):
    _fields_ = [("addr", _u64), ("len", _u32), ("ksym_type", _u16),
                ("flags", _u16), ("name", _vp)]


class _RecU(ctypes.Union):
    _fields_ = [("mmap", _MmapU), ("comm", _CommU), ("task", _TaskU),
                ("lost", _LostU), ("throttle", _ThrottleU), ("sw", _SwU),
                ("ksymbol", _KsymU)]


class _PerfRec(ctypes.Structure):
    # struct pfr_perf_rec (<perfring/perf.h>)
    _fields_ = [("type", _u32), ("misc", _u16), ("size", _u16),
                ("fields", _u32), ("cpu", _u32), ("pid", _u32),
                ("tid", _u32), ("time", _u64), ("id", _u64),
                ("stream_id", _u64), ("ip", _u64), ("addr", _u64),
                ("period", _u64), ("nr_callchain", _u64),
                ("callchain", _vp), ("raw_size", _u32), ("raw", _vp),
                ("u", _RecU)]


class _Event(ctypes.Structure):
    # struct pfr_perfdata_event
    _fields_ = [("sz", _size), ("type", _u32), ("evidx", _u32),
                ("name", _cp), ("attr", _vp), ("rec", _PerfRec),
                ("decoded", _int), ("len", _u32), ("hdr", _RecordHeader),
                ("payload", _vp), ("pos", _u64), ("comm", _vp),
                ("nr_frames", _u32), ("frames", _vp)]


class _Frame(ctypes.Structure):
    # struct pfr_perfdata_frame
    _fields_ = [("ip", _u64), ("addr", _u64), ("sym", _vp),
                ("symoff", _u64), ("dso", _vp), ("flags", ctypes.c_uint),
                ("pad", ctypes.c_uint)]


class _Stats(ctypes.Structure):
    # struct pfr_perfdata_stats
    _fields_ = [("sz", _size), ("records", _u64), ("bad", _u64),
                ("late", _u64), ("capped", _u64), ("cut", _u64),
                ("unfinished", _int), ("pad", _int),
                ("zstd_cut_frame", _u64)]


class _Value(ctypes.Structure):
    # struct pfr_perfdata_value
    _fields_ = [("name", _cp), ("type", _cp), ("kind", ctypes.c_uint),
                ("elem_size", ctypes.c_uint), ("i", _i64), ("u", _u64),
                ("str", _vp), ("bytes", _vp), ("len", _u32),
                ("common", _u32)]


SIGS = [
    ("pfr_perfdata_close", _int, [_vp]),
    ("pfr_perfdata_file", _vp, [_vp]),
    ("pfr_perfdata_next", _int, [_vp, P(_vp)]),
    ("pfr_perfdata_stats", _int, [_vp, P(_Stats)]),
    ("pfr_perfdata_nr_fields", _int, [_vp, _vp]),
    ("pfr_perfdata_field", _int, [_vp, _vp, _int, P(_Value)]),
    ("pfr_perfdata_field_by_name", _int, [_vp, _vp, _cp, P(_Value)]),
    ("pfr_perfdata_trace_text", _int, [_vp, _vp, _cp, _size]),
    ("pfr_perfdata_feature", _cp, [_vp, ctypes.c_uint]),
    ("pfr_perfdata_buildid", _int, [_vp, _cp, P(_u8), P(_size)]),
    ("pfr_perfdata_comm", _cp, [_vp, _u32]),
    ("pfr_perfdata_resolve", _int, [_vp, _u32, _u64, ctypes.c_uint,
                                    P(_Frame)]),
]
# the core's (libperfring), on the perf.data file underneath
CORE_SIGS = [
    ("pfr_perf_file_nr_events", _u32, [_vp]),
    ("pfr_perf_file_event_name", _cp, [_vp, _u32]),
    ("pfr_perf_file_attr", _vp, [_vp, _u32]),
    ("pfr_perf_record_name", _cp, [_u32]),
    ("pfr_perf_file_tracing", _vp, [_vp, P(_u64)]),
]
SYS_SIGS = [
    ("pfr_perfdata_open", _int, [P(_vp), _cp, P(_Opts)]),
]

_c = _core._Lib()
_ce = _core._Lib()
_lib = None


def _candidates():
    env = os.environ.get("PERFRING_PERFDATA_LIB")
    if env:
        return [env]
    out = []
    core = os.environ.get("PERFRING_LIB")
    if core:
        out.append(os.path.join(os.path.dirname(core) or ".",
                                "libperfring-perfdata.so.0"))
    try:
        from perfring import _paths  # written by `make install`
        out.append(os.path.join(_paths.LIBDIR, "libperfring-perfdata.so.0"))
    except ImportError:
        pass
    out.append(ctypes.util.find_library("perfring-perfdata") or
               "libperfring-perfdata.so.0")
    return out


def load():
    """Loads libperfring (first: the perf.data library needs it, and the
    dynamic linker then takes the one loaded) and libperfring-perfdata,
    once; raises LibraryNotFound when it cannot."""
    global _lib
    if _lib is not None:
        return _lib
    core = _core.load()
    for name, res, args in CORE_SIGS:
        f = getattr(core, name)
        f.restype, f.argtypes = res, args
        setattr(_c, name, f)
    tried = []
    for cand in _candidates():
        try:
            lib = ctypes.CDLL(cand)
            elib = ctypes.CDLL(cand, use_errno=True)
            for name, res, args in SIGS + SYS_SIGS:
                f = getattr(lib, name)
                f.restype, f.argtypes = res, args
                setattr(_c, name, f)
            for name, res, args in SYS_SIGS:
                f = getattr(elib, name)
                f.restype, f.argtypes = res, args
                setattr(_ce, name, f)
        except (OSError, AttributeError) as e:
            tried.append("%s (%s)" % (cand, e))
            continue
        _lib = lib
        return lib
    raise LibraryNotFound(
        "perfring: cannot load libperfring-perfdata; tried %s.  Fix: build "
        "it (make, in the perfring tree) and set PERFRING_PERFDATA_LIB to "
        "the build's libperfring-perfdata.so.0 (or PERFRING_LIB to its "
        "libperfring.so beside it), or install it (make install, then "
        "ldconfig)." % "; ".join(tried))


def _off(cls, path):
    """The offset of the field path ("rec.time") in cls."""
    off = 0
    for part in path.split("."):
        fld = getattr(cls, part)
        off += fld.offset
        cls = dict(cls._fields_)[part]
    return off


def _picker(cls, fields):
    """A struct.Struct reading fields [(path, code)] of cls in one unpack
    (the values in the order given)."""
    at = sorted((_off(cls, p), c, i) for i, (p, c) in enumerate(fields))
    fmt, pos, order = "=", 0, []
    for off, code, i in at:
        fmt += "%dx%s" % (off - pos, code) if off > pos else code
        pos = off + struct.calcsize("=" + code)
        order.append(i)
    if order != sorted(order):
        raise AssertionError("perfring.perfdata: give _picker fields in "
                             "offset order")
    return struct.Struct(fmt)


_Q = "Q" if ctypes.sizeof(_vp) == 8 else "I"
# what the reader takes of each event in one unpack, in offset order
_EV = _picker(_Event, [
    ("type", "I"), ("evidx", "I"), ("rec.misc", "H"), ("rec.fields", "I"),
    ("rec.cpu", "I"), ("rec.pid", "I"), ("rec.tid", "I"),
    ("rec.time", "Q"), ("rec.id", "Q"), ("rec.ip", "Q"), ("rec.addr", "Q"),
    ("rec.period", "Q"), ("rec.raw_size", "I"), ("rec.raw", _Q),
    ("decoded", "i"), ("len", "I"), ("payload", _Q), ("pos", "Q"),
    ("comm", _Q), ("nr_frames", "I"), ("frames", _Q)])
_FR = struct.Struct("=QQ%sQ%sII" % (_Q, _Q))
# a struct pfr_perfdata_value: name, kind, i, u, str, bytes, len, common
_VAL = _picker(_Value, [
    ("name", _Q), ("kind", "I"), ("i", "q"), ("u", "Q"), ("str", _Q),
    ("bytes", _Q), ("len", "I"), ("common", "I")])
_FR_SIZE = ctypes.sizeof(_Frame)
if _FR.size != _FR_SIZE:
    raise ImportError("perfring.perfdata: struct pfr_perfdata_frame is %d "
                      "bytes, the unpacker %d" % (_FR_SIZE, _FR.size))
_EV_SIZE = ctypes.sizeof(_Event)
_string_at = ctypes.string_at
_NONE_STR = {0: None}


# Tracepoint formats, as the tracing data of the file writes them (the
# text of tracefs' format files): decoded here, one unpack of the numbers
# per sample, instead of a C call per field.  What this does not know
# (no format, a field type it cannot place) goes to the library's
# pfr_perfdata_field() instead.
_FMT_RE = re.compile(rb"name: (\S+)\nID: (\d+)\nformat:\n(.*?)\n\nprint fmt",
                     re.S)
_FLD_RE = re.compile(rb"\tfield:([^;]*);\toffset:(\d+);\tsize:(\d+);"
                     rb"\tsigned:(\d+);")
_DECL_RE = re.compile(r"^(.*?)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])?$")
_NUM = {(1, 0): "B", (1, 1): "b", (2, 0): "H", (2, 1): "h", (4, 0): "I",
        (4, 1): "i", (8, 0): "Q", (8, 1): "q"}


def _is_char(typ):
    # libtraceevent's strings: arrays of char (signed or not), u8, s8
    return "char" in typ or typ.split()[-1:] in (["u8"], ["s8"])


def _plan(body):
    """[(name, common, how, off, size)] of a format's fields, how one of
    "num" (then the numbers' struct), "str", "bytes", "dstr", "dbytes"
    (__data_loc), "rstr", "rbytes" (__rel_loc); None when a field is
    beyond this decoder."""
    out, nums = [], "="
    pos = 0
    for decl, off, size, sgn in _FLD_RE.findall(body):
        decl, off, size = decl.decode("latin-1"), int(off), int(size)
        m = _DECL_RE.match(decl.strip())
        if not m:
            return None
        typ, name, arr = m.group(1), m.group(2), m.group(3)
        common = name.startswith("common_")
        dyn = typ.startswith("__data_loc") or typ.startswith("__rel_loc")
        if dyn:
            if size != 4:
                return None
            how = ("r" if typ.startswith("__rel_loc") else "d") + (
                "str" if _is_char(typ) else "bytes")
        elif arr is not None:
            how = "str" if _is_char(typ) else "bytes"
        else:
            code = _NUM.get((size, int(sgn)))
            if code is None:
                return None
            if off < pos:
                return None
            nums += "%dx%s" % (off - pos, code) if off > pos else code
            pos = off + size
            how = "num"
        out.append((name, common, how, off, size))
    return out, struct.Struct(nums), pos


def _decode_plan(plan, raw):
    """The fields of raw by plan: (fields, common_fields), or None when
    raw is too short for them (the library then says why)."""
    fields, nums, need = plan
    if len(raw) < need:
        return None
    vals = iter(nums.unpack_from(raw))
    flds, cflds = {}, {}
    n = len(raw)
    for name, common, how, off, size in fields:
        if how == "num":
            x = next(vals)
        else:
            if how[0] in "dr":
                if off + 4 > n:
                    return None
                loc = int.from_bytes(raw[off:off + 4], "little")
                at, size = loc & 0xffff, loc >> 16
                if how[0] == "r":
                    at += off + 4
                how = how[1:]
            else:
                at = off
            if at + size > n:
                return None
            b = raw[at:at + size]
            if how == "str":
                z = b.find(b"\0")
                x = _s(b[:z] if z >= 0 else b)
            else:
                x = b
        (cflds if common else flds)[name] = x
    return flds, cflds


def _s(b):
    return b.decode("utf-8", "surrogateescape")


def _str_at(h, p):
    return _string_at(p)


class Frame(object):
    """One frame of a call chain: ip (as recorded), addr (as perf script
    shows it: a user frame's offset into its file), sym ("[unknown]" when
    not found), symoff (None when not found), dso ("[unknown]" when not
    mapped, None for an inlined frame), inlined, kernel, unwound (from a
    DWARF user stack)."""
    __slots__ = ("ip", "addr", "sym", "symoff", "dso", "flags")

    def __init__(self, ip, addr, sym, symoff, dso, flags):
        self.ip, self.addr, self.sym, self.dso = ip, addr, sym, dso
        self.symoff = symoff if flags & FRAME_FOUND else None
        self.flags = flags

    @property
    def inlined(self):
        return bool(self.flags & FRAME_INLINED)

    @property
    def kernel(self):
        return bool(self.flags & FRAME_KERNEL)

    @property
    def unwound(self):
        return bool(self.flags & FRAME_UNWOUND)

    def as_dict(self):
        return {"ip": self.ip, "addr": self.addr, "sym": self.sym,
                "symoff": self.symoff, "dso": self.dso,
                "inlined": self.inlined, "kernel": self.kernel}

    def __repr__(self):
        return "Frame(ip=0x%x, sym=%r, symoff=%r, dso=%r%s)" % (
            self.ip, self.sym, self.symoff, self.dso,
            ", inlined" if self.inlined else "")


class Event(object):
    """One record of the file.  type: perf's record type name ("SAMPLE",
    "COMM", "MMAP2", ...; record_type the number); name: the event's
    name (of the attr it belongs to); time, pid, tid, cpu, ip, addr,
    period, id: None when the record does not carry them; comm: the
    command of the thread; sym, symoff, dso: the sample's ip resolved
    (frame 0); callchain: list of Frame (frame 0 the sample's ip);
    fields: a tracepoint's fields by name (common_* left out; {} for
    another event), common_fields the common_* ones; raw: the tracepoint
    raw data (bytes); text: perf script's text of the tracepoint fields;
    payload: the record's payload bytes; pos: its offset in the file.
    The call chain, fields and payload are decoded when first touched."""
    __slots__ = ("_rd", "_t", "_fr", "_chain", "_pl", "_flds", "_cflds",
                 "_evb", "_comm", "__weakref__")

    @property
    def record_type(self):
        return self._t[0]

    @property
    def type(self):
        t = self._t[0]
        n = _RECORD_NAMES.get(t)
        return n if n is not None else self._rd._record_name(t)

    @property
    def evidx(self):
        return self._t[1]

    @property
    def name(self):
        return self._rd._names[self._t[1]]

    @property
    def misc(self):
        return self._t[2]

    @property
    def time(self):
        t = self._t
        return t[7] if t[3] & _F_TIME else None

    @property
    def pid(self):
        t = self._t
        return t[5] if t[3] & _F_TID else None

    @property
    def tid(self):
        t = self._t
        return t[6] if t[3] & _F_TID else None

    @property
    def cpu(self):
        t = self._t
        return t[4] if t[3] & _F_CPU else None

    @property
    def id(self):
        t = self._t
        return t[8] if t[3] & _F_ID else None

    @property
    def ip(self):
        t = self._t
        return t[9] if t[3] & _F_IP else None

    @property
    def addr(self):
        t = self._t
        return t[10] if t[3] & _F_ADDR else None

    @property
    def period(self):
        t = self._t
        return t[11] if t[3] & _F_PERIOD else None

    @property
    def decoded(self):
        """0, or the decoder's (negative) error for a malformed record."""
        return self._t[14]

    @property
    def pos(self):
        return self._t[17]

    @property
    def comm(self):
        return self._comm

    @property
    def callchain(self):
        ch = self._chain
        if ch is None:
            ch = self._chain = self._rd._frames(self._fr)
        return ch

    def _frame0(self, i):
        fr = self._fr
        if not fr:
            return None
        ip, addr, sym, symoff, dso, flags, _ = _FR.unpack_from(fr)
        rd = self._rd
        if i == 0:
            return rd._str(sym)
        if i == 1:
            return symoff if flags & FRAME_FOUND else None
        return rd._str(dso)

    sym = property(lambda self: self._frame0(0))
    symoff = property(lambda self: self._frame0(1))
    dso = property(lambda self: self._frame0(2))

    @property
    def payload(self):
        return self._pl

    @property
    def raw(self):
        """The raw data of a sample (a tracepoint's record), or None."""
        t = self._t
        if not t[3] & _F_RAW or self._pl is None:
            return None
        at = t[13] - t[16]
        return self._pl[at:at + t[12]]

    @property
    def is_tracepoint(self):
        return self._rd._is_tp(self._t)

    @property
    def fields(self):
        f = self._flds
        if f is None:
            self._rd._decode_fields(self)
            f = self._flds
        return f

    @property
    def common_fields(self):
        f = self._cflds
        if f is None:
            self._rd._decode_fields(self)
            f = self._cflds
        return f

    def field(self, name):
        """The tracepoint field called name (common_* too); KeyError when
        the event's format has none."""
        f = self.fields
        if name in f:
            return f[name]
        return self.common_fields[name]

    @property
    def text(self):
        """perf script's text of a tracepoint's fields, or None."""
        return self._rd._trace_text(self)

    # side-band records' fields (MMAP, COMM, FORK, EXIT, LOST, ...)
    def _u(self):
        ev = self._evb
        return _Event.from_buffer_copy(ev).rec.u if ev else None

    def _pl_str(self, p):
        """The NUL-terminated string the record's pointer p pointed at,
        from the payload copy (p was into the payload)."""
        if not p or self._pl is None:
            return None
        at = p - self._t[16]
        if not 0 <= at < len(self._pl):
            return None
        end = self._pl.find(b"\0", at)
        return _s(self._pl[at:end if end >= 0 else len(self._pl)])

    @property
    def mmap(self):
        """MMAP/MMAP2: dict of pid, tid, start, len, pgoff, prot, flags,
        filename; None for another record."""
        if self._t[0] not in (1, 10):
            return None
        m = self._u().mmap
        return {"pid": m.pid, "tid": m.tid, "start": m.start,
                "len": m.len, "pgoff": m.pgoff, "prot": m.prot,
                "flags": m.flags, "filename": self._pl_str(m.filename)}

    @property
    def comm_record(self):
        """COMM: dict of pid, tid, comm, exec (the misc bit); else
        None."""
        if self._t[0] != 3:
            return None
        c = self._u().comm
        return {"pid": c.pid, "tid": c.tid, "comm": self._pl_str(c.comm),
                "exec": bool(self._t[2] & 0x2000)}

    @property
    def task(self):
        """FORK/EXIT: dict of pid, ppid, tid, ptid, time; else None."""
        if self._t[0] not in (4, 7):
            return None
        t = self._u().task
        return {"pid": t.pid, "ppid": t.ppid, "tid": t.tid,
                "ptid": t.ptid, "time": t.time}

    @property
    def lost(self):
        """LOST/LOST_SAMPLES: the number of records lost; else None."""
        if self._t[0] not in (2, 13):
            return None
        return self._u().lost.lost

    _KEYS = ("type", "name", "time", "pid", "tid", "cpu", "ip", "addr",
             "period", "id", "comm")

    def as_dict(self):
        """The event as a dict: the keys above whose value is not None,
        and for a sample sym, symoff, dso, callchain (a list of dicts),
        fields (a tracepoint's)."""
        d = {}
        for k in self._KEYS:
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self._t[0] == _SAMPLE:
            for k in ("sym", "symoff", "dso"):
                v = getattr(self, k)
                if v is not None:
                    d[k] = v
            d["callchain"] = [f.as_dict() for f in self.callchain]
            if self.is_tracepoint:
                d["fields"] = dict(self.fields)
        return d

    def __repr__(self):
        return "<perfring.perfdata.Event %s %s time=%s tid=%s>" % (
            self.type, self.name, self.time, self.tid)


def _opts(flags=0, file_order=False, symbols=True, inline=True,
          unwind=True, frames=True, samples_only=False, max_frames=0,
          buildid_dir=None, queue_bytes=0):
    _uint("flags", flags, 32)
    _uint("max_frames", max_frames, 32)
    _uint("queue_bytes", queue_bytes, 64)
    flags |= FILE_ORDER if file_order else 0
    flags |= 0 if symbols else NO_SYMBOLS
    flags |= 0 if inline else NO_INLINE
    flags |= 0 if unwind else NO_UNWIND
    flags |= 0 if frames else NO_FRAMES
    flags &= ~SAMPLES_ONLY
    # samples_only: side-band records are skipped here, not by the
    # library, so that the reader sees them go past (its comm cache)
    o = _Opts()
    o.sz = ctypes.sizeof(o)
    o.flags, o.max_frames, o.queue_bytes = flags, max_frames, queue_bytes
    if buildid_dir is not None:
        o.buildid_dir = os.fsencode(buildid_dir)
    return o


def open(path="perf.data", **opts):
    """Opens a perf.data file (perf's or perfring's, file or pipe format,
    compressed or not; "-": standard input) and returns a Reader.
    Options: file_order (records as stored, not in time order),
    symbols=False (frames without symbols), inline=False (no inlined
    frames), unwind=False (DWARF user stacks not unwound), frames=False
    (no frames at all: callchain [], sym/dso None), samples_only
    (side-band records tracked but not returned), max_frames (per sample;
    0: 512), buildid_dir (the build-id cache; None: $PERF_BUILDID_DIR,
    else ~/.debug), queue_bytes (memory for time ordering; 0: 64 MiB),
    flags (the C flags, ORed in).  Raises perfring.Error: errno ENOENT
    for a missing file, code PERF_E_FILE_MAGIC for one that is no
    perf.data, PERF_E_FILE_LAYOUT for one cut short in its header."""
    return Reader._open(path, _opts(**opts),
                        bool(opts.get("samples_only")) or
                        bool(opts.get("flags", 0) & SAMPLES_ONLY))


class Reader(_Handle):
    """An open perf.data file.  Iterate it for its Events (time order);
    a context manager; close() frees it (later calls raise ValueError).
    Also: features (dict of the header's features), feature(name),
    event_names, buildid(path), comm(tid), resolve(pid, addr), stats()."""

    _what = "perf.data reader"
    _makers = "perfring.perfdata.open()"

    @staticmethod
    def _c_close(h):
        _c.pfr_perfdata_close(h)

    @classmethod
    def _open(cls, path, o, samples_only=False):
        if isinstance(path, os.PathLike):
            path = os.fspath(path)
        if isinstance(path, str):
            path = os.fsencode(path)
        if not isinstance(path, bytes):
            raise TypeError("perfring: a path is a str or bytes, not %s" %
                            type(path).__name__)
        if b"\0" in path:
            raise ValueError("perfring: a path cannot hold a NUL byte")
        load()
        h = _vp()
        rc = _ce.pfr_perfdata_open(ctypes.byref(h), path, ctypes.byref(o))
        if rc < 0:
            raise Error(-rc, "pfr_perfdata_open", _core._sys_errno(rc))
        self = cls._adopt(h)
        self._evp = _vp()
        self._evref = ctypes.byref(self._evp)
        self._evaddr = None
        self._view = None
        self._strs = {0: None}  # char * (valid until close) -> str
        self._comms = {}  # (char *, tid) -> str, until a side-band record
        self._tp = {}  # evidx -> is a tracepoint
        self._samples_only = samples_only
        self._it = None
        # tracepoint fields: a scratch event, a value and its unpacker
        self._scratch = _Event()
        self._scratch_ref = ctypes.byref(self._scratch)
        self._val = _Value()
        self._valref = ctypes.byref(self._val)
        self._valview = memoryview(self._val).cast("B")
        self._nfields = {}  # evidx -> fields of its format
        self._plans = {}  # evidx -> the Python decoder's plan, or None
        self._fmts = None  # tracepoint id -> format text
        f = _c.pfr_perfdata_file(h)
        n = _c.pfr_perf_file_nr_events(f)
        self._names = [_s(_c.pfr_perf_file_event_name(f, i) or b"")
                       for i in range(n)]
        self._features = None
        return self

    # --- iteration ---
    def __iter__(self):
        """The events from where the reader is (one generator per
        reader: iterating twice continues, as the file is read once)."""
        it = self._it
        if it is None:
            it = self._it = self._events()
        return it

    def __next__(self):
        return next(self.__iter__())

    def _events(self):
        """The generator behind iteration: everything it uses per event is
        a local (a generator resumes faster than a method is called)."""
        calls = self._calls
        locked = _core._LOCKED
        nxt = _c.pfr_perfdata_next
        h, ref, evp = self._h, self._evref, self._evp
        unpack = _EV.unpack_from
        new = Event.__new__
        comms = self._comms
        samples_only = self._samples_only
        is_tp = self._is_tp
        tps = self._tp
        evaddr = view = fraddr = frview = None
        frcap = 0
        while True:
            if locked:
                self._enter("next")
            else:
                calls.append(None)
                if self._closed:
                    self._leave()
                    raise _core._closed_error("next", self._what)
            try:
                while True:
                    rc = nxt(h, ref)
                    if rc != 1:
                        break
                    p = evp.value
                    if p != evaddr:
                        view = (ctypes.c_char * _EV_SIZE).from_address(p)
                        evaddr = p
                    t = unpack(view)
                    if t[0] == _SAMPLE or not samples_only:
                        break
                    comms.clear()
                if rc != 1:
                    ev = None
                else:
                    ev = new(Event)
                    ev._rd = self
                    ev._t = t
                    ev._chain = ev._flds = ev._cflds = None
                    if t[0] == _SAMPLE:
                        nf = t[19] * _FR_SIZE
                        if not nf:
                            ev._fr = b""
                        else:
                            # a view on the frames array (the same array
                            # from event to event): one slice copies it
                            if t[20] != fraddr or nf > frcap:
                                fraddr, frcap = t[20], nf
                                frview = memoryview((ctypes.c_char * nf)
                                                    .from_address(fraddr))
                            ev._fr = frview[:nf].tobytes()
                        if t[3] & _F_RAW and (tps.get(t[1]) or (
                                t[1] not in tps and is_tp(t))):
                            ev._pl = _string_at(t[16], t[15])
                            ev._evb = view.raw
                        else:
                            ev._pl = ev._evb = None
                    else:
                        # side-band: rare; copy all, forget the comms seen
                        comms.clear()
                        ev._fr = b""
                        ev._evb = view.raw
                        ev._pl = _string_at(t[16], t[15]) if t[15] else b""
                    cp = t[18]
                    if cp:
                        key = (cp, t[6])
                        c = comms.get(key)
                        if c is None:
                            c = comms[key] = _s(_string_at(cp))
                        ev._comm = c
                    else:
                        ev._comm = None
            finally:
                if locked:
                    self._leave()
                else:
                    calls.pop()
                    if self._closed and not calls:
                        self._release_once()
            if ev is None:
                break
            yield ev
        # the end (the generator is then done: StopIteration again), or
        # an error, raised again at every later call as
        # pfr_perfdata_next() returns it again
        if rc != 0:
            err = Error(-rc, "pfr_perfdata_next")
            self._it = self._failed(err)
            raise err

    def _failed(self, err):
        self._it = self._failed(err)
        if self._closed:
            raise _core._closed_error("next", self._what)
        raise err
        yield

    def next(self):
        """The next Event, or None at the end."""
        try:
            return self.__next__()
        except StopIteration:
            return None

    # --- helpers of Event ---
    def _str(self, p):
        """The library's string at p (a symbol or file name, valid until
        close) as str, converted once: inside the call bracket, so that a
        close() in another thread cannot free it under the copy."""
        s = self._strs.get(p)
        if s is None and p:
            s = self._strs[p] = _s(self._call("a symbol name",
                                              _str_at, p))
        return s

    def _frames(self, fr):
        out = []
        if not fr:
            return out
        strs = self._strs
        mk = Frame
        for ip, addr, sym, symoff, dso, flags, _ in _FR.iter_unpack(fr):
            s = strs.get(sym)
            if s is None:
                s = self._str(sym)
            d = strs.get(dso)
            if d is None and dso:
                d = self._str(dso)
            out.append(mk(ip, addr, s, symoff, d, flags))
        return out

    def _record_name(self, t):
        load()
        n = _c.pfr_perf_record_name(t)
        return n.decode() if n else "RECORD_%d" % t

    def _is_tp(self, t):
        tp = self._tp.get(t[1])
        if tp is None:
            tp = self._tp[t[1]] = self._call(
                "is_tracepoint", self._attr_is_tp, t[1])
        return tp

    def _attr_is_tp(self, h, evidx):
        a = _c.pfr_perf_file_attr(_c.pfr_perfdata_file(h), evidx)
        if a:
            return ctypes.c_uint32.from_address(a).value == _TRACEPOINT
        return False

    def _event_copy(self, ev):
        """The reader's scratch struct pfr_perfdata_event, filled as ev
        was, its payload and raw pointers into ev's copy of the payload
        (a bytes object's own buffer, read only by the library); with the
        object that keeps that buffer alive."""
        e = self._scratch
        ctypes.memmove(ctypes.addressof(e), ev._evb, _EV_SIZE)
        keep = ctypes.c_char_p(ev._pl)
        base = ctypes.cast(keep, _vp).value
        t = ev._t
        e.payload = base
        e.rec.raw = base + (t[13] - t[16])
        e.nr_frames = 0
        e.frames = None
        e.comm = None
        return e, keep

    def _decode_fields(self, ev):
        if not ev._evb or ev._pl is None:
            ev._flds, ev._cflds = {}, {}
            return
        plan = self._plans.get(ev._t[1], 0)
        if plan == 0:
            plan = self._plans[ev._t[1]] = self._call(
                "fields", self._plan_of, ev._t[1])
        if plan is not None:
            got = _decode_plan(plan, ev.raw)
            if got is not None:
                ev._flds, ev._cflds = got
                return
        self._call("fields", self._fields_of, ev)

    def _formats(self, h):
        """tracepoint id -> the format's text, from the file's tracing
        data (once)."""
        if self._fmts is None:
            n = _u64()
            p = _c.pfr_perf_file_tracing(_c.pfr_perfdata_file(h),
                                         ctypes.byref(n))
            blob = _string_at(p, n.value) if p and n.value else b""
            self._fmts = {int(i): body for _, i, body in
                          _FMT_RE.findall(blob)}
        return self._fmts

    def _plan_of(self, h, evidx):
        """The Python decoder's plan of event evidx's format, or None
        (then the library decodes the fields)."""
        if os.environ.get("PERFRING_PY_C_FIELDS"):
            return None
        a = _c.pfr_perf_file_attr(_c.pfr_perfdata_file(h), evidx)
        if not a:
            return None
        body = self._formats(h).get(_u64.from_address(a + 8).value)
        return _plan(body) if body is not None else None

    def _fields_of(self, h, ev):
        e, keep = self._event_copy(ev)
        ep = self._scratch_ref
        evidx = ev._t[1]
        n = self._nfields.get(evidx)
        if n is None:
            n = self._nfields[evidx] = max(_c.pfr_perfdata_nr_fields(h, ep),
                                           0)
        flds, cflds = {}, {}
        vr, vview = self._valref, self._valview
        field = _c.pfr_perfdata_field
        strs = self._strs
        unpack = _VAL.unpack_from
        for i in range(n):
            rc = field(h, ep, i, vr)
            if rc < 0:
                raise Error(-rc, "pfr_perfdata_field")
            name, k, ival, uval, sp, bp, ln, common = unpack(vview)
            if k == UNSIGNED:
                x = uval
            elif k == SIGNED:
                x = ival
            elif k == STRING:
                x = _s(_string_at(sp, ln)) if ln else ""
            else:
                x = _string_at(bp, ln) if ln else b""
            nm = strs.get(name)
            if nm is None:
                nm = strs[name] = _s(_string_at(name))
            (cflds if common else flds)[nm] = x
        ev._flds, ev._cflds = flds, cflds

    def _trace_text(self, ev):
        if not ev._evb or ev._pl is None:
            return None
        return self._call("text", self._text_of, ev)

    def _text_of(self, h, ev):
        e, keep = self._event_copy(ev)
        ep = self._scratch_ref
        n = _c.pfr_perfdata_trace_text(h, ep, None, 0)
        if n < 0:
            return None
        out = ctypes.create_string_buffer(n + 1)
        _c.pfr_perfdata_trace_text(h, ep, out, n + 1)
        return _s(out.value)

    # --- the file ---
    @property
    def event_names(self):
        """The file's events' names, by index (Event.evidx)."""
        return list(self._names)

    def feature(self, name):
        """A header feature's text ("hostname", "osrelease", "version",
        "arch", "nrcpus", "cpudesc", "cpuid", "total_mem", "cmdline", or
        perf's HEADER_* number), or None when the file lacks it."""
        feat = FEATURES[name] if isinstance(name, str) else name
        _uint("feature", feat, 32)
        s = self._call("feature", _c.pfr_perfdata_feature, feat)
        return _s(s) if s is not None else None

    @property
    def features(self):
        """The header's features this library reads, by name (those the
        file has)."""
        if self._features is None:
            d = {}
            for k in FEATURES:
                v = self.feature(k)
                if v is not None:
                    d[k] = v
            self._features = d
        return dict(self._features)

    def buildid(self, path):
        """The build id HEADER_BUILD_ID records for path (as the MMAP
        records name it, or "[kernel.kallsyms]"), as hex; None when the
        file records none for it."""
        p = os.fsencode(path) if isinstance(path, str) else path
        if not isinstance(p, bytes) or b"\0" in p:
            raise TypeError("perfring: a path is a str or bytes without NUL")
        buf = (_u8 * 64)()
        n = _size(64)
        rc = self._call("buildid", _c.pfr_perfdata_buildid, p, buf,
                        ctypes.byref(n))
        if rc == -E_AGAIN:
            return None
        _check(rc, "pfr_perfdata_buildid")
        return bytes(buf[:n.value]).hex()

    def comm(self, tid):
        """The command of thread tid as the records read so far name it."""
        _uint("tid", tid, 32)
        s = self._call("comm", _c.pfr_perfdata_comm, tid)
        return _s(s) if s is not None else None

    def resolve(self, pid, addr, kernel=False):
        """addr in process pid (kernel=True: in the kernel) resolved
        against the mappings read so far: a Frame (sym "[unknown]" and
        symoff None when no symbol holds it)."""
        _uint("pid", pid, 32)
        _uint("addr", addr, 64)
        fr = _Frame()
        rc = self._call("resolve", _c.pfr_perfdata_resolve, pid, addr,
                        FRAME_KERNEL if kernel else 0, ctypes.byref(fr))
        _check(rc, "pfr_perfdata_resolve")
        return Frame(fr.ip, fr.addr, self._str(fr.sym),
                     fr.symoff, self._str(fr.dso), fr.flags)

    def stats(self):
        """What went past so far: records, bad, late, capped, cut,
        unfinished, zstd_cut_frame."""
        st = _Stats()
        st.sz = ctypes.sizeof(st)
        _check(self._call("stats", _c.pfr_perfdata_stats,
                          ctypes.byref(st)), "pfr_perfdata_stats")
        return {"records": st.records, "bad": st.bad, "late": st.late,
                "capped": st.capped, "cut": st.cut,
                "unfinished": bool(st.unfinished),
                "zstd_cut_frame": st.zstd_cut_frame}
