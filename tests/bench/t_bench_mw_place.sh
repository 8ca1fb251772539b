#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `perfring bench --writers` placement, fairness and plot, in tiny runs:
# every result names its placement (own CPU, shared with reader,
# time-shared) as its CPUs and the default list make it (the reader on the
# first CPU, each writer on a CPU of its own while they last, then on all
# in turn), with a fairness in [0, 1]; --cpus LIST puts the reader first,
# then cycles the writers' part; a bad list is a usage error; --plot
# writes a PNG; --reader verifies every record of its three readers.
# Asserts no speed.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
: "${PERFRING:?}" "${PFR_BUILD:?}" "${PFR_TOP:?}"
dir=$PFR_BUILD/test-logs
mkdir -p "$dir"
th=$dir/bench-mw-place.jsonl
if ! ${RUNNER:-} "$PERFRING" bench --writers 1 --help >/dev/null 2>&1; then
	skip_all "perfring bench is not linked into this build"
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip_all "no python3 to read the JSON"
fi
tap_plan 6
${RUNNER:-} "$PERFRING" bench --writers 1,2,3 --only "perfring group,mutex" \
	--quick --reps 1 --time 2 --payloads 8 --json >"$th" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && pass "bench --writers 1,2,3 exits 0" ||
	fail "bench --writers 1,2,3 exits 0 (got $rc)"

# every result names its placement, consistent with its CPUs and the
# default list (reader on the first CPU, writers on the others while they
# last, then on all in turn), and a fairness in [0, 1]
ncpu=$(nproc 2>/dev/null || echo 1)
bad=$(grep '"kind":"writers",.*"supported":true' "$th" | python3 -c '
import json, sys
ncpu = int(sys.argv[1])
n = 0
for line in sys.stdin:
    r = json.loads(line)
    w = r["writers"]
    own, rd, ts = (r["writers_own_cpu"], r["writers_with_reader"],
                   r["writers_time_shared"])
    want = ("time-shared" if ts else
            "shared with reader" if rd else "own CPU")
    f = r["fairness"]
    ok = own + rd + ts == w and r["placement"] == want and 0 <= f <= 1
    if ncpu >= 2 and r["cpus"] != "unpinned":
        cpus = [int(x) for x in r["cpus"].replace(":", ",").split(",")]
        # one writer: a CPU of its own; two on two CPUs: one shares
        # the reader'"'"'s
        if w == 1:
            ok = ok and own == 1 and cpus[1] != cpus[0]
        if w == 2 and ncpu == 2:
            ok = ok and own == 1 and rd == 1
        # three on two: two time-share a CPU, one is with the reader
        if w == 3 and ncpu == 2:
            ok = ok and ts == 2 and rd == 1 and want == "time-shared"
    n += 1
    if not ok:
        print(r["label"], w, r["placement"], r["cpus"], f)
if n < 6:
    print("%d results, fewer than 6" % n)
' "$ncpu" 2>&1)
[ -z "$bad" ] && pass "every result names a placement that fits its CPUs, and a fairness" ||
	fail "placement or fairness wrong: $bad"

# --cpus LIST: the reader first, the writers' part cycled
out=$(${RUNNER:-} "$PERFRING" bench --writers 3 --cpus 0,0 --only mutex \
	--quick --reps 1 --time 2 --payloads 8 --json 2>/dev/null |
	grep '"kind":"writers"')
case $out in
*'"placement":"time-shared"'*'"writers_time_shared":3'*'"cpus":"0:0,0,0"'*)
	pass "--cpus 0,0: three writers time-share the reader's CPU" ;;
*) fail "--cpus 0,0: $out" ;;
esac
${RUNNER:-} "$PERFRING" bench --writers 1 --cpus 0,x >/dev/null 2>&1
[ $? -eq 2 ] && pass "--cpus with a bad list is a usage error" ||
	fail "--cpus 0,x is not a usage error"

# --plot draws throughput against writers (gnuplot)
png=$dir/bench-mw-plot.png
rm -f "$png"
if command -v gnuplot >/dev/null 2>&1; then
	${RUNNER:-} "$PERFRING" bench --writers 1,2 --only mutex --quick \
		--reps 1 --time 2 --payloads 8 --plot "$png" >/dev/null 2>&1
	[ -s "$png" ] && [ "$(head -c 4 "$png" | tail -c 3)" = PNG ] &&
		pass "--plot writes a PNG" || fail "--plot wrote no PNG"
else
	skip "no gnuplot" "--plot writes a PNG"
fi


# --reader: the group's drain and consume and one ring's consume, every
# record checked, ratios printed
out=$(${RUNNER:-} "$PERFRING" bench --writers 1,3 --reader --quick --json \
	2>/dev/null)
rc=$?
n=$(grep -c '"kind":"reader".*"consume_over_ring"' <<<"$out")
[ $rc -eq 0 ] && [ "$n" -eq 2 ] &&
	pass "--reader: two results, every record verified" ||
	fail "--reader: exit $rc, $n results"
tap_done
