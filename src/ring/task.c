/* SPDX-License-Identifier: MIT */
/*
 * The identity of a thread or a process from /proc (src/ring/task_int.h).
 */
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

int pfr__task_state(uint32_t id, int what, uint64_t *start)
{
	char path[64], buf[1024];
	const char *p, *f;
	ssize_t n;
	int fd, zombie;

	*start = 0;
	if (id == 0 || id >= PFR__TASK_ID_MAX)
		return 1;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", id, id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1; /* ENOENT: no such task in our namespace */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1; /* it was reaped while we read */
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0; /* unreadable: not proven dead */
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

int pfr__task_dead(uint32_t id, int what, uint64_t start)
{
	uint64_t now_start;

	if (pfr__task_state(id, what, &now_start))
		return 1;
	return start && now_start && now_start != start;
}
