/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy_ring.cc - model checking of the ring's own code with
 * Relacy (C++11 memory model, data-race detection).
 *
 * The ring's writer and reader (model_ring.c: src/ring/ring.c and the inline
 * protocol of <perfring/ring-proto.h> and <perfring/ring-inline.h>,
 * compiled as C against relacy-barrier.h) call the hooks below for every
 * load, store, barrier, record copy and futex call; the hooks perform them on Relacy's types:
 *
 *   control-block field (head, tail, reader_waiting...)  rl::atomic<u64>
 *   data-area 8-byte word (record headers, payloads)     rl::var<u64>
 *   the same word's acquire loads, release and ONCE      rl::atomic<u64>
 *     stores (in-band headers and the zero word)         (a second shadow)
 *   barrier                                              rl fence
 *   futex wait/wake                                      rl::mutex and
 *                                                        rl::condition_variable
 *
 * Mutants are made here, by the hooks, from the calling function's name:
 * a mutant of function F drops every fence F executes and weakens every
 * acquire load and release store F executes to relaxed.  A-D each live in
 * their own function (pfr__space, pfr__publish, pfr__begin, pfr__end),
 * which runs the case's ordering alone (a switch on it), and each
 * hand-shake's smp_mb() in the function that sleeps or wakes, so no code
 * is copied to make a mutant.
 *
 * Output is TAP: one line per case.  Usage:
 *   relacy_ring [-l] [-v] [-s full|random|bound] [-i N] [-b N] [-x N]
 *               [-L] [-r N] [CASE...]
 * -l lists the cases; -v prints Relacy's report of each; -s, -i (random
 * iterations) and -b (context bound) override every case's search; -x N
 * adds N to every context bound; -L runs a full search where a case
 * allows it (make check-long passes -L -x 1); -r N records.
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

#include "model.h"

/* Last: it redefines new, malloc, assert and the memory_order names. */
#include <relacy/relacy.hpp>

namespace
{

enum { WORDS = PFR_MODEL_DATA_MAX / 8, MAX_FIELDS = 32 };

/* What a case expects: the model passes, or the mutant is caught: a data
 * race on a record word or a wrong record (an assertion), or a lost
 * wake-up (a sleeper no one wakes: Relacy reports a deadlock when both
 * sides sleep, a livelock when the other side polls forever). */
enum expect { PASS, RACE_OR_VALUE, LOST_WAKEUP };

struct model_case {
	const char *name;
	int scenario, ordering;
	const char *mutant_fn; /* nullptr: the ring as written */
	expect want;
	const char *what; /* one line for the TAP description */
	unsigned spins; /* pfr_model_block_spins */
	rl::scheduler_type_e search;
	unsigned bound; /* context bound (sched_bound) */
	/* A known bug in the ring: the line is a TAP TODO (reported, not
	 * counted as a failure) until the ring is fixed. */
	const char *todo = nullptr;
	/* With -L (make check-long): a full search instead of the bound. */
	bool full_in_long = false;
};

/*
 * The control-block fields the ring's code accesses, as (offset, size):
 * learnt by a discovery run (a short random search that registers every
 * new field it meets), so that the model follows <perfring/ring.h> as it
 * changes.  After discovery, an access to any other field fails the case
 * ("unmodelled control-block access").
 */
struct slot {
	size_t off, size;
};
slot g_slots[MAX_FIELDS];
size_t g_nslots;
bool g_discovering, g_discovered;
/* Executions in which a side went to sleep on its futex (coverage). */
unsigned long g_sleeps[2];

/* ATTACH: each field's value as the model last stored it (see
 * flush_plain()). */
uint64_t g_known[MAX_FIELDS];

const model_case *g_case;
struct pfr_model_cfg g_cfg;
struct pfr_model_layout g_lay;

struct ring_test;
ring_test *g_test;

struct ring_test : rl::test_suite<ring_test, 2> {
	rl::atomic<uint64_t> field[MAX_FIELDS];
	rl::var<uint64_t> word[WORDS];
	/* SNAP: the data area's words as relaxed atomics (see model.h).
	 * In band, each data word also has an atomic shadow: the in-band
	 * header's release store and acquire loads, and the zero word's
	 * WRITE_ONCE, are atomic accesses of the word.  Every store to the
	 * word (plain included) updates both shadows, so an acquire load
	 * sees what the word holds (a payload's bytes too); loads other
	 * than acquire read the rl::var, race-checked. */
	rl::atomic<uint64_t> aword[WORDS];
	rl::mutex futex_mtx;
	rl::condition_variable futex_cv[2]; /* reader_waiting, writer_waiting */

	void before()
	{
		const unsigned char *ctl = (const unsigned char *)g_lay.ctl;

		g_test = this;
		pfr_model_setup(&g_cfg);
		for (size_t i = 0; i < g_nslots; i++) {
			uint64_t v = 0;

			std::memcpy(&v, ctl + g_slots[i].off, g_slots[i].size);
			field[i].store(v, rl::mo_relaxed, $);
			g_known[i] = v;
		}
		for (unsigned i = 0; i < WORDS; i++) {
			word[i]($) = 0;
			aword[i].store(0, rl::mo_relaxed, $);
		}
		RL_ASSERT(pfr_model_open() == 0);
	}

	void after()
	{
		g_test = nullptr;
	}

	void thread(unsigned idx)
	{
		if (idx == 0)
			pfr_model_writer();
		else
			pfr_model_reader();
	}
};

bool mutated(const char *func)
{
	return g_case && g_case->mutant_fn &&
	       std::strcmp(func, g_case->mutant_fn) == 0;
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

/* The rl::atomic of the control-block field at p, or nullptr (and the
 * iteration fails) for an offset or size the model does not know. */
rl::atomic<uint64_t> *field_at(const volatile void *p, size_t size,
			       const rl::debug_info &info)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.ctl;

	for (size_t i = 0; i < g_nslots; i++)
		if (g_slots[i].off == off && g_slots[i].size == size)
			return &g_test->field[i];
	if (g_discovering && g_nslots < MAX_FIELDS && (off % size) == 0 &&
	    (size == 4 || size == 8)) {
		g_slots[g_nslots].off = off;
		g_slots[g_nslots++].size = size;
		g_discovered = true;
		fail("new control-block field (discovery)", info);
		return nullptr;
	}
	fail("unmodelled control-block access", info);
	return nullptr;
}

/* The rl::var of the data-area word at p (whole, aligned words only). */
rl::var<uint64_t> *word_at(const volatile void *p, size_t size,
			   const rl::debug_info &info)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.data;

	if ((off & 7) || size != 8 || off + 8 > g_lay.data_size) {
		fail("unmodelled data-area access (not a whole word)", info);
		return nullptr;
	}
	return &g_test->word[off / 8];
}

/* SNAP: the data-area word at p as a relaxed atomic, or nullptr when the
 * case keeps the data area plain (race-checked). */
rl::atomic<uint64_t> *aword_at(const volatile void *p, size_t size,
			       const rl::debug_info &info)
{
	if (g_cfg.scenario != PFR_MODEL_SNAP || !word_at(p, size, info))
		return nullptr;
	return &g_test->aword[((uintptr_t)p - (uintptr_t)g_lay.data) / 8];
}

/* In band: the data word's atomic shadow (word_at() has checked p). */
rl::atomic<uint64_t> *shadow_at(const volatile void *p)
{
	return &g_test->aword[((uintptr_t)p - (uintptr_t)g_lay.data) / 8];
}

bool inband_case()
{
	return g_cfg.scenario == PFR_MODEL_INBAND;
}

rl::memory_order order(int mo, const char *func)
{
	if (mutated(func))
		return rl::
			mo_relaxed; /* the mutant: acquire/release weakened */
	switch (mo) {
	case PFR_MODEL_ACQUIRE:
		return rl::mo_acquire;
	case PFR_MODEL_RELEASE:
		return rl::mo_release;
	default:
		return rl::mo_relaxed;
	}
}

/* ATTACH: the creator's (thread 0's) plain stores to the control block
 * since its last hooked operation, as relaxed stores of each modelled
 * field whose real memory differs from what the model last stored (in
 * field order; they are plain stores of one thread before the hooked
 * operation, so any order is one the compiler may choose). */
void flush_plain(const rl::debug_info &info)
{
	const unsigned char *ctl = (const unsigned char *)g_lay.ctl;

	if (g_cfg.scenario != PFR_MODEL_ATTACH || !g_test ||
	    rl::thread_index() != 0)
		return;
	for (size_t i = 0; i < g_nslots; i++) {
		uint64_t v = 0;

		std::memcpy(&v, ctl + g_slots[i].off, g_slots[i].size);
		if (v != g_known[i]) {
			g_test->field[i].store(v, rl::mo_relaxed, info);
			g_known[i] = v;
		}
	}
}

uint64_t plain_load(const volatile void *p, size_t size)
{
	uint64_t v = 0;

	switch (size) {
	case 1:
		v = *(const volatile uint8_t *)p;
		break;
	case 2:
		v = *(const volatile uint16_t *)p;
		break;
	case 4:
		v = *(const volatile uint32_t *)p;
		break;
	default:
		v = *(const volatile uint64_t *)p;
		break;
	}
	return v;
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

} /* namespace */

extern "C" uint64_t pfr_model_load(const volatile void *p, size_t size, int mo,
				   PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	flush_plain(info);
	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);

		/* purpose: the ring's READ_ONCE (relaxed) or load_acquire,
		 * with the memory order its code asked for (pairs with the
		 * partner the calling function names) */
		return a ? a->load(order(mo, func), info) : 0;
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		rl::atomic<uint64_t> *aw = aword_at(p, size, info);
		rl::var<uint64_t> *w;

		if (aw)
			return aw->load(rl::mo_relaxed, info);
		w = word_at(p, size, info);
		/* purpose: an in-band header's load_acquire (Ci), with the
		 * order the code asked for; pairs with Bi's release below */
		if (w && inband_case() && mo == PFR_MODEL_ACQUIRE)
			return shadow_at(p)->load(order(mo, func), info);
		/* a record byte: a plain access, race-checked */
		return w ? (uint64_t)(*w)(info) : 0;
	}
	return plain_load(p, size);
}

extern "C" void pfr_model_store(volatile void *p, size_t size, uint64_t v,
				int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);

	flush_plain(info);
	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);

		if (size < 8)
			v &= (1ull << (8 * size)) - 1;
		if (a) {
			a->store(v, order(mo, func), info);
			g_known[a - g_test->field] = v;
		}
		plain_store(p, size, v); /* for plain readers (none yet) */
		return;
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		rl::atomic<uint64_t> *aw = aword_at(p, size, info);
		rl::var<uint64_t> *w;

		if (aw) {
			aw->store(v, rl::mo_relaxed, info);
			return;
		}
		w = word_at(p, size, info);
		if (w)
			(*w)(info) = v;
		/* purpose: in band, the marked store (Bi's store_release,
		 * the zero's WRITE_ONCE) on the atomic shadow too, after
		 * the rl::var; pairs with Ci's acquire load above */
		if (w && inband_case())
			shadow_at(p)->store(v, order(mo, func), info);
		return; /* the real data area keeps its poison */
	}
	plain_store(p, size, v);
}

extern "C" void pfr_model_fence(int kind, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::memory_order mo = rl::mo_seq_cst;

	flush_plain(info);
	if (mutated(func))
		return; /* the mutant: the barrier removed */
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

	if (!d && !s)
		return std::memcpy(dst, src, n);
	if ((d && s) || (n & 7)) {
		fail("unmodelled memcpy on the data area", info);
		return dst;
	}
	for (size_t k = 0; k < n; k += 8) {
		unsigned char *dk = (unsigned char *)dst + k;
		const unsigned char *sk = (const unsigned char *)src + k;
		rl::atomic<uint64_t> *aw = aword_at(d ? dk : sk, 8, info);

		if (aw && d) {
			uint64_t v;

			std::memcpy(&v, sk, 8);
			aw->store(v, rl::mo_relaxed, info);
			continue;
		}
		if (aw) {
			uint64_t v = aw->load(rl::mo_relaxed, info);

			std::memcpy(dk, &v, 8);
			continue;
		}
		if (d) {
			uint64_t v;
			rl::var<uint64_t> *w =
				word_at((unsigned char *)dst + k, 8, info);

			std::memcpy(&v, (const unsigned char *)src + k, 8);
			if (!w)
				return dst;
			(*w)(info) = v;
			/* in band: a payload word can be polled as a header
			 * next lap; its atomic shadow holds it too */
			if (inband_case())
				shadow_at((unsigned char *)dst + k)
					->store(v, rl::mo_relaxed, info);
		} else {
			rl::var<uint64_t> *w = word_at(
				(const unsigned char *)src + k, 8, info);
			uint64_t v;

			if (!w)
				return dst;
			v = (*w)(info);
			std::memcpy((unsigned char *)dst + k, &v, 8);
		}
	}
	return dst;
}

/*
 * The futex: FUTEX_WAIT compares the word and sleeps atomically with
 * respect to FUTEX_WAKE, as the kernel's hash-bucket lock makes it; the
 * model uses one rl::mutex for that and a condition variable per word.
 * There is no time-out: a waiter no one wakes sleeps forever, and Relacy
 * reports the execution as a deadlock.
 */
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
		rl::atomic<uint64_t> *a = field_at(word, 4, info);

		g_test->futex_mtx.lock(info);
		if (a && a->load(rl::mo_relaxed, info) == val) {
			g_sleeps[which]++;
			g_test->futex_cv[which].wait(g_test->futex_mtx, info);
		}
		g_test->futex_mtx.unlock(info);
	} else if (op == FUTEX_WAKE) {
		g_test->futex_mtx.lock(info);
		g_test->futex_cv[which].notify_all(info);
		g_test->futex_mtx.unlock(info);
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

/* ---- the cases ---- */

namespace
{

#define P PFR_MODEL_PROTO
#define W PFR_MODEL_WAKE
#define BOTH PFR_MODEL_BOTH
#define BOTH8 PFR_MODEL_BOTH8
#define SN PFR_MODEL_SNAP
#define AT PFR_MODEL_ATTACH
#define KE PFR_MODEL_KERNEL
#define IB PFR_MODEL_INBAND
#define MK PFR_MODEL_MARK
#define F PFR_MODEL_FULL
#define AR PFR_MODEL_ACQREL
#define CD PFR_MODEL_CTRLDEP

/* Searches: FS full search; CB context-bound search (at most `bound`
 * preemptions, every choice of values and schedules within it). */
#define FS rl::sched_full, 0
#define CB(n) rl::sched_bound, n

const model_case cases[] = {
	/* The ring as written: A-D with the library's 256 spins (the BLOCK
	 * writer finds space while spinning).  Full search, but for FULL,
	 * whose fences make the full search too long for make check. */
	{"proto-full", P, F, nullptr, PASS, "FULL: A-D", 256, CB(5)},
	{"proto-acqrel", P, AR, nullptr, PASS, "ACQREL: A-D", 256, CB(5),
	 nullptr, true},
	{"proto-ctrldep", P, CD, nullptr, PASS, "CTRLDEP: A-D", 256, CB(5),
	 nullptr, true},
	/* A-D again with one spin: the BLOCK writer sleeps and the reader's
	 * pfr_reader_end() wakes it. */
	{"block-full", P, F, nullptr, PASS,
	 "FULL: A-D and the BLOCK writer's sleep", 1, CB(4)},
	{"block-acqrel", P, AR, nullptr, PASS,
	 "ACQREL: A-D and the BLOCK writer's sleep", 1, CB(4)},
	{"block-ctrldep", P, CD, nullptr, PASS,
	 "CTRLDEP: A-D and the BLOCK writer's sleep", 1, CB(4)},
	/* The reader's sleep in pfr_reader_wait(). */
	{"wake-full", W, F, nullptr, PASS, "FULL: reader wake-up", 256, CB(3)},
	{"wake-acqrel", W, AR, nullptr, PASS, "ACQREL: reader wake-up", 256,
	 CB(3)},
	{"wake-ctrldep", W, CD, nullptr, PASS, "CTRLDEP: reader wake-up", 256,
	 CB(3)},

	/* Both sides asleep: the BLOCK writer's kick of a reader waiting
	 * below an unreachable threshold. */
	{"both-full", BOTH, F, nullptr, PASS,
	 "FULL: BLOCK writer and reader both asleep", 1, CB(2)},
	{"both-acqrel", BOTH, AR, nullptr, PASS,
	 "ACQREL: BLOCK writer and reader both asleep", 1, CB(2)},
	{"both-ctrldep", BOTH, CD, nullptr, PASS,
	 "CTRLDEP: BLOCK writer and reader both asleep", 1, CB(2)},
	/* BOTH with a header-only last record: 8 bytes past the tail, which
	 * only the flush can deliver */
	{"both8-acqrel", BOTH8, AR, nullptr, PASS,
	 "ACQREL: both asleep, flush of an 8-byte record", 1, CB(2)},

	/* The flight recorder: snapshots while the writer overwrites. */
	{"snap-acqrel", SN, AR, nullptr, PASS,
	 "ACQREL OVERWRITE: snapshots (whole ring, one record) while the "
	 "writer overwrites",
	 256, CB(3)},
	{"snap-full", SN, F, nullptr, PASS,
	 "FULL OVERWRITE: snapshots while the writer overwrites", 256, CB(3)},

	/* Creation and attachment at the same time. */
	{"attach", AT, CD, nullptr, PASS,
	 "a process attaches (pfr__ring_map) while another creates the "
	 "ring (pfr__ring_new): refused or complete, never half-created",
	 256, FS},

	/* The kernel's overwrite ring, read by src/perf/perf.c. */
	{"kernel-snap", KE, AR, nullptr, PASS,
	 "a kernel-style writer publishes records backward (smp_wmb, "
	 "data_head) while pfr_perf_ring_snapshot() reads the ring",
	 256, FS},

	/* In band (PFR_RING_INBAND, ACQREL, BLOCK): the reader polls the
	 * header at its tail; the writer zeroes the next header's word and
	 * commits the header with a release.  The fourth record's zero
	 * lands on the first record's header (A with D), one spin so the
	 * writer also sleeps. */
	/* The BLOCK writer's mark capped at its head (a record boundary
	 * the reader reaches exactly) and a reader whose stride is above
	 * its records: the wake-up at tail == mark, and the fenced check
	 * at head, are the only ones that can wake the writer. */
	{"mark-full", MK, F, nullptr, PASS,
	 "FULL: BLOCK wake-up at a mark capped at head, stride the ring", 1,
	 CB(3)},
	{"mark-acqrel", MK, AR, nullptr, PASS,
	 "ACQREL: BLOCK wake-up at a mark capped at head, stride the ring",
	 1, CB(3)},
	{"mark-no-reader-mb", MK, AR, "pfr_reader_end", LOST_WAKEUP,
	 "reader's smp_mb() dropped at a mark capped at head", 1, CB(3)},
	{"inband-acqrel", IB, AR, nullptr, PASS,
	 "ACQREL in band: Bi, Ci, the zero word, A-D", 256, CB(3)},
	{"inband-block", IB, AR, nullptr, PASS,
	 "ACQREL in band and the BLOCK writer's sleep", 1, CB(3)},
	{"inband-relaxed-Bi", IB, AR, "pfr__inband_commit", RACE_OR_VALUE,
	 "in band with Bi's store_release(header) relaxed", 256, CB(3)},
	{"inband-relaxed-Ci", IB, AR, "pfr__begin_inband", RACE_OR_VALUE,
	 "in band with Ci's load_acquire(header) relaxed", 256, CB(3)},
	{"inband-relaxed-A", IB, AR, "pfr__space", RACE_OR_VALUE,
	 "in band with A's load_acquire(tail) relaxed", 256, CB(3)},
	{"inband-relaxed-D", IB, AR, "pfr__end", RACE_OR_VALUE,
	 "in band with D's store_release(tail) relaxed", 256, CB(3)},

	/* Mutants of A-D: each must be caught. */
	{"full-no-A", P, F, "pfr__space", RACE_OR_VALUE,
	 "FULL without A (smp_mb after loading tail)", 256, CB(5)},
	{"full-no-B", P, F, "pfr__publish", RACE_OR_VALUE,
	 "FULL without B (smp_wmb before storing head)", 256, CB(5)},
	{"full-no-C", P, F, "pfr__begin", RACE_OR_VALUE,
	 "FULL without C (smp_rmb after loading head)", 256, CB(5)},
	{"full-no-D", P, F, "pfr__end", RACE_OR_VALUE,
	 "FULL without D (smp_mb before storing tail)", 256, CB(5)},
	{"acqrel-relaxed-A", P, AR, "pfr__space", RACE_OR_VALUE,
	 "ACQREL with A's load_acquire(tail) relaxed", 256, CB(5)},
	{"acqrel-relaxed-B", P, AR, "pfr__publish", RACE_OR_VALUE,
	 "ACQREL with B's store_release(head) relaxed", 256, CB(5)},
	{"acqrel-relaxed-C", P, AR, "pfr__begin", RACE_OR_VALUE,
	 "ACQREL with C's load_acquire(head) relaxed", 256, CB(5)},
	{"acqrel-relaxed-D", P, AR, "pfr__end", RACE_OR_VALUE,
	 "ACQREL with D's store_release(tail) relaxed", 256, CB(5)},
	{"ctrldep-relaxed-A", P, CD, "pfr__space", RACE_OR_VALUE,
	 "CTRLDEP with A's load_acquire(tail) relaxed: the bare control "
	 "dependency of the kernel's perf_output_begin()",
	 256, CB(5)},
	{"ctrldep-no-B", P, CD, "pfr__publish", RACE_OR_VALUE,
	 "CTRLDEP without B (smp_wmb before storing head)", 256, CB(5)},
	{"ctrldep-relaxed-C", P, CD, "pfr__begin", RACE_OR_VALUE,
	 "CTRLDEP with C's load_acquire(head) relaxed", 256, CB(5)},
	{"ctrldep-relaxed-D", P, CD, "pfr__end", RACE_OR_VALUE,
	 "CTRLDEP with D's store_release(tail) relaxed", 256, CB(5)},

	/* Mutants of the two hand-shakes: a lost wake-up must be found. */
	{"wake-no-reader-mb", W, AR, "pfr_reader_wait", LOST_WAKEUP,
	 "reader wake-up without smp_mb in pfr_reader_wait", 256, CB(3)},
	{"wake-no-writer-mb", W, AR, "pfr_writer_publish", LOST_WAKEUP,
	 "reader wake-up without smp_mb in pfr_writer_publish", 256, CB(3)},
	{"block-no-writer-mb", P, AR, "pfr__writer_block", LOST_WAKEUP,
	 "BLOCK writer wake-up without smp_mb in pfr__writer_block", 1, CB(4)},
	{"block-no-reader-mb", P, AR, "pfr_reader_end", LOST_WAKEUP,
	 "BLOCK writer wake-up without smp_mb in pfr_reader_end", 1, CB(4)},
	{"both-no-kick-mb", BOTH, AR, "pfr__kick_reader", LOST_WAKEUP,
	 "flush/kick wake-up without smp_mb in pfr__kick_reader", 1, CB(2)},
	{"both-no-reader-mb", BOTH, AR, "pfr_reader_wait", LOST_WAKEUP,
	 "flush/kick wake-up without smp_mb in pfr_reader_wait", 1, CB(2)},

	/* Mutants of the snapshot's seqlock: a torn or stale record must
	 * be returned, or a correct ring reported damaged. */
	{"snap-no-overwrite-wmb", SN, AR, "pfr__overwrite_room", RACE_OR_VALUE,
	 "OVERWRITE without smp_wmb after storing oldest", 256, CB(3)},
	{"snap-relaxed-snapshot", SN, AR, "pfr_ring_snapshot", RACE_OR_VALUE,
	 "snapshot with head loaded relaxed and no smp_rmb before oldest", 256,
	 CB(3)},

	{"kernel-snap-relaxed", KE, AR, "pfr__perf_ring_snapshot_v03",
	 RACE_OR_VALUE,
	 "perf.c's snapshot with its load of data_head relaxed (C)", 256, FS},

	/* Mutants of creation's publication. */
	{"attach-no-create-wmb", AT, CD, "pfr__ring_new", RACE_OR_VALUE,
	 "creation without smp_wmb before the magic", 256, FS},
	{"attach-no-peek-rmb", AT, CD, "pfr__shm_peek", RACE_OR_VALUE,
	 "attachment without smp_rmb after the magic", 256, FS},
};

#undef FS
#undef CB
#undef P
#undef W
#undef BOTH
#undef BOTH8
#undef SN
#undef AT
#undef KE
#undef IB
#undef MK
#undef F
#undef AR
#undef CD

/*
 * Relacy's report goes to a fixed buffer: Relacy replaces operator new
 * while it simulates, so a growing std::ostringstream would allocate
 * from one iteration's heap and free into another.
 */
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
	int search = -1; /* -1: each case's own */
	unsigned long iterations = 0; /* random search; 0: 100000 */
	unsigned bound = 0; /* 0: each case's own */
	unsigned more = 0; /* added to every context bound */
	bool long_run = false; /* -L: full search where a case allows it */
	bool verbose = false;
	unsigned records = 0; /* 0: the case's default */
};

void set_cfg(int scenario, int ordering, unsigned records)
{
	g_cfg.scenario = scenario;
	g_cfg.ordering = ordering;
	if (scenario == PFR_MODEL_PROTO) {
		/* 64-byte ring, 24-byte records (16-byte payload): the
		 * third record wraps (a PAD record first) and reuses the
		 * bytes of the first, so A-D are all exercised. */
		g_cfg.data_size = 64;
		g_cfg.records = 3;
		g_cfg.payload = 16;
	} else if (scenario == PFR_MODEL_BOTH ||
		   scenario == PFR_MODEL_BOTH8) {
		/* 16-byte records: four fill the ring, so the writer sleeps
		 * for space before the fifth; the reader's byte threshold
		 * (capped by the library at half the ring, 32 bytes) is
		 * met by two records but not by the fifth alone, which
		 * only pfr_writer_flush() can deliver. */
		g_cfg.data_size = 64;
		g_cfg.records = 5;
		g_cfg.payload = 8;
	} else if (scenario == PFR_MODEL_ATTACH) {
		/* no records: the ring's options are model_ring.c's */
		g_cfg.data_size = 4096;
		g_cfg.records = 0;
		g_cfg.payload = 8;
	} else if (scenario == PFR_MODEL_KERNEL) {
		/* three 16-byte records, backward: 48 of the 64 bytes */
		g_cfg.data_size = 64;
		g_cfg.records = 3;
		g_cfg.payload = 8;
	} else if (scenario == PFR_MODEL_SNAP) {
		/* records of 16 and 24 bytes in turn (model_ring.c):
		 * 16+24+16 bytes, then the fourth (after an 8-byte PAD)
		 * overwrites the first and the head of the second, its
		 * payload where the second's header was; the fifth the
		 * rest of the second */
		g_cfg.data_size = 64;
		g_cfg.records = 5;
		g_cfg.payload = 16;
	} else if (scenario == PFR_MODEL_MARK) {
		/* 128-byte ring, records of 24, 56, 56 bytes: the third
		 * (at 80) needs a PAD of 48, 104 bytes, so the writer waits
		 * for tail 56 with its mark capped at its head, 80, where
		 * the second record ends */
		g_cfg.data_size = 128;
		g_cfg.records = 3;
		g_cfg.payload = 48;
	} else if (scenario == PFR_MODEL_INBAND) {
		/* 16-byte records in a 64-byte ring: in band the word after
		 * the last record is kept zero, so three fill it, and the
		 * fourth's zero word is the first record's header (offset
		 * 0, free only once the reader has published its tail). */
		g_cfg.data_size = 64;
		g_cfg.records = 4;
		g_cfg.payload = 8;
	} else {
		g_cfg.data_size = 64;
		g_cfg.records = 2;
		g_cfg.payload = 8;
	}
	if (records)
		g_cfg.records = records;
}

double now_s()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *search_name(rl::scheduler_type_e s)
{
	return s == rl::sched_full     ? "full"
	       : s == rl::sched_random ? "random"
				       : "bound";
}

/* The line of Relacy's report that names the failure, preferably the
 * history line that also says where (", in function, file(line)"). */
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

/* Learns the control-block fields (g_slots) by running both scenarios
 * with a random search until a run meets no new field.  History is
 * collected from the start, so Relacy does not replay a failing
 * iteration (the replay would meet the field as known). */
bool discover(void)
{
	static const int scen[] = {PFR_MODEL_PROTO,  PFR_MODEL_INBAND,
				   PFR_MODEL_WAKE,   PFR_MODEL_BOTH,
				   PFR_MODEL_SNAP,   PFR_MODEL_ATTACH,
				   PFR_MODEL_KERNEL, PFR_MODEL_MARK,
				   PFR_MODEL_BOTH8};

	g_discovering = true;
	/* one spin: the BLOCK writer reaches its sleep (and the fields only
	 * its wait and the reader's wake-up touch) in a short search */
	pfr_model_block_spins = 1;
	for (int sc : scen) {
		for (int round = 0; round <= MAX_FIELDS; round++) {
			rl::test_params p;
			std::ostream out(&g_report);

			g_report.clear();
			set_cfg(sc, PFR_MODEL_ACQREL, 0);
			/* ATTACH: the attacher reads line 0 only in the
			 * executions where it finds the magic, which a random
			 * search may never schedule (the fields it reads then
			 * go unlearnt when no other scenario reads them, and
			 * the case fails on them): a full search, as the
			 * attach cases run, meets every one of them */
			p.search_type = sc == PFR_MODEL_ATTACH
						? rl::sched_full
						: rl::sched_random;
			p.iteration_count = 2000;
			p.execution_depth_limit = 100000;
			p.collect_history = true;
			p.output_stream = &out;
			p.progress_stream = &out;
			g_discovered = false;
			rl::simulate<ring_test>(p);
			if (!g_discovered) {
				if (p.test_result != rl::test_result_success)
					std::printf(
						"# discovery run failed (the "
						"case will tell): %s\n",
						failure_line(g_report.str())
							.c_str());
				break;
			}
		}
	}
	g_discovering = false;
	std::printf("# %zu control-block fields modelled:", g_nslots);
	for (size_t i = 0; i < g_nslots; i++)
		std::printf(" %zu/%zu", g_slots[i].off, g_slots[i].size);
	std::printf(" (offset/size)\n");
	return g_nslots > 0;
}

bool run_case(const model_case &c, unsigned num, const options &o)
{
	rl::test_params p;
	std::ostream out(&g_report);
	double t0 = now_s(), dt;
	bool ok;

	g_case = &c;
	set_cfg(c.scenario, c.ordering, o.records);
	p.search_type =
		o.search >= 0 ? (rl::scheduler_type_e)o.search : c.search;
	p.iteration_count = o.iterations ? o.iterations : 100000;
	p.context_bound = (o.bound ? o.bound : c.bound) + o.more;
	if (o.long_run && c.full_in_long && o.search < 0)
		p.search_type = rl::sched_full;
	p.execution_depth_limit = 100000;
	pfr_model_block_spins = c.spins;
	p.output_stream = &out;
	p.progress_stream = &out;
	g_report.clear();
	g_sleeps[0] = g_sleeps[1] = 0;
	ok = rl::simulate<ring_test>(p);
	dt = now_s() - t0;
	g_case = nullptr;

	bool pass;
	std::string how = rl::test_result_str(p.test_result);

	if (c.want == PASS)
		pass = ok;
	else if (c.want == LOST_WAKEUP)
		pass = p.test_result == rl::test_result_deadlock ||
		       p.test_result == rl::test_result_livelock;
	else
		pass = p.test_result == rl::test_result_data_race ||
		       p.test_result == rl::test_result_user_assert_failed;
	std::printf("%s %u - %s: %s", pass ? "ok" : "not ok", num, c.name,
		    c.what);
	char search[64];

	if (p.search_type == rl::sched_bound)
		std::snprintf(search, sizeof(search), "context bound %u",
			      p.context_bound);
	else
		std::snprintf(search, sizeof(search), "%s search",
			      search_name(p.search_type));
	if (c.want == PASS)
		std::printf(" (%s, %llu iterations, %u spins, %.1f s)%s",
			    search, (unsigned long long)p.stop_iteration,
			    c.spins, dt, ok ? "" : " FAILED");
	else
		std::printf(" -> caught: %s at iteration %llu (%s, %u spins, "
			    "%.2f s)",
			    ok ? "nothing (passed)" : how.c_str(),
			    (unsigned long long)p.stop_iteration, search,
			    c.spins, dt);
	if (c.todo)
		std::printf(" # TODO %s", c.todo);
	std::printf("\n");
	std::printf("# futex sleeps: reader %lu, writer %lu\n", g_sleeps[0],
		    g_sleeps[1]);
	/* a mutant of the model's own no longer caught: the model is broken
	 * (it can no longer see what the mutant was made to show) */
	if (c.want != PASS && ok)
		std::printf("# BROKEN MODEL: %s, the model's own mutant of %s, "
			    "is no longer caught: the model can no longer see "
			    "what it was made to show (the code under it "
			    "changed; make the case or the mutant again)\n",
			    c.name, c.mutant_fn);
	if (!ok) {
		std::string l = failure_line(g_report.str());

		if (!l.empty())
			std::printf("# %s\n", l.c_str());
	}
	if (o.verbose || (!pass && !c.todo)) {
		std::istringstream in(g_report.str());
		std::string line;

		while (std::getline(in, line))
			std::printf("# %s\n", line.c_str());
	}
	std::fflush(stdout);
	return pass || c.todo;
}

} /* namespace */

int main(int argc, char **argv)
{
	options o;
	std::vector<const model_case *> todo;
	int fails = 0;
	unsigned num = 0;

	pfr_model_layout(&g_lay);
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
		} else if (a == "-L") {
			o.long_run = true;
		} else if (a == "-x" && i + 1 < argc) {
			o.more = (unsigned)std::strtoul(argv[++i], nullptr, 0);
		} else if (a == "-i" && i + 1 < argc) {
			o.iterations = std::strtoul(argv[++i], nullptr, 0);
		} else if (a == "-r" && i + 1 < argc) {
			o.records =
				(unsigned)std::strtoul(argv[++i], nullptr, 0);
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
	if (!discover()) {
		std::printf("1..0 # SKIP discovery found no field\n");
		return 1;
	}
	std::printf("1..%zu\n", todo.size());
	for (const model_case *c : todo)
		if (!run_case(*c, ++num, o))
			fails++;
	return fails ? 1 : 0;
}
