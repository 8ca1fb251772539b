/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy_group.cc - model checking of a group's own code
 * (src/writers/group.c, with src/ring/ring.c and src/writers/merge.c) with
 * Relacy: 2 or 3 writer processes and the reader under the C++11 memory
 * model, with data-race detection.
 *
 * The group's code (model_group.c, compiled as C against
 * relacy-group-barrier.h) calls the hooks below for every marked access,
 * __atomic builtin, barrier, record copy, memset, futex call and process
 * question:
 *
 *   header line 1-2, directory entry, ring position field   rl::atomic<u64>
 *   data-area word (records)                     rl::var<u64> (race-checked)
 *   barrier                                      rl fence
 *   futex wait/wake                              rl::mutex + condition
 *   a writer's death                             rl::atomic (release by the
 *                                                dying writer, acquire by
 *                                                the reader's /proc check)
 *
 * The orders are group.c's own: the claim's CAS (J) and the free's (F)
 * pass __ATOMIC_* values that the hooks map onto Relacy's orders.  A
 * second writer reuses the slot a first one left (or died in): the
 * reader's loads of the first owner's records and the second owner's
 * stores into the same words must be ordered by F and J, or Relacy reports
 * a data race; a stale state, head, identity or change count shows as a
 * record of the wrong writer, a lost record (the reader never finishes:
 * livelock) or a failed call.
 *
 * Mutants made by the hooks from the calling function's name (as in
 * relacy_mpsc.cc): while a named function runs, its fences are dropped
 * and its acquire, release, RMW and CAS orders become relaxed.  The
 * mutation harness (tools/mutate.py) edits group.c itself instead.
 *
 * Usage: relacy_group [-l] [-v] [-s full|random|bound] [-i N] [-b N]
 *                     [CASE...]
 */
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <linux/futex.h>
#include <sys/syscall.h>

#include "model_group.h"

/* Last: it redefines new, malloc, assert and the memory_order names. */
#include <relacy/relacy.hpp>

namespace
{

enum {
	WORDS = PFR_MODEL_GROUP_DATA / 8,
	NSLOT = PFR_MODEL_GROUP_SLOTS,
	MAX_FIELDS = 64,
	NFUTEX = 1 + 2 * PFR_MODEL_GROUP_SLOTS,
};

enum expect { PASS, CAUGHT };

struct model_case {
	const char *name;
	int scenario;
	unsigned writers, slots, records;
	const char *mutant_fns; /* "a|b": functions mutated; nullptr: none */
	expect want;
	const char *what;
	rl::scheduler_type_e search;
	unsigned bound;
};

pfr_model_gfield g_fields[MAX_FIELDS];
size_t g_nfields;
/* ATTACH: the object and its header's line 0 (model_group.h), and each
 * field's value as the model last stored it (flush_plain()) */
pfr_model_gfield g_ofields[MAX_FIELDS];
size_t g_onfields;
void *g_obj;
size_t g_obj_size;
uint64_t g_oknown[MAX_FIELDS];
const model_case *g_case;
pfr_model_group_cfg g_cfg;
pfr_model_glayout g_lay;
bool g_in_before;
unsigned long g_sleeps;

struct shadows {
	rl::atomic<uint64_t> field[MAX_FIELDS];
	rl::atomic<uint64_t> ofield[MAX_FIELDS]; /* ATTACH: the object's */
	/* the plain side of each field: a ring's reset clears the fields
	 * with memset(), plain stores that race with any marked access
	 * they are not ordered with (a marked access reads this) */
	rl::var<uint64_t> fplain[MAX_FIELDS];
	rl::var<uint64_t> word[NSLOT][WORDS];
	rl::atomic<int> dead[PFR_MODEL_GROUP_MAXW];
	rl::atomic<uint64_t> clock;
	rl::mutex futex_mtx;
	rl::condition_variable futex_cv[NFUTEX];
};
shadows *g_sh;

template <unsigned N> struct group_test : rl::test_suite<group_test<N>, N + 1> {
	shadows sh;

	void before()
	{
		const unsigned char *base = (const unsigned char *)g_lay.region;

		g_sh = &sh;
		pfr_model_group_setup(&g_cfg);
		for (size_t i = 0; i < g_nfields; i++) {
			uint64_t v = 0;

			std::memcpy(&v, base + g_fields[i].off,
				    g_fields[i].size);
			sh.field[i].store(v, rl::mo_relaxed, $);
			sh.fplain[i]($) = 0;
		}
		for (size_t i = 0; i < g_onfields; i++) {
			uint64_t v = 0;

			std::memcpy(&v,
				    (const unsigned char *)g_obj +
					    g_ofields[i].off,
				    g_ofields[i].size);
			sh.ofield[i].store(v, rl::mo_relaxed, $);
			g_oknown[i] = v;
		}
		for (unsigned s = 0; s < NSLOT; s++)
			for (unsigned i = 0; i < WORDS; i++)
				sh.word[s][i]($) = 0;
		for (unsigned i = 0; i < PFR_MODEL_GROUP_MAXW; i++)
			sh.dead[i].store(0, rl::mo_relaxed, $);
		sh.clock.store(1, rl::mo_relaxed, $);
		g_in_before = true;
		RL_ASSERT(pfr_model_group_open() == 0);
		g_in_before = false;
	}

	void after()
	{
		g_sh = nullptr;
	}

	void thread(unsigned idx)
	{
		if (idx < N)
			pfr_model_group_writer(idx);
		else
			pfr_model_group_reader();
	}
};

/* No std::string here: Relacy replaces operator new while it simulates. */
bool mutated(const char *func)
{
	const char *s, *e;
	size_t n = std::strlen(func);

	if (!g_case || !g_case->mutant_fns)
		return false;
	for (s = g_case->mutant_fns;; s = e + 1) {
		e = std::strchr(s, '|');
		if (!e)
			e = s + std::strlen(s);
		if ((size_t)(e - s) == n && std::strncmp(s, func, n) == 0)
			return true;
		if (!*e)
			return false;
	}
}

void fail(const char *what, const rl::debug_info &info)
{
	rl::ctx().fail_test(what, rl::test_result_user_assert_failed, info);
}

bool in(const volatile void *p, size_t n, const void *base, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a < b + len && a + n > b;
}

/* The shadow of the field at p; nullptr for real memory (line 0 of the
 * header and of each ring: immutable while the threads run, or written
 * plainly by a ring's reset). */
rl::atomic<uint64_t> *field_at(const volatile void *p, size_t size,
			       const rl::debug_info &info)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.region;

	for (size_t i = 0; i < g_nfields; i++) {
		if (g_fields[i].off == off && g_fields[i].size == size) {
			/* a marked access: against the plain stores */
			uint64_t plain = g_sh->fplain[i](info);

			(void)plain;
			return &g_sh->field[i];
		}
		if (off < g_fields[i].off + g_fields[i].size &&
		    off + size > g_fields[i].off) {
			fail("a field accessed in part", info);
			return nullptr;
		}
	}
	return nullptr;
}

/* ATTACH: the shadow of a field of the object's header line 0, or
 * nullptr. */
rl::atomic<uint64_t> *ofield_at(const volatile void *p, size_t size)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_obj;

	if (!g_sh || g_cfg.scenario != PFR_MODEL_GROUP_ATTACH ||
	    !in(p, size, g_obj, g_obj_size))
		return nullptr;
	for (size_t i = 0; i < g_onfields; i++)
		if (g_ofields[i].off == off && g_ofields[i].size == size)
			return &g_sh->ofield[i];
	return nullptr;
}

/* ATTACH: the creator's (thread 0's) plain stores to the object's header
 * line 0 since its last hooked operation (a memcpy() of the header), as
 * relaxed stores of each field whose real memory differs from what the
 * model last stored (in field order: plain stores of one thread before
 * the hooked operation, in an order the compiler may choose). */
void flush_plain(const rl::debug_info &info)
{
	if (!g_sh || g_cfg.scenario != PFR_MODEL_GROUP_ATTACH ||
	    rl::thread_index() != 0)
		return;
	for (size_t i = 0; i < g_onfields; i++) {
		uint64_t v = 0;

		std::memcpy(&v, (const unsigned char *)g_obj + g_ofields[i].off,
			    g_ofields[i].size);
		if (v != g_oknown[i]) {
			g_sh->ofield[i].store(v, rl::mo_relaxed, info);
			g_oknown[i] = v;
		}
	}
}

/* The rl::var of a data-area word, or nullptr (real memory). */
rl::var<uint64_t> *word_at(const volatile void *p, size_t size,
			   const rl::debug_info &info)
{
	for (unsigned s = 0; s < NSLOT; s++) {
		size_t off = (uintptr_t)p - (uintptr_t)g_lay.data[s];

		if (!in(p, size, g_lay.data[s], g_lay.data_size))
			continue;
		if ((off & 7) || size != 8) {
			fail("unmodelled data-area access (not a whole word)",
			     info);
			return nullptr;
		}
		return &g_sh->word[s][off / 8];
	}
	return nullptr;
}

bool shared(const volatile void *p, size_t size)
{
	return g_sh && in(p, size, g_lay.region, g_lay.region_size);
}

rl::memory_order order(int mo, const char *func)
{
	if (mutated(func))
		return rl::mo_relaxed;
	switch (mo) {
	case PFR_MODEL_ACQUIRE:
		return rl::mo_acquire;
	case PFR_MODEL_RELEASE:
		return rl::mo_release;
	default:
		return rl::mo_relaxed;
	}
}

/* An __ATOMIC_* value as Relacy's order. */
rl::memory_order gcc_order(int mo, const char *func)
{
	if (mutated(func))
		return rl::mo_relaxed;
	/* purpose: the order group.c passed, unchanged (each pairs as
	 * group.c's comment at the call says) */
	switch (mo) {
	case __ATOMIC_CONSUME:
	case __ATOMIC_ACQUIRE: /* purpose: as group.c asked */
		return rl::mo_acquire;
	case __ATOMIC_RELEASE: /* purpose: as group.c asked */
		return rl::mo_release;
	case __ATOMIC_ACQ_REL: /* purpose: as group.c asked */
		return rl::mo_acq_rel;
	case __ATOMIC_SEQ_CST: /* purpose: as group.c asked */
		return rl::mo_seq_cst;
	default:
		return rl::mo_relaxed;
	}
}

uint64_t plain_load(const volatile void *p, size_t size)
{
	switch (size) {
	case 1:
		return *(const volatile uint8_t *)p;
	case 2:
		return *(const volatile uint16_t *)p;
	case 4:
		return *(const volatile uint32_t *)p;
	default:
		return *(const volatile uint64_t *)p;
	}
}

void plain_store(volatile void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(volatile uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(volatile uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(volatile uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(volatile uint64_t *)p = v;
		break;
	}
}

uint64_t mask(uint64_t v, size_t size)
{
	return size < 8 ? v & ((1ull << (8 * size)) - 1) : v;
}

uint64_t do_load(const volatile void *p, size_t size, rl::memory_order mo,
		 const rl::debug_info &info)
{
	rl::atomic<uint64_t> *o;

	flush_plain(info);
	o = ofield_at(p, size);
	if (o)
		return o->load(mo, info);
	if (shared(p, size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);
		rl::var<uint64_t> *w;

		if (a)
			return a->load(mo, info);
		w = word_at(p, size, info);
		if (w)
			return (*w)(info);
	}
	return plain_load(p, size);
}

void do_store(volatile void *p, size_t size, uint64_t v, rl::memory_order mo,
	      const rl::debug_info &info)
{
	rl::atomic<uint64_t> *o;

	v = mask(v, size);
	flush_plain(info);
	o = ofield_at(p, size);
	if (o) {
		o->store(v, mo, info);
		g_oknown[o - g_sh->ofield] = v;
		plain_store(p, size, v);
		return;
	}
	if (shared(p, size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);
		rl::var<uint64_t> *w;

		if (a) {
			a->store(v, mo, info);
			return;
		}
		w = word_at(p, size, info);
		if (w) {
			(*w)(info) = v;
			return;
		}
	}
	plain_store(p, size, v);
}

} /* namespace */

extern "C" uint64_t pfr_model_load(const volatile void *p, size_t size, int mo,
				   PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	/* purpose: group.c's or the ring's READ_ONCE or load_acquire, with
	 * the order its code asked for (pairs as the caller names) */
	return do_load(p, size, order(mo, func), info);
}

extern "C" void pfr_model_store(volatile void *p, size_t size, uint64_t v,
				int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	do_store(p, size, v, order(mo, func), info);
}

extern "C" uint64_t pfr_model_atomic_load(const volatile void *p, size_t size,
					  int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	return do_load(p, size, gcc_order(mo, func), info);
}

extern "C" void pfr_model_atomic_store(volatile void *p, size_t size,
				       uint64_t v, int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	do_store(p, size, v, gcc_order(mo, func), info);
}

extern "C" uint64_t pfr_model_rmw(volatile void *p, size_t size, int op,
				  uint64_t v, int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::atomic<uint64_t> *a =
		shared(p, size) ? field_at(p, size, info) : nullptr;
	uint64_t old;

	if (!a) {
		old = plain_load(p, size);
		plain_store(p, size, op == PFR_MODEL_RMW_ADD ? old + v : v);
		return old;
	}
	/* purpose: the change counter's or the sleep word's RMW, with
	 * group.c's order */
	if (op == PFR_MODEL_RMW_ADD)
		return a->fetch_add(v, gcc_order(mo, func), info);
	return a->exchange(mask(v, size), gcc_order(mo, func), info);
}

extern "C" int pfr_model_cas_n(volatile void *p, size_t size,
			       uint64_t *expected, uint64_t v, int mo,
			       int fail_mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::atomic<uint64_t> *a =
		shared(p, size) ? field_at(p, size, info) : nullptr;
	rl::memory_order fmo = gcc_order(fail_mo, func);

	if (!a) {
		fail("CAS on unshadowed memory", info);
		return 0;
	}
	*expected = mask(*expected, size);
	if (fmo == rl::mo_release || fmo == rl::mo_acq_rel)
		fmo = rl::mo_relaxed;
	/* purpose: the claim's (J) or the free's (F) CAS, with group.c's
	 * orders */
	return a->compare_exchange_strong(*expected, mask(v, size),
					  gcc_order(mo, func), info, fmo, info);
}

extern "C" void *pfr_model_memset(void *d, int c, size_t n, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	uint64_t pat = 0x0101010101010101ull * (uint8_t)c;

	std::memset(d, c, n);
	if (!shared(d, n))
		return d;
	for (size_t i = 0; i < g_nfields; i++) {
		const unsigned char *f =
			(const unsigned char *)g_lay.region + g_fields[i].off;

		if (in(f, g_fields[i].size, d, n)) {
			if (!in(f, 1, d, n) ||
			    !in(f + g_fields[i].size - 1, 1, d, n))
				fail("memset of a field in part", info);
			else {
				g_sh->fplain[i](info) = pat;
				g_sh->field[i].store(
					mask(pat, g_fields[i].size),
					rl::mo_relaxed, info);
			}
		}
	}
	for (unsigned s = 0; s < NSLOT; s++)
		if (in(d, n, g_lay.data[s], g_lay.data_size))
			fail("memset of a data area", info);
	return d;
}

extern "C" void pfr_model_fence(int kind, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::memory_order mo;

	flush_plain(info);
	if (mutated(func))
		return;
	switch (kind) {
	case PFR_MODEL_RMB:
	case PFR_MODEL_CTRL_DEP:
		mo = rl::mo_acquire;
		break;
	case PFR_MODEL_WMB:
		mo = rl::mo_release;
		break;
	case PFR_MODEL_TMB:
		mo = rl::mo_acq_rel;
		break;
	default:
		mo = rl::mo_seq_cst;
		break;
	}
	/* purpose: the code's barrier as the C11 fence arch/c11.h uses */
	rl::atomic_thread_fence(mo, info);
}

extern "C" void pfr_model_relax(PFR_MODEL_SITE_ARGS)
{
	rl::yield(1, rl::debug_info(func, file, (unsigned)line));
}

extern "C" void *pfr_model_memcpy(void *dst, const void *src, size_t n,
				  PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool d = shared(dst, n), s = shared(src, n);

	if (!d && !s)
		return std::memcpy(dst, src, n);
	if ((d && s) || (n & 7)) {
		fail("unmodelled memcpy on shared memory", info);
		return dst;
	}
	for (size_t k = 0; k < n; k += 8) {
		uint64_t v;

		if (d) {
			std::memcpy(&v, (const unsigned char *)src + k, 8);
			do_store((unsigned char *)dst + k, 8, v, rl::mo_relaxed,
				 info);
		} else {
			v = do_load((const unsigned char *)src + k, 8,
				    rl::mo_relaxed, info);
			std::memcpy((unsigned char *)dst + k, &v, 8);
		}
	}
	return dst;
}

extern "C" uint32_t pfr_model_group_pid(void)
{
	if (g_in_before)
		return 99;
	unsigned t = rl::thread_index();

	return t < g_cfg.writers ? 100 + t : 99;
}

extern "C" int pfr_model_group_dead(uint32_t pid)
{
	if (pid < 100 || pid >= 100 + g_cfg.writers || g_in_before)
		return pid == 99 || (pid >= 100 && pid < 100 + g_cfg.writers)
			       ? 0
			       : 1;
	/* purpose: the reader learns of a death from /proc after the
	 * process ended; pairs with the release in pfr_model_group_die() */
	return g_sh->dead[pid - 100].load(rl::mo_acquire, $);
}

extern "C" void pfr_model_group_die(void)
{
	unsigned t = rl::thread_index();

	/* purpose: a process's exit orders its stores before its death is
	 * seen; pairs with the acquire in pfr_model_group_dead() */
	g_sh->dead[t].store(1, rl::mo_release, $);
}

extern "C" uint64_t pfr_model_group_clock(void)
{
	/* purpose: one clock for all writers (the time of a record) */
	return g_sh->clock.fetch_add(1, rl::mo_seq_cst, $);
}

extern "C" long pfr_model_syscall(PFR_MODEL_SITE_ARGS, long nr, ...)
{
	rl::debug_info info(func, file, (unsigned)line);
	va_list ap;
	uint32_t *word;
	int op, which = -1;

	if (nr == SYS_gettid)
		return (long)pfr_model_group_pid();
	if (nr != SYS_futex) {
		fail("unmodelled system call", info);
		return -1;
	}
	va_start(ap, nr);
	word = va_arg(ap, uint32_t *);
	op = va_arg(ap, int);
	for (int i = 0; i < NFUTEX; i++)
		if (word == g_lay.futex[i])
			which = i;
	if (which < 0) {
		va_end(ap);
		fail("futex on an unmodelled word", info);
		return -1;
	}
	if (op == FUTEX_WAIT) {
		unsigned val = va_arg(ap, unsigned);
		rl::atomic<uint64_t> *a = field_at(word, 4, info);

		g_sh->futex_mtx.lock(info);
		if (a && a->load(rl::mo_relaxed, info) == val) {
			g_sleeps++;
			g_sh->futex_cv[which].wait(g_sh->futex_mtx, info);
		}
		g_sh->futex_mtx.unlock(info);
	} else if (op == FUTEX_WAKE) {
		g_sh->futex_mtx.lock(info);
		g_sh->futex_cv[which].notify_all(info);
		g_sh->futex_mtx.unlock(info);
	} else {
		fail("unmodelled futex operation", info);
	}
	va_end(ap);
	return 0;
}

extern "C" void pfr_model_check(int ok, const char *what, PFR_MODEL_SITE_ARGS)
{
	if (!ok)
		fail(what, rl::debug_info(func, file, (unsigned)line));
}

namespace
{

#define RU PFR_MODEL_GROUP_REUSE
#define MA PFR_MODEL_GROUP_MANY
#define DE PFR_MODEL_GROUP_DEAD
#define OR PFR_MODEL_GROUP_ORDERED
#define WA PFR_MODEL_GROUP_WAIT
#define FA PFR_MODEL_GROUP_FAIL
#define AT PFR_MODEL_GROUP_ATTACH
#define RJ PFR_MODEL_GROUP_REJOIN
#define RS rl::sched_random, 0

const model_case cases[] = {
	/* The group as written. */
	{"reuse-2w", RU, 2, 1, 2, nullptr, PASS,
	 "2 writers take a 1-slot group in turn: join (J), reset, ACTIVE (P), "
	 "write, leave (L); the reader scans (S), drains, frees (F)",
	 RS},
	{"many-2w", MA, 2, 2, 2, nullptr, PASS,
	 "2 writers join a 2-slot group at once: two claims, the scan bound "
	 "(hint), the change counter",
	 RS},
	{"many-3w", MA, 3, 2, 1, nullptr, PASS,
	 "3 writers, 2 slots: claims race, the third reuses a freed slot", RS},
	{"dead-2w", DE, 2, 1, 2, nullptr, PASS,
	 "the first writer dies after writing: the reader drains it, frees "
	 "the slot with a CAS (F), the second writer reuses it",
	 RS},
	{"ordered-2w", OR, 2, 2, 2, nullptr, PASS,
	 "ordered reader: writers join while it drains; the rescan (R) "
	 "before the merge's safe limit keeps time order",
	 RS},
	{"wait-2w", WA, 2, 2, 1, nullptr, PASS,
	 "the reader asleep in pfr_group_wait(), woken by a join, a record, "
	 "a leave",
	 RS},
	{"fail-2w", FA, 2, 1, 2, nullptr, PASS,
	 "the first writer claims the 1-slot group (J), cannot open its ring "
	 "and gives the slot back (release FREE); the second claims it, "
	 "resets the ring, writes and leaves",
	 RS},

	{"rejoin-2w", RJ, 2, 2, 1, nullptr, PASS,
	 "2 writers on a 2-slot group each join, write, leave and join "
	 "again, often on the other slot while the first is still "
	 "closing: each writer's records in its order",
	 RS},

	{"attach", AT, 2, 1, 0, nullptr, PASS,
	 "a process attaches (pfr__group_map) while another creates the "
	 "group (pfr__group_new): refused or complete, never half-created",
	 rl::sched_full, 0},

	/* Mutants made by the hooks: each must be caught. */
	{"join-relaxed", MA, 2, 2, 2, "pfr_group_join", CAUGHT,
	 "the claim's CAS (J) and ACTIVE (P) relaxed", RS},
	{"leave-relaxed", RU, 2, 1, 2, "pfr_group_leave", CAUGHT,
	 "CLOSING (L) stored relaxed: the leaver's last stores (lost_pending) "
	 "race with the next owner's reset",
	 RS},
	{"scan-relaxed", MA, 2, 2, 2, "pfr__scan|pfr__scan_slot", CAUGHT,
	 "the scan's loads (S) relaxed", RS},
	{"free-relaxed", RU, 2, 1, 2, "pfr__free_slot", CAUGHT,
	 "FREE (F) stored relaxed", RS},
	{"cas-free-relaxed", DE, 2, 1, 2, "pfr__cas_free", CAUGHT,
	 "a dead owner's slot freed by a relaxed CAS (F)", RS},
	{"wait-no-announce-mb", WA, 2, 2, 1, "pfr__announce", CAUGHT,
	 "join/leave wake-up without the full barriers of pfr__announce", RS},
	{"wait-no-arm-mb", WA, 2, 2, 1, "pfr__arm", CAUGHT,
	 "the reader's sleep without smp_mb in pfr__arm", RS},
	{"attach-no-create-wmb", AT, 2, 1, 0, "pfr__group_new", CAUGHT,
	 "creation without smp_wmb before the magic", rl::sched_full, 0},
	{"attach-no-peek-rmb", AT, 2, 1, 0, "pfr__shm_peek", CAUGHT,
	 "attachment without smp_rmb after the magic", rl::sched_full, 0},
};

#undef RU
#undef RJ
#undef MA
#undef DE
#undef OR
#undef WA
#undef FA
#undef AT
#undef RS

class report_buf : public std::streambuf
{
	char buf_[1 << 20];
	size_t len_ = 0;

      protected:
	int_type overflow(int_type ch) override
	{
		if (ch != traits_type::eof() && len_ < sizeof(buf_) - 1)
			buf_[len_++] = (char)ch;
		return ch;
	}
	std::streamsize xsputn(const char *s, std::streamsize n) override
	{
		for (std::streamsize i = 0; i < n; i++)
			overflow((unsigned char)s[i]);
		return n;
	}

      public:
	void clear()
	{
		len_ = 0;
	}
	std::string str() const
	{
		return std::string(buf_, len_);
	}
};

report_buf g_report;

struct options {
	int search = -1;
	unsigned long iterations = 0;
	unsigned bound = 0;
	bool verbose = false;
};

double now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

std::string failure_line(const std::string &out)
{
	static const char *const what[] = {"DATA RACE", "DEADLOCK", "ASSERT",
					   "LIVELOCK"};
	std::istringstream in(out);
	std::string line, first;

	while (std::getline(in, line))
		for (const char *w : what)
			if (line.find(w) != std::string::npos) {
				if (line.find("), in ") != std::string::npos)
					return line;
				if (first.empty())
					first = line;
			}
	return first;
}

bool run_case(const model_case &c, unsigned num, const options &o)
{
	rl::test_params p;
	std::ostream out(&g_report);
	double t0 = now_s(), dt;
	bool ok, pass;

	g_case = &c;
	g_cfg.scenario = c.scenario;
	g_cfg.writers = c.writers;
	g_cfg.slots = c.slots;
	g_cfg.records = c.records;
	p.search_type =
		o.search >= 0 ? (rl::scheduler_type_e)o.search : c.search;
	p.iteration_count = o.iterations ? o.iterations : 20000;
	p.context_bound = o.bound ? o.bound : c.bound;
	p.execution_depth_limit = 200000;
	p.output_stream = &out;
	p.progress_stream = &out;
	g_report.clear();
	g_sleeps = 0;
	if (c.writers == 3)
		ok = rl::simulate<group_test<3>>(p);
	else
		ok = rl::simulate<group_test<2>>(p);
	dt = now_s() - t0;
	g_case = nullptr;

	std::string how = rl::test_result_str(p.test_result);

	pass = c.want == PASS ? ok : !ok;
	std::printf("%s %u - %s: %s", pass ? "ok" : "not ok", num, c.name,
		    c.what);
	if (c.want == PASS)
		std::printf(" (%s search, %llu iterations, %.1f s)%s",
			    p.search_type == rl::sched_random ? "random"
			    : p.search_type == rl::sched_full ? "full"
							      : "bounded",
			    (unsigned long long)p.stop_iteration, dt,
			    ok ? "" : " FAILED");
	else
		std::printf(" -> caught: %s at iteration %llu (%.2f s)",
			    ok ? "nothing (passed)" : how.c_str(),
			    (unsigned long long)p.stop_iteration, dt);
	std::printf("\n# futex sleeps: %lu\n", g_sleeps);
	/* a mutant of the model's own no longer caught: the model is broken
	 * (it can no longer see what the mutant was made to show) */
	if (c.want != PASS && ok)
		std::printf("# BROKEN MODEL: %s, the model's own mutant of %s, "
			    "is no longer caught: the model can no longer see "
			    "what it was made to show (the code under it "
			    "changed; make the case or the mutant again)\n",
			    c.name, c.mutant_fns);
	if (!ok) {
		std::string l = failure_line(g_report.str());

		if (!l.empty())
			std::printf("# %s\n", l.c_str());
	}
	if (o.verbose || !pass) {
		std::istringstream in(g_report.str());
		std::string line;

		while (std::getline(in, line))
			std::printf("# %s\n", line.c_str());
	}
	std::fflush(stdout);
	return pass;
}

} /* namespace */

int main(int argc, char **argv)
{
	options o;
	std::vector<const model_case *> todo;
	int fails = 0;
	unsigned num = 0;

	std::setvbuf(stdout, nullptr, _IOLBF, 0);
	pfr_model_group_layout(&g_lay);
	g_nfields = pfr_model_group_fields(g_fields, MAX_FIELDS);
	g_obj = pfr_model_group_obj(&g_obj_size);
	g_onfields = pfr_model_group_obj_fields(g_ofields, MAX_FIELDS);
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "-l") {
			for (const model_case &c : cases)
				std::printf("%s\t%s\n", c.name, c.what);
			return 0;
		} else if (a == "-v") {
			o.verbose = true;
		} else if (a == "-s" && i + 1 < argc) {
			std::string s = argv[++i];

			o.search = s == "random"  ? rl::sched_random
				   : s == "bound" ? rl::sched_bound
						  : rl::sched_full;
		} else if (a == "-i" && i + 1 < argc) {
			o.iterations = std::strtoul(argv[++i], nullptr, 0);
		} else if (a == "-b" && i + 1 < argc) {
			o.bound = (unsigned)std::strtoul(argv[++i], nullptr, 0);
		} else {
			bool found = false;

			for (const model_case &c : cases)
				if (a == c.name) {
					todo.push_back(&c);
					found = true;
				}
			if (!found) {
				std::fprintf(stderr, "unknown case %s\n",
					     a.c_str());
				return 2;
			}
		}
	}
	if (todo.empty())
		for (const model_case &c : cases)
			todo.push_back(&c);
	std::printf("1..%zu\n", todo.size());
	for (const model_case *c : todo)
		if (!run_case(*c, ++num, o))
			fails++;
	return fails ? 1 : 0;
}
