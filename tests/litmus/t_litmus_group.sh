#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The group's litmus files model the code of today (litmus/group.table):
#   - tools/litmus-gen.py group-check-code: every "barrier" row is in
#     src/writers/group.c (that function, that label, that kind), its
#     comment there cites the shape's file or a mutant of it, and the
#     shape's file has the row's line; every J, P, L, S, F and R of
#     group.c cites a file of the table;
#   - every mutant file is exactly what tools/litmus-gen.py writes from
#     the table, and no group-*.litmus exists that the table does not
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

python3 "$gen" group-check-code >"$tmp/code" 2>&1
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
[ $rc -eq 0 ] && [ "$ncode" -ge 20 ]
ok $? "tools/litmus-gen.py group-check-code exits 0 after $ncode checks"

python3 "$gen" group-shipped "$tmp/ship" >"$tmp/gen.log" 2>&1
ok $? "tools/litmus-gen.py group-shipped: $(cat "$tmp/gen.log")"
for g in "$tmp"/ship/*.litmus; do
	base=$(basename "$g")
	if [ ! -f "$top/litmus/$base" ]; then
		fail "litmus/$base: listed in litmus/group.table, missing"
	elif ! diff -u "$g" "$top/litmus/$base" >"$tmp/diff"; then
		fail "litmus/$base differs from what litmus/group.table generates"
		sed 's/^/#   /' "$tmp/diff" | head -n 20
	else
		pass "litmus/$base is what litmus/group.table generates"
	fi
done
extra=0
shapes=$(awk '$1 == "shape" { print $2 }' "$top/litmus/group.table")
for f in "$top"/litmus/group-*.litmus; do
	b=$(basename "$f" .litmus)
	[ -f "$tmp/ship/$b.litmus" ] && continue
	printf '%s\n' "$shapes" | grep -qx "$b" && continue
	echo "# $b.litmus is not in litmus/group.table"
	extra=1
done
ok $extra "every litmus/group-*.litmus is in litmus/group.table"
tap_done
