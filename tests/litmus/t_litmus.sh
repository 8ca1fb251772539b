#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring litmus, short run: every listed test runs and reports its
# histogram, witnesses and observation; no outcome the target's model
# forbids is observed (exit status 0, no FAIL line, and every test marked
# Forbidden is observed Never, the code shapes included); --json is
# well-formed JSON Lines; usage errors exit 2.  Whether SB's relaxed
# outcome showed is reported, not asserted: it is up to the hardware and
# the scheduler.
#   PFR_LITMUS_ITERATIONS  instances per test (default 30000; 5000 in a
#                          sanitizer build, which runs about 10x slower)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
: "${PERFRING:?PERFRING must name the perfring binary (make check sets it)}"
iters=${PFR_LITMUS_ITERATIONS:-30000}
[ -n "${SANITIZE:-}" ] && iters=${PFR_LITMUS_ITERATIONS:-5000}
# shellcheck disable=SC2206
runner=(${RUNNER:-})
pr() { "${runner[@]}" "$PERFRING" "$@"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

pr litmus --list >"$tmp/list" 2>&1
rc=$?
awk '{ print $1 }' "$tmp/list" >"$tmp/names"
ntests=$(wc -l <"$tmp/names")
[ $rc -eq 0 ] && [ "$ntests" -ge 60 ]
ok $? "--list exits 0 and lists the tests ($ntests)" "$tmp/list"
for shape in SB MP LB S R 2+2W WRC IRIW PUB REUSE \
	RING-PUB RING-REUSE MPSC-PUB GROUP-HANDOVER; do
	awk -v s="$shape" '$2 == s { f = 1 } END { exit !f }' "$tmp/list" ||
		tap_error "shape $shape missing from --list"
done

start=$(date +%s)
pr litmus --iterations "$iters" >"$tmp/out" 2>"$tmp/err"
rc=$?
secs=$(($(date +%s) - start))
ok $rc "perfring litmus --iterations $iters exits 0: no forbidden outcome (${secs}s)" "$tmp/out"
! grep -q '^FAIL' "$tmp/out"
ok $? "no FAIL line" "$tmp/out"

# Every listed test has its block: Test, Histogram, Positive/Negative,
# Model and an Observation with a verdict word; a test the model forbids
# is observed Never (unless reported as a DEVIATION: a verdict that rests
# on this build's instruction being stronger than the primitive's contract,
# which an emulator may not honour).
awk -v names="$tmp/names" '
BEGIN { while ((getline l < names) > 0) want[l] = 1 }
/^Test / { test[$2] = $3 }
/^Histogram \([0-9]+ states\)$/ { hist++ }
/^Positive: [0-9]+, Negative: [0-9]+$/ { pos++ }
/^Model .*: (allowed|forbidden).* -- / { model++ }
/^DEVIATION / { dev[$2] = 1; print "# " $0 }
/^Observation / {
	if ($3 !~ /^(Never|Sometimes|Always)$/) { print "# bad verdict: " $0; bad++ }
	obs[$2] = $3
}
END {
	for (t in want) {
		if (!(t in obs)) { print "# no Observation for " t; bad++ }
		else if (test[t] == "Forbidden" && obs[t] != "Never" && !(t in dev)) {
			print "# " t " is forbidden but was observed " obs[t]; bad++
		}
	}
	n = length(want)
	if (hist != n || pos != n || model != n) {
		printf "# blocks: %d Histogram, %d Positive, %d Model lines for %d tests\n", hist, pos, model, n
		bad++
	}
	exit bad != 0
}' "$tmp/out"
ok $? "every test reports histogram, witnesses, model verdict and observation"

# The code shapes (the library's own inline functions, every record
# checked) are listed, forbidden, run and observed Never.
codes="RING-PUB+FULL RING-PUB+ACQREL RING-PUB+CTRLDEP RING-REUSE+FULL
RING-REUSE+ACQREL RING-REUSE+CTRLDEP MPSC-PUB GROUP-HANDOVER"
bad=0
for t in $codes; do
	awk -v t="$t" '$1 == t && $4 == "forbidden" { f = 1 } END { exit !f }' \
		"$tmp/list" || { echo "# $t not listed as forbidden"; bad=1; }
	grep -q "^Observation $t Never 0 [1-9]" "$tmp/out" ||
		{ echo "# $t: $(grep "^Observation $t " "$tmp/out")"; bad=1; }
	grep "^Time $t " "$tmp/out" | sed 's/^/# /'
done
ok $bad "code shapes listed, run and observed Never" "$tmp/out"

# Witness marking: a state line is "count*>state" or "count:>state".
grep -Eq '^[0-9]+ *[*:]>[0-9]+:r[0-9]+=' "$tmp/out"
ok $? "histogram lines are in litmus7 form"

# --json on one shape: meta, one object per test, summary.
pr litmus --json --test SB --iterations 2000 >"$tmp/json" 2>"$tmp/jerr"
rc=$?
nsb=$(awk '$2 == "SB"' "$tmp/list" | wc -l)
lines=$(wc -l <"$tmp/json")
ok=1
[ $rc -eq 0 ] && [ "$lines" -eq $((nsb + 2)) ] && ok=0
if [ $ok -eq 0 ] && command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/json" <<'PY' || ok=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["type"] == "meta" and rows[-1]["type"] == "summary"
for r in rows[1:-1]:
    assert r["type"] == "test" and r["shape"] == "SB"
    assert r["observation"] in ("Never", "Sometimes", "Always")
    assert r["positive"] + r["negative"] == 2000
    assert sum(h["count"] for h in r["histogram"]) == 2000
    assert r["positive"] == sum(h["count"] for h in r["histogram"] if h["witness"])
PY
fi
ok $ok "--json --test SB: $lines JSON lines, counts add up" "$tmp/json"

# --json on a code shape: its counts add up and no wrong record.
pr litmus --json --test MPSC-PUB --iterations 2000 >"$tmp/cjson" 2>&1
rc=$?
ok=1
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/cjson")" -eq 3 ] && ok=0
if [ $ok -eq 0 ] && command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/cjson" <<'PY' || ok=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
r = rows[1]
assert r["name"] == "MPSC-PUB" and r["code_shape"] and not r["allowed"]
assert r["observation"] == "Never" and r["positive"] == 0
assert r["negative"] == 20 and r["records"] == 20 * 96
PY
fi
ok $ok "--json --test MPSC-PUB: 20 instances, 1920 records, Never" "$tmp/cjson"

# Usage errors exit 2, --help exits 0.
ue=0
for args in "--iterations 0" "--iterations x" "--bogus" "--test NO-SUCH-TEST" \
	"--size 0" "stray"; do
	# shellcheck disable=SC2086
	pr litmus $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || { echo "# 'litmus $args' exited $rc, want 2"; ue=1; }
done
ok $ue "usage errors exit 2"
pr litmus --help >"$tmp/help" 2>&1 && grep -q -- '--iterations' "$tmp/help"
ok $? "--help exits 0 and documents --iterations"

# Report, do not assert: did SB's relaxed outcome show?
sbline=$(grep '^SB relaxed outcome' "$tmp/out")
echo "# ${sbline:-SB relaxed outcome: no SB test allowed on this target}"
grep '^Observation SB' "$tmp/out" | sed 's/^/# /'
tap_done
