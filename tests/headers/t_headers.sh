#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every public header in include/perfring/ (a glob: headers added later are
# tested too) compiles on its own, and twice in a row, as C11 with
#   -std=c11 -pedantic -Werror -Wall -Wextra
# and as C++11 with -std=c++11 -pedantic -Werror -Wall -Wextra, with gcc
# and g++ and, when installed, clang and clang++.  The barrier macros are
# also expanded in a small function, since -pedantic only judges a macro
# where it is used.  The per-architecture headers in include/perfring/arch/
# must refuse to be included directly, and so must any helper header in
# include/perfring/ that says so with an '#error "include <perfring/...>'
# (such as ring-proto.h): those are checked for the refusal instead.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cc=${CC:-cc}
cxx=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT


# A helper header refuses direct inclusion with '#error "include <perfring/'.
is_helper() { grep -q '^#[ \t]*error "include <perfring/' "$1"; }

compilers=("C:$cc:-std=c11" "C++:$cxx:-std=c++11")
command -v clang >/dev/null 2>&1 && [ "$cc" != clang ] &&
	compilers+=("C:clang:-std=c11")
command -v clang++ >/dev/null 2>&1 && compilers+=("C++:clang++:-std=c++11")

for c in "${compilers[@]}"; do
	IFS=: read -r lang comp std <<<"$c"
	command -v "${comp%% *}" >/dev/null 2>&1 || {
		fail "$comp: compiler not found"
		continue
	}
	x=c
	[ "$lang" = C++ ] && x="c++"
	flags=("$std" -pedantic -Werror -Wall -Wextra -I"$top/include")
	for h in "$top"/include/perfring/*.h; do
		is_helper "$h" && continue
		name=perfring/$(basename "$h")
		printf '#include <%s>\n#include <%s>\nint pfr_header_test;\n' \
			"$name" "$name" >"$tmp/t.$x"
		# shellcheck disable=SC2086 # comp may carry options
		$comp "${flags[@]}" -x $x -c "$tmp/t.$x" -o "$tmp/t.o" \
			>"$tmp/log" 2>&1
		ok $? "$lang $comp: <$name> alone" "$tmp/log"
	done
	# The macros expanded, in both languages.
	cat >"$tmp/use.$x" <<'EOT'
#include <perfring/barrier.h>
#include <stdint.h>
struct pfr_use {
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;
	const char *p;
};
int pfr_use(struct pfr_use *u, const struct pfr_use *cu);
int pfr_use(struct pfr_use *u, const struct pfr_use *cu)
{
	uint64_t s = 0;
	pfr_barrier();
	pfr_smp_mb(); /* purpose: test */
	pfr_smp_rmb(); /* purpose: test */
	pfr_smp_wmb(); /* purpose: test */
	pfr_smp_tmb(); /* purpose: test */
	pfr_smp_acquire__after_ctrl_dep(); /* purpose: test */
	pfr_cpu_relax();
	PFR_WRITE_ONCE(u->a, 1);
	PFR_WRITE_ONCE(u->b, 2);
	PFR_WRITE_ONCE(u->c, 3);
	PFR_WRITE_ONCE(u->d, 4);
	PFR_WRITE_ONCE(u->p, "x");
	s += PFR_READ_ONCE(cu->a) + PFR_READ_ONCE(cu->b);
	s += PFR_READ_ONCE(cu->c) + PFR_READ_ONCE(cu->d);
	pfr_smp_store_release(&u->a, 5); /* purpose: test */
	pfr_smp_store_release(&u->b, 6); /* purpose: test */
	pfr_smp_store_release(&u->c, 7); /* purpose: test */
	pfr_smp_store_release(&u->d, 8); /* purpose: test */
	pfr_smp_store_release(&u->p, cu->p); /* purpose: test */
	pfr_smp_store_release(&u->p, "y"); /* purpose: test */
	s += pfr_smp_load_acquire(&cu->a); /* purpose: test */
	s += pfr_smp_load_acquire(&cu->b); /* purpose: test */
	s += pfr_smp_load_acquire(&cu->c); /* purpose: test */
	s += pfr_smp_load_acquire(&cu->d); /* purpose: test */
	return pfr_smp_load_acquire(&cu->p) != 0 && s; /* purpose: test */
}
EOT
	# shellcheck disable=SC2086
	$comp "${flags[@]}" -O2 -x $x -c "$tmp/use.$x" -o "$tmp/t.o" \
		>"$tmp/log" 2>&1
	ok $? "$lang $comp: every barrier macro expands cleanly" "$tmp/log"
	# shellcheck disable=SC2086
	$comp "${flags[@]}" -O2 -DPFR_FORCE_C11 -x $x -c "$tmp/use.$x" \
		-o "$tmp/t.o" >"$tmp/log" 2>&1
	ok $? "$lang $comp: every barrier macro expands cleanly (C11)" \
		"$tmp/log"
done

# The arch and helper headers refuse direct inclusion, with a message
# saying which header to include instead.
for h in "$top"/include/perfring/arch/*.h "$top"/include/perfring/*.h; do
	case $h in
	*/arch/*) ;;
	*) is_helper "$h" || continue ;;
	esac
	name=perfring/${h#"$top"/include/perfring/}
	printf '#include <%s>\n' "$name" >"$tmp/t.c"
	if $cc -std=c11 -I"$top/include" -c "$tmp/t.c" -o "$tmp/t.o" \
		>"$tmp/log" 2>&1; then
		fail "<$name> alone is refused (it compiled)"
	else
		grep -q 'include <perfring/[a-z0-9_-]*\.h>' "$tmp/log"
		ok $? "<$name> alone is refused with the header to include" \
			"$tmp/log"
	fi
done

tap_done
