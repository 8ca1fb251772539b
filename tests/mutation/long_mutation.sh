#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every barrier and logic mutant (tools/mutate.py, tools/mutate_logic.py,
# docs/testing.md): each labelled ordering point of src/ and
# include/perfring/ weakened alone, and each logic mutant applied alone,
# in a scratch copy of the tree (with its own build directories), and the
# Relacy models, the ThreadSanitizer threads test, the code against its
# litmus files and the unit tests and stresses run until one fails (a
# logic mutant's own catchers first: a model's case, the seam tests,
# herd7 on the code's barriers, the hardening test, a unit test).  Fails when
# a mutant survives them all; the equivalent mutants (argued in
# docs/mutation.md) are listed, not run.  The table goes to
# $PFR_BUILD/mutation.md (docs/mutation.md is one such table, committed).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
exec python3 "$top/tools/mutate.py" run --all --keep-going --scratch "$scratch" \
	--results "$build/mutation.md"
