#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding's families across processes: tests/python/families.py
# checks the errors' .code and .errno (EBADF, ENOENT, EEXIST, None), a
# ring in POSIX shm written by a child, a group and a shared ring in a
# memfd written by three processes each (every writer's records in order,
# none lost), and the perf session on a command (skipped, with the
# reason, where the kernel refuses perf events).  TAP comes from it.
# Under SANITIZE the sanitizer's runtime is preloaded.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
cc=${CC:-cc}

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
	python3 "$top/tests/python/families.py"
