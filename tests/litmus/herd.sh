# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the litmus tests: finding herd7 and running it on many files.
#
# pfr_find_herd TOP: prints the herd7 command (a program that takes litmus
# files and runs herd7 with the Linux-kernel memory model): $PFR_HERD7 if
# set, else TOP/../shared/tools/herd7/herd7-lkmm, else herd7-lkmm on PATH;
# prints nothing if there is none.
pfr_find_herd() {
	if [ -n "${PFR_HERD7:-}" ]; then
		echo "$PFR_HERD7"
	elif [ -x "$1/../shared/tools/herd7/herd7-lkmm" ]; then
		echo "$1/../shared/tools/herd7/herd7-lkmm"
	elif command -v herd7-lkmm >/dev/null 2>&1; then
		echo herd7-lkmm
	fi
}

# pfr_herd_all HERD OUT FILE...: runs herd7 on the files (each named by its
# "C name" line, which must be its file name) and writes one line per file
# to OUT: "NAME VERDICT RACE" (RACE flagged or none) or "NAME ERROR text".
# herd7 takes all the files in one run, which saves its start-up per file,
# but stops at the first file it cannot parse; that file is then reported
# as an ERROR and the run goes on from the next one.
pfr_herd_all() {
	local herd=$1 out=$2 log
	shift 2
	log=$(mktemp)
	: >"$out"
	while [ $# -gt 0 ]; do
		timeout 900 "$herd" "$@" >"$log" 2>&1
		awk '
		$1 == "Test" { cur = $2; race[cur] = "none" }
		$1 == "Flag" && $2 == "data-race" { race[cur] = "flagged" }
		$1 == "Observation" { print $2, $3, (race[$2] ? race[$2] : "none") }
		' "$log" >>"$out"
		# skip the files that gave an Observation; the first that did
		# not is the one herd7 stopped at
		while [ $# -gt 0 ] &&
			grep -q "^$(basename "$1" .litmus) " "$out"; do
			shift
		done
		if [ $# -gt 0 ]; then
			echo "$(basename "$1" .litmus) ERROR $(grep -m1 -iE 'error|fatal' "$log" | tr -s ' \t' ' ')" >>"$out"
			shift
		fi
	done
	rm -f "$log"
}
