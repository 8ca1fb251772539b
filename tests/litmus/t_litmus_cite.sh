#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make lint's citation check (tools/lint-barriers.sh): a source that cites
# an existing litmus/NAME.litmus at a barrier passes, one that cites a
# file that does not exist fails and names it; then every labelled barrier
# of the ring's code (A, B, C, D of each ordering, and every wake-up
# smp_mb()) cites at least one litmus file, and the project's sources pass.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
lint=$top/tools/lint-barriers.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src() { # src CITED-NAME
	cat <<C
#include <perfring/barrier.h>
void f(int *p);
void f(int *p)
{
	/* purpose: test; without it: litmus/$1.litmus */
	pfr_smp_mb();
	*p = 1;
}
C
}
src ring-reuse-full-no-a >"$tmp/good.c"
"$lint" "$tmp/good.c" >"$tmp/log" 2>&1
ok $? "an existing cited file passes" "$tmp/log"
src ring-reuse-full-no-such-file >"$tmp/bad.c"
if "$lint" "$tmp/bad.c" >"$tmp/log" 2>&1; then
	fail "a missing cited file passed"
else
	grep -q 'cites litmus/ring-reuse-full-no-such-file.litmus' "$tmp/log"
	ok $? "a missing cited file fails and is named" "$tmp/log"
fi

# Each barrier's comment block in the ring's code cites a litmus file: the
# comment ending on the line before (or on) each labelled barrier line.
awk '
/\/\*/ && !/\*\// { blk = $0; inc = 1; next }
inc { blk = blk " " $0; if ($0 ~ /\*\//) inc = 0; next }
/pfr_smp_(mb|rmb|wmb|load_acquire|store_release)\(/ {
	txt = blk " " $0
	if (txt ~ /(^|[^a-z])(A|B|C|D): pairs with|store-buffering/ &&
	    txt !~ /litmus\/[a-z0-9-]+\.litmus/) {
		printf "%s:%d: no litmus file cited\n", FILENAME, FNR; bad++
	}
	if (txt ~ /(^|[^a-z])(A|B|C|D): pairs with|store-buffering/) n++
	blk = ""; next
}
/\/\*.*\*\// { blk = $0; next }
!/^[ \t]*$/ { blk = "" }
END { printf "# %d ring barriers\n", n; exit (bad || n < 14) }
' "$top/include/perfring/ring-proto.h" "$top/include/perfring/ring-inline.h" \
	"$top/src/ring/ring.c" >"$tmp/log" 2>&1
rc=$?
grep '^#' "$tmp/log"
ok $rc "every labelled barrier of the ring (A-D, wake-up) cites a litmus file" "$tmp/log"
(cd "$top" && tools/lint-barriers.sh) >"$tmp/log" 2>&1
ok $? "the project's sources pass, citations included" "$tmp/log"
tap_done
