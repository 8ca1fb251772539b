#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the shared MPSC ring's untrusted-input paths
# (tests/fuzz/fuzz_mpsc.c: a raw shared object, and a valid ring patched
# with the input; attach, reader, producer) with libFuzzer, ASan and
# UBSan, for FUZZ_SECONDS (default 20 in make check).  Needs clang and
# libclang-rt-14-dev (tools/deps.sh).
# shellcheck source=tests/fuzz/lib.sh
. "$(dirname "$0")/lib.sh"
secs=${FUZZ_SECONDS:-20}
fuzz_dirs mpsc
srcs=("$top/tests/fuzz/fuzz_mpsc.c" "$top/src/writers/mpsc.c" "$top/src/ring/ring.c"
	"$top/src/ring/task.c"
	"$top/src/abi/version.c" "$top/src/abi/errors.c")

fuzz_build "$bin" "$out/build.log" "${srcs[@]}"
# seeds: nothing (the template alone), and one patch of each region
printf '' >"$out/corpus/empty"
# line 1: prod_pos, starving; line 2: cons_pos, free_pos
printf '\x40\x00\x00\x00\x00\x00\x00\x00\x00\x10' >"$out/corpus/prod"
printf '\x48\x00\x01\x00\x00\x00\x07\x00\x00\x00' >"$out/corpus/starving"
printf '\x88\x00\x08\x00\x00\x00\x00\x00\x00\x00' >"$out/corpus/free"
printf '\x00\x12\x00\x00\x00\x00\x00\x00\x00\x00' >"$out/corpus/data"
fuzz_run "$bin" "$out" "$secs" 9000
tap_done
