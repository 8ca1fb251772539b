#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The manual pages' C examples compile and run against this build, as a
# reader would copy them out of the page:
#  - every .EX/.EE block of man/*.3 and man/*.7 that holds a whole program
#    (a main()) builds with -std=gnu11 -Wall -Werror and exits 0; the one
#    of perfring_ring(3) prints what its writer wrote;
#  - perfring_barrier(3)'s message-passing functions (a fragment) build
#    with a main() that runs writer() on a thread and reader() here, and
#    reader() returns 42;
#  - perfring_session(3)'s example is the file it names, docs/examples/
#    record.c, which builds with the line the page gives (pkg-config's
#    flags replaced by this build's).
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
. "$top/tests/lib/tap.sh"
[ -z "${RUNNER:-}" ] || skip_all "the examples run natively only"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
flags=(-std=gnu11 -Wall -Werror -I"$top/include")
libs=("$build/libperfring.a" -lpthread -lrt)

# unescape PAGE BLOCK-START-MACRO BLOCK-END-MACRO: the blocks' text, groff
# escapes undone, each block ended by a line "@@END@@".
blocks() {
	awk -v s="$2" -v e="$3" '$0 == s { f = 1; next }
		$0 == e && f { f = 0; print "@@END@@"; next }
		f && !/^\.(RS|RE|PP)/ { print }' "$1" |
		sed -e 's/\\e/\\/g' -e 's/\\\\/\\/g' -e 's/\\-/-/g' \
			-e 's/\\&//g'
}

n=0
for page in "$top"/man/*.3 "$top"/man/*.7; do
	blocks "$page" .EX .EE >"$tmp/all"
	i=0
	while IFS= read -r line; do
		if [ "$line" = "@@END@@" ]; then
			i=$((i + 1))
			if grep -q 'int main' "$tmp/cur.c" 2>/dev/null; then
				name=$(basename "$page")#$i
				n=$((n + 1))
				bin=$tmp/ex$n
				if ! "$cc" "${flags[@]}" -o "$bin" "$tmp/cur.c" \
					"${libs[@]}" >"$tmp/log" 2>&1; then
					fail "$name: the example builds" "$tmp/log"
				elif ! timeout 60 "$bin" >"$tmp/out" 2>&1; then
					fail "$name: the example runs and exits 0" \
						"$tmp/out"
				else
					pass "$name: the example builds and runs"
					cp "$tmp/out" "$tmp/out-$(basename "$page")"
				fi
			fi
			: >"$tmp/cur.c"
			continue
		fi
		printf '%s\n' "$line" >>"$tmp/cur.c"
	done <"$tmp/all"
done
[ "$n" -gt 0 ] || fail "the pages hold at least one whole program"

out=$tmp/out-perfring_ring.3
if [ -e "$out" ] && grep -qx 'hello' "$out"; then
	pass "perfring_ring(3)'s reader prints what its writer wrote (hello)"
else
	fail "perfring_ring(3)'s reader prints what its writer wrote (hello)" \
		"$out"
fi

# perfring_barrier(3): the fragment between .nf/.RS and .RE/.fi under
# EXAMPLES.
sed -n '/^\.SH EXAMPLES/,/^\.SH /p' "$top/man/perfring_barrier.3" \
	>"$tmp/barrier-ex"
blocks "$tmp/barrier-ex" .nf .fi | sed '/^@@END@@$/q' |
	sed '/^@@END@@$/d' >"$tmp/mp.c"
cat >"$tmp/mp_main.c" <<'EOF'
#include <perfring/barrier.h>
#include <pthread.h>
#include "mp.c"
static void *run_writer(void *arg)
{
	(void)arg;
	writer();
	return 0;
}
int main(void)
{
	pthread_t t;
	int v;

	if (pthread_create(&t, 0, run_writer, 0))
		return 2;
	v = reader();
	pthread_join(t, 0);
	return v == 42 ? 0 : 1;
}
EOF
if grep -q 'pfr_smp_store_release' "$tmp/mp.c" &&
	"$cc" "${flags[@]}" -I"$tmp" -o "$tmp/mp" "$tmp/mp_main.c" \
		-lpthread >"$tmp/log" 2>&1 && timeout 60 "$tmp/mp"; then
	pass "perfring_barrier(3)'s message passing builds, reader() sees 42"
else
	fail "perfring_barrier(3)'s message passing builds, reader() sees 42" \
		"$tmp/log"
fi

# perfring_session(3) names docs/examples/record.c and its build line.
if grep -q 'docs/examples/record.c' "$top/man/perfring_session.3" &&
	grep -q 'pkg\\-config \\-\\-cflags \\-\\-libs perfring' \
		"$top/man/perfring_session.3" &&
	"$cc" "${flags[@]}" -o "$tmp/record" "$top/docs/examples/record.c" \
		"${libs[@]}" >"$tmp/log" 2>&1; then
	pass "perfring_session(3)'s example (docs/examples/record.c) builds"
else
	fail "perfring_session(3)'s example (docs/examples/record.c) builds" \
		"$tmp/log"
fi
# perfring_perfdata(3) names docs/examples/perfdata_read.c and its build
# line; it builds against this build's perf.data library.
if grep -q 'docs/examples/perfdata_read.c' "$top/man/perfring_perfdata.3" &&
	grep -q 'pkg\\-config \\-\\-cflags \\-\\-libs perfring\\-perfdata' \
		"$top/man/perfring_perfdata.3" &&
	"$cc" "${flags[@]}" -o "$tmp/perfdata_read" \
		"$top/docs/examples/perfdata_read.c" -L"$build" \
		-lperfring-perfdata -lperfring >"$tmp/log" 2>&1; then
	pass "perfring_perfdata(3)'s example (docs/examples/perfdata_read.c) builds"
else
	fail "perfring_perfdata(3)'s example (docs/examples/perfdata_read.c) builds" \
		"$tmp/log"
fi
tap_done
