# SPDX-License-Identifier: MIT
"""The single ring (<perfring/ring.h>): one writer, one reader, in private
memory, a memfd or a POSIX shm object."""
import ctypes

from perfring._core import (
    _c, _ce, _Handle, _RingOpts, _Record, Error, _check, _check_sys,
    _cint, _uint, _name, _payload, _opaque, _vp, load, E_TIMEDOUT,
    E_CLOSED, E_INVAL, FOREVER)

POLICY_DROP, POLICY_BLOCK, POLICY_OVERWRITE = 0, 1, 2
ORDER_FULL, ORDER_ACQREL, ORDER_CTRLDEP = 0, 1, 2
RING_WAIT = 0x1
RING_INBAND = 0x2  # in-band publication (ACQREL, DROP or BLOCK, no WAIT)
RING_EVENTFD = 0x4  # an eventfd for poll/select readers (implies WAIT)


class Ring(_Handle):
    """One mapping of a ring (private, a memfd, or a POSIX shm object).
    Made by Ring.create(), create_memfd(), create_shm(), attach_fd() or
    attach_shm(); a context manager; close() (or the end of the with
    block) unmaps once no call is in flight."""

    _what = "ring"
    _family = "pfr_ring"
    _makers = ("Ring.create(), create_memfd(), create_shm(), attach_fd() "
               "or attach_shm()")

    @staticmethod
    def _c_close(h):
        _c.pfr_ring_close(h)

    @staticmethod
    def _opts(data_size, policy, ordering, flags, lost_id, mode=0):
        _uint("data_size", data_size, 64)
        _cint("policy", policy)
        _cint("ordering", ordering)
        _uint("flags", flags, 32)
        _uint("lost_id", lost_id, 64)
        _uint("mode", mode, 32)
        o = _RingOpts()
        o.sz = ctypes.sizeof(o)
        o.data_size, o.policy, o.ordering = data_size, policy, ordering
        o.flags, o.lost_id, o.mode = flags, lost_id, mode
        return o

    @classmethod
    def create(cls, data_size=1 << 20, policy=POLICY_DROP,
               ordering=ORDER_ACQREL, flags=0, lost_id=0):
        """A ring in private memory (threads of this process)."""
        o = cls._opts(data_size, policy, ordering, flags, lost_id)
        load()
        h = _vp()
        _check_sys(_ce.pfr_ring_create(ctypes.byref(h), ctypes.byref(o)),
                   "pfr_ring_create")
        return cls._adopt(h)

    @classmethod
    def create_memfd(cls, data_size=1 << 20, policy=POLICY_DROP,
                     ordering=ORDER_ACQREL, flags=0, lost_id=0):
        """A ring in a sealed memfd: pass .fd to another process."""
        o = cls._opts(data_size, policy, ordering, flags, lost_id)
        load()
        h = _vp()
        _check_sys(_ce.pfr_ring_create_memfd(ctypes.byref(h),
                                             ctypes.byref(o)),
                   "pfr_ring_create_memfd")
        return cls._adopt(h)

    @classmethod
    def create_shm(cls, name, data_size=1 << 20, policy=POLICY_DROP,
                   ordering=ORDER_ACQREL, flags=0, lost_id=0, mode=0):
        """A ring in a new POSIX shm object /NAME (O_EXCL: Error with
        errno EEXIST when it exists); mode: its permission bits (0:
        0600).  Another process attaches with Ring.attach_shm(name);
        Ring.unlink(name) removes the name."""
        n = _name(name)
        o = cls._opts(data_size, policy, ordering, flags, lost_id, mode)
        load()
        h = _vp()
        _check_sys(_ce.pfr_ring_create_shm(ctypes.byref(h), n,
                                           ctypes.byref(o)),
                   "pfr_ring_create_shm")
        return cls._adopt(h)

    @classmethod
    def attach_fd(cls, fd):
        """Attach to a ring another process made (validated first; the fd
        is dup'ed)."""
        _cint("fd", fd)
        load()
        h = _vp()
        _check_sys(_ce.pfr_ring_attach_fd(ctypes.byref(h), fd),
                   "pfr_ring_attach_fd")
        return cls._adopt(h)

    @classmethod
    def attach_shm(cls, name):
        """Attach to the ring in POSIX shm object /NAME (validated
        first)."""
        n = _name(name)
        load()
        h = _vp()
        _check_sys(_ce.pfr_ring_attach_shm(ctypes.byref(h), n),
                   "pfr_ring_attach_shm")
        return cls._adopt(h)

    @property
    def writer_alive(self):
        """True while a live process holds the writer role."""
        return _check(self._call("writer_alive", _c.pfr_ring_writer_alive),
                      "pfr_ring_writer_alive") > 0

    @property
    def reader_alive(self):
        """True while a live process holds the reader role."""
        return _check(self._call("reader_alive", _c.pfr_ring_reader_alive),
                      "pfr_ring_reader_alive") > 0

    def set_inherit(self, inherit=True):
        """Hands the ring to a program this process execs: clears the
        fd's close-on-exec flag (inherit False sets it again) and returns
        the fd, for the exec'd program's Ring.attach_fd().  Error E_INVAL
        for a private ring (no fd)."""
        if not isinstance(inherit, bool):
            raise TypeError("perfring: inherit is True or False")
        h = self._enter("set_inherit")
        try:
            rc = _ce.pfr_ring_set_inherit(h, 1 if inherit else 0)
        finally:
            self._leave()
        return _check_sys(rc, "pfr_ring_set_inherit")

    @property
    def eventfd(self):
        """The eventfd a poll reader waits on (RING_EVENTFD, or the one
        given to set_eventfd()); -1: none in this process."""
        return self._call("eventfd", _c.pfr_ring_eventfd)

    def set_eventfd(self, fd):
        """Gives an attached ring the creator's eventfd (received with the
        ring's fd, or inherited); it is dup'ed.  Error E_INVAL for an fd
        that is not an eventfd or a ring without RING_WAIT."""
        _cint("fd", fd)
        h = self._enter("set_eventfd")
        try:
            rc = _ce.pfr_ring_set_eventfd(h, fd)
        finally:
            self._leave()
        _check_sys(rc, "pfr_ring_set_eventfd")

    @property
    def sealed(self):
        """True when no peer can shrink the object under this mapping."""
        return bool(self._call("sealed", _c.pfr_ring_sealed))

    def writer(self):
        return Writer(self)

    def reader(self):
        return Reader(self)


class _WriterOps:
    """What a struct pfr_writer does, for the ring's Writer and a group's
    GroupWriter alike: each call into C is counted in flight on the handle
    that maps the ring (_owner()); _usable() may refuse it first."""

    __slots__ = ()

    def _usable(self, what):
        pass

    def _call(self, what, f, *args):
        self._usable(what)
        owner = self._owner
        owner._enter(what)
        try:
            return f(self._w, *args)
        finally:
            owner._leave()

    def set_timeout(self, ns):
        """BLOCK rings: how long write() waits for space."""
        _uint("timeout", ns, 64)
        self._call("set_timeout", _c.pfr_writer_set_timeout, ns)

    def write(self, type, payload, publish=True):
        """Writes one record; raises Error (E_NOSPC, E_TIMEDOUT: counted
        as lost; E_INVAL: too large), or ValueError for a type the ring
        reserves: RECORD_LOST (the reader would take the payload for a
        loss count, and refuse a short one for good), PAD and every type
        above RECORD_USER_MAX."""
        data = _payload(type, payload)
        rc = self._call("write", _c.pfr_writer_write if publish else
                        _c.pfr_writer_write_deferred, type, data,
                        len(data))
        if rc < 0:
            raise Error(-rc, "pfr_writer_write")

    def publish(self):
        self._call("publish", _c.pfr_writer_publish)

    def flush(self):
        """Publishes and wakes the reader regardless of its thresholds."""
        self._call("flush", _c.pfr_writer_flush)

    @property
    def max_payload(self):
        return self._call("max_payload", _c.pfr_writer_max_payload)

    @property
    def lost(self):
        return self._call("lost", _c.pfr_writer_lost)


class Writer(_WriterOps):
    """The ring's one writer (this process takes the role): ring.writer().
    close() ends the stream: the reader sees the end once it has read
    every record."""

    __slots__ = ("_owner", "_w", "_closed", "__weakref__")

    def _usable(self, what):
        if self._closed:
            raise ValueError("perfring: %s on a closed writer (closed by "
                             "close()): open another with ring.writer()"
                             % what)

    def close(self):
        """Publishes, gives the writer role up and wakes the reader: its
        wait_end() returns None and eof() True once it has read every
        record.  Idempotent."""
        if self._closed:
            return
        self._call("close", _c.pfr_writer_close)
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __init__(self, ring):
        if not isinstance(ring, Ring):
            raise TypeError("perfring: Writer(ring) takes a Ring (use "
                            "ring.writer()), not %s" % type(ring).__name__)
        self._owner = ring  # keeps the mapping alive
        self._w = _opaque("pfr_writer")
        self._closed = False
        h = ring._enter("writer")
        try:
            _check(_c.pfr_ring_writer(h, self._w), "pfr_ring_writer")
        finally:
            ring._leave()


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
    """The ring's one reader (this process takes the role): ring.reader().
    Iterating over it yields the records published so far (one batch)."""

    __slots__ = ("_ring", "_r", "_rec", "_closed", "__weakref__")

    def __init__(self, ring):
        if not isinstance(ring, Ring):
            raise TypeError("perfring: Reader(ring) takes a Ring (use "
                            "ring.reader()), not %s" % type(ring).__name__)
        self._ring = ring  # keeps the mapping alive
        self._r = _opaque("pfr_reader")
        self._rec = _Record()
        self._closed = False
        h = ring._enter("reader")
        try:
            _check(_c.pfr_ring_reader(h, self._r), "pfr_ring_reader")
        finally:
            ring._leave()

    def records(self):
        """Every record published so far, in order: one batch (begin,
        next..., end); the space is freed when the batch is done."""
        if self._closed:
            raise ValueError("perfring: records on a closed reader "
                             "(closed by close())")
        r, rec, out = self._r, self._rec, []
        nxt, ref = _c.pfr_reader_next, ctypes.byref(rec)
        ring = self._ring
        ring._enter("records")
        try:
            _check(_c.pfr_reader_begin(r), "pfr_reader_begin")
            try:
                while True:
                    rc = nxt(r, ref)
                    if rc == 0:
                        break
                    _check(rc, "pfr_reader_next")
                    out.append(Record(rec))
            finally:
                _c.pfr_reader_end(r)
        finally:
            ring._leave()
        return out

    def __iter__(self):
        return iter(self.records())

    @property
    def pending(self):
        """Bytes published and not read yet."""
        ring = self._ring
        ring._enter("pending")
        try:
            return _c.pfr_reader_pending(self._r)
        finally:
            ring._leave()

    def wait(self, timeout_ns=FOREVER):
        """Blocks until data (rings with RING_WAIT): the bytes available,
        or 0 on time-out.  A close() from another thread meanwhile takes
        effect when the wait returns."""
        _uint("timeout_ns", timeout_ns, 64)
        rc = self._rcall("wait", _c.pfr_reader_wait, timeout_ns)
        if rc == -E_TIMEDOUT:
            return 0
        return _check(rc, "pfr_reader_wait")

    def _rcall(self, what, f, *args):
        if self._closed:
            raise ValueError("perfring: %s on a closed reader (closed by "
                             "close())" % what)
        ring = self._ring
        ring._enter(what)
        try:
            return f(self._r, *args)
        finally:
            ring._leave()

    def wait_end(self, timeout_ns=FOREVER):
        """wait() that also ends at the end of stream: the bytes available,
        0 on time-out, None once the writer closed or died and every
        record it published was read."""
        _uint("timeout_ns", timeout_ns, 64)
        rc = self._rcall("wait_end", _c.pfr_reader_wait_end, timeout_ns)
        if rc == -E_TIMEDOUT:
            return 0
        if rc == -E_CLOSED:
            return None
        return _check(rc, "pfr_reader_wait_end")

    def eof(self):
        """True when the writer closed or died and everything it published
        was read (call it when a batch is drained: it loads head)."""
        return _check(self._rcall("eof", _c.pfr_reader_eof),
                      "pfr_reader_eof") > 0

    def fileno(self):
        """The ring's eventfd (RING_EVENTFD, or Ring.set_eventfd()), so
        that select and selectors take the reader: call poll_prepare()
        before waiting on it, poll_done() after.  Error E_INVAL without
        one."""
        fd = self._ring._call("fileno", _c.pfr_ring_eventfd)
        if fd < 0:
            raise Error(E_INVAL, "pfr_ring_eventfd")
        return fd

    def poll_prepare(self):
        """Arms the eventfd: False when armed (wait on fileno() now), True
        when there is something to read already or the stream ended (do
        not wait)."""
        return _check(self._rcall("poll_prepare",
                                  _c.pfr_reader_poll_prepare),
                      "pfr_reader_poll_prepare") > 0

    def poll_done(self):
        """After the wait on fileno() (or instead of it): disarms and
        empties the eventfd; then read."""
        _check(self._rcall("poll_done", _c.pfr_reader_poll_done),
               "pfr_reader_poll_done")

    def close(self):
        """Publishes what was read and gives the reader role up: a BLOCK
        writer that finds no room then fails at once.  Idempotent."""
        if self._closed:
            return
        self._rcall("close", _c.pfr_reader_close)
        self._closed = True
