#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The instructions each barrier primitive compiles to on the x86_64 backend
# (see insn-check.sh and expected.txt).
exec bash "$(dirname "$0")/insn-check.sh" x86_64
