#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The multi-threaded unit tests (*stress*, *mp*) under ThreadSanitizer
# (sanitize.sh).
exec bash "$(dirname "$0")/sanitize.sh" thread
