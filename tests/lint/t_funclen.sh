#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tools/funclen.py (make funclen) measures kernel-style C functions from
# their '{' at column 0 to the matching '}': a function one line over the
# limit is reported with its file, line, name and length, one at the limit
# is not; braces in comments, strings and character constants do not
# count; an initializer with its '{' at column 0 and a C++ namespace are
# not functions; an exemption names a function that may be longer, and
# an exemption that matches nothing long is reported as stale.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$top/tools/funclen.py
command -v python3 >/dev/null 2>&1 ||
	skip_all "python3 not installed (tools/deps.sh installs it)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fn NAME LINES [SIGNATURE]: a function LINES long, '{' and '}' included
fn() {
	local i
	echo "${3:-static int $1(int a)}"
	echo "{"
	for ((i = 0; i < $2 - 3; i++)); do echo "	a += $i;"; done
	echo "	return a;"
	echo "}"
	echo
}

{
	echo '/* SPDX-License-Identifier: MIT */'
	fn at_limit 150
	fn one_over 151 'static inline __attribute__((always_inline)) int
one_over(int a,
	 int b)'
	echo 'static const int table[] ='
	echo '{'
	for ((i = 0; i < 300; i++)); do echo "	$i,"; done
	echo '};'
	echo
	echo 'static int braces(int a)'
	echo '{'
	echo '	const char *s = "}}}{"; /* } */'
	echo "	char c = '}';"
	for ((i = 0; i < 150; i++)); do echo "	a += $i; // }"; done
	echo '	return a + s[0] + c;'
	echo '}'
} >"$tmp/a.c"
{
	echo 'namespace'
	echo '{'
	fn inner 160 'int inner(int a)'
	echo '} // namespace'
} >"$tmp/b.cc"
: >"$tmp/none.txt"

python3 "$tool" --exempt "$tmp/none.txt" "$tmp/a.c" "$tmp/b.cc" \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
ok $((rc == 1 ? 0 : 1)) "long functions found: exit 1 (got $rc)" "$tmp/err"
grep -qx "$tmp/a.c:[0-9]*: one_over 151 lines" "$tmp/out"
ok $? "a function of 151 lines is reported with its name" "$tmp/out"
line=$(grep -n '^one_over' "$tmp/a.c" | cut -d: -f1)
grep -q "^$tmp/a.c:$((line + 2)): one_over" "$tmp/out"
ok $? "at the line of its '{'" "$tmp/out"
! grep -q at_limit "$tmp/out"
ok $? "a function of 150 lines is not" "$tmp/out"
! grep -q -e table -e '?' "$tmp/out"
ok $? "an initializer with its '{' at column 0 is not a function" "$tmp/out"
grep -qx "$tmp/a.c:[0-9]*: braces 155 lines" "$tmp/out"
ok $? "braces in strings, comments and characters do not count" "$tmp/out"
grep -qx "$tmp/b.cc:[0-9]*: inner 160 lines" "$tmp/out" &&
	[ "$(wc -l <"$tmp/out")" -eq 3 ]
ok $? "a namespace is looked into, not measured" "$tmp/out"

python3 "$tool" --all --exempt "$tmp/none.txt" "$tmp/a.c" >"$tmp/out" 2>&1
grep -qx "$tmp/a.c:[0-9]*: at_limit 150 lines" "$tmp/out"
ok $? "--all lists every function" "$tmp/out"

# Exemptions apply to the tree's own paths (relative to the top).
mkdir -p "$tmp/top/tools" "$tmp/top/src"
cp "$tool" "$tmp/top/tools/"
fn long_table 200 'static int long_table(int a)' >"$tmp/top/src/gen.c"
echo 'src/gen.c:long_table # generated' >"$tmp/top/tools/funclen-exempt.txt"
python3 "$tmp/top/tools/funclen.py" >"$tmp/out" 2>&1
ok $? "an exempt function passes" "$tmp/out"
echo 'src/gen.c:gone' >>"$tmp/top/tools/funclen-exempt.txt"
python3 "$tmp/top/tools/funclen.py" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q 'stale exemption src/gen.c:gone' "$tmp/out"
ok $? "a stale exemption fails (exit $rc)" "$tmp/out"

# The tree itself: no function over 150 lines.
(cd "$top" && python3 tools/funclen.py) >"$tmp/out" 2>&1
ok $? "no function in the tree is longer than 150 lines" "$tmp/out"
tap_done
