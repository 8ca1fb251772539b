#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The full set: t_script_python.sh on perfring record's files (perf's
# Python scripts under perf script -s and perfring script -s compared on
# them), with perfring script record NAME / report NAME round trips
# against perf script report on the same recordings.
PFR_PYSCRIPT_REC=perfring exec bash "$(dirname "$0")/t_script_python.sh"
