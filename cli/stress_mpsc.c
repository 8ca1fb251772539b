/* SPDX-License-Identifier: MIT */
/* perfring stress --mode mpsc: placeholder until the mpsc stress lands. */
#include "cli.h"
#include "stress_mw.h"

int pfr_stress_mpsc(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return pfr_cli_usage_error("stress", "--mode mpsc is not built yet");
}
