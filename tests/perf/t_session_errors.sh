#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The session API's errors with perf privileges, through a small client
# (built here) that prints what pfr_perf_session_last_error() says, and
# through perfring record: a bad cpu list, a pid that has exited, a pid
# that exits while it is recorded (the recording ends, exit 0), EACCES
# for an unprivileged user at perf_event_paranoid 2 (kernel sampling) and
# 3 (everything, where the kernel enforces it).  The paranoid setting is
# restored on exit.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events

cat >"$tmp/serr.c" <<'EOT'
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfring/perf.h>

/* serr cpus LIST | serr pid PID | serr cmd CMD... */
int main(int argc, char **argv)
{
	struct pfr_perf_session_opts o = {.sz = sizeof(o)};
	struct pfr_perf_session_error e = {.sz = sizeof(e)};
	struct pfr_perf_session_stats st = {.sz = sizeof(st)};
	struct pfr_perf_session *s;
	int err;

	if (argc < 3 || pfr_perf_session_create(&s, &o))
		return 2;
	if (!strcmp(argv[1], "cpus"))
		err = pfr_perf_session_set_cpus(s, argv[2]);
	else if (!strcmp(argv[1], "pid"))
		err = pfr_perf_session_add_process(s, atoi(argv[2]));
	else
		err = pfr_perf_session_start_command(s, argv + 2);
	if (!err && strcmp(argv[1], "cpus") &&
	    !(err = pfr_perf_session_open(s)) &&
	    !(err = pfr_perf_session_enable(s)))
		err = pfr_perf_session_run(s);
	pfr_perf_session_last_error(s, &e);
	pfr_perf_session_stats(s, &st);
	printf("err=%s step=%d errno=%s cpu=%d records=%llu\n",
	       err ? pfr_perf_strerror(err) : "0", e.step,
	       e.sys_errno ? strerror(e.sys_errno) : "0", e.cpu,
	       (unsigned long long)st.records);
	pfr_perf_session_destroy(s);
	return err ? 1 : 0;
}
EOT
san=()
[ -n "${SANITIZE:-}" ] && san=(-fsanitize="$SANITIZE")
${CC:-cc} -std=gnu11 -Wall -Werror "${san[@]}" -I"$top/include" \
	-o "$tmp/serr" "$tmp/serr.c" "$build/libperfring.a" -lpthread -lrt \
	2>"$tmp/cc.err"
ok $? "the client builds"
diag <"$tmp/cc.err"

expect() { # exit status, output regex, description, command...
	local want=$1 re=$2 desc=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && grep -Eq -- "$re" "$tmp/out" "$tmp/err"; then
		ok 0 "$desc: exit $rc"
	else
		ok 1 "$desc: exit $rc (want $want and /$re/)"
		diag <"$tmp/out"
		diag <"$tmp/err"
	fi
}

# Bad cpu lists.
expect 1 "err=a CPU that is not online step=6 errno=0 cpu=99999" \
	"session: a CPU that is not online" "$tmp/serr" cpus 0,99999
expect 1 "err=invalid argument step=6" "session: a reversed range" \
	"$tmp/serr" cpus 3-1
expect 2 "bad -C '0,99999': CPU 99999 is not online" \
	"record: a CPU that is not online" $P record -C 0,99999 -- true

# A pid that has exited.
true &
gone=$!
wait $gone
expect 1 "err=no such process step=7" "session: a pid that has exited" \
	"$tmp/serr" pid $gone
expect 1 "no such process $gone \(No such file or directory\)" \
	"record: a pid that has exited" $P record -p $gone

# A pid that exits while it is recorded: its rings hang up, the
# recording ends by itself (the time-out only catches a hang).
sleep 1 &
pid=$!
expect 0 "err=0 step=0" "session: a pid that exits while recorded" \
	timeout 60 "$tmp/serr" pid $pid
wait $pid 2>/dev/null
sh -c 'i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done' &
pid=$!
expect 0 "wrote $tmp/p.data" "record -p: a pid that exits while recorded" \
	timeout 60 $P record -o "$tmp/p.data" -p $pid
wait $pid 2>/dev/null
$P script -i "$tmp/p.data" >"$tmp/script" 2>&1
ok $? "its perf.data reads back ($(grep -c cpu-clock "$tmp/script") samples)"

# EACCES for an unprivileged user.
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then
	skip "not root, or no setpriv" "paranoid cases"
	finish
fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
old=$(cat /proc/sys/kernel/perf_event_paranoid)
trap 'echo "$old" >/proc/sys/kernel/perf_event_paranoid; rm -rf "$tmp"' EXIT
echo 2 >/proc/sys/kernel/perf_event_paranoid
# The client samples the kernel too (no exclude_kernel): refused at 2.
expect 1 "err=perf_event_open refused an event step=1 errno=Permission denied" \
	"session: kernel sampling as nobody at paranoid 2 is EACCES" \
	as_nobody "$tmp/serr" cmd true
expect 3 "not permitted: kernel.perf_event_paranoid is 2.*CPU-wide" \
	"record -a as nobody at paranoid 2" as_nobody $P record -a -- true
echo 3 >/proc/sys/kernel/perf_event_paranoid
as_nobody $P record -q -o /dev/null -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
echo "$old" >/proc/sys/kernel/perf_event_paranoid
if [ $rc -eq 0 ]; then
	skip "this kernel does not enforce level 3 (a Debian patch does)" "paranoid 3"
else
	[ $rc -eq 3 ] && grep -q "not permitted: kernel.perf_event_paranoid is 3, which forbids all perf events" "$tmp/err"
	ok $? "record as nobody at paranoid 3: exit $rc, all perf events forbidden"
	diag <"$tmp/err"
fi
tap_done
