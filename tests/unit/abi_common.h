/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the unit tests that load the shared library built
 * next to them (tests/unit/abi_opts.c, tests/unit/ffi_twins.c; mk/abi.mk
 * builds it first).
 */
#ifndef PFR_TESTS_ABI_COMMON_H
#define PFR_TESTS_ABI_COMMON_H

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

/* The shared library built next to this test (build/libperfring.so for
 * build/tests/unit/NAME), dlopen()ed; NULL (and a diagnostic) when it
 * cannot be. */
static inline void *open_shared(void)
{
	char exe[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	void *h;

	if (n <= 0)
		return NULL;
	exe[n] = 0;
	for (int i = 0; i < 3; i++) {
		char *slash = strrchr(exe, '/');

		if (slash)
			*slash = 0;
	}
	snprintf(path, sizeof(path), "%s/libperfring.so", exe);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		tap_diag("dlopen %s: %s", path, dlerror());
	return h;
}

#endif
