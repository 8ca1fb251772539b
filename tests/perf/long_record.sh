#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-long: the -a test with ten times the workload (about 600k
# context-switch samples): still nothing lost at the default ring size,
# the -m 1 loss counted exactly, and the merged order intact.
PFR_PINGPONG=${PFR_PINGPONG:-300000} exec bash "$(dirname "$0")/t_record_cpuwide.sh"
