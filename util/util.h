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
int util_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes s as a JSON string literal (with quotes) to f.  The output is
 * always valid JSON whatever s holds: control characters are \u00XX, and
 * each byte that is not part of a valid UTF-8 character is \ufffd. */
void util_json_str(FILE *f, const char *s);

/* The compiler this program was built with, e.g. "gcc 12.2.0". */
const char *util_compiler(void);

/* Writes s for a terminal: printable ASCII and valid UTF-8 characters as
 * they are, every control byte (ESC, C1 controls, DEL) and every byte that
 * is not valid UTF-8 as \xNN. */
void util_text_str(FILE *f, const char *s);
/* The same into dst (size bytes, always NUL-terminated; whole characters
 * only, so a long s is cut short).  Returns the length written. */
size_t util_text_esc(char *dst, size_t size, const char *s);

/* Length of the valid UTF-8 character at s (n > 0 bytes left): 1..4, or 0
 * when the bytes there are not one (overlong forms and surrogates are
 * not). */
size_t util_utf8_len(const unsigned char *s, size_t n);

/* Parses a non-negative integer (decimal, or hex after 0x) with an
 * optional k/M/G suffix (powers of 1000, or of 1024 with "Ki"/"Mi"/"Gi").
 * Returns 0, or -1 when malformed or too large (a sign, blanks, trailing
 * characters, overflow): never a silently different number. */
int util_parse_u64(const char *s, unsigned long long *out);
/* The same for a value that must fit 32 bits. */
int util_parse_u32(const char *s, uint32_t *out);
/* Parses a size in bytes, the one grammar of every option that takes a
 * size: decimal digits (no sign, no blank, no 0x, a leading 0 is not
 * octal) and an optional suffix, B for bytes or K, M, G (either case) for
 * powers of 1024, which may be followed by i and B (4K, 4KB, 4Ki, 4KiB).
 * Returns 0, or -1 when malformed or too large for 64 bits. */
int util_parse_size(const char *s, unsigned long long *out);
/* A time in seconds: decimal digits with an optional fraction and
 * exponent (1, 0.5, .25, 2e-3); no sign, blank, hex (strtod reads 0x10 as
 * 16), inf or nan.  Returns 0, or -1. */
int util_parse_seconds(const char *s, double *out);
/* "MIN:MAX", two sizes as util_parse_size() reads them: 0, or -1. */
int util_parse_size_pair(const char *s, unsigned long long *min,
			 unsigned long long *max);

struct option;
/*
 * The option c that getopt_long() just returned (its value in optarg,
 * lo the long options) checked against the ones seen before (seen[]:
 * zeroed before the loop): an option that takes a value may not be given
 * twice, since one of the values would be silently lost, unless c is in
 * repeatable.  Returns 0, or the usage error's exit status (the message
 * names the option).
 */
int util_once(const char *cmd, const struct option *lo, unsigned char seen[256],
	      int c, const char *repeatable);

/* Opens path for reading only if it is a regular file: a FIFO is refused
 * without waiting for a writer (opened O_NONBLOCK, checked with fstat),
 * and so are devices, sockets and directories.  Returns the fd (blocking,
 * close-on-exec) or -1 with errno set (EINVAL: not a regular file). */
int util_open_regular(const char *path);

/* A progress line on stderr, rewritten in place when stderr is a terminal
 * and printed at most once a second otherwise.  Finish with done=1. */
void util_progress(const char *what, double fraction, int done);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t util_now_ns(void);

/* The next value of a xorshift64 sequence in *s (non-zero): a cheap,
 * repeatable pseudo-random sequence for test data, not for secrets. */
uint64_t util_xorshift(uint64_t *s);

#endif
