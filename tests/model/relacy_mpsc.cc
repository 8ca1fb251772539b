/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy_mpsc.cc - model checking of the shared MPSC ring's
 * own code (<perfring/mpsc.h>, src/writers/mpsc.c) with Relacy: 2 and 3
 * producers (one of them possibly joining during the run, or killed) and
 * one reader under the C++11 memory model, with data-race detection.
 *
 * The ring's code (model_mpsc.c, compiled as C against
 * relacy-mpsc-barrier.h) calls the hooks below for every marked access,
 * CAS, fetch-add, barrier, record copy, zeroing and futex call:
 *
 *   control-block and producer-table field        rl::atomic<u64>
 *   data-area word, marked access (the headers,   rl::atomic<u64>
 *     the reader's scan of an unwritten record)
 *   data-area word, memcpy / memset (payloads,    rl::var<u64> (race-
 *     the reader's zeroing)                         checked), and a relaxed
 *                                                   store of the atomic, so
 *                                                   that a marked load of
 *                                                   the word reads it
 *   barrier                                       rl fence
 *   futex wait/wake                               rl::mutex + condition
 *
 * A word is a header in one lap and a payload word in another (records
 * of 16 to 40 bytes in a 64-byte ring, PAD records at the wrap): the
 * payload stores and the reader's zeroing are race-checked against each
 * other and against the payload loads (A with D, B with C2), and every
 * value the reader reads is checked.
 *
 * Mutants are made by the hooks: a case names "function[:op[:field]]"
 * entries (op: load, store, cas, rmw, fence; field: a control-block or
 * slot field's name); while a named function runs, its matching fences
 * are dropped and its matching acquire, release and CAS orderings become
 * relaxed.  A producer the case kills stops right after the access of its
 * death point (the CAS on prod_pos it won, or lost; its BUSY header
 * store): the hook marks it dead and longjmps to the start of its thread.
 *
 * Usage: relacy_mpsc [-l] [-v] [-s full|random|bound] [-i N] [-b N] [-x N]
 *                    [CASE...]
 */
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

#include "model_mpsc.h"

/* Last: it redefines new, malloc, assert and the memory_order names. */
#include <relacy/relacy.hpp>

namespace
{

enum { WORDS = PFR_MODEL_MPSC_DATA / 8, MAX_FIELDS = 64 };

/* PASS: no failure; RACE_OR_VALUE: a data race or a failed check;
 * LOST_WAKEUP: a deadlock or livelock; BUG: the ring as written fails
 * (a protocol bug, kept as a case until it is fixed). */
enum expect { PASS, RACE_OR_VALUE, LOST_WAKEUP, BUG };

struct model_case {
	const char *name;
	pfr_model_mpsc_cfg cfg;
	const char *mutant; /* "fn[:op[:field]]|...": mutated; nullptr */
	expect want;
	const char *what;
	rl::scheduler_type_e search;
	unsigned bound;
};

pfr_model_field g_fields[MAX_FIELDS];
size_t g_nfields;
const model_case *g_case;
pfr_model_mpsc_cfg g_cfg;
struct pfr_model_layout g_lay;
unsigned long g_sleeps[2];
bool g_in_before;
size_t g_prod_field = ~(size_t)0;
uint64_t g_busy;
/* ATTACH: each field's value as the model last stored it (see
 * flush_plain()). */
uint64_t g_known[MAX_FIELDS];

struct shadows {
	rl::atomic<uint64_t> field[MAX_FIELDS];
	rl::atomic<uint64_t> hword[WORDS];
	rl::var<uint64_t> word[WORDS];
	rl::atomic<int> dead[PFR_MODEL_MPSC_MAXT];
	rl::atomic<unsigned> done;
	rl::mutex futex_mtx;
	rl::condition_variable futex_cv[2];
};
shadows *g_sh;
/* DIE_AFTER_STORE: each producer's stores into the data area since it
 * was armed, and the one it dies after */
unsigned g_stores[PFR_MODEL_MPSC_MAXT], g_die_store[PFR_MODEL_MPSC_MAXT];

template <unsigned N> struct mpsc_test : rl::test_suite<mpsc_test<N>, N + 1> {
	shadows sh;

	void before()
	{
		const unsigned char *ctl = (const unsigned char *)g_lay.ctl;

		g_sh = &sh;
		g_in_before = true;
		pfr_model_mpsc_setup(&g_cfg);
		for (size_t i = 0; i < g_nfields; i++) {
			uint64_t v = 0;

			std::memcpy(&v, ctl + g_fields[i].off,
				    g_fields[i].size);
			sh.field[i].store(v, rl::mo_relaxed, $);
			g_known[i] = v;
		}
		for (unsigned i = 0; i < WORDS; i++) {
			/* TAKEOVER: below free_pos, the bytes of records
			 * the killed reader read and did not zero */
			bool stale =
				g_cfg.scenario == PFR_MODEL_MPSC_TAKEOVER &&
				8 * i < pfr_model_mpsc_takeover_free();
			uint64_t v = stale ? 0x5a5a5a5a00000000ull | i : 0;

			sh.hword[i].store(v, rl::mo_relaxed, $);
			sh.word[i]($) = v;
		}
		for (unsigned i = 0; i < PFR_MODEL_MPSC_MAXT; i++) {
			sh.dead[i].store(0, rl::mo_relaxed, $);
			g_stores[i] = g_die_store[i] = 0;
		}
		sh.done.store(0, rl::mo_relaxed, $);
		RL_ASSERT(pfr_model_mpsc_open() == 0);
		g_in_before = false;
	}

	void after()
	{
		g_sh = nullptr;
	}

	void thread(unsigned idx)
	{
		if (idx < N)
			pfr_model_mpsc_producer(idx);
		else
			pfr_model_mpsc_reader();
	}
};

unsigned nthreads()
{
	return g_cfg.producers + g_cfg.joiners;
}

/* No std::string here: Relacy replaces operator new while it simulates. */
bool seg_match(const char *s, const char *e, const char *want)
{
	size_t n = std::strlen(want);

	return (size_t)(e - s) == n && std::strncmp(s, want, n) == 0;
}

/* Whether the access (function func, operation op, field fname or null)
 * is mutated by the case: an entry "fn", "fn:op" or "fn:op:field". */
bool mutated(const char *func, const char *op, const char *fname)
{
	const char *s, *e;

	if (!g_case || !g_case->mutant)
		return false;
	for (s = g_case->mutant;; s = e + 1) {
		const char *c1, *c2;

		e = std::strchr(s, '|');
		if (!e)
			e = s + std::strlen(s);
		c1 = (const char *)std::memchr(s, ':', (size_t)(e - s));
		c2 = c1 ? (const char *)std::memchr(c1 + 1, ':',
						     (size_t)(e - c1 - 1))
			: nullptr;
		if (seg_match(s, c1 ? c1 : e, func) &&
		    (!c1 || seg_match(c1 + 1, c2 ? c2 : e, op)) &&
		    (!c2 || (fname && seg_match(c2 + 1, e, fname))))
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

size_t field_index(const volatile void *p, size_t size,
		   const rl::debug_info &info)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.ctl;

	for (size_t i = 0; i < g_nfields; i++)
		if (g_fields[i].off == off && g_fields[i].size == size)
			return i;
	fail("unmodelled control-block access", info);
	return ~(size_t)0;
}

size_t word_index(const volatile void *p, size_t size,
		  const rl::debug_info &info, bool *okp)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.data;

	*okp = !((off & 7) || size != 8 || off + 8 > g_lay.data_size);
	if (!*okp)
		fail("unmodelled data-area access (not a whole word)", info);
	return off / 8;
}

rl::memory_order order(int mo, const char *func, const char *op,
		       const char *fname)
{
	if (mutated(func, op, fname))
		return rl::mo_relaxed;
	switch (mo) {
	case PFR_MODEL_ACQUIRE:
		return rl::mo_acquire;
	case PFR_MODEL_RELEASE:
		return rl::mo_release;
	case PFR_MODEL_ACQ_REL:
		return rl::mo_acq_rel;
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

/* The calling producer thread, or -1 (the reader, or before()). */
int producer_thread()
{
	if (g_in_before)
		return -1;
	unsigned t = rl::thread_index();

	return t < nthreads() ? (int)t : -1;
}

bool attach_case()
{
	return g_cfg.scenario == PFR_MODEL_MPSC_ATTACH;
}

/* ATTACH: the creator's (thread 0's) plain stores to the control block
 * since its last hooked operation, as relaxed stores of each modelled
 * field whose real memory differs from what the model last stored (in
 * field order; they are plain stores of one thread before the hooked
 * operation, so any order is one the compiler may choose). */
void flush_plain(const rl::debug_info &info)
{
	const unsigned char *ctl = (const unsigned char *)g_lay.ctl;

	if (!attach_case() || g_in_before || !g_sh || rl::thread_index() != 0)
		return;
	for (size_t i = 0; i < g_nfields; i++) {
		uint64_t v = 0;

		std::memcpy(&v, ctl + g_fields[i].off, g_fields[i].size);
		if (v != g_known[i]) {
			g_sh->field[i].store(v, rl::mo_relaxed, info);
			g_known[i] = v;
		}
	}
}

/* Kills producer t now: dead (release, seen with acquire by the liveness
 * check), ended, and back to the start of its thread. */
void die_now(unsigned t)
{
	/* purpose: a thread's death is seen after its last store; pairs
	 * with the acquire in pfr_model_mpsc_alive() */
	g_sh->dead[t].store(1, rl::mo_release, $);
	/* purpose: the reader's end of run; pairs with the acquire in
	 * pfr_model_mpsc_done() */
	g_sh->done.fetch_add(1, rl::mo_release, $);
	pfr_model_mpsc_die(t);
}

/* DIE_AFTER_STORE: producer t stored a word into the data area; dies
 * after its death_store-th (or, for 0, a count the search chooses). */
void counted_store(int t)
{
	if (t < 0 || !pfr_model_mpsc_armed[t] ||
	    g_cfg.death[t] != PFR_MODEL_DIE_AFTER_STORE)
		return;
	if (!g_die_store[t])
		g_die_store[t] = g_cfg.death_store[t]
					 ? g_cfg.death_store[t]
					 : 1 + rl::rand(PFR_MODEL_MPSC_STORES);
	if (++g_stores[t] == g_die_store[t])
		die_now((unsigned)t);
}

} /* namespace */

extern "C" uint64_t pfr_model_load(const volatile void *p, size_t size, int mo,
				   PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool ok;

	flush_plain(info);
	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		size_t i = field_index(p, size, info);

		if (i == ~(size_t)0)
			return 0;
		/* purpose: the ring's READ_ONCE or load_acquire, with the
		 * order its code asked for (pairs as the caller names) */
		return g_sh->field[i].load(
			order(mo, func, "load", g_fields[i].name), info);
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		size_t i = word_index(p, size, info, &ok);

		/* purpose: a header load (marked), pairs as above */
		return ok ? g_sh->hword[i].load(order(mo, func, "load", nullptr),
						info)
			  : 0;
	}
	return plain_load(p, size);
}

extern "C" void pfr_model_store(volatile void *p, size_t size, uint64_t v,
				int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool ok;

	flush_plain(info);
	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		size_t i = field_index(p, size, info);

		if (size < 8)
			v &= (1ull << (8 * size)) - 1;
		if (i != ~(size_t)0)
			g_sh->field[i].store(
				v, order(mo, func, "store", g_fields[i].name),
				info);
		if (i != ~(size_t)0 && attach_case()) {
			/* the real memory too, for flush_plain() */
			g_known[i] = v;
			plain_store(p, size, v);
		}
		return;
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		size_t i = word_index(p, size, info, &ok);
		int t = producer_thread();

		if (!ok)
			return;
		g_sh->hword[i].store(v, order(mo, func, "store", nullptr),
				     info);
		if (t >= 0 && (v & g_busy) == g_busy &&
		    pfr_model_mpsc_armed[t] &&
		    g_cfg.death[t] == PFR_MODEL_DIE_AFTER_BUSY)
			die_now((unsigned)t);
		counted_store(t);
		return;
	}
	plain_store(p, size, v);
}

extern "C" int pfr_model_cas(volatile void *p, uint64_t *expected, uint64_t v,
			     int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	size_t i;
	int ok, t;

	flush_plain(info);
	if (!in(p, 8, g_lay.ctl, g_lay.ctl_size)) {
		fail("CAS outside the control block", info);
		return 0;
	}
	i = field_index(p, 8, info);
	if (i == ~(size_t)0)
		return 0;
	/* purpose: R, the slot claim, the flag or the reader role's CAS,
	 * with the order of its call site */
	ok = g_sh->field[i].compare_exchange_strong(
		*expected, v, order(mo, func, "cas", g_fields[i].name), info,
		rl::mo_relaxed, info);
	t = producer_thread();
	if (i == g_prod_field && t >= 0 && pfr_model_mpsc_armed[t] &&
	    ((ok && g_cfg.death[t] == PFR_MODEL_DIE_AFTER_CAS) ||
	     (!ok && g_cfg.death[t] == PFR_MODEL_DIE_LOST_CAS)))
		die_now((unsigned)t);
	return ok;
}

extern "C" uint64_t pfr_model_fetch_add(volatile void *p, size_t size,
					uint64_t v, int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	size_t i;

	flush_plain(info);
	if (!in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		fail("fetch-add outside the control block", info);
		return 0;
	}
	i = field_index(p, size, info);
	if (i == ~(size_t)0)
		return 0;
	/* purpose: the record counter, with its call site's order */
	return g_sh->field[i].fetch_add(
		v, order(mo, func, "rmw", g_fields[i].name), info);
}

extern "C" void *pfr_model_memset(void *d, int c, size_t n, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool ok;

	flush_plain(info);
	if (in(d, n, g_lay.ctl, g_lay.ctl_size)) {
		/* ATTACH: the creator's clearing of the control block and
		 * table: plain stores, seen by the next flush_plain() */
		if (attach_case() && rl::thread_index() == 0)
			return std::memset(d, c, n);
		fail("unmodelled memset of the control block", info);
		return d;
	}
	if (!in(d, n, g_lay.data, g_lay.data_size))
		return std::memset(d, c, n);
	if (c != 0 || (n & 7)) {
		fail("unmodelled memset of the data area", info);
		return d;
	}
	for (size_t k = 0; k < n; k += 8) {
		size_t i = word_index((unsigned char *)d + k, 8, info, &ok);

		if (!ok)
			return d;
		g_sh->word[i](info) = 0;
		g_sh->hword[i].store(0, rl::mo_relaxed, info);
	}
	return d;
}

extern "C" void pfr_model_fence(int kind, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::memory_order mo;

	flush_plain(info);
	if (mutated(func, "fence", nullptr))
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
	/* purpose: the ring's barrier as the C11 fence arch/c11.h uses */
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
	bool d = in(dst, n, g_lay.data, g_lay.data_size);
	bool s = in(src, n, g_lay.data, g_lay.data_size);
	bool ok;

	if (!d && !s)
		return std::memcpy(dst, src, n);
	if ((d && s) || (n & 7)) {
		fail("unmodelled memcpy on the data area", info);
		return dst;
	}
	for (size_t k = 0; k < n; k += 8) {
		uint64_t v;

		if (d) {
			size_t i = word_index((unsigned char *)dst + k, 8, info,
					      &ok);

			if (!ok)
				return dst;
			std::memcpy(&v, (const unsigned char *)src + k, 8);
			g_sh->word[i](info) = v;
			g_sh->hword[i].store(v, rl::mo_relaxed, info);
			counted_store(producer_thread());
		} else {
			size_t i = word_index((const unsigned char *)src + k, 8,
					      info, &ok);

			if (!ok)
				return dst;
			v = g_sh->word[i](info);
			std::memcpy((unsigned char *)dst + k, &v, 8);
		}
	}
	return dst;
}

extern "C" long pfr_model_syscall(PFR_MODEL_SITE_ARGS, long nr, ...)
{
	rl::debug_info info(func, file, (unsigned)line);
	va_list ap;
	uint32_t *word;
	int op, which;

	if (nr != SYS_futex) {
		fail("unmodelled system call", info);
		return -1;
	}
	va_start(ap, nr);
	word = va_arg(ap, uint32_t *);
	op = va_arg(ap, int);
	which = word == g_lay.reader_futex   ? 0
		: word == g_lay.writer_futex ? 1
					     : -1;
	if (which < 0) {
		va_end(ap);
		fail("futex on an unmodelled word", info);
		return -1;
	}
	if (op == FUTEX_WAIT) {
		unsigned val = va_arg(ap, unsigned);
		size_t i = field_index(word, 4, info);

		g_sh->futex_mtx.lock(info);
		if (i != ~(size_t)0 &&
		    g_sh->field[i].load(rl::mo_relaxed, info) == val) {
			g_sleeps[which]++;
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

extern "C" uint32_t pfr_model_mpsc_gettid(void)
{
	int t = producer_thread();

	if (g_in_before)
		return pfr_model_mpsc_before_tid;
	return t >= 0 ? 10 + (uint32_t)t : 99;
}

extern "C" int pfr_model_mpsc_alive(uint32_t tid)
{
	if (g_in_before || tid < 10 || tid >= 10 + nthreads())
		return tid == 99 || (tid >= 10 && tid < 10 + nthreads());
	/* purpose: the liveness check sees a death after the dead
	 * thread's last store; pairs with the release in die_now() */
	return !g_sh->dead[tid - 10].load(rl::mo_acquire, $);
}

extern "C" void pfr_model_mpsc_exited(unsigned t)
{
	/* purpose: its exit is seen after its last store; pairs with the
	 * acquire in pfr_model_mpsc_alive() */
	g_sh->dead[t].store(1, rl::mo_release, $);
	/* purpose: the reader's end of run; pairs with the acquire in
	 * pfr_model_mpsc_done() */
	g_sh->done.fetch_add(1, rl::mo_release, $);
}

extern "C" void pfr_model_mpsc_finished(void)
{
	/* purpose: the reader's end of run; pairs with the acquire in
	 * pfr_model_mpsc_done() */
	g_sh->done.fetch_add(1, rl::mo_release, $);
}

extern "C" unsigned pfr_model_mpsc_done(void)
{
	/* purpose: the reader's end of run: every producer's records and
	 * counts before; pairs with the release in finished/die_now */
	return g_sh->done.load(rl::mo_acquire, $);
}

namespace
{

/* A case's configuration: scenario, producers, records each, payload
 * bytes of each producer; 256 BLOCK spins, 4 slots, BLOCK, no stall. */
pfr_model_mpsc_cfg C(int scn, unsigned np, unsigned recs, unsigned p0,
		     unsigned p1, unsigned p2 = 8, unsigned p3 = 8)
{
	pfr_model_mpsc_cfg c;

	std::memset(&c, 0, sizeof(c));
	c.scenario = scn;
	c.producers = np;
	c.max_producers = PFR_MODEL_MPSC_SLOTS;
	c.records = recs;
	c.payload[0] = p0;
	c.payload[1] = p1;
	c.payload[2] = p2;
	c.payload[3] = p3;
	c.block_spins = 256;
	return c;
}

pfr_model_mpsc_cfg spins(pfr_model_mpsc_cfg c, unsigned n)
{
	c.block_spins = n;
	return c;
}

pfr_model_mpsc_cfg drop(pfr_model_mpsc_cfg c)
{
	c.drop = 1;
	return c;
}

/* Producer t dies at its record `at` (how: enum pfr_model_mpsc_death);
 * the clock runs. */
pfr_model_mpsc_cfg kill(pfr_model_mpsc_cfg c, unsigned t, unsigned at, int how)
{
	c.stall = 1;
	c.death_at[t] = at;
	c.death[t] = how;
	return c;
}

/* One more producer joins during the run; the table has `slots`. */
pfr_model_mpsc_cfg joiner(pfr_model_mpsc_cfg c, unsigned slots)
{
	c.joiners = 1;
	c.max_producers = slots;
	return c;
}

#define P PFR_MODEL_MPSC_PROTO
#define W PFR_MODEL_MPSC_WAKE
#define BU PFR_MODEL_MPSC_BURST
#define AT PFR_MODEL_MPSC_ATTACH
#define TK PFR_MODEL_MPSC_TAKEOVER
#define FS rl::sched_full, 0
#define CB(n) rl::sched_bound, n
#define RS rl::sched_random, 0
#define AFTER_CAS PFR_MODEL_DIE_AFTER_CAS
#define AFTER_BUSY PFR_MODEL_DIE_AFTER_BUSY
#define LOST_CAS PFR_MODEL_DIE_LOST_CAS
#define AFTER_STORE PFR_MODEL_DIE_AFTER_STORE

/* Producer t dies after its n-th store into the data area (0: any of
 * the first PFR_MODEL_MPSC_STORES, chosen by the search) at record at. */
pfr_model_mpsc_cfg kill_store(pfr_model_mpsc_cfg c, unsigned t, unsigned at,
			      unsigned n)
{
	c = kill(c, t, at, AFTER_STORE);
	c.death_store[t] = n;
	return c;
}

/* Producer t starts with n drops counted: its first reservation carries
 * a LOST record. */
pfr_model_mpsc_cfg pre_lost(pfr_model_mpsc_cfg c, unsigned t, unsigned n)
{
	c.pre_lost[t] = n;
	return c;
}

/* Producer t, a DIE_LOST_CAS one, exits without leaving when it never
 * loses its CAS (dead for the model), instead of living on. */
pfr_model_mpsc_cfg exits(pfr_model_mpsc_cfg c, unsigned t)
{
	c.exits[t] = 1;
	return c;
}

std::vector<model_case> g_cases;

/* dead-2-lost-cas with drops pending for the second producer: it is
 * killed between any two of its stores on the LOST path (PAD, BUSY, the
 * LOST payload, the LOST header, the record's BUSY), the first producer's
 * stale announcement at the same place.  After the correct cases of
 * make_cases(), before its mutants. */
void add_dead_lost_stores()
{
	const pfr_model_mpsc_cfg dlstore = kill_store(
		pre_lost(kill(drop(C(P, 3, 1, 16, 8, 8)), 0, 1, LOST_CAS), 1,
			 1),
		1, 1, 0);
	size_t at = 0;

	while (at < g_cases.size() && g_cases[at].want == PASS)
		at++;
	g_cases.insert(
		g_cases.begin() + (long)at,
		{"dead-lost-stores", dlstore, nullptr, PASS,
		 "a producer with drops pending killed after any of its first "
		 "stores into the data area (its LOST record's and its "
		 "record's), another's stale announcement at the same place: "
		 "the hole's words are zero up to the BUSY header; the first "
		 "producer's drops, when it lives on owning its slot, are its "
		 "own (the sweep leaves them)",
		 RS});
	g_cases.insert(
		g_cases.begin() + (long)at + 1,
		{"dead-lost-stores-exit", exits(dlstore, 0), nullptr, PASS,
		 "dead-lost-stores with the first producer exiting without "
		 "leaving when it never loses its CAS: the sweep claims its "
		 "slot and reports its drops (none left unreported)",
		 RS});
}

/* dead-2-lost-cas with 2 records each: the first two producers die at
 * their first, the third writes both and leaves before the reader sizes
 * the hole, so the stale announcement covers its committed header and no
 * announcement cuts it (lim is prod_pos).  Right after dead-2-lost-cas. */
void add_dead_2_lost_2r()
{
	const pfr_model_mpsc_cfg dlost2 =
		kill(kill(C(P, 3, 2, 16, 8, 8), 0, 1, LOST_CAS), 1, 1,
		     AFTER_CAS);
	size_t at = 0;

	while (at < g_cases.size() &&
	       std::strcmp(g_cases[at].name, "dead-2-lost-cas") != 0)
		at++;
	g_cases.insert(
		g_cases.begin() + (long)(at + 1),
		{"dead-2-lost-2r", dlost2, nullptr, PASS,
		 "dead-2-lost-cas with the third producer writing two "
		 "records and leaving: the stale announcement covers its "
		 "committed header and no announcement cuts it (lim is "
		 "prod_pos); the zero test of the first dead announcement "
		 "refuses it",
		 RS});
}

void make_cases()
{
	/* 2 producers, records of 16 and 24 bytes in 64: PAD at the wrap,
	 * zeroed space reused, the BLOCK wait */
	const pfr_model_mpsc_cfg proto = C(P, 2, 3, 8, 16);
	const pfr_model_mpsc_cfg proto3 = C(P, 3, 2, 8, 16, 8);
	const pfr_model_mpsc_cfg block = spins(C(P, 2, 2, 16, 16), 1);
	const pfr_model_mpsc_cfg wake = C(W, 2, 2, 8, 8);
	const pfr_model_mpsc_cfg burst = C(BU, 2, 4, 8, 8);
	const pfr_model_mpsc_cfg lost = drop(C(P, 2, 3, 16, 16));
	const pfr_model_mpsc_cfg reuse = joiner(drop(C(P, 2, 2, 16, 16, 8)), 2);
	const pfr_model_mpsc_cfg rdead =
		joiner(kill(drop(C(P, 1, 4, 16, 8)), 0, 4, AFTER_CAS), 1);
	const pfr_model_mpsc_cfg dcas = kill(C(P, 2, 2, 8, 16), 0, 2, AFTER_CAS);
	const pfr_model_mpsc_cfg dbusy =
		kill(C(P, 2, 2, 8, 16), 0, 2, AFTER_BUSY);
	const pfr_model_mpsc_cfg dlost =
		kill(kill(C(P, 3, 1, 16, 8, 8), 0, 1, LOST_CAS), 1, 1,
		     AFTER_CAS);
	/* thread 0 creates, thread 1 attaches (no records) */
	const pfr_model_mpsc_cfg attach = C(AT, 1, 0, 8, 8);
	/* 1 producer x 3 records of 16 bytes from 48: the first fits, the
	 * second and third need the space the new reader frees (D) */
	const pfr_model_mpsc_cfg take = C(TK, 1, 3, 8, 8);
	/* BLOCK, 1 spin, the killed reader's range the whole ring: the
	 * producer's first record waits (asleep) for the takeover's D */
	pfr_model_mpsc_cfg take_full = spins(C(TK, 1, 1, 8, 8), 1);

	take_full.take_free = PFR_MODEL_MPSC_DATA;

	g_cases = {
		/* The ring as written. */
		{"proto-2p", proto, nullptr, PASS,
		 "2 producers x 3 records of 16 and 24 bytes, 64-byte ring: "
		 "B/C2, A/D, PAD, zeroing",
		 RS},
		{"proto-3p", proto3, nullptr, PASS,
		 "3 producers x 2 records: reservation order, space reuse", RS},
		{"block-2p", block, nullptr, PASS,
		 "2 BLOCK producers sleeping for space, woken by pfr_mpsc_end",
		 CB(1)},
		{"wake-2p", wake, nullptr, PASS,
		 "reader asleep in pfr_mpsc_wait, woken by a commit", RS},
		{"burst-2p", burst, nullptr, PASS,
		 "2 producers x 2 bursts of 2 (pfr_mpsc_write_burst): one BUSY "
		 "header, the other headers before B",
		 RS},
		{"lost-2p", lost, nullptr, PASS,
		 "DROP: drops reported in LOST records (B of the LOST header) "
		 "or lost_left",
		 RS},
		{"dead-cas", dcas, nullptr, PASS,
		 "a producer killed between its CAS (R) and its BUSY header: "
		 "the reader sizes the hole from its announcement (N, C1)",
		 RS},
		{"dead-busy", dbusy, nullptr, PASS,
		 "a producer killed between BUSY and commit: the reader skips "
		 "the record",
		 RS},
		{"reuse-3p", reuse, nullptr, PASS,
		 "DROP, 2 slots: a third producer joins a slot another left "
		 "(claim CAS, leave's release, lost_left)",
		 RS},
		{"reuse-dead", rdead, nullptr, PASS,
		 "DROP, 1 slot: a producer killed after its CAS, its slot "
		 "taken by a second once the reader passed it (the drops it "
		 "inherits: lost_due - lost_reported)",
		 RS},
		{"dead-2-lost-cas", dlost, nullptr, PASS,
		 "a producer killed after a lost CAS (its announcement stale), "
		 "another after its CAS, a third alive",
		 RS},
		{"attach", attach, nullptr, PASS,
		 "a process attaches (pfr__mpsc_map) while another creates "
		 "the ring (pfr__mpsc_new): refused or complete, never "
		 "half-created",
		 FS},
		{"reader-takeover", take, nullptr, PASS,
		 "a reader replaces one killed while zeroing (cons_pos < "
		 "free_pos): it zeroes the rest and frees it (D) while a "
		 "producer writes into that space",
		 RS},
		{"reader-takeover-block", take_full, nullptr, PASS,
		 "BLOCK: a producer asleep for space a killed reader read; the "
		 "new reader frees it (D) in pfr_mpsc_reader() and wakes it "
		 "(pfr__mpsc_end_wake(); without it, a lost wake-up)",
		 CB(1)},

		/* Mutants of the orderings: each must be caught. */
		{"relaxed-A", proto, "pfr__mpsc_load_cons", RACE_OR_VALUE,
		 "cons_pos loaded without acquire before storing into freed "
		 "space",
		 RS},
		{"relaxed-D", proto, "pfr_mpsc_end:store", RACE_OR_VALUE,
		 "cons_pos stored without release after the zeroing", RS},
		{"relaxed-B", proto, "pfr__mpsc_finish:store", RACE_OR_VALUE,
		 "commit without release", RS},
		{"relaxed-B-lost", lost, "pfr__mpsc_reserve_slow:store",
		 RACE_OR_VALUE, "LOST header stored without release", RS},
		{"relaxed-B-burst", burst, "pfr__mpsc_finish:store",
		 RACE_OR_VALUE, "burst: the first header without release", RS},
		{"relaxed-H", C(P, 2, 3, 8, 16), "pfr__mpsc_store_hdr",
		 RACE_OR_VALUE,
		 "PAD and BUSY headers stored without release: the reader "
		 "passes a PAD whose CAS it has not seen (HEAD_BEHIND)",
		 RS},
		{"relaxed-prod", proto, "pfr__mpsc_load_prod", RACE_OR_VALUE,
		 "prod_pos loaded relaxed after cons_pos in the slow path "
		 "(a spurious HEAD_AHEAD)",
		 RS},
		{"relaxed-C2", proto, "pfr__mpsc_load_hdr", RACE_OR_VALUE,
		 "header loaded without acquire", RS},
		/* on dead-2-lost-cas: dead-cas no longer fails them */
		{"relaxed-R", dlost,
		 "pfr_mpsc_reserve:cas|pfr__mpsc_reserve_slow:cas",
		 RACE_OR_VALUE, "the reservation's CAS without release", RS},
		{"relaxed-C1", dlost, "pfr__mpsc_hole:load:prod_pos",
		 RACE_OR_VALUE, "prod_pos loaded without acquire", RS},
		{"relaxed-N", dcas, "pfr__mpsc_announce", RACE_OR_VALUE,
		 "announcement's res_pos stored without release", RS},
		{"relaxed-N-reader", dcas, "pfr__mpsc_hole:load:res_pos",
		 RACE_OR_VALUE, "announcement's res_pos loaded without acquire",
		 RS},
		{"relaxed-claim", reuse, "pfr__mpsc_claim:cas", RACE_OR_VALUE,
		 "the slot claim's CAS relaxed", RS},
		{"relaxed-leave", reuse, "pfr_mpsc_leave:store:owner",
		 RACE_OR_VALUE, "the slot freed without release", RS},
		{"attach-no-create-wmb", attach, "pfr__mpsc_new:fence",
		 RACE_OR_VALUE, "creation without smp_wmb before the magic",
		 FS},
		{"attach-no-peek-rmb", attach, "pfr__shm_peek:fence",
		 RACE_OR_VALUE, "attachment without smp_rmb after the magic",
		 FS},
		{"relaxed-D-takeover", take, "pfr_mpsc_reader:store:cons_pos",
		 RACE_OR_VALUE,
		 "the takeover's cons_pos stored without release after its "
		 "zeroing",
		 RS},
		/* Mutants of the hand-shakes: a lost wake-up must be found. */
		{"wake-no-commit-mb", wake, "pfr__mpsc_commit_wake", LOST_WAKEUP,
		 "reader wake-up without smp_mb after the commit", RS},
		{"wake-no-reader-mb", wake, "pfr_mpsc_wait:fence", LOST_WAKEUP,
		 "reader wake-up without smp_mb in pfr_mpsc_wait", RS},
		{"block-no-reader-mb", block, "pfr__mpsc_end_wake", LOST_WAKEUP,
		 "BLOCK wake-up without smp_mb after the cons_pos store",
		 CB(1)},
		{"block-no-writer-mb", block, "pfr__mpsc_wait_space:fence",
		 LOST_WAKEUP,
		 "BLOCK wake-up without smp_mb in pfr__mpsc_wait_space", CB(1)},
	};
}

#undef P
#undef W
#undef BU
#undef AT
#undef TK
#undef FS
#undef CB
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
	unsigned bound = 0, more = 0;
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
	g_cfg = c.cfg;
	p.search_type =
		o.search >= 0 ? (rl::scheduler_type_e)o.search : c.search;
	p.iteration_count = o.iterations ? o.iterations : 100000;
	p.context_bound = (o.bound ? o.bound : c.bound) + o.more;
	p.execution_depth_limit = 100000;
	p.output_stream = &out;
	p.progress_stream = &out;
	g_report.clear();
	g_sleeps[0] = g_sleeps[1] = 0;
	if (nthreads() == 3)
		ok = rl::simulate<mpsc_test<3>>(p);
	else if (nthreads() == 1)
		ok = rl::simulate<mpsc_test<1>>(p);
	else
		ok = rl::simulate<mpsc_test<2>>(p);
	dt = now_s() - t0;
	g_case = nullptr;

	std::string how = rl::test_result_str(p.test_result);

	if (c.want == PASS)
		pass = ok;
	else if (c.want == LOST_WAKEUP)
		pass = p.test_result == rl::test_result_deadlock ||
		       p.test_result == rl::test_result_livelock;
	else
		pass = p.test_result == rl::test_result_data_race ||
		       p.test_result == rl::test_result_user_assert_failed ||
		       (c.want == BUG && !ok);
	char search[64];

	if (p.search_type == rl::sched_bound)
		std::snprintf(search, sizeof(search), "context bound %u",
			      p.context_bound);
	else
		std::snprintf(search, sizeof(search), "%s search",
			      p.search_type == rl::sched_full ? "full"
							      : "random");
	std::printf("%s %u - %s: %s", pass ? "ok" : "not ok", num, c.name,
		    c.what);
	if (c.want == BUG)
		std::printf(" -> the bug %s at iteration %llu (%s, %.2f s)",
			    ok ? "was NOT reproduced (fixed? make it PASS)"
			       : how.c_str(),
			    (unsigned long long)p.stop_iteration, search, dt);
	else if (c.want == PASS)
		std::printf(" (%s, %llu iterations, %.1f s)%s", search,
			    (unsigned long long)p.stop_iteration, dt,
			    ok ? "" : " FAILED");
	else
		std::printf(" -> caught: %s at iteration %llu (%s, %.2f s)",
			    ok ? "nothing (passed)" : how.c_str(),
			    (unsigned long long)p.stop_iteration, search, dt);
	std::printf("\n# futex sleeps: reader %lu, producers %lu\n",
		    g_sleeps[0], g_sleeps[1]);
	/* a mutant of the model's own no longer caught: the model is broken
	 * (it can no longer see what the mutant was made to show) */
	if (c.want != PASS && c.want != BUG && ok)
		std::printf("# BROKEN MODEL: %s, the model's own mutant of %s, "
			    "is no longer caught: the model can no longer see "
			    "what it was made to show (the code under it "
			    "changed; make the case or the mutant again)\n",
			    c.name, c.mutant);
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
	pfr_model_mpsc_layout(&g_lay);
	g_nfields = pfr_model_mpsc_fields(g_fields, MAX_FIELDS);
	for (size_t i = 0; i < g_nfields; i++)
		if (std::strcmp(g_fields[i].name, "prod_pos") == 0)
			g_prod_field = i;
	g_busy = pfr_model_mpsc_busy_mask();
	make_cases();
	add_dead_2_lost_2r();
	add_dead_lost_stores();
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "-l") {
			for (const model_case &c : g_cases)
				std::printf("%s\t%s\n", c.name, c.what);
			return 0;
		} else if (a == "-v") {
			o.verbose = true;
		} else if (a == "-s" && i + 1 < argc) {
			std::string s = argv[++i];

			o.search = s == "random"  ? rl::sched_random
				   : s == "bound" ? rl::sched_bound
						  : rl::sched_full;
		} else if (a == "-x" && i + 1 < argc) {
			o.more = (unsigned)std::strtoul(argv[++i], nullptr, 0);
		} else if (a == "-i" && i + 1 < argc) {
			o.iterations = std::strtoul(argv[++i], nullptr, 0);
		} else if (a == "-b" && i + 1 < argc) {
			o.bound = (unsigned)std::strtoul(argv[++i], nullptr, 0);
		} else {
			bool found = false;

			for (const model_case &c : g_cases)
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
		for (const model_case &c : g_cases)
			todo.push_back(&c);
	std::printf("1..%zu\n", todo.size());
	for (const model_case *c : todo)
		if (!run_case(*c, ++num, o))
			fails++;
	return fails ? 1 : 0;
}
