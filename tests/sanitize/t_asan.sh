#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every unit test under AddressSanitizer and UBSan (sanitize.sh).
exec bash "$(dirname "$0")/sanitize.sh" address
