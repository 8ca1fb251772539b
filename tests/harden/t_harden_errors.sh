#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One error space: every error code the installed headers declare
# (PFR_E_* and PFR_PERF_E_* enumerators of include/perfring/*.h, found by
# reading the headers, so that a new code cannot be missed) has a name
# of its own from pfr_strerror(), negated or not: never "unknown perfring
# error", never another code's name; pfr_perf_strerror() agrees; and the
# two sets keep to their ranges (1..99, 100..199).
# shellcheck source=tests/harden/lib.sh
. "$(dirname "$0")/lib.sh"

codes=$(cat "$top"/include/perfring/*.h |
	grep -oE '^[[:space:]]*PFR_(PERF_)?E_[A-Z0-9_]+' |
	tr -d '[:space:]\n' | sed 's/PFR_/ PFR_/g' | tr ' ' '\n' |
	grep -v -e '__' -e '^PFR_PERF_E_BASE$' -e '^$' | sort -u)
n=$(printf '%s\n' "$codes" | grep -c .)
[ "$n" -ge 30 ]
ok $? "$n error codes declared in include/perfring/*.h"

{
	cat <<'C'
#include <stdio.h>
#include <string.h>
#include <perfring/perf.h>
#include <perfring/ring.h>

static const struct { const char *name; int code; } codes[] = {
C
	printf '%s\n' "$codes" | sed 's/.*/\t{"&", &},/'
	cat <<'C'
};

int main(void)
{
	int n = (int)(sizeof(codes) / sizeof(codes[0])), bad = 0;

	for (int i = 0; i < n; i++) {
		const char *s = pfr_strerror(-codes[i].code);
		int perf = !strncmp(codes[i].name, "PFR_PERF_E_", 11);

		if (!s || !strcmp(s, "unknown perfring error")) {
			printf("%s (%d): no name\n", codes[i].name,
			       codes[i].code);
			bad = 1;
			continue;
		}
		if (strcmp(s, pfr_strerror(codes[i].code)) ||
		    strcmp(s, pfr_perf_strerror(-codes[i].code))) {
			printf("%s: names differ by sign or function\n",
			       codes[i].name);
			bad = 1;
		}
		if (perf ? codes[i].code < 100 || codes[i].code > 199
			 : codes[i].code < 1 || codes[i].code > 99) {
			printf("%s (%d): out of its range\n", codes[i].name,
			       codes[i].code);
			bad = 1;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(s, pfr_strerror(-codes[j].code))) {
				printf("%s and %s: the same name '%s'\n",
				       codes[j].name, codes[i].name, s);
				bad = 1;
			}
	}
	printf("%d codes\n", n);
	return bad;
}
C
} >"$tmp/codes.c"
# shellcheck disable=SC2086
if $cc -std=gnu11 -Wall -I"$top/include" -o "$tmp/codes" "$tmp/codes.c" \
	"$build/libperfring.a" -lpthread -lrt 2>"$tmp/cc.log"; then
	pass "the check program builds"
	"$tmp/codes" >"$tmp/out"
	ok $? "every code has a name of its own, in its range ($(tail -1 "$tmp/out"))"
	diag <"$tmp/out"
else
	diag <"$tmp/cc.log"
	fail "the check program builds"
fi
tap_done
