/* SPDX-License-Identifier: MIT */
/* Many-writer stress runs, selected by `perfring stress --mode group|mpsc`:
 * each parses the whole command line itself (argv[0] is "stress") and
 * returns the exit status. */
#ifndef PFR_STRESS_MW_H
#define PFR_STRESS_MW_H

#include <sys/types.h>

/* N writers, one ring each, one merging reader (<perfring/group.h>). */
int cli_stress_group(int argc, char **argv);
/* N producers into one shared ring (<perfring/mpsc.h>). */
int cli_stress_mpsc(int argc, char **argv);

/* fork() for the processes of a many-writer run: the child is killed
 * (SIGKILL) when the process that forked it dies, and ends at once if
 * that happened before it could ask (its parent is already another).
 * Call it from the thread that lives as long as the process: the kernel
 * sends the signal when the forking thread exits. */
pid_t cli_stress_fork(void);

#endif
