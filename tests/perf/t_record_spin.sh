#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# perfring record on a child that spins in a known function for one second
# of CPU time at -F 1000: every sample is the child's thread, the IPs fall
# inside spin_here(), the count is 1000 within the range below, nothing is
# lost, and the summary reports records by type, samples, lost, bytes,
# wake-ups and the reader's CPU time.
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1
need_perf_events
build_spin

$P record -F 1000 --json -- "$tmp/spin" 1 >"$tmp/out.json" 2>"$tmp/err"
rc=$?
ok $rc "record -F 1000 --json -- spin 1 exits 0"
[ $rc -eq 0 ] || diag <"$tmp/err"

# The child's pid: from its exec COMM record.
pid=$(grep '"type":"COMM"' "$tmp/out.json" | grep '"new_comm":"spin"' |
	sed -n 's/.*"pid":\([0-9]*\).*/\1/p' | head -n1)
ok $([ -n "$pid" ]; echo $?) "the exec COMM record names the child (pid ${pid:-none})"

grep '"type":"SAMPLE"' "$tmp/out.json" >"$tmp/samples"
count=$(wc -l <"$tmp/samples")
# Tolerance: the kernel's frequency mode settles within a few samples and
# cpu-clock fires on CPU time, so 1 s of CPU at 1000 Hz gives 1000 +- 10%.
lo=900 hi=1100
ok $([ "$count" -ge $lo ] && [ "$count" -le $hi ]; echo $?) \
	"$count samples, expected $lo..$hi"

tids=$(sed -n 's/.*"tid":\([0-9]*\).*/\1/p' "$tmp/samples" | sort -u | tr '\n' ' ')
ok $([ "$tids" = "$pid " ]; echo $?) "every sample's tid is the child's ($tids)"

read -r start size < <(nm -S "$tmp/spin" | awk '$4 == "spin_here" { print $1, $2 }')
start=$((16#$start)) end=$((start + 16#$size))
inside=0
while read -r ip; do
	v=$((ip))
	if [ $v -ge $start ] && [ $v -lt $end ]; then inside=$((inside + 1)); fi
done < <(sed -n 's/.*"ip":"\(0x[0-9a-f]*\)".*/\1/p' "$tmp/samples")
# The rest are the vDSO clock_gettime and kernel entries from it.
ok $([ $((inside * 100)) -ge $((count * 90)) ]; echo $?) \
	"$inside of $count IPs inside spin_here [$(printf '%#x' $start), $(printf '%#x' $end)) (>= 90%)"
syms=$(grep -c '"sym":"spin_here"' "$tmp/samples")
ok $([ "$syms" -eq "$inside" ]; echo $?) "all $inside resolved to spin_here by the ELF symbol table"

sum=$(grep '"type":"summary"' "$tmp/out.json")
for k in records samples lost bytes wakeups reader_cpu_s; do
	v=$(json_num "$sum" $k)
	ok $([ -n "$v" ]; echo $?) "summary has $k ($v)"
done
ok $([ "$(json_num "$sum" samples)" -eq "$count" ]; echo $?) "summary sample count matches the stream"
ok $([ "$(json_num "$sum" lost)" -eq 0 ]; echo $?) "nothing lost"
ok $(grep -q '"by_type":{[^}]*"SAMPLE":' <<<"$sum"; echo $?) "summary counts records by type"

# The text stream: perf script's default shape.
$P record --stream -F 1000 -- "$tmp/spin" 0.2 >"$tmp/out.txt" 2>"$tmp/err"
line=$(grep -m1 'cpu-clock:.*spin_here+0x' "$tmp/out.txt")
ok $(grep -Eq '^ +spin +[0-9]+ \[[0-9]{3}\] +[0-9]+\.[0-9]{6}: +[0-9]+ cpu-clock: +[0-9a-f]+ spin_here\+0x[0-9a-f]+ \(.*/spin\)$' <<<"$line"; echo $?) \
	"text line in perf script's shape: '$line'"
for k in "records:" "samples," "lost" "bytes" "wake-ups" "reader CPU time"; do
	ok $(grep -q "$k" "$tmp/err"; echo $?) "human summary on stderr mentions '$k'"
done
tap_done
