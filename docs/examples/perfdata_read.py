#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prints the samples of a perf.data file with their symbolized call
chains, one line per sample and one per frame, as perf script does (the
Python twin of perfdata_read.c):
    python3 perfdata_read.py perf.data
with the perfring package installed (make install) or PYTHONPATH=python
and PERFRING_LIB=build/libperfring.so in the source tree."""
import sys

import perfring
import perfring.perfdata as perfdata


def main(path):
    try:
        pd = perfdata.open(path)
    except perfring.Error as e:
        sys.stderr.write("%s: %s\n" % (path, e))
        return 1
    out = sys.stdout.write
    with pd:
        for ev in pd:
            if ev.type != "SAMPLE":
                continue
            out("%s %u/%u %u.%09u %s:\n" % (ev.comm, ev.pid, ev.tid,
                                            ev.time // 1000000000,
                                            ev.time % 1000000000, ev.name))
            for fr in ev.callchain:
                off = "+0x%x" % fr.symoff if fr.symoff is not None else ""
                where = "inlined" if fr.inlined else fr.dso
                out("\t%16x %s%s (%s)\n" % (fr.addr, fr.sym, off, where))
            out("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "perf.data"))
