#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every function libperfring exports (src/abi/perfring.map) called with
# NULL pointers, and with zeroed structs, each call in a child process:
# none may crash or hang (<perfring/ring.h>, "NULL pointers").  The calls
# are generated from the map and the headers' prototypes by
# tests/harden/null_calls.py, so a new function is covered as soon as it is
# exported.
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

lib=$build/libperfring.so
if ! [ -e "$lib" ]; then
	fail "$lib exists (make all builds it)"
	tap_done
fi
if ! python3 "$top/tests/harden/null_calls.py" "$top" >"$tmp/null.c" \
	2>"$tmp/gen.log"; then
	diag <"$tmp/gen.log"
	fail "null_calls.py generates the calls"
	tap_done
fi
# a sanitized library (SANITIZE=...) needs its runtime in the program
san=
ldd "$lib" | grep -q libasan && san=-fsanitize=address,undefined
ldd "$lib" | grep -q libtsan && san=-fsanitize=thread
# shellcheck disable=SC2086
if ! $cc -std=gnu11 $san -I"$top/include" -o "$out/null_calls" \
	"$tmp/null.c" -ldl >"$tmp/build.log" 2>&1; then
	diag <"$tmp/build.log"
	fail "the generated calls build"
	tap_done
fi
# The program prints its own TAP: pass it through, and its status.
"$out/null_calls" "$lib" </dev/null
