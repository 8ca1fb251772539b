#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding (python/perfring) under misuse:
# tests/python/harden.py runs each case in a python3 of its own (use after
# close, integers out of range, a LOST-type record, no library) and prints
# TAP.  Under SANITIZE the sanitizer's runtime is preloaded (it must come
# first in the process).
set -u
. "$(dirname "$0")/lib.sh"
run_python harden.py
