#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring script streams the file: its memory does not grow with the
# file.  A 52 MB perf.data of 1.1 million small samples, in time order
# per ring only (as perf writes it), read with FINISHED_ROUND records
# (perf's) and without (a round-less file): the peak RSS stays far below
# the file's size, and the samples come out in time order, the same
# either way.  (perfring script held the whole file and 56 bytes per
# record: 127 MB of RSS for twice as many.)  No perf events needed.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
command -v python3 >/dev/null || skip_all "python3 is missing"
[ -x /usr/bin/time ] || skip_all "/usr/bin/time is missing"

n=600000
python3 "$top/tests/perf/gen_small.py" rounds.data $n --rounds &&
	python3 "$top/tests/perf/gen_small.py" plain.data $n
ok $? "two files of $n samples ($(($(stat -c %s plain.data) / 1048576)) MiB), with and without rounds"

# rss FILE OUT [OPTIONS]: perfring script's peak RSS in KiB.
rss() {
	local f=$1 o=$2
	shift 2
	/usr/bin/time -f %M -o rss.txt "$P" script -i "$f" "$@" >"$o" \
		2>"$o.err"
	echo "$? $(tail -1 rss.txt)"
}
read -r rc kr < <(rss rounds.data rounds.out)
[ "$rc" -eq 0 ] && [ "$kr" -lt 40960 ]
ok $? "with rounds: peak RSS $kr KiB (< 40 MiB for a $(($(stat -c %s rounds.data) / 1048576)) MiB file; exit $rc)"
diag <rounds.out.err
read -r rc kp < <(rss plain.data plain.out --queue-size 16)
[ "$rc" -eq 0 ] && [ "$kp" -lt 40960 ]
ok $? "without rounds, --queue-size 16: peak RSS $kp KiB (< 40 MiB; exit $rc)"
[ ! -s plain.out.err ]
ok $? "... and no record came too late to sort (nothing on stderr)"
diag <plain.out.err
[ "$(wc -l <rounds.out)" -eq $n ] && cmp -s rounds.out plain.out
ok $? "both print the $n samples, the same lines"
awk '{ t = $4 + 0; if (t < last) bad++; last = t } END { exit bad > 0 }' \
	rounds.out
ok $? "in time order"
# A queue too small for a file's disorder (100,000 records a turn): the
# records that came too late are printed where they came, and counted.
python3 "$top/tests/perf/gen_small.py" wide.data 200000 --turn 100000
"$P" script -i wide.data --queue-size 1 >wide.out 2>wide.err
rc=$?
[ $rc -eq 0 ] && grep -q 'records out of time order by more than --queue-size 1 MiB' wide.err &&
	[ "$(wc -l <wide.out)" -eq 200000 ]
ok $? "--queue-size 1 on a wider disorder: every sample printed, the late ones reported (exit $rc: $(head -c 100 wide.err))"
tap_done
