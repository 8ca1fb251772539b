#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding (python/perfring, ctypes over the shared library's
# exported symbols) across two processes: tests/python/ring_procs.py
# spawns a writer and a reader python3 on one memfd ring and checks every
# record (TAP comes from it).  Under SANITIZE the sanitizer's runtime is
# preloaded (it must come first in the process).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
cc=${CC:-cc}
n=20000
[ "${PFR_LONG:-0}" = 1 ] && n=500000

. "$(dirname "$0")/../lib/tap.sh"

[ -n "${RUNNER:-}" ] && skip_all "the library is built for a target this" \
	"host's python3 cannot load (RUNNER=$RUNNER)"
if ! command -v python3 >/dev/null 2>&1; then
	fail "python3 not found (tools/deps.sh installs it)"
	tap_done
fi
preload=
case ${SANITIZE:-} in
'') ;;
*thread*) preload=$($cc -print-file-name=libtsan.so) ;;
*address*) preload=$($cc -print-file-name=libasan.so) ;;
*undefined*) preload=$($cc -print-file-name=libubsan.so) ;;
esac
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
env ${preload:+LD_PRELOAD="$preload"} PYTHONPATH="$top/python" \
	PERFRING_LIB="$build/libperfring.so" PYTHONDONTWRITEBYTECODE=1 \
	python3 "$top/tests/python/ring_procs.py" "$n"
