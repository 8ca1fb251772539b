# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared parts of the libFuzzer tests t_fuzz_ring.sh and t_fuzz_mpsc.sh
# (sourced, not run): TAP, top, build, the clang flags (flags), and
#   fuzz_dirs NAME              out=$build/tests/fuzz/NAME (with its corpus
#                               and artifacts directories), and the
#                               fuzzer's path there, bin=$out/fuzz_NAME;
#   fuzz_build BIN LOG SRC...   clang builds the fuzzer BIN from SRC...
#                               with libFuzzer, ASan and UBSan (its output
#                               in LOG): "ok - fuzzer builds", else not ok
#                               and the end of the test;
#   fuzz_run BIN OUT SECS MAX   the corpus OUT/corpus alone, then fuzzing
#                               for SECS s with inputs up to MAX bytes
#                               (logs in OUT, findings in OUT/artifacts):
#                               a result each; a failure ends the test.
set -u
# shellcheck source=tests/lib/tap.sh
. "${BASH_SOURCE[0]%/*}/../lib/tap.sh"
top=${PFR_TOP:-$(cd "${BASH_SOURCE[0]%/*}/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
flags=(-g -O1 -std=gnu11 -D_GNU_SOURCE -I"$top/include" -I"$top/src"
	-fno-sanitize-recover=undefined)

fuzz_dirs() {
	out=$build/tests/fuzz/$1
	mkdir -p "$out/corpus" "$out/artifacts"
	bin=$out/fuzz_$1
}

fuzz_build() {
	local bin=$1 log=$2
	shift 2
	if ! command -v clang >/dev/null; then
		fail "clang not found (tools/deps.sh installs it)"
		tap_done
	fi
	echo "# building $bin with clang -fsanitize=fuzzer,address,undefined"
	if ! clang "${flags[@]}" -fsanitize=fuzzer,address,undefined \
		-o "$bin" "$@" -lpthread -lrt >"$log" 2>&1; then
		sed 's/^/# /' "$log" | tail -n 20
		fail "fuzzer builds (needs libclang-rt-14-dev: tools/deps.sh)"
		tap_done
	fi
	pass "fuzzer builds"
}

fuzz_run() {
	local bin=$1 out=$2 secs=$3 max=$4 rc
	if ! "$bin" -runs=0 "$out/corpus" >"$out/seeds.log" 2>&1; then
		tail -n 20 "$out/seeds.log" | sed 's/^/# /'
		fail "the seeds run clean"
		tap_done
	fi
	pass "the seeds run clean"
	echo "# fuzzing for $secs s"
	"$bin" -max_total_time="$secs" -max_len="$max" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/artifacts/" "$out/corpus" \
		>"$out/fuzz.log" 2>&1
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
}
