#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The library under attack (tests/harden/harden_lib.c, built here with the
# library's sources and the sanitizers when the compiler has them): loss
# counts that survive a writer killed between reserve and commit, a
# reader out of file descriptors that takes no live writer for dead, a
# wrong eventfd refused, the ordered merge's queue capped.
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

bin=$out/harden_lib
san=
if echo 'int main(void){return 0;}' |
	$cc -fsanitize=address,undefined -x c -o "$tmp/san" - 2>/dev/null; then
	san="-fsanitize=address,undefined -fno-omit-frame-pointer"
fi
# shellcheck disable=SC2086
if ! $cc -O1 -g $san -std=gnu11 -D_GNU_SOURCE -Wall -Wextra \
	-I"$top/include" -I"$top/src" -I"$top/tests" -o "$bin" \
	"$top/tests/harden/harden_lib.c" "$top/tests/tap.c" "$top"/src/ring/*.c "$top"/src/writers/*.c \
	-lpthread -lrt >"$tmp/build.log" 2>&1; then
	diag <"$tmp/build.log"
	fail "harden_lib builds"
	tap_done
fi
# The program prints its own TAP: pass it through, and its status.
ASAN_OPTIONS=detect_leaks=0 "$bin"
