#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The group reader's instructions per record, before and after a change,
# counted by callgrind, not timed (tools/group-insn.c: one thread, 4
# writers, 32 records each between drains): the inclusive count of
# pfr_group_drain(), and of the iterator under pfr_group_consume()
# (pfr_group_iter_begin() + pfr_group_iter_next(); the ring's
# pfr_reader_consume() is inlined into the caller and not in it), divided
# by the records (the versioned functions as callgrind names them too,
# pfr_group_drain@@PERFRING_0.3 and pfr_group_iter_begin@@PERFRING_0.3,
# src/abi/compat.h).
# BEFORE-LIB and AFTER-LIB are libperfring.a builds.
#   tools/group-insn.sh BEFORE-LIB AFTER-LIB > FILE
set -eu -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tools/callgrind-lib.sh
. "$top/tools/callgrind-lib.sh"
cg_start group-insn "group reader instructions per record (callgrind, inclusive), 4 writers x 32 records of 8 bytes per drain, 20000 drains"
echo "# before: $1; after: $2"
printf '%-10s %-44s %10s %10s\n' reader functions before after
for side in before after; do
	lib=$1
	[ $side = after ] && lib=$2
	cc -O2 -I"$top/include" "$top/tools/group-insn.c" "$lib" -lpthread \
		-o "$tmp/$side"
	for how in drain consume; do
		valgrind --tool=callgrind --callgrind-out-file="$tmp/$side.$how" \
			"$tmp/$side" $how >"$tmp/$side.$how.log" 2>&1
		n=$(sed -n 's/^\([0-9]*\) records.*/\1/p' "$tmp/$side.$how.log")
		cg_annotate "$tmp/$side.$how" |
			awk -v n="$n" -v how=$how '
				how == "drain" && /:pfr_(_)?group_drain(_v03|@@PERFRING_0.3)? \[/ { gsub(",", "", $1); s += $1 }
				how == "consume" && /:pfr_(_)?group_iter_(begin(_v03|@@PERFRING_0.3)?|next) \[/ { gsub(",", "", $1); s += $1 }
				END { printf "%.2f\n", s / n }' >"$tmp/$side.$how.n"
	done
done
printf '%-10s %-44s %10s %10s\n' drain "pfr_group_drain" "$(cat "$tmp/before.drain.n")" "$(cat "$tmp/after.drain.n")"
printf '%-10s %-44s %10s %10s\n' consume "pfr_group_iter_begin + pfr_group_iter_next" "$(cat "$tmp/before.consume.n")" "$(cat "$tmp/after.consume.n")"
