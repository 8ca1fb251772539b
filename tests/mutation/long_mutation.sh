#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every barrier mutant (tools/mutate.py, docs/testing.md): each labelled
# ordering point of src/ and include/perfring/ weakened alone in a scratch
# copy of the tree (with its own build directories), and the Relacy
# models, the ThreadSanitizer threads test, the code against its litmus
# files and the unit tests and stresses run until one fails.  Fails when
# a mutant survives them all; the equivalent mutants (argued in
# docs/mutation.md) are listed, not run.  The table goes to
# $PFR_BUILD/mutation.md (docs/mutation.md is one such table, committed).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
exec python3 "$top/tools/mutate.py" run --keep-going --scratch "$scratch" \
	--results "$build/mutation.md"
