#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The acceptance run: 10 seconds per ordering x policy, two processes over
# shared memory, and the same with threads.
set -u
STRESS_SECONDS=10 exec bash "$(dirname "$0")/t_stress.sh"
