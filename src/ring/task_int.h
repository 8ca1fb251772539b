/* SPDX-License-Identifier: MIT */
/*
 * Internal: the identity of a thread or a process, shared by src/writers/group.c
 * (a writer slot's owner is a process) and src/writers/mpsc.c (a producer or the
 * reader is a thread).  An identity is an id and the start time of the
 * task it names, so that a reused id is told from the original.
 *
 * Both are read from /proc/<id>/task/<id>/stat, never /proc/<id>/stat:
 * for a process id the task file is its main thread's, whose start time is
 * the process's, and it is the same file for every thread of every reader.
 * /proc/<pid>/stat is not: qemu-user rewrites it for its own process (the
 * state field becomes 0 and the start time that of the calling thread), so
 * two threads of one emulated process would see two start times for it.
 */
#ifndef PFR_SRC_TASK_INT_H
#define PFR_SRC_TASK_INT_H

#include <stdint.h>

/* Ids beyond the kernel's PID_MAX_LIMIT name no task. */
#define PFR__TASK_ID_MAX (1u << 22)

/* What pfr__task_state() asks about: the thread `id` alone, or the process
 * whose id is `id` (alive while any of its threads is). */
#define PFR__TASK_THREAD 0
#define PFR__TASK_PROCESS 1

/*
 * The state of task `id`: 0 while it may run (its start time, in clock
 * ticks since boot, in *start), 1 when it is proven gone or a zombie and
 * can never write to shared memory again, -1 when /proc could not be read
 * (out of file descriptors or memory, no permission, an unparsable line):
 * it may run, and *start is 0.  Only an absent entry (ENOENT, ESRCH) or a
 * zombie state proves death: a reader out of file descriptors (EMFILE)
 * must not take a live writer for a dead one.  For PFR__TASK_PROCESS a
 * zombie main thread whose process still has other threads is alive.
 * Reads /proc: a system call, never on a fast path.
 */
int pfr__task_check(uint32_t id, int what, uint64_t *start);

/* pfr__task_check() for the callers that ask "proven dead?": 1 when it
 * is, else 0 (an unreadable state is 0, with *start 0: unknown, alive). */
int pfr__task_state(uint32_t id, int what, uint64_t *start);

/* 1 when the task recorded as (id, start) is proven dead: gone, a zombie,
 * or the id now names a task with another start time.  Unreadable
 * details (PFR__TASK_UNKNOWN, a start time of 0) prove nothing: 0. */
int pfr__task_dead(uint32_t id, int what, uint64_t start);

/*
 * A process as one 64-bit word, for a role held in shared memory (the
 * single ring's writer and reader, src/ring/ring.c): its pid in the low
 * PFR__TASK_WORD_PID_BITS bits and its start time (clock ticks since boot,
 * modulo 2^42: 44 years at 100 Hz) above, 0 when /proc could not tell.
 * One word, so that a CAS hands a role over whole: a pid and a start time
 * stored apart could be seen torn, the new pid with the old start time,
 * and taken for a dead holder.
 */
#define PFR__TASK_WORD_PID_BITS 22
#define PFR__TASK_WORD_PID(w) ((uint32_t)((w) & (PFR__TASK_ID_MAX - 1)))

/* This process's word (its start time looked up once per process; a
 * failed look is not kept). */
uint64_t pfr__task_self_word(void);

/* 1 when the process a word names is proven dead: gone, a zombie, or its
 * pid now names a process with another start time.  A word with pid 0
 * names nobody: 1.  Unreadable details prove nothing: 0. */
int pfr__task_word_dead(uint64_t word);

#endif
