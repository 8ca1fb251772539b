# SPDX-License-Identifier: MIT
# make funclen: no C function in the tree longer than 150 lines
# (tools/funclen.py; exemptions, for generated tables only, in
# tools/funclen-exempt.txt).
.PHONY: funclen
funclen:
	python3 tools/funclen.py

# make lint includes the length check.
lint: funclen
