#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every litmus/*.litmus file (whatever its family: the rules are generic,
# see litmus/README.md, "Expectations") is well formed and gives, under
# herd7 with the Linux-kernel memory model, the verdict its header states:
#   - its first line is "C <name>", <name> the file's name;
#   - its header comment, from the first line starting "(*" to the first
#     "*)", holds no other "(*" (herd7's lexer would take it for a nested
#     comment and never find the end: "eof in skip_comment");
#   - the header has exactly one "Result: Never|Sometimes|Always" line and
#     exactly one "Data race: flagged|none" line;
#   - the file has processes P0 and P1 and a final condition (exists,
#     ~exists or forall);
#   - litmus/README.md's table lists it, with the same Result, and lists
#     no file that does not exist; every litmus file README.md cites by
#     name exists;
#   - herd7 prints "Observation <name> <Result>" and prints
#     "Flag data-race" exactly when the header says "Data race: flagged".
# herd7: $PFR_HERD7 if set, else ../shared/tools/herd7/herd7-lkmm next to
# the source tree, else herd7-lkmm on PATH.  Without it, the checks that
# need no herd7 still run and fail on any defect, and then the test exits
# 77 (skipped): the verdicts were not checked, so it does not pass.
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

herd=
if [ -n "${PFR_HERD7:-}" ]; then
	herd=$PFR_HERD7
elif [ -x "$top/../shared/tools/herd7/herd7-lkmm" ]; then
	herd=$top/../shared/tools/herd7/herd7-lkmm
elif command -v herd7-lkmm >/dev/null 2>&1; then
	herd=herd7-lkmm
fi

shopt -s nullglob
files=("$dir"/*.litmus)
[ ${#files[@]} -ge 1 ]
tap $? "litmus/ holds ${#files[@]} .litmus files"
[ -f "$readme" ]
tap $? "litmus/README.md exists"

# name|verdict rows of the README's tables: "| [name](name.litmus) | ... |"
table=$(awk -F'|' '/^\| *\[[^]]*\]\([^)]*\.litmus\)/ {
	link = $2; sub(/^.*\(/, "", link); sub(/\.litmus\).*$/, "", link)
	for (i = 3; i <= NF; i++) {
		v = $i; gsub(/ /, "", v)
		if (v == "Never" || v == "Sometimes" || v == "Always") {
			print link "|" v; break
		}
	}
}' "$readme" 2>/dev/null)

# The header comment of a file: from the first line starting "(*" to the
# first line holding "*)".
header() { awk '/^\(\*/ { on = 1 } on { print } on && /\*\)/ { exit }' "$1"; }
field() { # field HEADER NAME REGEX: the values of "NAME: value" lines
	printf '%s\n' "$1" | sed -n -E "s/^[[:space:]]*\\*?[[:space:]]*$2:[[:space:]]*($3)[[:space:]]*\$/\\1/p"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nherd=0 agree=0
for f in "${files[@]}"; do
	base=$(basename "$f" .litmus)
	why=
	first=$(grep -m1 -v '^[[:space:]]*$' "$f")
	[ "$first" = "C $base" ] || why="first line is '$first', want 'C $base'"
	hdr=$(header "$f")
	if [ -z "$why" ]; then
		if [ -z "$hdr" ] || ! printf '%s\n' "$hdr" | tail -n 1 | grep -q '\*)'; then
			why="no header comment (* ... *)"
		elif [ "$(printf '%s\n' "$hdr" | grep -o '(\*' | wc -l)" -ne 1 ]; then
			why="header comment holds another '(*' (herd7 reads a nested comment): $(printf '%s\n' "$hdr" | sed 1d | grep -m1 '(\*')"
		fi
	fi
	want=$(field "$hdr" Result 'Never|Sometimes|Always')
	race=$(field "$hdr" 'Data race' 'flagged|none')
	[ -z "$why" ] && [ "$(printf '%s' "$want" | grep -c .)" -ne 1 ] &&
		why="header needs one 'Result: Never|Sometimes|Always' line"
	[ -z "$why" ] && [ "$(printf '%s' "$race" | grep -c .)" -ne 1 ] &&
		why="header needs one 'Data race: flagged|none' line"
	[ -z "$why" ] && ! grep -Eq '^(exists|~exists|forall)[[:space:]]*\(' "$f" &&
		why="no final condition (exists, ~exists or forall)"
	[ -z "$why" ] && { ! grep -q '^P0(' "$f" || ! grep -q '^P1(' "$f"; } &&
		why="no P0/P1 process"
	if [ -z "$why" ]; then
		row=$(printf '%s\n' "$table" | grep -c "^$base|")
		inreadme=$(printf '%s\n' "$table" | sed -n "s/^$base|//p" | head -1)
		if [ "$row" -ne 1 ]; then
			why="litmus/README.md has $row table rows for it, want 1"
		elif [ "$inreadme" != "$want" ]; then
			why="litmus/README.md says $inreadme, the file says $want"
		fi
	fi
	if [ -n "$why" ]; then
		tap 1 "$base: $why"
		continue
	fi
	if [ -z "$herd" ]; then
		tap 0 "$base: well formed; expects $want, data race $race; in the README"
		continue
	fi
	nherd=$((nherd + 1))
	timeout 300 "$herd" "$f" >"$tmp/out" 2>&1
	rc=$?
	got=$(awk -v t="$base" '$1 == "Observation" && $2 == t { print $3 }' "$tmp/out")
	if grep -q '^Flag data-race' "$tmp/out"; then grace=flagged; else grace=none; fi
	if [ $rc -ne 0 ] || [ -z "$got" ]; then
		tap 1 "$base: herd7 exited $rc with no Observation: $(grep -m1 -iE 'error|fatal' "$tmp/out")"
	elif [ "$got" != "$want" ] || [ "$grace" != "$race" ]; then
		tap 1 "$base: herd7 says $got, data race $grace; the header says $want, data race $race"
	else
		agree=$((agree + 1))
		tap 0 "$base: herd7 agrees: $got, data race $grace"
	fi
done

# Every table row names an existing file.
missing=0
while IFS='|' read -r name _; do
	[ -n "$name" ] || continue
	[ -f "$dir/$name.litmus" ] || { echo "# README lists $name, no such file"; missing=1; }
done <<<"$table"
tap $missing "every file in litmus/README.md's tables exists"

# Every litmus file the top-level README cites by name (`family-...`, for
# each family prefix present in litmus/) exists.
prefixes=$(for f in "${files[@]}"; do b=$(basename "$f"); echo "${b%%-*}"; done |
	sort -u | paste -sd'|')
cited=0 gone=0
if [ -n "$prefixes" ] && [ -f "$top/README.md" ]; then
	for name in $(grep -oE "\`($prefixes)-[a-z0-9-]+\`" "$top/README.md" |
		tr -d '\`' | sort -u); do
		cited=$((cited + 1))
		[ -f "$dir/$name.litmus" ] ||
			{ echo "# README.md cites $name, no such file"; gone=1; }
	done
fi
[ $gone -eq 0 ] && [ $cited -gt 0 ]
tap $? "the $cited litmus files README.md cites exist"

echo "1..$n"
if [ -z "$herd" ]; then
	echo "# SKIP herd7 not found (set PFR_HERD7, or provide ../shared/tools/herd7/herd7-lkmm): verdicts not checked"
	[ $bad -eq 0 ] && exit 77
	exit 1
fi
echo "# herd7 ($herd): $agree of ${#files[@]} files agree with their headers ($nherd run)"
[ $bad -eq 0 ]
