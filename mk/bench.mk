# SPDX-License-Identifier: MIT
# perfring-bench, the benchmark: a program of its own, built from bench/
# (`perfring bench` runs it, cli/bench/bench.c), so that the perfring
# command links none of the peers.  It is built by `make` but not
# installed by `make install`: `make install-bench` installs it (and its
# manual page) next to perfring.  The peers are optional:
# bench/core/probe.sh compiles and links a test program against each with this build's $(CC)/$(CXX) and flags, once per build directory
# (again when the compilers or flags change), into
# $(BUILD)/bench/config.mk.
# A cross build finds no peers for its target and builds perfring-bench
# without them (it measures perfring alone).  The C++ adapters (boost,
# atomic_queue, concurrentqueue) are linked only when $(CXX) targets the
# same machine as $(CC); then perfring-bench is linked with $(CXX).
# Neither the library nor the perfring command links any peer.

BENCH_CONF := $(BUILD)/bench/config.mk
BENCH_KEY := $(subst $() ,_,$(CC)|$(CXX)|$(SANITIZE)|$(CFLAGS)|$(CXXFLAGS)|\
	$(LDFLAGS))

# A stale configuration (other compilers or flags) depends on a phony
# target, so make regenerates it and, having remade an included makefile,
# reads everything again.  (Marking the file itself phony would not make
# GNU make re-read it.)
ifeq ($(filter clean format,$(MAKECMDGOALS)),)
-include $(BENCH_CONF)
ifneq ($(BENCH_CONF_KEY),$(BENCH_KEY))
$(BENCH_CONF): bench-conf-force
endif
endif
.PHONY: bench-conf-force
bench-conf-force: ;

$(BENCH_CONF): bench/core/probe.sh mk/bench.mk
	@mkdir -p $(dir $@)
	@CC="$(CC)" CXX="$(CXX)" SANITIZE="$(SANITIZE)" CFLAGS="$(CFLAGS)" \
		CXXFLAGS="$(CXXFLAGS)" LDFLAGS="$(LDFLAGS)" \
		bench/core/probe.sh '$(BENCH_KEY)' >$@.tmp && mv $@.tmp $@
	@echo "bench peers for $(CC):" \
		$$(sed -n 's/^BENCH_HAVE_\([A-Z]*\) := y/\1/p' $@ | \
		   tr '\n' ' ' | tr 'A-Z' 'a-z')

BENCH_PROG := $(BUILD)/perfring-bench
BENCH_LINK = $(CC)
LIBEXECDIR ?= $(PREFIX)/libexec
BENCH_HDRS := $(wildcard bench/*/*.h util/*.h)
# The program: bench/core/ (main, the shared options, method and probes),
# bench/spsc/ (the one-writer bench) and bench/mw/ (many writers): each
# bench's command, method and report, then the contestants.
BENCH_CMD_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard bench/core/main.c \
	bench/core/cmd_opts.c bench/core/method_common.c \
	bench/spsc/cmd.c bench/spsc/method.c bench/spsc/placement.c \
	bench/spsc/report.c bench/spsc/targets.c bench/spsc/plot.c \
	bench/spsc/sweep.c bench/mw/cmd.c bench/mw/method.c \
	bench/mw/method_reader.c bench/mw/report.c bench/mw/plot.c))
BENCH_OBJS := $(BUILD)/bench/spsc/harness.o $(BUILD)/bench/core/probes.o \
	$(BUILD)/bench/spsc/perfring.o $(BUILD)/bench/spsc/perfring_wa.o \
	$(BUILD)/bench/spsc/peer_mutex.o \
	$(BUILD)/bench/mw/harness.o $(BUILD)/bench/mw/perfring.o \
	$(BUILD)/bench/mw/peer_mutex.o
BENCH_DEFS :=
BENCH_LIBS :=
BENCH_CXX_OBJS :=

ifeq ($(BENCH_HAVE_DPDK),y)
BENCH_OBJS += $(BUILD)/bench/spsc/peer_dpdk.o $(BUILD)/bench/mw/peer_dpdk.o
BENCH_DEFS += -DPFR_BENCH_HAVE_DPDK
BENCH_LIBS += $(BENCH_DPDK_LIBS)
endif
ifeq ($(BENCH_HAVE_CK),y)
BENCH_OBJS += $(BUILD)/bench/spsc/peer_ck.o $(BUILD)/bench/mw/peer_ck.o
BENCH_DEFS += -DPFR_BENCH_HAVE_CK
BENCH_LIBS += $(BENCH_CK_LIBS)
endif
ifeq ($(BENCH_HAVE_URCU),y)
BENCH_OBJS += $(BUILD)/bench/mw/peer_urcu.o
BENCH_DEFS += -DPFR_BENCH_HAVE_URCU
BENCH_LIBS += $(BENCH_URCU_LIBS)
endif
BENCH_CXX_DEFS := $(if $(filter y,$(BENCH_HAVE_BOOST)),-DPFR_BENCH_HAVE_BOOST) \
	$(if $(filter y,$(BENCH_HAVE_AQ)),-DPFR_BENCH_HAVE_AQ)
ifneq ($(strip $(BENCH_CXX_DEFS)),)
BENCH_CXX_OBJS += $(BUILD)/bench/spsc/peers_cxx.o
BENCH_DEFS += -DPFR_BENCH_HAVE_CXX
BENCH_LINK = $(CXX)
endif

# The multi-writer bench's C++ peers (bench/mw/peers_cxx.cc).
BENCH_MW_CXX_DEFS := $(if $(filter y,$(BENCH_HAVE_CQ)),-DPFR_BENCH_HAVE_CQ) \
	$(if $(filter y,$(BENCH_HAVE_AQB2)),-DPFR_BENCH_HAVE_AQ) \
	$(if $(filter y,$(BENCH_HAVE_BOOSTQ)),-DPFR_BENCH_HAVE_BOOST)
ifneq ($(strip $(BENCH_MW_CXX_DEFS)),)
BENCH_CXX_OBJS += $(BUILD)/bench/mw/peers_cxx.o
BENCH_DEFS += -DPFR_BENCH_HAVE_MWCXX
BENCH_LINK = $(CXX)
endif

# The peers' headers are not ours: their warnings are not ours to fix.
BENCH_PEER_WARN := -Wno-shadow -Wno-strict-prototypes -Wno-unused-parameter \
	-Wno-sign-compare -Wno-cast-qual -Wno-missing-field-initializers
BENCH_CFLAGS_spsc/peer_dpdk = $(BENCH_DPDK_CFLAGS) $(BENCH_PEER_WARN)
BENCH_CFLAGS_spsc/peer_ck = $(BENCH_PEER_WARN)
BENCH_CFLAGS_mw/peer_dpdk = $(BENCH_DPDK_CFLAGS) $(BENCH_PEER_WARN)
BENCH_CFLAGS_mw/peer_ck = $(BENCH_PEER_WARN)
BENCH_CFLAGS_mw/peer_urcu = $(BENCH_PEER_WARN)

# perfring_wa.o is bench/spsc/perfring.c built again with the writer's old
# write-ahead bound (the limit) and only its wa-limit rows: the A/B of the
# bound within one run, next to the default rows.
$(BUILD)/bench/spsc/perfring_wa.o: bench/spsc/perfring.c $(BENCH_HDRS) \
		$(HEADERS) $(BENCH_CONF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) '-DPFR__AHEAD_BOUND(w)=((w)->limit)' \
		-DPR_WA_ONLY=1 -c $< -o $@

$(BUILD)/bench/%.o: bench/%.c $(BENCH_HDRS) $(HEADERS) $(BENCH_CONF)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(BENCH_CFLAGS_$*) -c $< -o $@

BENCH_CXXFLAGS = $(PFR_CPPFLAGS) $(CPPFLAGS) -std=gnu++17 -Wall -Wextra \
	-Wno-unused-parameter -fvisibility=hidden \
	$(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer) \
	$(filter-out -std=%,$(CFLAGS)) $(CXXFLAGS)

$(BUILD)/bench/spsc/peers_cxx.o: bench/spsc/peers_cxx.cc $(BENCH_HDRS) $(HEADERS) \
		$(BENCH_CONF)
	@mkdir -p $(dir $@)
	$(CXX) $(BENCH_CXXFLAGS) $(BENCH_CXX_DEFS) -c $< -o $@

$(BUILD)/bench/mw/peers_cxx.o: bench/mw/peers_cxx.cc $(BENCH_HDRS) \
		$(HEADERS) $(BENCH_CONF)
	@mkdir -p $(dir $@)
	$(CXX) $(BENCH_CXXFLAGS) $(BENCH_MW_CXX_DEFS) -c $< -o $@

# The program's own objects see which peers are linked, and the flags
# (without the build directory a -ffile-prefix-map names, so that the
# program does not depend on where it was built).
$(BENCH_CMD_OBJS): PFR_CPPFLAGS += $(BENCH_DEFS) \
	-DPFR_BENCH_CFLAGS='"$(filter-out -ffile-prefix-map=% \
	-fdebug-prefix-map=% -fmacro-prefix-map=%,$(CFLAGS))"'

# util/ (libpfrutil.a): the messages and parsers perfring's commands
# share.
BENCH_CLI_OBJS := $(UTIL_LIB)

$(BENCH_PROG): $(BENCH_CMD_OBJS) $(BENCH_OBJS) $(BENCH_CXX_OBJS) \
		$(BENCH_CLI_OBJS) $(STATIC_LIB)
	$(BENCH_LINK) $(ALL_LDFLAGS) -o $@ $(BENCH_CMD_OBJS) $(BENCH_OBJS) \
		$(BENCH_CXX_OBJS) $(BENCH_CLI_OBJS) $(STATIC_LIB) \
		$(BENCH_LIBS) $(LDLIBS_CLI) $(LDLIBS_CORE)

all: $(BENCH_PROG)
CHECK_DEPS += $(BENCH_PROG)

# `perfring bench` looks for the program next to itself, then here.
$(BUILD)/cli/bench/bench.o: PFR_CPPFLAGS += \
	-DPFR_LIBEXECDIR='"$(LIBEXECDIR)/perfring"'
$(BUILD)/cli/bench/bench.o: $(BUILD)/pc-vars

.PHONY: install-bench uninstall-bench
install-bench: $(BENCH_PROG)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BENCH_PROG) $(DESTDIR)$(BINDIR)/perfring-bench
	install -m 644 man/perfring-bench.1 $(DESTDIR)$(MANDIR)/man1/

uninstall-bench:
	rm -f $(DESTDIR)$(BINDIR)/perfring-bench \
		$(DESTDIR)$(MANDIR)/man1/perfring-bench.1
