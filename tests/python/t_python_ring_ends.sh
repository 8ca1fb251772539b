#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The single ring's ends, liveness and pollable fd from Python:
# tests/python/ring_ends.py waits in selectors on a reader's fileno()
# while a child process writes and closes, and checks eof(), wait_end(),
# writer_alive/reader_alive, set_inherit(), set_eventfd() and the errors'
# .code and .errno.  TAP comes from it.  Under SANITIZE the sanitizer's
# runtime is preloaded.
set -u
. "$(dirname "$0")/lib.sh"
run_python ring_ends.py
