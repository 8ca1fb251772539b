// SPDX-License-Identifier: MIT
/*
 * The options structs' size field (sz): an older, shorter struct still
 * works (the fields it lacks read as 0), sz 0 is the 0.2 layout, a newer,
 * longer struct is accepted when the bytes this library does not know are
 * zero and refused (-PFR_E_INVAL) when one is not; and a binary linked
 * against PERFRING_0.1, whose struct pfr_ring_opts had no sz, still gets
 * its rings from pfr_ring_create*@PERFRING_0.1 (looked up with dlvsym in
 * the shared library next to this test).
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfring/group.h>
#include <perfring/mpsc.h>
#include <perfring/ring.h>

#include "abi_common.h"
#include "tap.h"

/* A caller built against a header whose pfr_ring_opts ended at ordering. */
struct ring_opts_short {
	size_t sz;
	uint64_t data_size;
	enum pfr_policy policy;
	enum pfr_ordering ordering;
};

/* A caller built against a header with one more field. */
struct ring_opts_long {
	struct pfr_ring_opts base;
	uint64_t future;
};

/* PERFRING_0.1's struct pfr_ring_opts: no sz. */
struct ring_opts_v01 {
	uint64_t data_size;
	enum pfr_policy policy;
	enum pfr_ordering ordering;
	uint32_t flags;
	uint64_t lost_id;
	uint32_t mode;
};

static void check_ring(struct pfr_ring *ring, uint64_t size, uint32_t policy,
		       uint32_t flags, uint64_t lost_id, const char *what)
{
	const struct pfr_ring_ctl *c = pfr_ring_ctl(ring);

	if (!ok(c != NULL, "%s: a ring", what))
		return;
	ok(c->data_size == size && c->policy == policy && c->flags == flags &&
		   c->lost_id == lost_id,
	   "%s: size %llu policy %u flags %u lost_id %llu", what,
	   (unsigned long long)c->data_size, c->policy, c->flags,
	   (unsigned long long)c->lost_id);
}

static void test_ring_sizes(void)
{
	struct ring_opts_short s;
	struct ring_opts_long l;
	struct pfr_ring_opts o;
	struct pfr_ring *ring = NULL;

	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.data_size = 8192;
	o.flags = PFR_RING_WAIT;
	o.lost_id = 42;
	is_int(pfr_ring_create(&ring, &o), 0, "sz = sizeof: created");
	check_ring(ring, 8192, PFR_POLICY_DROP, PFR_RING_WAIT, 42, "full");
	pfr_ring_close(ring);

	o.sz = 0;
	is_int(pfr_ring_create_memfd(&ring, &o), 0, "sz 0: the 0.2 layout");
	check_ring(ring, 8192, PFR_POLICY_DROP, PFR_RING_WAIT, 42, "sz 0");
	pfr_ring_close(ring);

	memset(&s, 0, sizeof(s));
	s.sz = sizeof(s);
	s.data_size = 16384;
	s.policy = PFR_POLICY_OVERWRITE;
	is_int(pfr_ring_create(&ring, (const struct pfr_ring_opts *)&s), 0,
	       "a shorter (older) struct: created");
	check_ring(ring, 16384, PFR_POLICY_OVERWRITE, 0, 0, "shorter");
	pfr_ring_close(ring);

	memset(&l, 0, sizeof(l));
	l.base.sz = sizeof(l);
	l.base.data_size = 4096;
	l.base.lost_id = 7;
	is_int(pfr_ring_create(&ring, &l.base), 0,
	       "a longer (newer) struct, unknown field 0: created");
	check_ring(ring, 4096, PFR_POLICY_DROP, 0, 7, "longer");
	pfr_ring_close(ring);
	l.future = 1;
	ring = NULL;
	is_int(pfr_ring_create(&ring, &l.base), -PFR_E_INVAL,
	       "a longer struct with a nonzero unknown field: refused");
	ok(ring == NULL, "no ring on refusal");
	is_int(pfr_ring_create_memfd(&ring, &l.base), -PFR_E_INVAL,
	       "the same through create_memfd");
	l.future = 1ull << 63;
	is_int(pfr_ring_create_shm(&ring, "pfr-abi-opts", &l.base),
	       -PFR_E_INVAL, "the same through create_shm (last byte)");

	o.sz = sizeof(size_t) - 1;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
	       "sz too small to hold sz: refused");
	is_int(pfr_ring_create(&ring, NULL), -PFR_E_INVAL, "NULL opts refused");
	/* a known field's value is still checked */
	o.sz = sizeof(o);
	o.flags = 0x80;
	is_int(pfr_ring_create(&ring, &o), -PFR_E_INVAL,
	       "unknown flag still refused");
}

struct group_opts_long {
	struct pfr_group_opts base;
	uint32_t future;
};

struct mpsc_opts_short {
	size_t sz;
	uint64_t data_size;
};

struct mpsc_opts_long {
	struct pfr_mpsc_opts base;
	uint64_t future;
};

static void test_group_mpsc(void)
{
	struct group_opts_long gl;
	struct mpsc_opts_short ms;
	struct mpsc_opts_long ml;
	struct pfr_mpsc_stats st;
	struct pfr_group *g = NULL;
	struct pfr_mpsc *m = NULL;

	memset(&gl, 0, sizeof(gl));
	gl.base.sz = sizeof(gl);
	gl.base.slots = 4;
	gl.base.data_size = 8192;
	is_int(pfr_group_create(&g, &gl.base), 0,
	       "group: longer struct, 0 tail");
	if (g)
		is_uint(pfr_group_slots(g), 4, "group: slots read");
	pfr_group_close(g);
	gl.future = 3;
	is_int(pfr_group_create_memfd(&g, &gl.base), -PFR_E_INVAL,
	       "group: nonzero tail refused");
	gl.future = 0;
	gl.base.sz = 0;
	g = NULL;
	is_int(pfr_group_create_memfd(&g, &gl.base), 0, "group: sz 0 accepted");
	pfr_group_close(g);

	memset(&ms, 0, sizeof(ms));
	ms.sz = sizeof(ms);
	ms.data_size = 8192;
	is_int(pfr_mpsc_create(&m, (const struct pfr_mpsc_opts *)&ms), 0,
	       "mpsc: shorter struct accepted");
	if (m) {
		pfr_mpsc_stats(m, NULL, &st);
		is_uint(st.data_size, 8192, "mpsc: data_size read");
		is_uint(pfr_mpsc_ctl(m)->max_producers, 64,
			"mpsc: max_producers beyond sz is the default");
	}
	pfr_mpsc_close(m);
	memset(&ml, 0, sizeof(ml));
	ml.base.sz = sizeof(ml);
	ml.future = 9;
	is_int(pfr_mpsc_create_memfd(&m, &ml.base), -PFR_E_INVAL,
	       "mpsc: nonzero tail refused");
	is_int(pfr_mpsc_create(NULL, &ml.base), -PFR_E_INVAL,
	       "mpsc: NULL handle refused");
	is_int(pfr_mpsc_create(&m, NULL), -PFR_E_INVAL,
	       "mpsc: NULL opts refused");
}

typedef int (*create_v01_fn)(struct pfr_ring **, const struct ring_opts_v01 *);
typedef int (*create_fn)(struct pfr_ring **, const struct pfr_ring_opts *);
typedef const struct pfr_ring_ctl *(*ctl_fn)(const struct pfr_ring *);
typedef void (*close_fn)(struct pfr_ring *);

static void test_v01(void)
{
	struct ring_opts_v01 o = {.data_size = 8192,
				  .policy = PFR_POLICY_BLOCK,
				  .flags = PFR_RING_WAIT,
				  .lost_id = 0x55};
	void *h = open_shared();
	create_v01_fn c01, m01;
	create_fn c02;
	ctl_fn ctl;
	close_fn cl;
	struct pfr_ring *ring = NULL;
	const struct pfr_ring_ctl *c;

	if (!ok(h != NULL, "the shared library loads"))
		return;
	c01 = (create_v01_fn)dlvsym(h, "pfr_ring_create", "PERFRING_0.1");
	m01 = (create_v01_fn)dlvsym(h, "pfr_ring_create_memfd", "PERFRING_0.1");
	c02 = (create_fn)dlvsym(h, "pfr_ring_create", "PERFRING_0.2");
	ctl = (ctl_fn)dlsym(h, "pfr_ring_ctl");
	cl = (close_fn)dlsym(h, "pfr_ring_close");
	ok(dlvsym(h, "pfr_ring_create_shm", "PERFRING_0.1") != NULL,
	   "pfr_ring_create_shm@PERFRING_0.1 exists");
	ok((void *)c02 == dlsym(h, "pfr_ring_create"),
	   "the default pfr_ring_create is PERFRING_0.2's");
	if (!ok(c01 && m01 && c02 && ctl && cl && (void *)c01 != (void *)c02,
		"pfr_ring_create@PERFRING_0.1 is its own symbol"))
		return;
	is_int(c01(&ring, &o), 0, "0.1 layout through the 0.1 symbol: created");
	c = ring ? ctl(ring) : NULL;
	ok(c && c->data_size == 8192 && c->policy == PFR_POLICY_BLOCK &&
		   c->flags == PFR_RING_WAIT && c->lost_id == 0x55,
	   "0.1 layout: every field read");
	cl(ring);
	ring = NULL;
	is_int(m01(&ring, &o), 0, "0.1 layout through create_memfd@0.1");
	cl(ring);
	o.flags = 0x80;
	is_int(c01(&ring, &o), -PFR_E_INVAL, "0.1 symbol still checks fields");
	is_int(c01(&ring, NULL), -PFR_E_INVAL, "0.1 symbol: NULL refused");
	dlclose(h);
}

int main(void)
{
	test_ring_sizes();
	test_group_mpsc();
	test_v01();
	return tap_done();
}
