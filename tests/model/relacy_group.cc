/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy_group.cc - model checking of a group's slot claim,
 * leave and reclaim (src/writers/group.c) with Relacy (C++11 memory model, data
 * races on plain memory).
 *
 * One slot, with the orderings of src/writers/group.c:
 *
 *   J  joiner: CAS of the state word FREE -> CLAIMING, acq_rel
 *   P  joiner: store of ACTIVE, release (after the ring reset, identity)
 *   L  leaver: store of CLOSING, release (after the last head, B)
 *   S  reader: load of the state word, acquire
 *   F  reader: store of FREE after draining (release), or, for a dead
 *      owner, CAS ACTIVE -> FREE (release)
 *   B/C the ring's own head store (release) and load (acquire)
 *
 * The slot's ring bytes (reset value, one record) and the owner identity
 * are rl::var: plain memory, every unordered pair of accesses a data race.
 * The model is the protocol, written again here in C++ with the same
 * memory orders (group.c's claim needs /proc, mmap and syscalls the model
 * checker cannot run); a mutant weakens one of J, P, L, S, F to relaxed
 * and must be caught (a data race, or a failed assertion: the reader sees
 * a stale owner, a stale head, or a record of the wrong owner).
 *
 * Scenarios: "claim": 2 or 3 joiners take the slot in turn (each joins,
 * publishes one record and leaves; the reader drains and frees it); "dead":
 * one owner publishes a record and dies without leaving (its death, which
 * the reader learns from /proc, is an acquire of a flag the dying thread
 * released: the kernel's exit orders its stores), the reader drains and
 * reclaims the slot, and a second joiner takes it.
 *
 * TAP output, one line per case.  Usage: relacy_group [-v] [-i N] [CASE...]
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

/* Last: it redefines new, malloc, assert and the memory_order names. */
#include <relacy/relacy.hpp>

namespace
{

enum { S_FREE = 0, S_CLAIMING = 1, S_ACTIVE = 2, S_CLOSING = 3 };

/* the word: state | owner << 8 */
inline uint64_t mk(unsigned st, unsigned owner)
{
	return st | (uint64_t)owner << 8;
}

enum mutant {
	NONE,
	J_RELAXED,
	P_RELAXED,
	L_RELAXED,
	S_RELAXED,
	F_RELAXED,
	RECLAIM_RELAXED
};
enum scenario { CLAIM, DEAD };

struct model_case {
	const char *name;
	scenario sc;
	unsigned joiners;
	mutant mut;
	bool want_pass;
	const char *what;
	rl::scheduler_type_e search;
	unsigned bound;
};

const model_case *g_case;

rl::memory_order mo(mutant m, rl::memory_order normal)
{
	return g_case->mut == m ? rl::mo_relaxed : normal;
}

/* Threads: 0 is the reader, 1..joiners the joiners. */
template <unsigned N> struct group_test : rl::test_suite<group_test<N>, N> {
	rl::atomic<uint64_t> word; /* the slot's state word */
	rl::atomic<uint64_t> head; /* the slot ring's head */
	rl::atomic<int> dead; /* DEAD: the owner's exit, seen via /proc */
	rl::var<int> ident; /* the owner identity (pid, start time, tag) */
	rl::var<int> rec; /* the ring's record bytes */
	rl::atomic<int> freed; /* slots freed (reader) */

	void before()
	{
		word.store(mk(S_FREE, 0), rl::mo_relaxed, $);
		head.store(0, rl::mo_relaxed, $);
		dead.store(0, rl::mo_relaxed, $);
		freed.store(0, rl::mo_relaxed, $);
		ident($) = 0;
		rec($) = 0;
	}

	/* pfr_group_join(): returns once the slot is taken, or false after
	 * a few tries (the slot stayed taken). */
	bool join(unsigned me)
	{
		for (int tries = 0; tries < 4; tries++) {
			uint64_t old = word.load(rl::mo_relaxed, $);

			if ((old & 0xff) != S_FREE) {
				rl::yield(1, $);
				continue;
			}
			/* J */
			if (!word.compare_exchange_strong(
				    old, mk(S_CLAIMING, me),
				    mo(J_RELAXED, rl::mo_acq_rel), $))
				continue;
			/* the ring reset and the identity (plain) */
			rec($) = 0;
			ident($) = (int)me;
			head.store(0, rl::mo_relaxed, $);
			/* P */
			word.store(mk(S_ACTIVE, me),
				   mo(P_RELAXED, rl::mo_release), $);
			return true;
		}
		return false;
	}

	/* a record, published (B) */
	void write(unsigned me)
	{
		rec($) = (int)(10 * me);
		head.store(1, rl::mo_release, $);
	}

	/* pfr_group_leave() */
	void leave(unsigned me)
	{
		/* L */
		word.store(mk(S_CLOSING, me), mo(L_RELAXED, rl::mo_release), $);
	}

	/* One pass of pfr_group_drain() over the slot. */
	void drain()
	{
		/* S */
		uint64_t w = word.load(mo(S_RELAXED, rl::mo_acquire), $);
		unsigned st = (unsigned)(w & 0xff), owner = (unsigned)(w >> 8);
		bool is_dead = false;

		if (st != S_ACTIVE && st != S_CLOSING)
			return;
		/* pfr__open_slot(): the identity published with P */
		RL_ASSERT(ident($) == (int)owner);
		if (st == S_ACTIVE && g_case->sc == DEAD)
			is_dead = dead.load(rl::mo_acquire, $) == 1;
		/* C */
		uint64_t h = head.load(rl::mo_acquire, $);

		if (h == 1)
			RL_ASSERT(rec($) == (int)(10 * owner));
		if (st == S_CLOSING) {
			/* L made the last head visible with CLOSING */
			RL_ASSERT(h == 1);
			/* F */
			word.store(mk(S_FREE, 0), mo(F_RELAXED, rl::mo_release),
				   $);
			freed.fetch_add(1, rl::mo_relaxed, $);
		} else if (is_dead) {
			uint64_t expect = w;

			/* F, for a dead owner: a CAS */
			if (word.compare_exchange_strong(
				    expect, mk(S_FREE, 0),
				    mo(RECLAIM_RELAXED, rl::mo_release), $))
				freed.fetch_add(1, rl::mo_relaxed, $);
		}
	}

	void thread(unsigned idx)
	{
		if (idx == 0) {
			for (int pass = 0; pass < 2 * (int)N; pass++) {
				drain();
				if (freed.load(rl::mo_relaxed, $) == (int)N - 1)
					break;
				rl::yield(1, $);
			}
			return;
		}
		if (!join(idx))
			return;
		write(idx);
		if (g_case->sc == DEAD && idx == 1) {
			/* dies without leaving */
			dead.store(1, rl::mo_release, $);
			return;
		}
		leave(idx);
	}
};

const model_case g_cases[] = {
	{"claim-2", CLAIM, 2, NONE, true,
	 "2 joiners take the slot in turn: no race, right owner and record",
	 rl::sched_bound, 3},
	{"claim-3", CLAIM, 3, NONE, true,
	 "3 joiners take the slot in turn (random search)", rl::sched_random,
	 0},
	{"dead-2", DEAD, 2, NONE, true,
	 "an owner dies; the reader drains and reclaims; a joiner takes it",
	 rl::sched_bound, 3},
	{"claim-J-relaxed", CLAIM, 2, J_RELAXED, false,
	 "J (claim CAS) relaxed: the reset races the reader", rl::sched_bound,
	 3},
	{"claim-P-relaxed", CLAIM, 2, P_RELAXED, false,
	 "P (ACTIVE store) relaxed: stale identity or ring", rl::sched_bound,
	 3},
	{"claim-L-relaxed", CLAIM, 2, L_RELAXED, false,
	 "L (CLOSING store) relaxed: CLOSING with an old head", rl::sched_bound,
	 3},
	{"claim-S-relaxed", CLAIM, 2, S_RELAXED, false,
	 "S (state load) relaxed: stale identity or ring", rl::sched_bound, 3},
	{"claim-F-relaxed", CLAIM, 2, F_RELAXED, false,
	 "F (FREE store) relaxed: the next reset races the reader",
	 rl::sched_bound, 3},
	{"dead-F-relaxed", DEAD, 2, RECLAIM_RELAXED, false,
	 "F (reclaim CAS) relaxed: the next reset races the reader",
	 rl::sched_bound, 3},
	{"dead-J-relaxed", DEAD, 2, J_RELAXED, false,
	 "J relaxed after a reclaim: the reset races the reader",
	 rl::sched_bound, 3},
};

/* Relacy's report to a fixed buffer (it replaces operator new while it
 * simulates: a growing string would allocate across iterations). */
class report_buf : public std::streambuf
{
	char buf_[1 << 16];
	size_t len_ = 0;

      protected:
	int_type overflow(int_type ch) override
	{
		if (ch != traits_type::eof() && len_ < sizeof(buf_) - 1)
			buf_[len_++] = (char)ch;
		return ch;
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

template <unsigned N> bool simulate(rl::test_params &p)
{
	return rl::simulate<group_test<N>>(p);
}

bool run_case(const model_case &c, unsigned num, unsigned long iters,
	      bool verbose)
{
	rl::test_params p;
	std::ostream out(&g_report);
	bool ok, pass;

	g_case = &c;
	p.search_type = c.search;
	p.iteration_count = iters;
	p.context_bound = c.bound;
	p.execution_depth_limit = 20000;
	p.output_stream = &out;
	p.progress_stream = &out;
	g_report.clear();
	ok = c.joiners == 3 ? simulate<4>(p) : simulate<3>(p);
	pass = c.want_pass
		       ? ok
		       : (p.test_result == rl::test_result_data_race ||
			  p.test_result == rl::test_result_user_assert_failed);
	std::printf("%s %u - %s: %s", pass ? "ok" : "not ok", num, c.name,
		    c.what);
	if (c.want_pass)
		std::printf(" (%llu iterations)%s",
			    (unsigned long long)p.stop_iteration,
			    ok ? "" : " FAILED");
	else
		std::printf(" -> caught: %s at iteration %llu",
			    ok ? "nothing (passed)"
			       : rl::test_result_str(p.test_result),
			    (unsigned long long)p.stop_iteration);
	std::printf("\n");
	if (verbose || !pass) {
		std::string r = g_report.str();
		size_t at = 0;

		for (int lines = 0; at < r.size() && lines < 40; lines++) {
			size_t nl = r.find('\n', at);

			if (nl == std::string::npos)
				nl = r.size();
			std::printf("# %s\n", r.substr(at, nl - at).c_str());
			at = nl + 1;
		}
	}
	g_case = nullptr;
	return pass;
}

} /* namespace */

int main(int argc, char **argv)
{
	unsigned long iters = 200000;
	bool verbose = false;
	unsigned n = 0, failed = 0;
	int first = 1;

	for (; first < argc && argv[first][0] == '-'; first++) {
		if (!std::strcmp(argv[first], "-v"))
			verbose = true;
		else if (!std::strcmp(argv[first], "-i") && first + 1 < argc)
			iters = std::strtoul(argv[++first], nullptr, 0);
		else {
			std::fprintf(
				stderr,
				"usage: relacy_group [-v] [-i N] [CASE...]\n");
			return 2;
		}
	}
	for (const model_case &c : g_cases) {
		bool want = first == argc;

		for (int i = first; i < argc; i++)
			want |= !std::strcmp(argv[i], c.name);
		if (!want)
			continue;
		if (!run_case(c, ++n, iters, verbose))
			failed++;
	}
	std::printf("1..%u\n", n);
	return failed ? 1 : 0;
}
