/* SPDX-License-Identifier: MIT */
/*
 * bench/spsc/perfring_wa.c - perfring's default per-record and batched rows
 * ("wa-limit") built with the writer's old write-ahead bound: the fast
 * path's limit, which stops at the end of the data area, so the first
 * PFR__WRITE_AHEAD bytes of every lap are written with no line asked for.
 * The A/B of the bound within one run, next to the default rows.
 */
#define PFR__AHEAD_BOUND(w) ((w)->limit)
#define PR_WA_ONLY 1
#include "perfring.c"
