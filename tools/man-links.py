#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Which manual page documents each public function.

Usage: tools/man-links.py [--write DIR] [TOP]

Reads every function declared PFR_API or inline in include/perfring/*.h
(but the pfr__ internals the inline fast paths call) and every name that
src/abi/perfring.map exports, and finds the section 3 page
of man/ whose SYNOPSIS declares it; the inline functions and macros a
SYNOPSIS declares (pfr_writer_write, pfr_smp_mb, ...) get a link too.  Prints one line
per function, "NAME PAGE" (PAGE as perfring_ring.3); with --write DIR,
also writes DIR/NAME.3 holding ".so man3/PAGE", the link page that makes
`man NAME` open PAGE.  Exits 1, naming them, when a public function is in
no page's SYNOPSIS, so a function added to a header must be added to its
page too.
"""
import os
import re
import sys


def public_functions(top):
    names = set()
    inc = os.path.join(top, 'include', 'perfring')
    for name in sorted(os.listdir(inc)):
        if not name.endswith('.h'):
            continue
        with open(os.path.join(inc, name), encoding='utf-8') as f:
            text = f.read()
        for m in re.finditer(r'^PFR_API\b([^;{]*?)\b(pfr_\w+)\s*\(', text,
                             re.M):
            if not m.group(2).startswith('pfr__'):
                names.add(m.group(2))
        # the inline functions, declared or defined in the header
        for m in re.finditer(r'^(?:static inline|PFR__INLINE)\b([^;{(]*?)'
                             r'\b(pfr_\w+)\s*\(', text, re.M):
            if not m.group(2).startswith('pfr__'):
                names.add(m.group(2))
    # and every name the library exports (the FFI's own, for one)
    with open(os.path.join(top, 'src', 'abi', 'perfring.map'),
              encoding='utf-8') as f:
        text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
    for m in re.finditer(r'^\s*(pfr_[a-z0-9][a-z0-9_]*);', text, re.M):
        names.add(m.group(1))
    return names


def synopses(top):
    """page name -> the text of its SYNOPSIS section."""
    out = {}
    mandir = os.path.join(top, 'man')
    for name in sorted(os.listdir(mandir)):
        if not name.endswith('.3'):
            continue
        with open(os.path.join(mandir, name), encoding='utf-8') as f:
            text = f.read()
        m = re.search(r'^\.SH SYNOPSIS\n(.*?)^\.SH ', text, re.S | re.M)
        if m:
            out[name] = m.group(1)
    return out


def main():
    args = sys.argv[1:]
    outdir = None
    if args[:1] == ['--write']:
        outdir = args[1]
        args = args[2:]
    top = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..')
    pages = synopses(top)
    missing = []
    links = {}
    for fn in sorted(public_functions(top)):
        pat = re.compile(r'\b' + re.escape(fn) + r'\b')
        hits = [p for p, syn in pages.items() if pat.search(syn)]
        if not hits:
            missing.append(fn)
            continue
        links[fn] = hits[0]
    for page, syn in sorted(pages.items()):
        for fn in re.findall(r'\b(pfr_[a-z0-9_]+)\s*\(', syn):
            if not fn.startswith('pfr__'):
                links.setdefault(fn, page)
    if outdir:
        os.makedirs(outdir, exist_ok=True)
        for fn, page in links.items():
            with open(os.path.join(outdir, fn + '.3'), 'w',
                      encoding='utf-8') as f:
                f.write('.so man3/' + page + '\n')
    for fn, page in links.items():
        print(fn, page)
    if missing:
        sys.exit('man-links.py: public functions in no man/*.3 SYNOPSIS: ' +
                 ' '.join(missing))
    if not links:
        sys.exit('man-links.py: no public function found')


if __name__ == '__main__':
    main()
