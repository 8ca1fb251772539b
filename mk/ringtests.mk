# SPDX-License-Identifier: MIT
# The ring's tests (tests/unit/ring_*.c, tests/fuzz/*fuzz_ring*).
#
#   make ring-check        build and run only the ring's unit tests
#   make fuzz-ring         build the ring fuzzer and run it for FUZZ_SECONDS
#                          (default 60; t_fuzz_ring.sh runs in make check)

RING_UNIT_BINS := $(filter $(BUILD)/tests/unit/ring_%,$(UNIT_BINS))

# The ring tests share a header the generic rule does not know about.
$(RING_UNIT_BINS): tests/unit/ring_common.h

.PHONY: ring-check fuzz-ring
ring-check: $(RING_UNIT_BINS)
	$(TEST_ENV) PFR_LONG=0 tests/run.sh -t $(TEST_TIMEOUT) $(RING_UNIT_BINS)

FUZZ_SECONDS ?= 60
fuzz-ring:
	$(TEST_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) bash tests/fuzz/t_fuzz_ring.sh
