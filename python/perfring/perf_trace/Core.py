# SPDX-License-Identifier: MIT
"""perf's Core module for scripts, for machines without perf's own
Perf-Trace-Util (perfring script -s puts perf's first on sys.path).

The names and behaviour perf documents (perf-script-python(1)): autodict,
the flag and symbolic value tables and their lookups, trace_flag_str,
taskState, EventHeaders."""
from collections import defaultdict


def autodict():
    """A dict whose missing keys are new autodicts."""
    return defaultdict(autodict)


flag_fields = autodict()
symbolic_fields = autodict()


def define_flag_field(event_name, field_name, delim):
    flag_fields[event_name][field_name]["delim"] = delim


def define_flag_value(event_name, field_name, value, field_str):
    flag_fields[event_name][field_name]["values"][value] = field_str


def define_symbolic_field(event_name, field_name):
    pass


def define_symbolic_value(event_name, field_name, value, field_str):
    symbolic_fields[event_name][field_name]["values"][value] = field_str


def flag_str(event_name, field_name, value):
    """The names of the flags set in value, joined by the field's
    delimiter; the name of 0 when value is 0."""
    f = flag_fields[event_name][field_name]
    if not f:
        return ""
    names = []
    for bit in sorted(f["values"]):
        if bit == 0:
            if value == 0:
                return f["values"][bit]
            continue
        if value & bit == bit:
            names.append(f["values"][bit])
            value &= ~bit
    delim = f["delim"] if f["delim"] else ""
    return (" %s " % delim if delim else "").join(names)


def symbol_str(event_name, field_name, value):
    """The name the event's table gives value, or ""."""
    f = symbolic_fields[event_name][field_name]
    if not f:
        return ""
    return f["values"].get(value, "")


_TRACE_FLAGS = ((0x01, "IRQS_OFF"), (0x02, "IRQS_NOSUPPORT"),
                (0x04, "NEED_RESCHED"), (0x08, "HARDIRQ"), (0x10, "SOFTIRQ"))


def trace_flag_str(value):
    if not value:
        return "NONE"
    return " | ".join(n for b, n in _TRACE_FLAGS if value & b == b)


def taskState(state):
    return {0: "R", 1: "S", 2: "D", 64: "DEAD"}.get(state, "Unknown")


class EventHeaders(object):
    def __init__(self, common_cpu, common_secs, common_nsecs, common_pid,
                 common_comm, common_callchain):
        self.cpu = common_cpu
        self.secs = common_secs
        self.nsecs = common_nsecs
        self.pid = common_pid
        self.comm = common_comm
        self.callchain = common_callchain

    def ts(self):
        return self.secs * 1000000000 + self.nsecs

    def ts_format(self):
        return "%d.%d" % (self.secs, int(self.nsecs / 1000))
