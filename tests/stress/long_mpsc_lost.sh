#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared ring's drops, every one reported in band (issue 34, item 10):
# tests/unit/mpsc_lost_report at 100 rounds of producers that drop then
# leave or are killed, and 100 rounds of 8 producers killed with kill -9
# while they write, the reader reading: the LOST total equals the drops
# (within one per kill for the kills mid-write), none left pending.
set -u
bin=${PFR_BUILD:-build}/tests/unit/mpsc_lost_report
[ -x "$bin" ] || {
	echo "1..1"
	echo "not ok 1 - $bin not built (make $bin)"
	exit 1
}
PFR_MPSC_LOST_LOOP=1 exec ${RUNNER:-} "$bin"
