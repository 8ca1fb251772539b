#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every manual page of man/ renders without a warning: groff -ww -z -man
# (every warning category) and man --warnings -l (man-db's own checks),
# and no alternating-font macro (.BR, .IR, .BI, .IB, .RB, .RI) runs plain
# words together: its arguments are printed with no space between them,
# so ".IR fn .  LOST records carry" renders "fn.LOSTrecordscarry" (as
# perfring_group(3) did).  Two plain words in a row among such a macro's
# unquoted arguments are that mistake.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v groff >/dev/null || skip_all "groff is not installed"
n=0
for page in "$top"/man/*.[137]; do
	n=$((n + 1))
	name=$(basename "$page")
	groff -ww -z -man "$page" >"$tmp/groff" 2>&1
	[ ! -s "$tmp/groff" ]
	ok $? "$name: groff -ww -z -man prints no warning" "$tmp/groff"
	if command -v man >/dev/null; then
		MANWIDTH=80 man --warnings -l "$page" 2>"$tmp/man" >/dev/null
		[ ! -s "$tmp/man" ]
		ok $? "$name: man --warnings -l prints no warning" "$tmp/man"
	fi
	# the alternating macros' arguments, split as roff splits them
	# (a quoted argument is one), plain words flagged in pairs
	perl -ne '
		next unless /^\.(BR|IR|BI|IB|RB|RI)\s+(.*)$/;
		my @a = ($2 =~ /"[^"]*"|\S+/g);
		for my $i (1 .. $#a) {
			if ($a[$i - 1] =~ /^[A-Za-z]{2,}$/ &&
			    $a[$i] =~ /^[A-Za-z]{2,}$/) {
				print "line $.: $_";
				last;
			}
		}' "$page" >"$tmp/run"
	[ ! -s "$tmp/run" ]
	ok $? "$name: no alternating-font macro runs words together" "$tmp/run"
done
[ "$n" -gt 0 ] || tap_error "no manual page in man/"
tap_done
