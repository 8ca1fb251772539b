#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make install DESTDIR=$tmp PREFIX=/usr` into a temporary directory, then:
# the shared library has SONAME libperfring.so.0 and exports only pfr_*
# symbols; a small program built with `pkg-config --cflags --libs perfring`
# against the installed copy (and only it) compiles, links and runs; the
# installed perfring runs and it and the library link no peer library of
# the benchmark (ldd); `make uninstall` removes every file it installed.  Builds in $PFR_BUILD-install (build-install by default), with
# the default flags whatever the outer check's (SANITIZE, CFLAGS).  Also:
# a manual page link per public function (man pfr_ring_create), and the
# Python package, which loads the installed library.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
command -v pkg-config >/dev/null 2>&1 || {
	skip_all "pkg-config not installed (tools/deps.sh installs it)"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
log=$tmp/log
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PKG_CONFIG_SYSROOT_DIR \
		-u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH make -C "$top" \
		--no-print-directory BUILD="${PFR_BUILD:-$top/build}-install" \
		CC="$cc" \
		PREFIX=/usr DESTDIR="$dest" "$@"
}

mk -j2 install >"$log" 2>&1
rc=$?
ok $rc "make install DESTDIR=\$tmp PREFIX=/usr" "$log"
[ $rc -eq 0 ] || tap_done

lib=$dest/usr/lib
missing=
for f in usr/bin/perfring usr/lib/libperfring.a usr/lib/libperfring.so \
	usr/lib/libperfring.so.0 usr/include/perfring/barrier.h \
	usr/include/perfring/common.h usr/include/perfring/linux-compat.h \
	usr/include/perfring/arch/generic.h usr/lib/pkgconfig/perfring.pc; do
	[ -e "$dest/$f" ] || missing="$missing $f"
done
for h in "$top"/include/perfring/*.h "$top"/include/perfring/arch/*.h; do
	f=usr/include/${h#"$top"/include/}
	cmp -s "$h" "$dest/$f" || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "installed files present (missing or different:${missing:- none})"

real=$(readlink -f "$lib/libperfring.so")
soname=$(readelf -d "$real" 2>/dev/null |
	sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libperfring.so.0 ]
ok $? "SONAME is libperfring.so.0 (got '$soname')"
[ "$(readlink "$lib/libperfring.so.0")" = "$(basename "$real")" ] &&
	[ "$(readlink "$lib/libperfring.so")" = libperfring.so.0 ]
ok $? "libperfring.so -> .so.0 -> $(basename "$real")"

# Defined dynamic symbols, without the version node (type A).
nm -D --defined-only "$real" | awk '$2 != "A" { print $3 }' |
	sed 's/@.*//' | sort -u >"$tmp/syms"
others=$(grep -v '^pfr_' "$tmp/syms" | tr '\n' ' ')
[ -s "$tmp/syms" ] && [ -z "$others" ]
ok $? "exports only pfr_* ($(wc -l <"$tmp/syms") symbols; others: ${others:-none})"
grep -qx pfr_version "$tmp/syms"
ok $? "exports pfr_version"

grep -q '^prefix=/usr$' "$lib/pkgconfig/perfring.pc"
ok $? "perfring.pc has prefix=/usr" "$lib/pkgconfig/perfring.pc"

# Only the installed copy: the sysroot prefixes pkg-config's paths, and
# /usr/include and /usr/lib must not be dropped as "system" directories.
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$lib/pkgconfig
export PKG_CONFIG_PATH='' PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
export PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
flags=$(pkg-config --cflags --libs perfring 2>"$log")
ok $? "pkg-config --cflags --libs perfring: $flags" "$log"
cat >"$tmp/prog.c" <<'EOT'
#include <stdio.h>
#include <string.h>
#include <perfring/barrier.h>
#include <perfring/common.h>

static unsigned long flag, data;

int main(void)
{
	data = 42;
	pfr_smp_store_release(&flag, 1); /* purpose: install test */
	if (pfr_smp_load_acquire(&flag) != 1 || data != 42) /* purpose: test */
		return 1;
	pfr_smp_mb(); /* purpose: install test */
	printf("%s %s\n", pfr_version(), PFR_BARRIER_BACKEND);
	return strcmp(pfr_version(), PFR_VERSION_STRING) != 0;
}
EOT
# shellcheck disable=SC2086 # flags is a word list
$cc -std=c11 -Wall -Wextra -Werror "$tmp/prog.c" -o "$tmp/prog" $flags \
	>"$log" 2>&1
ok $? "a program builds against the installed copy" "$log"
LD_LIBRARY_PATH=$lib "$tmp/prog" >"$log" 2>&1
ok $? "it runs: $(head -n 1 "$log")" "$log"
LD_LIBRARY_PATH=$lib ldd "$tmp/prog" 2>&1 | grep libperfring >"$log"
grep -q "=> $lib/libperfring.so.0 " "$log"
ok $? "it loads the installed libperfring.so.0" "$log"
"$dest/usr/bin/perfring" info >"$log" 2>&1
ok $? "installed perfring info runs" "$log"

# Everything installed that the loader maps (perfring, libperfring.so):
# libc and the CLI's own field libraries only, never a peer of the
# benchmark (perfring-bench, which `make install` leaves out).  ldd lists
# the libraries pulled in indirectly too; where it cannot run the file (a
# cross build), the direct NEEDED entries stand in.
peers='librte_|libstdc\+\+|libnuma|libfdt|libbsd|libmd\.|liburcu|libck\.'
peers="$peers|libboost|libatomic_queue|libconcurrentqueue|libgcc_s"
elfs=$(find "$dest" -type f -exec sh -c \
	'head -c 4 "$1" | grep -q "^.ELF"' _ {} \; -print | sort)
linked= libs=
for f in $elfs; do
	LD_LIBRARY_PATH=$lib ldd "$f" >"$tmp/ldd" 2>&1 ||
		readelf -d "$f" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' >"$tmp/ldd"
	libs="$libs $(awk '{ print $1 }' "$tmp/ldd" | tr '\n' ' ')"
	hit=$(grep -E -o "$peers" "$tmp/ldd" | sort -u | tr '\n' ' ')
	[ -z "$hit" ] || linked="$linked ${f#"$dest"}: $hit;"
done
[ -n "$elfs" ] && [ -z "$linked" ]
ok $? "installed programs and libraries link no peer library${linked:+ (found:$linked)}"
echo "# linked: $(echo "$libs" | tr ' ' '\n' | sort -u | tr '\n' ' ')"
[ ! -e "$dest/usr/bin/perfring-bench" ] &&
	[ ! -e "$dest/usr/share/man/man1/perfring-bench.1" ]
ok $? "make install leaves perfring-bench (the benchmark) out"
if [ ! -e /usr/libexec/perfring/perfring-bench ]; then
	"$dest/usr/bin/perfring" bench --help >"$log" 2>&1
	rc=$?
	[ $rc -eq 127 ] && grep -q "make install-bench" "$log"
	ok $? "installed perfring bench without perfring-bench: exit 127 and how to get it (got $rc)" "$log"
fi

# Manual pages: one link per public function (tools/man-links.py), so
# that `man pfr_ring_create` opens perfring_ring(3).
man=$dest/usr/share/man
"$top/tools/man-links.py" "$top" >"$tmp/links" 2>"$log"
ok $? "tools/man-links.py: every public function has a page" "$log"
missing=
while read -r fn page; do
	[ "$(cat "$man/man3/$fn.3" 2>/dev/null)" = ".so man3/$page" ] &&
		[ -f "$man/man3/$page" ] || missing="$missing $fn"
done <"$tmp/links"
[ -s "$tmp/links" ] && [ -z "$missing" ]
ok $? "$(wc -l <"$tmp/links") function links installed in man3 (missing:${missing:- none})"
if command -v man >/dev/null 2>&1; then
	MANPAGER=cat MANWIDTH=80 man -M "$man" pfr_ring_create >"$log" 2>&1 &&
		grep -q PERFRING_RING "$log" && grep -q 'pfr_ring_create' "$log"
	ok $? "man pfr_ring_create shows perfring_ring(3)" "$log"
	MANPAGER=cat man -M "$man" 1 perfring-litmus >"$log" 2>&1 &&
		grep -q 'perfring litmus' "$log"
	ok $? "man perfring-litmus is installed" "$log"
else
	skip "man not installed" "man pfr_ring_create shows perfring_ring(3)"
fi

# The examples the manual pages name, under the doc directory, and they
# build against the installed library (perfring_session(3)'s record.c).
ex=$dest/usr/share/doc/perfring/examples/record.c
[ -f "$ex" ] && cmp -s "$ex" "$top/docs/examples/record.c"
ok $? "make install puts docs/examples/record.c in ${ex#"$dest"}"
if [ -f "$ex" ]; then
	# shellcheck disable=SC2086 # flags is a word list
	$cc -std=c11 -Wall -Wextra -Wno-unused-parameter "$ex" \
		-o "$tmp/record" $flags >"$log" 2>&1
	ok $? "the installed record.c builds with pkg-config's flags" "$log"
fi

# The Python package, run against the installed library.
pydir=$(find "$dest" -type d -path '*-packages/perfring' | head -n 1)
[ -n "$pydir" ] && [ -f "$pydir/__init__.py" ]
ok $? "the Python package is installed (${pydir#"$dest"})"
if [ -n "$pydir" ]; then
	want=$("$dest/usr/bin/perfring" --version | awk '{ print $NF }')
	PYTHONPATH=${pydir%/perfring} PERFRING_LIB=$lib/libperfring.so.0 \
		python3 -c 'import perfring; print(perfring.version())' \
		>"$log" 2>&1 && grep -qx "$want" "$log"
	ok $? "installed Python package loads the installed library: $(head -n 1 "$log")" "$log"
fi

mk uninstall >"$log" 2>&1
ok $? "make uninstall" "$log"
find "$dest" \( -type f -o -type l \) >"$log"
[ ! -s "$log" ]
ok $? "make uninstall leaves no file behind" "$log"

tap_done
