#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `perfring bench --writers 1,2` in tiny runs, threads then processes:
# the JSON Lines parse, every contestant of the run has a result for every
# writer count and payload, every contestant whose peer is installed (and
# perfring's group and MPSC ring when their headers are in the tree) ran,
# every result verified every message and no writer sent nothing, and bad
# options are usage errors.  Asserts no speed.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
: "${PERFRING:?}" "${PFR_BUILD:?}" "${PFR_TOP:?}"
dir=$PFR_BUILD/test-logs
mkdir -p "$dir"
th=$dir/bench-mw-threads.jsonl
pr=$dir/bench-mw-processes.jsonl
if ! ${RUNNER:-} "$PERFRING" bench --writers 1 --help >/dev/null 2>&1; then
	skip_all "perfring bench is not linked into this build"
fi
tap_plan 11
# the reader alone on CPU 1, the writers time-sharing CPU 0: the reader
# never yields, so the runs stay short on a loaded machine (the default
# placement is t_bench_mw_place.sh's)
tiny="--quick --reps 1 --time 2 --json --cpus 1,0"

${RUNNER:-} "$PERFRING" bench --writers 1,2 $tiny --payloads 8,mix >"$th" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && pass "bench --writers 1,2 (threads) exits 0" ||
	fail "bench --writers 1,2 (threads) exits 0 (got $rc)"

# every line is JSON (python3's parser when there is one)
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json, sys
for f in sys.argv[1:]:
    for line in open(f):
        json.loads(line)' "$th" 2>/dev/null; then
		pass "every line of the output parses as JSON"
	else
		fail "every line of the output parses as JSON"
	fi
else
	skip "no python3" "every line of the output parses as JSON"
fi

first=$(head -n1 "$th")
case $first in
*'"kind":"meta"'*'"bench":"writers"'*'"stall":'*'"contestants":'*)
	pass "first line is the meta object" ;;
*) fail "first line is the meta object: $first" ;;
esac

names() { # file: the meta's contestants, one per line
	sed -n '1s/.*"contestants":\[\([^]]*\)\].*/\1/p' "$1" | tr ',' '\n' |
		tr -d '"'
}

# every contestant: 2 writer counts x 2 payloads, each supported or not
missing=
while IFS= read -r c; do
	[ -n "$c" ] || continue
	k=$(grep -c "\"kind\":\"writers\",.*\"label\":\"$c\"" "$th")
	[ "$k" -eq 4 ] || missing="$missing [$c: $k]"
done < <(names "$th")
[ -n "$(names "$th")" ] && [ -z "$missing" ] &&
	pass "every contestant has a result per writer count and payload" ||
	fail "every contestant has 4 results (short:${missing:- no contestants})"

# Installed peers must be linked in a native, unsanitized build; so must
# perfring's designs whose headers are in the tree.
want=
target=$(${CC:-cc} -dumpmachine 2>/dev/null)
host=$(cc -dumpmachine 2>/dev/null)
if [ -z "${SANITIZE:-}" ] && [ -z "${RUNNER:-}" ] && [ "$target" = "$host" ] &&
	command -v dpkg-query >/dev/null 2>&1; then
	for p in "libdpdk-dev:rte_ring mp" "libdpdk-dev:rte_ring mp burst" \
		"libck-dev:ck_ring mpsc" "liburcu-dev:wfcqueue" \
		"libconcurrentqueue-dev:concurrentqueue token" \
		"libconcurrentqueue-dev:concurrentqueue implicit" \
		"libatomic-queue-dev:atomic_queue mpmc" \
		"libboost-dev:boost_queue"; do
		dpkg-query -W -f='${Status}' "${p%%:*}" 2>/dev/null |
			grep -q 'ok installed' && want="$want|${p#*:}"
	done
fi
[ -f "$PFR_TOP/include/perfring/group.h" ] && want="$want|perfring group"
[ -f "$PFR_TOP/include/perfring/mpsc.h" ] && want="$want|perfring mpsc"
want="$want|mutex"
missing=
IFS='|' read -r -a wl <<<"${want#|}"
for c in "${wl[@]}"; do
	names "$th" | grep -qxF "$c" || missing="$missing [$c]"
done
[ -z "$missing" ] && pass "every installed contestant ran (${want#|})" ||
	fail "contestants missing:$missing"

verified() { # file, what
	local total bad
	total=$(grep -c '"kind":"writers",.*"supported":true' "$1")
	bad=$(grep '"kind":"writers",.*"supported":true' "$1" |
		grep -v '"verified":true' | grep -c .)
	[ "$total" -gt 0 ] && [ "$bad" -eq 0 ] &&
		pass "$2: all $total results verified every message" ||
		fail "$2: $bad of $total results failed or did not verify"
}
verified "$th" threads

# no writer starved: each result's slowest writer sent something
starved=$(grep '"kind":"writers",.*"supported":true' "$th" |
	grep -c -E '"writer_mps_min":0(\.0*)?,|"messages_verified":0,')
[ "$starved" -eq 0 ] && pass "no writer sent nothing" ||
	fail "$starved results with a writer that sent nothing"

# processes: one payload (the threads' run covers both; this keeps the
# test short)
${RUNNER:-} "$PERFRING" bench --writers 1,2 --processes $tiny --payloads 8 \
	>"$pr" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && pass "bench --writers 1,2 --processes exits 0" ||
	fail "bench --writers 1,2 --processes exits 0 (got $rc)"
verified "$pr" processes
# the shared-memory contestants ran as processes, the heap-bound did not
bad=
for c in mutex "perfring group" "perfring mpsc" "rte_ring mp" \
	"ck_ring mpsc" wfcqueue; do
	names "$th" | grep -qxF "$c" || continue
	names "$pr" | grep -qxF "$c" || bad="$bad [$c missing]"
done
names "$pr" | grep -q -e concurrentqueue -e atomic_queue -e boost_queue &&
	bad="$bad [a heap-bound queue ran between processes]"
grep '"kind":"writers"' "$pr" | grep -q '"processes":false' &&
	bad="$bad [a result not marked processes]"
[ -n "$(names "$pr")" ] && [ -z "$bad" ] &&
	pass "processes: the shared-memory contestants ran" ||
	fail "processes:${bad:- no contestants}"

${RUNNER:-} "$PERFRING" bench --writers 0 >/dev/null 2>&1
rc1=$?
${RUNNER:-} "$PERFRING" bench --writers 1 --payloads 256 >/dev/null 2>&1
rc2=$?
[ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] &&
	pass "--writers 0 and --payloads 256 with --writers are usage errors" ||
	fail "usage errors exit 2 (got $rc1, $rc2)"
tap_done
