#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every option value of record that sizes or indexes something is
# range-checked where it is parsed (issue 34, item 6): --threads with CPU
# numbers past the reader map (1024) stored out of bounds (silent
# corruption at 1024, SIGSEGV near 10^5-10^6); now a usage error (exit 2)
# that names the value, never a crash or a recording.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events

bad() { # description, options...: exit 2, a "perfring record: bad" line
	local desc=$1 rc
	shift
	"$P" record -q -o "$tmp/r.data" "$@" -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "^perfring record: bad" "$tmp/err" &&
		[ ! -e "$tmp/r.data" ]; then
		ok 0 "$desc: usage error, exit 2"
	else
		ok 1 "$desc: exit $rc (want 2, a 'bad' message and no file)"
		diag <"$tmp/err"
	fi
	rm -f "$tmp/r.data"
}

for t in 1024 1500 5000 100000 1000000 1048576 0:1024 0/0:999999/1 \
	0-1:4095 0-1025; do
	bad "--threads=$t (a CPU past the map or offline)" --threads="$t"
done
# more than 4096 masks (the session's readers)
masks=$(for i in $(seq 0 4200); do printf '0:'; done)0
bad "--threads with 4201 masks" --threads="$masks"
bad "--threads=garbage" --threads=x
bad "-c past 2^63 (the kernel's period)" -c 9223372036854775808
bad "-c 0" -c 0
bad "-F 0" -F 0
bad "-m 0" -m 0
bad "-m past 2^30 pages" -m 2147483648
bad "--mmap-pages past a TiB" --mmap-pages 2T
bad "-C past the online CPUs" -C 1048576
bad "-C 2000-4000" -C 2000-4000
bad "--max-size 0" --max-size 0
bad "-z 23" --compression-level=23
bad "-z 0" --compression-level=0
bad "--switch-output time past alarm()'s range" --switch-output=1000000d
bad "--switch-max-files past its cap" --switch-max-files 1000001 \
	--switch-output
bad "-D past INT_MAX" -D 4294967296
bad "--call-graph dwarf,SIZE past 65528" --call-graph dwarf,70000

# What is in range still records.
online=$(cat /sys/devices/system/cpu/online)
last=${online##*[-,]}
for t in cpu core package numa "0" "$last" "0/0:$last/$last"; do
	"$P" record -q -o "$tmp/ok.data" --threads="$t" -- true 2>"$tmp/err"
	rc=$?
	ok $rc "--threads=$t (in range) records: exit $rc"
	[ $rc -eq 0 ] || diag <"$tmp/err"
	rm -f "$tmp/ok.data"
done
tap_done
