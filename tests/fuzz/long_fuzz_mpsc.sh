#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared MPSC ring's fuzzer (t_fuzz_mpsc.sh), longer: 300 s by default
# in `make check-long`; the corpus it grows is kept in the build directory.
export FUZZ_SECONDS=${FUZZ_SECONDS:-300}
exec bash "$(dirname "$0")/t_fuzz_mpsc.sh"
