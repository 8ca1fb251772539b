#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The acquire and release macros refuse at compile time what the target
# cannot load or store atomically, with their own message, and accept what
# it can.  For the native compiler (as C11, as C11 with PFR_FORCE_C11, as
# C++11, and clang when installed) and every cross compiler installed
# (aarch64, armhf, ppc64le, ppc64, s390x, riscv64; tools/deps.sh installs
# them), plus armhf's compiler for an armv7-M core (no LDREXD: no 8-byte
# atomics):
#   accepted   1, 2, 4 and 8 bytes (integers, an enum, a pointer), 8 only
#              where the compiler has lock-free 8-byte atomics (not v7-M),
#              through pfr_smp_load_acquire/pfr_smp_store_release and the
#              <perfring/linux-compat.h> spellings; the file must compile
#              to an object (the assembler sees the instructions);
#   refused    unsigned __int128 (where the compiler has it), a 16-byte and
#              a 3-byte structure, and 8 bytes on v7-M, through each of the
#              four spellings: the compilation must fail AND print the
#              macros' static-assertion message naming the macro (a failure
#              for any other reason does not count as a refusal).
# A compiler that is not installed is reported as a TAP skip for its target.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
msg='size not loaded and stored atomically on this target'


# target name | compiler | language | extra flags
targets=(
	"native|$cc|c|"
	"native-c11|$cc|c|-DPFR_FORCE_C11"
	"native-c++|${CXX:-g++}|c++|"
)
command -v clang >/dev/null 2>&1 && targets+=("clang|clang|c|")
targets+=(
	"aarch64|aarch64-linux-gnu-gcc|c|"
	"armv7|arm-linux-gnueabihf-gcc|c|"
	"armv7-M|arm-linux-gnueabihf-gcc|c|-march=armv7e-m+fp -mthumb"
	"ppc64le|powerpc64le-linux-gnu-gcc|c|"
	"ppc64|powerpc64-linux-gnu-gcc|c|"
	"s390x|s390x-linux-gnu-gcc|c|"
	"riscv64|riscv64-linux-gnu-gcc|c|"
)

# The test program: the type T and the spelling S (load or store).
prog() { # prog TYPE-DECL SPELLING
	cat <<EOF
#include <stdint.h>
#include <perfring/barrier.h>
#include <perfring/linux-compat.h>
struct s3 { unsigned char b[3]; };
struct s16 { uint64_t a, b; };
enum e { E0, E1 };
$1
EOF
	case $2 in
	*load_acquire) echo "void f(void); void f(void) { T v = $2(&obj); sink = v; }" ;;
	*store_release) echo "void f(void); void f(void) { $2(&obj, sink); }" ;;
	esac
}

matrix=()
for t in "${targets[@]}"; do
	IFS='|' read -r name comp lang extra <<<"$t"
	if ! command -v "$comp" >/dev/null 2>&1; then
		skip "$comp not installed" "$name"
		matrix+=("$name: not installed")
		continue
	fi
	std=-std=c11
	[ "$lang" = c++ ] && std=-std=c++11
	# shellcheck disable=SC2206
	flags=(-x "$lang" $std -O2 -Wall -Wextra -Werror -I"$top/include" $extra)
	has64=$(echo | "$comp" "${flags[@]}" -dM -E - 2>/dev/null |
		grep -c '__GCC_ATOMIC_LLONG_LOCK_FREE 2')
	has128=$(echo | "$comp" "${flags[@]}" -dM -E - 2>/dev/null |
		grep -c '__SIZEOF_INT128__')
	ok_types=(uint8_t uint16_t uint32_t int32_t "enum e" "void *")
	bad_types=("struct s16" "struct s3")
	if [ "$has64" -ge 1 ]; then
		ok_types+=(uint64_t int64_t)
	else
		bad_types+=(uint64_t)
	fi
	[ "$has128" -ge 1 ] && bad_types+=("unsigned __int128")

	# Accepted: every type and spelling in one file, compiled to an object.
	{
		prog "" pfr_smp_load_acquire | sed '/^void f/d'
		i=0
		for ty in "${ok_types[@]}"; do
			i=$((i + 1))
			cat <<EOF
typedef $ty t$i;
t$i o$i, s$i;
void f$i(void); void f$i(void)
{
	t$i v = pfr_smp_load_acquire(&o$i);
	pfr_smp_store_release(&o$i, v);
	s$i = smp_load_acquire(&s$i);
	smp_store_release(&s$i, v);
}
EOF
		done
	} >"$tmp/ok.src"
	"$comp" "${flags[@]}" -c "$tmp/ok.src" -o "$tmp/ok.o" >"$tmp/ok.log" 2>&1
	ok $? "$name: accepted: ${ok_types[*]} (all four spellings)" "$tmp/ok.log"

	# Refused: per type, one file with each of the four spellings in a
	# function of its own; each must fail with the size message naming its
	# macro (the kernel spellings expand to the pfr_ macros), two loads and
	# two stores, and the compilation must fail.
	refused=0 total=0
	for ty in "${bad_types[@]}"; do
		total=$((total + 4))
		{
			prog "typedef $ty T; T obj, sink;" pfr_smp_load_acquire |
				sed '/^void f/d'
			for sp in pfr_smp_load_acquire smp_load_acquire; do
				echo "void f_$sp(void); void f_$sp(void) { T v = $sp(&obj); sink = v; }"
			done
			for sp in pfr_smp_store_release smp_store_release; do
				echo "void f_$sp(void); void f_$sp(void) { $sp(&obj, sink); }"
			done
		} >"$tmp/bad.src"
		"$comp" "${flags[@]}" -c "$tmp/bad.src" -o "$tmp/bad.o" \
			>"$tmp/bad.log" 2>&1
		rc=$?
		nl=$(grep -c "error: .*pfr_smp_load_acquire(): $msg" "$tmp/bad.log")
		ns=$(grep -c "error: .*pfr_smp_store_release(): $msg" "$tmp/bad.log")
		if [ $rc -ne 0 ] && [ "$nl" -eq 2 ] && [ "$ns" -eq 2 ]; then
			refused=$((refused + 4))
			pass "$name: $ty refused by all four spellings"
		else
			fail "$name: $ty: exit $rc, $nl of 2 acquire and $ns of 2 release refusals" \
				"$tmp/bad.log"
		fi
	done
	matrix+=("$name: accepts ${ok_types[*]}; refuses ${bad_types[*]} ($refused/$total)")
done
for m in "${matrix[@]}"; do echo "# $m"; done
tap_done
