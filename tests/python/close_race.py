# SPDX-License-Identifier: MIT
"""Closing a handle while another thread is inside a call (TAP;
tests/python/t_python_close_race.sh).

ctypes drops the GIL for the length of a C call, so one thread's close()
can run while another thread is inside pfr_writer_write() or
pfr_reader_next() on the same mapping.  The binding must not unmap under
a call in flight: the call finishes (or the next one raises ValueError)
and the unmap happens when the last call has left.  Each round runs in a
python3 of its own (a crash of the interpreter fails that round only):
a writer thread and a reader thread hammer one ring (group, shared ring)
while the main thread closes it after a short, varying delay; the round
passes when the process exits 0 with both threads stopped by ValueError
(or done).  The verdict is the number of rounds that crashed: 0 of N.

A raw integer where the binding expects its own handle is refused too
(TypeError), never dereferenced.

    python3 close_race.py [PROCS [PER [KINDS]]]

PROCS interpreters per kind (ring, wait, group, mpsc; ring+locked and
wait+locked: the lock-based guard of builds without a GIL), PER rounds in each
(a crash ends that interpreter: the count is of interpreters that
crashed; PER=1 measures the crash rate per round).
"""
import os
import subprocess
import sys

ROUND = r"""
import sys, threading, time, perfring
kind, delay, per = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
payload = b"x" * 4000

def one(delay):
  stopped = []

  def loop(step):
      try:
          while True:
              step()
      except ValueError:
          stopped.append("ValueError")

  if kind == "ring":
      h = perfring.Ring.create(data_size=1 << 20)
      w, r = h.writer(), h.reader()
      def wstep():
          try:
              w.write(9, payload)
          except perfring.Error:
              pass
      rstep = r.records
  elif kind == "wait":
      h = perfring.Ring.create(data_size=1 << 16, flags=perfring.RING_WAIT)
      w, r = h.writer(), h.reader()
      def wstep():
          try:
              w.write(9, payload)
          except perfring.Error:
              pass
      def rstep():
          r.wait(200000)
          r.records()
  elif kind == "group":
      h = perfring.Group.create(slots=2, data_size=1 << 20)
      w, r = h.join(7), h.reader()
      def wstep():
          try:
              w.write(9, payload)
          except perfring.Error:
              pass
      rstep = r.drain
  elif kind == "mpsc":
      h = perfring.SharedRing.create(data_size=1 << 20)
      r = h.reader()
      def wstep():
          try:
              p.write(9, payload)
          except perfring.Error:
              pass
      p = h.join()
      rstep = r.records
  ts = [threading.Thread(target=loop, args=(f,)) for f in (wstep, rstep)]
  for t in ts:
      t.start()
  time.sleep(delay)
  h.close()
  for t in ts:
      t.join(30)
  assert not any(t.is_alive() for t in ts), "a thread did not stop"
  assert stopped == ["ValueError"] * 2, stopped
  print("ok")
for i in range(per):
    one(delay * (1 + i % 3))
"""

RAW = r"""
import perfring
for cls, arg in ((perfring.Ring, 12345), (perfring.Ring, 0xdeadbeef000),
                 (perfring.Group, 4096), (perfring.SharedRing, 4096)):
    try:
        cls(arg)
    except TypeError as e:
        print("refused", cls.__name__, e)
        continue
    raise SystemExit("%s(%#x) was accepted" % (cls.__name__, arg))
for f in (lambda: perfring.Writer(12345), lambda: perfring.Reader(12345)):
    try:
        f()
    except TypeError as e:
        print("refused", e)
        continue
    raise SystemExit("a raw handle was accepted")
"""


def run(args, code, env=None):
    p = subprocess.run([sys.executable, "-c", code] + args,
                       capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    kinds = sys.argv[3].split(",") if len(sys.argv) > 3 else \
        ["ring", "wait", "group", "mpsc", "ring+locked", "wait+locked"]
    n = failed = 0
    for kind in kinds:
        crashed, other, last = 0, 0, ""
        # +locked: the guard without the GIL's help (a free-threaded
        # build's), forced by PERFRING_PY_LOCKED
        env = dict(os.environ, PERFRING_PY_LOCKED="1") \
            if kind.endswith("+locked") else None
        for i in range(rounds):
            delay = 0.001 + (i % 10) * 0.0015
            rc, out = run([kind.split("+")[0], "%.4f" % delay, str(per)],
                          ROUND, env)
            if rc < 0:
                crashed += 1
                last = "killed by signal %d" % -rc
            elif rc != 0:
                other += 1
                last = out
        n += 1
        desc = "%s: close() under a call in flight: %d of %d " \
            "interpreters (%d rounds each) crashed, %d failed otherwise" % (
                kind, crashed, rounds, per, other)
        if crashed or other:
            failed += 1
            print("not ok %d - %s" % (n, desc))
            for line in last.splitlines()[-8:]:
                print("#   " + line)
        else:
            print("ok %d - %s" % (n, desc))
    n += 1
    rc, out = run([], RAW)
    if rc == 0:
        print("ok %d - a raw integer handle is refused (TypeError)" % n)
    else:
        failed += 1
        how = ("killed by signal %d" % -rc) if rc < 0 else out
        print("not ok %d - a raw integer handle is refused (%s)" % (n, how))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
