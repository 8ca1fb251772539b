// SPDX-License-Identifier: MIT
/*
 * bench/core/peers_cxx.h - what the C++ peers (bench/spsc/peers_cxx.cc, one writer;
 * bench/mw/peers_cxx.cc, many writers) share: the headers they use (with
 * atomic_queue, which both measure), and a message of N bytes as one
 * queue element (one template instance per size, as those libraries are
 * meant to be used).
 */
#ifndef PFR_BENCH_PEERS_CXX_H
#define PFR_BENCH_PEERS_CXX_H

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#ifdef PFR_BENCH_HAVE_AQ
#include <atomic_queue/atomic_queue.h>
#endif

// In each file's own unnamed namespace, as the rest of its code.
namespace
{

template <size_t N> struct Msg {
	uint64_t w[N / 8];
};

} // namespace

#endif
