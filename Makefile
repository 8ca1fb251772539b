# SPDX-License-Identifier: MIT
# perfring - plain GNU Makefile.  Honours CC, CFLAGS, CPPFLAGS, LDFLAGS,
# PREFIX, BINDIR, LIBDIR, INCLUDEDIR, MANDIR, DOCDIR, PYTHONDIR, DESTDIR;
# SANITIZE=address,undefined
# or SANITIZE=thread builds everything (and runs every test) sanitized;
# BUILD=dir puts the objects elsewhere (the cross and sanitizer runs do).

# The release version has one home, <perfring/common.h>'s
# PFR_VERSION_STRING (what pfr_version() returns); perfring.pc, the shared
# library's file name, `make dist` and debian/changelog (checked by
# tests/install/t_deb.sh) follow it.
VERSION := $(shell sed -n 's/^\#define PFR_VERSION_STRING "\(.*\)"$$/\1/p' \
	include/perfring/common.h)
SOVERSION := 0

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/perfring
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

CC ?= cc
CXX ?= c++
AR ?= ar
CFLAGS ?= -O2 -g
BUILD ?= build
SANITIZE ?=
# Run-time wrapper for test programs (qemu-aarch64 -L /usr/aarch64-linux-gnu
# for the cross runs).
RUNNER ?=

# What the project requires goes on top of the user's flags.
PFR_CPPFLAGS := -Iinclude -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64
PFR_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	-fvisibility=hidden -fno-strict-aliasing
ifneq ($(SANITIZE),)
PFR_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
PFR_LDFLAGS += -fsanitize=$(SANITIZE)
endif
ALL_CFLAGS = $(PFR_CPPFLAGS) $(CPPFLAGS) $(PFR_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(PFR_LDFLAGS) $(LDFLAGS)
LDLIBS_CORE := -lpthread -lrt
LDLIBS_CLI := -lm
# mk/ fragments that add C++ objects to the command set CLI_LINK = $(CXX).
CLI_LINK = $(CC)

# src/perfdata/ is the perf.data library (mk/perfdata.mk), apart from the
# libc-only core.
LIB_SRCS := $(sort $(filter-out src/perfdata/%,$(wildcard src/*/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB_PIC_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.pic.o)
CLI_SRCS := $(sort $(wildcard cli/*.c cli/*/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
# util/: the internal library the command and perfring-bench both link.
UTIL_SRCS := $(sort $(wildcard util/*.c))
UTIL_LIB := $(BUILD)/util/libpfrutil.a
UNIT_SRCS := $(sort $(wildcard tests/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
HEADERS := $(sort $(wildcard include/perfring/*.h include/perfring/arch/*.h))
# Manual pages `make install` installs (perfring-bench's goes with
# `make install-bench`, mk/bench.mk).
MAN_PAGES := $(filter-out man/perfring-bench.1,$(wildcard man/*.[137]))

STATIC_LIB := $(BUILD)/libperfring.a
SHARED_LIB := $(BUILD)/libperfring.so.$(VERSION)
PERFRING := $(BUILD)/perfring

# Test programs and scripts.  Shell tests are tests/*/t_*.sh (make check)
# and tests/*/long_*.sh (make check-long only); fragments in mk/ add more.
CHECK_TESTS := $(UNIT_BINS) $(sort $(wildcard tests/*/t_*.sh))
LONG_TESTS := $(sort $(wildcard tests/*/long_*.sh))
CHECK_DEPS := all $(UNIT_BINS)
TEST_TIMEOUT ?= 600

.PHONY: all check check-long lint install uninstall clean format
all: $(STATIC_LIB) $(SHARED_LIB) $(PERFRING) $(BUILD)/perfring.pc

-include $(sort $(wildcard mk/*.mk))

# Only the library's own sources, and the unit tests of its internals
# (those that include an internal header), see src/'s internal headers
# (-Isrc); the programs (cli/, bench/), the examples and every other test
# compile against the installed headers alone.
WHITEBOX_UNITS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,\
	$(shell grep -l '^\#include "\(abi\|perf\|perfdata\|ring\|writers\)/' \
	tests/unit/*.c 2>/dev/null))
$(BUILD)/src/%.o $(BUILD)/src/%.pic.o $(WHITEBOX_UNITS): PFR_CPPFLAGS += -Isrc

$(BUILD)/%.o: %.c $(HEADERS) $(wildcard src/*/*.h cli/*.h cli/*/*.h util/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/%.pic.o: %.c $(HEADERS) $(wildcard src/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_PIC_OBJS) src/abi/perfring.map
	$(CC) -shared -Wl,-soname,libperfring.so.$(SOVERSION) \
		-Wl,--version-script=src/abi/perfring.map $(ALL_LDFLAGS) \
		-o $@ $(LIB_PIC_OBJS) $(LDLIBS_CORE)
	ln -sf libperfring.so.$(VERSION) $(BUILD)/libperfring.so.$(SOVERSION)
	ln -sf libperfring.so.$(SOVERSION) $(BUILD)/libperfring.so

$(UTIL_LIB): $(UTIL_SRCS:%.c=$(BUILD)/%.o)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

$(PERFRING): $(CLI_OBJS) $(STATIC_LIB) $(PD_STATIC_LIB) $(UTIL_LIB) \
		$(CLI_EXTRA_OBJS)
	$(CLI_LINK) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(CLI_EXTRA_OBJS) \
		$(PD_STATIC_LIB) $(UTIL_LIB) $(STATIC_LIB) $(CLI_EXTRA_LIBS) $(LDLIBS_CLI) \
		$(LDLIBS_CORE)

$(BUILD)/tests/tap.o: tests/tap.c tests/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -c $< -o $@

$(BUILD)/tests/unit/%: tests/unit/%.c $(BUILD)/tests/tap.o $(STATIC_LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests $(ALL_LDFLAGS) -o $@ $< \
		$(BUILD)/tests/tap.o $(STATIC_LIB) $(LDLIBS_CORE)

$(BUILD)/perfring.pc: perfring.pc.in Makefile
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$< > $@

# PERF_BUILDID_DIR: the build-id cache that perfring record and perf
# record fill after each recording stays in the build directory, not in
# the user's ~/.debug (tests that check the default set their own HOME).
TEST_ENV = PFR_TOP=$(CURDIR) PFR_BUILD=$(abspath $(BUILD)) \
	PERFRING=$(abspath $(PERFRING)) RUNNER="$(RUNNER)" CC="$(CC)" \
	SANITIZE="$(SANITIZE)" \
	PERF_BUILDID_DIR=$(abspath $(BUILD))/test-buildid-cache

# EXTRA_TESTS: long tests run with the check's in one report (.ci/run
# adds the Debian package build, tests/install/long_deb.sh).
check: $(CHECK_DEPS)
	$(TEST_ENV) PFR_LONG=0 tests/run.sh -t $(TEST_TIMEOUT) $(CHECK_TESTS) \
		$(EXTRA_TESTS)

check-long: $(CHECK_DEPS)
	$(TEST_ENV) PFR_LONG=1 tests/run.sh -t 3600 $(CHECK_TESTS) $(LONG_TESTS)

lint:
	tools/lint-barriers.sh
	clang-format --dry-run --Werror $(LIB_SRCS) $(PD_SRCS) $(wildcard src/*/*.h) \
		$(CLI_SRCS) $(wildcard cli/*.h cli/*/*.h) $(wildcard util/*.[ch]) \
		include/perfring/*.h \
		$(wildcard bench/*/*.[ch])

format:
	clang-format -i $(LIB_SRCS) $(PD_SRCS) $(wildcard src/*/*.h) $(CLI_SRCS) \
		$(wildcard cli/*.h cli/*/*.h) $(wildcard util/*.[ch]) include/perfring/*.h \
		$(wildcard bench/*/*.[ch])

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
		$(DESTDIR)$(INCLUDEDIR)/perfring/arch $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(PERFRING) $(DESTDIR)$(BINDIR)/perfring
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf libperfring.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libperfring.so.$(SOVERSION)
	ln -sf libperfring.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libperfring.so
	install -m 644 include/perfring/*.h $(DESTDIR)$(INCLUDEDIR)/perfring/
	install -m 644 include/perfring/arch/*.h \
		$(DESTDIR)$(INCLUDEDIR)/perfring/arch/
	install -m 644 $(BUILD)/perfring.pc $(DESTDIR)$(PKGCONFIGDIR)/
	for m in $(MAN_PAGES); do \
		s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; \
	done
	rm -rf $(BUILD)/man-links
	$(PYTHON) tools/man-links.py --write $(BUILD)/man-links . >/dev/null
	install -m 644 $(BUILD)/man-links/*.3 $(DESTDIR)$(MANDIR)/man3/
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 644 docs/examples/*.c $(DESTDIR)$(DOCDIR)/examples/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfring
	rm -f $(DESTDIR)$(LIBDIR)/libperfring.a $(DESTDIR)$(LIBDIR)/libperfring.so*
	rm -rf $(DESTDIR)$(INCLUDEDIR)/perfring
	rm -f $(DESTDIR)$(PKGCONFIGDIR)/perfring.pc
	for m in $(notdir $(MAN_PAGES)); do \
		rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$$m; \
	done
	$(PYTHON) tools/man-links.py . | while read -r f page; do \
		rm -f $(DESTDIR)$(MANDIR)/man3/$$f.3; done
	rm -rf $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-*
