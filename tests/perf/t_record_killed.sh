#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A recorder killed at any moment leaves a file that perfring script and
# perf script both read up to its last complete record (issue 34, item 8).
# Before: the header was written only at close, so after kill -9 the file
# held the records behind an all-zero header and both readers refused it.
# Now the header is valid from the first record and its data size follows
# each write of records; perfring's reader takes a file whose header was
# never completed (data size 0 or stale, no features) to its end, up to
# its last complete record, with a warning.  PFR_KILLS kills (default 3;
# long_record_killed.sh: 40), each at a random moment of a -a recording.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events
need_perf_tool

kills=${PFR_KILLS:-3}
samples() { # FILE READER...: the sample lines the reader prints
	local f=$1
	shift
	"$@" -i "$f" 2>/dev/null | grep -c 'cpu-clock'
}

for k in $(seq 1 "$kills"); do
	ms=$((50 + RANDOM % 2450))
	f=$tmp/k$k.data
	"$P" record -q -a -F 4000 -o "$f" >/dev/null 2>"$tmp/rec.err" &
	pid=$!
	sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
	kill -9 $pid
	wait $pid 2>/dev/null
	size=$(stat -c %s "$f" 2>/dev/null || echo 0)
	# the complete records: up to the header's data size (what perf
	# reads), and up to the end of the file (what perfring reads)
	read -r nhdr nall < <(python3 - "$f" <<'EOP'
import struct, sys
d = open(sys.argv[1], 'rb').read()
if len(d) < 104 or d[:8] != b'PERFILE2':
    print(-1, -1)
    sys.exit()
off, size = struct.unpack_from('<QQ', d, 0x28)
pos, n, nhdr = off, 0, -1
while pos + 8 <= len(d):
    if pos == off + size:
        nhdr = n
    s = struct.unpack_from('<H', d, pos + 6)[0]
    if s < 8 or pos + s > len(d):
        break
    pos += s
    n += 1
if pos == off + size:
    nhdr = n
print(nhdr, n)
EOP
	)
	"$P" script -D -i "$f" >"$tmp/pfr.out" 2>"$tmp/pfr.err"
	prc=$?
	perf script -D -i "$f" >"$tmp/perf.out" 2>"$tmp/perf.err"
	frc=$?
	pn=$(grep -c '^0x' "$tmp/pfr.out")
	fn=$(grep -c '^0x' "$tmp/perf.out")
	ok $((nhdr <= 0)) \
		"kill $k at ${ms} ms ($size bytes): a valid header, data size on a record boundary ($nhdr of $nall records)"
	ok $((prc != 0 || pn != nall)) \
		"kill $k: perfring script reads every complete record (exit $prc, $pn of $nall)"
	[ $prc -eq 0 ] || diag <"$tmp/pfr.err"
	ok $((frc != 0 || fn != nhdr)) \
		"kill $k: perf script reads up to the header's data size (exit $frc, $fn of $nhdr)"
	[ $frc -eq 0 ] || diag <"$tmp/perf.err"
	rm -f "$f"
done

# A header one write behind and a last record cut short (what a kill
# between the write of the records and that of the header leaves): made
# from a completed recording with its features dropped.
"$P" record -q -a -F 4000 -o "$tmp/full.data" -- sleep 0.5 2>"$tmp/rec.err"
full=$(samples "$tmp/full.data" "$P" script)
python3 - "$tmp/full.data" "$tmp/cut.data" "$tmp/zero.data" <<'EOP'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', d, 0x28)
pos, starts = off, []
while pos < off + size:
    starts.append(pos)
    pos += struct.unpack_from('<H', d, pos + 6)[0]
last = starts[-1]
# the last record is a sample or a round: cut it short by 3 bytes
cut = bytearray(d[:off + size - 3])
for i in range(0x48, 0x68):   # no features: a header never completed
    cut[i] = 0
struct.pack_into('<Q', cut, 0x30, starts[len(starts) // 2] - off)
open(sys.argv[2], 'wb').write(cut)
struct.pack_into('<Q', cut, 0x30, 0)
open(sys.argv[3], 'wb').write(cut)
EOP
for v in cut zero; do
	"$P" script -i "$tmp/$v.data" >"$tmp/pfr.out" 2>"$tmp/pfr.err"
	rc=$?
	n=$(grep -c cpu-clock "$tmp/pfr.out")
	# every sample but perhaps the last, the one cut short
	ok $((rc != 0 || n < full - 1 || n > full)) \
		"header data size $v, last record cut: perfring script reads $n of $full samples (exit $rc)"
	grep -q "warning: .*never completed.*last complete record" "$tmp/pfr.err" &&
		grep -q "cut short (.* bytes), skipped" "$tmp/pfr.err"
	ok $? "header data size $v: the warnings name the incomplete header and the cut record"
done
n=$(samples "$tmp/cut.data" perf script)
ok $((n == 0 || n >= full)) "perf script reads the stale header's part ($n of $full samples)"
tap_done
