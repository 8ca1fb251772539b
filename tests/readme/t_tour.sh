#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tour `make run` ends with (tools/tour.sh): each of its three steps
# reports ok, with figures that hold together (written = read + lost, no
# forbidden outcome, herd7's verdicts when herd7 is here, the same sample
# count from record, script and perf report), and it ends with
# "tour: 3 steps ok".  Then a step that fails says so and why, the other
# steps still run, and the tour exits 1: herd7 that gives no verdict
# (PFR_HERD7=false) fails the barriers step alone; no perfring command
# fails all three, each naming the missing command.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${RUNNER:-}" ] &&
	skip_all "the tour runs the native command (and records perf events)"
# shellcheck source=tests/litmus/herd.sh disable=SC1091
. "$top/tests/litmus/herd.sh"

# tour OUT [ENV...]: runs the tour with ENV into $tmp/OUT, its status in
# $tmp/OUT.rc
tour() {
	local out=$1
	shift
	env PERFRING="$P" PFR_BUILD="$build" PFR_TOUR_DIR="$tmp/$out.d" "$@" \
		"$top/tools/tour.sh" >"$tmp/$out" 2>&1
	echo $? >"$tmp/$out.rc"
}
# line OUT STEP [N]: the step's Nth line (1: its status line)
line() {
	awk -v s="$2" -v n="${3:-1}" '
	$1 == s { on = 1 } on && ++i == n { print; exit }
	/^[^ ]/ && $1 != s { on = 0 }' "$tmp/$1"
}
# num TEXT REGEX: the first number matched by REGEX's \1
num() { sed -n "s/.*$2.*/\1/p" <<<"$1" | head -n 1; }

tour ok
diag <"$tmp/ok"
[ "$(cat "$tmp/ok.rc")" -eq 0 ] && grep -q '^tour: 3 steps ok in ' "$tmp/ok"
ok $? "the tour exits 0 and ends with 'tour: 3 steps ok'" "$tmp/ok"

l1=$(line ok ring 1)
l2=$(line ok ring 2)
w=$(num "$l1" ' \([0-9]*\) written')
r=$(num "$l1" '= \([0-9]*\) read')
l=$(num "$l1" '+ \([0-9]*\) lost')
case $l1 in "ring     ok   2 processes"*) s=0 ;; *) s=1 ;; esac
[ $s -eq 0 ] && [ -n "$w" ] && [ "$w" -gt 0 ] && [ "$r" -gt 0 ] &&
	[ "$w" -eq $((r + l)) ] && [[ $l2 == *" 0 corrupt, all in order"* ]] &&
	[[ $l2 =~ reader\ [0-9]+\.[0-9]+\ M\ records/s ]]
ok $? "ring: ok across 2 processes, $w written = $r read + $l lost, 0 corrupt, the reader's rate" "$tmp/ok"

b1=$(line ok barriers 1)
b2=$(line ok barriers 2)
n=$(num "$b1" ' runs: \([0-9]*\) reordered')
[[ $b1 == "barriers ok   SB, the ring's wake-up, "*" 0 with smp_mb() on each side" ]] &&
	{ [ -n "$n" ] || [[ $b1 == *"none (allowed, not seen this time)"* ]]; }
ok $? "barriers: SB reordered ${n:-0} times without a barrier, never with smp_mb()" "$tmp/ok"
if [ -n "$(pfr_find_herd "$top")" ]; then
	[ "$b2" = "              herd7 (Linux-kernel memory model) agrees: litmus/ring-wakeup-no-mb Sometimes, ring-wakeup-mb Never" ]
	ok $? "barriers: herd7's verdicts beside it" "$tmp/ok"
else
	[[ $b2 == *"herd7 not found"* ]]
	ok $? "barriers: herd7 not found, and said so" "$tmp/ok"
fi

par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" -ne 0 ] && [ "$par" -gt 1 ]; then
	skip "not root and kernel.perf_event_paranoid=$par" \
		"record: perfring record, script and perf report"
else
	c1=$(line ok record 1)
	c2=$(line ok record 2)
	n=$(num "$c1" 'loop: \([0-9]*\) samples')
	s=$(num "$c2" 'script reads \([0-9]*\) back')
	[[ $c1 == "record   ok   perfring record -F 999 of a shell loop: "* ]] &&
		[ "${n:-0}" -gt 0 ] && [ "$s" = "$n" ] &&
		[ -s "$tmp/ok.d/perf.data" ]
	ok $? "record: $n samples recorded, perfring script reads $s back" "$tmp/ok"
	if command -v perf >/dev/null 2>&1; then
		[ -n "$n" ] && [ "$(num "$c2" 'perf report \([0-9]*\) too')" = "$n" ]
		ok $? "record: perf report counts the same $n samples" "$tmp/ok"
	else
		[[ $c2 == *"perf is not installed"* ]]
		ok $? "record: perf not installed, and said so" "$tmp/ok"
	fi
fi

# herd7 that gives no verdict: the barriers step fails and says why; the
# ring and record steps still run.
tour noherd PFR_HERD7=false
[ "$(cat "$tmp/noherd.rc")" -eq 1 ] &&
	grep -q '^tour: 1 of 3 steps FAILED (barriers) in ' "$tmp/noherd" &&
	[[ $(line noherd barriers 1) == "barriers FAIL "* ]] &&
	[[ $(line noherd barriers 2) == *"herd7 (false) on litmus/ring-wakeup-no-mb.litmus: no verdict (exit 1), the file says Sometimes"* ]]
ok $? "herd7 without a verdict: the barriers step fails, saying so, and the tour exits 1" "$tmp/noherd"
[[ $(line noherd ring 1) == "ring     ok "* ]] &&
	[[ $(line noherd record 1) == "record   "* ]]
ok $? "the other steps still run after a failing one" "$tmp/noherd"

# No perfring command: every step fails and names it.
tour nocmd PERFRING="$tmp/no-such-perfring"
bad=0
for st in ring barriers record; do
	[[ $(line nocmd "$st" 1) == *" FAIL perfring "*"(exit 127"*"): no perfring command at $tmp/no-such-perfring (make builds it)" ]] ||
		bad=1
done
[ "$(cat "$tmp/nocmd.rc")" -eq 1 ] && [ $bad -eq 0 ] &&
	grep -q '^tour: 3 of 3 steps FAILED (ring barriers record) in ' \
		"$tmp/nocmd"
ok $? "no perfring command: each step fails naming it, the tour exits 1" "$tmp/nocmd"
tap_done
