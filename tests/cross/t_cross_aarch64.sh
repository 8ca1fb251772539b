#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build everything for aarch64 and run the unit tests under qemu (cross.sh).
exec bash "$(dirname "$0")/cross.sh" aarch64
