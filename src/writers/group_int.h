/* SPDX-License-Identifier: MIT */
/*
 * Internal: what src/ring/ring.c and src/writers/group.c share.  A group's rings are
 * ordinary rings whose control blocks and data areas live inside the
 * group's object; the group reader sleeps on the group's futex word, not on
 * each ring's, and marks the rings it waits for with
 * PFR__READER_WAITING_GROUP in their reader_waiting word, so that the
 * writer's out-of-line wake path wakes the group instead.
 */
#ifndef PFR_SRC_GROUP_INT_H
#define PFR_SRC_GROUP_INT_H

#include <perfring/ring.h>

#include "ring/wakefd_int.h"

/* the value that sends a writer's wake-up through the registered waker
 * that holds its ring (src/ring/wakefd_int.h): the group's */
#define PFR__READER_WAITING_GROUP PFR__WAKE_POLL

/* Opens the writer side of a ring at (c, data) of data_size bytes with the
 * given policy, ordering and PFR_RING_* flags, all validated by the
 * caller; as pfr_ring_writer() does for a ring of its own. */
int pfr__writer_open_at(struct pfr_writer *w, struct pfr_ring_ctl *c,
			unsigned char *data, uint64_t data_size,
			uint32_t policy, uint32_t ordering, uint32_t flags);
/* The loss count of ring c in no published LOST record: lost_pending, or
 * 0 when the record that carries it is below head (its writer was killed
 * after publishing it, before clearing the count).  For a reader whose
 * writer is gone or has left. */
uint64_t pfr__ring_lost_pending(const struct pfr_ring_ctl *c);
/* The largest record (header included) a ring of data_size bytes takes. */
uint64_t pfr__ring_max_record(uint64_t data_size);
#endif
