#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The library's rings with threads under ThreadSanitizer
# (tests/sanitize/tsan_threads.c, linked with the library built by
# `make SANITIZE=thread` into the build directory t_tsan.sh uses): a ring
# writer and reader (ACQREL), and a 2-slot group whose slots pass between
# 3 concurrent writers while the reader drains and frees them, and a
# writer's wake-ups looking its group up in the process's registry of
# groups while another group is created.  Fails on a lost, corrupt or
# (for one writer, across its leaves and joins) out-of-order record, or
# any TSan report.
#
# FULL and CTRLDEP are not run here: their B (and FULL's A, C, D) is a
# fence (smp_wmb/smp_rmb/smp_mb), which TSan does not model, so a correct
# ring is reported as a race.  Their acquire and release (CTRLDEP's A, C,
# D) are the same lines of <perfring/ring-proto.h> as ACQREL's, which run
# here; the fences are checked by the Relacy models (tests/model).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
build=${PFR_BUILD:-$top/build}-tsan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int main(void) { return 0; }' >"$tmp/p.c"
if ! $cc -fsanitize=thread "$tmp/p.c" -o "$tmp/p" >"$tmp/log" 2>&1 ||
	! "$tmp/p" >>"$tmp/log" 2>&1; then
	skip_all "$cc has no working -fsanitize=thread:" \
		"$(head -c 200 "$tmp/log" | tr '\n' ' ')"
fi
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$top" --no-print-directory \
	-j2 BUILD="$build" SANITIZE=thread CC="$cc" "$build/libperfring.a" \
	>"$tmp/log" 2>&1
ok $? "make BUILD=${build#"$top"/} SANITIZE=thread libperfring.a" "$tmp/log"
$cc -std=gnu11 -O1 -g -fsanitize=thread -Wall -Wextra -Wno-tsan \
	-I"$top/include" "$top/tests/sanitize/tsan_threads.c" \
	"$build/libperfring.a" -lpthread -o "$tmp/tsan_threads" >"$tmp/log" 2>&1
ok $? "build tsan_threads with -fsanitize=thread" "$tmp/log"
[ -x "$tmp/tsan_threads" ] || tap_done
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
for args in "ring acqrel" "group" "registry"; do
	# shellcheck disable=SC2086
	timeout -k 10 300 "$tmp/tsan_threads" $args >"$tmp/log" 2>&1
	rc=$?
	grep -q 'WARNING: ThreadSanitizer' "$tmp/log" && [ $rc -eq 0 ] && rc=1
	ok $rc "tsan_threads $args: every record intact, no TSan report" \
		"$tmp/log"
done
tap_done
