#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs every Debian package perfring's build, tests and benchmarks use:
# the seven-target cross toolchains and qemu-user, Relacy, the benchmark
# peers, linux-perf, gnuplot, the fuzzers and clang's sanitizer runtimes,
# what `perfring script` links (libtraceevent, libelf, libdw), and the
# Qt SQL binding perf's export-to-sqlite script needs (t_script_python),
# and the Debian packaging tools (tests/install/t_deb.sh, long_deb.sh).
# Run as root (or through sudo) on Debian 12.  Safe to run again.
set -eu
pkgs=(
	build-essential pkg-config clang clang-format libclang-rt-14-dev
	binutils-multiarch qemu-user
	gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross
	gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf libc6-dev-armhf-cross
	gcc-powerpc64le-linux-gnu g++-powerpc64le-linux-gnu
	libc6-dev-ppc64el-cross
	gcc-powerpc64-linux-gnu g++-powerpc64-linux-gnu libc6-dev-ppc64-cross
	gcc-s390x-linux-gnu g++-s390x-linux-gnu libc6-dev-s390x-cross
	gcc-riscv64-linux-gnu g++-riscv64-linux-gnu libc6-dev-riscv64-cross
	relacy-dev afl++ linux-perf gnuplot-nox
	libdpdk-dev libck-dev libboost-dev libatomic-queue-dev
	libconcurrentqueue-dev liburcu-dev
	valgrind bc python3
	libtraceevent-dev libelf-dev libdw-dev libiberty-dev libzstd-dev
	python3-pyside2.qtsql libqt5sql5-sqlite
	git dpkg-dev debhelper dh-python lintian blhc autopkgtest python3-all
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "deps: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
	--no-install-recommends "${missing[@]}"
