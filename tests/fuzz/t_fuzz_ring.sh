#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the ring's untrusted-input paths (tests/fuzz/fuzz_ring.c: attach
# from a memfd with hostile sizes and limits, reader, snapshot, writer on a
# hostile ring, a raw reader, and snapshots under a peer that changes
# oldest and head between loads) with libFuzzer, ASan and UBSan, for
# FUZZ_SECONDS (default 25 in make check; long_fuzz_ring.sh runs longer).
# The seed corpus is real rings written by the same source built with
# -DFUZZ_RING_SEEDS.  Needs clang and libclang-rt-14-dev (tools/deps.sh).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
secs=${FUZZ_SECONDS:-25}
out=$build/tests/fuzz/ring
mkdir -p "$out/corpus" "$out/artifacts"
bin=$out/fuzz_ring
# fuzz_ring.c compiles src/ring.c itself (with a load hook: its mode 3)
srcs=("$top/tests/fuzz/fuzz_ring.c" "$top/src/version.c")
flags=(-g -O1 -std=gnu11 -D_GNU_SOURCE -I"$top/include" -I"$top/src"
	-fno-sanitize-recover=undefined)

if ! command -v clang >/dev/null; then
	fail "clang not found (tools/deps.sh installs it)"
	tap_done
fi
echo "# building $bin with clang -fsanitize=fuzzer,address,undefined"
if ! clang "${flags[@]}" -fsanitize=fuzzer,address,undefined -o "$bin" \
	"${srcs[@]}" -lpthread -lrt >"$out/build.log" 2>&1; then
	sed 's/^/# /' "$out/build.log" | tail -n 20
	fail "fuzzer builds (needs libclang-rt-14-dev: tools/deps.sh)"
	tap_done
fi
pass "fuzzer builds"
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
if ! "$bin" -runs=0 "$out/corpus" >"$out/seeds.log" 2>&1; then
	tail -n 20 "$out/seeds.log" | sed 's/^/# /'
	fail "the seeds run clean"
	tap_done
fi
pass "the seeds run clean"
echo "# fuzzing for $secs s"
"$bin" -max_total_time="$secs" -max_len=12288 -timeout=10 \
	-rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$out/artifacts/" "$out/corpus" >"$out/fuzz.log" 2>&1
rc=$?
grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss)' \
	"$out/fuzz.log" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	pass "no crash, hang, leak, out-of-bounds read or undefined behaviour in $secs s"
else
	grep -m1 -A25 -E 'ERROR|runtime error|timeout' "$out/fuzz.log" |
		sed 's/^/# /'
	fail "the fuzzer found a failure (exit $rc): see $out/fuzz.log and $out/artifacts/"
	tap_done
fi
tap_done
