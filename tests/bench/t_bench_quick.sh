#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `perfring bench --quick --json` once: every contestant this build links
# ran (a throughput result for each one named in the meta object), every
# result verified every message, the latency results verified their echoes,
# and the output is what the issue asks for.  Asserts no speed.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
: "${PERFRING:?}" "${PFR_BUILD:?}"
out=$PFR_BUILD/test-logs/bench-quick.jsonl
mkdir -p "$(dirname "$out")"
if ! ${RUNNER:-} "$PERFRING" bench --help >/dev/null 2>&1; then
	skip_all "perfring bench is not linked into this build"
fi
tap_plan 8

${RUNNER:-} "$PERFRING" bench --quick --json >"$out"
rc=$?
[ $rc -eq 0 ] && pass "bench --quick --json exits 0" ||
	fail "bench --quick --json exits 0 (got $rc)"

first=$(head -n1 "$out")
case $first in
*'"kind":"meta"'*'"cpu":'*'"kernel":'*'"compiler":'*'"flags":'*'"backend":'*)
	pass "first line is the meta object" ;;
*) fail "first line is the meta object: $first" ;;
esac

# every contestant named in meta has a throughput result
names=$(sed -n '1s/.*"contestants":\[\([^]]*\)\].*/\1/p' "$out" | tr -d '"' |
	tr ',' ' ')
missing=
for c in $names; do
	grep -q "\"kind\":\"throughput\",.*\"contestant\":\"$c\"" "$out" ||
		missing="$missing $c"
done
[ -n "$names" ] && [ -z "$missing" ] &&
	pass "every contestant ran:$(echo " $names")" ||
	fail "every contestant ran (missing:${missing:- none named})"

# A native, unsanitized build on a machine with the peers' Debian packages
# (CI installs them all) must have linked every peer: a build rule that
# silently drops one must not pass.
want=
target=$(${CC:-cc} -dumpmachine 2>/dev/null)
host=$(cc -dumpmachine 2>/dev/null)
if [ -z "${SANITIZE:-}" ] && [ -z "${RUNNER:-}" ] && [ "$target" = "$host" ] &&
	command -v dpkg-query >/dev/null 2>&1; then
	for p in libdpdk-dev:rte_ring libck-dev:ck_ring \
		libboost-dev:boost_spsc libatomic-queue-dev:atomic_queue; do
		dpkg-query -W -f='${Status}' "${p%%:*}" 2>/dev/null |
			grep -q 'ok installed' && want="$want ${p#*:}"
	done
fi
missing=
for c in $want; do
	case " $names " in *" $c "*) ;; *) missing="$missing $c" ;; esac
done
if [ -z "$missing" ]; then
	pass "every installed peer is linked:${want:- (none, or not native)}"
else
	fail "installed peers not linked:$missing"
fi

# every throughput and latency result verified
bad=$(grep -E '"kind":"(throughput|latency)"' "$out" |
	grep -c -v '"verified":true')
total=$(grep -c -E '"kind":"(throughput|latency)"' "$out")
[ "$total" -gt 0 ] && [ "$bad" -eq 0 ] &&
	pass "all $total results verified every message" ||
	{ fail "$bad of $total results not verified"; \
	  grep -E '"kind":"(throughput|latency)"' "$out" |
		grep -v '"verified":true' | head -5 | sed 's/^/# /'; }

# the fields the issue names
f_ok=1
for k in contestant payload_bytes batched transport msgs_per_s_median \
	msgs_per_s_min msgs_per_s_max gbytes_per_s_median rtt_ns verified; do
	grep '"kind":"throughput"' "$out" | grep -q -v "\"$k\":" && f_ok=0
done
grep '"kind":"throughput",.*"contestant":"perfring"' "$out" |
	grep -q -v '"ordering":' && f_ok=0
grep '"kind":"latency"' "$out" | grep -q -v '"latency_ns_p99":' && f_ok=0
[ $f_ok = 1 ] && pass "results carry the required fields" ||
	fail "results carry the required fields"

# results come from one vCPU placement, named in meta
refs=$(head -n1 "$out" | grep -o '"reference":true' | wc -l)
[ "$refs" -eq 1 ] && head -n1 "$out" | grep -q '"placements":\[{"rtt_ns_lo":' &&
	pass "meta names the placements seen and the one reported" ||
	fail "meta names the placements and exactly one reference ($refs)"

# usage errors exit 2
${RUNNER:-} "$PERFRING" bench --no-such-option >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && pass "a usage error exits 2" ||
	fail "a usage error exits 2 (got $rc)"
tap_done
