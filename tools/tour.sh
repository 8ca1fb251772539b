#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tour `make run` ends with: what perfring is for, in three steps of a
# few seconds each, run with the built command on this machine.
#
#   ring      perfring stress --processes: a writer and a reader in two
#             processes over one ring in a sealed memfd; every record's
#             checksum and sequence checked, written = read + lost.
#   barriers  perfring litmus: store buffering (the ring's wake-up hand-shake)
#             without a barrier and with smp_mb() on both sides, on this CPU;
#             beside it herd7's verdict (Linux-kernel memory model) on
#             litmus/ring-wakeup-no-mb.litmus and ring-wakeup-mb.litmus,
#             when herd7 is found (as tests/litmus/herd.sh finds it).
#   record    perfring record of a shell loop into perf.data, then perfring
#             script and, when perf is installed, perf report on that file:
#             each must count the samples the recorder wrote.
#
# Each step prints one or two lines; a failing step says why, the others
# still run, and the tour exits 1.  Every step's full output stays in the
# tour's folder.  Environment: PERFRING (the command; build/perfring),
# PFR_BUILD (build), PFR_TOUR_DIR (the tour's folder; $PFR_BUILD/tour),
# PFR_HERD7 (herd7 with the LKMM: a command taking a litmus file).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
dir=${PFR_TOUR_DIR:-$build/tour}
# shellcheck source=tests/litmus/herd.sh disable=SC1091
. "$top/tests/litmus/herd.sh"

failed=()
# say STEP STATUS TEXT [MORE]: a step's line, and an indented second one
say() {
	printf '%-8s %-4s %s\n' "$1" "$2" "$3"
	[ -z "${4:-}" ] || printf '%-13s %s\n' '' "$4"
	[ "$2" = ok ] || failed+=("$1")
}

# why FILE...: the last non-empty line of the files, the likely reason
why() { cat "$@" 2>/dev/null | sed '/^[[:space:]]*$/d' | tail -n 1; }

# pfr ARGS...: runs the perfring command, or says there is none (exit 127)
pfr() {
	if ! command -v "$P" >/dev/null 2>&1; then
		echo "no perfring command at $P (make builds it)" >&2
		return 127
	fi
	"$P" "$@"
}

# jget LINE KEY: a number, boolean or string field of a JSON object line
jget() {
	sed -n -e "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p" \
		-e "s/.*\"$2\":\([-0-9.a-z]*\).*/\1/p" <<<"$1" | head -n 1
}

step_ring() {
	local out=$dir/ring.json err=$dir/ring.err rc j w r l c e s
	pfr stress --processes --seconds 1 --json >"$out" 2>"$err"
	rc=$?
	j=$(grep -m 1 '^{' "$out")
	w=$(jget "$j" written) r=$(jget "$j" read) l=$(jget "$j" lost)
	c=$(jget "$j" corrupt) e=$(jget "$j" error) s=$(jget "$j" seconds)
	if [ $rc -ne 0 ] || [ "$(jget "$j" ok)" != true ] || [ -z "$w" ]; then
		e=${e:-$(why "$err" "$out")}
		say ring FAIL "perfring stress --processes (exit $rc): $e"
		return
	fi
	if [ "$w" -ne $((r + l)) ] || [ "$c" -ne 0 ]; then
		say ring FAIL "written $w is not read $r + lost $l, or $c corrupt"
		return
	fi
	e=$(awk -v n="$r" -v s="$s" 'BEGIN { printf "%.2f", n / s / 1e6 }')
	s=$(printf '%.1f' "$s")
	say ring ok \
		"2 processes, a ring in a sealed memfd, $s s: $w written = $r read + $l lost" \
		"a DROP writer loses, and counts, what finds the ring full; $c corrupt, all in order; reader $e M records/s"
}

# herd_line: herd7's verdict on the two files, or why there is none;
# returns 1 when herd7 ran and disagrees with a file's Result: header.
herd_line() {
	local herd f v want rc line=
	herd=$(pfr_find_herd "$top")
	if [ -z "$herd" ]; then
		echo "herd7 not found (PFR_HERD7, ../shared/tools/herd7/herd7-lkmm):" \
			"no model's verdict beside it"
		return 0
	fi
	for f in ring-wakeup-no-mb ring-wakeup-mb; do
		timeout 120 "$herd" "$top/litmus/$f.litmus" >"$dir/herd-$f.out" 2>&1
		rc=$?
		v=$(awk '$1 == "Observation" { print $3 }' "$dir/herd-$f.out")
		want=$(sed -n 's/^ \* Result: *//p' "$top/litmus/$f.litmus")
		if [ "$v" != "$want" ]; then
			v="herd7 ($herd) on litmus/$f.litmus: ${v:-no verdict}"
			v="$v (exit $rc), the file says $want"
			want=$(why "$dir/herd-$f.out")
			echo "$v${want:+: $want}"
			return 1
		fi
		line="$line${line:+, }$f $v"
	done
	echo "herd7 (Linux-kernel memory model) agrees: litmus/$line"
}

step_barriers() {
	local out=$dir/litmus.json err=$dir/litmus.err rc m nb mb h hrc n
	# '[S]B' is the test named SB alone: -t SB would take the whole shape.
	pfr litmus -n 200k --json -t '[S]B' -t 'SB+mbs' >"$out" 2>"$err"
	rc=$?
	m=$(grep -m 1 '"type":"meta"' "$out")
	nb=$(grep -m 1 '"name":"SB"' "$out")
	mb=$(grep -m 1 '"name":"SB+mbs"' "$out")
	h=$(herd_line)
	hrc=$?
	if [ $rc -ne 0 ] || [ -z "$nb" ] || [ -z "$mb" ]; then
		n=$(jget "$mb" positive)
		if [ $rc -eq 1 ] && [ "${n:-0}" -gt 0 ]; then
			n="SB with smp_mb() on each side: forbidden, seen $n times"
		else
			tr '\r' '\n' <"$err" |
				grep -v '^perfring litmus: *[0-9]*%' >"$err.txt"
			n="perfring litmus (exit $rc): $(why "$err.txt" "$out")"
		fi
		say barriers FAIL "$n" "$h"
		return
	fi
	n=$(jget "$nb" positive)
	[ "$n" != 0 ] || n="none (allowed, not seen this time)"
	n="SB, the ring's wake-up, $(jget "$m" iterations) runs: $n reordered"
	n="$n without a barrier, 0 with smp_mb() on each side"
	if [ $hrc -ne 0 ]; then
		say barriers FAIL "$n" "$h"
	else
		say barriers ok "$n" "$h"
	fi
}

# perf_line FILE: perf report's sample count and top entry for FILE, or
# why there is none; returns 1 when perf report failed or disagrees.
perf_line() {
	local n top
	if ! command -v perf >/dev/null 2>&1; then
		echo "perf is not installed (tools/deps.sh installs linux-perf):" \
			"no perf report"
		return 0
	fi
	perf report -i "$1" --stdio -q -n --sort comm,dso,sym \
		>"$dir/report.out" 2>"$dir/report.err"
	local rc=$?
	n=$(awk '$1 ~ /%$/ { n += $2 } END { print n + 0 }' "$dir/report.out")
	top=$(awk '$1 ~ /%$/ { $2 = ""; print; exit }' "$dir/report.out" |
		tr -s ' ' | sed 's/\[\.\] //; s/\[k\] //')
	if [ $rc -ne 0 ] || [ "$n" -ne "$2" ]; then
		top=$(why "$dir/report.err")
		echo "perf report (exit $rc) counts $n samples, not $2${top:+: $top}"
		return 1
	fi
	echo "perf report $n too, top: $top"
}

step_record() {
	local data=$dir/perf.data err=$dir/record.err rc n lost s p prc
	rm -f "$data"
	# 300000 rounds of the shell's own arithmetic: about 0.3 s of CPU.
	# shellcheck disable=SC2016 # the loop's $i is the shell's, not ours
	pfr record -F 999 -o "$data" -- \
		sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
		>"$dir/record.out" 2>"$err"
	rc=$?
	# its summary: "[ perfring record: N samples, M lost (...) ]"
	n=$(sed -n 's/.*perfring record: \([0-9]*\) samples, .*/\1/p' "$err")
	lost=$(sed -n 's/.*perfring record: [0-9]* samples, \([0-9]*\) lost.*/\1/p' \
		"$err")
	if [ $rc -ne 0 ] || [ ! -s "$data" ] || [ "${n:-0}" -eq 0 ]; then
		say record FAIL \
			"perfring record (exit $rc, ${n:-no} samples): $(why "$err")"
		return
	fi
	pfr script -i "$data" -F comm,tid,ip,sym >"$dir/script.out" \
		2>"$dir/script.err"
	rc=$?
	s=$(wc -l <"$dir/script.out")
	if [ $rc -ne 0 ] || [ "$s" -ne "$n" ]; then
		p=$(why "$dir/script.err")
		say record FAIL \
			"perfring script (exit $rc): $s samples of $n${p:+: $p}"
		return
	fi
	p=$(perf_line "$data" "$n")
	prc=$?
	n="perfring record -F 999 of a shell loop: $n samples, $lost lost"
	n="$n, in ${data#"$top"/}"
	if [ $prc -ne 0 ]; then
		say record FAIL "$n" "$p"
	else
		say record ok "$n" "perfring script reads $s back; $p"
	fi
}

start=$(date +%s%N)
if ! mkdir -p "$dir"; then
	echo "tour: cannot make its folder $dir" >&2
	exit 1
fi
echo "perfring tour: $(uname -m), $(nproc) CPUs" \
	"(each step's output in ${dir#"$top"/}/)"
step_ring
step_barriers
step_record
ms=$((($(date +%s%N) - start) / 1000000))
secs=$((ms / 1000)).$((ms % 1000 / 100))
if [ ${#failed[@]} -ne 0 ]; then
	echo "tour: ${#failed[@]} of 3 steps FAILED (${failed[*]}) in $secs s"
	exit 1
fi
echo "tour: 3 steps ok in $secs s"
