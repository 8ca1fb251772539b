/* SPDX-License-Identifier: MIT */
/*
 * The verified payloads of util/payload.h, which the unit tests,
 * `perfring stress` and perfring-bench all use: an intact record passes;
 * every single flipped byte, at every position, is caught, in both forms;
 * so are a wrong sequence number, a wrong writer key and a record read
 * shorter or longer than it was written.  The hash is FNV-1a (a published
 * test vector), and the vectorised word sum equals the plain one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/payload.h"
#include "tap.h"

#define MAXLEN 1032

/* Every byte of the len-byte full-form record at buf flipped in turn
 * (with each mask): the records that still verify. */
static int full_flips_missed(unsigned char *buf, size_t len, uint64_t key)
{
	static const unsigned char masks[] = {0x01, 0x80, 0xff};
	int missed = 0;
	uint64_t s;

	for (size_t i = 0; i < len; i++)
		for (size_t m = 0; m < sizeof(masks); m++) {
			buf[i] ^= masks[m];
			missed += pfr__payload_verify(buf, len, key, &s);
			buf[i] ^= masks[m];
		}
	return missed;
}

static void full_form(void)
{
	static const size_t lens[] = {16, 17, 24, 64, 65, 600, MAXLEN};
	unsigned char buf[MAXLEN + 8];

	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		size_t len = lens[k];

		for (uint64_t key = 0; key < 8; key += 7) {
			uint64_t seq = 0x1234567 + len, got = 0;

			memset(buf, 0xa5, sizeof(buf));
			pfr__payload_stamp(buf, len, key, seq);
			ok(pfr__payload_verify(buf, len, key, &got) &&
				   got == seq,
			   "full %zu B key %llu: intact record verifies, seq",
			   len, (unsigned long long)key);
			is_int(full_flips_missed(buf, len, key), 0,
			       "full: every flipped byte is caught");
			ok(!pfr__payload_verify(buf, len, key ^ 1, &got),
			   "full %zu B: another writer's key is caught", len);
			ok(!pfr__payload_verify(buf, len - 1, key, &got) &&
				   !pfr__payload_verify(buf, len + 8, key,
							&got),
			   "full %zu B: shorter or longer is caught", len);
			pfr__payload_stamp(buf, len, key, seq + 1);
			ok(pfr__payload_verify(buf, len, key, &got) &&
				   got == seq + 1,
			   "full %zu B: the next record verifies as its own",
			   len);
		}
	}
	ok(!pfr__payload_verify(buf, PFR__PAYLOAD_HDR - 1, 0, &(uint64_t){0}),
	   "full: a record shorter than its header is refused");
}

/* The ends form: every byte flipped in turn; returns the misses. */
static int ends_flips_missed(uint64_t *m, size_t words, uint64_t seq,
			     uint64_t body)
{
	unsigned char *b = (unsigned char *)m;
	int missed = 0;

	for (size_t i = 0; i < words * 8; i++) {
		b[i] ^= 0x10;
		missed += pfr__payload_check_ends(m, words, seq, body);
		b[i] ^= 0x10;
	}
	return missed;
}

static void ends_form(void)
{
	static const size_t counts[] = {1, 2, 3, 8, 9, 33, MAXLEN / 8};
	uint64_t pattern[MAXLEN / 8], m[MAXLEN / 8];

	for (size_t i = 0; i < MAXLEN / 8; i++)
		pattern[i] = 0x9e3779b97f4a7c15ull * (i + 1);
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		size_t words = counts[k];
		uint64_t seq = 1000 + words;
		uint64_t body = pfr__payload_body_sum(pattern, words);

		memcpy(m, pattern, words * 8);
		pfr__payload_stamp_ends(m, words, seq);
		ok(pfr__payload_check_ends(m, words, seq, body),
		   "ends %zu words: intact message checks", words);
		ok(!pfr__payload_check_ends(m, words, seq + 1, body),
		   "ends %zu words: another sequence number is caught", words);
		is_int(ends_flips_missed(m, words, seq, body), 0,
		       "ends: every flipped byte is caught");
	}
}

static void primitives(void)
{
	uint64_t w[67], plain = 0;
	int bad = 0;

	/* FNV-1a 64 of "a" and of "foobar" */
	is_uint(pfr__payload_fnv(PFR__FNV_BASIS, "a", 1), 0xaf63dc4c8601ec8cull,
		"FNV-1a of \"a\"");
	is_uint(pfr__payload_fnv(PFR__FNV_BASIS, "foobar", 6),
		0x85944171f73967e8ull, "FNV-1a of \"foobar\"");
	for (size_t i = 0; i < 67; i++)
		w[i] = 0x0123456789abcdefull * (i + 3);
	for (size_t n = 0; n <= 67; n++) {
		if (n)
			plain += w[n - 1];
		bad += pfr__payload_sum64(w, n) != plain;
	}
	is_int(bad, 0,
	       "the vectorised word sum equals the plain sum, 0..67 "
	       "words");
}

int main(void)
{
	full_form();
	ends_form();
	primitives();
	return tap_done();
}
