# SPDX-License-Identifier: MIT
# `make run`: builds everything, then tools/tour.sh runs the tour of what
# perfring is for (a verified ring across two processes, the barrier
# question on this CPU, record/script/perf report), a few seconds.

.PHONY: run
run: all
	@PFR_BUILD=$(abspath $(BUILD)) PERFRING=$(abspath $(PERFRING)) \
		tools/tour.sh
