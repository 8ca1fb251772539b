#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fails on any barrier, acquire, release or fence without a comment naming
# its partner or purpose, as the kernel's checkpatch does for smp_*().
# The comment goes on the same line or ends on the line just before, and
# contains "pairs with", "matches" or "purpose:".
# Also fails on a litmus file cited in those sources that does not exist:
# every "litmus/NAME.litmus" (at a barrier, the file that shows what breaks
# without it; cite each file by that full name).
# Usage: lint-barriers.sh [FILE...]   (default: the project's sources)
set -u
cd "$(dirname "$0")/.." || exit 2
if [ $# -eq 0 ]; then
	set -- $(ls src/*/*.[ch] cli/*.[ch] cli/*/*.[ch] include/perfring/*.h bench/*/*.[ch] \
		bench/*/*.cc tests/*/*.[ch] tests/*/*.cc 2>/dev/null |
		grep -v -e '^include/perfring/barrier.h$' \
			-e '^include/perfring/linux-compat.h$')
fi
awk '
function labelled(s) { s = tolower(s); return s ~ /pairs[ \t]+with|matches|purpose:/ }
FNR == 1 { prev = ""; incomment = 0; block = "" }
{
	line = $0
	# Track the text of the comment block that ends on the previous line.
	if (line ~ /pfr_smp_(mb|rmb|wmb|tmb|load_acquire|store_release|acquire__after_ctrl_dep)[ \t]*\(|pfr__fence_(acquire|release)[ \t]*\(|__atomic_thread_fence[ \t]*\(|__ATOMIC_(ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)/ &&
	    line !~ /^[ \t]*#[ \t]*define/ && line !~ /^[ \t]*(\*|\/\*|\/\/)/) {
		if (!labelled(line) && !labelled(block)) {
			printf "%s:%d: barrier without a pairing or purpose comment:\n\t%s\n", FILENAME, FNR, line
			bad++
		}
	}
	if (line ~ /\/\*/ || incomment) {
		if (line ~ /^[ \t]*\/\*/ && !incomment)
			block = ""
		l = line
		sub(/^[ \t]*(\/\*+|\*+)?[ \t]*/, "", l)
		block = block " " l
		incomment = (line !~ /\*\//)
	} else if (line ~ /\/\//) {
		block = line
	} else if (line !~ /^[ \t]*$/) {
		block = ""
	}
	# a code line with a trailing comment is its own label; do not carry it
	if (line !~ /^[ \t]*(\/\*|\*|\/\/)/ && !incomment)
		block = (line ~ /^[ \t]*$/) ? block : ""
}
END { if (bad) { printf "%d unlabelled barrier(s)\n", bad; exit 1 } }
' "$@"
rc=$?
# Every cited litmus file exists.
cited=0 missing=0
while IFS=: read -r file line name; do
	cited=$((cited + 1))
	if [ ! -f "litmus/$name" ]; then
		printf '%s:%s: cites litmus/%s, which does not exist\n' \
			"$file" "$line" "$name"
		missing=$((missing + 1))
	fi
done < <(grep -onE 'litmus/[A-Za-z0-9_+.-]+\.litmus' "$@" /dev/null |
	sed 's|:litmus/|:|')
if [ $missing -ne 0 ]; then
	echo "$missing cited litmus file(s) missing (of $cited citations)"
	rc=1
fi
exit $rc
