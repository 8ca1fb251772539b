#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding (python/perfring, ctypes over the shared library's
# exported symbols) across two processes: tests/python/ring_procs.py
# spawns a writer and a reader python3 on one memfd ring and checks every
# record (TAP comes from it).  Under SANITIZE the sanitizer's runtime is
# preloaded (it must come first in the process).
set -u
. "$(dirname "$0")/lib.sh"
n=20000
[ "${PFR_LONG:-0}" = 1 ] && n=500000
run_python ring_procs.py "$n"
