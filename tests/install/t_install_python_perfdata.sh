#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The installed Python package reads a perf.data with symbols through the
# installed libraries: after `make install DESTDIR=$tmp PREFIX=/usr`,
# perfring/perfdata.py is in PYTHONDIR and docs/examples/perfdata_read.py
# in DOCDIR/examples; that example, run with the installed package and
# libraries (PERFRING_LIB names the installed libperfring.so.0; the
# package finds libperfring-perfdata.so.0 beside it), prints the samples
# of a `perfring record -g` file with the frame lines `perfring script`
# prints, line for line; without the perf.data library the first open
# raises LibraryNotFound naming it; `make uninstall` removes both files.
# Builds in $PFR_BUILD-install, as t_install.sh does.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
cc=${CC:-cc}
[ -n "${RUNNER:-}" ] && skip_all "the library is built for a target this" \
	"host's python3 cannot load (RUNNER=$RUNNER)"
command -v python3 >/dev/null 2>&1 || {
	fail "python3 not found (tools/deps.sh installs it)"
	tap_done
}
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" -ne 0 ] && [ "$par" -gt 1 ]; then
	skip_all "not root and kernel.perf_event_paranoid=$par (no recording)"
fi
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/root
log=$tmp/log
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" \
		--no-print-directory BUILD="$build-install" \
		CC="$cc" PREFIX=/usr DESTDIR="$dest" "$@"
}

mk -j2 install >"$log" 2>&1
rc=$?
ok $rc "make install DESTDIR=\$tmp PREFIX=/usr" "$log"
[ $rc -eq 0 ] || tap_done

init=$(find "$dest" -path '*/perfring/__init__.py' | head -n 1)
pkg=${init%/perfring/__init__.py}
ex=$dest/usr/share/doc/perfring/examples/perfdata_read.py
[ -n "$init" ] && cmp -s "$pkg/perfring/perfdata.py" \
	"$top/python/perfring/perfdata.py" &&
	cmp -s "$ex" "$top/docs/examples/perfdata_read.py" &&
	[ -e "$dest/usr/lib/libperfring-perfdata.so.0" ]
ok $? "perfring/perfdata.py, examples/perfdata_read.py and \
libperfring-perfdata.so.0 are installed"
[ -n "$init" ] || tap_done

cat >"$tmp/busy.c" <<'EOC'
volatile unsigned long sink;
__attribute__((noinline)) void work(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
int main(void)
{
	for (int k = 0; k < 40; k++)
		work(1000000);
	return 0;
}
EOC
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/busy" "$tmp/busy.c" >"$log" 2>&1 &&
	"$P" record -g -e cpu-clock -c 100000 -o "$tmp/g.data" "$tmp/busy" \
		>>"$log" 2>&1 &&
	"$P" script -i "$tmp/g.data" >"$tmp/script.txt" 2>>"$log"
ok $? "perfring record -g of a busy loop, perfring script of it" "$log"

PYTHONPATH=$pkg PYTHONDONTWRITEBYTECODE=1 \
	PERFRING_LIB=$dest/usr/lib/libperfring.so.0 \
	python3 "$ex" "$tmp/g.data" >"$tmp/py.txt" 2>"$log"
ok $? "the installed example runs with the installed package" "$log"
grep "^	" "$tmp/script.txt" >"$tmp/script.frames"
grep "^	" "$tmp/py.txt" >"$tmp/py.frames"
n=$(wc -l <"$tmp/py.frames")
ours=$(grep -c " work+0x[0-9a-f]* ($tmp/busy)\$" "$tmp/py.frames")
diff "$tmp/script.frames" "$tmp/py.frames" >"$log" 2>&1 &&
	[ "$n" -gt 100 ] && [ "$ours" -gt 10 ]
ok $? "its $n frame lines are perfring script's, line for line ($ours \
in work() of busy)" "$log"
s=$(grep -c "cpu-clock:\$" "$tmp/py.txt")
[ "$s" -gt 10 ] && [ "$s" -eq "$(grep -c " cpu-clock: *\$" "$tmp/script.txt")" ]
ok $? "and as many samples ($s)"

# without the perf.data library (a directory with the core alone)
mkdir "$tmp/core"
cp "$dest/usr/lib/libperfring.so.0" "$tmp/core/"
PYTHONPATH=$pkg PYTHONDONTWRITEBYTECODE=1 LD_LIBRARY_PATH='' \
	PERFRING_LIB=$tmp/core/libperfring.so.0 python3 -c '
import sys, perfring, perfring.perfdata as perfdata
try:
    perfdata.open(sys.argv[1])
except perfring.LibraryNotFound as e:
    assert "libperfring-perfdata.so.0" in str(e), str(e)
    print(e)
else:
    raise SystemExit("opened without the perf.data library")' \
	"$tmp/g.data" >"$log" 2>&1
ok $? "without libperfring-perfdata.so.0: LibraryNotFound naming it" "$log"

mk uninstall >"$log" 2>&1
ok $? "make uninstall" "$log"
[ ! -e "$pkg/perfring/perfdata.py" ] && [ ! -e "$ex" ]
ok $? "make uninstall removes perfdata.py and the example"
tap_done
