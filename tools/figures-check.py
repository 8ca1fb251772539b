#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the figures a document states are in their results files.

Usage: tools/figures-check.py [--strict] FILE.md...

A figure is a measured number: one with a decimal point (182.9, 0.95×),
or one followed by a unit or a ratio sign (×, %, ns, us, µs, ms, s,
M/s, GB/s, MiB/s, Mmsg/s).  Figures go between

    <!-- figures: RESULTS; machine: NAME -->
    ...
    <!-- /figures -->

where RESULTS is a path from the repository's top (the file a script or
the benchmark regenerates) and NAME is how that file names the machine.
Every figure inside such a block must appear in RESULTS as it is written
(the number, without its unit), and NAME must appear in RESULTS.  With
--strict, a figure outside every block fails too (the README's rule).
Code blocks (``` fences), inline code, HTML comments and version numbers
(herdtools7 7.58, PERFRING_0.2) are not read for figures.
Exits 1, listing each failure as FILE:LINE: ..., else 0.
"""
import os
import re
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
UNIT = r'(?:×|%|\s?ns\b|\s?us\b|\s?µs\b|\s?ms\b|\s?M/s\b|\s?GB/s\b|' \
       r'\s?MiB/s\b|\s?Mmsg/s\b|\s?M msg/s\b)'
FIGURE = re.compile(r'(?<![\w.\-/])(\d+\.\d+|\d+(?=' + UNIT + r'))')
OPEN = re.compile(r'<!--\s*figures:\s*([^;]+?)\s*;\s*machine:\s*(.+?)\s*-->')
CLOSE = re.compile(r'<!--\s*/figures\s*-->')


def strip(line):
    line = re.sub(r'<!--.*?-->', '', line)
    # version numbers are not measurements
    line = re.sub(r'\b(?:herdtools7|[Vv]ersion|perfring|PERFRING_)\s*[\d.]+',
                  '', line)
    return re.sub(r'`[^`]*`', '', line)


def check(path, strict):
    errs = []
    block = None  # (results text, results path)
    fence = False
    in_comment = False
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, line in enumerate(lines, 1):
        m = OPEN.search(line)
        if m:
            res = os.path.join(TOP, m.group(1))
            if not os.path.isfile(res):
                errs.append('%s:%d: results file %s does not exist' %
                            (path, n, m.group(1)))
                block = ('', m.group(1))
            else:
                with open(res, encoding='utf-8', errors='replace') as rf:
                    block = (rf.read(), m.group(1))
                if m.group(2) not in block[0]:
                    errs.append('%s:%d: machine "%s" is not named in %s' %
                                (path, n, m.group(2), m.group(1)))
            continue
        if CLOSE.search(line):
            block = None
            continue
        if line.startswith('```'):
            fence = not fence
            continue
        if fence:
            continue
        if in_comment:
            if '-->' in line:
                in_comment = False
                line = line.split('-->', 1)[1]
            else:
                continue
        if '<!--' in line and '-->' not in line.split('<!--', 1)[1]:
            in_comment = True
            line = line.split('<!--', 1)[0]
        for fig in FIGURE.findall(strip(line)):
            if block is not None:
                if not re.search(r'(?<![\d.])' + re.escape(fig) +
                                 r'(?![\d])', block[0]):
                    errs.append('%s:%d: %s is not in %s' %
                                (path, n, fig, block[1]))
            elif strict:
                errs.append('%s:%d: figure %s outside a figures block '
                            '(no results file)' % (path, n, fig))
    if block is not None:
        errs.append('%s: a figures block is not closed' % path)
    return errs


def main():
    args = sys.argv[1:]
    strict = args[:1] == ['--strict']
    if strict:
        args = args[1:]
    errs = []
    for path in args:
        errs += check(path, strict)
    for e in errs:
        print(e)
    sys.exit(1 if errs else 0)


if __name__ == '__main__':
    main()
