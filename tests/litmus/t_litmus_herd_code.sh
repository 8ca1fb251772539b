#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ring's barriers as the code has them, judged by the kernel's memory
# model: tools/litmus-gen.py code-litmus reads the primitive at A, B, C
# and D of each ordering (FULL, ACQREL, CTRLDEP) from src/ring/ring.c and
# include/perfring/ring-proto.h (preprocessed, every barrier macro a
# marker, as check-code reads them) and writes the two shapes of each
# ordering (publication: B with C; slot reuse: A with D) with those
# primitives; herd7 (the Linux-kernel memory model) must find every one
# Never, without a data race.  Unlike check-code's comparison with
# litmus/ring.table, this judges the code's own kind of barrier: smp_rmb()
# at FULL's A or smp_wmb() at its D (orders loads only, stores only) gives
# a file herd7 finds Sometimes.  herd7 as tests/litmus/herd.sh finds it;
# without it the test exits 77 (the verdicts were not checked).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=tests/litmus/herd.sh
. "$(dirname "$0")/herd.sh"
if ! command -v python3 >/dev/null 2>&1; then
	skip_all "python3 not installed (tools/deps.sh installs it)"
fi
herd=$(pfr_find_herd "$top")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CC=${CC:-cc} python3 "$top/tools/litmus-gen.py" code-litmus "$tmp/code" \
	>"$tmp/gen.log" 2>&1
ok $? "code-litmus reads every barrier of the code" "$tmp/gen.log"
n=$(wc -l <"$tmp/code/list")
[ "$n" -eq 6 ]
ok $? "two shapes of three orderings written ($n files)"
[ -n "$herd" ] || skip_all "herd7 not found (tests/litmus/herd.sh)"
pfr_herd_all "$herd" "$tmp/got" "$tmp"/code/*.litmus
while read -r name shape ord x p y q; do
	got=$(awk -v n="$name" '$1 == n { print $2, $3 }' "$tmp/got")
	[ "$got" = "Never none" ]
	ok $? "$ord $shape: $x $p, $y $q: herd7 Never, no data race (herd7: ${got:-nothing})" \
		"$tmp/got"
done <"$tmp/code/list"
tap_done
