# SPDX-License-Identifier: MIT
"""perf's Util module for scripts, for machines without perf's own
Perf-Trace-Util: time helpers, running statistics, syscall names (from
the audit bindings when installed, else the number) and errno names."""
import errno
import os
import sys

NSECS_PER_SEC = 1000000000


def avg(total, n):
    return total / n


def nsecs(secs, nsecs):
    return secs * NSECS_PER_SEC + nsecs


def nsecs_secs(nsecs):
    return nsecs / NSECS_PER_SEC  # a float, as perf's


def nsecs_nsecs(nsecs):
    return nsecs % NSECS_PER_SEC


def nsecs_str(nsecs):
    # perf's returns a one-element tuple; scripts print it as such
    return ("%5u.%09u" % (nsecs_secs(nsecs), nsecs_nsecs(nsecs)),)


def add_stats(dict, key, value):
    """dict[key]: (min, max, avg, count) of the values seen."""
    if key not in dict:
        dict[key] = (value, value, value, 1)
        return
    lo, hi, mean, n = dict[key]
    dict[key] = (min(lo, value), max(hi, value), (mean + value) / 2, n + 1)


def clear_term():
    print("\x1b[H\x1b[2J")


try:
    import audit
    _machine = audit.audit_detect_machine()
    try:
        _machine = audit.audit_elf_to_machine(audit.audit_detect_machine())
    except Exception:
        pass

    def syscall_name(id):
        try:
            return audit.audit_syscall_to_name(id, _machine)
        except Exception:
            return str(id)
except ImportError:
    def syscall_name(id):
        return str(id)


def strerror(nr):
    try:
        return errno.errorcode[abs(nr)]
    except KeyError:
        return "Unknown %d errno" % nr
