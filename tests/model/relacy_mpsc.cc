/* SPDX-License-Identifier: MIT */
/*
 * tests/model/relacy_mpsc.cc - model checking of the shared MPSC ring's
 * own code (<perfring/mpsc.h>, src/writers/mpsc.c) with Relacy: 2 and 3 producers
 * and one reader under the C++11 memory model, with data-race detection.
 *
 * The ring's code (model_mpsc.c, compiled as C against
 * relacy-mpsc-barrier.h) calls the hooks below for every marked access,
 * CAS, barrier, record copy and futex call:
 *
 *   control-block and producer-table field        rl::atomic<u64>
 *   data-area word, marked access (the headers)   rl::atomic<u64>
 *   data-area word, memcpy (the payloads)         rl::var<u64> (race-checked)
 *   barrier                                       rl fence
 *   futex wait/wake                               rl::mutex + condition
 *
 * A record's header is loaded and stored only with marked accesses (the
 * reader polls a BUSY header while its producer commits it) and its
 * payload only with memcpy; the 16-byte records of a 64-byte ring keep
 * every word in one role across laps, so payload reuse (A with D) and
 * publication (R with C1, B with C2) are both race-checked.
 *
 * Mutants are made by the hooks from the calling function's name: while
 * a named function runs, its fences are dropped and its acquire, release
 * and CAS orderings become relaxed.  Each ordering point lives in its own
 * function (pfr__mpsc_publish R, pfr__mpsc_load_cons A, pfr__mpsc_finish
 * B, pfr_mpsc_begin C1, pfr__mpsc_load_hdr C2, pfr_mpsc_end D, the lock's
 * CAS and release, the two hand-shakes), so a mutant is one barrier.
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

enum expect { PASS, RACE_OR_VALUE, LOST_WAKEUP };

struct model_case {
	const char *name;
	int scenario;
	unsigned producers, records, spins;
	const char *mutant_fns; /* "a|b": functions mutated; nullptr: none */
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

struct shadows {
	rl::atomic<uint64_t> field[MAX_FIELDS];
	rl::atomic<uint64_t> hword[WORDS];
	rl::var<uint64_t> word[WORDS];
	rl::mutex futex_mtx;
	rl::condition_variable futex_cv[2];
};
shadows *g_sh;

template <unsigned N> struct mpsc_test : rl::test_suite<mpsc_test<N>, N + 1> {
	shadows sh;

	void before()
	{
		const unsigned char *ctl = (const unsigned char *)g_lay.ctl;

		g_sh = &sh;
		pfr_model_mpsc_setup(&g_cfg);
		for (size_t i = 0; i < g_nfields; i++) {
			uint64_t v = 0;

			std::memcpy(&v, ctl + g_fields[i].off,
				    g_fields[i].size);
			sh.field[i].store(v, rl::mo_relaxed, $);
		}
		for (unsigned i = 0; i < WORDS; i++) {
			sh.hword[i].store(0, rl::mo_relaxed, $);
			sh.word[i]($) = 0;
		}
		RL_ASSERT(pfr_model_mpsc_open() == 0);
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

rl::atomic<uint64_t> *field_at(const volatile void *p, size_t size,
			       const rl::debug_info &info)
{
	size_t off = (uintptr_t)p - (uintptr_t)g_lay.ctl;

	for (size_t i = 0; i < g_nfields; i++)
		if (g_fields[i].off == off && g_fields[i].size == size)
			return &g_sh->field[i];
	fail("unmodelled control-block access", info);
	return nullptr;
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

rl::memory_order order(int mo, const char *func)
{
	if (mutated(func))
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

} /* namespace */

extern "C" uint64_t pfr_model_load(const volatile void *p, size_t size, int mo,
				   PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool ok;

	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);

		/* purpose: the ring's READ_ONCE or load_acquire, with the
		 * order its code asked for (pairs as the caller names) */
		return a ? a->load(order(mo, func), info) : 0;
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		size_t i = word_index(p, size, info, &ok);

		/* purpose: a header load (marked), pairs as above */
		return ok ? g_sh->hword[i].load(order(mo, func), info) : 0;
	}
	return plain_load(p, size);
}

extern "C" void pfr_model_store(volatile void *p, size_t size, uint64_t v,
				int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	bool ok;

	if (in(p, size, g_lay.ctl, g_lay.ctl_size)) {
		rl::atomic<uint64_t> *a = field_at(p, size, info);

		if (size < 8)
			v &= (1ull << (8 * size)) - 1;
		if (a)
			a->store(v, order(mo, func), info);
		return;
	}
	if (in(p, size, g_lay.data, g_lay.data_size)) {
		size_t i = word_index(p, size, info, &ok);

		if (ok)
			g_sh->hword[i].store(v, order(mo, func), info);
		return;
	}
	plain_store(p, size, v);
}

extern "C" int pfr_model_cas(volatile void *p, uint64_t *expected, uint64_t v,
			     int mo, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::atomic<uint64_t> *a;

	if (!in(p, 8, g_lay.ctl, g_lay.ctl_size)) {
		fail("CAS outside the control block", info);
		return 0;
	}
	a = field_at(p, 8, info);
	if (!a)
		return 0;
	/* purpose: the lock's or the slot claim's CAS, with its order */
	return a->compare_exchange_strong(*expected, v, order(mo, func), info,
					  rl::mo_relaxed, info);
}

extern "C" void pfr_model_fence(int kind, PFR_MODEL_SITE_ARGS)
{
	rl::debug_info info(func, file, (unsigned)line);
	rl::memory_order mo;

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
		rl::atomic<uint64_t> *a = field_at(word, 4, info);

		g_sh->futex_mtx.lock(info);
		if (a && a->load(rl::mo_relaxed, info) == val) {
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

namespace
{

#define P PFR_MODEL_MPSC_PROTO
#define W PFR_MODEL_MPSC_WAKE
#define BU PFR_MODEL_MPSC_BURST
#define CB(n) rl::sched_bound, n
#define RS rl::sched_random, 0

const model_case cases[] = {
	/* The ring as written. */
	{"proto-2p", P, 2, 3, 256, nullptr, PASS,
	 "2 producers x 3 records, 64-byte ring: R/C1, B/C2, A/D, the lock",
	 RS},
	{"proto-3p", P, 3, 2, 256, nullptr, PASS,
	 "3 producers x 2 records: reservation order, space reuse", RS},
	{"block-2p", P, 2, 3, 1, nullptr, PASS,
	 "2 BLOCK producers sleeping for space, woken by pfr_mpsc_end", CB(1)},
	{"wake-2p", W, 2, 2, 256, nullptr, PASS,
	 "reader asleep in pfr_mpsc_wait, woken by a commit", RS},
	{"burst-2p", BU, 2, 4, 256, nullptr, PASS,
	 "2 producers x 2 bursts of 2 (pfr_mpsc_write_burst): one BUSY "
	 "header, R, then the other headers before B",
	 RS},

	/* Mutants of the orderings: each must be caught. */
	{"no-release-R", P, 2, 3, 256, "pfr__mpsc_publish", RACE_OR_VALUE,
	 "relaxed reservation: prod_pos stored without release", RS},
	{"no-acquire-C1", P, 2, 3, 256, "pfr_mpsc_begin", RACE_OR_VALUE,
	 "prod_pos loaded without acquire", RS},
	{"no-release-B", P, 2, 3, 256, "pfr__mpsc_finish", RACE_OR_VALUE,
	 "commit without release (the committed header)", RS},
	{"no-acquire-C2", P, 2, 3, 256, "pfr__mpsc_load_hdr", RACE_OR_VALUE,
	 "BUSY/committed header loaded without acquire", RS},
	{"no-acquire-A", P, 2, 3, 256, "pfr__mpsc_load_cons", RACE_OR_VALUE,
	 "cons_pos loaded without acquire before reusing space", RS},
	{"no-release-D", P, 2, 3, 256, "pfr_mpsc_end", RACE_OR_VALUE,
	 "cons_pos stored without release", RS},
	{"lock-relaxed-cas", P, 2, 3, 256, "pfr__mpsc_trylock|pfr__mpsc_lock",
	 RACE_OR_VALUE, "the lock's CAS without acquire", RS},
	{"lock-relaxed-unlock", P, 2, 3, 256, "pfr__mpsc_unlock", RACE_OR_VALUE,
	 "the lock released without release", RS},
	{"burst-no-release-R", BU, 2, 4, 256, "pfr__mpsc_publish",
	 RACE_OR_VALUE, "burst: prod_pos stored without release", RS},
	{"burst-no-release-B", BU, 2, 4, 256, "pfr__mpsc_finish", RACE_OR_VALUE,
	 "burst: the first header committed without release", RS},
	/* Mutants of the hand-shakes: a lost wake-up must be found. */
	{"wake-no-commit-mb", W, 2, 2, 256, "pfr__mpsc_commit_wake",
	 LOST_WAKEUP, "reader wake-up without smp_mb after the commit", RS},
	{"wake-no-reader-mb", W, 2, 2, 256, "pfr_mpsc_wait", LOST_WAKEUP,
	 "reader wake-up without smp_mb in pfr_mpsc_wait", RS},
	{"block-no-reader-mb", P, 2, 3, 1, "pfr__mpsc_end_wake", LOST_WAKEUP,
	 "BLOCK wake-up without smp_mb after the cons_pos store", CB(1)},
	{"block-no-writer-mb", P, 2, 3, 1, "pfr__mpsc_wait_space", LOST_WAKEUP,
	 "BLOCK wake-up without smp_mb in pfr__mpsc_wait_space", CB(1)},
};

#undef P
#undef W
#undef BU
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
	g_cfg.scenario = c.scenario;
	g_cfg.producers = c.producers;
	g_cfg.records = c.records;
	g_cfg.block_spins = c.spins;
	/* one spin: the BLOCK cases, where the producers must sleep */
	g_cfg.reader_delay = c.spins == 1 ? 16 : 0;
	p.search_type =
		o.search >= 0 ? (rl::scheduler_type_e)o.search : c.search;
	p.iteration_count = o.iterations ? o.iterations : 100000;
	p.context_bound = (o.bound ? o.bound : c.bound) + o.more;
	p.execution_depth_limit = 100000;
	p.output_stream = &out;
	p.progress_stream = &out;
	g_report.clear();
	g_sleeps[0] = g_sleeps[1] = 0;
	if (c.producers == 3)
		ok = rl::simulate<mpsc_test<3>>(p);
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
		       p.test_result == rl::test_result_user_assert_failed;
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
	if (c.want == PASS)
		std::printf(" (%s, %llu iterations, %.1f s)%s", search,
			    (unsigned long long)p.stop_iteration, dt,
			    ok ? "" : " FAILED");
	else
		std::printf(" -> caught: %s at iteration %llu (%s, %.2f s)",
			    ok ? "nothing (passed)" : how.c_str(),
			    (unsigned long long)p.stop_iteration, search, dt);
	std::printf("\n# futex sleeps: reader %lu, producers %lu\n",
		    g_sleeps[0], g_sleeps[1]);
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
		} else if (a == "-x" && i + 1 < argc) {
			o.more = (unsigned)std::strtoul(argv[++i], nullptr, 0);
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
