#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Options and strings the command line must never misread:
#  - numbers: a value that does not fit (4294967312 is not 16), a sign,
#    blanks or trailing characters are usage errors (exit 2), never a
#    silently different number (pfr_cli_parse_u64 and the options that
#    use it: stress --sizes, --ring-size, --batch, --seed; bench --only
#    naming nothing);
#  - strings from files: pfr_cli_json_str always writes valid JSON
#    (controls as \u00XX, each byte that is not UTF-8 as \ufffd, valid
#    multi-byte characters kept), pfr_cli_text_str never writes a control
#    byte (\xNN instead).
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

tool=$out/harden_tool_cli
build_tool "$tool" "harden_tool builds" -O1

# --- pfr_cli_parse_u64 ---
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
usage "bench --only nosuch" --only "$P" bench --only nosuch
usage "bench --only perfring,nosuch" nosuch "$P" bench --only perfring,nosuch
usage "record -F 1x" "-F" "$P" record -F 1x -- true
usage "record -m 4294967296" "-m" "$P" record -m 4294967296 -- true

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
