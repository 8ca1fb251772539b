#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/examples/record.c, the session API's example (at most 30 lines):
# built against the static library, it records a shell loop and prints
# its samples: one process, times in order, as many as its CPU time at
# 4000 Hz gives (at least a few); a child's samples too (the session's
# default event follows children, as perf record's does); `true` records and exits 0; a missing
# command is an error.  Skips only when perf_event_open is refused.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
[ -n "${RUNNER:-}" ] &&
	skip_all "perf events of a program under $RUNNER measure the emulator"

src=$top/docs/examples/record.c
lines=$(wc -l <"$src")
[ "$lines" -le 30 ]
ok $? "the example is $lines lines (at most 30)"
san=()
[ -n "${SANITIZE:-}" ] && san=(-fsanitize="$SANITIZE")
${CC:-cc} -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror "${san[@]}" \
	-I"$top/include" -o "$tmp/record" "$src" "$build/libperfring.a" \
	-lpthread -lrt 2>"$tmp/cc.err"
ok $? "the example builds with -Wall -Wextra -Werror"
diag <"$tmp/cc.err"
[ -x "$tmp/record" ] || finish

# 300000 rounds of the shell's own arithmetic: ~0.2 s of CPU, no children.
"$tmp/record" sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done' \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && grep -q "perf_event_open refused" "$tmp/err"; then
	cat "$tmp/err"
	skip_all "perf_event_open refused here"
fi
ok $rc "the example records a shell loop (exit $rc)"
diag <"$tmp/err"
cnt=$(grep -cE '^sample [0-9]+/[0-9]+ [0-9]+ 0x[0-9a-f]+$' "$tmp/out")
[ "$cnt" -ge 10 ] && [ "$cnt" -eq "$(wc -l <"$tmp/out")" ]
ok $? "it printed $cnt samples, every line a sample"
[ "$(awk '{print $2}' "$tmp/out" | sort -u | wc -l)" -eq 1 ]
ok $? "all from the one process it ran"
sort -n -k3,3 -c "$tmp/out" 2>/dev/null
ok $? "in time order"
head -n 3 "$tmp/out" | diag

# Children are followed, as perf record follows them (inherit): a loop run
# by a child shell gives samples of a second process.
"$tmp/record" sh -c 'sh -c "i=0; while [ \$i -lt 300000 ]; do i=\$((i+1)); done"; true' \
	>"$tmp/out" 2>"$tmp/err"
ok $? "the example records a shell that runs a child"
pids=$(awk '{ split($2, a, "/"); print a[1] }' "$tmp/out" | sort -u | wc -l)
[ "$pids" -ge 2 ]
ok $? "the child's samples are there too: $pids processes (inherit on)"

"$tmp/record" true >"$tmp/out" 2>"$tmp/err"
ok $? "the example records true and exits 0"
"$tmp/record" no-such-command-pfr >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot execute the command" "$tmp/err"
ok $? "a missing command: exit $rc, '$(cat "$tmp/err")'"
tap_done
