/* SPDX-License-Identifier: MIT */
/*
 * <perfring/common.h> - version and export macros shared by every perfring
 * header.
 */
#ifndef PERFRING_COMMON_H
#define PERFRING_COMMON_H

#define PFR_VERSION_MAJOR 0
#define PFR_VERSION_MINOR 3
#define PFR_VERSION_PATCH 0
#define PFR_VERSION_STRING "0.3.0"

/* Marks a function the shared library exports (it is built with
 * -fvisibility=hidden; the version script names what is public). */
#define PFR_API __attribute__((visibility("default")))

/* The ring's fast paths: always inlined, so that a call site's constant
 * sizes reach the record copy (GCC otherwise may outline them and turn the
 * copy into a libc call; see docs/bench.md). */
#define PFR__INLINE static inline __attribute__((always_inline))

#ifdef __cplusplus
#define PFR__EXTERN_C_BEGIN extern "C" {
#define PFR__EXTERN_C_END }
#else
#define PFR__EXTERN_C_BEGIN
#define PFR__EXTERN_C_END
#endif

PFR__EXTERN_C_BEGIN

/* Returns the library's version string, e.g. "0.3.0".
 * Concurrency: any thread, any time.  Progress: wait-free. */
PFR_API const char *pfr_version(void);

PFR__EXTERN_C_END

#endif
