# SPDX-License-Identifier: MIT
"""The group (<perfring/group.h>): one ring per writer, one reader that
drains them all, across threads and processes."""
import ctypes

from perfring._core import (
    _c, _ce, _Handle, _GroupOpts, _GroupStats, _GROUP_FN, Error, _check,
    _check_sys, _cint, _uint, _name, _opaque, _vp, load,
    E_TIMEDOUT, FOREVER)
from perfring.ring import POLICY_DROP, ORDER_ACQREL, _WriterOps

GROUP_WAIT = 0x1
GROUP_EVENTFD = 0x2  # implies GROUP_WAIT
GROUP_DRAIN_ALL = 0x1
GROUP_SLOTS_MAX = 4096
# A callback's "stop": negative (the group's and the session's rule) and
# nonzero (the ring's), and no PFR_E_* code.
_STOP = -(1 << 30)


class GroupRecord:
    """One record a group's reader delivered, its payload copied out:
    type, misc, payload, slot (the writer's), tag (its join tag), time
    (ordered groups; else 0)."""

    __slots__ = ("type", "misc", "payload", "slot", "tag", "time")

    def __init__(self, rec):
        self.type = rec.hdr.type
        self.misc = rec.hdr.misc
        self.payload = ctypes.string_at(rec.payload, rec.len) \
            if rec.len else b""
        self.slot = rec.slot
        self.tag = rec.tag
        self.time = rec.time

    def __repr__(self):
        return "GroupRecord(type=%d, slot=%d, tag=%d, time=%d, %d bytes)" % (
            self.type, self.slot, self.tag, self.time, len(self.payload))


class Group(_Handle):
    """A group of rings: many writers (join()), one reader (reader()).
    Made by Group.create(), create_memfd(), create_shm(), attach_fd() or
    attach_shm(); a context manager; close() unmaps once no call is in
    flight, after leaving the writers and closing the reader this object
    still holds."""

    _what = "group"
    _family = "pfr_group"
    _makers = ("Group.create(), create_memfd(), create_shm(), attach_fd() "
               "or attach_shm()")

    @staticmethod
    def _c_close(h):
        _c.pfr_group_close(h)

    @staticmethod
    def _opts(slots, data_size, policy, ordering, flags, mode=0):
        _uint("slots", slots, 32)
        _uint("data_size", data_size, 64)
        _cint("policy", policy)
        _cint("ordering", ordering)
        _uint("flags", flags, 32)
        _uint("mode", mode, 32)
        o = _GroupOpts()
        o.sz = ctypes.sizeof(o)
        o.slots, o.data_size, o.policy = slots, data_size, policy
        o.ordering, o.flags, o.mode = ordering, flags, mode
        return o

    @classmethod
    def create(cls, slots=64, data_size=1 << 16, policy=POLICY_DROP,
               ordering=ORDER_ACQREL, flags=0):
        """A group in private memory (threads, children forked later)."""
        o = cls._opts(slots, data_size, policy, ordering, flags)
        load()
        h = _vp()
        _check_sys(_ce.pfr_group_create(ctypes.byref(h), ctypes.byref(o)),
                   "pfr_group_create")
        return cls._adopt(h)

    @classmethod
    def create_memfd(cls, slots=64, data_size=1 << 16, policy=POLICY_DROP,
                     ordering=ORDER_ACQREL, flags=0):
        """A group in a sealed memfd: pass .fd (and .eventfd) on."""
        o = cls._opts(slots, data_size, policy, ordering, flags)
        load()
        h = _vp()
        _check_sys(_ce.pfr_group_create_memfd(ctypes.byref(h),
                                              ctypes.byref(o)),
                   "pfr_group_create_memfd")
        return cls._adopt(h)

    @classmethod
    def create_shm(cls, name, slots=64, data_size=1 << 16,
                   policy=POLICY_DROP, ordering=ORDER_ACQREL, flags=0,
                   mode=0):
        """A group in a new POSIX shm object /NAME (O_EXCL)."""
        n = _name(name)
        o = cls._opts(slots, data_size, policy, ordering, flags, mode)
        load()
        h = _vp()
        _check_sys(_ce.pfr_group_create_shm(ctypes.byref(h), n,
                                            ctypes.byref(o)),
                   "pfr_group_create_shm")
        return cls._adopt(h)

    @classmethod
    def attach_fd(cls, fd, eventfd=-1):
        """Attach by fd (dup'ed), with the group's eventfd if it has one
        (-1: none)."""
        _cint("fd", fd)
        _cint("eventfd", eventfd)
        load()
        h = _vp()
        _check_sys(_ce.pfr_group_attach_fd(ctypes.byref(h), fd, eventfd),
                   "pfr_group_attach_fd")
        return cls._adopt(h)

    @classmethod
    def attach_shm(cls, name):
        n = _name(name)
        load()
        h = _vp()
        _check_sys(_ce.pfr_group_attach_shm(ctypes.byref(h), n),
                   "pfr_group_attach_shm")
        return cls._adopt(h)




    @property
    def eventfd(self):
        """The eventfd (-1: none)."""
        return self._call("eventfd", _c.pfr_group_eventfd)

    @property
    def slots(self):
        return self._call("slots", _c.pfr_group_slots)

    @property
    def reader_alive(self):
        """True while a reader holds the group and its process lives."""
        return _check(self._call("reader_alive",
                                 _c.pfr_group_reader_alive),
                      "pfr_group_reader_alive") > 0

    def join(self, tag=0):
        """Claims a free slot: a GroupWriter (Error E_FULL when every slot
        is taken)."""
        return GroupWriter(self, tag)

    def reader(self, ordered=False):
        """Takes the reader role (Error E_BUSY while a live reader holds
        it): a GroupReader.  ordered: time order by each record's first 8
        payload bytes (host byte order)."""
        return GroupReader(self, ordered)

    def stats(self):
        """The group's counters (struct pfr_group_stats) as a dict."""
        st = _GroupStats()
        self._call("stats", _c.pfr_group_stats, ctypes.byref(st))
        return {n: getattr(st, n) for n, _ in _GroupStats._fields_}


class GroupWriter(_WriterOps):
    """A writer of a group (its slot's ring): group.join(tag).  .slot is
    its slot; write()/flush()/lost as the ring's Writer; leave() (or the
    end of its with block) gives the slot back."""

    __slots__ = ("_owner", "_w", "slot", "tag", "_left", "__weakref__")

    def __init__(self, group, tag=0):
        if not isinstance(group, Group):
            raise TypeError("perfring: GroupWriter(group) takes a Group "
                            "(use group.join()), not %s" %
                            type(group).__name__)
        _uint("tag", tag, 64)
        self._owner = group
        self._w = _opaque("pfr_writer")
        self._left = True
        h = group._enter("join")
        try:
            rc = _c.pfr_group_join(h, self._w, tag)
        finally:
            group._leave()
        self.slot = _check(rc, "pfr_group_join")
        self.tag = tag
        self._left = False
        group._kids.add(self)

    def leave(self):
        """Publishes what was written, marks the slot for the reader to
        free once drained.  Idempotent."""
        if self._left:
            return
        g = self._owner
        h = g._enter("leave")
        try:
            if not self._left:
                self._left = True
                g._kids.discard(self)
                _check(_c.pfr_group_leave(h, self._w), "pfr_group_leave")
        finally:
            g._leave()

    def _release_role(self, h):
        # the group closes with this writer still joined
        if not self._left:
            self._left = True
            _c.pfr_group_leave(h, self._w)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            self.leave()
        except ValueError:
            pass  # the group was closed first: it left then

    def __del__(self):
        if getattr(self, "_left", True) is False:
            try:
                self.leave()
            except (ValueError, Error):
                pass


class GroupReader:
    """The group's reader: group.reader(ordered=False).  drain() (or
    iterating) takes every ring once; wait() sleeps (GROUP_WAIT groups);
    close() (or the end of its with block) gives the role up."""

    __slots__ = ("_g", "_open", "_out", "_n", "_exc", "_fn", "_on",
                 "__weakref__")

    def __init__(self, group, ordered=False):
        if not isinstance(group, Group):
            raise TypeError("perfring: GroupReader(group) takes a Group "
                            "(use group.reader()), not %s" %
                            type(group).__name__)
        self._g = group
        self._open = False
        self._out = None
        self._n = 0
        self._exc = None
        self._on = None
        self._fn = _GROUP_FN(self._deliver)  # made once: per-call cheap
        h = group._enter("reader")
        try:
            rc = _c.pfr_group_reader_open(h, 1 if ordered else 0, None,
                                          None)
        finally:
            group._leave()
        _check(rc, "pfr_group_reader_open")
        self._open = True
        group._kids.add(self)

    def _deliver(self, arg, rec):
        try:
            r = GroupRecord(rec.contents)
            self._n += 1
            if self._on is None:
                self._out.append(r)
            elif self._on(r) is False:
                return _STOP
        except BaseException as e:  # noqa: B036 - re-raised by drain()
            self._exc = e
            return _STOP
        return 0

    def drain(self, flags=0, on_record=None):
        """Takes every active ring once (one batch each): a list of
        GroupRecord (LOST records included, type RECORD_LOST).  With
        on_record, each record goes to on_record(rec) instead and the
        count is returned; on_record returning False stops the drain (the
        records delivered so far are consumed), an exception it raises is
        raised here.  flags: GROUP_DRAIN_ALL (ordered: flush the
        queue)."""
        _uint("flags", flags, 32)
        if not self._open:
            raise ValueError("perfring: drain after the reader was closed")
        g = self._g
        self._out, self._n, self._exc, self._on = [], 0, None, on_record
        h = g._enter("drain")
        try:
            rc = _c.pfr_group_drain(h, self._fn, None, flags)
        finally:
            g._leave()
            out, self._out, self._on = self._out, None, None
        if self._exc is not None:
            e, self._exc = self._exc, None
            raise e
        if rc < 0 and rc != _STOP:
            _check(rc, "pfr_group_drain")
        return out if on_record is None else self._n

    def __iter__(self):
        return iter(self.drain())

    def wait(self, timeout_ns=FOREVER):
        """Sleeps until a writer publishes, joins or leaves (True) or the
        time-out passes (False).  Needs GROUP_WAIT."""
        _uint("timeout_ns", timeout_ns, 64)
        if not self._open:
            raise ValueError("perfring: wait after the reader was closed")
        g = self._g
        h = g._enter("wait")
        try:
            rc = _c.pfr_group_wait(h, timeout_ns)
        finally:
            g._leave()
        if rc == -E_TIMEDOUT:
            return False
        return _check(rc, "pfr_group_wait") > 0

    def set_reclaim_interval(self, ns):
        _uint("ns", ns, 64)
        h = self._g._enter("set_reclaim_interval")
        try:
            _c.pfr_group_set_reclaim_interval(h, ns)
        finally:
            self._g._leave()

    def set_queue_max(self, nbytes):
        _uint("bytes", nbytes, 64)
        h = self._g._enter("set_queue_max")
        try:
            _check(_c.pfr_group_set_queue_max(h, nbytes),
                   "pfr_group_set_queue_max")
        finally:
            self._g._leave()

    def close(self):
        """Gives the reader role up.  Idempotent."""
        if not self._open:
            return
        g = self._g
        try:
            h = g._enter("reader close")
        except ValueError:
            return  # the group closed: it released the role then
        try:
            if self._open:
                self._open = False
                g._kids.discard(self)
                _c.pfr_group_reader_close(h)
        finally:
            g._leave()

    def _release_role(self, h):
        if self._open:
            self._open = False
            _c.pfr_group_reader_close(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_open", False):
            self.close()
