# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by the callgrind counters (tools/ring-insn.sh, tools/group-insn.sh);
# sourced, not run.
#   cg_start NAME TITLE   checks for valgrind, makes $tmp (removed at exit
#                         unless KEEP is set) and prints the results
#                         file's header: TITLE, then the date, CPU and
#                         valgrind version
#   cg_annotate FILE      callgrind_annotate --inclusive of FILE, run from /
#                         (from inside a source tree it splits a function
#                         between its relative and absolute file names)
cg_start() {
	for t in valgrind callgrind_annotate; do
		command -v $t >/dev/null || {
			echo "$1: needs $t (valgrind)" >&2
			exit 1
		}
	done
	tmp=$(mktemp -d "/tmp/pfr-$1.XXXXXX")
	[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
	echo "# tools/$1.sh: $2"
	echo "# $(date -u +%FT%TZ); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); valgrind $(valgrind --version)"
}

cg_annotate() {
	(cd / && callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null)
}
