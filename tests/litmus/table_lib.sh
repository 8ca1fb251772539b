# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The check of a family of litmus files generated from a table
# (litmus/FAMILY.table, tools/litmus-gen.py FAMILY-check-code and
# FAMILY-shipped), shared by t_litmus_group.sh and t_litmus_mpsc.sh:
#   table_check FAMILY MIN_CODE_CHECKS
# Sourced after tests/lib/tap.sh; prints TAP and ends it.
table_check() {
	local fam=$1 min=$2 top gen tmp rc line ncode g base extra shapes f b
	top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
	gen=$top/tools/litmus-gen.py
	if ! command -v python3 >/dev/null 2>&1; then
		skip_all "python3 not installed (tools/deps.sh installs it)"
	fi
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT

	python3 "$gen" "$fam-check-code" >"$tmp/code" 2>&1
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
	[ $rc -eq 0 ] && [ "$ncode" -ge "$min" ]
	ok $? "tools/litmus-gen.py $fam-check-code exits 0 after $ncode checks"

	python3 "$gen" "$fam-shipped" "$tmp/ship" >"$tmp/gen.log" 2>&1
	ok $? "tools/litmus-gen.py $fam-shipped: $(cat "$tmp/gen.log")"
	for g in "$tmp"/ship/*.litmus; do
		base=$(basename "$g")
		if [ ! -f "$top/litmus/$base" ]; then
			fail "litmus/$base: listed in litmus/$fam.table, missing"
		elif ! diff -u "$g" "$top/litmus/$base" >"$tmp/diff"; then
			fail "litmus/$base differs from what litmus/$fam.table generates"
			sed 's/^/#   /' "$tmp/diff" | head -n 20
		else
			pass "litmus/$base is what litmus/$fam.table generates"
		fi
	done
	extra=0
	shapes=$(awk '$1 == "shape" { print $2 }' "$top/litmus/$fam.table")
	for f in "$top"/litmus/"$fam"-*.litmus; do
		b=$(basename "$f" .litmus)
		[ -f "$tmp/ship/$b.litmus" ] && continue
		printf '%s\n' "$shapes" | grep -qx "$b" && continue
		echo "# $b.litmus is not in litmus/$fam.table"
		extra=1
	done
	ok $extra "every litmus/$fam-*.litmus is in litmus/$fam.table"
	tap_done
}
