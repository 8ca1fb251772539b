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
# the source tree, else herd7-lkmm on PATH (tests/litmus/herd.sh; one herd7
# run takes every file).  Without it, the checks that
# need no herd7 still run and fail on any defect, and then the test exits
# 77 (skipped): the verdicts were not checked, so it does not pass.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
dir=$top/litmus
readme=$dir/README.md

# shellcheck source=tests/litmus/herd.sh
. "$(dirname "$0")/herd.sh"
herd=$(pfr_find_herd "$top")

shopt -s nullglob
files=("$dir"/*.litmus)
[ ${#files[@]} -ge 1 ]
ok $? "litmus/ holds ${#files[@]} .litmus files"
[ -f "$readme" ]
ok $? "litmus/README.md exists"

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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One pass over every file: NAME, WHY, RESULT, RACE, separated by the
# character \037 (WHY empty if the file is well formed).
# The header comment is from the first line starting "(*" to the first
# line holding "*)"; its fields are lines "[ * ]Name: value".
awk '
function done_file() {
	if (fname == "") return
	why = ""
	if (first != "C " base) why = "first line is \x27" first "\x27, want \x27C " base "\x27"
	else if (hstate != 2) why = "no header comment (* ... *)"
	else if (nested != "") why = "header comment holds another \x27(*\x27 (herd7 reads a nested comment): " nested
	else if (nres != 1) why = "header needs one \x27Result: Never|Sometimes|Always\x27 line"
	else if (nrace != 1) why = "header needs one \x27Data race: flagged|none\x27 line"
	else if (!cond) why = "no final condition (exists, ~exists or forall)"
	else if (!p0 || !p1) why = "no P0/P1 process"
	print base "\037" why "\037" res "\037" race
}
FNR == 1 {
	done_file()
	fname = FILENAME; base = fname; sub(/^.*\//, "", base); sub(/\.litmus$/, "", base)
	first = ""; hstate = 0; nested = ""; nres = nrace = 0; res = race = ""
	cond = p0 = p1 = 0
}
first == "" && $0 !~ /^[ \t]*$/ { first = $0 }
hstate == 0 && /^\(\*/ { hstate = 1; opening = FNR }
hstate == 1 {
	# the opening "(*" itself is not a nested one
	txt = (FNR == opening) ? substr($0, 3) : $0
	end = index(txt, "*)")
	body = end ? substr(txt, 1, end - 1) : txt
	if (index(body, "(*") && nested == "") nested = $0
	if (match($0, /^[ \t]*\*?[ \t]*Result:[ \t]*(Never|Sometimes|Always)[ \t]*$/)) {
		nres++; r = $0; sub(/^.*Result:[ \t]*/, "", r); sub(/[ \t]*$/, "", r); res = r
	}
	if (match($0, /^[ \t]*\*?[ \t]*Data race:[ \t]*(flagged|none)[ \t]*$/)) {
		nrace++; r = $0; sub(/^.*Data race:[ \t]*/, "", r); sub(/[ \t]*$/, "", r); race = r
	}
	if (end) hstate = 2
	next
}
/^(exists|~exists|forall)[ \t]*\(/ { cond = 1 }
/^P0\(/ { p0 = 1 }
/^P1\(/ { p1 = 1 }
END { done_file() }
' "${files[@]}" >"$tmp/shape"

declare -A inreadme nrows
while IFS='|' read -r name v; do
	[ -n "$name" ] || continue
	inreadme[$name]=$v
	nrows[$name]=$((${nrows[$name]:-0} + 1))
done <<<"$table"

good=()
while IFS=$'\037' read -r base why want race; do
	if [ -z "$why" ]; then
		if [ "${nrows[$base]:-0}" -ne 1 ]; then
			why="litmus/README.md has ${nrows[$base]:-0} table rows for it, want 1"
		elif [ "${inreadme[$base]}" != "$want" ]; then
			why="litmus/README.md says ${inreadme[$base]}, the file says $want"
		fi
	fi
	if [ -n "$why" ]; then
		fail "$base: $why"
		continue
	fi
	pass "$base: well formed; expects $want, data race $race; in the README"
	good+=("$dir/$base.litmus")
	echo "$base $want $race" >>"$tmp/want"
done <"$tmp/shape"

# herd7 on every well-formed file, against its header.
agree=0
if [ -n "$herd" ] && [ ${#good[@]} -gt 0 ]; then
	pfr_herd_all "$herd" "$tmp/got" "${good[@]}"
	while read -r base want race; do
		got=$(awk -v t="$base" '$1 == t { $1 = ""; print substr($0, 2); exit }' "$tmp/got")
		if [ -z "$got" ] || [ "${got%% *}" = ERROR ]; then
			fail "$base: herd7 gave no Observation: ${got#ERROR }"
		elif [ "$got" != "$want $race" ]; then
			fail "$base: herd7 says ${got% *}, data race ${got##* }; the header says $want, data race $race"
		else
			agree=$((agree + 1))
			pass "$base: herd7 agrees: $want, data race $race"
		fi
	done <"$tmp/want"
fi

# Every table row names an existing file.
missing=0
while IFS='|' read -r name _; do
	[ -n "$name" ] || continue
	[ -f "$dir/$name.litmus" ] || { echo "# README lists $name, no such file"; missing=1; }
done <<<"$table"
ok $missing "every file in litmus/README.md's tables exists"

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
ok $? "the $cited litmus files README.md cites exist"

[ -n "$herd" ] ||
	tap_done --skip "herd7 not found (set PFR_HERD7, or provide ../shared/tools/herd7/herd7-lkmm): verdicts not checked"
echo "# herd7 ($herd): $agree of ${#files[@]} files agree with their headers"
tap_done
