# SPDX-License-Identifier: MIT
"""The perf recording session (<perfring/session.h>): events of CPUs x
threads, their rings, the records in time order."""
import ctypes

from perfring._core import (
    _c, _Handle, Error, _check, _cint, _uint, _vp, _cp, _int, _u32, _u64,
    _size, _RecordHeader, load, P)

SESSION_OVERWRITE = 0x1
SESSION_SWITCH_EVENTS = 0x2
SESSION_DATA_MAPS = 0x4
SESSION_TRACKING = 0x8
SESSION_NO_BUILDID = 0x10
SESSION_NO_BPF_EVENT = 0x20
REQ_STOP, REQ_SNAPSHOT, REQ_CHILD, REQ_SWITCH = 0x1, 0x2, 0x4, 0x8
_ATTR_BYTES = 512  # room for struct perf_event_attr (136 bytes today)


class _SessionRec(ctypes.Structure):
    # struct pfr_perf_session_rec
    _fields_ = [("hdr", P(_RecordHeader)), ("payload", _vp), ("len", _u32),
                ("event", _u32), ("time", _u64), ("lay", _vp)]


_SESSION_FN = ctypes.CFUNCTYPE(_int, _vp, P(_SessionRec))


class _SessionOpts(ctypes.Structure):
    # struct pfr_perf_session_opts; sz tells the library how much of it
    # this mirror has (the rest is taken as zero)
    _fields_ = [("sz", _size), ("flags", _u32), ("data_pages", _u32),
                ("tick_ms", _int), ("pad", _int), ("proc_root", _cp),
                ("on_record", _SESSION_FN), ("arg", _vp),
                ("on_drained", _vp), ("log", _vp), ("log_arg", _vp),
                ("compress_level", _int), ("delay_ms", _int),
                ("on_switch", _vp)]


class _EventOpts(ctypes.Structure):
    # struct pfr_perf_event_opts
    _fields_ = [("sz", _size), ("name", _cp), ("flags", _u32),
                ("leader", _u32), ("nr_members", _u32), ("cgroup_fd", _int),
                ("filter", _cp)]


_STATS_U64 = ("records", "bytes", "samples", "lost", "lost_records",
              "lost_samples", "lost_counted", "throttle", "unthrottle",
              "wakeups", "snapshots", "decode_errors", "delivered")


class _SessionStats(ctypes.Structure):
    # struct pfr_perf_session_stats
    _fields_ = ([("sz", _size)] + [(n, _u64) for n in _STATS_U64] +
                [("by_type", _u64 * 32), ("other_types", _u64),
                 ("ring_bytes", _u64), ("nr_rings", _u32), ("nr_fds", _u32),
                 ("child_status", _int), ("child_reaped", _int)])


class _SessionError(ctypes.Structure):
    # struct pfr_perf_session_error
    _fields_ = [("sz", _size), ("step", _int), ("code", _int),
                ("sys_errno", _int), ("event", _int), ("cpu", _int),
                ("pid", _int)]


_CharArr = ctypes.c_char * 256
# (name, restype, argtypes), bound on first use by _bind_session().
_SIGS = [
    ("pfr_perf_session_create", _int, [P(_vp), P(_SessionOpts)]),
    ("pfr_perf_session_destroy", None, [_vp]),
    ("pfr_perf_event_parse", _int, [_cp, _vp, _cp, _size, _int]),
    ("pfr_perf_session_add_event", _int, [_vp, _vp, P(_EventOpts)]),
    ("pfr_perf_session_set_cpus", _int, [_vp, _cp]),
    ("pfr_perf_session_add_thread", _int, [_vp, _int]),
    ("pfr_perf_session_add_process", _int, [_vp, _int]),
    ("pfr_perf_session_start_command", _int, [_vp, P(_cp)]),
    ("pfr_perf_session_open", _int, [_vp]),
    ("pfr_perf_session_synthesize", _int, [_vp]),
    ("pfr_perf_session_write_file", _int, [_vp, _cp, _int, P(_cp)]),
    ("pfr_perf_session_enable", _int, [_vp]),
    ("pfr_perf_session_disable", _int, [_vp]),
    ("pfr_perf_session_poll", _int, [_vp, _int]),
    ("pfr_perf_session_drain", _int, [_vp, _int]),
    ("pfr_perf_session_request", None, [_vp, ctypes.c_uint]),
    ("pfr_perf_session_run", _int, [_vp]),
    ("pfr_perf_session_finish", _int, [_vp]),
    ("pfr_perf_session_stats", _int, [_vp, P(_SessionStats)]),
    ("pfr_perf_session_last_error", _int, [_vp, P(_SessionError)]),
    ("pfr_perf_session_nr_events", _u32, [_vp]),
    ("pfr_perf_session_event_name", _cp, [_vp, _u32]),
    ("pfr_perf_session_child", _int, [_vp]),
]
_bound = False


def _bind_session():
    global _bound
    if _bound:
        return
    lib = load()
    for name, res, args in _SIGS:
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
        setattr(_c, name, f)
    _bound = True


class SessionRecord:
    """One record the session delivered, copied out: type, misc, payload
    (the record's body, hdr.size - 8 bytes), event (its event's index by
    id, else 0), time (0 for records without one)."""

    __slots__ = ("type", "misc", "payload", "event", "time")

    def __init__(self, rec):
        h = rec.hdr.contents
        self.type, self.misc = h.type, h.misc
        self.payload = ctypes.string_at(rec.payload, rec.len) \
            if rec.len else b""
        self.event, self.time = rec.event, rec.time

    def __repr__(self):
        return "SessionRecord(type=%d, event=%d, time=%d, %d bytes)" % (
            self.type, self.event, self.time, len(self.payload))


class Session(_Handle):
    """A perf recording session: Session.create(events=[...], ...), then
    targets (add_thread, add_process, start_command, set_cpus), open(),
    enable(), run() (or poll()/drain() in a loop, then finish()), stats().
    Records reach on_record(rec) in time order (a SessionRecord); its
    returning False stops the delivery, an exception it raises stops it
    and is raised by the call that delivered.  close() (destroy) waits
    for no call: it runs once the call in flight returns; request()
    (REQ_STOP ...) may come from any thread."""

    _what = "session"
    _makers = "Session.create()"

    @staticmethod
    def _c_close(h):
        _c.pfr_perf_session_destroy(h)

    @classmethod
    def create(cls, events=(), flags=0, data_pages=0, tick_ms=0,
               proc_root=None, on_record=None, delay_ms=0):
        _uint("flags", flags, 32)
        _uint("data_pages", data_pages, 32)
        _cint("tick_ms", tick_ms)
        _cint("delay_ms", delay_ms)
        _bind_session()
        self = None
        o = _SessionOpts()
        o.sz = ctypes.sizeof(o)
        o.flags, o.data_pages, o.tick_ms = flags, data_pages, tick_ms
        o.delay_ms = delay_ms
        o.proc_root = None if proc_root is None else \
            proc_root.encode() if isinstance(proc_root, str) else proc_root
        state = {"on": on_record, "exc": None}

        def deliver(arg, rec):
            try:
                if state["on"](SessionRecord(rec.contents)) is False:
                    return -(1 << 30)
            except BaseException as e:  # noqa: B036 - re-raised later
                state["exc"] = e
                return -(1 << 30)
            return 0

        fn = _SESSION_FN(deliver) if on_record is not None else \
            _SESSION_FN()
        o.on_record = fn
        h = _vp()
        rc = _c.pfr_perf_session_create(ctypes.byref(h), ctypes.byref(o))
        if rc < 0:
            raise Error(-rc, "pfr_perf_session_create")
        self = cls._adopt(h)
        self._fn, self._state, self._opts = fn, state, o  # kept alive
        try:
            for ev in events:
                self.add_event(ev)
        except BaseException:
            self.close()
            raise
        return self

    def _call(self, what, f, *args):
        """Calls f(handle, *args); an error raises Error with the session's
        last error (its errno) or the callback's exception."""
        h = self._enter(what)
        try:
            rc = f(h, *args)
            if rc < 0 and self._state["exc"] is None:
                e = _SessionError()
                e.sz = ctypes.sizeof(e)
                _c.pfr_perf_session_last_error(h, ctypes.byref(e))
                err = Error(-rc, what, e.sys_errno or None)
                err.step, err.event, err.cpu, err.pid = (e.step, e.event,
                                                         e.cpu, e.pid)
        finally:
            self._leave()
        exc, self._state["exc"] = self._state["exc"], None
        if exc is not None:
            raise exc
        if rc < 0:
            if rc == -(1 << 30):
                return 0  # on_record returned False
            raise err
        return rc

    def add_event(self, spec, name=None):
        """Adds an event in perf's grammar ("cpu-clock", "cs",
        "cycles:u", "sched:sched_switch", "cpu-clock/period=100000/"):
        its index."""
        if isinstance(spec, str):
            spec = spec.encode()
        attr = (ctypes.c_uint64 * (_ATTR_BYTES // 8))()
        nm = _CharArr()
        _check(_c.pfr_perf_event_parse(spec, attr, nm, len(nm), 0),
               "pfr_perf_event_parse")
        eo = _EventOpts()
        eo.sz = ctypes.sizeof(eo)
        eo.name = name.encode() if isinstance(name, str) else \
            (name or nm.value)
        return self._call("pfr_perf_session_add_event",
                          _c.pfr_perf_session_add_event, attr,
                          ctypes.byref(eo))

    def set_cpus(self, cpus):
        """The CPUs as perf writes them ("0-3,8"); None: every online."""
        self._call("pfr_perf_session_set_cpus", _c.pfr_perf_session_set_cpus,
                   None if cpus is None else cpus.encode())

    def add_thread(self, tid):
        """A target thread; -1: CPU-wide."""
        _cint("tid", tid)
        self._call("pfr_perf_session_add_thread",
                   _c.pfr_perf_session_add_thread, tid)

    def add_process(self, pid):
        _cint("pid", pid)
        self._call("pfr_perf_session_add_process",
                   _c.pfr_perf_session_add_process, pid)

    def start_command(self, argv):
        """Forks argv (searched in $PATH), held before its exec until
        enable()."""
        args = [a.encode() if isinstance(a, str) else a for a in argv]
        arr = (_cp * (len(args) + 1))(*args, None)
        self._argv = arr  # the library keeps pointers into it
        self._call("pfr_perf_session_start_command",
                   _c.pfr_perf_session_start_command, arr)

    def open(self):
        self._call("pfr_perf_session_open", _c.pfr_perf_session_open)

    def synthesize(self):
        return self._call("pfr_perf_session_synthesize",
                          _c.pfr_perf_session_synthesize)

    def write_file(self, path, argv=()):
        """perf.data at path as well (after open())."""
        args = [a.encode() if isinstance(a, str) else a for a in argv]
        arr = (_cp * (len(args) + 1))(*args, None)
        self._fargv = arr  # the library keeps pointers into it
        self._call("pfr_perf_session_write_file",
                   _c.pfr_perf_session_write_file,
                   path.encode() if isinstance(path, str) else path,
                   len(args), arr)

    def enable(self):
        self._call("pfr_perf_session_enable", _c.pfr_perf_session_enable)

    def disable(self):
        self._call("pfr_perf_session_disable", _c.pfr_perf_session_disable)

    def poll(self, timeout_ms=-1):
        """Rings ready (0: time-out or a request)."""
        _cint("timeout_ms", timeout_ms)
        return self._call("pfr_perf_session_poll", _c.pfr_perf_session_poll,
                          timeout_ms)

    def drain(self, final=False):
        self._call("pfr_perf_session_drain", _c.pfr_perf_session_drain,
                   1 if final else 0)

    def run(self):
        """Until request(REQ_STOP), the command's exit or every ring's
        hang-up; then finish()."""
        self._call("pfr_perf_session_run", _c.pfr_perf_session_run)

    def finish(self):
        self._call("pfr_perf_session_finish", _c.pfr_perf_session_finish)

    def request(self, what=REQ_STOP):
        """Posts requests (REQ_*): from any thread (async-signal-safe in
        C)."""
        _uint("what", what, 32)
        h = self._enter("request")
        try:
            _c.pfr_perf_session_request(h, what)
        finally:
            self._leave()

    def stats(self):
        st = _SessionStats()
        st.sz = ctypes.sizeof(st)
        self._call("pfr_perf_session_stats", _c.pfr_perf_session_stats,
                   ctypes.byref(st))
        d = {n: getattr(st, n) for n, _ in _SessionStats._fields_[1:]}
        d["by_type"] = list(st.by_type)
        return d

    @property
    def events(self):
        """The events' names, in the order added."""
        h = self._enter("events")
        try:
            n = _c.pfr_perf_session_nr_events(h)
            return [_c.pfr_perf_session_event_name(h, i).decode()
                    for i in range(n)]
        finally:
            self._leave()

    @property
    def child(self):
        """The command's pid (0: none, or reaped)."""
        h = self._enter("child")
        try:
            return _c.pfr_perf_session_child(h)
        finally:
            self._leave()
