#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A quick subset of the mutants (tools/mutate.py, docs/testing.md), one
# of each class, in a scratch copy of the tree, each of which must be
# caught:
#   ordering  one barrier each of the ring, the shared ring and the group
#             weakened (the shared ring's chosen by kind, its first
#             acquire, not by label), the Relacy models;
#   kind      FULL's D smp_wmb() (herd7 on the code's own barriers);
#   boundary  the BLOCK writer's mark reached at tail == mark (the ring
#             model's mark-* cases);
#   swap      the shared ring's inherited drops read before the claim's
#             CAS (the model's reuse cases);
#   recheck   pfr_reader_end() skipping its fenced check at head;
#   crash     the shared ring's LOST payload stored before its BUSY header
#             (the model's dead-lost-stores).
# The logic mutants are found by their function and class, not by line.
# The whole list runs in long_mutation.sh.
# Exits 77 only when Relacy is not installed (tools/deps.sh installs it).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ ! -f /usr/include/relacy/relacy.hpp ]; then
	echo "1..0 # SKIP relacy not installed (Debian relacy-dev; tools/deps.sh)"
	exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
exec python3 "$top/tools/mutate.py" run --all --catchers model --keep-going \
	--scratch "$scratch" \
	--only include/perfring/ring-proto.h:first:smp_rmb \
	--only include/perfring/mpsc.h:first:acquire \
	--only src/writers/group.c:J \
	--only src/writers/group.c:P \
	--only include/perfring/ring-proto.h:pfr__end:kind \
	--only src/ring/ring.c:pfr__reader_wake_writer:boundary \
	--only src/writers/mpsc.c:pfr__mpsc_claim:swap \
	--only include/perfring/ring-inline.h:pfr_reader_end:recheck#1 \
	--only src/writers/mpsc.c:pfr__mpsc_reserve_slow:crash
