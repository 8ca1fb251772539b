/* SPDX-License-Identifier: MIT */
/*
 * Helpers every subcommand shares, kept apart from main.c so that test
 * programs (the fuzzers) link the real ones: strings from untrusted files
 * written as JSON or as terminal text, and number parsing that refuses
 * what it cannot represent.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

size_t util_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], need, min, cp;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0; /* continuation byte, overlong lead, or > U+10FFFF */
	need = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
	min = need == 1 ? 0x80 : need == 2 ? 0x800 : 0x10000;
	if (n < need + 1)
		return 0;
	cp = c & (0x3f >> need);
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0; /* overlong, too large, or a UTF-16 surrogate */
	return need + 1;
}

void util_json_str(FILE *f, const char *s)
{
	const unsigned char *p;
	size_t n;

	if (!s)
		s = ""; /* e.g. a sample whose event has no name (hostile file) */
	p = (const unsigned char *)s;
	n = strlen(s);

	fputc('"', f);
	while (n) {
		unsigned char c = *p;
		size_t l = 0;

		/* a run of plain ASCII in one write (one fwrite a character
		 * cost script -s and --json most of their time) */
		while (l < n && p[l] >= 0x20 && p[l] < 0x7f && p[l] != '"' &&
		       p[l] != '\\')
			l++;
		if (l) {
			fwrite(p, 1, l, f);
			p += l;
			n -= l;
			continue;
		}
		l = util_utf8_len(p, n);

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if (l == 0) {
			fputs("\\ufffd", f); /* not UTF-8: one per byte */
			l = 1;
		} else {
			fwrite(p, 1, l, f);
		}
		if (l == 0)
			l = 1;
		p += l;
		n -= l;
	}
	fputc('"', f);
}

/* Whether the l bytes at p (one valid UTF-8 character) are safe on a
 * terminal: printable ASCII, or a multi-byte character outside the C1
 * controls (U+0080..U+009F, which some terminals obey like ESC). */
static int util_text_safe(const unsigned char *p, size_t l)
{
	if (l == 1)
		return p[0] >= 0x20 && p[0] < 0x7f;
	return !(l == 2 && p[0] == 0xc2 && p[1] < 0xa0);
}

/* The next character of s (n bytes left) for a terminal, into out[17]
 * (NUL-terminated); returns the bytes of s it covers. */
static size_t util_text_char(const unsigned char *p, size_t n, char *out)
{
	size_t l = util_utf8_len(p, n);

	if (l && util_text_safe(p, l)) {
		memcpy(out, p, l);
		out[l] = 0;
		return l;
	}
	l = l ? l : 1;
	for (size_t i = 0; i < l; i++)
		snprintf(out + 4 * i, 5, "\\x%02x", p[i]);
	return l;
}

size_t util_text_esc(char *dst, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;

	if (!size)
		return 0;
	while (n) {
		char c[17];
		size_t l = util_text_char(p, n, c), k = strlen(c);

		if (o + k >= size)
			break; /* whole characters only */
		memcpy(dst + o, c, k);
		o += k;
		p += l;
		n -= l;
	}
	dst[o] = 0;
	return o;
}

void util_text_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		char c[17];
		size_t l = 0;

		/* a run of printable ASCII goes out in one write */
		while (l < n && p[l] >= 0x20 && p[l] < 0x7f)
			l++;
		if (l) {
			fwrite(p, 1, l, f);
		} else {
			l = util_text_char(p, n, c);
			fputs(c, f);
		}
		p += l;
		n -= l;
	}
}

int util_parse_u64(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;
	int hex;

	/* digits first: strtoull would accept blanks, '+' and '-' (and
	 * negate the value), and read a leading 0 as octal */
	if (!s || *s < '0' || *s > '9')
		return -1;
	hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	errno = 0;
	v = strtoull(s, &end, hex ? 16 : 10);
	if (errno || end == s || (hex && end == s + 2))
		return -1;
	if (!strcmp(end, "k") || !strcmp(end, "K"))
		mul = 1000ULL;
	else if (!strcmp(end, "M"))
		mul = 1000000ULL;
	else if (!strcmp(end, "G"))
		mul = 1000000000ULL;
	else if (!strcmp(end, "Ki"))
		mul = 1ULL << 10;
	else if (!strcmp(end, "Mi"))
		mul = 1ULL << 20;
	else if (!strcmp(end, "Gi"))
		mul = 1ULL << 30;
	else if (*end)
		return -1;
	if (v && mul > ~0ULL / v)
		return -1;
	*out = v * mul;
	return 0;
}

int util_parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;

	if (util_parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int util_parse_size(const char *s, unsigned long long *out)
{
	static const char units[] = "BKMG";
	const char *u;
	char *end;
	unsigned long long v;
	int sh = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end) {
		char c = *end == 'k' || *end == 'm' || *end == 'g'
				 ? (char)(*end - 'a' + 'A')
				 : *end;

		u = strchr(units, c);
		if (!c || !u)
			return -1;
		sh = 10 * (int)(u - units);
		end++;
		if (sh && *end == 'i')
			end++;
		if (sh && *end == 'B')
			end++;
		if (*end)
			return -1;
	}
	if (sh && v > (~0ULL >> sh))
		return -1;
	*out = v << sh;
	return 0;
}

int util_parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !((*s >= '0' && *s <= '9') || *s == '.') ||
	    strpbrk(s, "xXpP"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

int util_parse_size_pair(const char *s, unsigned long long *min,
			 unsigned long long *max)
{
	const char *colon = s ? strchr(s, ':') : NULL;
	char lo[32];
	size_t l = colon ? (size_t)(colon - s) : 0;

	if (!colon || l >= sizeof(lo))
		return -1;
	memcpy(lo, s, l);
	lo[l] = 0;
	return util_parse_size(lo, min) || util_parse_size(colon + 1, max) ? -1
									   : 0;
}

int util_once(const char *cmd, const struct option *lo, unsigned char seen[256],
	      int c, const char *repeatable)
{
	const char *name = NULL;

	if (c < 0 || c > 255 || !optarg ||
	    (repeatable && c && strchr(repeatable, c)))
		return 0;
	if (!seen[c]++)
		return 0;
	for (; lo && lo->name; lo++)
		if (lo->val == c && !lo->flag)
			name = lo->name;
	if (name)
		return util_usage_error(cmd, "--%s given twice", name);
	return util_usage_error(cmd, "-%c given twice", c);
}

int util_open_regular(const char *path)
{
	struct stat st;
	int fd, fl;

	/* O_NONBLOCK: opening a FIFO for reading would wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		return -1;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *util_compiler(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown";
#endif
}
