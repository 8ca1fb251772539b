#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The two-thread message-passing smoke test (tests/unit/mp_smoke.c) built
# directly with gcc -fsanitize=thread, where barrier.h must select the C11
# backend by itself, and again with PFR_FORCE_C11: TSan checks that every
# payload access is ordered by the acquire/release pairs.  Also checks that
# TSan catches a broken pairing: a copy whose reader loads head without
# acquire must be reported as a data race (so a pass means something).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
gcc=gcc
command -v "$gcc" >/dev/null || skip_all "no gcc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int main(void) { return 0; }' >"$tmp/p.c"
if ! $gcc -fsanitize=thread "$tmp/p.c" -o "$tmp/p" >"$tmp/log" 2>&1 ||
	! "$tmp/p" >>"$tmp/log" 2>&1; then
	skip_all "gcc has no working -fsanitize=thread:" \
		"$(head -c 200 "$tmp/log" | tr '\n' ' ')"
fi
export TSAN_OPTIONS=halt_on_error=1:exitcode=66
build() { # build OUT SRC FLAGS...
	local out=$1 src=$2
	shift 2
	$gcc -std=gnu11 -O1 -g -fsanitize=thread -Wall -Wextra -Werror \
		-I"$top/include" -I"$top/tests" "$@" "$src" "$top/tests/tap.c" \
		-o "$out" -lpthread >"$tmp/log" 2>&1
}

for variant in auto forced; do
	flags=()
	[ $variant = forced ] && flags=(-DPFR_FORCE_C11)
	build "$tmp/mp_$variant" "$top/tests/unit/mp_smoke.c" "${flags[@]}"
	ok $? "build mp_smoke with -fsanitize=thread ($variant C11)" "$tmp/log"
	"$tmp/mp_$variant" >"$tmp/log" 2>&1
	rc=$?
	grep -q 'WARNING: ThreadSanitizer' "$tmp/log" && [ $rc -eq 0 ] && rc=1
	ok $rc "mp_smoke under TSan ($variant C11): no race, all checks" \
		"$tmp/log"
	grep -q '^# backend c11,' "$tmp/log"
	ok $? "mp_smoke under TSan ($variant) used the c11 backend" "$tmp/log"
done

# The same test with the reader's acquire (C) weakened to READ_ONCE.
sed 's|head = pfr_smp_load_acquire(&m->head);|head = PFR_READ_ONCE(m->head);|' \
	"$top/tests/unit/mp_smoke.c" >"$tmp/mp_broken.c"
if cmp -s "$top/tests/unit/mp_smoke.c" "$tmp/mp_broken.c"; then
	fail "could not weaken the acquire in a copy of mp_smoke.c"
else
	build "$tmp/mp_broken" "$tmp/mp_broken.c" -I"$top/tests/unit"
	ok $? "build a copy of mp_smoke without the acquire at C" "$tmp/log"
	PFR_MP_MESSAGES=200000 "$tmp/mp_broken" >"$tmp/log" 2>&1
	grep -q 'WARNING: ThreadSanitizer: data race' "$tmp/log"
	ok $? "TSan reports the missing acquire as a data race" "$tmp/log"
fi
tap_done
