#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring's fuzzer (t_fuzz_mpsc.sh) for 5 minutes.
set -u
FUZZ_SECONDS=${FUZZ_SECONDS_LONG:-300} exec bash "$(dirname "$0")/t_fuzz_mpsc.sh"
