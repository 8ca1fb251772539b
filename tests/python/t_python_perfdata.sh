#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring.perfdata (the ctypes binding of libperfring-perfdata) reads
# what `perfring script --json` prints, sample for sample: a -g recording
# of a program of our own (times, ids, symbols, every call-chain frame)
# and a tracepoint recording (every field, by name, with Python types);
# header features, build ids, the process model; errors (a missing file,
# not a perf.data, a file cut short) as perfring.Error with .code and
# .errno; use after close() raises, no crash.  tests/python/perfdata.py
# does the checks (TAP comes from it); the recordings are made here.
set -u
. "$(dirname "$0")/lib.sh"
P=${PERFRING:-$build/perfring}
[ -n "${RUNNER:-}" ] && skip_all "perf events of a program under $RUNNER" \
	"measure the emulator"
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
if [ "$(id -u)" -ne 0 ] && [ "$par" -gt 1 ]; then
	skip_all "not root and kernel.perf_event_paranoid=$par"
fi
tmp=$(mktemp -d /tmp/pfr-pdpy.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

cat >busy.c <<'EOC'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) static void leaf(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i * 7;
}
__attribute__((noinline)) void middle(unsigned long n)
{
	leaf(n);
	leaf(n / 2);
}
int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 40;

	while (k--)
		middle(1000000);
	return 0;
}
EOC
# the recordings' failures are reported by perfdata.py (TAP is its own)
cc -O1 -g -fno-omit-frame-pointer -o busy busy.c >rec.log 2>&1 &&
	"$P" record -g -e cpu-clock -c 50000 -o g.data ./busy 200 \
		>>rec.log 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -qi "perf_event_open\|permission" rec.log; then
	skip_all "the kernel refuses perf events: $(tail -n 1 rec.log)"
fi
[ $rc -eq 0 ] && "$P" script --json -i g.data >g.json 2>>rec.log

# tracepoints: when tracefs has them (else the checks skip)
tp=
if [ ! -d /sys/kernel/tracing/events ] && [ "$(id -u)" -eq 0 ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
fi
if [ -d /sys/kernel/tracing/events/raw_syscalls ] &&
	"$P" record -e sched:sched_switch -e raw_syscalls:sys_enter \
		-e sched:sched_process_exec \
		-e syscalls:sys_enter_openat -o tp.data -- sh -c \
		'for i in 1 2 3; do ls / >/dev/null; cat /etc/hostname; done' \
		>tp.log 2>&1 &&
	"$P" script --json -i tp.data >tp.json 2>>tp.log; then
	tp=tp
fi
run_python perfdata.py "$tmp" "$P" "$tp"
