# SPDX-License-Identifier: MIT
# The perf.data library (src/perfdata/, mk/perfdata.mk: `perfring script`
# and `record --print` are its clients) decodes tracepoint fields with
# libtraceevent, reads ELF symbol tables with elfutils' libelf and libdw,
# and demangles C++ and Rust names with libiberty (tools/deps.sh installs
# libtraceevent-dev, libelf-dev, libdw-dev and libiberty-dev); the core
# library never links them.  A native build without them
# stops with the fix; a cross build (no such libraries for its target)
# builds perfring without them, and its script prints no symbols and no
# tracepoint fields (it says so).

SCRIPT_PKGS := libtraceevent libelf libdw
SCRIPT_CPPFLAGS := $(shell pkg-config --cflags $(SCRIPT_PKGS) 2>/dev/null)
SCRIPT_LIBS := $(shell pkg-config --libs $(SCRIPT_PKGS) 2>/dev/null) -liberty

ifeq ($(filter clean format uninstall uninstall-bench,$(MAKECMDGOALS)),)
SCRIPT_HAVE := $(shell printf '\043include <event-parse.h>\n\043include \
<gelf.h>\n\043include <elfutils/libdwelf.h>\n\043include \
<libiberty/demangle.h>\nint main(void) { return !tep_alloc() || \
!elf_version(EV_CURRENT) || !cplus_demangle("_Z1fv", 0); }\n' | \
	$(CC) -x c $(SCRIPT_CPPFLAGS) - -o /dev/null $(SCRIPT_LIBS) \
	>/dev/null 2>&1 && echo y)
SCRIPT_NATIVE := $(if $(filter $(shell uname -m)-%,\
	$(shell $(CC) -dumpmachine 2>/dev/null)),y)
ifneq ($(SCRIPT_HAVE),y)
ifeq ($(SCRIPT_NATIVE),y)
$(error perfring script needs libtraceevent, libelf, libdw and libiberty for $(CC) \
	(Debian: libtraceevent-dev libelf-dev libdw-dev libiberty-dev; run tools/deps.sh))
endif
$(info perfring: $(CC) has no libtraceevent/libelf/libdw: this perfring's \
	script decodes neither symbols nor tracepoint fields)
SCRIPT_CPPFLAGS := -DPFR_NO_SCRIPT_LIBS
SCRIPT_LIBS :=
endif
endif

$(BUILD)/src/perfdata/%.o $(BUILD)/src/perfdata/%.pic.o: \
	PFR_CPPFLAGS += $(SCRIPT_CPPFLAGS)
CLI_EXTRA_LIBS += $(SCRIPT_LIBS)
