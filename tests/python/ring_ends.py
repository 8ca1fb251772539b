# SPDX-License-Identifier: MIT
"""The single ring's ends, liveness and pollable fd from Python (TAP;
tests/python/t_python_ring_ends.sh).

  - a reader waits in selectors on reader.fileno() (poll_prepare(),
    poll_done()) while a child process, attached by fd and given the
    eventfd with Ring.set_eventfd(), writes N records and closes its
    writer: every record read in order, then eof() True and wait_end()
    None; writer_alive/reader_alive across the child's life;
  - a second writer in another process: Error with .code E_BUSY and
    .errno None; set_eventfd() of a fd that is no eventfd: E_INVAL;
    fileno() without an eventfd: E_INVAL; set_inherit() clears and sets
    the fd's close-on-exec flag and returns the fd;
  - a BLOCK writer whose reader closed fails with E_TIMEDOUT at once (a
    time-out of an hour);
  - a closed Writer or Reader refuses every call (ValueError).

    python3 ring_ends.py           the test
    python3 ring_ends.py KIND ...  (spawned children)
"""
import fcntl
import os
import selectors
import signal
import struct
import subprocess
import sys

import perfring

N = 500
REC = struct.Struct("<Q")


def child(kind, fd, efd, go):
    ring = perfring.Ring.attach_fd(int(fd))
    if kind == "second-writer":
        try:
            ring.writer()
        except perfring.Error as e:
            print("# second writer: %r code %d errno %r"
                  % (e, e.code, e.errno))
            return 0 if e.code == perfring.E_BUSY and e.errno is None \
                else 1
        return 1
    ring.set_eventfd(int(efd))
    w = ring.writer()
    os.read(int(go), 1)  # the parent is armed
    for seq in range(N):
        w.write(100, REC.pack(seq))
        if seq % 100 == 99:
            w.flush()
    w.close()
    try:
        w.write(100, b"x")
        return 2
    except ValueError:
        pass
    ring.close()
    return 0


def spawn(kind, fds, *args):
    return subprocess.Popen([sys.executable, __file__, kind] +
                            [str(a) for a in args], pass_fds=fds)


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=""):
        self.n += 1
        if cond:
            print("ok %d - %s" % (self.n, desc))
        else:
            self.failed += 1
            print("not ok %d - %s" % (self.n, desc))
            for line in str(diag).splitlines():
                print("#   " + line)


def raises(f, kind=perfring.Error):
    try:
        f()
    except kind as e:
        return e
    return None


def t_poll(t):
    ring = perfring.Ring.create_memfd(data_size=1 << 16,
                                      flags=perfring.RING_EVENTFD)
    r = ring.reader()
    efd = ring.eventfd
    t.ok(efd >= 0 and r.fileno() == efd, "RING_EVENTFD: reader.fileno() "
         "is the ring's eventfd (%d)" % efd)
    t.ok(not ring.writer_alive and ring.reader_alive,
         "no writer yet; this process's reader alive")
    go_r, go_w = os.pipe()
    p = spawn("writer", (ring.fd, efd, go_r), ring.fd, efd, go_r)
    os.close(go_r)
    sel = selectors.DefaultSelector()
    sel.register(r, selectors.EVENT_READ)
    got, wakes, end, armed_first = [], 0, False, None
    for _ in range(100000):
        armed = not r.poll_prepare()
        if armed_first is None:
            armed_first = armed
            os.write(go_w, b"g")
        if armed:
            if not sel.select(timeout=60):
                break
            wakes += 1
        r.poll_done()
        got += [REC.unpack(x.payload)[0] for x in r.records()]
        if r.eof():
            end = True
            break
    sel.close()
    os.close(go_w)
    t.ok(armed_first, "an empty ring: poll_prepare() False (armed)")
    t.ok(p.wait(60) == 0, "the child attached, took the eventfd, wrote "
         "and closed its writer")
    t.ok(got == list(range(N)), "every record read in order through "
         "selectors (%d, %d wake-ups)" % (len(got), wakes), got[:5])
    t.ok(wakes > 0, "the eventfd woke the selector")
    t.ok(end and r.eof(), "eof() after the writer's close")
    t.ok(r.wait_end(10**9) is None, "wait_end(): None at the end")
    t.ok(r.poll_prepare(), "poll_prepare() at the end: True (do not wait)")
    t.ok(not ring.writer_alive, "writer_alive False after its close")
    r.close()
    t.ok(not ring.reader_alive, "reader_alive False after reader.close()")
    t.ok(isinstance(raises(r.records, ValueError), ValueError) and
         isinstance(raises(r.eof, ValueError), ValueError),
         "a closed reader refuses records() and eof()")
    ring.close()


def t_errors(t):
    ring = perfring.Ring.create_memfd(data_size=1 << 12,
                                      flags=perfring.RING_WAIT)
    w = ring.writer()
    p = spawn("second-writer", (ring.fd,), ring.fd, -1, -1)
    t.ok(p.wait(60) == 0, "a second writer in another process: Error "
         "E_BUSY, errno None")
    e = raises(lambda: ring.set_eventfd(ring.fd))
    t.ok(e is not None and e.code == perfring.E_INVAL,
         "set_eventfd(the memfd): E_INVAL", repr(e))
    r = ring.reader()
    e = raises(r.fileno)
    t.ok(e is not None and e.code == perfring.E_INVAL,
         "fileno() without an eventfd: E_INVAL", repr(e))
    e = raises(r.poll_prepare)
    t.ok(e is not None and e.code == perfring.E_INVAL,
         "poll_prepare() without an eventfd: E_INVAL", repr(e))
    fd = ring.fd
    t.ok(fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC,
         "the memfd is close-on-exec")
    t.ok(ring.set_inherit(True) == fd and
         not fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC,
         "set_inherit(True): the fd, FD_CLOEXEC cleared")
    t.ok(ring.set_inherit(False) == fd and
         fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC,
         "set_inherit(False): FD_CLOEXEC set again")
    e = raises(lambda: perfring.Ring.create(data_size=1 << 12)
               .set_inherit(True))
    t.ok(e is not None and e.code == perfring.E_INVAL,
         "set_inherit() of a private ring: E_INVAL", repr(e))
    w.close()
    w.close()
    t.ok(isinstance(raises(lambda: w.write(100, b"x"), ValueError),
                    ValueError), "a closed writer refuses write()")
    ring.close()


def t_block(t):
    ring = perfring.Ring.create(data_size=1 << 12,
                                policy=perfring.POLICY_BLOCK)
    w = ring.writer()
    ring.reader().close()
    w.set_timeout(3600 * 10**9)
    signal.alarm(120)  # the old behaviour waits an hour: a failure
    e = None
    for i in range(1000):
        e = raises(lambda: w.write(100, REC.pack(i)))
        if e:
            break
    signal.alarm(0)
    t.ok(e is not None and e.code == perfring.E_TIMEDOUT,
         "a BLOCK writer whose reader closed: E_TIMEDOUT at once", repr(e))
    t.ok(w.lost == 1, "counted lost")
    ring.close()


def main():
    t = Tap()
    for f in (t_poll, t_errors, t_block):
        try:
            f(t)
        except Exception as e:  # a failure of the case, not of the rest
            import traceback
            t.ok(False, "%s raised %r" % (f.__name__, e),
                 traceback.format_exc())
    print("1..%d" % t.n)
    return 1 if t.failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1:
        sys.exit(child(*sys.argv[1:]))
    sys.exit(main())
