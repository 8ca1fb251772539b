/* SPDX-License-Identifier: MIT */
/* Internal helpers shared by the library's sources. */
#ifndef PFR_SRC_COMPILER_H
#define PFR_SRC_COMPILER_H

#include <perfring/common.h>

#define pfr__likely(x) __builtin_expect(!!(x), 1)
#define pfr__unlikely(x) __builtin_expect(!!(x), 0)

#endif
