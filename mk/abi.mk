# SPDX-License-Identifier: MIT
# The ABI tests load the shared library next to them (dlopen, dlvsym):
# build it first when one of them is built on its own.
$(BUILD)/tests/unit/ffi_twins $(BUILD)/tests/unit/abi_opts: | $(SHARED_LIB)
# They share a header the generic rule does not know about.
$(BUILD)/tests/unit/ffi_twins $(BUILD)/tests/unit/abi_opts: \
	tests/unit/abi_common.h
