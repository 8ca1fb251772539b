#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ring fuzzer (t_fuzz_ring.sh) for longer: FUZZ_SECONDS, default 600,
# in `make check-long`; the corpus it grows is kept in the build directory.
export FUZZ_SECONDS=${FUZZ_SECONDS:-600}
exec bash "$(dirname "$0")/t_fuzz_ring.sh"
