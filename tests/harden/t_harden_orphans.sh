#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The children of a many-writer stress run (--mode group|mpsc
# --processes) end with their parent: killing the parent with SIGKILL
# mid-run (asked for 600 s) leaves no writer, reader, stopper or helper
# process running.  (The single-ring stress is t_harden_stress.sh's.)
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

# descendants PID: every process below PID, one a line
descendants() {
	local c
	# shellcheck disable=SC2013 # pids are words
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# running PID...: those of PID... that still run (a zombie, waiting for
# whoever inherited it to reap it, runs no more)
running() {
	local p s
	for p in "$@"; do
		s=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
		[ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ] && echo "$p"
	done
}

for v in "group" "group --wait" "group --kill-writer" "mpsc" "mpsc --wait"; do
	mode=${v%% *}
	extra=${v#"$mode"}
	# shellcheck disable=SC2086
	"$P" stress --mode $mode --processes $extra -w 3 --seconds 600 \
		>"$tmp/o" 2>&1 &
	parent=$!
	kids=
	for _ in $(seq 1 100); do
		kids=$(descendants "$parent")
		[ "$(echo "$kids" | grep -c .)" -ge 3 ] && break
		sleep 0.1
	done
	sleep 0.5
	kids=$(descendants "$parent")
	n=$(echo "$kids" | grep -c .)
	kill -9 "$parent"
	wait "$parent" 2>/dev/null
	left=
	for _ in $(seq 1 50); do
		# shellcheck disable=SC2086
		left=$(running $kids | xargs)
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ "$n" -ge 3 ] && [ -z "$left" ]
	ok $? "stress --mode $v --processes: parent killed, its $n children \
end within 5 s (still running: ${left:-none})"
	# shellcheck disable=SC2086
	[ -n "$left" ] && kill -9 $left 2>/dev/null
done
tap_done
