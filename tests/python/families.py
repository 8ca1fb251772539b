# SPDX-License-Identifier: MIT
"""The Python binding's families across processes (TAP;
tests/python/t_python_families.sh).

  - errors: .code is the library's PFR_E_* code and .errno the system
    errno (EBADF for a closed fd, ENOENT for a missing shm name, EEXIST
    for a second create), None when no system call failed (a full group);
  - a ring in POSIX shm: a child process attaches by name and writes, the
    parent reads every record in order;
  - a group in a memfd: three writer processes join (tags 1..3) and write
    N records each; the parent drains until it has 3N, each writer's
    records in order, none lost; the slots come back after they leave;
  - a shared ring in a memfd (BLOCK): three producer processes write N
    records each; the parent reads 3N, each producer's in order, none
    lost;
  - the session: context switches of a command it starts, delivered in
    time order with the command's COMM record, and a command that cannot
    run raises Error with errno ENOENT (skipped, with the reason, where
    the kernel refuses perf events to this process);
  - context managers, iteration and close() on every family.

    python3 families.py            the test
    python3 families.py KIND ...   (spawned children)
"""
import errno
import os
import struct
import subprocess
import sys
import time

import perfring

N = 3000
REC = struct.Struct("<QQ")  # writer id, sequence


def child(kind, arg, wid):
    wid = int(wid)
    if kind == "ring-shm":
        with perfring.Ring.attach_shm(arg) as ring:
            w = ring.writer()
            w.set_timeout(60 * 10**9)
            for seq in range(N):
                w.write(100, REC.pack(wid, seq) + b"r" * (seq % 50))
            w.flush()
    elif kind == "group":
        with perfring.Group.attach_fd(int(arg)) as g:
            with g.join(tag=wid) as w:
                w.set_timeout(60 * 10**9)
                for seq in range(N):
                    w.write(200 + wid, REC.pack(wid, seq))
                w.flush()
    elif kind == "group-reader":
        with perfring.Group.attach_fd(int(arg)) as g:
            e = raises(g.reader)
            print("# second reader:", repr(e), e and e.code)
            return 0 if e is not None and e.code == perfring.E_BUSY else 1
    elif kind == "mpsc":
        with perfring.SharedRing.attach_fd(int(arg)) as m:
            with m.join() as p:
                p.set_timeout(60 * 10**9)
                for seq in range(N):
                    p.write(300, REC.pack(wid, seq) + b"m" * (seq % 30))
                assert p.lost == 0
    return 0


def spawn(kind, arg, wid, fds=()):
    return subprocess.Popen([sys.executable, __file__, kind, str(arg),
                             str(wid)], pass_fds=fds)


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

    def skip(self, desc, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, desc, why))


def raises(f):
    try:
        f()
    except perfring.Error as e:
        return e
    return None


def t_errors(t):
    fd = os.open("/dev/null", os.O_RDONLY)
    os.close(fd)
    for name, f in (("Ring.attach_fd", perfring.Ring.attach_fd),
                    ("Group.attach_fd", perfring.Group.attach_fd),
                    ("SharedRing.attach_fd", perfring.SharedRing.attach_fd)):
        e = raises(lambda: f(fd))
        t.ok(e is not None and e.code == perfring.E_SYSTEM and
             e.errno == errno.EBADF,
             "%s(closed fd): .code E_SYSTEM, .errno EBADF" % name,
             "%r %s %s" % (e, e and e.code, e and e.errno))
    missing = "/pfr-py-missing-%d" % os.getpid()
    for cls in (perfring.Ring, perfring.Group, perfring.SharedRing):
        e = raises(lambda: cls.attach_shm(missing))
        t.ok(e is not None and e.code == perfring.E_SYSTEM and
             e.errno == errno.ENOENT,
             "%s.attach_shm(missing): .errno ENOENT" % cls.__name__,
             repr(e))
    name = "/pfr-py-dup-%d" % os.getpid()
    for cls in (perfring.Ring, perfring.Group, perfring.SharedRing):
        with cls.create_shm(name, data_size=4096):
            e = raises(lambda: cls.create_shm(name, data_size=4096))
            cls.unlink(name)
        t.ok(e is not None and e.errno == errno.EEXIST and
             e.code == perfring.E_SYSTEM and "File exists" in str(e),
             "%s.create_shm twice: .errno EEXIST, named in the message" %
             cls.__name__, repr(e))
    with perfring.Group.create(slots=1, data_size=4096) as g:
        w = g.join(1)
        e = raises(lambda: g.join(2))
        t.ok(e is not None and e.code == perfring.E_FULL and e.errno is None,
             "a full group: .code E_FULL, .errno None (no system call)",
             repr(e))
        w.leave()
    e = raises(lambda: perfring.Ring.attach_fd(os.open(__file__, os.O_RDONLY)))
    t.ok(e is not None and e.code == perfring.E_MAGIC and e.errno is None,
         "not a ring: .code E_MAGIC, .errno None", repr(e))


def t_ring_shm(t):
    name = "/pfr-py-ring-%d" % os.getpid()
    got, bad = 0, []
    with perfring.Ring.create_shm(name, data_size=1 << 16,
                                  policy=perfring.POLICY_BLOCK) as ring:
        r = ring.reader()
        p = spawn("ring-shm", name, 5)
        deadline = time.time() + 120
        while got < N and time.time() < deadline:
            for rec in r:
                wid, seq = REC.unpack_from(rec.payload)
                if (wid, seq, rec.type) != (5, got, 100):
                    bad.append((wid, seq, got))
                got += 1
            time.sleep(0.001)
        rc = p.wait(60)
        perfring.Ring.unlink(name)
        t.ok(not ring.sealed, "a shm ring says it is not sealed")
    t.ok(rc == 0 and got == N and not bad,
         "ring in POSIX shm: a child attached by name wrote %d, the "
         "parent read %d in order" % (N, got), "rc %s bad %s" % (rc, bad[:5]))
    e = raises(lambda: perfring.Ring.attach_shm(name))
    t.ok(e is not None and e.errno == errno.ENOENT,
         "after unlink the name is gone (ENOENT)", repr(e))


def t_group(t):
    with perfring.Group.create_memfd(slots=4, data_size=1 << 14,
                                     policy=perfring.POLICY_BLOCK,
                                     flags=perfring.GROUP_WAIT) as g:
        with g.reader() as r:
            t.ok(g.reader_alive, "the group's reader is alive")
            rc = spawn("group-reader", g.fd, 0, (g.fd,)).wait(60)
            t.ok(rc == 0, "a second reader, in another process: E_BUSY",
                 "exit %s" % rc)
            ps = [spawn("group", g.fd, i, (g.fd,)) for i in (1, 2, 3)]
            nxt = {1: 0, 2: 0, 3: 0}
            bad, lost = [], 0
            deadline = time.time() + 120
            while sum(nxt.values()) < 3 * N and time.time() < deadline:
                r.wait(100 * 10**6)
                for rec in r:
                    if rec.type == perfring.RECORD_LOST:
                        lost += 1
                        continue
                    wid, seq = REC.unpack_from(rec.payload)
                    if wid != rec.tag or rec.type != 200 + wid or \
                            seq != nxt.get(wid):
                        bad.append((rec.tag, wid, seq))
                    nxt[wid] = seq + 1
            rcs = [p.wait(60) for p in ps]
            # the leaves: their slots are freed once drained
            for _ in range(50):
                r.drain()
                if g.stats()["freed"] >= 3:
                    break
                time.sleep(0.01)
            st = g.stats()
        t.ok(rcs == [0, 0, 0] and all(v == N for v in nxt.values()) and
             not bad and not lost,
             "group in a memfd: 3 writer processes x %d records, each "
             "writer's in order with its tag, none lost" % N,
             "rcs %s next %s bad %s lost %d" % (rcs, nxt, bad[:5], lost))
        t.ok(st["freed"] >= 3 and st["records"] >= 3 * N,
             "the group's stats: 3 slots freed after the leaves, %d records"
             % st["records"], repr(st))
        w = g.join(9)
        t.ok(w.slot in range(4), "a slot is free again: joined at %d" %
             w.slot)
    t.ok(g.closed, "the with block closed the group")
    e = None
    try:
        w.write(300, b"after")
    except ValueError as x:
        e = x
    t.ok(e is not None, "a writer of a closed group raises ValueError",
         repr(e))


def t_group_ordered(t):
    with perfring.Group.create(slots=4, data_size=1 << 14) as g:
        with g.reader(ordered=True) as r:
            a, b = g.join(1), g.join(2)
            for i in range(200):  # times: a the even ones, b the odd ones
                a.write(100, struct.pack("<Q", 2 * i + 2))
                b.write(100, struct.pack("<Q", 2 * i + 1))
            a.flush()
            b.flush()
            seen = []
            n = r.drain(perfring.GROUP_DRAIN_ALL,
                        on_record=lambda rec: seen.append((rec.time,
                                                           rec.tag)))
            t.ok(n == 400 and [x[0] for x in seen] == list(range(1, 401))
                 and all(tag == 1 + tm % 2 for tm, tag in seen),
                 "ordered group: two writers' records merged in time "
                 "order, each with its writer's tag (drain(on_record=))",
                 "n %s first %s" % (n, seen[:6]))
            for i in range(5):
                a.write(100, struct.pack("<Q", 1000 + i))
            a.flush()
            got = []

            def stop(rec):
                got.append(rec.time)
                return False if len(got) == 2 else None
            n = r.drain(perfring.GROUP_DRAIN_ALL, on_record=stop)
            rest = [x.time for x in r.drain(perfring.GROUP_DRAIN_ALL)]
            t.ok(got == [1000, 1001] and n == 2 and
                 rest == [1002, 1003, 1004],
                 "on_record returning False stops the drain; the next "
                 "drain goes on from there", "%s %s %s" % (got, n, rest))

            def boom(rec):
                raise KeyError("from the callback")
            a.write(100, struct.pack("<Q", 2000))
            a.flush()
            try:
                r.drain(perfring.GROUP_DRAIN_ALL, on_record=boom)
                e = None
            except KeyError as x:
                e = x
            t.ok(e is not None, "an exception in on_record is raised by "
                 "drain()", repr(e))


def t_mpsc(t):
    with perfring.SharedRing.create_memfd(data_size=1 << 14,
                                          policy=perfring.POLICY_BLOCK,
                                          flags=perfring.MPSC_WAIT) as m:
        with m.reader() as r:
            t.ok(m.reader_alive, "the shared ring's reader is alive")
            ps = [spawn("mpsc", m.fd, i, (m.fd,)) for i in (1, 2, 3)]
            nxt = {1: 0, 2: 0, 3: 0}
            bad, lost, idx = [], 0, {}
            deadline = time.time() + 120
            while sum(nxt.values()) < 3 * N and time.time() < deadline:
                r.wait(100 * 10**6)
                for rec in r:
                    if rec.type == perfring.RECORD_LOST:
                        lost += 1
                        continue
                    wid, seq = REC.unpack_from(rec.payload)
                    idx.setdefault(wid, rec.misc)
                    if seq != nxt.get(wid) or idx[wid] != rec.misc or \
                            len(rec.payload) < 16 + seq % 30:
                        bad.append((wid, seq, rec.misc))
                    nxt[wid] = seq + 1
            rcs = [p.wait(60) for p in ps]
            st = m.stats(r)
        t.ok(rcs == [0, 0, 0] and all(v == N for v in nxt.values()) and
             not bad and not lost,
             "shared ring in a memfd (BLOCK): 3 producer processes x %d "
             "records, each producer's in order, none lost" % N,
             "rcs %s next %s bad %s lost %d" % (rcs, nxt, bad[:5], lost))
        t.ok(st["records_read"] == 3 * N and st["lost_total"] == 0,
             "the shared ring's stats: %d read, 0 lost" %
             st["records_read"], repr(st))
        # a producer in this process, a burst, then close with it joined
        p = m.join()
        p.write_burst(301, [b"a" * 16, b"b" * 16, b"c" * 16])
    t.ok(m.closed, "the with block closed the shared ring")
    e = None
    try:
        p.write(300, b"after")
    except ValueError as x:
        e = x
    t.ok(e is not None, "a producer of a closed shared ring raises "
         "ValueError", repr(e))
    with perfring.SharedRing.create(data_size=1 << 12) as m:
        with m.join() as p, m.reader() as r:
            p.write_burst(301, [b"a" * 16, b"b" * 16, b"c" * 16])
            got = [(x.type, x.payload[:1]) for x in r]
    t.ok(got == [(301, b"a"), (301, b"b"), (301, b"c")],
         "write_burst: three records in one reservation, in order",
         repr(got))


def t_session(t):
    recs = []
    try:
        s = perfring.Session.create(events=["context-switches/period=1/"],
                                    on_record=recs.append)
    except perfring.Error as e:
        t.skip("the session", "cannot create a session: %s" % e)
        return
    with s:
        s.start_command(["sh", "-c", "for i in 1 2 3 4 5; do sleep 0.01;"
                         " done"])
        try:
            s.open()
        except perfring.Error as e:
            if e.errno in (errno.EACCES, errno.EPERM, errno.ENOENT,
                           errno.ENOSYS, errno.EOPNOTSUPP):
                t.skip("the session", "the kernel refuses perf events "
                       "here: %s" % e)
                return
            raise
        s.enable()
        s.run()
        st = s.stats()
    times = [r.time for r in recs if r.time]
    comms = [r for r in recs if r.type == 3]  # PERF_RECORD_COMM
    t.ok(st["child_reaped"] == 1 and st["child_status"] == 0 and
         st["samples"] >= 5 and comms and times == sorted(times) and
         st["delivered"] == len(recs),
         "session: a command's context switches (%d samples), its COMM, "
         "%d records in time order" % (st["samples"], len(recs)),
         "stats %s comms %d" % (st, len(comms)))
    with perfring.Session.create(events=["cpu-clock"]) as s:
        s.start_command(["/nonexistent/command"])
        s.open()
        e = raises(s.enable)
    t.ok(e is not None and e.errno == errno.ENOENT and e.code == 115,
         "session: a command that cannot run: .code PFR_PERF_E_EXEC (115),"
         " .errno ENOENT", repr(e))
    # close() from another thread while run() is inside C: the destroy
    # waits for run() to return (the command's exit ends it)
    import threading
    s = perfring.Session.create(events=["cpu-clock"])
    s.start_command(["sleep", "1"])
    s.open()
    s.enable()
    res = []

    def runner():
        try:
            s.run()
            res.append("returned")
        except Exception as x:  # an Error is an answer too, not a crash
            res.append(repr(x))
    th = threading.Thread(target=runner)
    th.start()
    time.sleep(0.2)
    s.close()
    closed_first = th.is_alive()
    s2 = None
    try:
        s.request(perfring.REQ_STOP)
    except ValueError as x:
        s2 = x
    th.join(30)
    t.ok(s2 is not None and res and not th.is_alive(),
         "session: close() during run() in another thread defers the "
         "destroy (no crash); calls after it raise ValueError",
         "res %s after %r alive-at-close %s" % (res, s2, closed_first))
    e = raises(lambda: perfring.Session.create(events=["no-such-event"]))
    t.ok(e is not None and e.code == 100 and e.errno is None,
         "session: an unknown event: .code 100, .errno None", repr(e))


def main():
    t = Tap()
    for f in (t_errors, t_ring_shm, t_group, t_group_ordered, t_mpsc,
              t_session):
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
