#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring script and record against hostile input files:
#  - names from a file (COMM, MMAP2 file names) holding terminal escapes,
#    C1 controls and bytes that are not UTF-8: the text output carries no
#    control byte and is valid UTF-8; every --json line parses;
#  - an ELF file named by an MMAP2 record whose headers and symbol table
#    sit at odd offsets, one without symbols, and a recording with no
#    record at all: no undefined behaviour (the helper is built with
#    AddressSanitizer and UBSan, halting on the first report);
#  - a FIFO (or a device, or a directory) given to script -i or record -o:
#    refused at once, not waited on;
#  - a perf.data truncated after it was opened: read to the end, no SIGBUS;
#  - FORK records after many MMAP2 records: peak memory grows linearly
#    with the file, not with FORKs x MMAPs.
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

tool=$out/harden_tool
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# shellcheck disable=SC2086
build_tool "$tool" "harden_tool builds with $cc $san" -g -O1 $san
pass "harden_tool builds with $cc $san"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
sanitizer_clean() { ! grep -q -e 'runtime error' -e 'Sanitizer' "$1"; }

# --- names with escapes and bad UTF-8, misaligned ELF, no symbols ---
cd "$tmp" || exit 1
"$tool" hostile h.data "$tmp/odd.elf"
ok $? "a hostile perf.data and two odd ELF files written"
"$tool" script -i h.data >text.out 2>text.err
rc=$?
cat text.err | diag
[ $rc -eq 0 ] && sanitizer_clean text.err
ok $? "script (text) on it: exit 0, no sanitizer report (exit $rc)"
! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' text.out
ok $? "text output: no control byte (ESC, BEL, ...) from the file"
iconv -f UTF-8 -t UTF-8 text.out >/dev/null 2>&1 &&
	! LC_ALL=C grep -q $'\xc2[\x80-\x9f]' text.out
ok $? "text output: valid UTF-8, no C1 control"
grep -q 'a\\x1b\]0;owned\\x07\\x1b\[2J\\xc2\\x9b\\xff\\xfe' text.out
ok $? "text output shows the escapes as \\xNN"
grep -q 'odd_function+0x10 (.*odd.elf)' text.out
ok $? "the symbol of the misaligned ELF resolves (odd_function+0x10)"
"$tool" script -i h.data --json >json.out 2>json.err
rc=$?
[ $rc -eq 0 ] && sanitizer_clean json.err
ok $? "script --json on it: exit 0, no sanitizer report (exit $rc)"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
n = 0
for line in open(sys.argv[1], "rb"):
    json.loads(line.decode("utf-8"))
    n += 1
sys.exit(0 if n >= 5 else 1)' json.out
	ok $? "every --json line is UTF-8 and parses as JSON"
else
	iconv -f UTF-8 -t UTF-8 json.out >/dev/null 2>&1 &&
		! LC_ALL=C grep -q $'[\x01-\x1f\x7f]' json.out
	ok $? "--json output: valid UTF-8, no raw control byte (no python3)"
fi
grep -q '"new_comm":"a\\u001b\]0;owned\\u0007\\u001b\[2J' json.out &&
	grep -q '\\ufffd\\ufffd"' json.out
ok $? "--json escapes controls as \\u00XX, bad bytes as \\ufffd"
cat json.out | head -3 | diag

"$tool" empty e.data && "$tool" script -i e.data >e.out 2>e.err
rc=$?
[ $rc -eq 0 ] && sanitizer_clean e.err && [ ! -s e.out ]
ok $? "script on a recording without records: nothing, exit 0 ($rc)"

# --- non-regular files ---
mkfifo fifo
timeout -k 5 20 "$P" script -i fifo >/dev/null 2>fifo.err
rc=$?
[ $rc -eq 1 ] && grep -q 'not a regular file' fifo.err
ok $? "script -i FIFO: refused, exit 1 (got $rc: $(head -c 120 fifo.err))"
timeout -k 5 20 "$P" script -i /dev/zero >/dev/null 2>dev.err
rc=$?
[ $rc -eq 1 ] && grep -q 'not a regular file' dev.err
ok $? "script -i /dev/zero: refused, exit 1 (got $rc)"
timeout -k 5 20 "$P" script -i "$tmp" >/dev/null 2>dir.err
rc=$?
ok $((rc == 1 ? 0 : 1)) "script -i DIRECTORY: exit 1 (got $rc)"
timeout -k 5 20 "$P" record -o fifo -- true >/dev/null 2>rec.err
rc=$?
[ $rc -eq 2 ] && grep -q 'not a regular file' rec.err
ok $? "record -o FIFO: refused, exit 2 (got $rc: $(head -c 120 rec.err))"

# --- truncated after open ---
"$tool" forks 500 t.data && "$tool" truncate t.data >trunc.out 2>trunc.err
rc=$?
[ $rc -eq 0 ] && grep -q '^1002 records' trunc.out && sanitizer_clean trunc.err
ok $? "a perf.data truncated after open: every record read, no SIGBUS \
(exit $rc: $(cat trunc.out))"

# --- FORK x MMAP: memory linear in the file ---
small=1000 big=4000
"$tool" forks $small s.data && "$tool" forks $big b.data
ok $? "perf.data files with N MMAP2 + N FORK records (N = $small, $big)"
ss=$(stat -c %s s.data) bs=$(stat -c %s b.data)
# A quadratic table needs ~500 MB for the larger file: a cap on virtual
# memory turns that into a failure instead of a swapping machine (not
# under the sanitizers, whose shadow memory needs the address space).
cap=786432
[ -n "${SANITIZE:-}" ] && cap=0
read -r rcs rss_s < <("$tool" rss $cap "$P" script -i s.data)
read -r rcb rss_b < <("$tool" rss $cap "$P" script -i b.data)
echo "file $ss -> $bs bytes, peak RSS $rss_s -> $rss_b KiB" | diag
[ "${rcs:-1}" -eq 0 ] && [ "${rcb:-1}" -eq 0 ]
ok $? "script reads both (exit ${rcs:-?}, ${rcb:-?})"
# Growth in RSS at most 8 times the growth in file size (+ 2 MiB for the
# allocator's steps): perfring script holds the file, an index entry per
# record and a node per mapping, all linear.
limit=$(((bs - ss) * 8 / 1024 + 2048))
[ -n "${rss_b:-}" ] && [ -n "${rss_s:-}" ] &&
	[ $((rss_b - rss_s)) -le $limit ]
ok $? "peak RSS grew $((${rss_b:-0} - ${rss_s:-0})) KiB for \
$(((bs - ss) / 1024)) KiB more file (limit $limit KiB: linear)"

tap_done
