# SPDX-License-Identifier: MIT
"""The binding's common part: loading the library, binding every C
function once (argtypes and restype), the errors, the range checks and
the handle guard that no close() can unmap under a call in flight.

Every C function the package calls is named once, in SIGS below; its
ctypes object is then reached as _c.NAME (an attribute of the loaded
library: no lookup by string per call).  Functions in SYS_SIGS are also
bound a second time on a handle loaded with use_errno=True (_ce.NAME):
those are the calls whose failure may be a system call's, and the
binding reads ctypes.get_errno() right after them (_sys_errno()); the
fast paths (write, read) are called through _c, without the errno swap.
"""
import ctypes
import ctypes.util
import os
import sys
import threading
import weakref

E_AGAIN, E_NOSPC, E_TIMEDOUT, E_INVAL = 1, 2, 3, 4
E_HEAD_AHEAD, E_HEAD_BEHIND = 5, 6
E_RECSIZE_ZERO, E_RECSIZE_ALIGN, E_RECSIZE_SHORT = 7, 8, 9
E_RECSIZE_PAST_HEAD, E_MAGIC, E_VERSION, E_LAYOUT = 10, 11, 12, 13
E_MAPPING, E_OVERWRITTEN, E_SYSTEM, E_BUSY = 14, 15, 16, 17
E_TOOBIG, E_FULL, E_STALLED, E_CLOSED = 18, 19, 20, 21
FOREVER = (1 << 64) - 1
RECORD_LOST = 2
RECORD_USER_MAX = 0x7fffffff  # types above it are the ring's own (PAD)

_u8, _u16, _u32, _u64 = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32,
                         ctypes.c_uint64)
_i64, _int, _size, _vp = (ctypes.c_int64, ctypes.c_int, ctypes.c_size_t,
                          ctypes.c_void_p)
_cp = ctypes.c_char_p
P = ctypes.POINTER


class _RingOpts(ctypes.Structure):
    # struct pfr_ring_opts (<perfring/ring.h>)
    _fields_ = [("sz", _size), ("data_size", _u64), ("policy", _int),
                ("ordering", _int), ("flags", _u32), ("lost_id", _u64),
                ("mode", _u32)]


class _RecordHeader(ctypes.Structure):
    _fields_ = [("type", _u32), ("misc", _u16), ("size", _u16)]


class _Record(ctypes.Structure):
    # struct pfr_record
    _fields_ = [("hdr", _RecordHeader), ("payload", _vp), ("len", _u32),
                ("pos", _u64)]


class _GroupOpts(ctypes.Structure):
    # struct pfr_group_opts (<perfring/group.h>)
    _fields_ = [("sz", _size), ("slots", _u32), ("data_size", _u64),
                ("policy", _int), ("ordering", _int), ("flags", _u32),
                ("mode", _u32)]


class _GroupRec(ctypes.Structure):
    # struct pfr_group_rec
    _fields_ = [("hdr", _RecordHeader), ("payload", _vp), ("len", _u32),
                ("slot", _u32), ("tag", _u64), ("time", _u64)]


class _GroupStats(ctypes.Structure):
    # struct pfr_group_stats
    _fields_ = [("slots", _u32), ("active", _u32)] + [
        (n, _u64) for n in ("joins_seen", "freed", "reclaimed", "bad_slots",
                            "records", "lost", "wakeups", "merge_queued",
                            "merge_max_queued", "merge_max_queued_bytes")]


class _MpscOpts(ctypes.Structure):
    # struct pfr_mpsc_opts (<perfring/mpsc.h>)
    _fields_ = [("sz", _size), ("data_size", _u64), ("policy", _int),
                ("flags", _u32), ("max_producers", _u32), ("mode", _u32)]


class _MpscStats(ctypes.Structure):
    # struct pfr_mpsc_stats
    _fields_ = [(n, _u64) for n in (
        "prod_pos", "cons_pos", "data_size", "records_reserved",
        "lost_total", "records_read", "busy_stops", "stalls", "stall_ns",
        "stall_max_ns", "dead_skipped", "discarded")]


# The layouts pfr_ffi_sizeof() knows, checked when the library loads.
_CHECKED = (("pfr_ring_opts", _RingOpts), ("pfr_record", _Record),
            ("pfr_record_header", _RecordHeader),
            ("pfr_group_opts", _GroupOpts), ("pfr_group_stats", _GroupStats),
            ("pfr_mpsc_opts", _MpscOpts), ("pfr_mpsc_stats", _MpscStats))

_GROUP_FN = ctypes.CFUNCTYPE(_int, _vp, P(_GroupRec))

# (name, restype, argtypes): every C function the package calls.
SIGS = [
    ("pfr_version", _cp, []),
    ("pfr_strerror", _cp, [_int]),
    ("pfr_ffi_sizeof", _size, [_cp]),
    # the single ring
    ("pfr_ring_close", None, [_vp]),
    ("pfr_ring_fd", _int, [_vp]),
    ("pfr_ring_sealed", _int, [_vp]),
    ("pfr_ring_writer", _int, [_vp, _vp]),
    ("pfr_ring_reader", _int, [_vp, _vp]),
    ("pfr_writer_set_timeout", None, [_vp, _u64]),
    ("pfr_writer_write", _int, [_vp, _u32, _cp, _size]),
    ("pfr_writer_write_deferred", _int, [_vp, _u32, _cp, _size]),
    ("pfr_writer_publish", None, [_vp]),
    ("pfr_writer_flush", None, [_vp]),
    ("pfr_writer_max_payload", _size, [_vp]),
    ("pfr_writer_lost", _u64, [_vp]),
    ("pfr_reader_begin", _i64, [_vp]),
    ("pfr_reader_next", _int, [_vp, P(_Record)]),
    ("pfr_reader_end", None, [_vp]),
    ("pfr_reader_pending", _u64, [_vp]),
    ("pfr_reader_wait", _i64, [_vp, _u64]),
    # the single ring's ends, liveness and pollable fd (PERFRING_0.3)
    ("pfr_writer_close", _int, [_vp]),
    ("pfr_reader_close", _int, [_vp]),
    ("pfr_ring_writer_alive", _int, [_vp]),
    ("pfr_ring_reader_alive", _int, [_vp]),
    ("pfr_reader_eof", _int, [_vp]),
    ("pfr_reader_wait_end", _i64, [_vp, _u64]),
    ("pfr_ring_eventfd", _int, [_vp]),
    ("pfr_reader_poll_prepare", _int, [_vp]),
    ("pfr_reader_poll_done", _int, [_vp]),
    # the group
    ("pfr_group_close", None, [_vp]),
    ("pfr_group_fd", _int, [_vp]),
    ("pfr_group_eventfd", _int, [_vp]),
    ("pfr_group_slots", _u32, [_vp]),
    ("pfr_group_join", _int, [_vp, _vp, _u64]),
    ("pfr_group_leave", _int, [_vp, _vp]),
    ("pfr_group_reader_alive", _int, [_vp]),
    ("pfr_group_reader_open", _int, [_vp, _int, _vp, _vp]),
    ("pfr_group_reader_close", None, [_vp]),
    ("pfr_group_drain", _i64, [_vp, _GROUP_FN, _vp, _u32]),
    ("pfr_group_wait", _int, [_vp, _u64]),
    ("pfr_group_set_reclaim_interval", None, [_vp, _u64]),
    ("pfr_group_set_queue_max", _int, [_vp, _u64]),
    ("pfr_group_stats", None, [_vp, P(_GroupStats)]),
    # the shared ring
    ("pfr_mpsc_close", None, [_vp]),
    ("pfr_mpsc_fd", _int, [_vp]),
    ("pfr_mpsc_sealed", _int, [_vp]),
    ("pfr_mpsc_leave", None, [_vp]),
    ("pfr_mpsc_set_timeout", None, [_vp, _u64]),
    ("pfr_mpsc_write", _int, [_vp, _u32, _cp, _size]),
    ("pfr_mpsc_write_burst", _int, [_vp, _u32, _cp, _size, _size]),
    ("pfr_mpsc_flush", _int, [_vp]),
    ("pfr_mpsc_producer_index", ctypes.c_uint, [_vp]),
    ("pfr_mpsc_lost", _u64, [_vp]),
    ("pfr_mpsc_max_payload", _size, [_vp]),
    ("pfr_mpsc_reader_alive", _int, [_vp]),
    ("pfr_mpsc_reader_close", None, [_vp]),
    ("pfr_mpsc_begin", _i64, [_vp]),
    ("pfr_mpsc_next", _int, [_vp, P(_Record)]),
    ("pfr_mpsc_end", None, [_vp]),
    ("pfr_mpsc_wait", _i64, [_vp, _u64]),
    ("pfr_mpsc_set_wakeup", None, [_vp, _u32, _u32]),
    ("pfr_mpsc_set_stall", None, [_vp, _u64]),
    ("pfr_mpsc_stats", None, [_vp, _vp, P(_MpscStats)]),
]

# Calls whose failure may be a system call's: bound on the use_errno
# handle as well, and their errno read right after (_sys_errno()).
SYS_SIGS = [
    ("pfr_ring_create", _int, [P(_vp), P(_RingOpts)]),
    ("pfr_ring_create_shm", _int, [P(_vp), _cp, P(_RingOpts)]),
    ("pfr_ring_create_memfd", _int, [P(_vp), P(_RingOpts)]),
    ("pfr_ring_attach_fd", _int, [P(_vp), _int]),
    ("pfr_ring_attach_shm", _int, [P(_vp), _cp]),
    ("pfr_ring_unlink", _int, [_cp]),
    ("pfr_ring_set_inherit", _int, [_vp, _int]),
    ("pfr_ring_set_eventfd", _int, [_vp, _int]),
    ("pfr_group_create", _int, [P(_vp), P(_GroupOpts)]),
    ("pfr_group_create_shm", _int, [P(_vp), _cp, P(_GroupOpts)]),
    ("pfr_group_create_memfd", _int, [P(_vp), P(_GroupOpts)]),
    ("pfr_group_attach_fd", _int, [P(_vp), _int, _int]),
    ("pfr_group_attach_shm", _int, [P(_vp), _cp]),
    ("pfr_group_unlink", _int, [_cp]),
    ("pfr_mpsc_create", _int, [P(_vp), P(_MpscOpts)]),
    ("pfr_mpsc_create_shm", _int, [P(_vp), _cp, P(_MpscOpts)]),
    ("pfr_mpsc_create_memfd", _int, [P(_vp), P(_MpscOpts)]),
    ("pfr_mpsc_attach_fd", _int, [P(_vp), _int, _u64]),
    ("pfr_mpsc_attach_shm", _int, [P(_vp), _cp, _u64]),
    ("pfr_mpsc_unlink", _int, [_cp]),
    ("pfr_mpsc_join", _int, [_vp, _vp]),
    # the function that opens a shared ring's reader (the struct of the
    # same name is the reader's state)
    ("pfr_mpsc_reader", _int, [_vp, _vp]),
]


class _Lib:
    """Attribute access to the bound C functions (filled by _bind())."""


_c = _Lib()   # every function, errno not swapped
_ce = _Lib()  # SYS_SIGS, through the use_errno=True handle
_lib = None


def _bind(lib, elib):
    for name, res, args in SIGS + SYS_SIGS:
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
        setattr(_c, name, f)
    for name, res, args in SYS_SIGS:
        f = getattr(elib, name)
        f.restype = res
        f.argtypes = args
        setattr(_ce, name, f)
    for name, cls in _CHECKED:
        have = _c.pfr_ffi_sizeof(name.encode())
        if have != ctypes.sizeof(cls):
            raise ImportError("perfring: struct %s is %d bytes in the "
                              "library, %d here" %
                              (name, have, ctypes.sizeof(cls)))


class LibraryNotFound(ImportError):
    """libperfring could not be loaded: the message names every place
    tried, why each failed, and the fix."""


def _candidates(path):
    if path:
        return [path]
    env = os.environ.get("PERFRING_LIB")
    if env:
        return [env]
    out = []
    try:
        from perfring import _paths  # written by `make install`
        out.append(os.path.join(_paths.LIBDIR, "libperfring.so.0"))
    except ImportError:
        pass
    out.append(ctypes.util.find_library("perfring") or "libperfring.so.0")
    return out


def load(path=None):
    """Loads libperfring (once) and returns the ctypes handle; raises
    LibraryNotFound when it cannot."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for cand in _candidates(path):
        try:
            lib = ctypes.CDLL(cand)
            elib = ctypes.CDLL(cand, use_errno=True)
        except OSError as e:
            tried.append("%s (%s)" % (cand, e))
            continue
        try:
            _bind(lib, elib)
        except AttributeError as e:
            tried.append("%s (too old for this binding: %s)" % (cand, e))
            continue
        _lib = lib
        return lib
    raise LibraryNotFound(
        "perfring: cannot load libperfring; tried %s.  Fix: build it (make, "
        "in the perfring tree) and set PERFRING_LIB to the build's "
        "libperfring.so, or install it (make install, then ldconfig), or "
        "add its directory to LD_LIBRARY_PATH." % "; ".join(tried))


def version():
    load()
    return _c.pfr_version().decode()


def _strerror(code):
    load()
    return _c.pfr_strerror(code).decode()


class Error(OSError):
    """A perfring call failed.

    .code   the library's code, PFR_E_* or PFR_PERF_E_* (positive): what
            failed, in the library's terms (E_SYSTEM: a system call);
    .errno  the system errno of the failed system call (EBADF, ENOENT,
            EEXIST, ...), or None when no system call failed (a full ring,
            a bad argument, a hostile header);
    .strerror  both in words; .what the C function that failed."""

    def __init__(self, code, what, sys_errno=None):
        msg = "%s: %s" % (what, _strerror(code))
        if sys_errno:
            msg += ": " + os.strerror(sys_errno)
        super().__init__(sys_errno or None, msg)
        self.code = code
        self.what = what

    def __str__(self):
        return self.strerror

    def __reduce__(self):
        return (type(self), (self.code, self.what, self.errno))


def _check(rc, what):
    """rc, or Error(-rc) for a negative rc (no system errno: calls that
    make no system call, or whose errno the library does not keep)."""
    if rc < 0:
        raise Error(-rc, what)
    return rc


def _sys_errno(rc):
    """The system errno behind a failed SYS_SIGS call's return rc, or
    None.  Today's library returns -PFR_E_SYSTEM and leaves errno as the
    failed system call set it; ctypes copied it (use_errno=True) when the
    call returned.  The one place that knows how the library reports it."""
    if rc == -E_SYSTEM:
        return ctypes.get_errno() or None
    return None


def _check_sys(rc, what):
    """_check() for a call made through _ce: the Error carries errno."""
    if rc < 0:
        raise Error(-rc, what, _sys_errno(rc))
    return rc


def _uint(name, v, bits):
    """v, checked to fit a C unsigned integer of `bits` bits."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("perfring: %s must be an int, not %s" %
                        (name, type(v).__name__))
    if not 0 <= v < 1 << bits:
        raise ValueError("perfring: %s = %d is out of range (0 to 2**%d - 1)"
                         % (name, v, bits))
    return v


def _cint(name, v):
    """v, checked to fit a C int (also the enums)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("perfring: %s must be an int, not %s" %
                        (name, type(v).__name__))
    if not -(1 << 31) <= v < 1 << 31:
        raise ValueError("perfring: %s = %d is out of range for a C int" %
                         (name, v))
    return v


def _name(name):
    """A shm name as bytes (str or bytes; no NUL)."""
    if isinstance(name, str):
        name = os.fsencode(name)
    if not isinstance(name, bytes):
        raise TypeError("perfring: a shm name is a str or bytes, not %s" %
                        type(name).__name__)
    if b"\0" in name:
        raise ValueError("perfring: a shm name cannot hold a NUL byte")
    return name


def _payload(type, payload):
    """The payload as bytes, after refusing the types the ring reserves."""
    _uint("type", type, 32)
    if type == RECORD_LOST or type > RECORD_USER_MAX:
        raise ValueError("perfring: record type %d is the ring's own "
                         "(RECORD_LOST = 2, and the types above "
                         "RECORD_USER_MAX = 0x7fffffff): write another"
                         % type)
    return payload if payload.__class__ is bytes else \
        memoryview(payload).tobytes()


def _opaque(name):
    """A zeroed, 8-byte aligned buffer the size of struct `name`."""
    load()
    n = _c.pfr_ffi_sizeof(name.encode())
    if not n:
        raise ImportError("perfring: the library does not know " + name)
    return (_u64 * ((n + 7) // 8))()


_TOKEN = object()


# The handle guard's two implementations.  With the GIL (CPython's
# default build) a call in flight is an element of a list: list.append(),
# list.pop() and dict.pop() are atomic, and the GIL runs one bytecode at a
# time, so "append, then read closed" in a caller against "store closed,
# then read the list" in close() cannot both miss each other (the store
# and the load of each side are ordered), and dict.pop() hands the C
# handle to exactly one releaser, with no lock taken.  Without the GIL
# (a free-threaded build, or PERFRING_PY_LOCKED=1 to test it) a lock
# guards the count instead.
_LOCKED = bool(os.environ.get("PERFRING_PY_LOCKED")) or (
    hasattr(sys, "_is_gil_enabled") and not sys._is_gil_enabled())


def _closed_error(what, kind):
    return ValueError(
        "perfring: %s on a closed %s (closed by close() or at the end of "
        "its with block): use it while it is open" % (what, kind))


class _Handle:
    """A C handle (a mapping) that no close() unmaps under a call.

    Every call into C on the handle, or on a writer or reader of it, is
    bracketed by _enter() and _leave(): _enter() counts the call in
    flight (ValueError once the handle is closed), _leave() uncounts it.
    close() marks the handle closed at once - new calls raise ValueError -
    and the C close runs when no call is in flight: at once, or in the
    _leave() of the last call still inside C (a thread blocked in a
    wait() holds it until its wait returns).  So a thread that closes
    while another is inside a write, a read or a wait never unmaps the
    memory under it.  The handle is made only by the classmethods
    (create..., attach...): no public constructor takes a raw pointer.
    """

    _what = "handle"
    _makers = "create()"
    # the C family of a subclass that maps an object ("pfr_ring",
    # "pfr_group", "pfr_mpsc"): its _unlink and _fd functions
    _family = None

    def __init__(self, *args, **kw):
        raise TypeError("perfring: a %s is made by %s, not from a raw "
                        "handle" % (type(self).__name__, self._makers))

    @classmethod
    def _adopt(cls, h):
        self = object.__new__(cls)
        self._h = h.value
        self._box = {"h": h.value}  # popped once, by the releaser
        self._calls = []  # one element per call in flight
        self._closed = False
        self._lock = threading.Lock()
        self._busy = 0
        # joined writers, readers: their roles released before the close
        self._kids = weakref.WeakSet()
        return self

    def _call(self, what, f, *args):
        """f(the C handle, *args), counted as a call in flight."""
        h = self._enter(what)
        try:
            return f(h, *args)
        finally:
            self._leave()

    @classmethod
    def unlink(cls, name):
        """Removes the POSIX shm name /NAME (the mappings stay)."""
        n = _name(name)
        load()
        fn = cls._family + "_unlink"
        _check_sys(getattr(_ce, fn)(n), fn)

    @property
    def fd(self):
        """The memfd or shm fd to pass on (-1 for private memory)."""
        return self._call("fd", getattr(_c, self._family + "_fd"))

    def _enter(self, what):
        self._calls.append(None)
        if self._closed:
            self._leave()
            raise _closed_error(what, self._what)
        return self._h

    def _leave(self):
        self._calls.pop()
        if self._closed and not self._calls:
            self._release_once()

    def close(self):
        """Closes the handle: new calls on it (and on its writers and
        readers) raise ValueError; the memory is unmapped once no call is
        in flight (at once, or when the last call in another thread
        returns).  Idempotent."""
        if self._closed:
            return
        self._closed = True
        if not self._calls:
            self._release_once()

    # the lock-based twins (no GIL)
    def _enter_locked(self, what):
        with self._lock:
            if self._closed:
                raise _closed_error(what, self._what)
            self._busy += 1
        return self._h

    def _leave_locked(self):
        with self._lock:
            self._busy -= 1
            if self._busy or not self._closed:
                return
        self._release_once()

    def _close_locked(self):
        """As close(), for builds without a GIL."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._busy:
                return
        self._release_once()

    def _release_once(self):
        h = self._box.pop("h", None)
        if h is None:
            return
        # no call is in flight and none can start: children first
        for kid in list(self._kids):
            kid._release_role(h)
        self._kids.clear()
        self._c_close(h)

    @property
    def closed(self):
        return self._closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # no writer or reader is left (each holds its handle)
        if getattr(self, "_closed", True) is False and _lib is not None:
            self.close()


if _LOCKED:
    _Handle._enter = _Handle._enter_locked
    _Handle._leave = _Handle._leave_locked
    _Handle.close = _Handle._close_locked
