#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instruction test for one barrier backend (called by t_insn_<backend>.sh):
# compiles tests/insn/probes.c at -O2 with that target's gcc, disassembles
# it with that target's objdump (tools/insn-table.sh extract) and checks
# every probe against tests/insn/expected.txt: exactly the expected
# ordering instructions, nothing missing, nothing stronger or extra.  Also
# checks that the dispatch header picked the backend (PFR_BARRIER_BACKEND).
# One TAP line per probe.  Exit 77 only when the target's gcc is missing.
#
#   insn-check.sh BACKEND [OUTDIR]    writes OUTDIR/BACKEND.{o,tsv}
#   insn-check.sh --compile BACKEND OUTDIR   compile and extract only
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$top/tools/insn-table.sh

# backend -> gcc, the rule set for its disassembly, extra flags
backend_info() {
	case $1 in
	x86_64) echo "x86_64-linux-gnu-gcc x86_64" ;;
	c11) echo "x86_64-linux-gnu-gcc x86_64 -DPFR_FORCE_C11" ;;
	# the compiler's own C11 mapping on a weak target, for comparison
	c11-aarch64) echo "aarch64-linux-gnu-gcc aarch64 -DPFR_FORCE_C11" ;;
	aarch64) echo "aarch64-linux-gnu-gcc aarch64" ;;
	armv7) echo "arm-linux-gnueabihf-gcc arm" ;;
	ppc64le) echo "powerpc64le-linux-gnu-gcc ppc64" ;;
	ppc64) echo "powerpc64-linux-gnu-gcc ppc64" ;;
	s390x) echo "s390x-linux-gnu-gcc s390x" ;;
	riscv64) echo "riscv64-linux-gnu-gcc riscv64" ;;
	*) return 1 ;;
	esac
}

# compile BACKEND OUTDIR: 0 ok, 77 no compiler, else error (on stderr)
compile() {
	local b=$1 out=$2 info gcc rules extra objdump triple got
	info=$(backend_info "$b") || { echo "unknown backend $b" >&2; return 2; }
	read -r gcc rules extra <<<"$info"
	if ! command -v "$gcc" >/dev/null 2>&1; then
		if [ "$b" = x86_64 ] || [ "$b" = c11 ]; then
			# a native x86-64 gcc is the same compiler
			[ "$(uname -m)" = x86_64 ] && command -v gcc >/dev/null &&
				gcc=gcc
		fi
		command -v "$gcc" >/dev/null 2>&1 || {
			echo "no $gcc (tools/deps.sh installs it)" >&2
			return 77
		}
	fi
	mkdir -p "$out"
	# shellcheck disable=SC2086 # extra is a word list
	"$gcc" -O2 -std=gnu11 -Wall -Wextra -Werror -I"$top/include" $extra \
		-c "$top/tests/insn/probes.c" -o "$out/$b.o" || return 1
	# shellcheck disable=SC2086
	got=$(printf '#include <perfring/barrier.h>\nPFR_BARRIER_BACKEND\n' |
		"$gcc" -I"$top/include" $extra -E -P -x c - | tail -n 1)
	echo "$got" >"$out/$b.backend"
	triple=$("$gcc" -dumpmachine)
	objdump=$("$tool" objdump "$triple")
	"$tool" extract "$rules" "$objdump" "$out/$b.o" >"$out/$b.tsv" ||
		return 1
}

if [ "${1:-}" = --compile ]; then
	compile "$2" "$3"
	exit $?
fi

b=${1:?usage: insn-check.sh BACKEND [OUTDIR]}
out=${2:-${PFR_BUILD:-$top/build}/insn}
mkdir -p "$out" || exit 1
compile "$b" "$out" 2>"$out/$b.err" || {
	rc=$?
	if [ $rc -eq 77 ]; then
		skip_all "$(cat "$out/$b.err")"
	fi
	echo "Bail out! compiling the probes for $b failed:"
	sed 's/^/# /' "$out/$b.err"
	exit 1
}

awk -v b="$b" -v backend="$(cat "$out/$b.backend")" '
	# expected.txt: backend probe instructions...
	FNR == NR {
		if ($0 ~ /^[ \t]*(#|$)/ || $1 != b)
			next
		p = $2
		$1 = ""; $2 = ""
		sub(/^[ \t]+/, "")
		if (p in want) {
			printf "not ok %d - expected.txt lists %s %s twice\n", ++t, b, p
			bad++
		}
		want[p] = $0
		used[p] = 0
		nwant++
		next
	}
	{
		split($0, f, "\t")
		p = f[1]; got = f[2]
		key = p
		if (!(key in want)) {
			key = p; sub(/_[0-9]+$/, "_*", key)
		}
		if (!(key in want)) {
			printf "not ok %d - %s %s: no expectation in expected.txt (got \"%s\")\n", ++t, b, p, f[3]
			bad++
			next
		}
		used[key]++
		if (got == want[key]) {
			printf "ok %d - %s %s: %s\n", ++t, b, p, f[3]
		} else {
			printf "not ok %d - %s %s\n", ++t, b, p
			printf "#   got:  %s   (%s)\n#   want: %s\n", got, f[3], want[key]
			bad++
		}
	}
	END {
		if (nwant == 0) {
			printf "not ok %d - expected.txt has no lines for %s\n", ++t, b
			bad++
		}
		for (k in used)
			if (used[k] == 0) {
				printf "not ok %d - expected.txt line %s %s matches no probe\n", ++t, b, k
				bad++
			}
		name = b
		sub(/-.*$/, "", name) # c11-aarch64 is the c11 backend
		if (backend == "\"" name "\"")
			printf "ok %d - PFR_BARRIER_BACKEND is %s\n", ++t, backend
		else {
			printf "not ok %d - PFR_BARRIER_BACKEND is %s, want \"%s\"\n", ++t, backend, name
			bad++
		}
		printf "1..%d\n", t
		exit bad ? 1 : 0
	}
' "$top/tests/insn/expected.txt" "$out/$b.tsv"
