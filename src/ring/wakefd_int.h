/* SPDX-License-Identifier: MIT */
/*
 * Internal: the wake-up that a ring's reader (src/ring/ring.c) and a
 * group's reader (src/writers/group.c) share, for readers that sleep in
 * poll(2) or epoll on an eventfd instead of on a futex.
 *
 * A reader arms by storing PFR__WAKE_POLL in its sleep word (the ring's
 * reader_waiting, the group's sleep word), then smp_mb(), then looks for
 * work; a waker that finds the word nonzero swaps it to 0 (one waker per
 * sleep takes it) and writes the eventfd when it held PFR__WAKE_POLL, else
 * wakes the futex.  A writer finds the eventfd of the ring it writes by
 * the ring's address among the wakers this process registered (the
 * pointer is the writer's own: nothing read from shared memory decides
 * where it looks), so a writer's fast path carries no fd and makes no
 * system call unless the reader is asleep.  Static inline, as
 * futex_int.h, for the models that include ring.c or group.c whole; the
 * registry is in ring.c.
 */
#ifndef PFR_SRC_WAKEFD_INT_H
#define PFR_SRC_WAKEFD_INT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfring/ring.h>

#include "ring/futex_int.h"

/* A sleep word's value: the reader is armed for poll on the eventfd.  In
 * a ring's reader_waiting it also marks a word whose reader is woken
 * through a registered waker (a group's reader marks its rings so). */
#define PFR__WAKE_POLL 2u

/* A reader's wake-up, found by address: a writer whose ring's control
 * block lies in [lo, hi) wakes `word` and, armed for poll, `efd`. */
struct pfr__waker {
	const void *lo, *hi;
	uint32_t *word;
	int efd; /* -1: none (futex sleepers only) */
};

/* The process's registry (src/ring/ring.c): add returns 0 or
 * -PFR_E_SYSTEM (errno EMFILE: full); find returns the waker whose range
 * holds p, or NULL. */
int pfr__waker_add(struct pfr__waker *wk);
void pfr__waker_del(struct pfr__waker *wk);
struct pfr__waker *pfr__waker_find(const void *p);

/* Wakes the reader asleep on word: exactly one waker per sleep takes the
 * word (the exchange) and makes the system call. */
static inline void pfr__waker_wake(uint32_t *word, int efd)
{
	/* purpose: full barrier RMW; the waker that swaps a nonzero value
	 * out is the only one that makes the system call */
	uint32_t v = __atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST);

	if (v == PFR__WAKE_POLL && efd >= 0) {
		uint64_t one = 1;

		if (write(efd, &one, sizeof(one)) < 0) {
			/* counter full (cannot happen: the reader reads
			 * it) or closed: the reader's time-out covers it */
		}
	} else if (v) {
		pfr__futex_wake(word);
	}
}

/* A new eventfd for a reader's wake-ups (close-on-exec, non-blocking):
 * the fd, or -1 with errno. */
static inline int pfr__eventfd_new(void)
{
	return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/*
 * 1 when fd is an eventfd.  A writer's wake-up writes 8 bytes to it: into
 * anything else (the ring's own memfd, a file, a pipe) that write would
 * corrupt data.  Every eventfd is an anonymous inode (no file type in its
 * mode), which no regular file, pipe or socket is; and when /proc is there
 * the link names it.  Other anonymous inodes (timerfd, signalfd, epoll)
 * refuse an 8-byte write of 1 with EINVAL: nothing to corrupt.
 */
static inline int pfr__is_eventfd(int fd)
{
	char path[64], link[64];
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) || (st.st_mode & S_IFMT) != 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return errno != EACCES && errno != ENOENT ? 0 : 1;
	link[n] = 0;
	return !strcmp(link, "anon_inode:[eventfd]");
}

/* Empties the eventfd after a poll (EAGAIN: nobody wrote it). */
static inline void pfr__eventfd_drain(int efd)
{
	uint64_t v;

	if (efd >= 0 && read(efd, &v, sizeof(v)) < 0) {
		/* EAGAIN: nobody wrote it */
	}
}

#endif
