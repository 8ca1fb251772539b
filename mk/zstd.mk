# SPDX-License-Identifier: MIT
# perf.data compression (perfring record -z, as perf record -z) uses
# Debian's libzstd (libzstd-dev, in tools/deps.sh): its header at build
# time; the library itself is loaded (dlopen) when a file is compressed
# (src/perf/perf_data.c) or a compressed one is read (perfring script,
# src/perfdata/zstd.c), so that no program links it that does neither.  A native build
# without the header stops with the fix; a cross build (no such library
# for its target) builds without compression, and -z says so.

ifeq ($(filter clean format uninstall uninstall-bench,$(MAKECMDGOALS)),)
ZSTD_HAVE := $(shell printf '\043include <zstd.h>\nint main(void) { return \
ZSTD_VERSION_NUMBER < 10400; }\n' | $(CC) -x c - -o /dev/null \
	>/dev/null 2>&1 && echo y)
ZSTD_NATIVE := $(if $(filter $(shell uname -m)-%,\
	$(shell $(CC) -dumpmachine 2>/dev/null)),y)
ifeq ($(ZSTD_HAVE),y)
$(BUILD)/src/perf/perf_data.o $(BUILD)/src/perf/perf_data.pic.o \
$(BUILD)/src/perfdata/zstd.o $(BUILD)/src/perfdata/zstd.pic.o: PFR_CPPFLAGS += -DPFR_HAVE_ZSTD
else ifeq ($(ZSTD_NATIVE),y)
$(error perfring record -z needs zstd.h for $(CC) (Debian: libzstd-dev; \
	run tools/deps.sh))
endif
endif
