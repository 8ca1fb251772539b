#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The benchmark (bench/) calls the 0.3 names, not the deprecated ones that
# PERFRING_0.3 kept for old callers (docs/api.md: pfr_mpsc_join() and
# pfr_mpsc_leave() with 0.2's answers, pfr_mpsc_reader() and pfr_ring_ctl()
# under a struct's name): what it measures is what a new program calls.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
for name in pfr_mpsc_join pfr_mpsc_leave pfr_mpsc_reader pfr_ring_ctl; do
	hits=$(grep -rnE "\\b$name[[:space:]]*\\(" "$top/bench" \
		--include='*.c' --include='*.h' --include='*.cc' |
		sed "s|^$top/||")
	[ -z "$hits" ]
	ok $? "bench/ does not call the deprecated $name()${hits:+: $hits}"
done
tap_done
