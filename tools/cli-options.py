#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Lists the options each perfring command accepts, read from its sources.

Usage: tools/cli-options.py [TOP]

Prints one line per option: COMMAND SPELLING SOURCE, where SPELLING is
--long, or -x for an option that has no long name.  The sources are read
the way the commands read their arguments:

  - a getopt_long table (`struct option NAME[] = { {"long", ...}, ... }`),
    with the entries of a macro it names that is defined in a header
    (bench/core/cmd_opts.h's PFR_BENCH_COMMON_LOPTS);
  - the tables of the perf commands' one option grammar (cli/perfopt.h's
    struct cli_perfopt: {'x', "long", arg, ID, why}, one entry a line), as
    cli/record/record.c and cli/script/opts.c hold them; an entry whose ID
    is O_NONE is perf's option refused ("no equivalent"), so it is not an
    option the command accepts;
  - comparisons of an argument with a literal option (`!strcmp(argv[i],
    "--name")`).

Not listed: -h and --help, which every command takes (perfring(1) says
so), and an option whose table line carries the comment /* internal */
(one that perfring passes to its own child processes, not for users).

The command of a file: bench/* is bench; cli/NAME/*.c is NAME when NAME is
a command of cli/main.c's table; other files (main.c, the
shared helpers) accept no command's options.
"""
import os
import re
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..')

OPT_TABLE = re.compile(r'struct\s+option\s+\w+\s*\[\s*\]\s*=\s*\{(.*?)\n\s*\};',
                       re.S)
OPT_ENTRY = re.compile(
    r'\{\s*"([A-Za-z0-9][A-Za-z0-9-]*)"\s*,\s*(no|required|optional)_argument')
PERFOPT_ENTRY = re.compile(
    r"\{\s*(?:'(.)'|0)\s*,\s*(?:\"([A-Za-z0-9-]+)\"|NULL)\s*,\s*\d\s*,\s*(O_\w+)")
STRCMP = re.compile(r'strn?cmp\(\s*argv\[\w+\]\s*,\s*"(--?[A-Za-z0-9][A-Za-z0-9-]*)=?"')
IDENT = re.compile(r'\b([A-Z][A-Z0-9_]+)\b')


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def commands():
    main = read(os.path.join(TOP, 'cli', 'main.c'))
    return set(re.findall(r'\{\s*"([a-z]+)"\s*,\s*(?:cli|pfr)_cmd_', main))


def macros():
    """#define NAME ... (with continuation lines) of the headers."""
    out = {}
    for rel in sources(('cli', 'bench', 'util'), '.h'):
        text = read(os.path.join(TOP, rel)).replace('\\\n', ' ')
        for m in re.finditer(r'#define\s+(\w+)\s+(.*)', text):
            out[m.group(1)] = m.group(2)
    return out


def sources(folders, ext):
    """Files ending in EXT under FOLDERS (and their subfolders), as paths
    relative to TOP, sorted."""
    out = []
    for d in folders:
        for root, _, names in os.walk(os.path.join(TOP, d)):
            out += [os.path.relpath(os.path.join(root, n), TOP)
                    for n in names if n.endswith(ext)]
    return sorted(out)


def command_of(rel, cmds):
    parts = rel.split('/')
    if parts[0] == 'bench':
        return 'bench'
    if parts[0] != 'cli' or len(parts) < 3:
        return None
    return parts[1] if parts[1] in cmds else None


def options_of(text, defs):
    text = '\n'.join(line for line in text.split('\n')
                     if '/* internal' not in line)
    found = []
    for table in OPT_TABLE.finditer(text):
        body = table.group(1)
        for ident in IDENT.findall(body):
            body += ' ' + defs.get(ident, '')
        found += ['--' + m.group(1) for m in OPT_ENTRY.finditer(body)]
    for m in PERFOPT_ENTRY.finditer(text):
        short, long_, ident = m.groups()
        if ident == 'O_NONE':
            continue
        if long_:
            found.append('--' + long_)
        elif short:
            found.append('-' + short)
    found += [m.group(1) for m in STRCMP.finditer(text)]
    return found


def main():
    cmds = commands()
    defs = macros()
    seen = set()
    for rel in sources(('cli', 'bench'), '.c'):
        cmd = command_of(rel, cmds)
        if not cmd:
            continue
        for opt in options_of(read(os.path.join(TOP, rel)), defs):
            if opt in ('--', '-', '-h', '--help') or (cmd, opt) in seen:
                continue
            seen.add((cmd, opt))
            print(cmd, opt, rel)
    if not seen:
        sys.exit('cli-options.py: no option found under ' + TOP)


if __name__ == '__main__':
    main()
