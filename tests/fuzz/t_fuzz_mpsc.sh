#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the shared MPSC ring's untrusted-input paths
# (tests/fuzz/fuzz_mpsc.c: a raw shared object, and a valid ring patched
# with the input; attach, reader, producer) with libFuzzer, ASan and
# UBSan, for FUZZ_SECONDS (default 20 in make check).  Needs clang and
# libclang-rt-14-dev (tools/deps.sh).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
secs=${FUZZ_SECONDS:-20}
out=$build/tests/fuzz/mpsc
mkdir -p "$out/corpus" "$out/artifacts"
bin=$out/fuzz_mpsc
srcs=("$top/tests/fuzz/fuzz_mpsc.c" "$top/src/mpsc.c" "$top/src/ring.c"
	"$top/src/task.c"
	"$top/src/version.c")
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
# seeds: nothing (the template alone), and one patch of each region
printf '' >"$out/corpus/empty"
printf '\x40\x00\x00\x00\x00\x00\x00\x00\x00\x10' >"$out/corpus/lock"
printf '\x00\x12\x00\x00\x00\x00\x00\x00\x00\x00' >"$out/corpus/data"
if ! "$bin" -runs=0 "$out/corpus" >"$out/seeds.log" 2>&1; then
	tail -n 20 "$out/seeds.log" | sed 's/^/# /'
	fail "the seeds run clean"
	tap_done
fi
pass "the seeds run clean"
echo "# fuzzing for $secs s"
"$bin" -max_total_time="$secs" -max_len=9000 -timeout=10 \
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
