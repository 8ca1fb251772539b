# SPDX-License-Identifier: MIT
# perf record/script extras.  `make fuzz-perf` fuzzes the perf decoder, the
# ring reader and the perf.data reader for FUZZ_SECONDS (default 600; make
# check runs the same target for 30 s through tests/fuzz/t_fuzz_perf.sh).

FUZZ_SECONDS ?= 600

.PHONY: fuzz-perf
fuzz-perf: all
	$(TEST_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/t_fuzz_perf.sh
