#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared library's ABI against the committed baseline
# tests/abi/perfring.abi: one exported symbol a line, as nm -D shows it,
# name@@NODE for the default version, name@NODE for a compatibility symbol
# (a 0.1 function whose arguments changed layout, a 0.2 function whose
# return convention changed).  Fails when a baseline symbol disappears or
# changes version (or stops being the default, unless it stays as a
# compatibility symbol of the same version beside a newer default), when
# an internal pfr__ symbol is exported that the baseline does not list,
# when a function the public headers declare PFR_API is not exported (it
# is missing from src/abi/perfring.map), when a public inline function has no
# exported twin (src/abi/ffi.c), or when the version script exports by
# wildcard.  A new symbol is reported, as ok, with the line to add to the
# baseline.  `tests/abi/t_abi.sh --update` rewrites the baseline from the
# library in $PFR_BUILD (build/ by default).
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
base=$top/tests/abi/perfring.abi
lib=$build/libperfring.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if ! [ -e "$lib" ]; then
	fail "$lib exists (make all builds it)"
	# 7. docs/abi.md lists every public function with its convention.
python3 "$top/tools/api-table.py" --check "$top" >"$tmp/table" 2>&1
ok $? "docs/abi.md's table of public functions: $(cat "$tmp/table")"

tap_done
fi
# Defined dynamic symbols with their version (the node entries, type A,
# left out).
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sort -u \
	>"$tmp/now"

if [ "${1:-}" = --update ]; then
	{
		echo "# SPDX-License-Identifier: MIT"
		echo "# libperfring's exported symbols (tests/abi/t_abi.sh):"
		echo "# name@@NODE is the default version, name@NODE a"
		echo "# compatibility symbol.  Lines are only ever added."
		cat "$tmp/now"
	} >"$base"
	echo "# wrote $base ($(wc -l <"$tmp/now") symbols)"
	exit 0
fi

grep -v '^#' "$base" | sed '/^$/d' | sort -u >"$tmp/base"
ok $? "baseline $base read ($(wc -l <"$tmp/base") symbols)"

# 1. Every baseline symbol is still there, at its version.
missing=0
while read -r s; do
	grep -qxF -- "$s" "$tmp/now" && continue
	name=${s%%@*}
	# A default version whose convention changed is kept as a
	# compatibility symbol (name@NODE) beside the new default
	# (name@@LATER, src/abi/compat.c): binaries linked against it keep
	# the old behaviour.
	case $s in
	*@@*)
		old=${s/@@/@}
		if grep -qxF -- "$old" "$tmp/now" &&
			grep -E "^$name@@" "$tmp/now" | grep -qvxF -- "$s"; then
			ok 0 "$s: kept as $old beside $(grep -E "^$name@@" "$tmp/now")"
			continue
		fi
		;;
	esac
	now=$(grep -E "^$name@" "$tmp/now" | tr '\n' ' ')
	ok 1 "$s: ${now:+changed to $now}${now:-gone}"
	missing=$((missing + 1))
done <"$tmp/base"
[ "$missing" -eq 0 ]
ok $? "every baseline symbol exported at its version ($missing missing or changed)"

# 2. New symbols: reported, fine unless internal.
new=$(comm -13 "$tmp/base" "$tmp/now")
for s in $new; do
	case $s in
	pfr__*) ok 1 "$s: an internal symbol exported (not in the baseline)" ;;
	*) ok 0 "new symbol $s (add this line to tests/abi/perfring.abi)" ;;
	esac
done

# 3. Everything exported is versioned and named pfr_*.
unversioned=$(grep -v '@' "$tmp/now" | tr '\n' ' ')
[ -z "$unversioned" ]
ok $? "every exported symbol has a version node (${unversioned:-all do})"
foreign=$(sed 's/@.*//' "$tmp/now" | grep -v '^pfr_' | tr '\n' ' ')
[ -z "$foreign" ]
ok $? "only pfr_* names exported (${foreign:-none other})"

# 4. Every PFR_API function of the public headers is exported (but
# <perfring/perfdata.h>'s, the perf.data library's:
# tests/abi/t_abi_perfdata.sh).
sed 's/@.*//' "$tmp/now" | sort -u >"$tmp/names"
ls "$top"/include/perfring/*.h | grep -v '/perfdata\.h$' | xargs cat |
	tr '\n' ' ' |
	grep -o 'PFR_API[^;(]*(' | grep -o 'pfr[a-z0-9_]*($' | tr -d '(' |
	sort -u >"$tmp/api"
unexported=$(comm -23 "$tmp/api" "$tmp/names" | tr '\n' ' ')
[ -s "$tmp/api" ] && [ -z "$unexported" ]
ok $? "every PFR_API function of include/perfring exported ($(wc -l <"$tmp/api"); missing from src/abi/perfring.map: ${unexported:-none})"

# 5. Every public inline function has an exported twin (src/abi/ffi.c).
cat "$top"/include/perfring/*.h | tr '\n' ' ' |
	grep -oE '(static inline|PFR__INLINE)[^;{(]*\(' |
	grep -oE 'pfr_[a-z0-9][a-z0-9_]*\($' | tr -d '(' | sort -u >"$tmp/inl"
notwin=$(comm -23 "$tmp/inl" "$tmp/names" | tr '\n' ' ')
[ -s "$tmp/inl" ] && [ -z "$notwin" ]
ok $? "every public inline function has an exported twin ($(wc -l <"$tmp/inl"); without: ${notwin:-none})"

# 6. The version script names its symbols: no wildcard but `local: *`.
wild=$(perl -0pe 's{/\*.*?\*/}{}gs' "$top/src/abi/perfring.map" |
	grep -E '[*?]' | grep -vE '^[[:space:]]*\*;[[:space:]]*$' | tr '\n' ' ')
[ -z "$wild" ]
ok $? "src/abi/perfring.map exports no symbol by wildcard (${wild:-none})"

# 7. docs/abi.md lists every public function with its convention.
python3 "$top/tools/api-table.py" --check "$top" >"$tmp/table" 2>&1
ok $? "docs/abi.md's table of public functions: $(cat "$tmp/table")"

tap_done
