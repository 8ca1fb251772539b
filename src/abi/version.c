/* SPDX-License-Identifier: MIT */
#include "ring/compiler.h"

const char *pfr_version(void)
{
	return PFR_VERSION_STRING;
}
