/* SPDX-License-Identifier: MIT */
/*
 * util/payload.h - verified payloads: what the unit tests, `perfring
 * stress` and perfring-bench write into records and check on the other
 * side.  The programs' own: never installed, the library does not include
 * it, and it defines no symbol (static inline only).  C and C++.
 *
 * Every form starts with the record's sequence number in word 0 and
 * checks the rest against it:
 *
 * - Full (pfr__payload_stamp, pfr__payload_verify), for tests and stress:
 *   { u64 seq; u64 hash; filler } with the filler derived from seq and
 *   hash = pfr__payload_hash(key, seq, filler, its length): a torn, stale,
 *   misplaced, shortened or flipped record is caught whatever part of it
 *   is wrong.  key tells writers apart (0 when there is one).
 * - Ends (pfr__payload_stamp_ends, pfr__payload_check_ends), for
 *   measuring: the filler is one fixed pattern prepared once and copied
 *   as it is (the producer writes two words per message, not a hash);
 *   word 0 is seq and the last word seq ^ PFR__PAYLOAD_KEY, and the check
 *   is word 0 and the sum of every word against the pattern's known inner
 *   sum: a changed word (a flipped byte) anywhere changes the sum.
 *
 * pfr__payload_fnv() is the hash both the full form and the stress
 * programs' own record layouts use: FNV-1a over bytes.
 */
#ifndef PFR_PAYLOAD_INT_H
#define PFR_PAYLOAD_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PFR__PAYLOAD_HDR 16u /* the full form: seq and hash */
#define PFR__PAYLOAD_KEY 0x5bd1e9955bd1e995ull /* the ends form */
#define PFR__FNV_BASIS 0xcbf29ce484222325ull
#define PFR__FNV_PRIME 0x100000001b3ull

/* FNV-1a: h continued over the n bytes at p. */
static inline uint64_t pfr__payload_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * PFR__FNV_PRIME;
	return h;
}

/* The full form's hash of record seq of writer key: seq, key and the
 * filler's length n go in before its bytes. */
static inline uint64_t pfr__payload_hash(uint64_t key, uint64_t seq,
					 const void *fill, size_t n)
{
	uint64_t h = PFR__FNV_BASIS ^ seq ^ (key << 40);

	h = (h ^ (uint64_t)n) * PFR__FNV_PRIME;
	return pfr__payload_fnv(h, fill, n);
}

/* The filler of record seq: n bytes at p. */
static inline void pfr__payload_fill(void *p, uint64_t seq, size_t n)
{
	unsigned char *b = (unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(seq * 31 + i);
}

/* Writes record seq of writer key, the full form, into the len bytes at
 * p (len >= PFR__PAYLOAD_HDR; any alignment). */
static inline void pfr__payload_stamp(void *p, size_t len, uint64_t key,
				      uint64_t seq)
{
	unsigned char *b = (unsigned char *)p;
	uint64_t h;

	pfr__payload_fill(b + PFR__PAYLOAD_HDR, seq, len - PFR__PAYLOAD_HDR);
	h = pfr__payload_hash(key, seq, b + PFR__PAYLOAD_HDR,
			      len - PFR__PAYLOAD_HDR);
	memcpy(b, &seq, 8);
	memcpy(b + 8, &h, 8);
}

/* Checks the len bytes at p as a full-form record of writer key.  Returns
 * 1 when intact, with its sequence number in *seq; 0 when not (too short,
 * or any byte wrong: *seq is then word 0 as found, or untouched when len
 * is too short to hold it). */
static inline int pfr__payload_verify(const void *p, size_t len, uint64_t key,
				      uint64_t *seq)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t s, h;

	if (len < PFR__PAYLOAD_HDR)
		return 0;
	memcpy(&s, b, 8);
	memcpy(&h, b + 8, 8);
	*seq = s;
	return h == pfr__payload_hash(key, s, b + PFR__PAYLOAD_HDR,
				      len - PFR__PAYLOAD_HDR);
}

/* Sum of the n 64-bit words at p (8-byte aligned), vectorised. */
static inline uint64_t pfr__payload_sum64(const void *p, size_t n)
{
	typedef uint64_t pfr__v2
		__attribute__((vector_size(16), aligned(8), may_alias));
	const uint64_t *w = (const uint64_t *)p;
	pfr__v2 a = {0, 0}, b = {0, 0}, c = {0, 0}, d = {0, 0};
	size_t i, full = n & ~(size_t)7;
	uint64_t s;

	for (i = 0; i < full; i += 8) {
		a += *(const pfr__v2 *)(w + i);
		b += *(const pfr__v2 *)(w + i + 2);
		c += *(const pfr__v2 *)(w + i + 4);
		d += *(const pfr__v2 *)(w + i + 6);
	}
	a += b + c + d;
	s = a[0] + a[1];
	for (i = full; i < n; i++)
		s += w[i];
	return s;
}

/* The ends form's inner sum of a pattern of `words` words: words 1 to
 * words - 2 (0 for one or two words). */
static inline uint64_t pfr__payload_body_sum(const uint64_t *m, size_t words)
{
	uint64_t s = 0;

	for (size_t i = 1; i + 1 < words; i++)
		s += m[i];
	return s;
}

/* Stamps message m (words 64-bit words, the pattern between) with seq:
 * the ends form. */
static inline void pfr__payload_stamp_ends(uint64_t *m, size_t words,
					   uint64_t seq)
{
	m[0] = seq;
	if (words > 1)
		m[words - 1] = seq ^ PFR__PAYLOAD_KEY;
}

/* 1 when message p of `words` words (8-byte aligned) is message seq,
 * intact: the ends form, body_sum from pfr__payload_body_sum(). */
static inline int pfr__payload_check_ends(const void *p, size_t words,
					  uint64_t seq, uint64_t body_sum)
{
	uint64_t w0;

	memcpy(&w0, p, 8);
	if (w0 != seq)
		return 0;
	if (words == 1)
		return 1;
	return pfr__payload_sum64(p, words) ==
	       body_sum + seq + (seq ^ PFR__PAYLOAD_KEY);
}

#endif
