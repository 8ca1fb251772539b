#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/instructions.md is generated from the disassembly of the probes on
# every backend; fails if the committed file differs from a fresh one.
#   t_insn_docs.sh --regen    rewrites docs/instructions.md
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
backends="x86_64 c11 aarch64 c11-aarch64 armv7 ppc64le ppc64 s390x riscv64"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for b in $backends; do
	bash "$top/tests/insn/insn-check.sh" --compile "$b" "$out" 2>"$out/err"
	rc=$?
	if [ $rc -eq 77 ]; then
		skip_all "$(cat "$out/err")"
	elif [ $rc -ne 0 ]; then
		echo "Bail out! probes for $b:"
		sed 's/^/# /' "$out/err"
		exit 1
	fi
done
# shellcheck disable=SC2086 # the list of backends
"$top/tools/insn-table.sh" markdown "$out" $backends >"$out/instructions.md" ||
	exit 1
if [ "${1:-}" = --regen ]; then
	cp "$out/instructions.md" "$top/docs/instructions.md"
	echo "wrote $top/docs/instructions.md"
	exit 0
fi
if diff -u "$top/docs/instructions.md" "$out/instructions.md" >"$out/diff"; then
	pass "docs/instructions.md matches the disassembly"
	tap_done
fi
fail "docs/instructions.md differs from the disassembly"
sed 's/^/# /' "$out/diff"
echo "# regenerate it with: tests/insn/t_insn_docs.sh --regen"
tap_done
