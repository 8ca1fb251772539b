#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The barrier check of `make lint` (tools/lint-barriers.sh) fails on an
# unlabelled barrier, acquire, release or fence and passes on a labelled
# one (label on the same line or in the comment just before, saying "pairs
# with", "matches" or "purpose:").  Then the project's own sources pass it.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
lint=$top/tools/lint-barriers.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# case NAME WANT(pass|fail) BODY: BODY goes inside a function in a .c file
case_() {
	local name=$1 want=$2 f=$tmp/$1.c rc
	{
		echo '/* SPDX-License-Identifier: MIT */'
		echo '#include <perfring/barrier.h>'
		echo 'static unsigned long head, tail, buf[8];'
		echo 'void f(void);'
		echo 'void f(void)'
		echo '{'
		printf '%s\n' "$3"
		echo '}'
	} >"$f"
	bash "$lint" "$f" >"$tmp/log" 2>&1
	rc=$?
	if [ "$want" = pass ]; then
		ok $rc "lint passes: $name" "$tmp/log"
	elif [ $rc -ne 0 ] && grep -q "$f:[0-9]*: barrier without" "$tmp/log"
	then
		pass "lint fails: $name"
	else
		fail "lint fails: $name (exit $rc)" "$tmp/log"
	fi
}

case_ unlabelled-wmb fail '	buf[0] = 1;
	pfr_smp_wmb();
	head = 1;'
case_ labelled-wmb-same-line pass '	buf[0] = 1;
	pfr_smp_wmb(); /* B: pairs with C in reader() */
	head = 1;'
case_ labelled-wmb-comment-above pass '	buf[0] = 1;
	/*
	 * B: the reader must not see the new head before the record;
	 * pairs with C in reader().
	 */
	pfr_smp_wmb();
	head = 1;'
case_ purpose-label pass '	pfr_smp_mb(); /* purpose: order the wake-up flag before head */'
case_ matches-label pass '	pfr_smp_store_release(&head, 1); /* B, matches C */'
case_ unlabelled-load-acquire fail '	tail = pfr_smp_load_acquire(&head);'
case_ unlabelled-store-release fail '	pfr_smp_store_release(&tail, 2);'
case_ unlabelled-rmb fail '	pfr_smp_rmb();'
case_ unlabelled-tmb fail '	pfr_smp_tmb();'
case_ unlabelled-ctrl-dep fail '	if (head)
		pfr_smp_acquire__after_ctrl_dep();'
case_ unlabelled-c11-fence fail '	__atomic_thread_fence(__ATOMIC_SEQ_CST);'
case_ unlabelled-c11-acquire fail '	tail = __atomic_load_n(&head, __ATOMIC_ACQUIRE);'
case_ comment-without-partner fail '	pfr_smp_mb(); /* full barrier */'
case_ label-does-not-carry-past-code fail '	/* B: pairs with C in reader() */
	buf[0] = 1;
	pfr_smp_wmb();'
case_ one-label-per-barrier fail '	pfr_smp_wmb(); /* B: pairs with C */
	pfr_smp_rmb();'

# The project as it stands (what `make lint` checks).
bash "$lint" >"$tmp/log" 2>&1
ok $? "the project's sources pass the barrier lint" "$tmp/log"

tap_done
