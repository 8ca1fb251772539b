#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make install DESTDIR=$tmp PREFIX=/usr` installs the Python binding too:
# python/perfring lands in PYTHONDIR (mk/python.mk) with _paths.py naming
# LIBDIR; imported from there, with the installed library, it writes and
# reads a ring; without PERFRING_LIB it looks in LIBDIR first (and says
# so when the library is not there); `make uninstall` removes it.  Builds
# in $PFR_BUILD-install, as t_install.sh does.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
[ -n "${RUNNER:-}" ] && skip_all "the library is built for a target this" \
	"host's python3 cannot load (RUNNER=$RUNNER)"
command -v python3 >/dev/null 2>&1 || {
	fail "python3 not found (tools/deps.sh installs it)"
	tap_done
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
log=$tmp/log
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" \
		--no-print-directory BUILD="${PFR_BUILD:-$top/build}-install" \
		CC="$cc" PREFIX=/usr DESTDIR="$dest" "$@"
}

mk -j2 install >"$log" 2>&1
rc=$?
ok $rc "make install DESTDIR=\$tmp PREFIX=/usr" "$log"
[ $rc -eq 0 ] || tap_done

init=$(find "$dest" -path '*/perfring/__init__.py' | head -n 1)
pkg=${init%/perfring/__init__.py}
[ -n "$init" ] && cmp -s "$init" "$top/python/perfring/__init__.py" &&
	[ -f "$pkg/perfring/_paths.py" ]
ok $? "the package is installed (${pkg#"$dest"}/perfring)"
[ -n "$init" ] || tap_done

PYTHONPATH=$pkg PYTHONDONTWRITEBYTECODE=1 \
	PERFRING_LIB=$dest/usr/lib/libperfring.so.0 python3 -c '
import perfring, perfring._paths as p, sys
assert p.LIBDIR == "/usr/lib", p.LIBDIR
assert perfring.__file__.startswith(sys.argv[1]), perfring.__file__
ring = perfring.Ring.create(data_size=4096)
w, r = ring.writer(), ring.reader()
w.write(5, b"installed")
got = [(x.type, x.payload[:9]) for x in r.records()]
assert got == [(5, b"installed")], got
print("read", got)' "$pkg" >"$log" 2>&1
ok $? "imported from there, it writes and reads a ring with the installed \
library" "$log"

# Without PERFRING_LIB the installed LIBDIR comes first: here /usr/lib,
# named in the error when the library is not installed there.
if [ ! -e /usr/lib/libperfring.so.0 ]; then
	env -u PERFRING_LIB PYTHONPATH="$pkg" PYTHONDONTWRITEBYTECODE=1 \
		LD_LIBRARY_PATH= python3 -c '
import perfring
try:
    perfring.Ring.create()
except perfring.LibraryNotFound as e:
    assert "/usr/lib/libperfring.so.0" in str(e), str(e)
    print(e)
else:
    raise SystemExit("loaded a library from elsewhere")' >"$log" 2>&1
	ok $? "without PERFRING_LIB it looks in the installed LIBDIR first" \
		"$log"
fi

mk uninstall >"$log" 2>&1
ok $? "make uninstall" "$log"
[ ! -e "$pkg/perfring" ]
ok $? "make uninstall removes the package"
tap_done
