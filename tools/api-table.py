#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The table of every public function for docs/abi.md.

Usage: tools/api-table.py [--check | --write] [TOP]

Reads every function that include/perfring/*.h declares PFR_API or inline
(but the pfr__ internals) and the version nodes of src/abi/perfring.map,
and prints one Markdown row per function: its header, its name, the
version node(s) that export it (two: the older one is a compatibility
symbol with the old convention, docs/abi.md), its return type and the
convention of its return value (docs/api.md: by the type, and the
functions named in SPECIAL below).  With --check, exits 1 when docs/abi.md's table (between
the `<!-- api-table -->` markers) is not this one, so that a function
added to a header must be added to the table too; with --write, puts this
table between the markers.
"""
import os
import re
import sys


def nodes(top):
    """name -> [node, ...] from the version script; compat marked later."""
    out = {}
    # the core's, then the perf.data library's (PERFRING_PERFDATA_*)
    for path in (('src', 'abi', 'perfring.map'),
                 ('src', 'perfdata', 'perfdata.map')):
        with open(os.path.join(top, *path), encoding='utf-8') as f:
            text = re.sub(r'/\*.*?\*/', '', f.read(), flags=re.S)
        for m in re.finditer(r'(PERFRING_[A-Z_]*[0-9.]+)\s*\{(.*?)\}', text,
                             re.S):
            for n in re.findall(r'^\s*(pfr_[a-z0-9][a-z0-9_]*);',
                                m.group(2), re.M):
                out.setdefault(n, []).append(m.group(1))
    return out


# The conventions (docs/api.md): an int status function returns 0 or a
# negative PFR_E_* code unless it is named here; a count or size
# (int64_t) is >= 0 or a negative code.
STATUS = '0, or a negative `PFR_E_*` code'
SPECIAL = {
    'pfr_group_join': 'the slot (>= 0), `-PFR_E_FULL` when none is free, or a negative code',
    'pfr_mpsc_producer_join': 'the slot (>= 0), `-PFR_E_FULL` when none is free, or a negative code',
    'pfr_mpsc_join': 'deprecated: 0, `-PFR_E_BUSY` when no slot is free, or a negative code',
    'pfr_mpsc_leave': 'deprecated: nothing (`pfr_mpsc_producer_leave()` returns 0 or `-PFR_E_INVAL`)',
    'pfr_mpsc_reader': 'deprecated name of `pfr_mpsc_reader_open()`',
    'pfr_mpsc_ctl': 'deprecated name of `pfr_mpsc_control()`',
    'pfr_ring_ctl': 'deprecated name of `pfr_ring_control()`',
    'pfr_mpsc_attach_shm': 'as `_opts`, but the limit positional, on the whole mapping (`-PFR_E_LAYOUT` past it)',
    'pfr_mpsc_attach_fd': 'as `_opts`, but the limit positional, on the whole mapping (`-PFR_E_LAYOUT` past it)',
    'pfr_group_attach_shm': STATUS + ' (no attach limit: prefer `_opts`)',
    'pfr_group_attach_fd': STATUS + ' (no attach limit: prefer `_opts`)',
    'pfr_perf_session_add_event': "the event's index (>= 0), or a negative code",
    'pfr_group_wait': 'wait: 1 (something to drain), `-PFR_E_TIMEDOUT`, or a negative code (0.2: 0 on a time-out)',
    'pfr_reader_wait': 'wait: the bytes available (> 0), `-PFR_E_TIMEDOUT`, or a negative code',
    'pfr_mpsc_wait': 'wait: the bytes available (> 0), `-PFR_E_TIMEDOUT`, `-PFR_E_STALLED`, or a negative code',
    'pfr_perf_session_poll': 'the rings ready (>= 0; 0: time-out or request), or a negative code',
    'pfr_group_poll_prepare': '1 (something to drain), 0 (armed), or a negative code',
    'pfr_group_reader_alive': '1 or 0 (`-PFR_E_INVAL` for NULL)',
    'pfr_mpsc_reader_alive': '1 or 0',
    'pfr_ring_sealed': '1 or 0',
    'pfr_mpsc_sealed': '1 or 0',
    'pfr_ring_fd': 'the fd (-1: private memory), or `-PFR_E_INVAL`',
    'pfr_mpsc_fd': 'the fd (-1: private memory), or `-PFR_E_INVAL`',
    'pfr_group_fd': 'the fd (-1: private memory), or `-PFR_E_INVAL`',
    'pfr_group_eventfd': 'the eventfd (-1: none), or `-PFR_E_INVAL`',
    'pfr_ring_eventfd': 'the eventfd (-1: none), or `-PFR_E_INVAL`',
    'pfr_reader_poll_prepare': '1 (something to read, or the end), 0 (armed), or a negative code',
    'pfr_ordering_parse': 'the value, or -1',
    'pfr_policy_parse': 'the value, or -1',
    'pfr_perf_open': 'the fd, or -errno (perf_event_open(2))',
    'pfr_reader_next': '1 (a record), 0 (none), or a negative code',
    'pfr_mpsc_next': '1 (a record), 0 (none), or a negative code',
    'pfr_perf_file_next': '1 (a record), 0 (the end), or a negative code',
    'pfr_group_iter_next': '1 (a ring begun), 0 (the round ended), or a negative code',
    'pfr_writer_write_burst': 'the records written (>= 0), or a negative code',
    'pfr_perf_cpu_list': 'the CPUs (>= 0), or a negative code',
    'pfr_perf_online_cpus': 'the CPUs (>= 0), or a negative code',
    'pfr_perf_session_synthesize': 'the records queued (>= 0), or a negative code',
    'pfr_perf_session_drain': STATUS + ", or on_record's nonzero value",
    'pfr_perf_session_run': STATUS + ", or on_record's nonzero value",
    'pfr_perf_session_finish': STATUS + ", or on_record's nonzero value",
    'pfr_perf_session_snapshot': STATUS + ", or on_record's nonzero value",
    'pfr_perf_session_switch_file': STATUS + ", or on_record's nonzero value",
    'pfr_merge_create': STATUS,
    'pfr_merge_push': STATUS + ' (`-PFR_E_NOSPC` at the cap)',
    'pfr_perf_file_tracing': 'a pointer into the file (valid until close), NULL when it has none',
    'pfr_perf_file_unfinished': '1 or 0',
    'pfr_perfdata_next': '1 (a record), 0 (the end), or a negative code',
    'pfr_perfdata_nr_fields': 'the fields (>= 0; 0: not a tracepoint sample)',
    'pfr_perfdata_trace_text': "the text's length (>= 0, as snprintf), or a negative code",
    'pfr_perfdata_feature': 'a string valid until close, NULL when the file lacks it',
    'pfr_perfdata_comm': 'a string valid until the next call, NULL for NULL',
    'pfr_perfdata_resolve': '1 (a symbol), 0 (none), or a negative code',
    'pfr_perfdata_print_fields': 'the fields (>= 0), or a negative code',
    'pfr_perfdata_buildid': STATUS + ' (`-PFR_E_AGAIN`: none recorded, `-PFR_E_NOSPC`: too small)',
    'pfr_perfdata_buildid_cache_add': 'the objects the file records (>= 0), or a negative code (`-PFR_E_SYSTEM`: errno from the first object not added)',
}
COUNT = ('the count (records or bytes, >= 0), or a negative code; a '
         "callback's negative value is returned")


def convention(fn, rtype):
    if fn in SPECIAL:
        return SPECIAL[fn]
    if rtype == 'void':
        return 'nothing'
    if rtype == 'const char *' or rtype == 'const char *const *':
        return 'a constant string (never NULL)' if rtype == 'const char *' \
            else 'a constant NULL-terminated array'
    if rtype.endswith('*'):
        return 'a pointer, NULL for NULL or out of range'
    if rtype == 'int64_t':
        return COUNT
    if rtype == 'int':
        return STATUS
    return 'a value (no error return)'


def functions(top):
    inc = os.path.join(top, 'include', 'perfring')
    rows = []
    seen = set()
    pat = re.compile(r'^(PFR_API|static inline|PFR__INLINE)\s+'
                     r'((?:const\s+)?[a-z_0-9 ]*?[a-z_0-9]+\s*\**)\s*'
                     r'(pfr_[a-z0-9][a-z0-9_]*)\s*\(', re.M)
    for name in sorted(os.listdir(inc)):
        if not name.endswith('.h'):
            continue
        with open(os.path.join(inc, name), encoding='utf-8') as f:
            text = f.read()
        for m in pat.finditer(text):
            fn, rtype = m.group(3), ' '.join(m.group(2).split())
            if fn in seen:
                continue
            seen.add(fn)
            rows.append((name, fn, rtype))
    return rows


def table(top):
    nd = nodes(top)
    lines = ['| header | function | node | returns | convention |',
             '|---|---|---|---|---|']
    for hdr, fn, rtype in functions(top):
        node = ', '.join(nd.get(fn, ['(inline only)']))
        conv = convention(fn, rtype).replace('|', '\\|')
        lines.append('| `%s` | `%s()` | %s | `%s` | %s |' %
                     (hdr, fn, node, rtype, conv))
    return '\n'.join(lines) + '\n'


def main():
    args = sys.argv[1:]
    check = args[:1] == ['--check']
    write = args[:1] == ['--write']
    if check or write:
        args = args[1:]
    top = args[0] if args else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..')
    want = table(top)
    if not check and not write:
        sys.stdout.write(want)
        return
    with open(os.path.join(top, 'docs', 'abi.md'), encoding='utf-8') as f:
        doc = f.read()
    m = re.search(r'<!-- api-table -->\n(.*?)<!-- /api-table -->', doc, re.S)
    if not m:
        sys.exit('api-table.py: docs/abi.md has no <!-- api-table --> block')
    if write:
        with open(os.path.join(top, 'docs', 'abi.md'), 'w',
                  encoding='utf-8') as f:
            f.write(doc[:m.start(1)] + want + doc[m.end(1):])
        return
    if m.group(1) != want:
        have = set(re.findall(r'`(pfr_\w+)\(\)`', m.group(1)))
        need = set(re.findall(r'`(pfr_\w+)\(\)`', want))
        sys.exit('api-table.py: docs/abi.md\'s table is not the headers\' '
                 '(run tools/api-table.py; missing: %s; extra: %s)' %
                 (' '.join(sorted(need - have)) or 'none',
                  ' '.join(sorted(have - need)) or 'none'))
    print('api-table.py: %d functions, docs/abi.md matches' %
          (len(want.splitlines()) - 2))


if __name__ == '__main__':
    main()
