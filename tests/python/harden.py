# SPDX-License-Identifier: MIT
"""The Python binding under misuse (TAP; tests/python/t_python_harden.sh).

Each case runs in a python3 of its own, so that a crash of the interpreter
(what a use after close did: SIGSEGV) fails that case only:
  - a writer or reader used after its ring was closed (close(), the end of
    a with block) raises ValueError;
  - every integer is range-checked (ctypes would truncate it silently:
    type = 2**32 + 1 was written as type 1, data_size = 2**64 + 4096 made
    a 4 KiB ring);
  - a RECORD_LOST-type record is refused, and the ring reads on;
  - without the library the first call raises perfring.LibraryNotFound
    (not OSError), naming what was tried and PERFRING_LIB.
"""
import os
import subprocess
import sys

PRELUDE = """
import perfring, sys
def expect(exc, f):
    try:
        f()
    except exc as e:
        print("raised", type(e).__name__, e)
        return
    except Exception as e:
        print("wrong exception", type(e).__name__, e)
        sys.exit(3)
    print("no exception")
    sys.exit(4)
"""

CASES = [
    ("write after ring.close()",
     "ring = perfring.Ring.create(data_size=4096)\n"
     "w = ring.writer()\nring.close()\n"
     "expect(ValueError, lambda: w.write(1, b'x' * 64))"),
    ("flush, publish, lost, max_payload, set_timeout after close",
     "ring = perfring.Ring.create(data_size=4096)\n"
     "w = ring.writer()\nring.close()\n"
     "expect(ValueError, w.flush)\nexpect(ValueError, w.publish)\n"
     "expect(ValueError, lambda: w.lost)\n"
     "expect(ValueError, lambda: w.max_payload)\n"
     "expect(ValueError, lambda: w.set_timeout(1))"),
    ("records() and wait() after close",
     "ring = perfring.Ring.create(data_size=4096, flags=perfring.RING_WAIT)\n"
     "w = ring.writer()\nr = ring.reader()\nw.write(1, b'abc')\n"
     "ring.close()\nexpect(ValueError, r.records)\n"
     "expect(ValueError, lambda: r.wait(1000))"),
    ("use after the end of a with block",
     "with perfring.Ring.create(data_size=4096) as ring:\n"
     "    w = ring.writer()\n    r = ring.reader()\n"
     "expect(ValueError, lambda: w.write(1, b'x'))\n"
     "expect(ValueError, r.records)\n"
     "expect(ValueError, lambda: ring.fd)\n"
     "expect(ValueError, ring.writer)"),
    ("a writer keeps its ring mapped while the ring object is dropped",
     "w = perfring.Ring.create(data_size=4096).writer()\n"
     "import gc; gc.collect()\nw.write(1, b'still mapped')\nw.flush()\n"
     "print('wrote', w.lost)"),
    ("type = 2**32 + 1 refused",
     "ring = perfring.Ring.create(data_size=4096)\nw = ring.writer()\n"
     "expect(ValueError, lambda: w.write(2**32 + 1, b'x'))\n"
     "expect(ValueError, lambda: w.write(-1, b'x'))\n"
     "expect(ValueError, lambda: w.write(0x80000001, b'x'))\n"
     "expect(TypeError, lambda: w.write(1.5, b'x'))\n"
     "r = ring.reader()\nassert r.records() == []"),
    ("data_size = 2**64 + 4096 and other options out of range refused",
     "expect(ValueError, lambda: perfring.Ring.create("
     "data_size=2**64 + 4096))\n"
     "expect(ValueError, lambda: perfring.Ring.create(data_size=-4096))\n"
     "expect(ValueError, lambda: perfring.Ring.create(flags=2**32))\n"
     "expect(ValueError, lambda: perfring.Ring.create(lost_id=2**64))\n"
     "expect(ValueError, lambda: perfring.Ring.create(policy=2**31))\n"
     "expect(ValueError, lambda: perfring.Ring.create_memfd("
     "ordering=-2**31 - 1))\n"
     "expect(ValueError, lambda: perfring.Ring.attach_fd(2**32 + 3))"),
    ("timeouts out of range refused",
     "ring = perfring.Ring.create(data_size=4096, flags=perfring.RING_WAIT)\n"
     "w = ring.writer()\nr = ring.reader()\n"
     "expect(ValueError, lambda: w.set_timeout(2**64))\n"
     "expect(ValueError, lambda: r.wait(2**64 + 5))\n"
     "expect(ValueError, lambda: r.wait(-1))"),
    ("a RECORD_LOST-type record is refused; the ring reads on",
     "ring = perfring.Ring.create(data_size=4096)\nw = ring.writer()\n"
     "r = ring.reader()\n"
     "expect(ValueError, lambda: w.write(perfring.RECORD_LOST, b''))\n"
     "expect(ValueError, lambda: w.write(perfring.RECORD_LOST, b'x' * 16))\n"
     "w.write(7, b'after')\nrecs = r.records()\n"
     "assert [x.type for x in recs] == [7], recs\n"
     "w.write(8, b'again')\nassert [x.type for x in r.records()] == [8]"),
]

NOLIB = """
import perfring
try:
    perfring.Ring.create()
except perfring.LibraryNotFound as e:
    assert not isinstance(e, OSError)
    m = str(e)
    assert "/nonexistent/libperfring.so" in m and "PERFRING_LIB" in m \\
        and "make install" in m, m
    print("raised", m)
"""


def run(code, env=None):
    p = subprocess.run([sys.executable, "-c", PRELUDE + code],
                       capture_output=True, text=True, env=env,
                       timeout=60)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    n = 0
    failed = 0
    for name, code in CASES:
        n += 1
        rc, out = run(code)
        if rc == 0:
            print("ok %d - %s" % (n, name))
        else:
            failed += 1
            how = ("killed by signal %d" % -rc) if rc < 0 else \
                "exit %d" % rc
            print("not ok %d - %s (%s)" % (n, name, how))
            for line in out.splitlines()[-8:]:
                print("#   " + line)
    n += 1
    env = dict(os.environ, PERFRING_LIB="/nonexistent/libperfring.so")
    rc, out = run(NOLIB, env)
    if rc == 0:
        print("ok %d - no library: perfring.LibraryNotFound names what was "
              "tried and the fix" % n)
    else:
        failed += 1
        print("not ok %d - no library: perfring.LibraryNotFound names what "
              "was tried and the fix" % n)
        for line in out.splitlines()[-8:]:
            print("#   " + line)
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
