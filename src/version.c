/* SPDX-License-Identifier: MIT */
#include "compiler.h"

const char *pfr_version(void)
{
	return PFR_VERSION_STRING;
}
