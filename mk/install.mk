# SPDX-License-Identifier: MIT
# perfring.pc records PREFIX, LIBDIR and INCLUDEDIR: rebuild it whenever
# they change, so `make && make install PREFIX=/usr` does not install a
# perfring.pc that still points at /usr/local.  The stamp is rewritten (at
# parse time) only when the values differ from the last build's.
PC_VARS := $(PREFIX)|$(LIBDIR)|$(INCLUDEDIR)|$(VERSION)
PC_STAMP := $(BUILD)/pc-vars

ifneq ($(PC_VARS),$(shell cat $(PC_STAMP) 2>/dev/null))
$(shell mkdir -p $(BUILD) && echo '$(PC_VARS)' >$(PC_STAMP))
endif

$(BUILD)/perfring.pc: $(PC_STAMP)
$(PC_STAMP): ;
