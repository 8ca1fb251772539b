#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packaging's quick checks (the package build itself is
# long_deb.sh's): every debian/*.symbols file is what tools/gen-symbols.py
# makes of its version map, and the check catches a map that changed; the
# symbols files list exactly what this build's libperfring.so.0 and
# libperfring-perfdata.so.0 export (dpkg-gensymbols -c4, as the package
# build runs it) and -c4 catches a missing line; the version is one:
# <perfring/common.h>'s string, its MAJOR.MINOR.PATCH, debian/changelog's
# upstream version, perfring.pc and perfring --version agree.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/log

command -v python3 >/dev/null 2>&1 ||
	skip_all "python3 not installed (tools/deps.sh installs it)"

"$top/tools/gen-symbols.py" --check "$top" >"$log" 2>&1
ok $? "debian/*.symbols are tools/gen-symbols.py's output for the maps" "$log"

# The check has teeth: a symbol added to a copy of the map is reported.
mkdir -p "$tmp/t/src/abi" "$tmp/t/debian"
cp "$top/debian/libperfring0.symbols" "$tmp/t/debian/"
sed 's/^\(\t\tpfr_ring_set_inherit;\)$/\1\n\t\tpfr_not_in_the_file;/' \
	"$top/src/abi/perfring.map" >"$tmp/t/src/abi/perfring.map"
"$top/tools/gen-symbols.py" --check "$tmp/t" >"$log" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^+ pfr_not_in_the_file@PERFRING_0.3 0.3.0$' "$log"
ok $? "a symbol added to the map makes --check fail with its line (rc $rc)" "$log"
printf 'X {\n\tglobal:\n\t\tpfr_*;\n};\n' >"$tmp/t/src/abi/perfring.map"
"$top/tools/gen-symbols.py" --check "$tmp/t" >"$log" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'not one symbol' "$log"
ok $? "a wildcard in the map is refused (rc $rc)" "$log"

# What each built library exports, as dpkg-gensymbols sees it in a
# package: the symbols file matches (-c4), and -c4 catches a missing line.
gensym() { # gensym PKG SONAME SYMBOLS-FILE: dpkg-gensymbols -c4
	(cd "$tmp/pkg" && dpkg-gensymbols -p"$1" -v"$want" \
		-P"$tmp/pkg/root" -I"$3" -O"$tmp/out.symbols" -c4 \
		-e"$tmp/pkg/root/usr/lib/$2")
}
checksyms() { # checksyms PKG SONAME MAP SYMBOL-TO-DROP NODE
	local lib rc
	lib=$(readlink -f "$build/$2" 2>/dev/null)
	if [ ! -f "$top/$3" ]; then
		skip "no $3 in this tree" "$1: symbols file = exports"
		return
	elif ! command -v dpkg-gensymbols >/dev/null 2>&1; then
		skip "dpkg-gensymbols not installed (dpkg-dev)" \
			"$1: symbols file = exports"
		return
	elif [ -n "${RUNNER:-}" ] || [ ! -f "$lib" ]; then
		skip "no native $build/$2" "$1: symbols file = exports"
		return
	fi
	rm -rf "$tmp/pkg"
	mkdir -p "$tmp/pkg/root/usr/lib" "$tmp/pkg/debian"
	cp "$lib" "$tmp/pkg/root/usr/lib/$2"
	printf 'Source: perfring\n\nPackage: %s\nArchitecture: any\n' "$1" \
		>"$tmp/pkg/debian/control"
	gensym "$1" "$2" "$top/debian/$1.symbols" >"$log" 2>&1
	ok $? "dpkg-gensymbols -c4: the built $2 exports what debian/$1.symbols lists" "$log"
	grep -v " $4@" "$top/debian/$1.symbols" >"$tmp/short.symbols"
	gensym "$1" "$2" "$tmp/short.symbols" >"$log" 2>&1
	rc=$?
	[ $rc -ne 0 ] && grep -q "^+ *$4@$5" "$log"
	ok $? "dpkg-gensymbols -c4 fails on debian/$1.symbols without $4 (rc $rc)" "$log"
}
want=$(sed -n 's/^#define PFR_VERSION_STRING "\(.*\)"$/\1/p' \
	"$top/include/perfring/common.h")
checksyms libperfring0 libperfring.so.0 src/abi/perfring.map \
	pfr_ring_set_inherit PERFRING_0.3
checksyms libperfring-perfdata0 libperfring-perfdata.so.0 \
	src/perfdata/perfdata.map pfr_perfdata_open PERFRING_PERFDATA_0.1

# One version.
h=$top/include/perfring/common.h
parts=$(sed -n 's/^#define PFR_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
	"$h" | paste -sd.)
[ -n "$want" ] && [ "$parts" = "$want" ]
ok $? "PFR_VERSION_STRING $want = MAJOR.MINOR.PATCH ($parts)"
deb=$(sed -n '1s/^perfring (\([^)]*\)).*/\1/p' "$top/debian/changelog")
[ "${deb%-*}" = "$want" ]
ok $? "debian/changelog's upstream version ${deb%-*} ($deb) is $want"
grep -q '^VERSION := $(shell sed .*PFR_VERSION_STRING.*common.h' "$top/Makefile" ||
	grep -A1 '^VERSION := ' "$top/Makefile" | grep -q 'common.h'
ok $? "the Makefile reads VERSION from <perfring/common.h>"
if [ -f "$build/perfring.pc" ]; then
	pc=$(sed -n 's/^Version: //p' "$build/perfring.pc")
	[ "$pc" = "$want" ]
	ok $? "$build/perfring.pc says Version: $pc"
else
	skip "no $build/perfring.pc" "perfring.pc's version"
fi
if [ -z "${RUNNER:-}" ] && [ -x "$P" ]; then
	got=$("$P" --version 2>&1 | awk '{ print $NF }')
	[ "$got" = "$want" ]
	ok $? "perfring --version says $got"
else
	skip "no native perfring" "perfring --version"
fi

tap_done
