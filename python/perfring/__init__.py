# SPDX-License-Identifier: MIT
"""perfring for Python: the perf ring buffer protocol over ctypes.

A thin binding over libperfring's exported symbols, the inline fast paths
included (their out-of-line twins, src/abi/ffi.c).  Python's standard library
only: no compiler, no pip.

    import perfring
    ring = perfring.Ring.create_memfd(data_size=1 << 16,
                                      policy=perfring.POLICY_BLOCK,
                                      flags=perfring.RING_WAIT)
    # pass ring.fd to another process (subprocess pass_fds=, fork, a
    # socket); there: ring = perfring.Ring.attach_fd(fd)
    w = ring.writer()
    w.write(100, b"hello")
    w.flush()
    r = ring.reader()
    for rec in r.records():
        print(rec.type, rec.payload)

The library is found at $PERFRING_LIB, else in the LIBDIR `make install`
put it in, else as libperfring.so.0 by the dynamic linker (LD_LIBRARY_PATH,
the system's paths); when none loads, the first call raises
LibraryNotFound, which names what was tried and how to fix it.

Every number is range-checked before it reaches C (ValueError: ctypes
would silently truncate it); a writer or reader whose ring was closed
raises ValueError instead of touching the unmapped memory; record types
the ring reserves (RECORD_LOST, PAD, above RECORD_USER_MAX) are refused.
"""
import ctypes
import ctypes.util
import os

__all__ = [
    "Error", "LibraryNotFound", "Ring", "Writer", "Reader", "Record",
    "load", "version", "RECORD_USER_MAX",
    "POLICY_DROP", "POLICY_BLOCK", "POLICY_OVERWRITE", "ORDER_FULL",
    "ORDER_ACQREL", "ORDER_CTRLDEP", "RING_WAIT", "RING_INBAND",
    "RECORD_LOST",
    "E_AGAIN", "E_NOSPC", "E_TIMEDOUT", "E_INVAL",
]

POLICY_DROP, POLICY_BLOCK, POLICY_OVERWRITE = 0, 1, 2
ORDER_FULL, ORDER_ACQREL, ORDER_CTRLDEP = 0, 1, 2
RING_WAIT = 0x1
RING_INBAND = 0x2  # in-band publication (ACQREL, DROP or BLOCK, no WAIT)
RECORD_LOST = 2
RECORD_USER_MAX = 0x7fffffff  # types above it are the ring's own (PAD)
READER_SKIP_PAD = 0x1
E_AGAIN, E_NOSPC, E_TIMEDOUT, E_INVAL = 1, 2, 3, 4
FOREVER = (1 << 64) - 1

_u8, _u16, _u32, _u64 = (ctypes.c_uint8, ctypes.c_uint16, ctypes.c_uint32,
                         ctypes.c_uint64)
_i64, _int, _size, _vp = (ctypes.c_int64, ctypes.c_int, ctypes.c_size_t,
                          ctypes.c_void_p)


class _RingOpts(ctypes.Structure):
    # struct pfr_ring_opts (<perfring/ring.h>); checked against the
    # library's sizeof at load time.
    _fields_ = [("sz", _size), ("data_size", _u64), ("policy", _int),
                ("ordering", _int), ("flags", _u32), ("lost_id", _u64),
                ("mode", _u32)]


class _RecordHeader(ctypes.Structure):
    _fields_ = [("type", _u32), ("misc", _u16), ("size", _u16)]


class _Record(ctypes.Structure):
    # struct pfr_record
    _fields_ = [("hdr", _RecordHeader), ("payload", _vp), ("len", _u32),
                ("pos", _u64)]


class Error(OSError):
    """A perfring call failed: .code is the PFR_E_* number (positive)."""

    def __init__(self, code, what):
        self.code = code
        super().__init__(code, "%s: %s" % (what, _strerror(code)))


_lib = None


def _bind(lib):
    # (name, restype, argtypes)
    P = ctypes.POINTER
    pp = P(_vp)
    sigs = [
        ("pfr_version", ctypes.c_char_p, []),
        ("pfr_strerror", ctypes.c_char_p, [_int]),
        ("pfr_ffi_sizeof", _size, [ctypes.c_char_p]),
        ("pfr_ring_create", _int, [pp, P(_RingOpts)]),
        ("pfr_ring_create_memfd", _int, [pp, P(_RingOpts)]),
        ("pfr_ring_attach_fd", _int, [pp, _int]),
        ("pfr_ring_close", None, [_vp]),
        ("pfr_ring_fd", _int, [_vp]),
        ("pfr_ring_writer", _int, [_vp, _vp]),
        ("pfr_ring_reader", _int, [_vp, _vp]),
        ("pfr_writer_set_timeout", None, [_vp, _u64]),
        ("pfr_writer_write", _int, [_vp, _u32, ctypes.c_char_p, _size]),
        ("pfr_writer_write_deferred", _int,
         [_vp, _u32, ctypes.c_char_p, _size]),
        ("pfr_writer_publish", None, [_vp]),
        ("pfr_writer_flush", None, [_vp]),
        ("pfr_writer_max_payload", _size, [_vp]),
        ("pfr_writer_lost", _u64, [_vp]),
        ("pfr_reader_begin", _i64, [_vp]),
        ("pfr_reader_next", _int, [_vp, P(_Record)]),
        ("pfr_reader_end", None, [_vp]),
        ("pfr_reader_pending", _u64, [_vp]),
        ("pfr_reader_wait", _i64, [_vp, _u64]),
    ]
    for name, res, args in sigs:
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    for name, cls in (("pfr_ring_opts", _RingOpts), ("pfr_record", _Record),
                      ("pfr_record_header", _RecordHeader)):
        have = lib.pfr_ffi_sizeof(name.encode())
        if have != ctypes.sizeof(cls):
            raise ImportError("perfring: struct %s is %d bytes in the "
                              "library, %d here" %
                              (name, have, ctypes.sizeof(cls)))


class LibraryNotFound(ImportError):
    """libperfring could not be loaded: the message names every place
    tried, why each failed, and the fix."""


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
        except OSError as e:
            tried.append("%s (%s)" % (cand, e))
            continue
        try:
            _bind(lib)
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


def _strerror(code):
    return load().pfr_strerror(code).decode()


def version():
    return load().pfr_version().decode()


def _check(rc, what):
    if rc < 0:
        raise Error(-rc, what)
    return rc


def _opaque(name):
    """A zeroed, 8-byte aligned buffer the size of struct `name`."""
    n = load().pfr_ffi_sizeof(name.encode())
    if not n:
        raise ImportError("perfring: the library does not know " + name)
    return (_u64 * ((n + 7) // 8))()


class Ring:
    """One mapping of a ring (private, or a memfd to share)."""

    def __init__(self, handle):
        self._h = handle

    def _handle(self, what):
        """The C handle; ValueError once the ring is closed."""
        if not self._h:
            raise ValueError("perfring: %s on a closed ring (closed by "
                             "Ring.close() or at the end of its with "
                             "block): use it while the ring is open" % what)
        return self._h

    @staticmethod
    def _opts(data_size, policy, ordering, flags, lost_id):
        _uint("data_size", data_size, 64)
        _cint("policy", policy)
        _cint("ordering", ordering)
        _uint("flags", flags, 32)
        _uint("lost_id", lost_id, 64)
        o = _RingOpts()
        o.sz = ctypes.sizeof(o)
        o.data_size, o.policy, o.ordering = data_size, policy, ordering
        o.flags, o.lost_id = flags, lost_id
        return o

    @classmethod
    def create(cls, data_size=1 << 20, policy=POLICY_DROP,
               ordering=ORDER_ACQREL, flags=0, lost_id=0):
        """A ring in private memory (threads of this process)."""
        h = _vp()
        o = cls._opts(data_size, policy, ordering, flags, lost_id)
        _check(load().pfr_ring_create(ctypes.byref(h), ctypes.byref(o)),
               "pfr_ring_create")
        return cls(h)

    @classmethod
    def create_memfd(cls, data_size=1 << 20, policy=POLICY_DROP,
                     ordering=ORDER_ACQREL, flags=0, lost_id=0):
        """A ring in a sealed memfd: pass .fd to another process."""
        h = _vp()
        o = cls._opts(data_size, policy, ordering, flags, lost_id)
        _check(load().pfr_ring_create_memfd(ctypes.byref(h),
                                            ctypes.byref(o)),
               "pfr_ring_create_memfd")
        return cls(h)

    @classmethod
    def attach_fd(cls, fd):
        """Attach to a ring another process made (validated first)."""
        h = _vp()
        _cint("fd", fd)
        _check(load().pfr_ring_attach_fd(ctypes.byref(h), fd),
               "pfr_ring_attach_fd")
        return cls(h)

    @property
    def fd(self):
        return load().pfr_ring_fd(self._handle("fd"))

    def writer(self):
        return Writer(self)

    def reader(self):
        return Reader(self)

    def close(self):
        """Unmap.  Its writers and readers raise ValueError afterwards."""
        if self._h:
            h, self._h = self._h, None
            load().pfr_ring_close(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # no writer or reader is left (each holds its ring): unmap
        if getattr(self, "_h", None) and _lib is not None:
            self.close()


class Writer:
    """The ring's one writer (this process takes the role)."""

    def __init__(self, ring):
        self._ring = ring  # keeps the mapping alive
        self._w = _opaque("pfr_writer")
        _check(load().pfr_ring_writer(ring._handle("writer"), self._w),
               "pfr_ring_writer")

    def _state(self, what):
        """The C writer; ValueError once its ring is closed."""
        self._ring._handle(what)
        return self._w

    def set_timeout(self, ns):
        """BLOCK rings: how long write() waits for space."""
        _uint("timeout", ns, 64)
        load().pfr_writer_set_timeout(self._state("set_timeout"), ns)

    def write(self, type, payload, publish=True):
        """Writes one record; raises Error (E_NOSPC, E_TIMEDOUT: counted
        as lost; E_INVAL: too large), or ValueError for a type the ring
        reserves: RECORD_LOST (the reader would take the payload for a
        loss count, and refuse a short one for good), PAD and every type
        above RECORD_USER_MAX."""
        _uint("type", type, 32)
        if type == RECORD_LOST or type > RECORD_USER_MAX:
            raise ValueError("perfring: record type %d is the ring's own "
                             "(RECORD_LOST = 2, and the types above "
                             "RECORD_USER_MAX = 0x7fffffff): write another"
                             % type)
        data = memoryview(payload).tobytes()
        w = self._state("write")
        lib = load()
        f = lib.pfr_writer_write if publish else lib.pfr_writer_write_deferred
        _check(f(w, type, data, len(data)), "pfr_writer_write")

    def publish(self):
        load().pfr_writer_publish(self._state("publish"))

    def flush(self):
        """Publishes and wakes the reader regardless of its thresholds."""
        load().pfr_writer_flush(self._state("flush"))

    @property
    def max_payload(self):
        return load().pfr_writer_max_payload(self._state("max_payload"))

    @property
    def lost(self):
        return load().pfr_writer_lost(self._state("lost"))


class Record:
    """One record, its payload copied out of the ring."""

    __slots__ = ("type", "misc", "payload", "pos")

    def __init__(self, rec):
        self.type = rec.hdr.type
        self.misc = rec.hdr.misc
        self.pos = rec.pos
        self.payload = ctypes.string_at(rec.payload, rec.len) \
            if rec.len else b""

    def __repr__(self):
        return "Record(type=%d, misc=%d, pos=%d, %d bytes)" % (
            self.type, self.misc, self.pos, len(self.payload))


class Reader:
    """The ring's one reader (this process takes the role)."""

    def __init__(self, ring):
        self._ring = ring  # keeps the mapping alive
        self._r = _opaque("pfr_reader")
        self._rec = _Record()
        _check(load().pfr_ring_reader(ring._handle("reader"), self._r),
               "pfr_ring_reader")

    def _state(self, what):
        """The C reader; ValueError once its ring is closed."""
        self._ring._handle(what)
        return self._r

    def records(self):
        """Every record published so far, in order: one batch (begin,
        next..., end); the space is freed when the batch is done."""
        lib = load()
        r = self._state("records")
        _check(lib.pfr_reader_begin(r), "pfr_reader_begin")
        out = []
        while True:
            rc = lib.pfr_reader_next(r, ctypes.byref(self._rec))
            if rc == 0:
                break
            _check(rc, "pfr_reader_next")
            out.append(Record(self._rec))
        lib.pfr_reader_end(r)
        return out

    def wait(self, timeout_ns=FOREVER):
        """Blocks until data (rings with RING_WAIT): the bytes available,
        or 0 on time-out."""
        _uint("timeout_ns", timeout_ns, 64)
        rc = load().pfr_reader_wait(self._state("wait"), timeout_ns)
        if rc == -E_TIMEDOUT:
            return 0
        return _check(rc, "pfr_reader_wait")
