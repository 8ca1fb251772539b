#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring script against crafted perf.data streams (issue 34, items 2-5;
# the inputs come from tests/harden/gen_crafted.c):
#  - compressed records in the pipe format, from a file and from standard
#    input: 400,000 empty COMPRESSED records, and 16 zstd frames that each
#    expand to 200 MiB, stay within a small cap on virtual memory (every
#    record used to keep a buffer until the end: 2.1 and 3.3 GB);
#  - a sparse 2 GiB pipe-format file is not read whole;
#  - a zstd stream cut inside a frame, or a skippable frame whose size
#    field swallows the next frame: an error that names the frame, the
#    records before it printed (they used to be lost in silence);
#  - 200 spellings of one library's path (/./ inserted): its symbols are
#    loaded once (peak RSS as for one spelling, not 200 times it);
#  - C++ names whose demangled form doubles at every nesting level: shown
#    mangled, under a CPU-time cap far above what they now cost (they
#    used to take minutes and hundreds of MB).
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

tool=$out/harden_tool
gen=$out/gen_crafted
build_tool "$tool" "harden_tool builds" -O1
if ! $cc -O1 -std=gnu11 -Wall -Wextra -o "$gen" \
	"$top/tests/harden/gen_crafted.c" -lzstd >"$tmp/gen.log" 2>&1; then
	diag <"$tmp/gen.log"
	fail "gen_crafted builds (libzstd-dev: tools/deps.sh)"
	tap_done
fi
pass "gen_crafted and harden_tool build"
cd "$tmp" || exit 1
cap=786432 # KiB of address space: 768 MiB
[ -n "${SANITIZE:-}" ] && cap=0

# --- item 2: decompression and the pipe format bounded in memory ---
"$gen" zempty 400000 ze.data && "$gen" zbomb 16 200 zb.data
ok $? "crafted: 400,000 empty COMPRESSED records, 16 frames of 200 MiB"
for f in ze zb; do
	read -r rc rss < <("$tool" rss $cap "$P" script -i $f.data -F ip)
	n=$("$P" script -i $f.data -F ip 2>/dev/null | wc -l)
	[ "${rc:-1}" -eq 0 ] && [ "$n" -ge 1 ]
	ok $? "$f.data: read under a $((cap / 1024)) MiB cap (exit ${rc:-?}, \
peak RSS ${rss:-?} KiB, $n samples)"
	read -r rc rss < <(cat $f.data | "$tool" rss $cap "$P" script -i - -F ip)
	[ "${rc:-1}" -eq 0 ]
	ok $? "$f.data on standard input: read under the cap (exit ${rc:-?}, \
peak RSS ${rss:-?} KiB)"
done
"$gen" zframes ok sp.data && truncate -s 2G sp.data
(
	[ -z "${SANITIZE:-}" ] && ulimit -v 262144
	"$P" script -i sp.data -F ip >sp.txt 2>sp.err
)
n=$(grep -c '^ *400' sp.txt)
grep -q 'malformed record after 20 records' sp.err && [ "$n" -eq 20 ]
ok $? "a sparse 2 GiB pipe-format file: not read whole (under a 256 MiB \
cap: $n samples, then $(head -c 100 sp.err))"

# --- item 3: a cut or swallowed zstd frame is reported ---
"$gen" zframes ok zok.data && "$gen" zframes lie zlie.data &&
	"$gen" zframes cut zcut.data
ok $? "crafted: 20 samples in two zstd frames (whole, lying, cut)"
"$P" script -i zok.data -F ip >ok.txt 2>ok.err
ok $? "whole frames: exit 0 ($(wc -l <ok.txt) samples)"
[ "$(wc -l <ok.txt)" -eq 20 ] && [ ! -s ok.err ]
ok $? "whole frames: 20 samples, nothing on stderr"
for m in lie cut; do
	"$P" script -i z$m.data -F ip >$m.txt 2>$m.err
	rc=$?
	[ $rc -ne 0 ] && grep -q "inside zstd frame 2" $m.err &&
		[ "$(wc -l <$m.txt)" -eq 10 ]
	ok $? "$m: exit $rc, the first frame's 10 samples, the lost frame \
named: $(head -c 120 $m.err)"
done

# --- item 4: one symbol table per file, whatever its spelling ---
lib=
for l in /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/lib64/libstdc++.so.6 \
	/usr/lib/*/libstdc++.so.6; do
	[ -f "$l" ] && lib=$(readlink -f "$l") && break
done
if [ -z "$lib" ]; then
	skip "no libstdc++.so.6 here" "spellings of one library"
else
	off=0x$(nm -D --defined-only "$lib" | awk '$2 == "T" {print $1; exit}')
	"$gen" spell 1 "$lib" "$off" one.data &&
		"$gen" spell 200 "$lib" "$off" many.data
	ok $? "crafted: 1 and 200 spellings of $lib, each sampled"
	read -r rc1 rss1 < <("$tool" rss $cap "$P" script -i one.data)
	read -r rc2 rss2 < <("$tool" rss $cap "$P" script -i many.data)
	n=$("$P" script -i many.data | grep -c 'std::')
	# 200 spellings cost the records and 200 names, not 200 tables
	[ "${rc1:-1}" -eq 0 ] && [ "${rc2:-1}" -eq 0 ] && [ "$n" -eq 200 ] &&
		[ $((rss2 - rss1)) -le 4096 ]
	ok $? "200 spellings: $n samples resolved, peak RSS ${rss1:-?} -> \
${rss2:-?} KiB (at most 4 MiB more)"
fi

# --- item 5: demangling bounded whatever the name ---
{
	for i in 0 1 2; do
		n=$("$gen" mangled 24)
		echo "void s$i(void) __asm__(\"${n/_Z1fI1A/_Z1fI2A$i}\");"
		echo "void s$i(void) { __asm__ volatile(\"nop\"); }"
	done
} >dm.c
$cc -shared -fPIC -O1 -o dm.so dm.c
ok $? "a shared object with three C++ names that double 24 times"
off=0x$(nm dm.so | awk '/ T _Z1fI2A1/ {print $1}')
"$gen" sample "$tmp/dm.so" "$off" dm.data
(
	ulimit -t 20
	"$P" script -i dm.data -F ip,sym >dm.txt 2>dm.err
)
rc=$?
[ $rc -eq 0 ] && grep -q ' _Z1fI2A11BIS0_S0_ES1_IS2_S2_E' dm.txt
ok $? "script shows the name mangled under a 20 s CPU cap (exit $rc)"
tap_done
