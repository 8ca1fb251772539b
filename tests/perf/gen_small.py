#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a perf.data file of N small samples (IP|TID|TIME|CPU|PERIOD, 48
# bytes each) from two "rings" written in turn, 1,000 records a turn, so
# that the file is in time order per ring only, as perf writes it;
# --rounds puts a FINISHED_ROUND record after each pass over the rings.
# --turn K writes K records a turn (default 1,000).
# usage: gen_small.py FILE N [--rounds] [--turn K]
import struct
import sys

path, n = sys.argv[1], int(sys.argv[2])
rounds = '--rounds' in sys.argv[3:]
ATTR_SIZE = 128
PERF_TYPE_SOFTWARE, CPU_CLOCK = 1, 0
# IP | TID | TIME | CPU | PERIOD
sample_type = 0x1 | 0x2 | 0x4 | 0x80 | 0x100
attr = struct.pack('<IIQQQQQ', PERF_TYPE_SOFTWARE, ATTR_SIZE, CPU_CLOCK,
                   4000, sample_type, 0, 1 << 18)  # sample_id_all
attr = attr.ljust(ATTR_SIZE, b'\0')
hdr_size, ids_off = 104, 104
attrs_off = ids_off  # no ids: the ids section is empty
data_off = attrs_off + ATTR_SIZE + 16
recs = []
t0 = 1_000_000_000_000
args = sys.argv[3:]
per_turn = int(args[args.index('--turn') + 1]) if '--turn' in args else 1000
out = bytearray()
written = 0
turn = 0
while written < n:
    for ring in (0, 1):
        for k in range(per_turn):
            if written >= n:
                break
            i = turn * per_turn + k
            t = t0 + i * 2000 + ring * 1000
            out += struct.pack('<IHHQIIQIIQ', 9, 2, 48, 0x400000 + i % 4096,
                               100 + ring, 100 + ring, t, ring, 0, 10000)
            written += 1
    if rounds:
        out += struct.pack('<IHH', 68, 0, 8)
    turn += 1
header = struct.pack('<QQQ', 0x32454c4946524550, hdr_size, ATTR_SIZE + 16)
header += struct.pack('<QQ', attrs_off, ATTR_SIZE + 16)
header += struct.pack('<QQ', data_off, len(out))
header += struct.pack('<QQ', 0, 0)
header += b'\0' * 32
with open(path, 'wb') as f:
    f.write(header)
    f.write(attr + struct.pack('<QQ', ids_off, 0))
    f.write(out)
