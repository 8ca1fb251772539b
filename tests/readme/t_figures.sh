#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every figure the README states is in its results file, and the file names
# the machine (tools/figures-check.py --strict: a figure outside a
# "<!-- figures: FILE; machine: NAME -->" block fails); the same for the
# docs/ notes that state no measurement of their own, and, in every other
# docs/*.md, for the figures inside such blocks.  Claims found not to hold
# when re-measured are not stated again.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top" || exit 1

strict="README.md docs/evidence.md docs/instructions.md docs/ring-crash.md
docs/session.md"
for f in $strict; do
	tools/figures-check.py --strict "$f" >"$tmp/out" 2>&1
	ok $? "$f: every figure is in its results file" "$tmp/out"
done
others=
for f in docs/*.md; do
	case " $(echo "$strict" | tr '\n' ' ') " in *" $f "*) continue ;; esac
	others="$others $f"
done
# shellcheck disable=SC2086 # a list of paths
tools/figures-check.py $others >"$tmp/out" 2>&1
ok $? "docs/: the figures in figures blocks are in their results files" \
	"$tmp/out"
grep -c '<!-- figures:' README.md >"$tmp/n"
[ "$(cat "$tmp/n")" -ge 1 ]
ok $? "README.md states its figures in figures blocks ($(cat "$tmp/n"))"

# Checker self-test: a figure changed inside a block, and one outside.
sed 's/^\(|[^|]*| \)\([0-9][0-9]*\.[0-9]\)/\1999999.5/' README.md \
	>"$tmp/changed.md"
! tools/figures-check.py --strict "$tmp/changed.md" >"$tmp/out" 2>&1 &&
	grep -q '999999.5 is not in' "$tmp/out"
ok $? "a figure missing from its results file fails the check" "$tmp/out"
printf 'It runs at 12.5 M/s.\n' >"$tmp/loose.md"
! tools/figures-check.py --strict "$tmp/loose.md" >"$tmp/out" 2>&1
ok $? "a figure outside a figures block fails the check" "$tmp/out"

# Claims that did not hold when re-measured (README, the strict notes,
# docs/bench.md, the manual pages and perfring bench --help): recorder CPU
# 0.61-0.90x of perf record --no-buildid (0.86-1.39x measured), no loss at
# the default ring size (3 of 7 storms lost), bench --quick under a minute
# (180 s on a loaded machine).
{
	# shellcheck disable=SC2086 # a list of paths
	grep -n -i -E '0\.61.0\.90|loses nothing at the default|under a minute' \
		README.md $strict docs/bench.md man/*
	"${PERFRING:-${PFR_BUILD:-$top/build}/perfring}" bench --help 2>&1 |
		grep -i 'under a minute' | sed 's/^/perfring bench --help: /'
} >"$tmp/out"
[ ! -s "$tmp/out" ]
ok $? "no retired claim is stated again" "$tmp/out"
tap_done
