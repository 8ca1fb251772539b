# SPDX-License-Identifier: MIT
# `make dist`: the release tarball $(BUILD)/perfring-VERSION.tar.gz, the
# committed tree (git archive HEAD, debian/ included) under
# perfring-VERSION/.  It builds the Debian packages outside git (README,
# "Debian packages") and is the orig tarball of perfring_VERSION-N.
# VERSION comes from <perfring/common.h> (the Makefile); debian/changelog
# must name the same upstream version, or dist stops.
DIST_NAME = perfring-$(VERSION)
DIST_TAR = $(BUILD)/$(DIST_NAME).tar.gz
DEB_UPSTREAM = $(shell sed -n '1s/^perfring (\([^-)]*\).*/\1/p' \
	debian/changelog 2>/dev/null)

.PHONY: dist
dist:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { \
		echo "make dist: not a git tree (the tarball is made by" \
			"git archive)" >&2; exit 1; }
	@[ "$(DEB_UPSTREAM)" = "$(VERSION)" ] || { \
		echo "make dist: debian/changelog says $(DEB_UPSTREAM)," \
			"<perfring/common.h> $(VERSION)" >&2; exit 1; }
	@git diff --quiet HEAD -- || echo "make dist: uncommitted changes" \
		"are not in the tarball (it is HEAD)" >&2
	@mkdir -p $(BUILD)
	git archive --format=tar --prefix=$(DIST_NAME)/ HEAD | gzip -n9 \
		>$(DIST_TAR).tmp
	mv $(DIST_TAR).tmp $(DIST_TAR)
	@echo "$(DIST_TAR)"
