#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build everything for ppc64el and run the unit tests under qemu (cross.sh).
exec bash "$(dirname "$0")/cross.sh" ppc64el
