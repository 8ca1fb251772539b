/* SPDX-License-Identifier: MIT */
/* tests/unit/mp_smoke.c again, with the C11 __atomic backend forced. */
#define PFR_FORCE_C11 1
#include "mp_smoke.c"
