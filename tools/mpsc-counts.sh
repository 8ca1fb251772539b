#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring's cost per reservation, before and after a change
# (by default: the lock-based reservation at f7d16ad against this tree's
# lock-free one), counted, not timed: one thread, no contention.
#
#   tools/mpsc-counts.sh [-b BEFORE_TREE] [-a AFTER_TREE] [-o FILE]
#
# A tree is a source tree whose build/ holds libperfring.a (built here
# with make -j2 when it is missing); without -b, a worktree of BEFORE_REV
# (default f7d16ad) is made in a temporary directory and built.  -a
# defaults to this tree.  For each tree:
#   1. tools/mpsc-counts.c (one source, both layouts) is compiled against
#      the tree's headers and library and run under callgrind, once per
#      function (--toggle-collect): instructions per pfr_mpsc_write() of a
#      16-byte record, per record of a pfr_mpsc_write_burst() of 32, and
#      the reader's per record (begin/next/end, every record checked);
#   2. the same program under lackey's memory trace, classified by
#      tools/mpsc-trace-count.py: atomic read-modify-writes (lock-prefixed
#      or memory-xchg instructions, found by objdump) and stores by the
#      shared region they hit (control-block line, the producer's slot,
#      the data area), per record, and the most common call (the fast
#      path) beside the mean;
#   3. the tree's own tools/mpsc-reserve-bench count mode under callgrind
#      (instructions per pfr_mpsc_write(), its measurement since layout 2)
#      as a cross-check of 1.
# Output: FILE (default docs/results/mpsc-reserve.txt).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
before='' after=$top out=$top/docs/results/mpsc-reserve.txt
rev=${BEFORE_REV:-f7d16ad}
nw=${N_WRITES:-200000} nb=${N_BURSTS:-10000}
while getopts b:a:o: o; do
	case $o in
	b) before=$OPTARG ;;
	a) after=$OPTARG ;;
	o) out=$OPTARG ;;
	*) exit 2 ;;
	esac
done
case $out in /*) ;; *) out=$PWD/$out ;; esac
for t in valgrind objdump nm python3 cc; do
	command -v $t >/dev/null || {
		echo "mpsc-counts: needs $t" >&2
		exit 1
	}
done
tmp=$(mktemp -d /tmp/pfr-mpsc-counts.XXXXXX)
wt=
# shellcheck disable=SC2317 # called by the trap
cleanup()
{
	[ -n "$wt" ] && git -C "$top" worktree remove --force "$wt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
if [ -z "$before" ]; then
	wt=$tmp/before
	git -C "$top" worktree add --detach "$wt" "$rev" >/dev/null 2>&1 || {
		echo "mpsc-counts: cannot make a worktree of $rev" >&2
		exit 1
	}
	before=$wt
fi
cflags="-O2 -g"
for t in "$before" "$after"; do
	make -C "$t" -j2 build/libperfring.a build/mpsc-reserve-bench \
		>"$tmp/make.log" 2>&1 || {
		echo "mpsc-counts: build failed in $t:" >&2
		tail -n 20 "$tmp/make.log" >&2
		exit 1
	}
done

# instructions per call of function $3 of program $1 run with args $2...
ir_per_call()
{
	local f=$tmp/cg.out
	rm -f "$f"
	valgrind --tool=callgrind --callgrind-out-file="$f" \
		--toggle-collect="$1" "${@:2}" >/dev/null 2>"$tmp/cg.err" || {
		cat "$tmp/cg.err" >&2
		return 1
	}
	sed -n 's/^summary: *//p;s/^totals: *//p' "$f" | head -n1
}

{
	echo "# perfring shared MPSC ring: cost per reservation, before/after"
	echo "# tools/mpsc-counts.sh -b ${before} -a ${after}, $(date -u +%FT%TZ)"
	echo "# before: $(git -C "$before" log -1 --format='%h %s' | cut -c1-70)"
	echo "# after:  $(git -C "$after" log -1 --format='%h %s' | cut -c1-70)$(git -C "$after" diff --quiet HEAD -- src include || echo ' (+ uncommitted changes)')"
	echo "# $(sed -n 's/^model name\t: //p' /proc/cpuinfo | head -n1), $(nproc) vCPUs (shared with other builds), kernel $(uname -r)"
	echo "# $(cc --version | head -n1), $cflags, $(valgrind --version)"
	echo "# placement: one thread (producer and reader in turn), unpinned:"
	echo "# counts of a simulated CPU (valgrind), independent of placement"
	echo "# and of the machine's load; no contention, so every CAS succeeds."
	echo "# 16-byte payload (24-byte records), 64 KiB ring, DROP, no"
	echo "# PFR_MPSC_WAIT; the reader drains every 64 records (burst: every"
	echo "# 2 bursts of 32); the ring wraps (a PAD) every ~2730 records."
	echo
} >"$out"

for side in before after; do
	if [ $side = before ]; then t=$before; else t=$after; fi
	bin=$tmp/mpsc-counts-$side
	# shellcheck disable=SC2086 # cflags is a word list
	cc -I"$t/include" -D_GNU_SOURCE -std=gnu11 -Wall -Wextra $cflags \
		-o "$bin" "$top/tools/mpsc-counts.c" "$t/build/libperfring.a" \
		-lpthread -lrt || exit 1
	"$bin" write 1000 >"$tmp/check" || {
		echo "mpsc-counts: $side: the program failed:" >&2
		cat "$tmp/check" >&2
		exit 1
	}
	layout=$(sed -n 's/.*layout=//p' "$tmp/check")
	w=$(ir_per_call one_write "$bin" write "$nw") || exit 1
	b=$(ir_per_call one_burst "$bin" burst "$nb") || exit 1
	rw=$(ir_per_call read_batch "$bin" write "$nw") || exit 1
	rb=$(ir_per_call read_batch "$bin" burst "$nb") || exit 1
	cw=$(ir_per_call one_write "$t/build/mpsc-reserve-bench" count "$nw") ||
		exit 1
	awk -v s=$side -v l="$layout" -v w="$w" -v b="$b" -v rw="$rw" \
		-v rb="$rb" -v cw="$cw" -v nw="$nw" -v nb="$nb" 'BEGIN {
		printf "callgrind %s layout=%s write_insn_per_record=%.2f", s, l, w / nw
		printf " burst_insn_per_record=%.2f", b / (nb * 32)
		printf " read_insn_per_record=%.2f", rw / nw
		printf " read_insn_per_record_burst_run=%.2f", rb / (nb * 32)
		printf " reserve_bench_count_insn_per_write=%.2f\n", cw / nw
	}' >>"$out"
	for mode in "write 4096" "burst 256"; do
		# shellcheck disable=SC2086 # mode is two words
		valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/trace" \
			"$bin" $mode >"$tmp/stdout" 2>/dev/null || exit 1
		python3 "$top/tools/mpsc-trace-count.py" "$bin" "$tmp/stdout" \
			"$tmp/trace" "trace $side" >>"$out" || exit 1
	done
	rm -f "$tmp/trace"
done

# the summary table, from the lines above
python3 - "$out" >>"$out.sum" <<'EOP'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) > 3 and f[0] == "callgrind":
        rows.setdefault(f[1], {}).update(
            kv.split("=") for kv in f[2:] if "=" in kv)
    elif len(f) > 3 and f[0] == "trace" and f[3].startswith("windows="):
        d = rows.setdefault(f[1], {})
        for x in f[3:]:
            k, v = x.split("=")
            d["%s %s" % (f[2], k)] = v


def g(side, key):
    return float(rows[side].get(key, 0))


def row(name, key, ratio=False):
    a, b = g("before", key), g("after", key)
    r = "  (%.2f)" % (b / a) if ratio and a else ""
    print("  %-50s %7.3f -> %7.3f%s" % (name, a, b, r))


print("")
print("Summary, per record, before -> after (means over the run: the")
print("fast path plus its share of the wrap's slow path):")
print("  instructions (callgrind)")
row("pfr_mpsc_write(), 16 B", "write_insn_per_record", True)
row("pfr_mpsc_write_burst() of 32, per record", "burst_insn_per_record", True)
row("reader begin/next/end, per record", "read_insn_per_record", True)
for kind, name in (("write", "pfr_mpsc_write()"),
                   ("burst", "pfr_mpsc_write_burst() of 32, per record"),
                   ("read", "reader, per record")):
    print("  %s (lackey trace)" % name)
    row("atomic RMWs (all on ctl line 1)", kind + " rmw:ctl1")
    row("stores to ctl line 1 (the producers' line)", kind + " store:ctl1")
    row("stores to ctl line 2 (the reader's line)", kind + " store:ctl2")
    row("stores to the producer's own slot", kind + " store:slot")
    row("stores to the data area", kind + " store:data")
    row("loads of ctl line 1", kind + " load:ctl1")
EOP
cat "$out.sum" >>"$out"
rm -f "$out.sum"
cat >>"$out" <<'EOF'

Key: "trace SIDE KIND" lines count every data access of the calls of one
function (lackey), per record: rmw:R atomic read-modify-writes (lock
prefix or xchg, from objdump) on region R, store:R and load:R the other
stores and loads; regions ctl0..ctl3 (the control block's 128-byte lines:
0 immutable, 1 the producers', 2 the reader's, 3 wake-up), slot (this
producer's own slot), table (other slots), data (headers, payloads, the
reader's zeroing), private (stack, the producer's and reader's own
structs).  "fastpath" is the most common call, the uncontended path.
Instructions: take callgrind's (the call alone); a lackey window also
holds the caller's check of the return value (3 instructions more).
What the shared accesses are (read from the code, matching the counts):
  before (layout 2): rmw:ctl1 the lock's CAS; store:ctl1 records, prod_pos
    (R) and the unlock; data: the BUSY header, the payload, the commit (B).
  after (layout 3): store:slot res_end and res_pos (the announcement, N);
    rmw:ctl1 the CAS on prod_pos (R); data: BUSY header (H), payload,
    commit (B); the reader's store:data is its zeroing of what it
    consumed (memset: 32-byte stores on the CPU valgrind simulates),
    store:ctl2 free_pos and cons_pos once per batch.
EOF
echo "wrote $out"
