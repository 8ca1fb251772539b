#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring litmus under qemu-user on the six other targets: a smoke run.
# For each of aarch64, armhf, ppc64el, ppc64, s390x and riscv64 it builds
# perfring with the target's gcc into build-<arch>/ (the same directories
# the cross tests use; make is idempotent), runs `perfring litmus` with a
# small iteration count under qemu, and checks that it exits 0 (nothing
# the target's model forbids was observed), that every test reports an
# observation, and that the verdicts are stated in the target's model.
# qemu-user on an x86 host is not weakly ordered, so this proves that the
# tests build and run on each target, not that its barriers suffice.  It is
# not the target's model either: qemu-aarch64 does not order an STLR before
# a later LDAR, so SB+rel+acq, which ARMv8 forbids (RCsc), can show; perfring
# reports that as a DEVIATION (a verdict beyond the primitives' contract),
# which this test prints but does not count as a failure.
# A target whose toolchain is missing is skipped with its reason; the
# whole test exits 77 only when no target can be built.
#   PFR_LITMUS_QEMU_ITERATIONS  instances per test (default 5000)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
iters=${PFR_LITMUS_QEMU_ITERATIONS:-5000}

ran=0 skipped=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A sub-make must not inherit the outer make's command-line variables.
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u CFLAGS -u CPPFLAGS \
		-u LDFLAGS make -C "$top" --no-print-directory "$@"
}

for arch in aarch64 armhf ppc64el ppc64 s390x riscv64; do
	case $arch in
	aarch64) triple=aarch64-linux-gnu qemu=qemu-aarch64 model=ARMv8 ;;
	armhf) triple=arm-linux-gnueabihf qemu=qemu-arm model=ARMv7 ;;
	ppc64el) triple=powerpc64le-linux-gnu qemu=qemu-ppc64le model=Power ;;
	ppc64) triple=powerpc64-linux-gnu qemu=qemu-ppc64 model=Power ;;
	s390x) triple=s390x-linux-gnu qemu=qemu-s390x model="s390x (TSO)" ;;
	riscv64) triple=riscv64-linux-gnu qemu=qemu-riscv64 model=RVWMO ;;
	esac
	why=
	for need in "$triple-gcc" "$qemu"; do
		command -v "$need" >/dev/null 2>&1 || why="$need not installed"
	done
	[ -z "$why" ] && [ ! -e "/usr/$triple/lib" ] &&
		why="no /usr/$triple (libc6-dev-*-cross)"
	if [ -n "$why" ]; then
		skip "$why (tools/deps.sh installs it)" "$arch"
		skipped+=("$arch")
		continue
	fi
	build=build-$arch
	cxx=()
	command -v "$triple-g++" >/dev/null 2>&1 && cxx=(CXX="$triple-g++")
	mk -j2 BUILD="$build" CC="$triple-gcc" "${cxx[@]}" AR="$triple-ar" all \
		>"$tmp/$arch.build" 2>&1
	rc=$?
	ok $rc "$arch: make BUILD=$build CC=$triple-gcc all" "$tmp/$arch.build"
	[ $rc -eq 0 ] || continue
	ran=$((ran + 1))
	runner=("$qemu" -L "/usr/$triple")
	"${runner[@]}" "$top/$build/perfring" litmus --list \
		>"$tmp/$arch.list" 2>&1
	nlist=$(wc -l <"$tmp/$arch.list")
	start=$(date +%s)
	"${runner[@]}" "$top/$build/perfring" litmus --iterations "$iters" \
		>"$tmp/$arch.out" 2>"$tmp/$arch.err"
	rc=$?
	secs=$(($(date +%s) - start))
	nobs=$(grep -Ec '^Observation [^ ]+ (Never|Sometimes|Always) ' \
		"$tmp/$arch.out")
	nmodel=$(grep -Fc "Model $model: " "$tmp/$arch.out")
	ok=0
	[ $rc -eq 0 ] || { echo "# $arch: perfring litmus exited $rc"; ok=1; }
	grep -q '^FAIL' "$tmp/$arch.out" && { grep '^FAIL' "$tmp/$arch.out" |
		sed 's/^/# /'; ok=1; }
	[ "$nlist" -ge 60 ] && [ "$nobs" -eq "$nlist" ] ||
		{ echo "# $arch: $nobs observations for $nlist tests"; ok=1; }
	[ "$nmodel" -eq "$nlist" ] ||
		{ echo "# $arch: $nmodel verdicts in model $model"; ok=1; }
	ok $ok "$arch: perfring litmus --iterations $iters under $qemu: no forbidden outcome, $nobs tests, model $model (${secs}s)" "$tmp/$arch.out"
	grep -E '^(SB relaxed|DEVIATION)' "$tmp/$arch.out" | sed "s/^/# $arch: /"
done
[ $ran -eq 0 ] &&
	tap_done --skip "no cross toolchain installed (${skipped[*]}; tools/deps.sh)"
tap_done
