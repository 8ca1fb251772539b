#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A C++ program can link the ring's inline fast paths: every out-of-line
# function they call (the pfr__ slow paths and wake-ups) is declared with C
# linkage, so the C++ object refers to the library's own symbols, not to
# mangled names.  The program writes records through each fast path (one
# of them through the slow path: a wrap), reads them back with
# pfr_reader_next() and pfr_reader_consume() on rings of each ordering,
# and checks what it read.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
cxx=${CXX:-g++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

if ! command -v "${cxx%% *}" >/dev/null 2>&1; then
	skip_all "no C++ compiler ($cxx)"
fi
lib=$build/libperfring.a
if [ ! -f "$lib" ]; then
	fail "$lib built (make)"
	tap_done
fi

cat >"$tmp/t.cc" <<'EOF'
#include <cstdio>
#include <cstring>

#include <perfring/ring.h>

static int count(void *ctx, const struct pfr_record *rec)
{
	unsigned *seen = (unsigned *)ctx;
	uint32_t v;

	std::memcpy(&v, rec->payload, sizeof(v));
	if (rec->hdr.type != 7 || v != *seen)
		return 1;
	++*seen;
	return 0;
}

/* Writes `n` records of 4 bytes (value i) through the fast paths and
 * reads them back; 0 when all came back in order. */
static int one(enum pfr_ordering ord, unsigned n, int consume)
{
	struct pfr_ring_opts o;
	struct pfr_ring *ring;
	struct pfr_writer w;
	struct pfr_reader r;
	struct pfr_record rec;
	unsigned i, seen = 0;
	int bad = 0;

	std::memset(&o, 0, sizeof(o));
	o.data_size = 4096;
	o.ordering = ord;
	o.policy = PFR_POLICY_DROP;
	if (pfr_ring_create(&ring, &o) || pfr_ring_writer(ring, &w) ||
	    pfr_ring_reader(ring, &r))
		return 1;
	for (i = 0; i < n; i++) {
		void *p;

		if (i % 3 == 0) {
			bad |= pfr_writer_write(&w, 7, &i, sizeof(i));
		} else if (i % 3 == 1) {
			bad |= pfr_writer_reserve(&w, 7, sizeof(i), &p);
			if (!bad)
				std::memcpy(p, &i, sizeof(i));
			pfr_writer_commit(&w);
		} else {
			bad |= pfr_writer_write_burst(&w, 7, &i, sizeof(i),
						      1) != 1;
		}
		if (pfr_reader_begin(&r) < 0)
			return 1;
		if (consume) {
			if (pfr_reader_consume(&r, count, &seen, 0) != 1)
				bad = 1;
		} else {
			if (pfr_reader_next(&r, &rec) != 1 ||
			    count(&seen, &rec))
				bad = 1;
		}
		pfr_reader_end(&r);
	}
	pfr_ring_close(ring);
	return bad || seen != n;
}

int main()
{
	static const enum pfr_ordering ords[] = {
		PFR_ORDER_FULL, PFR_ORDER_ACQREL, PFR_ORDER_CTRLDEP};
	int bad = 0;

	/* 600 records of 16 bytes: past the end of a 4 KiB ring twice */
	for (unsigned k = 0; k < 3; k++)
		for (int c = 0; c < 2; c++)
			if (one(ords[k], 600, c)) {
				std::printf("ordering %s, %s: wrong records\n",
					    pfr_ordering_name(ords[k]),
					    c ? "consume" : "next");
				bad = 1;
			}
	return bad;
}
EOF
# shellcheck disable=SC2086 # cxx may carry options
$cxx -std=c++11 -Wall -Wextra -Werror -I"$top/include" -c "$tmp/t.cc" \
	-o "$tmp/t.o" >"$tmp/log" 2>&1
ok $? "$cxx: the inline fast paths compile as C++" "$tmp/log"
nm -u "$tmp/t.o" 2>/dev/null | grep -E '_Z[0-9]+pfr' >"$tmp/mangled"
[ ! -s "$tmp/mangled" ]
ok $? "no perfring function is referenced with C++ linkage" "$tmp/mangled"
nm -u "$tmp/t.o" 2>/dev/null | grep -qw pfr__reader_next_slow
ok $? "the object calls the slow path pfr__reader_next_slow by its C name"
# shellcheck disable=SC2086
$cxx "$tmp/t.o" "$lib" -o "$tmp/t" >"$tmp/log" 2>&1
ok $? "links against libperfring.a" "$tmp/log"
if [ -x "$tmp/t" ]; then
	"$tmp/t" >"$tmp/log" 2>&1
	ok $? "writes and reads 600 records on each ordering (next, consume)" \
		"$tmp/log"
fi
tap_done
