#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counts, per call of tools/mpsc-counts.c's one_write / one_burst /
read_batch, the instructions, the atomic read-modify-writes and the loads
and stores by the region of the shared ring they touch, from a memory
trace (valgrind --tool=lackey --trace-mem=yes --log-file=TRACE).

    mpsc-trace-count.py BINARY STDOUT TRACE LABEL

BINARY is the mpsc-counts program, STDOUT what it printed (the addresses
of its functions and of the ring's regions), TRACE lackey's log.  An
instruction is an atomic RMW when objdump shows it with a lock prefix or
as an xchg with a memory operand (x86-64: the only kinds that are); its
data access is classified by address:

    ctl L     the control block's 128-byte line L (struct pfr_mpsc_ctl:
              0 immutable, 1 the producers', 2 the reader's, 3 wake-up)
    slot      this producer's own slot in the producer table
    table     another slot of the table
    data      the data area (record headers, payloads, the reader's
              zeroing)
    private   anything else (stack, the producer's and reader's structs)

A window opens at the first instruction of one of the three functions and
closes at the first instruction of mark_end().  Prints one line per kind:
windows, records, then per record: instructions (mean), atomic RMWs,
stores and loads by region (mean), and the most common window (the fast
path) as instructions / RMWs / stores per record.
"""
import collections
import re
import subprocess
import sys

LINE = 128  # PFR_RING_LINE


def atomic_insns(binary):
    """File addresses of the lock-prefixed and memory-xchg instructions."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if not m:
            continue
        ins = m.group(2)
        if re.match(r"lock\b", ins) or (re.match(r"xchg", ins) and "(" in ins):
            found.add(int(m.group(1), 16))
    return found


def sym_addr(binary, name):
    out = subprocess.run(["nm", binary], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[2] == name:
            return int(f[0], 16)
    raise SystemExit("no symbol %s in %s" % (name, binary))


def main():
    binary, stdout, trace, label = sys.argv[1:5]
    a = {}
    info = {}
    for line in open(stdout):
        if line.startswith("addr "):
            for kv in line.split()[1:]:
                k, v = kv.split("=")
                a[k] = int(v, 0)
        elif " calls=" in line:
            f = line.split()
            info["mode"] = f[0]
            for kv in f[1:]:
                k, v = kv.split("=")
                info[k] = int(v)
    shift = a["main"] - sym_addr(binary, "main")
    atomics = {x + shift for x in atomic_insns(binary)}
    starts = {a["one_write"]: "write", a["one_burst"]: "burst",
              a["read_batch"]: "read"}
    stop = a["mark_end"]

    def region(addr):
        if a["ctl"] <= addr < a["ctl"] + a["ctl_bytes"]:
            return "ctl%d" % ((addr - a["ctl"]) // LINE)
        if a["slot"] <= addr < a["slot"] + a["slot_bytes"]:
            return "slot"
        if a["table"] <= addr < a["table"] + a["table_bytes"]:
            return "table"
        if a["data"] <= addr < a["data"] + a["data_bytes"]:
            return "data"
        return "private"

    kind = None
    cur = None
    windows = collections.defaultdict(list)
    insn = 0
    for line in open(trace):
        if line.startswith("I"):
            insn = int(line[3:].split(",")[0], 16)
            if kind is None and insn in starts:
                kind = starts[insn]
                cur = collections.Counter()
            elif kind is not None and insn == stop:
                windows[kind].append(cur)
                kind = None
            if kind is not None:
                cur["insn"] += 1
            continue
        if kind is None or len(line) < 4 or line[0] != " ":
            continue
        op = line[1]
        if op not in "LSM":
            continue
        addr = int(line[3:].split(",")[0], 16)
        r = region(addr)
        if op == "M" and insn in atomics:
            cur["rmw " + r] += 1
        else:
            if op in "SM":
                cur["store " + r] += 1
            if op in "LM":
                cur["load " + r] += 1

    burst = 32
    for k in ("write", "burst", "read"):
        ws = windows.get(k)
        if not ws:
            continue
        if k == "write":
            recs = len(ws)
        elif k == "burst":
            recs = len(ws) * burst
        else:
            recs = info["read"]
        tot = collections.Counter()
        for w in ws:
            tot.update(w)
        keys = sorted(x for x in tot if x != "insn")
        per = " ".join("%s=%.3f" % (x.replace(" ", ":"), tot[x] / recs)
                       for x in keys)
        # the most common window: the fast path
        common = collections.Counter(
            tuple(sorted(w.items())) for w in ws).most_common(1)[0]
        cw = dict(common[0])
        div = burst if k == "burst" else (
            max(1, round(recs / len(ws))) if k == "read" else 1)
        fast = " ".join("%s=%g" % (x.replace(" ", ":"), cw[x] / div)
                        for x in sorted(cw) if x != "insn")
        print("%s %s windows=%d records=%d insn/rec=%.2f %s" %
              (label, k, len(ws), recs, tot["insn"] / recs, per))
        print("%s %s fastpath(%d of %d windows) insn/rec=%g %s" %
              (label, k, common[1], len(ws), cw.get("insn", 0) / div, fast))


if __name__ == "__main__":
    main()
