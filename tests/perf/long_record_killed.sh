#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check-long: t_record_killed.sh with 40 kill -9 at random moments.
PFR_KILLS=${PFR_KILLS:-40} exec bash "$(dirname "$0")/t_record_killed.sh"
