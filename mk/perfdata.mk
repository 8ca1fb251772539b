# SPDX-License-Identifier: MIT
# The perf.data library (src/perfdata/): what `perfring script` knows
# (ELF symbols, DWARF unwinding, tracepoint fields, zstd, the process
# maps and the ordered stream), apart from the libc-only core because it
# links the field's libraries (mk/script.mk, mk/zstd.mk).  The command
# links it; util/'s helpers it uses go in with it.
PD_SRCS := $(sort $(wildcard src/perfdata/*.c))
PD_OBJS := $(PD_SRCS:%.c=$(BUILD)/%.o)
PD_STATIC_LIB := $(BUILD)/libperfring-perfdata.a

$(PD_STATIC_LIB): $(PD_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^
