#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-target test for one Debian architecture (called by
# t_cross_<arch>.sh): builds the library, `perfring` and every unit test
# (tests/unit/*.c, whoever added them) with that target's gcc into
# build-<arch>/, runs each unit test under qemu-user, and runs
# `perfring info` under qemu to check the backend, the compile-time target
# and that its instruction table came from this build's disassembly, and
# brief `perfring stress --mode group|mpsc` runs (threads and processes).
# Under emulation no weak-memory behaviour shows: this proves the code
# builds, assembles and behaves on the target (endianness, sizes,
# encodings), not that the barriers are sufficient.  The build directory is
# $PFR_BUILD-<arch> (build-aarch64 for the default BUILD=build).
# Exit 77 only when the target's gcc, its libc or qemu is missing.
#
#   cross.sh ARCH     ARCH: aarch64 armhf ppc64el ppc64 s390x riscv64
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
arch=${1:?usage: cross.sh ARCH}
case $arch in
aarch64) triple=aarch64-linux-gnu qemu=qemu-aarch64 backend=aarch64 target=aarch64 ;;
armhf) triple=arm-linux-gnueabihf qemu=qemu-arm backend=armv7 target=armv7 ;;
ppc64el) triple=powerpc64le-linux-gnu qemu=qemu-ppc64le backend=ppc64le target=ppc64le ;;
ppc64) triple=powerpc64-linux-gnu qemu=qemu-ppc64 backend=ppc64 target=ppc64 ;;
s390x) triple=s390x-linux-gnu qemu=qemu-s390x backend=s390x target=s390x ;;
riscv64) triple=riscv64-linux-gnu qemu=qemu-riscv64 backend=riscv64 target=riscv64 ;;
*) echo "Bail out! unknown architecture $arch"; exit 2 ;;
esac
# For the instruction row checked against expected.txt.
insn_backend=$backend

for need in "$triple-gcc" "$qemu"; do
	command -v "$need" >/dev/null 2>&1 || {
		skip_all "$need not installed (tools/deps.sh installs it)"
	}
done
[ -e "/usr/$triple/lib" ] || {
	skip_all "no /usr/$triple (libc6-dev-*-cross; tools/deps.sh)"
}

# build-<arch> next to the check's own build directory (build-h1-aarch64
# for BUILD=build-h1), so concurrent checks with different BUILDs do not
# share one.
build=${PFR_BUILD:-$top/build}-$arch
runner=("$qemu" -L "/usr/$triple")
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# A sub-make must not inherit the outer `make check`'s command-line
# variables (BUILD=, SANITIZE=, CFLAGS=) through MAKEFLAGS.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CPPFLAGS \
		-u LDFLAGS make -C "$top" --no-print-directory "$@"
}

units=()
for src in "$top"/tests/unit/*.c; do
	[ -e "$src" ] || continue
	units+=("$(basename "$src" .c)")
done

mk -j2 BUILD="$build" CC="$triple-gcc" CXX="$triple-g++" AR="$triple-ar" \
	all unit-tests >"$log" 2>&1
rc=$?
ok $rc "$arch: make all unit-tests with $triple-gcc" "$log"
[ $rc -eq 0 ] || tap_done

for u in "${units[@]}"; do
	bin=$build/tests/unit/$u
	if [ ! -x "$bin" ]; then
		fail "$arch: unit/$u was not built"
		continue
	fi
	(cd "$top" && timeout -k 10 300 "${runner[@]}" "$bin") >"$log" 2>&1
	rc=$?
	summary=$(grep -c '^ok' "$log")
	ok $rc "$arch: unit/$u under $qemu ($summary checks passed, exit $rc)" \
		"$log"
done

# perfring info under qemu: backend, target from the compiler, the table.
perfring=$build/perfring
"${runner[@]}" "$perfring" info >"$log" 2>&1
rc=$?
ok $rc "$arch: perfring info runs under $qemu" "$log"
grep -q "^backend: *$backend\$" "$log"
ok $? "$arch: perfring info says backend $backend" "$log"
grep -q "^target: *$target " "$log"
ok $? "$arch: perfring info says target $target (compile-time)" "$log"
want=$(awk -v b="$insn_backend" '$1 == b && $2 == "smp_mb" {
	$1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$top/tests/insn/expected.txt")
got=$(awk '$1 == "smp_mb()" { $1 = ""; sub(/^ +/, ""); print }' "$log")
[ -n "$want" ] && [ "$got" = "$want" ]
ok $? "$arch: perfring info's smp_mb() is '$got' (expected.txt: '$want')" \
	"$log"
"${runner[@]}" "$perfring" info --json >"$log" 2>&1
grep -q "\"backend\":\"$backend\"" "$log" &&
	grep -q "\"target\":\"$target\"" "$log" &&
	grep -q '"instructions":\[{' "$log"
ok $? "$arch: perfring info --json has backend, target and the table" "$log"

# Brief many-writer stress runs under qemu, threads and processes: the
# stress verifies every record itself (exit 0 and its verdict); written =
# read + lost is checked again here from its JSON.
jnum() { # jnum KEY: the number after "KEY": in $log
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$log" | head -n 1
}
for mode in group mpsc; do
	for how in threads processes; do
		extra=()
		[ "$how" = processes ] && extra=(--processes)
		timeout -k 10 300 "${runner[@]}" "$perfring" stress --mode "$mode" \
			--writers 3 --seconds 0.3 --json "${extra[@]}" >"$log" 2>&1
		rc=$?
		case $mode in
		group) grep -q '"result":"pass"' "$log" &&
			grep -q '"corrupt":0,"bad_seq":0,"bad_order":0' "$log" ;;
		mpsc) grep -q '"ok":true' "$log" && grep -q '"corrupt":0,' "$log" &&
			! grep -q '"ok":false' "$log" ;;
		esac
		verdict=$?
		w=$(jnum written) r=$(jnum read) l=$(jnum lost)
		[ $rc -eq 0 ] && [ $verdict -eq 0 ] && [ -n "$w" ] && [ -n "$r" ] &&
			[ -n "$l" ] && [ "$w" -gt 0 ] && [ "$w" -eq $((r + l)) ]
		ok $? "$arch: stress --mode $mode --writers 3 ($how) under $qemu: exit $rc, written ${w:-?} = read ${r:-?} + lost ${l:-?}" \
			"$log"
	done
done

tap_done
