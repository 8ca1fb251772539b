#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The perf.data library as a user gets it (issue 33): `make install
# DESTDIR=$tmp PREFIX=/usr` installs libperfring-perfdata.so (SONAME
# libperfring-perfdata.so.0, its links, the static archive),
# <perfring/perfdata.h>, perfring-perfdata.pc, perfring_perfdata(3) with a
# link per function and docs/examples/perfdata_read.c; the installed
# example builds with `pkg-config --cflags --libs perfring-perfdata`
# against the installed copy only, loads the installed libraries, and on
# a frame-pointer and a DWARF recording of the installed `perfring record`
# prints every call-chain line `perfring script` prints (symbols, offsets,
# DSOs, inlined frames), the program's own functions among them; `make
# uninstall` removes the library's files.  Builds in $PFR_BUILD-install,
# as t_install.sh does.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
[ -n "${RUNNER:-}" ] && skip_all "the example runs natively only (RUNNER=$RUNNER)"
command -v pkg-config >/dev/null 2>&1 || {
	skip_all "pkg-config not installed (tools/deps.sh installs it)"
}
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
log=$tmp/log
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PKG_CONFIG_SYSROOT_DIR \
		-u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH make -C "$top" \
		--no-print-directory BUILD="${PFR_BUILD:-$top/build}-install" \
		CC="$cc" PREFIX=/usr DESTDIR="$dest" "$@"
}

mk -j2 install >"$log" 2>&1
rc=$?
ok $rc "make install DESTDIR=\$tmp PREFIX=/usr" "$log"
[ $rc -eq 0 ] || tap_done

lib=$dest/usr/lib
missing=
for f in usr/lib/libperfring-perfdata.so usr/lib/libperfring-perfdata.so.0 \
	usr/lib/libperfring-perfdata.a usr/include/perfring/perfdata.h \
	usr/lib/pkgconfig/perfring-perfdata.pc \
	usr/share/man/man3/perfring_perfdata.3 \
	usr/share/man/man3/pfr_perfdata_open.3 \
	usr/share/doc/perfring/examples/perfdata_read.c; do
	[ -e "$dest/$f" ] || missing="$missing $f"
done
[ -z "$missing" ]
ok $? "the perf.data library's files are installed (missing:${missing:- none})"
real=$(readlink -f "$lib/libperfring-perfdata.so")
soname=$(readelf -d "$real" 2>/dev/null |
	sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libperfring-perfdata.so.0 ] &&
	[ "$(readlink "$lib/libperfring-perfdata.so.0")" = "$(basename "$real")" ]
ok $? "SONAME libperfring-perfdata.so.0, .so.0 -> $(basename "$real") (got '$soname')"

# pkg-config sees the installed .pc files first; the field's libraries'
# own .pc files (libtraceevent, libelf, libdw: Requires.private) are the
# system's.
syspc=$(pkg-config --variable pc_path pkg-config 2>/dev/null)
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$lib/pkgconfig:$syspc
export PKG_CONFIG_PATH='' PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1
export PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
flags=$(pkg-config --cflags --libs perfring-perfdata 2>"$log")
ok $? "pkg-config --cflags --libs perfring-perfdata: $flags" "$log"
ex=$dest/usr/share/doc/perfring/examples/perfdata_read.c
# shellcheck disable=SC2086 # flags is a word list
$cc -std=c11 -Wall -Wextra -Werror "$ex" -o "$tmp/perfdata_read" $flags \
	>"$log" 2>&1
ok $? "the installed perfdata_read.c builds with pkg-config's flags" "$log"
LD_LIBRARY_PATH=$lib ldd "$tmp/perfdata_read" >"$log" 2>&1
grep -q "libperfring-perfdata.so.0 => $lib/libperfring-perfdata.so.0 " "$log" &&
	grep -q "libperfring.so.0 => $lib/libperfring.so.0 " "$log"
ok $? "it loads the installed libperfring-perfdata.so.0 and libperfring.so.0" "$log"
LD_LIBRARY_PATH=$lib "$tmp/perfdata_read" "$tmp/missing.data" >"$log" 2>&1
[ $? -eq 1 ] && grep -q 'missing.data' "$log"
ok $? "on a missing file it says so and exits 1" "$log"

# Recordings of a program whose hot function calls an inlined one.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" -ne 0 ] && [ "$par" -gt 1 ]; then
	skip "not root and kernel.perf_event_paranoid=$par" \
		"the example's frames are perfring script's"
else
	cat >"$tmp/spin.c" <<'EOC'
#include <stdlib.h>
volatile unsigned long sink;
static inline __attribute__((always_inline)) void add_some(int n)
{
	for (int i = 0; i < n; i++)
		sink += i;
}
__attribute__((noinline)) void spin_here(long rounds)
{
	for (long r = 0; r < rounds; r++)
		add_some(2000);
}
int main(int argc, char **argv)
{
	spin_here(argc > 1 ? atol(argv[1]) : 100000);
	return 0;
}
EOC
	cc -O1 -g -fno-omit-frame-pointer -o "$tmp/spin" "$tmp/spin.c"
	P=$dest/usr/bin/perfring
	for cg in fp dwarf; do
		"$P" record -F 2000 --call-graph "$cg" -o "$tmp/$cg.data" -- \
			"$tmp/spin" 150000 >"$log" 2>&1
		ok $? "perfring record --call-graph $cg" "$log"
		"$P" script -i "$tmp/$cg.data" 2>"$log" | grep -P '^\t' \
			>"$tmp/$cg.script"
		LD_LIBRARY_PATH=$lib "$tmp/perfdata_read" "$tmp/$cg.data" \
			2>>"$log" | grep -P '^\t' >"$tmp/$cg.lib"
		n=$(wc -l <"$tmp/$cg.script")
		[ "$n" -gt 0 ] && cmp -s "$tmp/$cg.script" "$tmp/$cg.lib"
		ok $? "--call-graph $cg: the example's $n frame lines are perfring script's" \
			"$log"
		diff "$tmp/$cg.script" "$tmp/$cg.lib" | head -n 20 | diag
		grep -q ' spin_here+0x[0-9a-f]* (.*/spin)$' "$tmp/$cg.lib"
		ok $? "--call-graph $cg: the program's spin_here is among the frames"
	done
	grep -q 'add_some+0x[0-9a-f]* (inlined)$' "$tmp/dwarf.lib"
	ok $? "--call-graph dwarf: the inlined add_some is shown (inlined)"
fi

mk uninstall >"$log" 2>&1
ok $? "make uninstall" "$log"
left=$(find "$dest" -name '*perfdata*' | tr '\n' ' ')
[ -z "$left" ]
ok $? "make uninstall removes the library's files (left: ${left:-none})"

tap_done
