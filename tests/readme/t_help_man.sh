#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every option a perfring command accepts is in its --help and in its
# manual page.  The options are read from the commands' own option tables
# (tools/cli-options.py says how), so an option added to a table must be
# documented in both places; -h/--help, which every command takes, is
# checked once (each command's --help exits 0 with a usage line, and
# perfring(1) says every command takes it), and an option marked
# /* internal */ in its table (passed by perfring to its own children)
# is left out.  A command's help is what `perfring CMD
# --help` prints, together with the help of every further
# `perfring CMD ... --help` that text names (stress's modes, bench's
# --writers).  Also: each command of perfring(1) has its manual page,
# and perfring(1)'s SEE ALSO lists them.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
P=${PERFRING:-$build/perfring}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$top/tools/cli-options.py" "$top" >"$tmp/opts" 2>"$tmp/err"
ok $? "tools/cli-options.py reads the option tables ($(wc -l <"$tmp/opts") options)" "$tmp/err"
[ -s "$tmp/opts" ] || tap_done

# has FILE OPT: OPT in FILE as a word of its own (--ring is not --ring-size).
has() {
	grep -q -E -e "(^|[^A-Za-z0-9-])$(printf '%s' "$2" |
		sed 's/[.]/\\./g')([^A-Za-z0-9-]|\$)" "$1"
}

# man_text PAGE: the page's source with roff escapes removed (\-, \fB ...).
man_text() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' \
		-e 's/\\(em/--/g' -e 's/\\&//g' "$1"
}

for cmd in $(awk '{ print $1 }' "$tmp/opts" | sort -u); do
	help=$tmp/help-$cmd
	"$P" "$cmd" --help >"$help.main" 2>&1
	# the further help texts it names: `perfring CMD ARGS --help`
	grep -o -E "perfring $cmd [^()\`']*--help" "$help.main" | sort -u |
		while read -r line; do
			# shellcheck disable=SC2086 # the words of the named command
			set -- ${line#perfring }
			"$P" "$@" 2>&1
		done >"$help.more"
	cat "$help.main" "$help.more" >"$help"
	page=$top/man/perfring-$cmd.1
	if [ ! -f "$page" ]; then
		fail "man/perfring-$cmd.1 exists"
		continue
	fi
	man_text "$page" >"$tmp/man-$cmd"
	miss_help='' miss_man=''
	while read -r c opt src; do
		[ "$c" = "$cmd" ] || continue
		has "$help" "$opt" || miss_help="$miss_help $opt ($src)"
		has "$tmp/man-$cmd" "$opt" || miss_man="$miss_man $opt ($src)"
	done <"$tmp/opts"
	n=$(awk -v c="$cmd" '$1 == c' "$tmp/opts" | wc -l)
	[ -z "$miss_help" ]
	ok $? "perfring $cmd --help names its $n options${miss_help:+; missing:$miss_help}" "$help"
	[ -z "$miss_man" ]
	ok $? "perfring-$cmd(1) names its $n options${miss_man:+; missing:$miss_man}"
done

# Every command perfring --help lists has its page, named in perfring(1)'s
# SEE ALSO.
"$P" --help >"$tmp/top" 2>&1
cmds=$(awk '/^commands:/ { on = 1; next } on && NF { print $1 } on && !NF { on = 0 }' \
	"$tmp/top")
[ -n "$cmds" ]
ok $? "perfring --help lists commands: $(echo "$cmds" | tr '\n' ' ')" "$tmp/top"
for cmd in $cmds; do
	"$P" "$cmd" --help >"$tmp/h" 2>&1 && grep -q '^usage:' "$tmp/h"
	ok $? "perfring $cmd --help exits 0 with a usage line" "$tmp/h"
done
man_text "$top/man/perfring.1" | grep -v '^\.\\"' | sed 's/^\.[A-Z]* //' |
	tr '\n' ' ' | grep -q 'Each command takes --help'
ok $? "perfring(1) says every command takes --help"
man_text "$top/man/perfring.1" |
	awk '/^\.SH "?SEE ALSO/ { on = 1; next } /^\.SH/ { on = 0 } on' \
		>"$tmp/seealso"
for cmd in $cmds; do
	[ -f "$top/man/perfring-$cmd.1" ] && grep -q "perfring-$cmd (1)\|perfring-$cmd(1)" "$tmp/seealso"
	ok $? "perfring-$cmd(1) exists and perfring(1) SEE ALSO names it"
done
tap_done
