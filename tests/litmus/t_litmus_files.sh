#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Consistency of litmus/*.litmus (the LKMM files) with litmus/README.md:
# every file has its "C <name>" line naming the file, a header comment
# with one "Result: Never|Sometimes" line and a "Data race:" line, processes
# P0 and P1, and an "exists" clause; the README's table lists every file
# with the same verdict, and lists no file that does not exist.
# This does not check the verdicts themselves (herd7 is not packaged in
# Debian).  When herd7 is on PATH and PFR_LKMM_DIR names a kernel's
# tools/memory-model directory, it also runs herd7 on each file and fails
# on any observation that differs from the file's Result line.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$top/litmus
readme=$dir/README.md
n=0 bad=0
tap() { # tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		bad=$((bad + 1))
	fi
}

shopt -s nullglob
files=("$dir"/*.litmus)
[ ${#files[@]} -ge 20 ]
tap $? "litmus/ holds ${#files[@]} .litmus files"
[ -f "$readme" ]
tap $? "litmus/README.md exists"

# name|verdict rows of the README's table: "| [name](name.litmus) | ... |"
table=$(awk -F'|' '/^\| *\[[^]]*\]\([^)]*\.litmus\)/ {
	link = $2; sub(/^.*\(/, "", link); sub(/\.litmus\).*$/, "", link)
	for (i = 3; i <= NF; i++) {
		v = $i; gsub(/ /, "", v)
		if (v == "Never" || v == "Sometimes") { print link "|" v; break }
	}
}' "$readme" 2>/dev/null)

for f in "${files[@]}"; do
	base=$(basename "$f" .litmus)
	why=
	first=$(grep -m1 -v '^[[:space:]]*$' "$f")
	[ "$first" = "C $base" ] || why="first line is '$first', want 'C $base'"
	# The header comment: from the line "(*" to the first "*)".
	header=$(awk 'NR > 1 && /^\(\*/ { on = 1 } on { print } on && /\*\)/ { exit }' "$f")
	nres=$(printf '%s\n' "$header" | grep -Ec '^ \* Result: (Never|Sometimes)$')
	verdict=$(printf '%s\n' "$header" | sed -n 's/^ \* Result: \(Never\|Sometimes\)$/\1/p' | head -1)
	[ -z "$why" ] && [ "$nres" -ne 1 ] &&
		why="header has $nres 'Result: Never|Sometimes' lines, want 1"
	[ -z "$why" ] && ! printf '%s\n' "$header" | grep -Eq '^ \* Data race: (flagged|none)$' &&
		why="no 'Data race: flagged|none' line in the header"
	[ -z "$why" ] && ! grep -Eq '^exists \(.+\)$' "$f" && why="no exists clause"
	[ -z "$why" ] && { ! grep -q '^P0(' "$f" || ! grep -q '^P1(' "$f"; } &&
		why="no P0/P1 process"
	if [ -z "$why" ]; then
		row=$(printf '%s\n' "$table" | grep -c "^$base|")
		inreadme=$(printf '%s\n' "$table" | sed -n "s/^$base|//p" | head -1)
		if [ "$row" -ne 1 ]; then
			why="README table has $row rows for it, want 1"
		elif [ "$inreadme" != "$verdict" ]; then
			why="README says $inreadme, the file says $verdict"
		fi
	fi
	if [ -n "$why" ]; then
		tap 1 "$base: $why"
	else
		tap 0 "$base: Result: $verdict, listed in the README"
	fi
done

# Every table row names an existing file.
missing=0
while IFS='|' read -r name _; do
	[ -n "$name" ] || continue
	[ -f "$dir/$name.litmus" ] || { echo "# README lists $name, no such file"; missing=1; }
done <<<"$table"
tap $missing "every file in the README table exists"
grep -q 'herd7 -conf linux-kernel.cfg' "$readme"
tap $? "README says how to run herd7"

# The real check, where herd7 and the kernel's model are available.
if command -v herd7 >/dev/null 2>&1 && [ -f "${PFR_LKMM_DIR:-}/linux-kernel.cfg" ]; then
	for f in "${files[@]}"; do
		base=$(basename "$f" .litmus)
		want=$(sed -n 's/^ \* Result: \(Never\|Sometimes\)$/\1/p' "$f" | head -1)
		got=$(cd "$PFR_LKMM_DIR" && timeout 300 herd7 -conf linux-kernel.cfg "$f" 2>&1 |
			awk '/^Observation/ { print $3 }')
		[ "$got" = "$want" ]
		tap $? "herd7: $base is $got (header: $want)"
	done
else
	echo "# herd7 or PFR_LKMM_DIR not available: verdicts not machine-checked"
fi
echo "1..$n"
[ $bad -eq 0 ]
