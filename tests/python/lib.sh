# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# What the Python tests share, sourced by tests/python/t_*.sh:
#   run_python SCRIPT ARGS...   runs tests/python/SCRIPT with python3 on
#                               this build's library and python/ (TAP
#                               comes from the script); skipped under a
#                               RUNNER (a library this host's python3
#                               cannot load); under SANITIZE the
#                               sanitizer's runtime is preloaded (it must
#                               come first in the process).
top=${PFR_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
. "$top/tests/lib/tap.sh"

run_python() {
	local script=$1 cc=${CC:-cc} preload=
	shift
	[ -n "${RUNNER:-}" ] && skip_all "the library is built for a target" \
		"this host's python3 cannot load (RUNNER=$RUNNER)"
	if ! command -v python3 >/dev/null 2>&1; then
		fail "python3 not found (tools/deps.sh installs it)"
		tap_done
	fi
	case ${SANITIZE:-} in
	'') ;;
	*thread*) preload=$($cc -print-file-name=libtsan.so) ;;
	*address*) preload=$($cc -print-file-name=libasan.so) ;;
	*undefined*) preload=$($cc -print-file-name=libubsan.so) ;;
	esac
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
	env ${preload:+LD_PRELOAD="$preload"} PYTHONPATH="$top/python" \
		PERFRING_LIB="$build/libperfring.so" \
		PYTHONDONTWRITEBYTECODE=1 \
		python3 "$top/tests/python/$script" "$@"
}
