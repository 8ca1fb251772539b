#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-long: the perf decoder/reader/printer fuzzer for 10 minutes.
FUZZ_SECONDS=${FUZZ_SECONDS:-600} exec bash "$(dirname "$0")/t_fuzz_perf.sh"
