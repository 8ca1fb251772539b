# SPDX-License-Identifier: MIT
# The instruction table `perfring info` prints, derived from this build:
# tests/insn/probes.c compiled with the build's compiler and flags (at -O2,
# and without sanitizer instrumentation, which would bury the barriers in
# calls; under SANITIZE=thread the C11 backend is forced, as barrier.h does
# under TSan), disassembled with the target's objdump and turned into
# $(BUILD)/gen/cli_insn_table.h by tools/insn-table.sh.  Cross builds use
# <triple>-objdump, or binutils-multiarch's objdump.
#
# Also: `make unit-tests` builds every tests/unit program (the cross and
# sanitizer tests use it), `make insn-docs` regenerates docs/instructions.md.

INSN_GEN := $(BUILD)/gen
INSN_HDR := $(INSN_GEN)/cli_insn_table.h
INSN_CFLAGS = $(filter-out -fsanitize=% -fno-omit-frame-pointer,$(ALL_CFLAGS)) \
	$(if $(findstring thread,$(SANITIZE)),-DPFR_FORCE_C11) -O2

$(INSN_GEN)/probes.o: tests/insn/probes.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(INSN_CFLAGS) -c $< -o $@

# Not echoed: it compiles nothing (it preprocesses and disassembles), but
# blhc (the packages' build log check) would take the line for a link.
$(INSN_HDR): $(INSN_GEN)/probes.o tools/insn-table.sh
	@echo "tools/insn-table.sh build ... $< >$@"
	@tools/insn-table.sh build $(CC) -- $< $(INSN_CFLAGS) >$@.tmp
	mv $@.tmp $@

$(BUILD)/cli/info/info.o: $(INSN_HDR)
$(BUILD)/cli/info/info.o: PFR_CPPFLAGS += -I$(INSN_GEN)

.PHONY: unit-tests insn-docs
unit-tests: $(UNIT_BINS)

insn-docs:
	tests/insn/t_insn_docs.sh --regen

# tools/mb-cost: the cost of the x86-64 full-barrier candidates
# (docs/barriers.md).  Not built by `all`.
.PHONY: mb-cost
mb-cost: $(BUILD)/tools/mb-cost
$(BUILD)/tools/mb-cost: tools/mb-cost.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<
