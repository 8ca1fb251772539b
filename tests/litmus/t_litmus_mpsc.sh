#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring's litmus files model the code of today
# (litmus/mpsc.table):
#   - tools/litmus-gen.py mpsc-check-code: every "barrier" row is in
#     include/perfring/mpsc.h or src/writers/mpsc.c (that function, that
#     label, that kind), its comment there cites the shape's file or a
#     mutant of it, and the shape's file has the row's line; every N, R,
#     H, B, C1, C2, A and D of the two sources cites a file of the table;
#   - every mutant file is exactly what tools/litmus-gen.py writes from
#     the table, and no mpsc-*.litmus exists that the table does not
#     list.  (tests/litmus/t_litmus_files.sh checks each file's stated
#     Result and data race with herd7.)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
gen=$top/tools/litmus-gen.py
if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 not installed (tools/deps.sh installs it)"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$gen" mpsc-check-code >"$tmp/code" 2>&1
rc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) pass "code: ${line#ok * - }" ;;
	"not ok "*) fail "code: ${line#not ok * - }" ;;
	"1.."*) ;;
	*) echo "# $line" ;;
	esac
done <"$tmp/code"
ncode=$(grep -c '^ok\|^not ok' "$tmp/code")
[ $rc -eq 0 ] && [ "$ncode" -ge 60 ]
ok $? "tools/litmus-gen.py mpsc-check-code exits 0 after $ncode checks"

python3 "$gen" mpsc-shipped "$tmp/ship" >"$tmp/gen.log" 2>&1
ok $? "tools/litmus-gen.py mpsc-shipped: $(cat "$tmp/gen.log")"
for g in "$tmp"/ship/*.litmus; do
	base=$(basename "$g")
	if [ ! -f "$top/litmus/$base" ]; then
		fail "litmus/$base: listed in litmus/mpsc.table, missing"
	elif ! diff -u "$g" "$top/litmus/$base" >"$tmp/diff"; then
		fail "litmus/$base differs from what litmus/mpsc.table generates"
		sed 's/^/#   /' "$tmp/diff" | head -n 20
	else
		pass "litmus/$base is what litmus/mpsc.table generates"
	fi
done
extra=0
shapes=$(awk '$1 == "shape" { print $2 }' "$top/litmus/mpsc.table")
for f in "$top"/litmus/mpsc-*.litmus; do
	b=$(basename "$f" .litmus)
	[ -f "$tmp/ship/$b.litmus" ] && continue
	printf '%s\n' "$shapes" | grep -qx "$b" && continue
	echo "# $b.litmus is not in litmus/mpsc.table"
	extra=1
done
ok $extra "every litmus/mpsc-*.litmus is in litmus/mpsc.table"
tap_done
