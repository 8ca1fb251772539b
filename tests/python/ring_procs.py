# SPDX-License-Identifier: MIT
"""The Python binding across two processes (TAP).

The parent creates a memfd ring (BLOCK, RING_WAIT) and spawns a writer
process and a reader process, each a fresh python3 that attaches by the
inherited fd.  The writer writes N records of varying lengths (0 to 700
payload bytes), each carrying its sequence number, its length and bytes
derived from both; the reader reads until it has N, checking every record
in order (type, sequence, length, contents) and folding them into a
digest.  The parent checks both exit statuses, the counts, the writer's
loss count (0: BLOCK never drops without a time-out) and the reader's
digest against one computed here.

    python3 ring_procs.py [N]            the test
    python3 ring_procs.py writer FD N    (spawned)
    python3 ring_procs.py reader FD N    (spawned)
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

import perfring

HDR = struct.Struct("<QI")  # sequence number, body length


def rtype(seq):
    return 100 + seq % 7  # never RECORD_LOST (2)


def body(seq):
    n = (seq * 37) % 701
    seed = hashlib.blake2b(seq.to_bytes(8, "little"), digest_size=64).digest()
    return (seed * (n // 64 + 1))[:n]


def payload(seq):
    b = body(seq)
    return HDR.pack(seq, len(b)) + b


def expected_digest(n):
    h = hashlib.sha256()
    for seq in range(n):
        h.update(rtype(seq).to_bytes(4, "little") + payload(seq))
    return h.hexdigest()


def writer(fd, n):
    ring = perfring.Ring.attach_fd(fd)
    w = ring.writer()
    w.set_timeout(600 * 10**9)  # a hang guard, not a verdict
    for seq in range(n):
        w.write(rtype(seq), payload(seq))
    w.flush()
    print(json.dumps({"written": n, "lost": w.lost,
                      "max_payload": w.max_payload}))
    ring.close()
    return 0


def reader(fd, n):
    ring = perfring.Ring.attach_fd(fd)
    r = ring.reader()
    h = hashlib.sha256()
    seq = 0
    bad = []
    while seq < n:
        recs = r.records()
        if not recs:
            r.wait(10**9)
            continue
        for rec in recs:
            if rec.type == perfring.RECORD_LOST:
                bad.append("LOST record at %d" % seq)
                continue
            s, ln = HDR.unpack_from(rec.payload)
            # the ring rounds a payload up to 8 bytes: compare the prefix
            want = payload(seq)
            if rec.type != rtype(seq) or s != seq or \
                    rec.payload[:len(want)] != want:
                bad.append("record %d: type %d seq %d len %d" %
                           (seq, rec.type, s, ln))
            h.update(rec.type.to_bytes(4, "little") +
                     rec.payload[:HDR.size + ln])
            seq += 1
        if len(bad) > 5:
            break
    print(json.dumps({"read": seq, "bad": bad[:5], "nbad": len(bad),
                      "digest": h.hexdigest()}))
    ring.close()
    return 0 if not bad else 1


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, what):
        self.n += 1
        print("%sok %d - %s" % ("" if cond else "not ", self.n, what))
        self.failed += not cond
        return cond

    def done(self):
        print("1..%d" % self.n)
        return 0 if self.failed == 0 else 1


def spawn(role, fd, n):
    return subprocess.Popen([sys.executable, os.path.abspath(__file__),
                             role, str(fd), str(n)], pass_fds=[fd],
                            stdout=subprocess.PIPE, text=True)


def result(t, p, role):
    try:
        out, _ = p.communicate(timeout=900)  # hang guard only
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    t.ok(p.returncode == 0, "%s process exits 0 (got %s)" %
         (role, p.returncode))
    try:
        return json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        print("# %s printed: %r" % (role, out))
        return {}


def in_process(t):
    """The binding's basics in one process."""
    t.ok(perfring.version().count(".") == 2,
         "pfr_version: " + perfring.version())
    with perfring.Ring.create(data_size=4096) as ring:
        w, r = ring.writer(), ring.reader()
        t.ok(0 < w.max_payload < 4096,
             "max_payload %d" % w.max_payload)
        for i in range(3):
            w.write(7, bytes([i]) * (i + 1))
        recs = r.records()
        t.ok([(x.type, x.payload[:i + 1]) for i, x in enumerate(recs)] ==
             [(7, bytes([i]) * (i + 1)) for i in range(3)],
             "three records written and read in one process")
        try:
            w.write(7, b"x" * (w.max_payload + 1))
            t.ok(False, "an oversized record is refused")
        except perfring.Error as e:
            t.ok(e.code == perfring.E_INVAL,
                 "an oversized record is refused: " + str(e))
        n = 0
        try:
            while True:
                w.write(7, b"y" * 64)
                n += 1
        except perfring.Error as e:
            t.ok(e.code == perfring.E_NOSPC and w.lost == 1,
                 "DROP: E_NOSPC after %d records, lost %d" % (n, w.lost))
    try:
        perfring.Ring.create(data_size=5000)
        t.ok(False, "a data size not a power of two is refused")
    except perfring.Error as e:
        t.ok(e.code == perfring.E_INVAL,
             "a data size not a power of two is refused")


def main():
    if len(sys.argv) == 4:
        role, fd, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        return writer(fd, n) if role == "writer" else reader(fd, n)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    t = Tap()
    in_process(t)
    ring = perfring.Ring.create_memfd(data_size=1 << 14,
                                      policy=perfring.POLICY_BLOCK,
                                      flags=perfring.RING_WAIT)
    fd = ring.fd
    t.ok(fd >= 0, "memfd ring, fd %d" % fd)
    rd = spawn("reader", fd, n)
    wr = spawn("writer", fd, n)
    w = result(t, wr, "writer")
    r = result(t, rd, "reader")
    t.ok(w.get("written") == n and w.get("lost") == 0,
         "writer: %s of %d written, %s lost" %
         (w.get("written"), n, w.get("lost")))
    t.ok(r.get("read") == n and r.get("nbad") == 0,
         "reader: %s of %d read in order, %s bad %s" %
         (r.get("read"), n, r.get("nbad"), r.get("bad")))
    t.ok(r.get("digest") == expected_digest(n),
         "reader's digest of every record matches the parent's")
    ring.close()
    return t.done()


if __name__ == "__main__":
    sys.exit(main())
