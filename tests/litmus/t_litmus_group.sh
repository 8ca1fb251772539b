#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The group's litmus files model the code of today (litmus/group.table):
#   - tools/litmus-gen.py group-check-code: every "barrier" row is in
#     src/writers/group.c (that function, that label, that kind), its
#     comment there cites the shape's file or a mutant of it, and the
#     shape's file has the row's line; every J, P, L, S, F and R of
#     group.c cites a file of the table;
#   - every mutant file is exactly what tools/litmus-gen.py writes from
#     the table, and no group-*.litmus exists that the table does not
#     list.  (tests/litmus/t_litmus_files.sh checks each file's stated
#     Result and data race with herd7.)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/litmus/table_lib.sh
. "$(dirname "$0")/table_lib.sh"
table_check group 20
