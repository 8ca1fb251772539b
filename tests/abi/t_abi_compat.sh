#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Binaries linked against PERFRING_0.2 keep 0.2's conventions where 0.3
# changed them (src/abi/compat.c, docs/abi.md): a program bound to the
# name@PERFRING_0.2 symbols of build/libperfring.so (as a binary linked
# against the 0.2 library is) gets
#   pfr_group_wait: 0 on a time-out (0.3: -PFR_E_TIMEDOUT);
#   pfr_group_drain: a positive return of the callback acts as 0 (0.3: it
#     stops; pfr_group_consume and pfr_group_iter_begin have the same
#     compatibility symbols, tests/unit/conformance.c holds their 0.3);
#   pfr_perf_session_create: on_record's positive values act as 0;
# and the same program bound to the defaults gets 0.3's.
set -u
top=${PFR_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${PFR_BUILD:-$top/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../lib/tap.sh"

[ -e "$build/libperfring.so" ] || {
	fail "$build/libperfring.so exists (make all builds it)"
	tap_done
}
cat >"$tmp/compat.c" <<'C'
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/perf.h>

#ifdef OLD
#define V(name, ver) __asm__(".symver " #name "," #name "@" ver)
V(pfr_group_wait, "PERFRING_0.2");
V(pfr_group_drain, "PERFRING_0.2");
V(pfr_perf_session_create, "PERFRING_0.2");
#endif

static int one(void *arg, const struct pfr_group_rec *r)
{
	(void)r;
	++*(int *)arg;
	return 1;
}

static int sess_one(void *arg, const struct pfr_perf_session_rec *r)
{
	(void)r;
	++*(int *)arg;
	return 1;
}

int main(void)
{
	struct pfr_group_opts o = {.sz = sizeof(o), .slots = 2,
				   .data_size = 4096, .flags = PFR_GROUP_WAIT};
	struct pfr_perf_session_opts so = {.sz = sizeof(so)};
	struct pfr_perf_session *s;
	struct perf_event_attr a;
	struct pfr_group *g;
	struct pfr_writer w;
	uint64_t t = 1;
	long psz = sysconf(_SC_PAGESIZE);
	unsigned char *mem;
	struct perf_event_mmap_page *pg;
	int n = 0, sn = 0;
	long long drained;

	if (pfr_group_create(&g, &o) || pfr_group_reader_open(g, 0, 0, 0))
		return 2;
	pfr_group_drain(g, NULL, NULL, 0);
	printf("wait %d\n", pfr_group_wait(g, 1000000));
	if (pfr_group_join(g, &w, 1) < 0)
		return 2;
	pfr_writer_write(&w, 1, &t, 8);
	pfr_writer_write(&w, 1, &t, 8);
	drained = (long long)pfr_group_drain(g, one, &n, 0);
	printf("drain %lld seen %d\n", drained, n);
	pfr_group_close(g);

	if (posix_memalign((void **)&mem, (size_t)psz, (size_t)psz + 4096))
		return 2;
	memset(mem, 0, (size_t)psz + 4096);
	pg = (struct perf_event_mmap_page *)mem;
	pg->data_offset = (uint64_t)psz;
	pg->data_size = 4096;
	for (int i = 0; i < 2; i++) {
		struct pfr_record_header h = {PERF_RECORD_SAMPLE, 0, 32};
		uint64_t id = 7, time = 10 + i;
		uint32_t tid = 1;

		memcpy(mem + psz + 32 * i, &h, 8);
		memcpy(mem + psz + 32 * i + 8, &id, 8);
		memcpy(mem + psz + 32 * i + 16, &tid, 4);
		memcpy(mem + psz + 32 * i + 20, &tid, 4);
		memcpy(mem + psz + 32 * i + 24, &time, 8);
	}
	pg->data_head = 64;
	so.on_record = sess_one;
	so.arg = &sn;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID |
			PERF_SAMPLE_TIME;
	if (pfr_perf_session_create(&s, &so) ||
	    pfr_perf_session_add_event(s, &a, NULL) < 0 ||
	    pfr_perf_session_add_ring(s, mem, (size_t)psz + 4096, 0))
		return 2;
	n = pfr_perf_session_drain(s, 1);
	printf("session %d seen %d\n", n, sn);
	pfr_perf_session_destroy(s);
	return 0;
}
C
cc=${CC:-cc}
for v in old new; do
	def=()
	[ $v = old ] && def=(-DOLD)
	run_ok "compile and link the $v program" \
		"$cc" -std=gnu11 ${def[@]+"${def[@]}"} -I"$top/include" -D_GNU_SOURCE \
		"$tmp/compat.c" -o "$tmp/$v" -L"$build" -lperfring \
		-Wl,-rpath,"$build"
	LD_LIBRARY_PATH=$build "$tmp/$v" >"$tmp/$v.out" 2>&1
	ok $? "the $v program runs" "$tmp/$v.out"
done
bound=$(nm -D "$tmp/old" | grep -cE \
	'(group_wait|group_drain|session_create)@PERFRING_0.2')
[ "$bound" -eq 3 ]
ok $? "the old program binds to its 3 symbols @PERFRING_0.2 ($bound)"
grep -qx 'wait 0' "$tmp/old.out"
ok $? "0.2: pfr_group_wait() returns 0 on a time-out ($(head -1 "$tmp/old.out"))"
grep -qx 'wait -3' "$tmp/new.out"
ok $? "0.3: pfr_group_wait() returns -PFR_E_TIMEDOUT ($(head -1 "$tmp/new.out"))"
grep -qx 'drain 2 seen 2' "$tmp/old.out"
ok $? "0.2: a callback's 1 does not stop the drain ($(sed -n 2p "$tmp/old.out"))"
grep -qx 'drain 1 seen 1' "$tmp/new.out"
ok $? "0.3: a callback's 1 stops the drain ($(sed -n 2p "$tmp/new.out"))"
grep -qx 'session 0 seen 2' "$tmp/old.out"
ok $? "0.2: on_record's 1 does not stop ($(sed -n 3p "$tmp/old.out"))"
grep -qx 'session 1 seen 1' "$tmp/new.out"
ok $? "0.3: on_record's 1 stops and is returned ($(sed -n 3p "$tmp/new.out"))"
tap_done
