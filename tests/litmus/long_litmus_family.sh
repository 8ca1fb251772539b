#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ring's generated litmus family under herd7 (make check-long):
# tools/litmus-gen.py family writes every barrier choice at both ends of
# each shape (publication B x C, slot reuse A x D, each with a plain and a
# marked record; wake-up waker x sleeper) into $PFR_BUILD/litmus-family;
# herd7 runs on every file, and
#   - every file gives an Observation (no parse error, no time-out);
#   - the grid rendered from the verdicts is docs/litmus-grid.md, byte for
#     byte (PFR_UPDATE_GRID=1 writes it instead, for a deliberate change);
#   - every shipped litmus/ring-*.litmus that is a cell of the grid states
#     the verdict and data-race flag herd7 gives that cell.
# herd7 as in t_litmus_files.sh; without it the test is skipped (77).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
gen=$top/tools/litmus-gen.py
grid=$top/docs/litmus-grid.md
# shellcheck source=tests/litmus/herd.sh
. "$(dirname "$0")/herd.sh"
herd=$(pfr_find_herd "$top")
if [ -z "$herd" ]; then
	skip_all "herd7 not found (set PFR_HERD7): the family is not checked"
fi
command -v python3 >/dev/null 2>&1 || {
	skip_all "python3 not installed"
}
fam=$build/litmus-family
rm -rf "$fam"
python3 "$gen" family "$fam" >/dev/null
ok $? "tools/litmus-gen.py family wrote $(wc -l <"$fam/list" 2>/dev/null) files to $fam"

res=$fam/results
all=()
while read -r name _; do all+=("$fam/$name.litmus"); done <"$fam/list"
pfr_herd_all "$herd" "$fam/herd" "${all[@]}"
grep -v ' ERROR ' "$fam/herd" >"$res"
grep ' ERROR ' "$fam/herd" | sed 's/^/# /'
total=${#all[@]}
[ "$(wc -l <"$res")" -eq "$total" ] && [ "$total" -gt 0 ]
ok $? "herd7 gave an Observation for $(wc -l <"$res") of $total files"
for v in "Never none" "Never flagged" "Sometimes none" "Sometimes flagged" "Always none" "Always flagged"; do
	c=$(grep -c " $v\$" "$res")
	[ "$c" -gt 0 ] && echo "# $v: $c"
done

python3 "$gen" grid "$fam" "$res" >"$fam/grid.md"
ok $? "tools/litmus-gen.py grid renders the verdicts"
if [ "${PFR_UPDATE_GRID:-0}" = 1 ]; then
	cp "$fam/grid.md" "$grid"
	ok $? "docs/litmus-grid.md written (PFR_UPDATE_GRID=1)"
else
	diff -u "$grid" "$fam/grid.md" >"$fam/grid.diff"
	rc=$?
	[ $rc -ne 0 ] && sed 's/^/#   /' "$fam/grid.diff" | head -n 40
	ok $rc "docs/litmus-grid.md is what herd7 says today"
fi

# The shipped files' stated verdicts against the family's cells.
python3 "$gen" cells >"$fam/cells"
ok $? "tools/litmus-gen.py cells lists $(wc -l <"$fam/cells") shipped files"
while read -r name shape w r slots want race; do
	key="fam-$shape"
	case $shape in
	pub) key="$key-b-$w-c-$r-$slots" ;;
	reuse) key="$key-a-$w-d-$r-$slots" ;;
	wakeup) key="$key-waker-$w-sleeper-$r" ;;
	esac
	got=$(awk -v k="$key" '$1 == k { print $2, $3 }' "$res")
	[ "$got" = "$want $race" ]
	ok $? "litmus/$name.litmus states $want, data race $race; its cell $key gives $got"
done <"$fam/cells"
tap_done
