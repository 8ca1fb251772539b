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
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
cc=${CC:-cc}
out=$build/tests/harden
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tool=$out/harden_tool_plain
# perfring script's libraries (mk/script.mk)
script_libs=$(pkg-config --cflags --libs libtraceevent libelf libdw)
# shellcheck disable=SC2086
if ! $cc -O1 -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -I"$top/include" \
	-I"$top/src" -I"$top/cli" -o "$tool" \
	"$top/tests/harden/harden_tool.c" "$top/cli/cmd_script.c" \
	"$top/cli/perf_out.c" "$top/cli/perf_elf.c" "$top/cli/perf_trace.c" \
	"$top/cli/cli_util.c" "$top"/src/*.c $script_libs \
	-lpthread -lrt >"$tmp/build.log" 2>&1; then
	diag <"$tmp/build.log"
	fail "harden_tool builds"
	tap_done
fi

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
