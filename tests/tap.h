/* SPDX-License-Identifier: MIT */
/*
 * A small TAP producer for perfring's tests.  A test program calls ok() and
 * friends, then returns tap_done(): exit 0 when every check passed, 1
 * otherwise.  tap_skip_all() exits 77 with a reason (the runner counts it as
 * skipped, never as passed).
 */
#ifndef PFR_TESTS_TAP_H
#define PFR_TESTS_TAP_H

#include <stdarg.h>

/* Records one check; prints "ok N - msg" or "not ok N - msg".  Returns cond. */
int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prints a diagnostic line ("# ..."). */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exits 77 after printing "1..0 # SKIP reason". */
void tap_skip_all(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Prints the plan and returns the exit status (0 all passed, 1 otherwise). */
int tap_done(void);
/* Number of failed checks so far. */
int tap_failures(void);

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, name)                                                \
	do {                                                                   \
		long long tap__g = (long long)(got), tap__w = (long long)(want); \
		if (!ok(tap__g == tap__w, "%s", name))                         \
			tap_diag("  got %lld, want %lld", tap__g, tap__w);     \
	} while (0)
#define is_uint(got, want, name)                                               \
	do {                                                                   \
		unsigned long long tap__g = (unsigned long long)(got);         \
		unsigned long long tap__w = (unsigned long long)(want);        \
		if (!ok(tap__g == tap__w, "%s", name))                         \
			tap_diag("  got %llu (0x%llx), want %llu (0x%llx)",    \
				 tap__g, tap__g, tap__w, tap__w);              \
	} while (0)

#endif
