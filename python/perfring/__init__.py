# SPDX-License-Identifier: MIT
"""perfring for Python: the perf ring buffer protocol over ctypes.

A thin binding over libperfring's exported symbols, the inline fast paths
included (their out-of-line twins, src/abi/ffi.c).  Python's standard library
only: no compiler, no pip.  Four families, one set of conventions:

  Ring        one writer, one reader        ring.writer(), ring.reader()
  Group       a ring per writer, one reader group.join(tag), group.reader()
  SharedRing  one ring, many producers      ring.join(), ring.reader()
  Session     perf events of CPUs/threads   Session.create(events=[...])

Each is made by a classmethod (create, create_memfd, create_shm,
attach_fd, attach_shm; Session.create), never from a raw pointer; each is
a context manager whose close() unmaps once no call is in flight in any
thread (a close() under another thread's write, read or wait takes effect
when that call returns; later calls raise ValueError).  Readers iterate
(`for rec in reader:` is one batch); joined writers and readers have
leave()/close() and are context managers too.  Errors raise
perfring.Error: .code is the library's PFR_E_* code, .errno the system
errno when a system call failed (else None).

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
    for rec in r:
        print(rec.type, rec.payload)

perf.data files are read by the submodule perfring.perfdata (import it:
it loads the second library, libperfring-perfdata):

    import perfring.perfdata as perfdata
    with perfdata.open("perf.data") as pd:
        for ev in pd:
            print(ev.type, ev.time, ev.comm, ev.sym, ev.callchain)

The library is found at $PERFRING_LIB, else in the LIBDIR `make install`
put it in, else as libperfring.so.0 by the dynamic linker (LD_LIBRARY_PATH,
the system's paths); when none loads, the first call raises
LibraryNotFound, which names what was tried and how to fix it.

Every number is range-checked before it reaches C (ValueError: ctypes
would silently truncate it); record types the rings reserve (RECORD_LOST,
PAD, above RECORD_USER_MAX) are refused.
"""
from perfring._core import (  # noqa: F401
    Error, LibraryNotFound, load, version, FOREVER, RECORD_LOST,
    RECORD_USER_MAX, E_AGAIN, E_NOSPC, E_TIMEDOUT, E_INVAL, E_HEAD_AHEAD,
    E_HEAD_BEHIND, E_RECSIZE_ZERO, E_RECSIZE_ALIGN, E_RECSIZE_SHORT,
    E_RECSIZE_PAST_HEAD, E_MAGIC, E_VERSION, E_LAYOUT, E_MAPPING,
    E_OVERWRITTEN, E_SYSTEM, E_BUSY, E_TOOBIG, E_FULL, E_STALLED, E_CLOSED)
from perfring.ring import (  # noqa: F401
    Ring, Writer, Reader, Record, POLICY_DROP, POLICY_BLOCK,
    POLICY_OVERWRITE, ORDER_FULL, ORDER_ACQREL, ORDER_CTRLDEP, RING_WAIT,
    RING_INBAND, RING_EVENTFD)
from perfring.group import (  # noqa: F401
    Group, GroupWriter, GroupReader, GroupRecord, GROUP_WAIT,
    GROUP_EVENTFD, GROUP_DRAIN_ALL, GROUP_SLOTS_MAX)
from perfring.mpsc import (  # noqa: F401
    SharedRing, Producer, SharedReader, MPSC_WAIT, MPSC_PRODUCERS_MAX)
from perfring.session import (  # noqa: F401
    Session, SessionRecord, SESSION_OVERWRITE, SESSION_SWITCH_EVENTS,
    SESSION_DATA_MAPS, SESSION_TRACKING, SESSION_NO_BUILDID,
    SESSION_NO_BPF_EVENT, REQ_STOP, REQ_SNAPSHOT, REQ_CHILD, REQ_SWITCH)

READER_SKIP_PAD = 0x1

__all__ = [
    "Error", "LibraryNotFound", "load", "version", "FOREVER",
    "RECORD_LOST", "RECORD_USER_MAX",
    "E_AGAIN", "E_NOSPC", "E_TIMEDOUT", "E_INVAL", "E_HEAD_AHEAD",
    "E_HEAD_BEHIND", "E_RECSIZE_ZERO", "E_RECSIZE_ALIGN", "E_RECSIZE_SHORT",
    "E_RECSIZE_PAST_HEAD", "E_MAGIC", "E_VERSION", "E_LAYOUT", "E_MAPPING",
    "E_OVERWRITTEN", "E_SYSTEM", "E_BUSY", "E_TOOBIG", "E_FULL",
    "E_STALLED", "E_CLOSED",
    "Ring", "Writer", "Reader", "Record", "POLICY_DROP", "POLICY_BLOCK",
    "POLICY_OVERWRITE", "ORDER_FULL", "ORDER_ACQREL", "ORDER_CTRLDEP",
    "RING_WAIT", "RING_INBAND", "RING_EVENTFD",
    "Group", "GroupWriter", "GroupReader", "GroupRecord", "GROUP_WAIT",
    "GROUP_EVENTFD", "GROUP_DRAIN_ALL", "GROUP_SLOTS_MAX",
    "SharedRing", "Producer", "SharedReader", "MPSC_WAIT",
    "MPSC_PRODUCERS_MAX",
    "Session", "SessionRecord", "SESSION_OVERWRITE", "SESSION_SWITCH_EVENTS",
    "SESSION_DATA_MAPS", "SESSION_TRACKING", "SESSION_NO_BUILDID",
    "SESSION_NO_BPF_EVENT", "REQ_STOP", "REQ_SNAPSHOT", "REQ_CHILD",
    "REQ_SWITCH",
]
