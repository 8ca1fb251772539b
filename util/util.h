/* SPDX-License-Identifier: MIT */
/*
 * The internal library the perfring command (cli/) and perfring-bench
 * (bench/) both link (libpfrutil.a): usage errors and the progress line
 * (msg.c), number parsing, JSON and terminal-safe strings, opening a
 * regular file (util.c).  It uses libc only, never the commands' code.
 */
#ifndef PFR_UTIL_H
#define PFR_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status for a usage error, as every perfring subcommand uses. */
#define PFR_EXIT_USAGE 2

/* Prints "perfring CMD: message" and a hint to run --help; returns 2. */
int pfr_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes s as a JSON string literal (with quotes) to f.  The output is
 * always valid JSON whatever s holds: control characters are \u00XX, and
 * each byte that is not part of a valid UTF-8 character is \ufffd. */
void pfr_cli_json_str(FILE *f, const char *s);

/* The compiler this program was built with, e.g. "gcc 12.2.0". */
const char *pfr_cli_compiler(void);

/* Writes s for a terminal: printable ASCII and valid UTF-8 characters as
 * they are, every control byte (ESC, C1 controls, DEL) and every byte that
 * is not valid UTF-8 as \xNN. */
void pfr_cli_text_str(FILE *f, const char *s);
/* The same into dst (size bytes, always NUL-terminated; whole characters
 * only, so a long s is cut short).  Returns the length written. */
size_t pfr_cli_text_esc(char *dst, size_t size, const char *s);

/* Length of the valid UTF-8 character at s (n > 0 bytes left): 1..4, or 0
 * when the bytes there are not one (overlong forms and surrogates are
 * not). */
size_t pfr_cli_utf8_len(const unsigned char *s, size_t n);

/* Parses a non-negative integer (decimal, or hex after 0x) with an
 * optional k/M/G suffix (powers of 1000, or of 1024 with "Ki"/"Mi"/"Gi").
 * Returns 0, or -1 when malformed or too large (a sign, blanks, trailing
 * characters, overflow): never a silently different number. */
int pfr_cli_parse_u64(const char *s, unsigned long long *out);
/* The same for a value that must fit 32 bits. */
int pfr_cli_parse_u32(const char *s, uint32_t *out);

/* Opens path for reading only if it is a regular file: a FIFO is refused
 * without waiting for a writer (opened O_NONBLOCK, checked with fstat),
 * and so are devices, sockets and directories.  Returns the fd (blocking,
 * close-on-exec) or -1 with errno set (EINVAL: not a regular file). */
int pfr_cli_open_regular(const char *path);

/* A progress line on stderr, rewritten in place when stderr is a terminal
 * and printed at most once a second otherwise.  Finish with done=1. */
void pfr_cli_progress(const char *what, double fraction, int done);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t pfr_cli_now_ns(void);

/* The next value of a xorshift64 sequence in *s (non-zero): a cheap,
 * repeatable pseudo-random sequence for test data, not for secrets. */
uint64_t pfr_cli_xorshift(uint64_t *s);

#endif
