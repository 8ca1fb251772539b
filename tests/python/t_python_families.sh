#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Python binding's families across processes: tests/python/families.py
# checks the errors' .code and .errno (EBADF, ENOENT, EEXIST, None), a
# ring in POSIX shm written by a child, a group and a shared ring in a
# memfd written by three processes each (every writer's records in order,
# none lost), and the perf session on a command (skipped, with the
# reason, where the kernel refuses perf events).  TAP comes from it.
# Under SANITIZE the sanitizer's runtime is preloaded.
set -u
. "$(dirname "$0")/lib.sh"
run_python families.py
