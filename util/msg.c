/* SPDX-License-Identifier: MIT */
/*
 * Messages every subcommand prints the same way: usage errors and the
 * progress line; and the clock and pseudo-random sequence the stress runs
 * share.  Apart from util.c because the test programs that link util.c
 * bring their own util_usage_error().
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

int util_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "perfring%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'perfring%s%s --help'.\n", cmd ? " " : "",
		cmd ? cmd : "");
	return PFR_EXIT_USAGE;
}

void util_progress(const char *what, double fraction, int done)
{
	static time_t last;
	time_t now = time(NULL);
	int tty = isatty(STDERR_FILENO);

	if (!done && !tty && now == last)
		return;
	if (!done && tty == 0 && last == 0) {
		last = now;
		return;
	}
	last = now;
	fprintf(stderr, "%s%s: %3.0f%%%s", tty ? "\r" : "", what,
		fraction * 100.0, (done || !tty) ? "\n" : "");
	fflush(stderr);
}

uint64_t util_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t util_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}
