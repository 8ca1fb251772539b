# SPDX-License-Identifier: MIT
# The perf.data library (src/perfdata/, <perfring/perfdata.h>): what
# `perfring script` knows (ELF symbols, DWARF unwinding, tracepoint
# fields, zstd, the process maps and the ordered stream), apart from the
# libc-only core because it links the field's libraries (mk/script.mk,
# mk/zstd.mk).  Built as libperfring-perfdata.so.$(VERSION) (SONAME
# libperfring-perfdata.so.$(SOVERSION), version script
# src/perfdata/perfdata.map, linking libperfring.so) and as a static
# archive, which the command links.  The internal helpers it uses go in
# with it, hidden by the version script: util/util.c, util/msg.c and the
# core's process maps (src/perf/perf_maps.c).
PD_SRCS := $(sort $(wildcard src/perfdata/*.c))
PD_OBJS := $(PD_SRCS:%.c=$(BUILD)/%.o)
PD_PIC_OBJS := $(PD_SRCS:%.c=$(BUILD)/%.pic.o) $(BUILD)/util/util.pic.o \
	$(BUILD)/util/msg.pic.o \
	$(BUILD)/src/perf/perf_maps.pic.o
PD_STATIC_LIB := $(BUILD)/libperfring-perfdata.a
PD_SHARED_LIB := $(BUILD)/libperfring-perfdata.so.$(VERSION)
PD_PC := $(BUILD)/perfring-perfdata.pc

all: $(PD_SHARED_LIB) $(PD_PC)

$(PD_STATIC_LIB): $(PD_OBJS) $(BUILD)/util/util.o $(BUILD)/util/msg.o
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(PD_SHARED_LIB): $(PD_PIC_OBJS) src/perfdata/perfdata.map $(SHARED_LIB)
	$(CC) -shared -Wl,-soname,libperfring-perfdata.so.$(SOVERSION) \
		-Wl,--version-script=src/perfdata/perfdata.map $(ALL_LDFLAGS) \
		-o $@ $(PD_PIC_OBJS) -L$(BUILD) -lperfring $(SCRIPT_LIBS) -ldl
	ln -sf libperfring-perfdata.so.$(VERSION) \
		$(BUILD)/libperfring-perfdata.so.$(SOVERSION)
	ln -sf libperfring-perfdata.so.$(SOVERSION) \
		$(BUILD)/libperfring-perfdata.so

$(PD_PC): src/perfdata/perfring-perfdata.pc.in Makefile $(PC_STAMP)
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< > $@

# make install / uninstall: the library, its links and its .pc (the
# header, man pages and example go with the core's, by wildcard).
.PHONY: install-perfdata uninstall-perfdata
install: install-perfdata
install-perfdata: $(PD_SHARED_LIB) $(PD_STATIC_LIB) $(PD_PC)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(PD_STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(PD_SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libperfring-perfdata.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libperfring-perfdata.so.$(SOVERSION)
	ln -sf libperfring-perfdata.so.$(SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libperfring-perfdata.so
	install -m 644 $(PD_PC) $(DESTDIR)$(PKGCONFIGDIR)/

uninstall: uninstall-perfdata
uninstall-perfdata:
	rm -f $(DESTDIR)$(LIBDIR)/libperfring-perfdata.a \
		$(DESTDIR)$(LIBDIR)/libperfring-perfdata.so*
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/perfring-perfdata.pc

# The unit tests of the library's API link it (and the field's
# libraries) besides the core.
PD_UNIT_BINS := $(BUILD)/tests/unit/perfdata_api
$(PD_UNIT_BINS): $(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/tests/tap.o \
		$(PD_STATIC_LIB) $(STATIC_LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SCRIPT_CPPFLAGS) -Itests $(ALL_LDFLAGS) -o $@ $< \
		$(BUILD)/tests/tap.o $(PD_STATIC_LIB) $(STATIC_LIB) \
		$(SCRIPT_LIBS) -ldl $(LDLIBS_CORE)
