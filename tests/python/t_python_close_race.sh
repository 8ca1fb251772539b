#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding's handles under threads: tests/python/close_race.py
# closes a ring, a group and a shared ring while other threads are inside
# a write, a read or a wait (ctypes drops the GIL for a C call), in
# interpreters of their own, and counts those that crashed (0 expected);
# a raw integer where the binding wants its own handle is refused.  TAP
# comes from it.  Under SANITIZE the sanitizer's runtime is preloaded.
set -u
. "$(dirname "$0")/lib.sh"
procs=4
[ "${PFR_LONG:-0}" = 1 ] && procs=40
run_python close_race.py "$procs" 5
