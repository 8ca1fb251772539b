// SPDX-License-Identifier: MIT
/*
 * bench/mw/peers_cxx.cc - the C++ peers of the multi-writer bench, behind
 * an extern "C" table.  One template instance per slot size (8, 64, 256
 * bytes: the mix travels in 256-byte slots), each slot one whole message.
 *
 * moodycamel::ConcurrentQueue (Debian libconcurrentqueue-dev): one
 * sub-queue per producer; "implicit": try_enqueue(item) (the producer's
 * sub-queue found from its thread), "token": try_enqueue(ProducerToken&,
 * item) (explicit producers).  Both preallocate the run's capacity, split
 * between the producers (each sub-queue bounded to its share), and use
 * try_enqueue, which never allocates; the reader uses a ConsumerToken and
 * try_dequeue_bulk of up to run->batch.
 * atomic_queue::AtomicQueueB2 (Debian libatomic-queue-dev): MPMC, a state
 * byte per slot; the reader's try_pop waits inside for a slot whose writer
 * claimed it but has not written it yet.  It does not keep a writer's
 * order: a writer preempted between its claim and its store leaves the
 * slot empty, and a writer one lap later may fill it first (the slots
 * carry no lap number), so it runs as PFR_MW_UNORDERED.
 * boost::lockfree::queue (Debian libboost-dev): a Michael-Scott list with a
 * node free list preallocated to the capacity; bounded_push never
 * allocates.
 * None of them runs between processes (their memory is the heap's).
 */
#ifdef PFR_BENCH_HAVE_CQ
#include <concurrentqueue/concurrentqueue.h>
#endif
#ifdef PFR_BENCH_HAVE_BOOST
#include <boost/lockfree/queue.hpp>
#endif

#include "mw.h"
#include "../core/peers_cxx.h"

namespace
{

size_t slots_for(const bench_mw_run *run)
{
	return bench_pow2_floor(run->capacity / run->slot);
}

// The writer's and the reader's loops over any adapter A with a queue type
// A::Q, A::push(q, msg, token) -> bool and A::pop_bulk(q, buf, max, token)
// -> count.
template <size_t N, class A> struct Loops {
	typedef typename A::Q Q;

	template <class Tok>
	static void produce(Q *q, bench_mw_run *run, unsigned w, Tok &tok)
	{
		bench_mw_writer *me = &run->w[w];
		Msg<N> m;
		unsigned spins = 0;
		uint64_t seq;

		std::memcpy(&m, run->msg, N);
		for (seq = 0; bench_mw_wmore(run, me, seq); seq++) {
			size_t words = N == 8 ? 1 : bench_mw_len(run, seq);

			bench_mw_stamp(m.w, words, w, seq);
			while (!A::push(q, m, tok))
				bench_mw_pause(&spins);
			bench_mw_unstamp(m.w, words, run);
		}
		me->sent = seq;
	}
	template <class Tok>
	static void consume(Q *q, bench_mw_run *run, Tok &tok)
	{
		unsigned b = run->batch, spins = 0;
		Msg<N> *m = new (std::nothrow) Msg<N>[b];

		if (!m) {
			run->error = -1;
			return;
		}
		while (bench_mw_more(run)) {
			size_t k = A::pop_bulk(q, m, b, tok);

			if (!k) {
				if (bench_mw_empty(run))
					break;
				bench_mw_rpause(run, &spins);
				continue;
			}
			for (size_t i = 0; i < k; i++)
				bench_mw_got(run, m[i].w, 0);
		}
		bench_mw_done(run);
		delete[] m;
	}
};

struct NoTok {
};

// Dispatch on run->slot: X is a template taking N.
template <template <size_t> class X> int setup_n(bench_mw_run *run, void **q)
{
	if (run->processes)
		return -1;
	switch (run->slot) {
	case 8:
		return X<8>::setup(run, q);
	case 64:
		return X<64>::setup(run, q);
	case 256:
		return X<256>::setup(run, q);
	}
	return -1;
}

template <template <size_t> class X>
void produce_n(void *q, bench_mw_run *run, unsigned w)
{
	switch (run->slot) {
	case 8:
		X<8>::produce(q, run, w);
		break;
	case 64:
		X<64>::produce(q, run, w);
		break;
	case 256:
		X<256>::produce(q, run, w);
		break;
	}
}

template <template <size_t> class X> void consume_n(void *q, bench_mw_run *run)
{
	switch (run->slot) {
	case 8:
		X<8>::consume(q, run);
		break;
	case 64:
		X<64>::consume(q, run);
		break;
	case 256:
		X<256>::consume(q, run);
		break;
	}
}

template <template <size_t> class X> void teardown_n(void *q, bench_mw_run *run)
{
	switch (run->slot) {
	case 8:
		X<8>::teardown(q, run);
		break;
	case 64:
		X<64>::teardown(q, run);
		break;
	case 256:
		X<256>::teardown(q, run);
		break;
	}
}

#ifdef PFR_BENCH_HAVE_CQ
// ---- moodycamel::ConcurrentQueue ----

// Each producer's sub-queue is bounded to its share of the capacity
// (Traits::MAX_SUBQUEUE_SIZE, a compile-time bound: one instance per power
// of two from 2^6 to 2^16 elements).  Without it one producer that runs
// ahead takes every preallocated block, and an explicit producer keeps its
// blocks for good: the others could then never enqueue again.
template <unsigned LOG>
struct CqTraits : moodycamel::ConcurrentQueueDefaultTraits {
	static const size_t MAX_SUBQUEUE_SIZE = (size_t)1 << LOG;
};

unsigned cq_log(const bench_mw_run *run)
{
	size_t per = slots_for(run) / run->writers;
	unsigned l = 6;

	while (l < 16 && ((size_t)2 << l) <= per)
		l++;
	return l;
}

template <size_t N, bool TOKEN, unsigned LOG> struct Cq {
	typedef moodycamel::ConcurrentQueue<Msg<N>, CqTraits<LOG>> Q;

	static int setup(bench_mw_run *run, void **qp)
	{
		size_t cap = ((size_t)1 << LOG) * run->writers;
		Q *q = TOKEN ? new (std::nothrow) Q(cap, run->writers, 0)
			     : new (std::nothrow) Q(cap, 0, run->writers);

		*qp = q;
		return q ? 0 : -1;
	}
	static void teardown(void *q)
	{
		delete static_cast<Q *>(q);
	}
	static bool push(Q *q, const Msg<N> &m, moodycamel::ProducerToken &t)
	{
		return q->try_enqueue(t, m);
	}
	static bool push(Q *q, const Msg<N> &m, NoTok &)
	{
		return q->try_enqueue(m);
	}
	static size_t pop_bulk(Q *q, Msg<N> *m, size_t b,
			       moodycamel::ConsumerToken &t)
	{
		return q->try_dequeue_bulk(t, m, b);
	}
	static void produce(void *p, bench_mw_run *run, unsigned w)
	{
		Q *q = static_cast<Q *>(p);

		if (TOKEN) {
			moodycamel::ProducerToken t(*q);

			Loops<N, Cq>::produce(q, run, w, t);
		} else {
			NoTok t;

			Loops<N, Cq>::produce(q, run, w, t);
		}
	}
	static void consume(void *p, bench_mw_run *run)
	{
		Q *q = static_cast<Q *>(p);
		moodycamel::ConsumerToken t(*q);

		Loops<N, Cq>::consume(q, run, t);
	}
};

// The instance for this run's per-producer bound.
#define PFR_CQ_LOGS(X)                                                         \
	X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
template <size_t N, bool TOKEN> struct CqSel {
	static int setup(bench_mw_run *run, void **q)
	{
		switch (cq_log(run)) {
#define PFR_CQ_S(L)                                                            \
	case L:                                                                \
		return Cq<N, TOKEN, L>::setup(run, q);
			PFR_CQ_LOGS(PFR_CQ_S)
		}
		return -1;
	}
	static void produce(void *q, bench_mw_run *run, unsigned w)
	{
		switch (cq_log(run)) {
#define PFR_CQ_P(L)                                                            \
	case L:                                                                \
		Cq<N, TOKEN, L>::produce(q, run, w);                           \
		break;
			PFR_CQ_LOGS(PFR_CQ_P)
		}
	}
	static void consume(void *q, bench_mw_run *run)
	{
		switch (cq_log(run)) {
#define PFR_CQ_C(L)                                                            \
	case L:                                                                \
		Cq<N, TOKEN, L>::consume(q, run);                              \
		break;
			PFR_CQ_LOGS(PFR_CQ_C)
		}
	}
	static void teardown(void *q, bench_mw_run *run)
	{
		switch (cq_log(run)) {
#define PFR_CQ_T(L)                                                            \
	case L:                                                                \
		Cq<N, TOKEN, L>::teardown(q);                                  \
		break;
			PFR_CQ_LOGS(PFR_CQ_T)
		}
	}
};
template <size_t N> struct CqTok : CqSel<N, true> {
};
template <size_t N> struct CqImp : CqSel<N, false> {
};
#endif

#ifdef PFR_BENCH_HAVE_AQ
// ---- atomic_queue::AtomicQueueB2, MPMC ----

template <size_t N> struct Aq {
	typedef atomic_queue::AtomicQueueB2<Msg<N>> Q;

	static int setup(bench_mw_run *run, void **qp)
	{
		Q *q = new (std::nothrow) Q((unsigned)slots_for(run));

		*qp = q;
		return q ? 0 : -1;
	}
	static void teardown(void *q, bench_mw_run *)
	{
		delete static_cast<Q *>(q);
	}
	static bool push(Q *q, const Msg<N> &m, NoTok &)
	{
		return q->try_push(m);
	}
	static size_t pop_bulk(Q *q, Msg<N> *m, size_t, NoTok &)
	{
		return q->try_pop(m[0]) ? 1 : 0;
	}
	static void produce(void *p, bench_mw_run *run, unsigned w)
	{
		NoTok t;

		Loops<N, Aq>::produce(static_cast<Q *>(p), run, w, t);
	}
	static void consume(void *p, bench_mw_run *run)
	{
		NoTok t;

		Loops<N, Aq>::consume(static_cast<Q *>(p), run, t);
	}
};
#endif

#ifdef PFR_BENCH_HAVE_BOOST
// ---- boost::lockfree::queue ----

template <size_t N> struct Bq {
	typedef boost::lockfree::queue<Msg<N>> Q;

	static int setup(bench_mw_run *run, void **qp)
	{
		Q *q = new (std::nothrow) Q(slots_for(run));

		*qp = q;
		return q ? 0 : -1;
	}
	static void teardown(void *q, bench_mw_run *)
	{
		delete static_cast<Q *>(q);
	}
	static bool push(Q *q, const Msg<N> &m, NoTok &)
	{
		return q->bounded_push(m);
	}
	static size_t pop_bulk(Q *q, Msg<N> *m, size_t, NoTok &)
	{
		return q->pop(m[0]) ? 1 : 0;
	}
	static void produce(void *p, bench_mw_run *run, unsigned w)
	{
		NoTok t;

		Loops<N, Bq>::produce(static_cast<Q *>(p), run, w, t);
	}
	static void consume(void *p, bench_mw_run *run)
	{
		NoTok t;

		Loops<N, Bq>::consume(static_cast<Q *>(p), run, t);
	}
};
#endif

} // namespace

extern "C" {
const bench_mw_queue bench_mw_cxx[] = {
#ifdef PFR_BENCH_HAVE_CQ
	{"concurrentqueue", "token", PFR_MW_KIND_SUBQ, 0, setup_n<CqTok>,
	 produce_n<CqTok>, consume_n<CqTok>, teardown_n<CqTok>},
	{"concurrentqueue", "implicit", PFR_MW_KIND_SUBQ, 0, setup_n<CqImp>,
	 produce_n<CqImp>, consume_n<CqImp>, teardown_n<CqImp>},
#endif
#ifdef PFR_BENCH_HAVE_AQ
	{"atomic_queue", "mpmc", PFR_MW_KIND_OTHER | PFR_MW_UNORDERED, 0,
	 setup_n<Aq>, produce_n<Aq>, consume_n<Aq>, teardown_n<Aq>},
#endif
#ifdef PFR_BENCH_HAVE_BOOST
	{"boost_queue", "", PFR_MW_KIND_OTHER, 0, setup_n<Bq>, produce_n<Bq>,
	 consume_n<Bq>, teardown_n<Bq>},
#endif
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
}
