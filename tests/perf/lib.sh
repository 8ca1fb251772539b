# SPDX-License-Identifier: MIT
# Shared helpers of the tests/perf shell tests (sourced, not run).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
tmp=$(mktemp -d /tmp/pfr-perf.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
# perfring record's build-id cache goes here, not into the user's
# ~/.debug (perf itself ignores the variable: its tests pass
# --buildid-dir when they care)
export PERF_BUILDID_DIR=$tmp/.debug
# shellcheck source=tests/lib/tap.sh
. "${BASH_SOURCE[0]%/*}/../lib/tap.sh"

# The kernel must let us sample: root, or a low perf_event_paranoid.
need_perf_events() {
	[ -n "${RUNNER:-}" ] &&
		skip_all "perf events of a program under $RUNNER measure the emulator"
	local par
	par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 3)
	if [ "$(id -u)" -ne 0 ] && [ "$par" -gt 1 ]; then
		skip_all "not root and kernel.perf_event_paranoid=$par"
	fi
	[ -e /proc/sys/kernel/perf_event_paranoid ] ||
		skip_all "kernel without perf events"
}

# perf(1) is installed in CI (tools/deps.sh: linux-perf): missing is a failure.
need_perf_tool() {
	if ! command -v perf >/dev/null 2>&1; then
		fail "perf(1) is missing: install linux-perf (tools/deps.sh)"
		tap_done
	fi
}

# A program that spins in spin_here() for $1 seconds of its own CPU time
# (so that sample counts do not depend on how busy the machine is).
# Native cc (never a cross $CC), non-PIE so that nm addresses are IPs.
build_spin() {
	cat >"$tmp/spin.c" <<'EOC'
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void spin_here(double secs)
{
	struct timespec a, b;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	do {
		for (int i = 0; i < 200000; i++)
			sink += i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	} while ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}
int main(int argc, char **argv)
{
	spin_here(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
EOC
	cc -O1 -g -fno-omit-frame-pointer -no-pie -fno-pie -o "$tmp/spin" "$tmp/spin.c"
}

# Two processes passing a byte back and forth through pipes: two context
# switches per round trip.
build_pingpong() {
	cat >"$tmp/pingpong.c" <<'EOC'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int a[2], b[2];
	char c = 'x';
	pid_t p;

	if (pipe(a) || pipe(b))
		return 1;
	p = fork();
	if (p == 0) {
		close(a[1]); /* the parent's death is EOF here */
		close(b[0]);
		for (long i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	for (long i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	waitpid(p, NULL, 0);
	return 0;
}
EOC
	cc -O2 -o "$tmp/pingpong" "$tmp/pingpong.c"
}

# Field of a JSON Lines summary/record: json_num LINE KEY
json_num() { sed -n "s/.*\"$2\":\([0-9.]*\).*/\1/p" <<<"$1" | head -n1; }
