#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A zstd frame cut at every length (issue 34, item 3): the second of two
# frames of 10 samples keeps its first K bytes, in a whole COMPRESSED
# record of a pipe-format perf.data.  perfring script reads the first
# frame's 10 samples, then exits non-zero naming the cut frame; it never
# loses the second frame's samples in silence, and never crashes.
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

gen=$out/gen_crafted
if ! $cc -O1 -std=gnu11 -Wall -Wextra -o "$gen" \
	"$top/tests/harden/gen_crafted.c" -lzstd >"$tmp/gen.log" 2>&1; then
	diag <"$tmp/gen.log"
	fail "gen_crafted builds (libzstd-dev: tools/deps.sh)"
	tap_done
fi
pass "gen_crafted builds"
cd "$tmp" || exit 1
"$gen" zframes ok z.data
"$gen" zframes cut:0 one.data
# the second frame's length: what its records add to the file, less the
# COMPRESSED record's 8-byte header
flen=$(($(stat -c %s z.data) - $(stat -c %s one.data) - 8))
bad=0 loud=0
for ((k = 1; k < flen; k++)); do
	"$gen" zframes "cut:$k" c.data
	"$P" script -i c.data -F ip >c.txt 2>c.err
	rc=$?
	n=$(wc -l <c.txt)
	if [ $rc -eq 0 ] || [ $rc -ge 128 ] || [ "$n" -ne 10 ] ||
		! grep -q "inside zstd frame 2" c.err; then
		echo "frame cut to $k bytes: exit $rc, $n samples: \
$(head -c 200 c.err)" | diag
		bad=$((bad + 1))
	else
		loud=$((loud + 1))
	fi
done
[ $bad -eq 0 ]
ok $? "a $flen-byte frame cut to 1..$((flen - 1)) bytes: $loud reported, \
$bad silent, misreported or crashed"
tap_done
