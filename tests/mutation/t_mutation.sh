#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A quick subset of the barrier mutants (tools/mutate.py, docs/testing.md):
# one barrier each of the ring, the shared ring and the group weakened in
# a scratch copy of the tree, each of which the Relacy models must catch
# (the whole list runs in long_mutation.sh).  The shared ring's mutant is
# chosen by kind (its first acquire), not by label.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -f /usr/include/relacy/relacy.hpp ]; then
	echo "1..0 # SKIP relacy not installed (Debian relacy-dev; tools/deps.sh)"
	exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
exec python3 "$top/tools/mutate.py" run --catchers model --keep-going \
	--scratch "$scratch" \
	--only include/perfring/ring-proto.h:first:smp_rmb \
	--only include/perfring/mpsc.h:first:acquire \
	--only src/writers/group.c:J \
	--only src/writers/group.c:P
