#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the ring's untrusted-input paths (tests/fuzz/fuzz_ring.c: attach
# from a memfd with hostile sizes and limits, reader, snapshot, writer on a
# hostile ring, a raw reader, and snapshots under a peer that changes
# oldest and head between loads) with libFuzzer, ASan and UBSan, for
# FUZZ_SECONDS (default 25 in make check; long_fuzz_ring.sh runs longer).
# The seed corpus is real rings written by the same source built with
# -DFUZZ_RING_SEEDS.  Needs clang and libclang-rt-14-dev (tools/deps.sh).
# shellcheck source=tests/fuzz/lib.sh
. "$(dirname "$0")/lib.sh"
secs=${FUZZ_SECONDS:-25}
fuzz_dirs ring
# fuzz_ring.c compiles src/ring/ring.c itself (with a load hook: its mode 3)
srcs=("$top/tests/fuzz/fuzz_ring.c" "$top/src/abi/version.c" "$top/src/abi/errors.c")

fuzz_build "$bin" "$out/build.log" "${srcs[@]}"
if ! clang "${flags[@]}" -fsanitize=address,undefined -DFUZZ_RING_SEEDS \
	-o "$out/seeds" "${srcs[@]}" -lpthread -lrt >>"$out/build.log" 2>&1 ||
	! "$out/seeds" "$out/corpus" >>"$out/build.log" 2>&1; then
	sed 's/^/# /' "$out/build.log" | tail -n 20
	fail "seed corpus generated (and ASan-clean)"
	tap_done
fi
pass "seeds written; corpus now $(ls "$out/corpus" | wc -l) files"
# The seeds alone first: each is a valid ring, so this also checks the
# harness reaches the reader, the snapshot and the writer.
fuzz_run "$bin" "$out" "$secs" 12288
tap_done
