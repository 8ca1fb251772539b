#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's C examples compile as they are (-std=c11 -Wall -Werror), and
# the complete ones run and print what the reader should see (exactly the
# ```text block that follows an example, where there is one); its Python
# example runs against this build and prints the same; every relative
# link of README.md leads to a file of the tree.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -v dir="$tmp" '
/^```c$/ { n++; out = dir "/ex" n ".c"; inblock = 1; next }
/^```text$/ { out = dir "/ex" n ".expected"; inblock = 1; next }
/^```$/ { inblock = 0; next }
inblock { print > out }
' "$top/README.md"
for f in "$tmp"/ex*.c; do
	if grep -q 'pfr_perf_session' "$f"; then
		# The session example needs perf_event_open: it must be the file
		# tests/perf/t_session_example.sh runs, and it must link here.
		if cmp -s "$f" "$top/docs/examples/record.c" &&
			${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" \
				"$f" "$build/libperfring.a" -lpthread -lrt \
				-o "$tmp/a.out" 2>"$tmp/err"; then
			pass "README example $(basename "$f") is docs/examples/record.c and links"
		else
			fail "README example $(basename "$f") differs from docs/examples/record.c or does not link"
			diag <"$tmp/err"
		fi
	elif grep -q 'int main' "$f"; then
		if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" "$f" \
			"$build/libperfring.a" -lpthread -lrt -o "$tmp/a.out" \
			2>"$tmp/err" && "$tmp/a.out" >"$tmp/out" &&
			grep -q 'hello' "$tmp/out" && grep -q 'world' "$tmp/out" &&
			{ ! [ -e "${f%.c}.expected" ] ||
				cmp -s "${f%.c}.expected" "$tmp/out"; }; then
			pass "README example $(basename "$f") builds and runs$([ -e "${f%.c}.expected" ] && echo " and prints the README's output")"
		else
			fail "README example $(basename "$f")"
			cat "$tmp/err" "$tmp/out" 2>/dev/null | diag
		fi
	else
		if ${CC:-cc} -std=c11 -Wall -Wextra -Werror -I"$top/include" -c "$f" \
			-o "$tmp/a.o" 2>"$tmp/err"; then
			pass "README fragment $(basename "$f") compiles"
		else
			fail "README fragment $(basename "$f")"
			diag <"$tmp/err"
		fi
	fi
done
[ "$TAP_N" -ge 2 ] || tap_error "fewer than 2 C examples in README.md"

awk -v out="$tmp/ex.py" '
/^```python$/ { inblock = 1; n++; next }
/^```$/ { inblock = 0; next }
inblock && n == 1 { print > out }
' "$top/README.md"
if [ ! -s "$tmp/ex.py" ]; then
	fail "README.md has a Python example"
elif PYTHONPATH=$top/python PERFRING_LIB=$build/libperfring.so \
	python3 "$tmp/ex.py" >"$tmp/out" 2>&1 &&
	grep -q '^1 hello$' "$tmp/out" && grep -q '^1 world$' "$tmp/out"; then
	pass "README Python example runs and reads what it wrote"
else
	fail "README Python example" "$tmp/out"
fi
missing=
for l in $(grep -o '](\([^)#]*\)' "$top/README.md" | sed 's/^](//' | sort -u); do
	case $l in
	http*) ;;
	*) [ -e "$top/$l" ] || missing="$missing $l" ;;
	esac
done
[ -z "$missing" ]
ok $? "README.md's links lead to files of the tree (missing:${missing:- none})"
tap_done
