#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build everything for s390x and run the unit tests under qemu (cross.sh).
exec bash "$(dirname "$0")/cross.sh" s390x
