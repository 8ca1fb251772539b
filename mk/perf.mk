# SPDX-License-Identifier: MIT
# perf record/script extras.  `make fuzz-perf` fuzzes the perf decoder, the
# ring reader and the perf.data reader for FUZZ_SECONDS (default 600; make
# check runs the same target for 30 s through tests/fuzz/t_fuzz_perf.sh).

FUZZ_SECONDS ?= 600

.PHONY: fuzz-perf
fuzz-perf: all
	$(TEST_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/t_fuzz_perf.sh

# The perf tests that build records by hand share a header the generic
# rule does not know about.
$(BUILD)/tests/unit/perf_decode $(BUILD)/tests/unit/perf_file_features \
	$(BUILD)/tests/unit/perf_file_maps: tests/unit/perf_rec.h
