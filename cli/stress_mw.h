/* SPDX-License-Identifier: MIT */
/* Many-writer stress runs, selected by `perfring stress --mode group|mpsc`:
 * each parses the whole command line itself (argv[0] is "stress") and
 * returns the exit status. */
#ifndef PFR_STRESS_MW_H
#define PFR_STRESS_MW_H

/* N writers, one ring each, one merging reader (<perfring/group.h>). */
int pfr_stress_group(int argc, char **argv);
/* N producers into one shared ring (<perfring/mpsc.h>). */
int pfr_stress_mpsc(int argc, char **argv);

#endif
