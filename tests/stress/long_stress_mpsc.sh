#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring's stress (t_stress_mpsc.sh) at 5 seconds per run.
set -u
STRESS_SECONDS=5 exec bash "$(dirname "$0")/t_stress_mpsc.sh"
