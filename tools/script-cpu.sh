#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Not part of make check: the CPU time (user + sys, /usr/bin/time) of
# `perfring script` against `perf script` on the same perf.data files, the
# benchmark of issue 33's targets.  Three recordings made by perf record of
# programs built here, each of at least MIN samples (default 100000):
#   fp:    -g (frame pointers) of a C program spinning in a 3-deep call chain
#   dwarf: --call-graph dwarf,2048 of the same program
#   tp:    raw_syscalls:sys_enter/sys_exit of a read/write loop
# Each reader's output goes to /dev/null; the two commands run interleaved,
# REPS times (default 3), and the medians are kept.  Also `script -s` with
# perf's stackcollapse.py on fp and syscall-counts.py on tp, when perf's
# Python scripts are installed; and the perf.data library's reader from C
# (tools/perfdata-rate.c) on the three files.  Writes OUT (default
# docs/results/script-cpu.txt), a table of CPU seconds and the ratio
# perfring / perf (below 1: perfring uses less).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
P=${PERFRING:-$top/build/perfring}
out=${OUT:-$top/docs/results/script-cpu.txt}
reps=${REPS:-3}
min=${MIN:-100000}
command -v perf >/dev/null || { echo "script-cpu: perf(1) is missing (tools/deps.sh)" >&2; exit 1; }
[ -x "$P" ] || { echo "script-cpu: $P is not built (make)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pfr-script-cpu.XXXXXX)
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
	long k = argc > 1 ? atol(argv[1]) : 10;
	while (k-- > 0)
		middle(20000000);
	return 0;
}
EOC
cat >sys.c <<'EOC'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int z = open("/dev/zero", O_RDONLY), d = open("/dev/null", O_WRONLY);
	char c;
	while (n-- > 0)
		if (read(z, &c, 1) != 1 || write(d, &c, 1) != 1)
			return 1;
	return 0;
}
EOC
cc -O1 -fno-omit-frame-pointer -o busy busy.c && cc -O1 -o sys sys.c || exit 1

samples() { perf report --stats -i "$1" 2>/dev/null |
	awk '/SAMPLE events/ { print $3; exit }'; }
# record NAME ARGS...: perf record into NAME.data until it holds MIN samples
record() {
	local name=$1 k=20 n=0
	shift
	while :; do
		perf record -q -o "$name.data" "$@" $k >/dev/null 2>&1
		n=$(samples "$name.data")
		[ "${n:-0}" -ge "$min" ] && break
		[ "$k" -gt 100000000 ] && { echo "script-cpu: $name: only $n samples" >&2; exit 1; }
		k=$((k * 2 * min / (${n:-0} + 1) + 1))
	done
	echo "$name: $n samples, $(du -m "$name.data" | cut -f1) MiB" >&2
	eval "n_$name=$n"
}
record fp -F 20000 -g -- ./busy
record dwarf -F 20000 --call-graph dwarf,2048 -- ./busy
record tp -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -- ./sys

cpu() { # command...: user+sys seconds
	/usr/bin/time -f "%U %S" -o time.out "$@" >/dev/null 2>run.err ||
		{ echo "script-cpu: failed: $*" >&2; sed 's/^/  /' run.err >&2; exit 1; }
	awk '{ printf "%.2f", $1 + $2 }' time.out
}
median() { tr ' ' '\n' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
SD=""
for d in "${PERF_EXEC_PATH:-}" /usr/libexec/perf-core /usr/lib/perf-core; do
	[ -n "$d" ] && [ -f "$d/scripts/python/stackcollapse.py" ] &&
		SD=$d/scripts/python && break
done
rows=""
# measure LABEL FILE [ARGS...]: both readers on FILE, REPS times interleaved
measure() {
	local label=$1 file=$2 a="" b="" r
	shift 2
	for r in $(seq "$reps"); do
		a="$a $(cpu perf script -i "$file" "$@")"
		b="$b $(cpu "$P" script -i "$file" "$@")"
	done
	a=$(echo $a | median)
	b=$(echo $b | median)
	rows="$rows$(printf '| %s | %s | %s | %s | %.2f |' "$label" \
		"$(eval echo "\$n_${file%.data}")" "$a" "$b" \
		"$(echo "$b $a" | awk '{ print ($2 > 0 ? $1 / $2 : 0) }')")
"
	echo "$label: perf $a s, perfring $b s" >&2
}
measure "script, -g (frame pointers)" fp.data
measure "script, --call-graph dwarf" dwarf.data
measure "script, tracepoints" tp.data
if [ -n "$SD" ]; then
	measure "script -s stackcollapse.py, -g" fp.data -s "$SD/stackcollapse.py"
	measure "script -s syscall-counts.py, tracepoints" tp.data -s "$SD/syscall-counts.py"
fi

# The library's reader, from C (tools/perfdata-rate.c): samples per CPU
# second with symbolized frames, the setup before the first sample apart.
B=$(dirname "$P")
lrows=""
if cc -O2 -I"$top/include" -o rate "$top/tools/perfdata-rate.c" \
	-L"$B" -lperfring-perfdata -lperfring 2>rate.err; then
	for f in fp dwarf tp; do
		best=""
		for _ in $(seq "$reps"); do
			line=$(LD_LIBRARY_PATH=$B ./rate "$f.data") || exit 1
			best="$best$line
"
		done
		# the median run by its rate
		line=$(printf '%s' "$best" | sort -k5,5g | sed -n "$(((reps + 1) / 2))p")
		# shellcheck disable=SC2086 # five numbers, split on purpose
		set -- $line
		lrows="$lrows| $f.data | $1 | $2 | $3 | $4 | $5 |
"
		echo "perfdata reader $f: $line" >&2
	done
else
	sed 's/^/  /' rate.err >&2
fi

{
	echo "# generated by tools/script-cpu.sh on $(date -u +%Y-%m-%d)"
	echo "# $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')),"
	echo "# $(perf version), load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# CPU seconds (user + sys) of each reader, median of $reps interleaved runs,"
	echo "# output to /dev/null; both readers time-shared with whatever else ran."
	echo
	echo "| reading | samples | perf script (s) | perfring script (s) | perfring / perf |"
	echo "|---|---:|---:|---:|---:|"
	printf '%s' "$rows"
	if [ -n "$lrows" ]; then
		echo
		echo "The library's reader from C (tools/perfdata-rate.c, pfr_perfdata_next() with"
		echo "symbolized frames; median of $reps runs by rate): CPU seconds in all, until"
		echo "the first sample (header, features, /proc/kallsyms), and samples per CPU"
		echo "second after it."
		echo
		echo "| file | samples | frames | CPU (s) | setup (s) | samples/s after setup |"
		echo "|---|---:|---:|---:|---:|---:|"
		printf '%s' "$lrows"
	fi
} >"$out"
cat "$out"
