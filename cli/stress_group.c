/* SPDX-License-Identifier: MIT */
/* perfring stress --mode group: placeholder until the group stress lands. */
#include "cli.h"
#include "stress_mw.h"

int pfr_stress_group(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pfr_cli_usage_error("stress", "--mode group is not built yet");
}
