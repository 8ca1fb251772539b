#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Turns the disassembly of tests/insn/probes.c into the table of the
# instructions each barrier primitive compiles to.  Used by the instruction
# test (tests/insn/t_insn.sh), by the build (mk/insn.mk: the header that
# `perfring info` prints) and to regenerate docs/instructions.md.
#
#   insn-table.sh extract ARCH OBJDUMP PROBES.o
#	One line per probe: "probe<TAB>classes<TAB>instructions", where
#	instructions is what each probe does that matters for ordering, in
#	program order, joined by " ; " ("-" when nothing): every fence,
#	atomic, exclusive, locked, call or spin-hint instruction verbatim
#	(operands kept for fences, where they are the meaning), and every
#	plain load or store by its mnemonic.  classes is the same with plain
#	loads and stores written "ld" and "st" -- that is what
#	tests/insn/expected.txt states, so a different but equivalent load
#	mnemonic does not matter while any change of fence does.  Register
#	moves, arithmetic, returns and padding are dropped.
#   insn-table.sh arch TRIPLE
#	Prints the ARCH (rule set) for a compiler's -dumpmachine triple, or
#	fails when there are no rules for it.
#   insn-table.sh objdump TRIPLE
#	Prints the objdump to use for that target.
#   insn-table.sh header BACKEND TARGET TSV
#	A C header for cli/info/info.c from an extract.
#   insn-table.sh header-none BACKEND TARGET REASON
#	The same header with an empty table and the reason.
#   insn-table.sh build CC... -- PROBES.o CFLAGS...
#	The header for the build's own compiler: the target from
#	"CC -dumpmachine", the backend by preprocessing barrier.h with
#	CFLAGS, the table from PROBES.o.  When the target has no rules here
#	or no objdump can read it, the header says so and has no rows: a
#	build never fails for want of a disassembler.
#   insn-table.sh markdown DIR BACKEND...
#	docs/instructions.md from DIR/BACKEND.tsv files.
set -eu -o pipefail

die() { echo "insn-table.sh: $*" >&2; exit 2; }

arch_of() {
	case $1 in
	x86_64-* | x86_64) echo x86_64 ;;
	aarch64-* | aarch64) echo aarch64 ;;
	arm*) echo arm ;;
	powerpc64* | ppc64*) echo ppc64 ;;
	s390x-*) echo s390x ;;
	riscv64-*) echo riscv64 ;;
	*) return 1 ;;
	esac
}

objdump_of() {
	if command -v "$1-objdump" >/dev/null 2>&1; then
		echo "$1-objdump"
	else
		# binutils-multiarch's objdump reads every target's objects.
		echo objdump
	fi
}

extract() {
	local arch=$1 objdump=$2 obj=$3 dis
	dis=$("$objdump" -d -w --no-show-raw-insn "$obj") ||
		die "$objdump could not disassemble $obj"
	printf '%s\n' "$dis" | awk -v arch="$arch" '
	function emit(tok, cls) {
		if (cur == "")
			return
		seq[cur] = seq[cur] (seq[cur] == "" ? "" : " ; ") tok
		cseq[cur] = cseq[cur] (cseq[cur] == "" ? "" : " ; ") cls
	}
	function verbatim(s) { emit(s, s) }
	function access(m, cls) { emit(m, cls) }
	# The last comma-separated operand, outside parentheses and brackets.
	function lastop(ops,    i, c, d, start) {
		d = 0; start = 1
		for (i = 1; i <= length(ops); i++) {
			c = substr(ops, i, 1)
			if (c == "(" || c == "[") d++
			else if (c == ")" || c == "]") d--
			else if (c == "," && d == 0) start = i + 1
		}
		return substr(ops, start)
	}
	/^[0-9a-f]+ <[^>]*>:$/ {
		name = $2
		sub(/^<\.?/, "", name); sub(/>:$/, "", name)
		if (name ~ /^pfr_probe_/) {
			cur = substr(name, 11)
			order[++n] = cur
			seq[cur] = ""; cseq[cur] = ""
		} else {
			cur = ""
		}
		next
	}
	/^ *[0-9a-f]+:\t/ {
		if (cur == "")
			next
		line = $0
		sub(/^ *[0-9a-f]+:\t/, "", line)
		# comments and symbolic targets objdump appends
		if (arch == "aarch64") sub(/[ \t]+\/\/.*$/, "", line)
		else if (arch == "arm") sub(/[ \t]+@.*$/, "", line)
		else sub(/[ \t]+#.*$/, "", line)
		sub(/[ \t]*<[^>]*>$/, "", line)
		gsub(/[ \t]+/, " ", line)
		sub(/ $/, "", line)
		m = line; sub(/ .*$/, "", m)
		ops = line; if (ops ~ / /) sub(/^[^ ]+ /, "", ops); else ops = ""
		classify(m, ops, line)
		next
	}
	function classify(m, ops, line,    k, r) {
		if (arch == "x86_64") {
			if (m ~ /^(nop|nopw|nopl|data16|cs|ret|retq|endbr64|int3)$/ || line == "xchg %ax,%ax")
				return
			if (m == "lock" || m ~ /^(mfence|lfence|sfence|cmpxchg.*|xadd.*|pause|serialize)$/) {
				verbatim(line); return
			}
			if (m ~ /^xchg/ && ops ~ /\(/) { verbatim(line); return }
			if (m ~ /^(call|jmp)/ && ops !~ /^\*?%/) { verbatim(line); return }
			if (m ~ /^lea/ || ops !~ /\(/)
				return
			if (m ~ /^(push|pop)/)
				return
			if (lastop(ops) ~ /\(/) access(m, "st")
			else access(m, "ld")
			return
		}
		if (arch == "aarch64") {
			if (m ~ /^(dmb|dsb|isb)$/) { verbatim(line); return }
			if (m ~ /^(ldar|ldapr|ldaxr|ldxr|ldaxp|ldxp|stlr|stxr|stlxr|stxp|stlxp|cas|swp|ldadd|ldclr|ldeor|ldset|ldsmax|ldsmin|ldumax|ldumin|stadd|stset)/) {
				verbatim(m); return
			}
			if (m ~ /^(yield|wfe|wfi|sev|sevl|isb)$/ || m ~ /^bl$|^blr$|^b$/) {
				verbatim(line); return
			}
			if (m ~ /^(ldr|ldur|ldp|ldnp|ldtr)/) { access(m, "ld"); return }
			if (m ~ /^(str|stur|stp|stnp|sttr)/) { access(m, "st"); return }
			return
		}
		if (arch == "arm") {
			sub(/\.(w|n)$/, "", m)
			if (m ~ /^(dmb|dsb|isb)$/) { verbatim(line); return }
			if (m ~ /^(ldrex|strex|lda|stl)/) { verbatim(m); return }
			if (m == "mcr" && ops ~ /p15/) { verbatim(line); return }
			if (m ~ /^(yield|wfe|wfi|sev|bl|blx)$/) { verbatim(line); return }
			if (m ~ /^(push|pop)$/)
				return
			if (m ~ /^(ldr|ldm|vldr|vld)/) { access(m, "ld"); return }
			if (m ~ /^(str|stm|vstr|vst)/) { access(m, "st"); return }
			return
		}
		if (arch == "ppc64") {
			if (m ~ /^(sync|hwsync|lwsync|isync|eieio|ptesync|msync|mbar)$/) {
				verbatim(line); return
			}
			if (m ~ /^(lbarx|lharx|lwarx|ldarx|lqarx|stbcx\.|sthcx\.|stwcx\.|stdcx\.|stqcx\.)$/) {
				verbatim(m); return
			}
			# the SMT priority hints "or N,N,N", which objdump shows as mr
			if (m == "mr" || m == "or") {
				k = split(ops, r, ",")
				if ((m == "mr" && k == 2 && r[1] == r[2]) ||
				    (m == "or" && k == 3 && r[1] == r[2] && r[2] == r[3])) {
					sub(/^r/, "", r[1])
					verbatim("or " r[1] "," r[1] "," r[1]); return
				}
				return
			}
			if (m == "yield" || m == "mdoio" || m == "mdoom") {
				verbatim(line); return
			}
			if (m ~ /^bl$/) { verbatim(line); return }
			if (m ~ /^l(bz|hz|ha|wz|wa|d|hbr|wbr|dbr|q)(u?x|u)?$/) { access(m, "ld"); return }
			if (m ~ /^st(b|h|w|d|hbr|wbr|dbr|q)(u?x|u)?$/) { access(m, "st"); return }
			return
		}
		if (arch == "s390x") {
			# bcr 14,0 (fast-BCR serialization) disassembles as the
			# extended mnemonic "bnor %r0"; bcr 15,0 as "bcr 15,%r0"
			# or "br %r0".
			if (line == "bnor %r0" || line == "bcr 14,%r0") {
				verbatim("bcr 14,0"); return
			}
			if (line == "bcr 15,%r0" || line == "br %r0") {
				verbatim("bcr 15,0"); return
			}
			if (m ~ /^(cs|csy|csg|cds|cdsy|cdsg|lpq|stpq|laa|laag|lan|lang|lao|laog|lax|laxg)$/) {
				verbatim(m); return
			}
			if (m ~ /^(brasl|bras|basr)$/ && line !~ /%r14$/) { verbatim(line); return }
			if (ops !~ /\(/)
				return
			if (m ~ /^(la|lay|larl)$/)
				return
			if (m ~ /^(stm|stmg|lm|lmg)$/ && ops ~ /%r15\)/)
				return
			if (m ~ /^l/ || m ~ /^ic/) { access(m, "ld"); return }
			if (m ~ /^st/) { access(m, "st"); return }
			return
		}
		if (arch == "riscv64") {
			if (m ~ /^fence/) { verbatim(line); return }
			if (m ~ /^(lr|sc|amo)/) { verbatim(m); return }
			if (m == "pause" || line == ".word 0x0100000f" || line == ".4byte 0x100000f") {
				verbatim("pause"); return
			}
			if (m ~ /^(call|jal|tail)$/) { verbatim(line); return }
			if (m ~ /^(lb|lbu|lh|lhu|lw|lwu|ld|flw|fld)$/) { access(m, "ld"); return }
			if (m ~ /^(sb|sh|sw|sd|fsw|fsd)$/) { access(m, "st"); return }
			return
		}
	}
	END {
		if (n == 0) {
			print "no pfr_probe_* functions in the disassembly" > "/dev/stderr"
			exit 1
		}
		for (i = 1; i <= n; i++) {
			p = order[i]
			printf "%s\t%s\t%s\n", p, (cseq[p] == "" ? "-" : cseq[p]), (seq[p] == "" ? "-" : seq[p])
		}
	}'
}

# The kernel-style name of a probe, for the tables.
probe_title() {
	case $1 in
	barrier) echo "barrier()" ;;
	cpu_relax) echo "cpu_relax()" ;;
	smp_*) echo "$1()" ;;
	acquire__after_ctrl_dep) echo "smp_acquire__after_ctrl_dep()" ;;
	read_once_*) echo "READ_ONCE ${1##*_}-bit" ;;
	write_once_*) echo "WRITE_ONCE ${1##*_}-bit" ;;
	load_acquire_*) echo "smp_load_acquire ${1##*_}-bit" ;;
	store_release_*) echo "smp_store_release ${1##*_}-bit" ;;
	*) echo "$1" ;;
	esac
}

cstr() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }

header_top() {
	cat <<EOF
/* SPDX-License-Identifier: MIT */
/* Generated by tools/insn-table.sh from the disassembly of this build's
 * tests/insn/probes.c; do not edit. */
#ifndef PFR_GEN_INSN_TABLE_H
#define PFR_GEN_INSN_TABLE_H

#define PFR_INSN_BACKEND $(cstr "$1")
#define PFR_INSN_TARGET $(cstr "$2")
EOF
}

header() {
	local backend=$1 target=$2 tsv=$3 p insns
	header_top "$backend" "$target"
	echo '#define PFR_INSN_NOTE ""'
	echo
	echo 'static const struct cli_insn_row {'
	echo '	const char *primitive;'
	echo '	const char *insns;'
	echo '} cli_insn_table[] = {'
	while IFS=$'\t' read -r p _ insns; do
		echo "	{ $(cstr "$(probe_title "$p")"), $(cstr "$insns") },"
	done <"$tsv"
	echo '	{ 0, 0 },'
	echo '};'
	echo
	echo '#endif'
}

header_none() {
	header_top "$1" "$2"
	echo "#define PFR_INSN_NOTE $(cstr "$3")"
	echo
	echo 'static const struct cli_insn_row {'
	echo '	const char *primitive;'
	echo '	const char *insns;'
	echo '} cli_insn_table[] = {'
	echo '	{ 0, 0 },'
	echo '};'
	echo
	echo '#endif'
}

markdown() {
	local dir=$1 b p insns row
	shift
	cat <<'EOF'
# Instructions per primitive and target

Generated by `tests/insn/t_insn_docs.sh` from the disassembly of
`tests/insn/probes.c` (one function per primitive and size), compiled at
`-O2` with Debian 12's gcc 12 for each target and disassembled with that
target's objdump.  Do not edit: the test regenerates this file and fails if
it differs; run `tests/insn/t_insn_docs.sh --regen` to update it.

Each cell lists what the probe does that matters for ordering, in program
order: fences, atomic and exclusive instructions and spin hints verbatim,
plain loads and stores by mnemonic; `-` means no instruction at all (a
compiler barrier only).  `tests/insn/expected.txt` states the expected
instructions per backend and `tests/insn/t_insn_<backend>.sh` checks them;
docs/barriers.md gives the reasons.  Notation: three instructions are shown
as the source writes them, not as objdump prints them: s390x `bcr 14,0`
(objdump: `bnor %r0`), ppc `or 1,1,1 ; or 2,2,2` (objdump: `mr r1,r1 ; mr
r2,r2`) and riscv `pause` (older objdump: `.word 0x0100000f`).  ppc `sync`
is shown as objdump's `hwsync`, the same instruction.  `c11` is the C11
backend forced on the x86-64 host and `c11-aarch64` the same on aarch64 (the
compiler's own mapping of the C11 fences and accesses, for comparison);
`armv7` is Debian's armhf (Thumb-2).

EOF
	row="| primitive |"
	for b in "$@"; do row="$row $b |"; done
	echo "$row"
	row="|---|"
	for b in "$@"; do row="$row---|"; done
	echo "$row"
	while IFS=$'\t' read -r p _ _; do
		row="| $(probe_title "$p") |"
		for b in "$@"; do
			insns=$(awk -F'\t' -v p="$p" '$1 == p { print $3 }' \
				"$dir/$b.tsv")
			row="$row \`${insns:-?}\` |"
		done
		echo "$row" | sed 's/`-`/-/g'
	done <"$dir/$1.tsv"
}

build() {
	local cc=() obj triple rules objdump backend tmp
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cc+=("$1")
		shift
	done
	[ $# -ge 2 ] || die "build CC... -- PROBES.o CFLAGS..."
	shift
	obj=$1
	shift
	triple=$("${cc[@]}" -dumpmachine 2>/dev/null) || triple=unknown
	backend=$(printf '#include <perfring/barrier.h>\nPFR_BARRIER_BACKEND\n' |
		"${cc[@]}" "$@" -E -P -x c - 2>/dev/null | tail -n 1 |
		tr -d '"') || backend=unknown
	if ! rules=$(arch_of "$triple"); then
		header_none "$backend" "$triple" \
			"no disassembly rules for $triple in tools/insn-table.sh"
		return 0
	fi
	objdump=$(objdump_of "$triple")
	tmp=$(mktemp)
	if ! extract "$rules" "$objdump" "$obj" >"$tmp" 2>/dev/null; then
		rm -f "$tmp"
		header_none "$backend" "$triple" \
			"$objdump could not disassemble this build's probes"
		return 0
	fi
	header "$backend" "$triple" "$tmp"
	rm -f "$tmp"
}

[ $# -ge 1 ] || die "usage: see the head of this script"
cmd=$1
shift
case $cmd in
extract) [ $# -eq 3 ] || die "extract ARCH OBJDUMP OBJ"; extract "$@" ;;
arch) [ $# -eq 1 ] || die "arch TRIPLE"; arch_of "$1" ;;
objdump) [ $# -eq 1 ] || die "objdump TRIPLE"; objdump_of "$1" ;;
header) [ $# -eq 3 ] || die "header BACKEND TARGET TSV"; header "$@" ;;
header-none) [ $# -eq 3 ] || die "header-none BACKEND TARGET REASON"
	header_none "$@" ;;
build) build "$@" ;;
markdown) [ $# -ge 2 ] || die "markdown DIR BACKEND..."; markdown "$@" ;;
*) die "unknown command '$cmd'" ;;
esac
