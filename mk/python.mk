# SPDX-License-Identifier: MIT
# `make install` also installs the Python binding (python/perfring, pure
# Python over ctypes) into PYTHONDIR: the directory under PREFIX that
# python3 searches (.../dist-packages on Debian), else
# PREFIX/lib/pythonX.Y/site-packages; PYTHONDIR=... overrides it.  The
# installed package also records LIBDIR (perfring/_paths.py), where it
# looks for libperfring.so.0 first when PERFRING_LIB is not set (and
# perfring.perfdata for libperfring-perfdata.so.0).  The Python examples
# (docs/examples/*.py) go beside the C ones, in DOCDIR/examples.
PYTHON ?= python3
PYTHONDIR ?= $(shell $(PYTHON) -c 'import sys; p = sys.argv[1].rstrip("/"); \
	c = [d for d in sys.path if d.startswith(p + "/") and \
	d.endswith("-packages")]; \
	print(c[0] if c else "%s/lib/python%d.%d/site-packages" % \
	((p,) + tuple(sys.version_info[:2])))' '$(PREFIX)' 2>/dev/null || \
	echo '$(PREFIX)/lib/python3/dist-packages')

.PHONY: install-python uninstall-python
install: install-python
uninstall: uninstall-python

install-python:
	install -d $(DESTDIR)$(PYTHONDIR)/perfring
	install -m 644 python/perfring/*.py $(DESTDIR)$(PYTHONDIR)/perfring/
	install -d $(DESTDIR)$(PYTHONDIR)/perfring/perf_trace
	install -m 644 python/perfring/perf_trace/*.py \
		$(DESTDIR)$(PYTHONDIR)/perfring/perf_trace/
	printf '# Written by make install.\nLIBDIR = %s\n' "'$(LIBDIR)'" \
		>$(DESTDIR)$(PYTHONDIR)/perfring/_paths.py
	chmod 644 $(DESTDIR)$(PYTHONDIR)/perfring/_paths.py
	install -d $(DESTDIR)$(DOCDIR)/examples
	install -m 644 docs/examples/*.py $(DESTDIR)$(DOCDIR)/examples/

uninstall-python:
	rm -rf $(DESTDIR)$(PYTHONDIR)/perfring
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/examples/, \
		$(notdir $(wildcard docs/examples/*.py)))
