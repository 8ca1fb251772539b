#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every failure perfring record and script report: the message names the
# cause and the fix, the exit status is the documented one
# (man/perfring-record.1): 2 usage, 3 not permitted, 4 event unknown or
# unsupported, 5 tracefs, 6 mmap, 127 command not found, 1 otherwise.
# The unprivileged cases run as nobody (setpriv) when we are root.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events

expect() { # exit status, message regex, description, command...
	local want=$1 re=$2 desc=$3 rc
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq "$want" ] && grep -Ezq -- "$re" "$tmp/err"; then
		ok 0 "$desc: exit $rc"
	else
		ok 1 "$desc: exit $rc (want $want and /$re/)"
		diag <"$tmp/err"
	fi
}

# Usage errors.
for bad in "-c 0 -- true" "-c 10 -F 10 -- true" "-m 3X -- true" \
	"-a -p 1" "--bogus -- true" "-t 1 -p 1" "-e" \
	"-F x -- true" "-C 99999 -- true" "-C 1-0 -- true" "-G x -- true" \
	"-e {cpu-clock -- true" "--call-graph lbr -- true" \
	"--off-cpu -- true" "-o - --json -- true"; do
	expect 2 "perfring record: .*" "usage: record $bad" $P record $bad
done
expect 2 "perfring script: unknown" "usage: script --bogus" $P script --bogus

# Events.
expect 4 "unknown event 'no-such-event'.*" "unknown event" \
	$P record -e no-such-event -- true
grep -q "Fix: use one of: cpu-clock" "$tmp/err"
ok $? "the unknown-event message lists the known events"
expect 4 "no such tracepoint" "unknown tracepoint" \
	$P record -e sched:no_such_tracepoint -- true
PFR_TRACEFS=$tmp/no-tracefs expect 5 "tracefs is not mounted.*mount -t tracefs" \
	"tracefs not mounted (PFR_TRACEFS points nowhere)" \
	env PFR_TRACEFS="$tmp/no-tracefs" $P record -e sched:sched_switch -- true
grep -q "Fix (as root): mount -t tracefs nodev /sys/kernel/tracing" "$tmp/err"
ok $? "the tracefs message says how to mount it"
# Hardware events: unsupported in a virtual machine, fine elsewhere
# (cycles falls back to cpu-clock as in perf: instructions does not).
if $P record -q -e instructions -o "$tmp/hw.data" -- true 2>"$tmp/hw.err"; then
	skip "no unsupported hardware event to test" "instructions works here (a PMU is exposed)"
else
	expect 4 "hardware event not supported on this machine.*" \
		"hardware event in a VM" $P record -e instructions -- true
	grep -q "virtual machine usually exposes no PMU" "$tmp/err" &&
		grep -q "Fix: use a software event such as -e cpu-clock" "$tmp/err"
	ok $? "the hardware-event message names the VM cause and the fix"
fi
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
expect 4 "above kernel.perf_event_max_sample_rate \($rate\)" \
	"-F above the kernel's maximum rate" $P record -F $((rate * 10)) -- true

# Targets.
expect 127 "command not found: 'no-such-command-pfr'.*" "command not found" \
	$P record -- no-such-command-pfr
grep -q "Fix: check its spelling and \$PATH" "$tmp/err"
ok $? "the command-not-found message says how to fix it"
echo 'not a program' >"$tmp/notexec"
chmod 644 "$tmp/notexec"
expect 126 "cannot execute '$tmp/notexec': Permission denied" \
	"command not executable" $P record -- "$tmp/notexec"
expect 1 "no such process 999999999|bad -p" "no such process" \
	$P record -p 999999999
expect 1 "no such process.*Fix" "no such process (in range)" \
	$P record -p 4194300

# Output file.
expect 1 "cannot create $tmp/no/such/dir/x.data: No such file or directory" \
	"-o into a directory that does not exist" \
	$P record -o "$tmp/no/such/dir/x.data" -- true

# mmap too large (as root there is no locked-memory limit, only memory).
expect 6 "cannot map a ring of [0-9]+ KiB per CPU \(-m 1073741824\).*Fix|cannot map" \
	"ring larger than memory" $P record -m 1073741824 -- true

# Unprivileged: run as nobody.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	par=$(cat /proc/sys/kernel/perf_event_paranoid)
	if [ "$par" -gt 0 ]; then
		expect 3 "not permitted: kernel.perf_event_paranoid is $par.*CPU-wide" \
			"-a as an unprivileged user (paranoid $par)" \
			as_nobody $P record -a -- true
		grep -q "sysctl -w kernel.perf_event_paranoid=0" "$tmp/err"
		ok $? "the paranoid message gives the sysctl that allows it"
	else
		skip "paranoid case" "paranoid $par allows -a to everyone"
	fi
	expect 3 "on thread 1: not permitted.*Fix: you may only record your own" \
		"another user's process (-p 1) as nobody" as_nobody $P record -p 1
	mlock=$(cat /proc/sys/kernel/perf_event_mlock_kb)
	expect 6 "above the locked-memory allowance \(kernel.perf_event_mlock_kb = $mlock KiB" \
		"a 16 MiB ring as nobody" as_nobody $P record -m 4096 -- true
	# And what an unprivileged user may do: its own command, user space.
	as_nobody $P record -q -F 200 -o /dev/null -- true 2>"$tmp/err"
	ok $? "nobody may record its own command (user space only)"
	diag <"$tmp/err"
else
	skip "not root (cannot switch to nobody)" "unprivileged cases"
fi

# script errors.
expect 1 "no-such.data: No such file.*|Fix: record one first" "script on a missing file" \
	$P script -i "$tmp/no-such.data"
head -c 300 /dev/urandom >"$tmp/junk.data"
expect 1 "not a perf.data file" "script on random bytes" $P script -i "$tmp/junk.data"
# A perf.data cut in the middle of its data: the header points past the end.
$P record -q -F 1000 -o "$tmp/ok.data" -- true 2>/dev/null
head -c 400 "$tmp/ok.data" >"$tmp/cut.data"
expect 1 "out of bounds|malformed" "script on a truncated file" $P script -i "$tmp/cut.data"
tap_done
