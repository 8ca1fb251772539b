# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# usage_errors CMD "BAD"...: for each BAD (a word list), `CMD BAD` must
# exit 2 and name "perfring CMD" on stderr, as every subcommand does for a
# usage error; one TAP result each.  CMD is perfring's subcommand and the
# words before BAD ("stress --mode group"); $PERFRING is the command.
# Source tests/lib/tap.sh first.
usage_errors() {
	local pre=$1 bad err rc
	shift
	for bad in "$@"; do
		# shellcheck disable=SC2086 # word lists
		err=$($PERFRING $pre $bad 2>&1 >/dev/null)
		rc=$?
		if [ $rc -eq 2 ] && grep -q "perfring ${pre%% *}" <<<"$err"; then
			pass "usage error: $pre $bad"
		else
			fail "usage error: $pre $bad (exit $rc)"
			diag "$err"
		fi
	done
}
