// SPDX-License-Identifier: MIT
/*
 * bench/spsc/peers_cxx.cc - the C++ peers behind extern "C" tables:
 * boost::lockfree::spsc_queue (Debian libboost-dev) single and batched
 * (its push/pop of an array), and atomic_queue (Debian libatomic-queue-dev)
 * SPSC: AtomicQueueB for 8-byte messages (the element is the sequence
 * number itself, NIL = ~0), AtomicQueue2 (a state byte per slot) for
 * larger ones.  One template instance per payload size, so each slot is a
 * compile-time sized message, as those libraries are meant to be used.
 */
#ifdef PFR_BENCH_HAVE_BOOST
#include <boost/lockfree/spsc_queue.hpp>
#endif

#include "../core/bench.h"
#include "../core/peers_cxx.h"

namespace
{

size_t slots_for(const bench_run *run)
{
	return bench_pow2_floor(run->capacity / run->payload);
}

#ifdef PFR_BENCH_HAVE_BOOST
// ---- boost::lockfree::spsc_queue ----

template <size_t N> struct Boost {
	// capacity is a run-time argument: the ring holds slots - 1
	typedef boost::lockfree::spsc_queue<Msg<N>> Q;

	static void *make(const bench_run *run)
	{
		return new (std::nothrow) Q(slots_for(run) - 1);
	}
	static void drop(void *q)
	{
		delete static_cast<Q *>(q);
	}
	static void produce(void *p, bench_run *run)
	{
		Q *q = static_cast<Q *>(p);
		unsigned b = run->batch > 1 ? run->batch : 1;
		Msg<N> *m = new Msg<N>[b];

		for (unsigned i = 0; i < b; i++)
			std::memcpy(&m[i], run->msg, N);
		if (b == 1) {
			for (uint64_t seq = 0; seq < run->n; seq++) {
				pfr__payload_stamp_ends(m[0].w, N / 8, seq);
				while (!q->push(m[0]))
					pfr_cpu_relax();
			}
		} else {
			for (uint64_t seq = 0; seq < run->n;) {
				uint64_t left = run->n - seq;
				size_t k = left < b ? (size_t)left : b,
				       done = 0;

				for (size_t i = 0; i < k; i++)
					pfr__payload_stamp_ends(m[i].w, N / 8,
								seq + i);
				while (done < k) {
					size_t e = q->push(m + done, k - done);

					if (!e)
						pfr_cpu_relax();
					done += e;
				}
				seq += k;
			}
		}
		delete[] m;
	}
	// pops of up to b messages at a time (b = 1: one pop per message)
	static void consume_n(void *p, bench_run *run, unsigned b)
	{
		Q *q = static_cast<Q *>(p);
		Msg<N> *m = new Msg<N>[b];

		if (b == 1) {
			for (uint64_t seq = 0; seq < run->n; seq++) {
				while (!q->pop(m[0]))
					pfr_cpu_relax();
				bench_got(run, &m[0], seq, N / 8);
			}
		} else {
			for (uint64_t seq = 0; seq < run->n;) {
				size_t k = q->pop(m, b);

				if (!k) {
					pfr_cpu_relax();
					continue;
				}
				for (size_t i = 0; i < k; i++)
					bench_got(run, &m[i], seq + i,
						      N / 8);
				seq += k;
			}
		}
		bench_done(run);
		delete[] m;
	}
	static void consume(void *p, bench_run *run)
	{
		consume_n(p, run, run->batch > 1 ? run->batch : 1);
	}
};

// The library's fast form on the reader's side only: a writer that pushes
// one message at a time, a reader that pops up to the reader's batch (as
// perfring's reader drains what one load of head shows).
template <size_t N> struct BoostPop : Boost<N> {
	static void consume(void *p, bench_run *run)
	{
		Boost<N>::consume_n(p, run, run->rbatch > 1 ? run->rbatch : 1);
	}
};

#endif

#ifdef PFR_BENCH_HAVE_AQ
// ---- atomic_queue ----

// Larger messages: AtomicQueue2 (a state byte per slot, its index
// shuffling on), whose size is a template argument: the slot count for the
// default capacity (bench_capacity() with PFR_BENCH_CAPACITY); another
// --capacity leaves it out (setup fails: "n/a").
template <size_t N> struct AQ {
	static constexpr unsigned slots =
		(unsigned)(PFR_BENCH_CAPACITY_FOR(PFR_BENCH_CAPACITY, N) / N) >=
				(1u << 20)
			? (1u << 20)
			: (unsigned)(PFR_BENCH_CAPACITY_FOR(PFR_BENCH_CAPACITY,
							    N) /
				     N);
	static constexpr unsigned pow2(unsigned x)
	{
		return (x & (x - 1)) ? pow2(x & (x - 1)) : x;
	}
	typedef atomic_queue::AtomicQueue2<Msg<N>, pow2(slots), true, true,
					   false, true>
		Q;

	static void *make(const bench_run *run)
	{
		if (slots_for(run) != pow2(slots))
			return nullptr;
		return new (std::nothrow) Q;
	}
	static void drop(void *q)
	{
		delete static_cast<Q *>(q);
	}
	static void produce(void *p, bench_run *run)
	{
		Q *q = static_cast<Q *>(p);
		Msg<N> *m = new Msg<N>;

		std::memcpy(m, run->msg, N);
		for (uint64_t seq = 0; seq < run->n; seq++) {
			pfr__payload_stamp_ends(m->w, N / 8, seq);
			q->push(*m);
		}
		delete m;
	}
	static void consume(void *p, bench_run *run)
	{
		Q *q = static_cast<Q *>(p);
		Msg<N> *m = new Msg<N>;

		for (uint64_t seq = 0; seq < run->n; seq++) {
			*m = q->pop();
			bench_got(run, m, seq, N / 8);
		}
		bench_done(run);
		delete m;
	}
};

template <> struct AQ<8> {
	typedef atomic_queue::AtomicQueueB<uint64_t, std::allocator<uint64_t>,
					   ~0ull, true, false, true>
		Q;

	static void *make(const bench_run *run)
	{
		return new (std::nothrow) Q((unsigned)slots_for(run));
	}
	static void drop(void *q)
	{
		delete static_cast<Q *>(q);
	}
	static void produce(void *p, bench_run *run)
	{
		Q *q = static_cast<Q *>(p);

		for (uint64_t seq = 0; seq < run->n; seq++)
			q->push(seq);
	}
	static void consume(void *p, bench_run *run)
	{
		Q *q = static_cast<Q *>(p);

		for (uint64_t seq = 0; seq < run->n; seq++) {
			uint64_t v = q->pop();

			bench_got(run, &v, seq, 1);
		}
		bench_done(run);
	}
};

#endif

// ---- dispatch on the payload size ----

struct Slot {
	void *q;
	size_t payload;
};

template <template <size_t> class P> struct Dispatch {
	static int setup(bench_run *run, void **qp)
	{
		void *q = nullptr;

		if (slots_for(run) < 4)
			return -1;
		switch (run->payload) {
		case 8:
			q = P<8>::make(run);
			break;
		case 64:
			q = P<64>::make(run);
			break;
		case 256:
			q = P<256>::make(run);
			break;
		case 1024:
			q = P<1024>::make(run);
			break;
		case 4096:
			q = P<4096>::make(run);
			break;
		case 65520:
			q = P<65520>::make(run);
			break;
		default:
			return -1;
		}
		if (!q)
			return -1;
		Slot *s = new (std::nothrow) Slot{q, run->payload};
		if (!s)
			return -1;
		*qp = s;
		return 0;
	}
	static void teardown(void *p)
	{
		Slot *s = static_cast<Slot *>(p);

		switch (s->payload) {
		case 8:
			P<8>::drop(s->q);
			break;
		case 64:
			P<64>::drop(s->q);
			break;
		case 256:
			P<256>::drop(s->q);
			break;
		case 1024:
			P<1024>::drop(s->q);
			break;
		case 4096:
			P<4096>::drop(s->q);
			break;
		case 65520:
			P<65520>::drop(s->q);
			break;
		}
		delete s;
	}
	static void produce(void *p, bench_run *run)
	{
		Slot *s = static_cast<Slot *>(p);

		switch (s->payload) {
		case 8:
			P<8>::produce(s->q, run);
			break;
		case 64:
			P<64>::produce(s->q, run);
			break;
		case 256:
			P<256>::produce(s->q, run);
			break;
		case 1024:
			P<1024>::produce(s->q, run);
			break;
		case 4096:
			P<4096>::produce(s->q, run);
			break;
		case 65520:
			P<65520>::produce(s->q, run);
			break;
		}
	}
	static void consume(void *p, bench_run *run)
	{
		Slot *s = static_cast<Slot *>(p);

		switch (s->payload) {
		case 8:
			P<8>::consume(s->q, run);
			break;
		case 64:
			P<64>::consume(s->q, run);
			break;
		case 256:
			P<256>::consume(s->q, run);
			break;
		case 1024:
			P<1024>::consume(s->q, run);
			break;
		case 4096:
			P<4096>::consume(s->q, run);
			break;
		case 65520:
			P<65520>::consume(s->q, run);
			break;
		}
	}
};

} // namespace

extern "C" const struct bench_queue bench_cxx[] = {
#ifdef PFR_BENCH_HAVE_BOOST
	{"boost_spsc", "", 0, Dispatch<Boost>::setup, Dispatch<Boost>::produce,
	 Dispatch<Boost>::consume, Dispatch<Boost>::teardown, nullptr, -1, -1,
	 0, 0},
	{"boost_spsc", "batch", 1, Dispatch<Boost>::setup,
	 Dispatch<Boost>::produce, Dispatch<Boost>::consume,
	 Dispatch<Boost>::teardown, nullptr, -1, -1, 0, 0},
	{"boost_spsc", "pop batch", 0, Dispatch<BoostPop>::setup,
	 Dispatch<BoostPop>::produce, Dispatch<BoostPop>::consume,
	 Dispatch<BoostPop>::teardown, nullptr, -1, -1, 0, 0},
#endif
#ifdef PFR_BENCH_HAVE_AQ
	{"atomic_queue", "", 0, Dispatch<AQ>::setup, Dispatch<AQ>::produce,
	 Dispatch<AQ>::consume, Dispatch<AQ>::teardown, nullptr, -1, -1, 0, 0},
#endif
	{nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0,
	 0, 0}};
