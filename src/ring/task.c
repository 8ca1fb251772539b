/* SPDX-License-Identifier: MIT */
/*
 * The identity of a thread or a process from /proc (src/ring/task_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ring/task_int.h"

/* The fields of a stat line after the name, which may hold spaces and
 * parentheses: parsing starts after the last ')'.  Field 3 is the state,
 * 20 the number of threads, 22 the start time. */
static const char *pfr__task_field(const char *p, int from, int to)
{
	for (; from < to && p; from++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return p;
}

/* 1 when a failed open() or read() of a task's stat file proves the task
 * gone: no such entry (ENOENT), or the task reaped while we read (ESRCH).
 * Anything else (EMFILE, ENFILE, ENOMEM, EACCES, ...) proves nothing.
 * Without /proc every task looks gone, but then no identity can be
 * recorded either: pfr_group_join() refuses to run there. */
static int pfr__task_gone(int err)
{
	return err == ENOENT || err == ESRCH;
}

int pfr__task_check(uint32_t id, int what, uint64_t *start)
{
	char path[64], buf[1024];
	const char *p, *f;
	ssize_t n;
	int fd, zombie, err;

	*start = 0;
	if (id == 0 || id >= PFR__TASK_ID_MAX)
		return 1;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", id, id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pfr__task_gone(errno) ? 1 : -1;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n == 0 || (n < 0 && pfr__task_gone(err)))
		return 1; /* it was reaped while we read */
	if (n < 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1; /* unparsable: not proven dead */
	p += 2; /* field 3, the state */
	zombie = *p == 'Z' || *p == 'X' || *p == 'x';
	if (zombie && what == PFR__TASK_PROCESS) {
		/* A main thread that called pthread_exit() is a zombie
		 * while the other threads of its process run on. */
		f = pfr__task_field(p, 3, 20);
		if (!f || strtoul(f, NULL, 10) <= 1)
			return 1;
	} else if (zombie) {
		return 1;
	}
	f = pfr__task_field(p, 3, 22);
	if (f)
		*start = strtoull(f, NULL, 10);
	return 0;
}

int pfr__task_state(uint32_t id, int what, uint64_t *start)
{
	return pfr__task_check(id, what, start) == 1;
}

int pfr__task_dead(uint32_t id, int what, uint64_t start)
{
	uint64_t now_start;

	if (pfr__task_state(id, what, &now_start))
		return 1;
	return start && now_start && now_start != start;
}

/* The start time as the word holds it (modulo 2^42). */
static uint64_t pfr__task_word_start(uint64_t start)
{
	return start & ((1ull << (64 - PFR__TASK_WORD_PID_BITS)) - 1);
}

uint64_t pfr__task_self_word(void)
{
	static __thread uint64_t cached;
	static __thread pid_t cached_pid;
	pid_t me = getpid();
	uint64_t start;

	/* per process: a forked child has its own; a failed look (out of
	 * file descriptors) is not kept, the next call tries again */
	if (cached_pid != me || !(cached >> PFR__TASK_WORD_PID_BITS)) {
		if (pfr__task_check((uint32_t)me, PFR__TASK_PROCESS, &start))
			start = 0;
		cached = (uint64_t)(uint32_t)me |
			 pfr__task_word_start(start) << PFR__TASK_WORD_PID_BITS;
		cached_pid = me;
	}
	return cached;
}

int pfr__task_word_dead(uint64_t word)
{
	uint64_t start = word >> PFR__TASK_WORD_PID_BITS, now;
	int st = pfr__task_check(PFR__TASK_WORD_PID(word), PFR__TASK_PROCESS,
				 &now);

	if (st)
		return st == 1;
	return start && now && pfr__task_word_start(now) != start;
}
