#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ring's litmus files model the code of today:
#   - litmus/ring.table names, per ordering, the primitive at A, B, C and D
#     and the function that holds it, and the smp_mb() of each wake-up
#     function; tools/litmus-gen.py check-code preprocesses src/ring/ring.c
#     (which includes include/perfring/ring-proto.h and ring-inline.h)
#     with every barrier macro turned into a marker and fails on any barrier that is not the
#     table's (a barrier changed in the code, or a function renamed); it
#     also reads each shipped file's processes back and fails unless the
#     primitive at each of its barriers is the table's for its ordering
#     (with the changes the table lists for it);
#   - every litmus/ring-*.litmus is exactly what tools/litmus-gen.py writes
#     from that table, the table's files all exist, and no ring-*.litmus
#     exists that the table does not list.
# Needs python3 (Debian's, standard library only) and $CC for -E.
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

# 1. the table against the code
CC=${CC:-cc} python3 "$gen" check-code >"$tmp/code" 2>&1
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
[ $rc -eq 0 ] && [ "$ncode" -ge 14 ]
ok $? "tools/litmus-gen.py check-code exits 0 after $ncode checks"

# 2. the shipped files against the table
python3 "$gen" shipped "$tmp/ship" >"$tmp/gen.log" 2>&1
ok $? "tools/litmus-gen.py shipped writes the table's files: $(cat "$tmp/gen.log")"
for g in "$tmp"/ship/*.litmus; do
	base=$(basename "$g")
	if [ ! -f "$top/litmus/$base" ]; then
		fail "litmus/$base: listed in litmus/ring.table, missing"
	elif ! diff -u "$g" "$top/litmus/$base" >"$tmp/diff"; then
		fail "litmus/$base differs from what litmus/ring.table generates"
		sed 's/^/#   /' "$tmp/diff" | head -n 20
	else
		pass "litmus/$base is what litmus/ring.table generates"
	fi
done
extra=0
for f in "$top"/litmus/ring-*.litmus; do
	[ -f "$tmp/ship/$(basename "$f")" ] ||
		{ echo "# $(basename "$f") is not in litmus/ring.table"; extra=1; }
done
ok $extra "every litmus/ring-*.litmus is in litmus/ring.table"
tap_done
