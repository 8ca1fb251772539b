#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes the perf record decoder, the ring reader in front of it, the
# perf.data reader, perfring script's record printer and its process table
# (fork, exec, exit, shared map lists), and perfring script itself
# (tests/fuzz/fuzz_perf_decode.c) with libFuzzer, with
# AddressSanitizer and UBSan, for FUZZ_SECONDS (default 30) seconds.
# Seeds: hand-made records of every decoded type and perfring's own
# perf.data output.  Needs clang and libclang-rt-14-dev (tools/deps.sh).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
secs=${FUZZ_SECONDS:-30}
out=$build/tests/fuzz
mkdir -p "$out/corpus"
# Inputs that once crashed a reader run first (tests/fuzz/regress/perf).
cp "$top"/tests/fuzz/regress/perf/* "$out/corpus/"
bin=$out/fuzz_perf_decode
echo "# building $bin with clang -fsanitize=fuzzer,address,undefined"
if ! clang -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -std=gnu11 -D_GNU_SOURCE \
	-I"$top/include" -I"$top/src" -I"$top/cli" -o "$bin" \
	"$top/tests/fuzz/fuzz_perf_decode.c" "$top"/cli/script/*.c \
	"$top/cli/perfopt.c" "$top/util/util.c" "$top"/src/*/*.c \
	$(pkg-config --cflags --libs libtraceevent \
	libelf libdw) -liberty -ldl -lpthread -lrt 2>"$out/build.log"; then
	cat "$out/build.log"
	fail "fuzzer builds (needs clang and libclang-rt-14-dev: tools/deps.sh)"
	tap_done
fi
pass "fuzzer builds"
# Seeds: mode byte (offset 12) 2 = one record, 0 = a file, 1 = a ring,
# 3 = the printer, 4 = the process table (8-byte operations), 5 = perfring
# script on a file (byte 13: 1 --json, 2 --file-order, 4 --samples).
seed() { # name, hex of the 16-byte parameter block + record
	printf '%b' "$2" >"$out/corpus/$1"
}
st='\xc7\x01\x01\x00\x01\x00\x00\x00' # IP|TID|TIME|CPU|PERIOD|CALLCHAIN|RAW|IDENT
seed sample "$st"'\x00\x01\x00\x00\x02\x00\x00\x00\x09\x00\x00\x00\x00\x00\x38\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x10\x40\x00\x00\x00\x00\x00\x64\x00\x00\x00\x65\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
seed comm "$st"'\x00\x01\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x00\x00\x30\x00\x01\x00\x00\x00\x01\x00\x00\x00spin\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00'
seed print "$st"'\x00\x01\x00\x00\x03\x01\x00\x00\x03\x00\x00\x00\x00\x00\x30\x00\x01\x00\x00\x00\x01\x00\x00\x00spin\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00'
seed ring "$st"'\x00\x01\x3e\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x18\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00'
# process table: mmap2 in 1, fork 2 from 1, comm exec in 2, mmap in 2,
# sample in 1 and 2, exit 1, fork 3 from 2, sample in 3
seed procs "$st"'\x00\x00\x00\x00\x04\x00\x00\x00\x00\x01\x00\x00\x10\x00\x03\x61\x01\x02\x01\x00\x00\x00\x00\x00\x02\x02\x00\x01\x61\x62\x63\x00\x00\x02\x00\x00\x20\x00\x01\x62\x04\x01\x00\x00\x10\x00\x10\x00\x04\x02\x00\x00\x20\x00\x10\x00\x03\x01\x00\x00\x00\x00\x00\x00\x01\x03\x02\x00\x00\x00\x00\x00\x04\x03\x00\x00\x20\x00\x08\x00'
if [ -x "${PERFRING:-}" ]; then
	# A real perfring perf.data as a seed (mode 0: 16 parameter bytes).
	if "$PERFRING" record -q -F 2000 -o "$out/seed.data" -- true 2>/dev/null; then
		{ printf '%b' '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'; cat "$out/seed.data"; } >"$out/corpus/perfdata"
		{ printf '%b' '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x01\x00\x00'; cat "$out/seed.data"; } >"$out/corpus/script"
	fi
	# The same in perf's pipe format (record -o -).
	if "$PERFRING" record -q -F 2000 -o - -- true >"$out/pipe.data" 2>/dev/null; then
		{ printf '%b' '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'; cat "$out/pipe.data"; } >"$out/corpus/pipedata"
		{ printf '%b' '\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05\x01\x00\x00'; cat "$out/pipe.data"; } >"$out/corpus/pipescript"
	fi
fi
echo "# fuzzing for $secs s"
"$bin" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 "$out/corpus" >"$out/fuzz.log" 2>&1
rc=$?
tail -n 15 "$out/fuzz.log" | sed 's/^/# /'
if [ $rc -eq 0 ]; then
	pass "no crash, leak or undefined behaviour in $secs s of fuzzing"
else
	fail "fuzzer found a failure (exit $rc): see $out/fuzz.log and crash-* files"
	tap_done
fi
tap_done
