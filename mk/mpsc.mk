# SPDX-License-Identifier: MIT
# The shared MPSC ring (<perfring/mpsc.h>): its own targets.
#
#   make mpsc-check          build and run its unit test, model and stress
#   make mpsc-reserve-bench  the lock-vs-CAS reservation measurement
#                            (docs/mpsc.md); run build/mpsc-reserve-bench

.PHONY: mpsc-check mpsc-reserve-bench
mpsc-check: all $(BUILD)/tests/unit/mpsc
	$(TEST_ENV) PFR_LONG=0 tests/run.sh -t $(TEST_TIMEOUT) \
		$(BUILD)/tests/unit/mpsc tests/model/t_relacy_mpsc.sh \
		tests/stress/t_stress_mpsc.sh

mpsc-reserve-bench: $(BUILD)/mpsc-reserve-bench
$(BUILD)/mpsc-reserve-bench: tools/mpsc-reserve-bench.c $(STATIC_LIB) $(HEADERS)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS_CORE)
