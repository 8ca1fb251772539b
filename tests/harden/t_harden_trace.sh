#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring script against tracepoint formats stored in a crafted perf.data
# whose print format takes a length or a field width from the sample:
#  - __print_hex and __print_array over a static array, and __print_hex
#    over a __data_loc array, with a length from the sample: a length that
#    stays inside the record prints those bytes, one that runs past it
#    (64 bytes, 1 MiB) is not decoded - no bytes from past the record
#    printed, no crash;
#  - %*d and %.*d with the width or precision from the sample: 5 pads to
#    5, 0x7fffffff is not decoded (it would print for hours), and the run
#    ends in seconds.
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

# The helper only writes the files; perfring script itself reads them.
# (A sanitizer would not see the reads: they happen in libtraceevent,
# which is not instrumented; the checks look at what is printed.)
tool=$out/harden_tool_trace
build_tool "$tool" "harden_tool builds" -O0
pass "harden_tool builds"

cd "$tmp" || exit 1
export PFR_TRACEFS=$tmp/tfs
mkdir -p tfs/events/crafted/ev
printf '\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n' \
	>tfs/events/header_page
printf '# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n\tarray       :   32 bits\n' \
	>tfs/events/header_event

# fmt PRINT: the event's format file, with PRINT as its print fmt.
fmt() {
	cat >tfs/events/crafted/ev/format <<FMT
name: ev
ID: 777
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned int len;	offset:8;	size:4;	signed:0;
	field:__data_loc unsigned char[] buf;	offset:12;	size:4;	signed:0;
	field:unsigned char arr[8];	offset:16;	size:8;	signed:0;

print fmt: $1
FMT
}

# run NAME LEN LOC: writes NAME.data (length LEN, __data_loc LOC) and runs
# script on it in at most 60 s; rc, NAME.out and NAME.err.
run() {
	"$tool" tracepoint "$1.data" 777 "$2" "$3" || return 1
	timeout -k 5 60 "$P" script -i "$1.data" >"$1.out" 2>"$1.err"
	rc=$?
	head -c 300 "$1.err" | diag
	return 0
}

# clean NAME: exit 0 (no crash, no time-out), nothing on stderr.
clean() { [ "$rc" -eq 0 ] && [ ! -s "$1.err" ]; }

fmt '"hex=%s", __print_hex(REC->arr, REC->len)'
run hex4 4 0
clean hex4 && grep -q 'hex=01 02 03 04$' hex4.out
ok $? "__print_hex, length 4 in the record: the 4 bytes (rc $rc: $(cat hex4.out))"
run hex64 64 0
clean hex64 && ! grep -q 'hex=' hex64.out
ok $? "__print_hex, length 64 past the record: not decoded, no over-read (rc $rc)"
run hexbig 0x100000 0
clean hexbig && ! grep -q 'hex=' hexbig.out
ok $? "__print_hex, length 1 MiB: not decoded, no crash (rc $rc)"

fmt '"arr=%s", __print_array(REC->arr, REC->len, 1)'
run arr8 8 0
clean arr8 && grep -q 'arr=1 2 3 4 5 6 7 8$' arr8.out
ok $? "__print_array, 8 elements in the record: all 8 (rc $rc: $(cat arr8.out))"
run arr64 64 0
clean arr64 && ! grep -q 'arr=' arr64.out
ok $? "__print_array, 64 elements past the record: not decoded (rc $rc)"
fmt '"arr=%s", __print_array(REC->arr, REC->len, 4)'
run arr4x3 3 0
clean arr4x3 && grep -q 'arr=67305985 134678021 0$' arr4x3.out
ok $? "__print_array, 3 elements of 4 bytes from offset 16 of 28: printed (rc $rc: $(cat arr4x3.out))"
run arr4x4 4 0
clean arr4x4 && ! grep -q 'arr=' arr4x4.out
ok $? "__print_array, 4 elements of 4 bytes from offset 16 of 28: not decoded (rc $rc)"

fmt '"dyn=%s", __print_hex(__get_dynamic_array(buf), REC->len)'
run dyn2 2 $(((4 << 16) | 20))
clean dyn2 && grep -q 'dyn=05 06$' dyn2.out
ok $? "__print_hex over a __data_loc array, 2 bytes in it: printed (rc $rc: $(cat dyn2.out))"
run dyn64 64 $(((4 << 16) | 20))
clean dyn64 && ! grep -q 'dyn=' dyn64.out
ok $? "__print_hex over a __data_loc array, 64 bytes: not decoded (rc $rc)"

fmt '"df=%s", __print_hex(REC->buf, REC->len)'
run df4 4 $(((4 << 16) | 20))
clean df4 && grep -q 'df=' df4.out
ok $? "__print_hex over a __data_loc field named as REC->buf, 4 bytes: printed (rc $rc: $(cat df4.out))"
run df12 12 $(((4 << 16) | 20))
clean df12 && ! grep -q 'df=' df12.out
ok $? "__print_hex over REC->buf, 12 bytes: 20 + 12 > 28 where the field points, not decoded (a libtraceevent reading there would pass the record) (rc $rc)"

fmt '"w=%*d|", REC->len, REC->common_pid'
run w5 5 0
clean w5 && grep -q 'w=    0|' w5.out
ok $? "%*d with width 5 from the sample: padded to 5 (rc $rc: $(cat w5.out))"
start=$SECONDS
run wbig 0x7fffffff 0
clean wbig && ! grep -q 'w=' wbig.out
ok $? "%*d with width 0x7fffffff: not decoded, done in $((SECONDS - start)) s (rc $rc)"
fmt '"p=%.*d|", REC->len, REC->common_pid'
run p3 3 0
clean p3 && grep -q 'p=000|' p3.out
ok $? "%.*d with precision 3 from the sample: 3 digits (rc $rc: $(cat p3.out))"
start=$SECONDS
run pbig 0x7fffffff 0
clean pbig && ! grep -q 'p=' pbig.out
ok $? "%.*d with precision 0x7fffffff: not decoded, done in $((SECONDS - start)) s (rc $rc)"
tap_done
