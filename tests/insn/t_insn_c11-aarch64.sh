#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The instructions each barrier primitive compiles to with the C11 backend
# forced on aarch64: gcc's own mapping, the evidence for aarch64's choices
# (see insn-check.sh and expected.txt).
exec bash "$(dirname "$0")/insn-check.sh" c11-aarch64
