#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's C examples compile as they are (-std=c11 -Wall -Werror), and
# the complete one runs and prints what the reader should see.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
/^```c$/ { n++; out = dir "/ex" n ".c"; inblock = 1; next }
/^```$/ { inblock = 0; next }
inblock { print > out }
' "$top/README.md"
n=0 fail=0
for f in "$tmp"/ex*.c; do
	n=$((n + 1))
	if grep -q 'pfr_perf_session' "$f"; then
		# The session example needs perf_event_open: it must be the file
		# tests/perf/t_session_example.sh runs, and it must link here.
		if cmp -s "$f" "$top/docs/examples/record.c" &&
			${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" \
				"$f" "$build/libperfring.a" -lpthread -lrt \
				-o "$tmp/a.out" 2>"$tmp/err"; then
			echo "ok $n - README example $(basename "$f") is docs/examples/record.c and links"
		else
			echo "not ok $n - README example $(basename "$f") differs from docs/examples/record.c or does not link"
			sed 's/^/# /' "$tmp/err" 2>/dev/null
			fail=$((fail + 1))
		fi
	elif grep -q 'int main' "$f"; then
		if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" "$f" \
			"$build/libperfring.a" -lpthread -lrt -o "$tmp/a.out" \
			2>"$tmp/err" && "$tmp/a.out" >"$tmp/out" &&
			grep -q 'hello' "$tmp/out" && grep -q 'world' "$tmp/out"; then
			echo "ok $n - README example $(basename "$f") builds and runs"
		else
			echo "not ok $n - README example $(basename "$f")"
			sed 's/^/# /' "$tmp/err" "$tmp/out" 2>/dev/null
			fail=$((fail + 1))
		fi
	else
		if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" -c "$f" \
			-o "$tmp/a.o" 2>"$tmp/err"; then
			echo "ok $n - README fragment $(basename "$f") compiles"
		else
			echo "not ok $n - README fragment $(basename "$f")"
			sed 's/^/# /' "$tmp/err"
			fail=$((fail + 1))
		fi
	fi
done
echo "1..$n"
[ $n -ge 2 ] && [ $fail -eq 0 ]
