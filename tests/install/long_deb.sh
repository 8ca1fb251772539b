#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages from a clean clone (issue 37): git clone of this
# tree's HEAD, make dist, the tarball unpacked outside git, its build
# dependencies (apt-get build-dep), dpkg-buildpackage -us -uc -b; lintian
# on the packages (no error, no warning but the overridden ones), blhc on
# the build log (every compile and link line has the hardening flags);
# the .debs installed (apt-get install ./*.deb), the autopkgtests
# (debian/tests) run against the installed files by autopkgtest's null
# server, then the packages purged and nothing of them left.  The package
# list, sizes, dependencies, lintian's and blhc's output and the times go
# to the TAP diagnostics.  Needs root (it installs packages) and Debian's
# tools (tools/deps.sh installs them); it will not touch perfring packages
# installed before it.  Committed files only (the clone is of HEAD).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
t0=$(date +%s)

[ -n "${RUNNER:-}" ] && skip_all "packages are built natively, not under $RUNNER"
[ "$(id -u)" -eq 0 ] || skip_all "not root: cannot install packages"
for c in git dpkg-buildpackage lintian blhc autopkgtest apt-get; do
	command -v $c >/dev/null 2>&1 ||
		skip_all "$c not installed (tools/deps.sh installs it)"
done
pkgs="libperfring0 libperfring-dev libperfring-perfdata0
libperfring-perfdata-dev perfring perfring-bench python3-perfring"
# shellcheck disable=SC2086 # a word list
pre=$(dpkg-query -W -f='${Package} ${Status}\n' $pkgs 2>/dev/null |
	grep ' installed$')
[ -z "$pre" ] || skip_all "perfring packages already installed:" \
	"$(echo "$pre" | awk '{ print $1 }' | tr '\n' ' ')"

tmp=$(mktemp -d /tmp/pfr-deb.XXXXXX)
installed=
cleanup() {
	# shellcheck disable=SC2086 # a word list
	[ -z "$installed" ] || DEBIAN_FRONTEND=noninteractive \
		apt-get purge -y -q $installed >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
log=$tmp/log
elapsed() { echo $(($(date +%s) - $1)); }

# The clone and the release tarball.
head=$(git -C "$top" rev-parse HEAD 2>"$log")
ok $? "HEAD of $top: ${head:0:12}" "$log"
[ -n "$head" ] || tap_done
{ git clone -q --no-checkout "$top" "$tmp/clone" &&
	git -C "$tmp/clone" checkout -q --detach "$head" &&
	make -C "$tmp/clone" --no-print-directory dist; } >"$log" 2>&1
ok $? "make dist in a clean clone" "$log"
tarball=$(ls "$tmp"/clone/build/perfring-*.tar.gz 2>/dev/null)
ver=$(sed -n 's/^#define PFR_VERSION_STRING "\(.*\)"$/\1/p' \
	"$tmp/clone/include/perfring/common.h")
[ "$(basename "$tarball")" = "perfring-$ver.tar.gz" ]
ok $? "the tarball is perfring-$ver.tar.gz ($(du -k "$tarball" | cut -f1) KiB)"
[ -f "$tarball" ] || tap_done
mkdir "$tmp/rel"
cp "$tarball" "$tmp/rel/perfring_$ver.orig.tar.gz"
tar -C "$tmp/rel" -xzf "$tarball"
src=$tmp/rel/perfring-$ver
[ -d "$src/debian" ] && [ ! -e "$src/.git" ] &&
	! git -C "$src" rev-parse --git-dir >/dev/null 2>&1
ok $? "unpacked outside git, debian/ included"

# The source package (3.0 (quilt): the tarball is its orig), and lintian.
(cd "$tmp/rel" && dpkg-source -b "perfring-$ver") >"$log" 2>&1
ok $? "dpkg-source -b with perfring_$ver.orig.tar.gz" "$log"
dsc=$(ls "$tmp"/rel/perfring_*.dsc 2>/dev/null)
lintian --fail-on error,warning --display-info ${dsc:-none.dsc} \
	>"$tmp/lintian-src.log" 2>&1
rc=$?
lintian --display-info --show-overrides ${dsc:-none.dsc} 2>&1 | diag
ok $rc "lintian on the source package: $(grep -c '^[EW]:' "$tmp/lintian-src.log") errors and warnings" \
	"$tmp/lintian-src.log"

# Build dependencies, then the packages.
t=$(date +%s)
(cd "$src" && DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -q \
	--no-install-recommends ./ && dpkg-checkbuilddeps) >"$log" 2>&1
ok $? "build dependencies installed (apt-get build-dep ./, dpkg-checkbuilddeps)" "$log"
prof=
if [ ! -f "$src/src/perfdata/perfdata.map" ]; then
	prof=-Ppkg.perfring.noperfdata
	diag "no src/perfdata/perfdata.map: built with $prof (no perf.data library packages)"
fi
t=$(date +%s)
(cd "$src" && dpkg-buildpackage -us -uc -b $prof) >"$tmp/build.log" 2>&1
ok $? "dpkg-buildpackage -us -uc -b $prof ($(elapsed "$t") s)" "$tmp/build.log"
changes=$(ls "$tmp"/rel/perfring_*.changes 2>/dev/null)
debs=$(ls "$tmp"/rel/*.deb 2>/dev/null)
# PFR_DEB_KEEP=DIR keeps a copy of the built packages.
[ -z "${PFR_DEB_KEEP:-}" ] || { mkdir -p "$PFR_DEB_KEEP" &&
	cp $debs "$PFR_DEB_KEEP"/; }
[ -n "$changes" ] && [ -n "$debs" ] || tap_done

want="libperfring0 libperfring-dev perfring perfring-bench python3-perfring"
[ -z "$prof" ] && want="$want libperfring-perfdata0 libperfring-perfdata-dev"
built=$(for d in $debs; do dpkg-deb -f "$d" Package; done | sort | tr '\n' ' ')
missing=
for p in $want; do
	case " $built " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ]
ok $? "packages built: $built(missing:${missing:- none})"
for d in $debs; do
	dpkg-deb -f "$d" Package Version Architecture Installed-Size Depends \
		Recommends |
		paste -sd' ' | sed 's/^/package: /' | diag
done

# A package whose programs or libraries dlopen() libzstd.so.1 (which
# dpkg-shlibdeps cannot see; a static archive's user packages its own
# program) names libzstd1 in Depends or Recommends.
nodl=
for d in $debs; do
	rm -rf "$tmp/x" && mkdir "$tmp/x" && dpkg-deb -x "$d" "$tmp/x"
	grep -rq --exclude-dir=debug --exclude='*.a' 'libzstd\.so\.1' \
		"$tmp/x" || continue
	p=$(dpkg-deb -f "$d" Package)
	dpkg-deb -f "$d" Depends Recommends | grep -qw 'libzstd1' ||
		nodl="$nodl $p"
	diag "$p loads libzstd.so.1: $(dpkg-deb -f "$d" Recommends)"
done
rm -rf "$tmp/x"
[ -z "$nodl" ]
ok $? "packages that dlopen libzstd.so.1 recommend libzstd1${nodl:+ (not:$nodl)}"

# lintian: no error, no warning (overrides carry their reasons).
# (--show-overrides would count the overridden tags as failures: the
# overrides are listed by a second run.)
lintian --fail-on error,warning --display-info "$changes" \
	>"$tmp/lintian.log" 2>&1
rc=$?
lintian --display-info --show-overrides "$changes" 2>&1 | diag
ok $rc "lintian --fail-on error,warning: $(grep -c '^[EW]:' "$tmp/lintian.log") errors and warnings" \
	"$tmp/lintian.log"

# blhc: the hardening flags on every compile and link line of the log
# (bindnow from hardening=+all, which blhc detects in the log; PIE is
# gcc's default here, which blhc knows: --all would demand -fPIE anyway).
blhc "$tmp/build.log" >"$tmp/blhc.log" 2>&1
rc=$?
diag <"$tmp/blhc.log"
ok $rc "blhc on the build log: $(grep -c . "$tmp/blhc.log") lines" \
	"$tmp/blhc.log"
ncc=$(grep -cE '^(cc|g\+\+|gcc) ' "$tmp/build.log")
[ "$ncc" -gt 50 ]
ok $? "the build log shows its compile and link lines ($ncc)"

# Install, then the autopkgtests against the installed files.
installed=$(echo "$built" | tr -s ' ' ' ')
# shellcheck disable=SC2046 # a word list
(cd "$tmp/rel" && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends $(for d in $debs; do echo "./${d##*/}"; done)) \
	>"$log" 2>&1
ok $? "apt-get install ./*.deb" "$log"
dpkg -L python3-perfring >"$log" 2>&1 && ! grep -q '/_paths.py$' "$log"
ok $? "python3-perfring has no _paths.py (finds libperfring.so.0 by SONAME)"

t=$(date +%s)
# (Built without the perf.data library, its test is not run.)
# shellcheck disable=SC2046 # an empty word or one option
autopkgtest --no-built-binaries --output-dir "$tmp/apt-out" \
	$([ -n "$prof" ] && echo --skip-test=perfdata-c) "$src" -- null \
	>"$tmp/autopkgtest.log" 2>&1
rc=$?
diag "autopkgtest (null server): exit $rc, $(elapsed "$t") s"
summary=$tmp/apt-out/summary
tests="build-c record-script python"
[ -z "$prof" ] && tests="$tests perfdata-c"
for test in $tests; do
	res=$(awk -v t="$test" '$1 == t { print $2 }' "$summary" 2>/dev/null)
	case $res in
	PASS) pass "autopkgtest $test: PASS" ;;
	SKIP) skip "$(awk -v t="$test" '$1 == t { $1 = $2 = ""; print }' \
		"$summary")" "autopkgtest $test" ;;
	*) fail "autopkgtest $test: ${res:-no result} (exit $rc)" \
		"$tmp/autopkgtest.log" ;;
	esac
done
case $rc in 0 | 2) ;; *) tap_error "autopkgtest exit $rc" ;; esac
grep -h -A3 'perfring\|records' "$tmp/apt-out"/*-stdout 2>/dev/null |
	head -n 20 | diag

# Purge: nothing of the packages left.
# shellcheck disable=SC2086 # a word list
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q $installed >"$log" 2>&1
ok $? "apt-get purge $installed" "$log"
installed=
# shellcheck disable=SC2086
left=$(dpkg-query -W -f='${Package} ${Status}\n' $want 2>/dev/null |
	grep -v ' not-installed$' | awk '{ print $1 }' | tr '\n' ' ')
[ -z "$left" ] && [ ! -e /usr/bin/perfring ] &&
	[ ! -e /usr/lib/python3/dist-packages/perfring ] &&
	! ls /usr/lib/*/libperfring* >/dev/null 2>&1
ok $? "purged: no package, command, library or Python package left${left:+ ($left)}"

diag "whole test: $(elapsed "$t0") s"
tap_done
