/* SPDX-License-Identifier: MIT */
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>

static int tap_n, tap_failed;

int tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	printf("%sok %d - ", cond ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(77);
}

int tap_failures(void)
{
	return tap_failed;
}

int tap_done(void)
{
	printf("1..%d\n", tap_n);
	if (tap_n == 0) {
		printf("# no checks ran\n");
		return 1;
	}
	return tap_failed ? 1 : 0;
}
