#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding's handles under threads: tests/python/close_race.py
# closes a ring, a group and a shared ring while other threads are inside
# a write, a read or a wait (ctypes drops the GIL for a C call), in
# interpreters of their own, and counts those that crashed (0 expected);
# a raw integer where the binding wants its own handle is refused.  TAP
# comes from it.  Under SANITIZE the sanitizer's runtime is preloaded.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
cc=${CC:-cc}
procs=4
[ "${PFR_LONG:-0}" = 1 ] && procs=40

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
	python3 "$top/tests/python/close_race.py" "$procs" 5
