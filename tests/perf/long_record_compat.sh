#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# t_record_compat.sh with its whole list of perf record invocations.
PFR_COMPAT_ALL=1 exec bash "$(dirname "$0")/t_record_compat.sh"
