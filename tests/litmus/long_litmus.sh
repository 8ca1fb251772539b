#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring litmus, long run (make check-long): every test with millions of
# instances (PFR_LITMUS_ITERATIONS, default 2M); fails if any outcome the
# target's model forbids is observed.  Reports, without asserting, how
# often SB's relaxed outcome showed.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
: "${PERFRING:?PERFRING must name the perfring binary (make check sets it)}"
iters=${PFR_LITMUS_ITERATIONS:-2M}
# shellcheck disable=SC2206
runner=(${RUNNER:-})
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"${runner[@]}" "$PERFRING" litmus --iterations "$iters" >"$out"
rc=$?
grep -E '^(Observation|Time|FAIL)' "$out" | sed 's/^/# /'
grep -E '^(SB relaxed|Summary)' "$out" | sed 's/^/# /'
if [ $rc -eq 0 ] && ! grep -q '^FAIL' "$out"; then
	pass "perfring litmus --iterations $iters: no forbidden outcome"
	tap_done
fi
fail "perfring litmus --iterations $iters exited $rc"
grep -B 20 '^FAIL' "$out" | sed 's/^/#   /'
tap_done
