#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring stress --processes when one side is killed with SIGKILL:
#  - the writer (the parent) killed: the reader process notices (a pidfd
#    of the writer), says so, exits 3 instead of running forever; a named
#    shm object (--shm) is already gone from /dev/shm;
#  - the reader (the child) killed: the writer stops the run at once (a
#    BLOCK writer no longer waits 1024 time-outs between looks at the
#    clock) and reports "reader process N died (killed by signal 9...)",
#    exit 1.
# The runs are asked for 600 s: the verdict is that they end because the
# peer died (the time limits below only turn a hang into a failure).
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

tool=$out/harden_tool_plain
build_tool "$tool" "harden_tool builds" -O1

# --- kill -9 the writer: the orphaned reader must end, and say why ---
for v in "" "-p block" "--wait" "-p overwrite" "-p block --wait" "--shm"; do
	# shellcheck disable=SC2086
	"$tool" orphan 300 120 "$P" stress --processes $v --seconds 600 \
		>"$tmp/o" 2>"$tmp/e"
	pid=$(sed -n 's/^pid //p' "$tmp/o")
	res=$(grep -v '^pid' "$tmp/o")
	[ "$res" = "exit 3" ] &&
		grep -q "writer process $pid died during the run" "$tmp/e"
	ok $? "writer killed (stress --processes $v): the reader ends with \
status 3 and names the cause (got '$res': $(head -c 160 "$tmp/e"))"
	if [ "$v" = "--shm" ]; then
		[ -n "$pid" ] && [ ! -e "/dev/shm/perfring-stress-$pid" ]
		ok $? "--shm: /dev/shm/perfring-stress-$pid is not left behind"
	fi
done

# --- kill -9 the reader: the writer stops, exit 1, names the cause ---
for v in "-p block" "-p block --wait" "" "-p overwrite" "--shm -p block"; do
	# shellcheck disable=SC2086
	"$P" stress --processes $v --seconds 600 >"$tmp/o" 2>"$tmp/e" &
	w=$!
	c=
	for _ in $(seq 1 1200); do
		c=$(cat "/proc/$w/task/$w/children" 2>/dev/null)
		c=${c%% *}
		[ -n "$c" ] && break
		sleep 0.05
	done
	sleep 1 # mostly mid-run; a reader killed before it starts counts too
	[ -n "$c" ] && kill -9 "$c"
	for _ in $(seq 1 1200); do
		kill -0 "$w" 2>/dev/null || break
		sleep 0.1
	done
	hung=
	kill -0 "$w" 2>/dev/null && hung=" (hung: killed)" && kill -9 "$w"
	wait "$w"
	rc=$?
	[ -n "$c" ] && [ $rc -eq 1 ] && [ -z "$hung" ] &&
		grep -q "reader error: reader process $c died (killed by signal 9" \
			"$tmp/o"
	ok $? "reader $c killed (stress --processes $v): the writer stops, \
exit $rc$hung, names the cause: $(tr '\n' ' ' <"$tmp/o" | head -c 240)"
done

tap_done
