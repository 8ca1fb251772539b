# SPDX-License-Identifier: MIT
"""The shared ring (<perfring/mpsc.h>): one ring, many producers (threads
and processes), one reader; records in reservation order."""
import ctypes

from perfring._core import (
    _c, _ce, _Handle, _MpscOpts, _MpscStats, _Record, Error, _check,
    _check_sys, _cint, _uint, _name, _payload, _opaque, _vp, load,
    E_TIMEDOUT, FOREVER)
from perfring.ring import POLICY_DROP, Record

MPSC_WAIT = 0x1
MPSC_PRODUCERS_MAX = 4096


class SharedRing(_Handle):
    """A shared ring: producers join() (one per thread), one reader().
    Made by SharedRing.create(), create_memfd(), create_shm(),
    attach_fd() or attach_shm(); a context manager; close() unmaps once no
    call is in flight, after leaving the producers and closing the reader
    this object still holds."""

    _what = "shared ring"
    _family = "pfr_mpsc"
    _makers = ("SharedRing.create(), create_memfd(), create_shm(), "
               "attach_fd() or attach_shm()")

    @staticmethod
    def _c_close(h):
        _c.pfr_mpsc_close(h)

    @staticmethod
    def _opts(data_size, policy, flags, max_producers, mode=0):
        _uint("data_size", data_size, 64)
        _cint("policy", policy)
        _uint("flags", flags, 32)
        _uint("max_producers", max_producers, 32)
        _uint("mode", mode, 32)
        o = _MpscOpts()
        o.sz = ctypes.sizeof(o)
        o.data_size, o.policy, o.flags = data_size, policy, flags
        o.max_producers, o.mode = max_producers, mode
        return o

    @classmethod
    def create(cls, data_size=1 << 20, policy=POLICY_DROP, flags=0,
               max_producers=64):
        """A shared ring in private memory (threads; children forked
        later)."""
        o = cls._opts(data_size, policy, flags, max_producers)
        load()
        h = _vp()
        _check_sys(_ce.pfr_mpsc_create(ctypes.byref(h), ctypes.byref(o)),
                   "pfr_mpsc_create")
        return cls._adopt(h)

    @classmethod
    def create_memfd(cls, data_size=1 << 20, policy=POLICY_DROP, flags=0,
                     max_producers=64):
        """A shared ring in a sealed memfd: pass .fd on."""
        o = cls._opts(data_size, policy, flags, max_producers)
        load()
        h = _vp()
        _check_sys(_ce.pfr_mpsc_create_memfd(ctypes.byref(h),
                                             ctypes.byref(o)),
                   "pfr_mpsc_create_memfd")
        return cls._adopt(h)

    @classmethod
    def create_shm(cls, name, data_size=1 << 20, policy=POLICY_DROP,
                   flags=0, max_producers=64, mode=0):
        """A shared ring in a new POSIX shm object /NAME (O_EXCL)."""
        n = _name(name)
        o = cls._opts(data_size, policy, flags, max_producers, mode)
        load()
        h = _vp()
        _check_sys(_ce.pfr_mpsc_create_shm(ctypes.byref(h), n,
                                           ctypes.byref(o)),
                   "pfr_mpsc_create_shm")
        return cls._adopt(h)

    @classmethod
    def attach_fd(cls, fd, max_bytes=0):
        """Attach by fd (dup'ed); a mapping larger than max_bytes (0: the
        library's default, 1 GiB + 1 MiB) is refused."""
        _cint("fd", fd)
        _uint("max_bytes", max_bytes, 64)
        load()
        h = _vp()
        _check_sys(_ce.pfr_mpsc_attach_fd(ctypes.byref(h), fd, max_bytes),
                   "pfr_mpsc_attach_fd")
        return cls._adopt(h)

    @classmethod
    def attach_shm(cls, name, max_bytes=0):
        n = _name(name)
        _uint("max_bytes", max_bytes, 64)
        load()
        h = _vp()
        _check_sys(_ce.pfr_mpsc_attach_shm(ctypes.byref(h), n, max_bytes),
                   "pfr_mpsc_attach_shm")
        return cls._adopt(h)




    @property
    def sealed(self):
        return bool(self._call("sealed", _c.pfr_mpsc_sealed))

    @property
    def reader_alive(self):
        """True when a reader is attached and alive."""
        return _check(self._call("reader_alive", _c.pfr_mpsc_reader_alive),
                      "pfr_mpsc_reader_alive") > 0

    def join(self):
        """Joins as a producer (this thread): a Producer (Error E_BUSY
        when no slot is free)."""
        return Producer(self)

    def reader(self):
        """Takes the reader role (Error E_BUSY while a live reader holds
        it): a SharedReader."""
        return SharedReader(self)

    def stats(self, reader=None):
        """The ring's counters (and reader's, if given) as a dict."""
        st = _MpscStats()
        rp = None
        if reader is not None:
            if not isinstance(reader, SharedReader) or reader._m is not self:
                raise TypeError("perfring: stats(reader) takes this ring's "
                                "SharedReader")
            rp = reader._r if reader._open else None
        self._call("stats", _c.pfr_mpsc_stats, rp, ctypes.byref(st))
        return {n: getattr(st, n) for n, _ in _MpscStats._fields_}


class Producer:
    """A producer of a shared ring: ring.join().  One thread uses it (the
    one that joined: the reader checks that thread's liveness).  leave()
    (or the end of its with block) gives the slot back."""

    __slots__ = ("_m", "_p", "_left", "index", "__weakref__")

    def __init__(self, ring):
        if not isinstance(ring, SharedRing):
            raise TypeError("perfring: Producer(ring) takes a SharedRing "
                            "(use ring.join()), not %s" %
                            type(ring).__name__)
        self._m = ring
        self._p = _opaque("pfr_mpsc_producer")
        self._left = True
        h = ring._enter("join")
        try:
            rc = _ce.pfr_mpsc_join(h, self._p)
            _check_sys(rc, "pfr_mpsc_join")
            self.index = _c.pfr_mpsc_producer_index(self._p)
        finally:
            ring._leave()
        self._left = False
        ring._kids.add(self)

    def _call(self, what, f, *args):
        if self._left:
            raise ValueError("perfring: %s after leave()" % what)
        m = self._m
        m._enter(what)
        try:
            return f(self._p, *args)
        finally:
            m._leave()

    def write(self, type, payload):
        """Writes one record (reserve, copy, commit); raises Error
        (E_NOSPC, E_TIMEDOUT: counted as lost; E_INVAL: too large) or
        ValueError for a reserved type (as Writer.write())."""
        data = _payload(type, payload)
        if self._left:
            raise ValueError("perfring: write after leave()")
        m = self._m
        m._enter("write")
        try:
            rc = _c.pfr_mpsc_write(self._p, type, data, len(data))
        finally:
            m._leave()
        if rc < 0:
            raise Error(-rc, "pfr_mpsc_write")

    def write_burst(self, type, payloads):
        """Writes records of one type and one length (a sequence of
        equal-length payloads) in one reservation when they fit."""
        ps = [_payload(type, p) for p in payloads]
        if not ps:
            return
        n = len(ps[0])
        if any(len(p) != n for p in ps):
            raise ValueError("perfring: write_burst payloads must have "
                             "one length")
        rc = self._call("write_burst", _c.pfr_mpsc_write_burst, type,
                        b"".join(ps), n, len(ps))
        if rc < 0:
            raise Error(-rc, "pfr_mpsc_write_burst")

    def flush(self):
        """Writes a pending LOST record if it fits; False when it did not
        (it stays pending)."""
        rc = self._call("flush", _c.pfr_mpsc_flush)
        if rc < 0 and rc != -2:  # -E_NOSPC: still pending
            _check(rc, "pfr_mpsc_flush")
        return rc == 0

    def set_timeout(self, ns):
        """BLOCK rings: how long write() waits for space."""
        _uint("timeout", ns, 64)
        self._call("set_timeout", _c.pfr_mpsc_set_timeout, ns)

    @property
    def lost(self):
        return self._call("lost", _c.pfr_mpsc_lost)

    @property
    def max_payload(self):
        return self._call("max_payload", _c.pfr_mpsc_max_payload)

    def leave(self):
        """Discards an open reservation, stores the counters, frees the
        slot.  Idempotent."""
        if self._left:
            return
        m = self._m
        m._enter("leave")
        try:
            if not self._left:
                self._left = True
                m._kids.discard(self)
                _c.pfr_mpsc_leave(self._p)
        finally:
            m._leave()

    def _release_role(self, h):
        if not self._left:
            self._left = True
            _c.pfr_mpsc_leave(self._p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.leave()
        except ValueError:
            pass

    def __del__(self):
        if getattr(self, "_left", True) is False:
            try:
                self.leave()
            except ValueError:
                pass


class SharedReader:
    """The shared ring's reader: ring.reader().  records() (or iterating)
    takes what is committed, in reservation order (misc: the producer's
    index); wait() sleeps (MPSC_WAIT rings); close() gives the role up."""

    __slots__ = ("_m", "_r", "_rec", "_open", "__weakref__")

    def __init__(self, ring):
        if not isinstance(ring, SharedRing):
            raise TypeError("perfring: SharedReader(ring) takes a "
                            "SharedRing (use ring.reader()), not %s" %
                            type(ring).__name__)
        self._m = ring
        self._r = _opaque("pfr_mpsc_reader")
        self._rec = _Record()
        self._open = False
        h = ring._enter("reader")
        try:
            rc = _ce.pfr_mpsc_reader(h, self._r)
        finally:
            ring._leave()
        _check_sys(rc, "pfr_mpsc_reader")
        self._open = True
        ring._kids.add(self)

    def _enter(self, what):
        if not self._open:
            raise ValueError("perfring: %s after the reader was closed" %
                             what)
        self._m._enter(what)

    def records(self):
        """The committed records at the reader, in order (one batch:
        begin, next..., end); stops at a record still being written.
        Error E_STALLED when a live producer held one past the stall
        time-out."""
        r, rec, out = self._r, self._rec, []
        nxt, ref = _c.pfr_mpsc_next, ctypes.byref(rec)
        self._enter("records")
        try:
            _check(_c.pfr_mpsc_begin(r), "pfr_mpsc_begin")
            try:
                while True:
                    rc = nxt(r, ref)
                    if rc == 0:
                        break
                    _check(rc, "pfr_mpsc_next")
                    out.append(Record(rec))
            finally:
                _c.pfr_mpsc_end(r)
        finally:
            self._m._leave()
        return out

    def __iter__(self):
        return iter(self.records())

    def wait(self, timeout_ns=FOREVER):
        """Sleeps until a committed record is ready (the bytes available)
        or the time-out passes (0).  Needs MPSC_WAIT."""
        _uint("timeout_ns", timeout_ns, 64)
        self._enter("wait")
        try:
            rc = _c.pfr_mpsc_wait(self._r, timeout_ns)
        finally:
            self._m._leave()
        if rc == -E_TIMEDOUT:
            return 0
        return _check(rc, "pfr_mpsc_wait")

    def set_wakeup(self, nbytes=0, records=0):
        _uint("bytes", nbytes, 32)
        _uint("records", records, 32)
        self._enter("set_wakeup")
        try:
            _c.pfr_mpsc_set_wakeup(self._r, nbytes, records)
        finally:
            self._m._leave()

    def set_stall(self, ns):
        _uint("ns", ns, 64)
        self._enter("set_stall")
        try:
            _c.pfr_mpsc_set_stall(self._r, ns)
        finally:
            self._m._leave()

    def close(self):
        """Gives the reader role up.  Idempotent."""
        if not self._open:
            return
        m = self._m
        try:
            m._enter("reader close")
        except ValueError:
            return
        try:
            if self._open:
                self._open = False
                m._kids.discard(self)
                _c.pfr_mpsc_reader_close(self._r)
        finally:
            m._leave()

    def _release_role(self, h):
        if self._open:
            self._open = False
            _c.pfr_mpsc_reader_close(self._r)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_open", False):
            self.close()
