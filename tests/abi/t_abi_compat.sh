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
# one bound to pfr_perf_ring_snapshot@PERFRING_0.1 (the version it had)
# gets the count when its callback returns a negative value (0.3: the
# value; skipped where the kernel refuses a perf event);
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
#include <sys/mman.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/perf.h>

#ifdef OLD
#define V(name, ver) __asm__(".symver " #name "," #name "@" ver)
V(pfr_group_wait, "PERFRING_0.2");
V(pfr_group_drain, "PERFRING_0.2");
V(pfr_perf_session_create, "PERFRING_0.2");
V(pfr_perf_ring_snapshot, "PERFRING_0.1");
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

/* -77 on the second record */
static int snap_two(void *arg, const struct pfr_record *r)
{
	(void)r;
	return ++*(int *)arg == 2 ? -77 : 0;
}

/* A dummy event's backward (overwrite) ring, a few mmap records in it,
 * and a snapshot whose callback fails on the second. */
static void snap(void)
{
	struct perf_event_attr a;
	struct pfr_perf_ring pr;
	int fd, seen = 0;
	long long got;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.mmap_data = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.write_backward = 1;
	fd = pfr_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 || pfr_perf_ring_map(&pr, fd, -1, 4, 1)) {
		printf("snap none\n");
		return;
	}
	for (int i = 1; i <= 4; i++) {
		void *p = mmap(NULL, 4096 * (size_t)i, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, 4096 * (size_t)i);
	}
	got = (long long)pfr_perf_ring_snapshot(&pr, snap_two, &seen);
	printf("snap %lld seen %d\n", got, seen);
	pfr_perf_ring_unmap(&pr);
	close(fd);
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
	snap();
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
	'(group_wait|group_drain|session_create)@PERFRING_0.2|ring_snapshot@PERFRING_0.1')
[ "$bound" -eq 4 ]
ok $? "the old program binds to its 4 symbols @PERFRING_0.2/0.1 ($bound)"
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
if grep -qx 'snap none' "$tmp/new.out"; then
	skip "no perf event here" "the kernel ring's snapshot (0.1)"
	skip "no perf event here" "the kernel ring's snapshot (0.3)"
else
	grep -qx 'snap 2 seen 2' "$tmp/old.out"
	ok $? "0.1: a snapshot callback's -77 stops, the count returned ($(sed -n 4p "$tmp/old.out"))"
	grep -qx 'snap -77 seen 2' "$tmp/new.out"
	ok $? "0.3: a snapshot callback's -77 is returned ($(sed -n 4p "$tmp/new.out"))"
fi
tap_done
