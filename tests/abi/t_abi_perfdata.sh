#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The perf.data library's ABI (libperfring-perfdata.so, issue 33) against
# its baseline tests/abi/perfring-perfdata.abi, as t_abi.sh checks the
# core's: every baseline symbol still exported at its version, only
# pfr_perfdata_* names exported and each versioned, every PFR_API function
# of <perfring/perfdata.h> exported, the SONAME; and the core stays
# libc-only: libperfring.so neither exports nor needs anything of
# elfutils, libtraceevent, libiberty or libzstd.
# `tests/abi/t_abi_perfdata.sh --update` rewrites the baseline.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
base=$top/tests/abi/perfring-perfdata.abi
lib=$build/libperfring-perfdata.so
core=$build/libperfring.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if ! [ -e "$lib" ] || ! [ -e "$core" ]; then
	fail "$lib and $core exist (make all builds them)"
	tap_done
fi
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' | sort -u \
	>"$tmp/now"
if [ "${1:-}" = --update ]; then
	{
		echo "# SPDX-License-Identifier: MIT"
		echo "# libperfring-perfdata's exported symbols"
		echo "# (tests/abi/t_abi_perfdata.sh).  Lines are only ever added."
		cat "$tmp/now"
	} >"$base"
	echo "# wrote $base ($(wc -l <"$tmp/now") symbols)"
	exit 0
fi

# 1. The SONAME, from the Makefile's SOVERSION.
sov=$(sed -n 's/^SOVERSION := //p' "$top/Makefile")
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libperfring-perfdata.so.$sov" ]
ok $? "SONAME libperfring-perfdata.so.$sov ($soname)"

# 2. Every baseline symbol is still there, at its version.
grep -v '^#' "$base" | sed '/^$/d' | sort -u >"$tmp/base"
missing=$(comm -23 "$tmp/base" "$tmp/now" | tr '\n' ' ')
[ -s "$tmp/base" ] && [ -z "$missing" ]
ok $? "every baseline symbol exported at its version ($(wc -l <"$tmp/base"); missing or changed: ${missing:-none})"
for s in $(comm -13 "$tmp/base" "$tmp/now"); do
	pass "new symbol $s (add this line to tests/abi/perfring-perfdata.abi)"
done

# 3. Only pfr_perfdata_* names, each with a version node.
foreign=$(grep -v '^pfr_perfdata_[a-z0-9_]*@@\?PERFRING_PERFDATA_' \
	"$tmp/now" | tr '\n' ' ')
[ -z "$foreign" ]
ok $? "only versioned pfr_perfdata_* names exported (${foreign:-none other})"

# 4. Every PFR_API function of <perfring/perfdata.h> is exported.
sed 's/@.*//' "$tmp/now" | sort -u >"$tmp/names"
tr '\n' ' ' <"$top/include/perfring/perfdata.h" |
	grep -o 'PFR_API[^;(]*(' | grep -o 'pfr[a-z0-9_]*($' | tr -d '(' |
	sort -u >"$tmp/api"
unexported=$(comm -23 "$tmp/api" "$tmp/names" | tr '\n' ' ')
[ -s "$tmp/api" ] && [ -z "$unexported" ]
ok $? "every PFR_API function of perfdata.h exported ($(wc -l <"$tmp/api"); missing from src/perfdata/perfdata.map: ${unexported:-none})"

# 5. The version script names its symbols: no wildcard but `local: *`.
wild=$(perl -0pe 's{/\*.*?\*/}{}gs' "$top/src/perfdata/perfdata.map" |
	grep -E '[*?]' | grep -vE '^[[:space:]]*\*;[[:space:]]*$' | tr '\n' ' ')
[ -z "$wild" ]
ok $? "src/perfdata/perfdata.map exports no symbol by wildcard (${wild:-none})"

# 6. It links the core's shared library, not a copy of it.
readelf -d "$lib" | grep -q 'NEEDED.*\[libperfring\.so\.'"$sov"'\]'
ok $? "libperfring-perfdata needs libperfring.so.$sov"
core_in=$(nm -D --defined-only "$lib" | grep -c ' pfr_perf_file_open' || true)
[ "$core_in" = 0 ]
ok $? "the core's functions are not exported again by libperfring-perfdata ($core_in)"
# Everything it takes from the core is the core's public, versioned
# API: an internal (pfr__*) or unversioned pfr_ symbol would be an
# undefined reference for every program that links it.
internal=$(nm -D --undefined-only "$lib" | awk '$2 ~ /^pfr/ && $2 !~ /@PERFRING_[0-9.]+$/ { print $2 }' | tr '\n' ' ')
[ -z "$internal" ]
ok $? "libperfring-perfdata needs only the core's versioned public symbols (others: ${internal:-none})"

# 7. The core stays libc-only.
foreign=$(nm -D "$core" | grep -E ' (tep_|elf_|gelf_|dwfl_|dwarf_|dwelf_|cplus_demangle|ZSTD_)' | tr '\n' ' ')
[ -z "$foreign" ]
ok $? "libperfring.so has no elfutils/traceevent/libiberty/zstd symbol (${foreign:-none})"
needed=$(readelf -d "$core" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' |
	grep -vE '^(libc|libpthread|librt|libdl|libm|ld-linux[-a-z0-9_]*)\.so' | tr '\n' ' ')
[ -z "$needed" ]
ok $? "libperfring.so needs libc only (others: ${needed:-none})"

tap_done
