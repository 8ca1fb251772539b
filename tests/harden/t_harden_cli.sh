#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Options and strings the command line must never misread:
#  - numbers: a value that does not fit (4294967312 is not 16), a sign,
#    blanks or trailing characters are usage errors (exit 2), never a
#    silently different number (util_parse_u64 and the options that
#    use it: stress --sizes, --ring-size, --batch, --seed; bench --only
#    naming nothing);
#  - sizes: one grammar (util_parse_size: decimal, K/M/G of 1024)
#    wherever a size is taken (bench --capacity and --capacities, stress
#    --ring-size and --sizes, record -m); record -m and event terms read
#    as perf reads them (010 is ten, -m 0x10 refused);
#  - an option that takes a value given twice is refused (stress --mode
#    group --mode mpsc silently ran the group stress), one that adds to a
#    list (litmus --test) may repeat;
#  - strings from files: util_json_str always writes valid JSON
#    (controls as \u00XX, each byte that is not UTF-8 as \ufffd, valid
#    multi-byte characters kept), util_text_str never writes a control
#    byte (\xNN instead).
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

tool=$out/harden_tool_cli
build_tool "$tool" "harden_tool builds" -O1

# --- util_parse_u64 ---
while read -r in want; do
	got=$("$tool" u64 "$in")
	[ "$got" = "$want" ]
	ok $? "parse_u64 '$in' -> $want (got $got)"
done <<'T'
16 16
0x10 16
4Ki 4096
3M 3000000
18446744073709551615 18446744073709551615
18446744073709551616 error
17179869184Gi error
-1 error
+5 error
_5 error
5x error
0x error
010 10
T
# --- util_parse_size: the one grammar of sizes (K, M, G: 1024) ---
while read -r in want; do
	got=$("$tool" size "$in")
	[ "$got" = "$want" ]
	ok $? "parse_size '$in' -> $want (got $got)"
done <<'T'
4096 4096
010 10
256K 262144
256k 262144
32KiB 32768
4KB 4096
1M 1048576
2Gi 2147483648
7B 7
0x10 error
16Ki5 error
-4K error
+4K error
4KK error
4T error
4iB error
17179869184G error
18014398509481984K error
T
got=$("$tool" size " 4K")
ok $([ "$got" = error ] && echo 0 || echo 1) "parse_size ' 4K' -> error (got $got)"

got=$("$tool" u64 " 5")
ok $([ "$got" = error ] && echo 0 || echo 1) "parse_u64 ' 5' -> error (got $got)"
got=$("$tool" u64 "")
ok $([ "$got" = error ] && echo 0 || echo 1) "parse_u64 '' -> error (got $got)"

# --- options: usage errors, exit 2, the option named ---
usage() { # usage DESCRIPTION OPTION-NAME COMMAND...
	local what=$1 name=$2
	shift 2
	timeout -k 5 60 "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	[ $rc -eq 2 ] && grep -q -e "$name" "$tmp/e"
	ok $? "$what: exit 2 naming $name (got $rc: $(tr "\n" " " <"$tmp/e" | head -c 100))"
}
usage "stress --sizes 4294967312:4294967320 (16:24 after a 32-bit wrap)" \
	--sizes "$P" stress --sizes 4294967312:4294967320 --seconds 0.1
usage "stress --sizes 16:4294967320" --sizes "$P" stress --sizes 16:4294967320
usage "stress --sizes 16:24junk" --sizes "$P" stress --sizes 16:24junk
usage "stress --sizes -16:24" --sizes "$P" stress --sizes -16:24
usage "stress --sizes 16" --sizes "$P" stress --sizes 16
usage "stress --ring-size -4096" --ring-size "$P" stress --ring-size -4096
usage "stress --batch ' 8'" --batch "$P" stress --batch " 8"
usage "stress --seed -1" --seed "$P" stress --seed -1
usage "stress --seconds 1x" --seconds "$P" stress --seconds 1x
usage "stress --seconds 0x10 (strtod: 16 s)" --seconds \
	"$P" stress --seconds 0x10
usage "stress --mode group --seconds 0x1p2" --seconds \
	"$P" stress --mode group --seconds 0x1p2
usage "stress --mode mpsc --seconds ' 1'" --seconds \
	"$P" stress --mode mpsc --seconds " 1"
usage "bench --only nosuch" --only "$P" bench --only nosuch
usage "bench --only perfring,nosuch" nosuch "$P" bench --only perfring,nosuch
usage "record -F 1x" "-F" "$P" record -F 1x -- true
usage "record -m 4294967296" "-m" "$P" record -m 4294967296 -- true
usage "record -m 0x10 (perf refuses it)" "-m" "$P" record -m 0x10 -- true

# --- an option that takes a value, given twice: refused, not half-read ---
usage "stress --mode group --mode mpsc" "--mode given twice" \
	"$P" stress --mode group --mode mpsc --seconds 0.1
usage "stress --mode mpsc --mode group" "--mode given twice" \
	"$P" stress --mode mpsc --mode group --seconds 0.1
usage "stress --mode spsc --mode group" "--mode given twice" \
	"$P" stress --mode spsc --mode group --seconds 0.1
usage "stress --seconds 1 --seconds 2" "--seconds given twice" \
	"$P" stress --seconds 1 --seconds 2
usage "stress --mode group --writers 2 --writers 3" "--writers given twice" \
	"$P" stress --mode group --writers 2 --writers 3
usage "stress --mode mpsc --ring-size 64K --ring-size 128K" \
	"--ring-size given twice" \
	"$P" stress --mode mpsc --ring-size 64K --ring-size 128K
usage "litmus -n 5 -n 6" "--iterations given twice" "$P" litmus -n 5 -n 6
usage "bench --reps 1 --reps 2" "--reps given twice" \
	"$P" bench --reps 1 --reps 2
usage "bench --capacities 32K --capacities 64K" "--capacities given twice" \
	"$P" bench --capacities 32K --capacities 64K
"$P" litmus -t mp -t sb --list >"$tmp/o" 2>"$tmp/e"
ok $? "litmus -t mp -t sb: --test may repeat (it adds a test)"

# --- sizes: K is 1024 wherever a size is taken ---
"$P" bench --capacity 256K --only nosuch >"$tmp/o" 2>"$tmp/e"
! grep -q -e '--capacity' "$tmp/e" && grep -q nosuch "$tmp/e"
ok $? "bench --capacity 256K accepted as 262144 ($(head -1 "$tmp/e" | head -c 100))"
usage "bench --capacity 250K (not a power of two)" --capacity \
	"$P" bench --capacity 250K
usage "bench --capacities 32K,250K" --capacities \
	"$P" bench --capacities 32K,250K
timeout -k 5 60 "$P" stress --ring-size 64K --sizes 16:1K --seconds 0.1 \
	>"$tmp/o" 2>"$tmp/e"
ok $? "stress --ring-size 64K --sizes 16:1K accepted ($(head -c 100 "$tmp/e"))"
timeout -k 5 60 "$P" stress --mode mpsc --ring-size 64Ki --sizes 24:1K \
	--seconds 0.1 >"$tmp/o" 2>"$tmp/e"
ok $? "stress --mode mpsc --ring-size 64Ki --sizes 24:1K accepted ($(head -c 100 "$tmp/e"))"
usage "stress --mode mpsc --sizes ' 24:64'" --sizes \
	"$P" stress --mode mpsc --sizes " 24:64"

# --- record -m as perf reads it: 010 is 10 pages, rounded up to 16 ---
if "$P" record -q -o "$tmp/r.data" -- true >/dev/null 2>&1; then
	"$P" record -m 010 -o "$tmp/r.data" -- true >"$tmp/o" 2>"$tmp/e"
	grep -qE "rings? of $((16 * $(getconf PAGESIZE) / 1024)) KiB" "$tmp/e"
	ok $? "record -m 010: 16 pages (10 rounded up), not 8 ($(grep -o 'ring[^,]*KiB' "$tmp/e"))"
	"$P" record -e 'cpu-clock/period=010/' -o "$tmp/p.data" -- \
		sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done' \
		>/dev/null 2>&1 &&
		"$P" script -i "$tmp/p.data" --json --samples >"$tmp/p.json"
	grep -q '"period":10,' "$tmp/p.json" && ! grep -q '"period":8,' "$tmp/p.json"
	ok $? "record -e cpu-clock/period=010/: period 10 ($(grep -o '"period":[0-9]*' "$tmp/p.json" | sort -u | head -2 | tr '\n' ' '))"
else
	skip "perf_event_open is not allowed here" "record -m 010: 16 pages"
	skip "perf_event_open is not allowed here" "record period=010 is 10"
fi

# --- JSON and terminal strings ---
json() { "$tool" json "$1"; }
text() { "$tool" text "$1"; }
[ "$(json $'a\x1bb')" = '"a\u001bb"' ]
ok $? "json: ESC as \\u001b"
[ "$(json $'\xff\xc3(')" = '"\ufffd\ufffd("' ]
ok $? "json: bytes that are not UTF-8 as \\ufffd, one each"
[ "$(json $'\xc0\xaf')" = '"\ufffd\ufffd"' ]
ok $? "json: an overlong form is not UTF-8"
[ "$(json $'\xed\xa0\x80')" = '"\ufffd\ufffd\ufffd"' ]
ok $? "json: a UTF-16 surrogate is not UTF-8"
[ "$(json $'\xf4\x90\x80\x80')" = '"\ufffd\ufffd\ufffd\ufffd"' ]
ok $? "json: above U+10FFFF is not UTF-8"
[ "$(json 'caf'$'\xc3\xa9'' 日本 '$'\xf0\x9f\x98\x80''"\')" = \
	'"caf'$'\xc3\xa9'' 日本 '$'\xf0\x9f\x98\x80''\"\\"' ]
ok $? "json: valid UTF-8 kept, quote and backslash escaped"
[ "$(text $'a\x1b[2Jb\x07')" = 'a\x1b[2Jb\x07' ]
ok $? "text: ESC and BEL as \\xNN"
[ "$(text $'\xc2\x9b1m\xff')" = '\xc2\x9b1m\xff' ]
ok $? "text: a C1 control (CSI) and a bad byte as \\xNN"
[ "$(text 'caf'$'\xc3\xa9')" = 'caf'$'\xc3\xa9' ]
ok $? "text: valid UTF-8 kept"

tap_done
