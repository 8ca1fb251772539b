#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ring's litmus files, from one table (litmus/ring.table).

  litmus-gen.py shipped DIR        write every "file" row as DIR/NAME.litmus
  litmus-gen.py family DIR         write the whole family (every barrier
                                   choice at both ends of each shape, plain
                                   and marked slots) to DIR, with DIR/list
  litmus-gen.py grid DIR RESULTS   docs/litmus-grid.md on stdout, from the
                                   family in DIR and herd7's verdicts in
                                   RESULTS (lines: NAME VERDICT RACE, RACE
                                   flagged or none)
  litmus-gen.py cells              the shipped files that are cells of the
                                   grid, with their stated verdicts
  litmus-gen.py check-code         TAP: the table's "code" and "wake" rows
                                   against include/perfring/ring-proto.h and
                                   src/ring/ring.c, preprocessed by $CC (default
                                   cc) with every barrier macro a marker;
                                   a "code" row's function is read as the
                                   arm of its switch for the row's ordering;
                                   and the KERNEL C of src/perf/perf.c (its
                                   reader's ordering, the snapshot's load
                                   of data_head)

  litmus-gen.py code-litmus DIR    write, for each ordering (FULL,
                                   ACQREL, CTRLDEP) and shape (pub: B
                                   with C; reuse: A with D), a litmus
                                   file of the barriers the code has
                                   (read as check-code reads them, not
                                   the table's) to DIR, with DIR/list
                                   (NAME SHAPE ORDERING X P Y Q): herd7
                                   must find each Never, so that a
                                   barrier of the wrong kind in the code
                                   (smp_rmb or smp_wmb where smp_mb is
                                   needed) is judged by the kernel's
                                   memory model, not by a table

The group's files, from litmus/group.table (see its header):

  litmus-gen.py group-shipped DIR  write every "mutant" row as
                                   DIR/FILE.litmus, from its shape's file
  litmus-gen.py group-check-code   TAP: every "barrier" row against
                                   src/writers/group.c (found as
                                   tools/mutate.py finds barriers) and
                                   against its shape's file; every J, P,
                                   L, S, F and R of group.c cites a file
                                   of the table

The shared MPSC ring's files, from litmus/mpsc.table (see its header):

  litmus-gen.py mpsc-shipped DIR   write every "mutant" row as
                                   DIR/FILE.litmus, from its shape's file
  litmus-gen.py mpsc-check-code    TAP: every "barrier" row against
                                   include/perfring/mpsc.h and
                                   src/writers/mpsc.c (tools/mutate.py's
                                   barriers, and the CAS of the macros
                                   that wrap pfr__mpsc_cas()) and against
                                   its shape's file; every N, R, H, B, C1,
                                   C2, A and D there cites a file of the
                                   table

Python 3 standard library only.  The files speak the C dialect of herd7's
Linux-kernel memory model (tools/memory-model in the kernel tree).
"""
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(TOP, "litmus", "ring.table")
PROTO = "include/perfring/ring-proto.h"

LOAD_CHOICES = ["none", "ctrl", "rmb", "wmb", "mb", "acquire", "acqctrl"]
STORE_CHOICES = ["once", "rmb", "wmb", "mb", "release"]
WAKE_CHOICES = ["none", "rmb", "wmb", "mb", "relacq"]
# The family: the choices the grid crosses (acqctrl is rmb to the model).
GRID = {
    "pub": (STORE_CHOICES, ["ctrl", "rmb", "wmb", "mb", "acquire"]),
    "reuse": (["none", "ctrl", "rmb", "wmb", "mb", "acquire"],
              STORE_CHOICES),
    "wakeup": (WAKE_CHOICES, WAKE_CHOICES),
}
# Which barriers a shape has: (writer's, reader's).
BARRIERS = {"pub": ("B", "C"), "reuse": ("A", "D")}
REMOVED = {"A": "ctrl", "B": "once", "C": "ctrl", "D": "once"}

LOAD_TEXT = {
    "none": "READ_ONCE() and no branch (A removed with the space check)",
    "ctrl": "READ_ONCE(), then the branch on the value (a control "
            "dependency, no barrier)",
    "rmb": "READ_ONCE(), then smp_rmb()",
    "wmb": "READ_ONCE(), then smp_wmb()",
    "mb": "READ_ONCE(), then smp_mb()",
    "acquire": "smp_load_acquire()",
    "acqctrl": "READ_ONCE(), the branch, and in it "
               "smp_acquire__after_ctrl_dep(), which linux-kernel.def lacks: "
               "spelled as its definition in include/asm-generic/barrier.h, "
               "smp_rmb()",
}
STORE_TEXT = {
    "once": "WRITE_ONCE() alone",
    "rmb": "smp_rmb(), then WRITE_ONCE()",
    "wmb": "smp_wmb(), then WRITE_ONCE()",
    "mb": "smp_mb(), then WRITE_ONCE()",
    "release": "smp_store_release()",
}
WAKE_TEXT = {
    "none": "WRITE_ONCE() then READ_ONCE(), no barrier",
    "rmb": "WRITE_ONCE(), smp_rmb(), READ_ONCE()",
    "wmb": "WRITE_ONCE(), smp_wmb(), READ_ONCE()",
    "mb": "WRITE_ONCE(), smp_mb(), READ_ONCE()",
    "relacq": "smp_store_release() then smp_load_acquire()",
}

SHAPE_TEXT = {
    "pub": """Publication, B with C (message passing).  P0 is the writer: it
stores the record into its slot, then the new head.  P1 is the reader: it
loads head and, if head says the record is there, loads the record.  The
"exists" clause asks whether the reader can see the new head and still
read the record's old contents.""",
    "reuse": """Slot reuse, A with D (load buffering).  The ring is full: P1, the
reader, loads the record in the slot and then frees the slot by storing
tail.  P0, the writer, loads tail and, if it says there is room, stores a
new record into the slot.  The "exists" clause asks whether the writer can
see the slot freed while the reader still reads the new record, that is,
overwrite a record that is being read.""",
    "wakeup": """Blocking wake-up (store buffering).  P0, the waker, stores its word
(head) and then loads the sleeper's flag (asleep), to wake it if set.  P1,
the sleeper, stores its flag and then re-loads the waker's word, to sleep
only if nothing is new.  The "exists" clause is the lost wake-up: the waker
sees no sleeper and the sleeper sees nothing new, so it sleeps with nobody
to wake it.  The same shape serves both directions: the writer waking a
reader (pfr_writer_publish(), pfr__kick_reader() against pfr_reader_wait())
and the reader waking a BLOCK writer (pfr_reader_end() against
pfr__writer_block()).  No plain accesses, so no data race.""",
}


def die(msg):
    sys.stderr.write("litmus-gen: %s\n" % msg)
    sys.exit(2)


def read_table(path=TABLE):
    code, wake, files = {}, [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            w = line.split()
            where = "%s:%d" % (path, n)
            if w[0] == "code" and len(w) == 5:
                bar, ordr, prim, fn = w[1:]
                ok = LOAD_CHOICES if bar in "AC" else STORE_CHOICES
                if bar not in "ABCD" or prim not in ok:
                    die("%s: bad code row" % where)
                code[(ordr, bar)] = (prim, fn)
            elif w[0] == "wake" and len(w) == 6:
                if w[1] not in ("waker", "sleeper") or w[2] not in WAKE_CHOICES:
                    die("%s: bad wake row" % where)
                wake.append(tuple(w[1:]))
            elif w[0] == "file" and len(w) >= 9:
                name, shape, ordr, changes, slots, res, race = w[1:8]
                what = " ".join(w[8:])
                if shape not in ("pub", "reuse", "wakeup"):
                    die("%s: bad shape %s" % (where, shape))
                if res not in ("Never", "Sometimes", "Always") or \
                        race not in ("flagged", "none"):
                    die("%s: bad verdict" % where)
                if shape == "wakeup":
                    if slots != "-":
                        die("%s: wakeup has no slots" % where)
                elif slots not in ("plain", "once"):
                    die("%s: bad slots %s" % (where, slots))
                files.append(dict(name=name, shape=shape, ordering=ordr,
                                  changes=changes, slots=slots, result=res,
                                  race=race, what=what))
            else:
                die("%s: cannot parse: %s" % (where, line))
    return code, wake, files


def barriers_of(code, shape, ordering, changes):
    """The choice at the writer's and the reader's barrier."""
    if shape == "wakeup":
        ch = {"waker": "mb", "sleeper": "mb"}
        keys = ("waker", "sleeper")
    else:
        keys = BARRIERS[shape]
        ch = {}
        for b in keys:
            if (ordering, b) not in code:
                die("no code row for %s %s" % (b, ordering))
            ch[b] = code[(ordering, b)][0]
    orig = dict(ch)
    if changes != "-":
        for c in changes.split(","):
            k, _, v = c.partition("=")
            if k not in keys:
                die("change %s: no barrier %s in %s" % (c, k, shape))
            ok = {"A": LOAD_CHOICES, "C": LOAD_CHOICES, "B": STORE_CHOICES,
                  "D": STORE_CHOICES}.get(k, WAKE_CHOICES)
            if v not in ok:
                die("change %s: unknown primitive" % c)
            ch[k] = v
    return keys, ch, orig


# ---- rendering ----

def load_lines(choice, var, reg, body):
    """A load of var into reg with the given choice, then body (lines)
    under the branch on reg == 1."""
    ind = ["\t" + b for b in body]
    if choice == "none":
        return ["%s = READ_ONCE(*%s);" % (reg, var)] + body
    if choice == "acquire":
        out = ["%s = smp_load_acquire(%s);" % (reg, var)]
    else:
        out = ["%s = READ_ONCE(*%s);" % (reg, var)]
        if choice in ("rmb", "wmb", "mb"):
            out.append("smp_%s();" % choice)
    if choice == "acqctrl":
        return out + ["if (%s == 1) {" % reg, "\tsmp_rmb();"] + ind + ["}"]
    if len(body) == 1:
        return out + ["if (%s == 1)" % reg] + ind
    return out + ["if (%s == 1) {" % reg] + ind + ["}"]


def store_lines(choice, var):
    if choice == "release":
        return ["smp_store_release(%s, 1);" % var]
    out = [] if choice == "once" else ["smp_%s();" % choice]
    return out + ["WRITE_ONCE(*%s, 1);" % var]


def slot_store(slots, var):
    return "*%s = 1;" % var if slots == "plain" else \
        "WRITE_ONCE(*%s, 1);" % var


def slot_load(slots, reg, var):
    return "%s = *%s;" % (reg, var) if slots == "plain" else \
        "%s = READ_ONCE(*%s);" % (reg, var)


def proc(n, args, regs, lines):
    out = ["P%d(%s)" % (n, ", ".join("int *%s" % a for a in args)), "{"]
    for r in regs:
        out.append("\tint %s;" % r)
    if regs:
        out.append("")
    out += ["\t" + l for l in lines]
    out.append("}")
    return out


def body(shape, ch, slots):
    if shape == "pub":
        p0 = proc(0, ["head", "rec"], [],
                  [slot_store(slots, "rec")] + store_lines(ch["B"], "head"))
        p1 = proc(1, ["head", "rec"], ["r0", "r1"],
                  load_lines(ch["C"], "head", "r0",
                             [slot_load(slots, "r1", "rec")]))
        exists = "exists (1:r0=1 /\\ 1:r1=0)"
    elif shape == "reuse":
        p0 = proc(0, ["tail", "slot"], ["r0"],
                  load_lines(ch["A"], "tail", "r0",
                             [slot_store(slots, "slot")]))
        p1 = proc(1, ["tail", "slot"], ["r1"],
                  [slot_load(slots, "r1", "slot")] +
                  store_lines(ch["D"], "tail"))
        exists = "exists (0:r0=1 /\\ 1:r1=1)"
    else:
        def side(c, mine, other, reg):
            if c == "relacq":
                return ["smp_store_release(%s, 1);" % mine,
                        "%s = smp_load_acquire(%s);" % (reg, other)]
            mid = [] if c == "none" else ["smp_%s();" % c]
            return ["WRITE_ONCE(*%s, 1);" % mine] + mid + \
                ["%s = READ_ONCE(*%s);" % (reg, other)]
        p0 = proc(0, ["head", "asleep"], ["r0"],
                  side(ch["waker"], "head", "asleep", "r0"))
        p1 = proc(1, ["head", "asleep"], ["r1"],
                  side(ch["sleeper"], "asleep", "head", "r1"))
        exists = "exists (0:r0=0 /\\ 1:r1=0)"
    return p0 + [""] + p1 + ["", exists]


def wrap(text, width=72):
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > width:
            lines.append(cur)
            cur = w
        else:
            cur = (cur + " " + w) if cur else w
    if cur:
        lines.append(cur)
    return lines


def choice_text(b, c):
    if b in ("A", "C"):
        return LOAD_TEXT[c]
    if b in ("B", "D"):
        return STORE_TEXT[c]
    return WAKE_TEXT[c]


def models_text(code, shape, ordering, keys):
    if shape == "wakeup":
        return ("the blocking wake-up hand-shake, smp_mb() on both sides, "
                "in each function named above (src/ring/ring.c and %s)." % PROTO)
    ours = ["%s as in %s()" % (b, code[(ordering, b)][1]) for b in keys
            if not code[(ordering, b)][1].startswith("kernel:")]
    theirs = ["%s as in %s()" % (b, code[(ordering, b)][1][7:]) for b in keys
              if code[(ordering, b)][1].startswith("kernel:")]
    if not theirs:
        return "the %s ordering in %s: %s." % (ordering, PROTO,
                                                " and ".join(ours))
    return ("the kernel's writer of the perf ring (kernel/events/"
            "ring_buffer.c), %s, against perfring's reader of the kernel's "
            "ring, which src/perf/perf.c runs with the ACQREL ordering, %s in %s."
            % (" and ".join(theirs), " and ".join(ours), PROTO))


def header(code, f, keys, ch, orig):
    shape, slots = f["shape"], f["slots"]
    out = []
    if "result" in f:
        out += ["Result: %s" % f["result"], "Data race: %s" % f["race"], ""]
    out += ["Generated by tools/litmus-gen.py from litmus/ring.table:",
            "edit the table, not this file.", ""]
    out += SHAPE_TEXT[shape].split("\n") + [""]
    out += wrap("Models: " + models_text(code, shape, f["ordering"], keys))
    changed = [b for b in keys if ch[b] != orig[b]]
    hyp = f["name"].startswith("ring-%s-hyp-" % shape)
    if hyp:
        out += wrap("Hypothetical: neither perfring nor the kernel is "
                    "written this way; the file shows what such code would "
                    "give.")
    if changed:
        out += wrap("Changed from that code%s: %s." % (
            " (hypothetical)" if hyp else ", to show what breaks",
            "; ".join("%s was %s" % (b, choice_text(b, orig[b]))
                      for b in changed)))
    for b in keys:
        out += wrap("%s: %s" % (b, choice_text(b, ch[b])))
    if shape != "wakeup":
        if slots == "plain":
            out += wrap("Record: plain C accesses, as the ring's memcpy and "
                        "the caller's stores in place.")
        else:
            out += wrap("Record: READ_ONCE() and WRITE_ONCE() (hypothetical:"
                        " the ring copies records with memcpy, which is "
                        "plain).")
    if f.get("what"):
        out += [""] + wrap("Shows: " + f["what"] + ".")
    for l in out:
        if "(*" in l or "*)" in l:
            die("%s: header text would open or close a herd7 comment: %s"
                % (f["name"], l))
    return ["(*"] + [(" * " + l).rstrip() for l in out] + [" *)"]


def render(code, f):
    keys, ch, orig = barriers_of(code, f["shape"], f["ordering"],
                                 f["changes"])
    if "family" in f:
        ch = f["family"]
    lines = ["C " + f["name"], ""] + header(code, f, keys, ch, orig) + \
        ["", "{}", ""] + body(f["shape"], ch, f["slots"])
    return "\n".join(lines) + "\n", keys, ch


def write(path, text):
    with open(path, "w") as out:
        out.write(text)


def cmd_shipped(outdir):
    code, _, files = read_table()
    os.makedirs(outdir, exist_ok=True)
    seen = set()
    for f in files:
        if f["name"] in seen:
            die("duplicate file %s" % f["name"])
        seen.add(f["name"])
        text, _, _ = render(code, f)
        write(os.path.join(outdir, f["name"] + ".litmus"), text)
    print("%d files" % len(files))


def family(code):
    out = []
    for shape, (wc, rc) in GRID.items():
        keys = ("waker", "sleeper") if shape == "wakeup" else BARRIERS[shape]
        for slots in (["-"] if shape == "wakeup" else ["plain", "once"]):
            for w in wc:
                for r in rc:
                    name = "fam-%s-%s-%s-%s-%s" % (
                        shape, keys[0].lower(), w, keys[1].lower(), r)
                    if slots != "-":
                        name += "-" + slots
                    ordr = "WAKE" if shape == "wakeup" else "FULL"
                    out.append(dict(name=name, shape=shape, ordering=ordr,
                                    changes="-", slots=slots, what="",
                                    family={keys[0]: w, keys[1]: r}))
    return out


def cmd_family(outdir):
    code, _, _ = read_table()
    os.makedirs(outdir, exist_ok=True)
    fam = family(code)
    with open(os.path.join(outdir, "list"), "w") as lst:
        for f in fam:
            text = render_family(code, f)
            write(os.path.join(outdir, f["name"] + ".litmus"), text)
            keys = list(f["family"])
            lst.write("%s %s %s %s %s\n" % (f["name"], f["shape"],
                                            f["family"][keys[0]],
                                            f["family"][keys[1]], f["slots"]))
    print("%d files" % len(fam))


def render_family(code, f):
    shape, ch = f["shape"], f["family"]
    keys = list(ch)
    out = ["Generated by tools/litmus-gen.py family: one cell of",
           "docs/litmus-grid.md.", ""]
    out += SHAPE_TEXT[shape].split("\n") + [""]
    for b in keys:
        out += wrap("%s: %s" % (b, choice_text(b, ch[b])))
    if shape != "wakeup":
        out += wrap("Record: %s." % ("plain C accesses" if f["slots"] ==
                                     "plain" else "READ_ONCE/WRITE_ONCE"))
    hdr = ["(*"] + [(" * " + l).rstrip() for l in out] + [" *)"]
    lines = ["C " + f["name"], ""] + hdr + ["", "{}", ""] + \
        body(shape, ch, f["slots"])
    return "\n".join(lines) + "\n"


# ---- the grid ----

def verdict_cell(v):
    if v is None:
        return "?"
    res, race = v
    return res + (" + race" if race == "flagged" else "")


def cmd_grid(famdir, results):
    code, wake, files = read_table()
    got = {}
    with open(results) as f:
        for line in f:
            w = line.split()
            if len(w) == 3:
                got[w[0]] = (w[1], w[2])
    cells = {}
    with open(os.path.join(famdir, "list")) as f:
        for line in f:
            name, shape, w, r, slots = line.split()
            cells[(shape, w, r, slots)] = got.get(name)
    counts = {}
    for v in got.values():
        k = verdict_cell(v)
        counts[k] = counts.get(k, 0) + 1
    o = []
    o.append("# The ring's litmus family: which barrier is needed where")
    o.append("")
    o.append("Generated by `tools/litmus-gen.py grid` from herd7's verdicts "
             "(herdtools7 7.58, Linux-kernel memory model lkmmv2: "
             "linux-kernel.cfg of mainline `tools/memory-model`) on the "
             "family `tools/litmus-gen.py family` writes from "
             "[litmus/ring.table](../litmus/ring.table); "
             "`tests/litmus/long_litmus_family.sh` (`make check-long`) "
             "regenerates it and fails if this page differs (run it with "
             "`PFR_UPDATE_GRID=1` to rewrite the page after a deliberate "
             "change).  Do not edit by hand.")
    o.append("")
    o.append("Each cell is one litmus test: the writer's barrier (row) "
             "against the reader's (column), the record accessed with plain "
             "C (as the ring's `memcpy` does) or with `READ_ONCE`/"
             "`WRITE_ONCE` (marked).  *Never* means the bad outcome is "
             "forbidden; *Sometimes* that the model allows it; *+ race* that "
             "herd7 flags a data race on the record.  Cells marked with an "
             "ordering's name are the ring's code today (KERNEL: the "
             "kernel's writer with perfring's reader).")
    o.append("")
    total = sum(counts.values())
    o.append("%d tests: %s." % (total, ", ".join(
        "%d %s" % (counts[k], k) for k in sorted(counts))))
    o.append("")
    names = {
        "ctrl": "READ_ONCE + branch", "none": "READ_ONCE, no branch",
        "once": "WRITE_ONCE", "rmb": "smp_rmb", "wmb": "smp_wmb",
        "mb": "smp_mb", "acquire": "load_acquire",
        "release": "store_release", "relacq": "release/acquire",
    }
    titles = {
        "pub": ("Publication, B with C",
                "New head, stale record?  Rows: B, before the writer's head "
                "store; columns: C, after the reader's head load."),
        "reuse": ("Slot reuse, A with D",
                  "A record overwritten while it is read?  Rows: A, after "
                  "the writer's tail load; columns: D, before the reader's "
                  "tail store."),
        "wakeup": ("Wake-up",
                   "A lost wake-up?  Rows: the waker, between its store and "
                   "its load; columns: the sleeper, likewise."),
    }
    wake_names = dict(names, none="no barrier")
    for shape, (wc, rc) in GRID.items():
        keys = ("waker", "sleeper") if shape == "wakeup" else BARRIERS[shape]
        nm = wake_names if shape == "wakeup" else names
        marks = {}
        if shape == "wakeup":
            marks[("mb", "mb")] = ["ring"]
        else:
            for ordr in ("FULL", "ACQREL", "CTRLDEP", "KERNEL"):
                k = (code[(ordr, keys[0])][0], code[(ordr, keys[1])][0])
                marks.setdefault(k, []).append(ordr)
        for slots in (["-"] if shape == "wakeup" else ["plain", "once"]):
            sub = "" if slots == "-" else (
                ", plain record" if slots == "plain" else
                ", marked record (hypothetical)")
            o.append("## %s%s" % (titles[shape][0], sub))
            o.append("")
            o.append(titles[shape][1])
            o.append("")
            o.append("| %s \\ %s | %s |" % (keys[0], keys[1], " | ".join(
                nm[c] for c in rc)))
            o.append("|---|" + "---|" * len(rc))
            for w in wc:
                row = []
                for r in rc:
                    c = verdict_cell(cells.get((shape, w, r, slots)))
                    m = marks.get((w, r)) if slots in ("plain", "-") else None
                    if m:
                        c = "**%s** (%s)" % (c, ", ".join(m))
                    row.append(c)
                o.append("| %s | %s |" % (nm[w], " | ".join(row)))
            o.append("")
    # per ordering: each barrier as coded, removed, and weakened
    o.append("## Each ordering's barriers, removed or replaced (plain record)")
    o.append("")
    o.append("For each ordering and barrier: the verdict with the code as "
             "it is, then with that barrier alone replaced by each other "
             "primitive (the partner barrier as coded).  *Removed* is "
             "`READ_ONCE` + branch at A and C, `WRITE_ONCE` alone at B "
             "and D.")
    o.append("")
    o.append("| ordering | barrier | as coded | removed | replaced by |")
    o.append("|---|---|---|---|---|")
    for ordr in ("FULL", "ACQREL", "CTRLDEP", "KERNEL"):
        for shape in ("reuse", "pub"):
            keys = BARRIERS[shape]
            base = {b: code[(ordr, b)][0] for b in keys}
            for i, b in enumerate(keys):
                def cell(c):
                    ch = dict(base)
                    ch[b] = c
                    return verdict_cell(cells.get(
                        (shape, ch[keys[0]], ch[keys[1]], "plain")))
                choices = GRID[shape][i]
                others = [c for c in choices
                          if c not in (base[b], REMOVED[b], "none")]
                o.append("| %s | %s: %s | %s | %s | %s |" % (
                    ordr, b, names[base[b]], cell(base[b]),
                    cell(REMOVED[b]) if base[b] != REMOVED[b] else "-",
                    "; ".join("%s: %s" % (names[c], cell(c))
                              for c in others)))
    o.append("")
    out = []
    for line in o:
        if line and line[0] not in "|#":
            out += wrap(line, 76)
        else:
            out.append(line)
    sys.stdout.write("\n".join(out) + "\n")


# ---- the code check ----

PROBE = """/* litmus-gen.py: every barrier macro as a marker (never compiled) */
#define PFR_BARRIER_BACKEND "probe"
#define pfr_barrier() PROBE_barrier()
#define PFR_READ_ONCE(x) PROBE_read_once(x)
#define PFR_WRITE_ONCE(x, v) PROBE_write_once(x, v)
#define pfr_smp_mb() PROBE_mb()
#define pfr_smp_rmb() PROBE_rmb()
#define pfr_smp_wmb() PROBE_wmb()
#define pfr_smp_tmb() PROBE_tmb()
#define pfr_smp_load_acquire(p) PROBE_load_acquire(p)
#define pfr_smp_store_release(p, v) PROBE_store_release(p, v)
#define pfr_smp_acquire__after_ctrl_dep() PROBE_acquire__after_ctrl_dep()
#define pfr__fence_acquire() PROBE_fence_acquire()
#define pfr__fence_release() PROBE_fence_release()
#define pfr_cpu_relax() PROBE_cpu_relax()
"""


def preprocess(cc):
    with tempfile.TemporaryDirectory() as d:
        hdr = os.path.join(d, "probe.h")
        write(hdr, PROBE)
        cmd = cc.split() + ["-E", "-P", "-D_GNU_SOURCE", "-I" + TOP +
                            "/include", "-I" + TOP + "/src",
                            '-DPFR_BARRIER_OVERRIDE="%s"' % hdr,
                            os.path.join(TOP, "src", "ring", "ring.c")]
        r = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
        if r.returncode:
            die("%s failed:\n%s" % (" ".join(cmd), r.stderr))
        return r.stdout


def function_body(text, fn):
    m = re.search(r"\b%s\s*\([^;{)]*\)\s*\{" % re.escape(fn), text)
    if not m:
        return None
    i, depth = m.end(), 1
    while depth and i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[m.end():i - 1]


def ordering_arm(body, ordering):
    """The code a body runs for one ordering: a function of A-D switches on
    its ordering argument (switch (ord) { case PFR_ORDER_X: ... }); the
    result is the body with the switch replaced by the arm of
    PFR_ORDER_<ordering> (from its label, past any labels that share it, to
    the next label), or None when the switch has no such arm.  A body with
    no switch is returned whole."""
    m = re.search(r"\bswitch\s*\([^)]*\)\s*\{", body)
    if not m:
        return body
    i, depth = m.end(), 1
    while depth and i < len(body):
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        i += 1
    sw = body[m.end():i - 1]
    label = re.compile(r"\b(?:case\s+\w+|default)\s*:")
    a = re.search(r"\bcase\s+PFR_ORDER_%s\s*:" % re.escape(ordering), sw)
    if not a:
        return None
    j = re.compile(r"(?:\s*(?:case\s+\w+|default)\s*:)*").match(
        sw, a.end()).end()
    nxt = label.search(sw, j)
    arm = sw[j:nxt.start() if nxt else len(sw)]
    return body[:m.start()] + arm + body[i:]


def probes(s):
    return re.findall(r"PROBE_(\w+)\(", s)


def classify(bar, text):
    """The primitive a body uses at barrier bar, in the table's words."""
    p = [x for x in probes(text) if x != "barrier"]
    if bar in "AC":
        if not p:
            return "no load"
        if p[0] == "load_acquire":
            return "acquire"
        if p[0] != "read_once":
            return "starts with " + p[0]
        if len(p) > 1 and p[1] in ("mb", "rmb", "wmb"):
            return p[1]
        if len(p) > 1 and p[1] == "acquire__after_ctrl_dep":
            return "acqctrl"
        return "ctrl" if re.search(r"\bif\b", text) else "none"
    # B, D: the primitive up to the first store
    for i, x in enumerate(p):
        if x == "store_release":
            return "release"
        if x == "write_once":
            return p[i - 1] if i and p[i - 1] in ("mb", "rmb", "wmb") \
                else "once"
    return "no store"


LITMUS_TO_PROBE = [
    (r"\bREAD_ONCE\(", "PROBE_read_once("),
    (r"\bWRITE_ONCE\(", "PROBE_write_once("),
    (r"\bsmp_load_acquire\(", "PROBE_load_acquire("),
    (r"\bsmp_store_release\(", "PROBE_store_release("),
    (r"\bsmp_(mb|rmb|wmb)\(\)", r"PROBE_\1()"),
]


def file_barriers(path, shape, keys):
    """The primitive at each barrier of a litmus file of the given shape,
    read from its processes: the record's accesses (rec, slot) left out,
    the rest classified as the C code is."""
    with open(path) as f:
        text = f.read()
    procs = re.findall(r"^P([01])\([^)]*\)\s*\{(.*?)^\}", text, re.M | re.S)
    if len(procs) != 2:
        raise ValueError("want processes P0 and P1")
    body = {}
    for n, b in procs:
        b = "\n".join(l for l in b.split("\n")
                      if not re.search(r"\b(rec|slot)\b", l))
        for pat, rep in LITMUS_TO_PROBE:
            b = re.sub(pat, rep, b)
        body[int(n)] = b
    if shape == "wakeup":
        out = {}
        for n, k in enumerate(keys):
            p = probes(body[n])
            fences = [x for x in p if x in ("mb", "rmb", "wmb")]
            if "store_release" in p and "load_acquire" in p:
                out[k] = "relacq"
            else:
                out[k] = fences[0] if len(fences) == 1 else \
                    ("none" if not fences else "several")
        return out
    return {keys[0]: classify(keys[0], body[0]),
            keys[1]: classify(keys[1], body[1])}


def cmd_check_code():
    code, wake, files = read_table()
    text = preprocess(os.environ.get("CC") or "cc")
    n = bad = 0

    def tap(ok, what):
        nonlocal n, bad
        n += 1
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok:
            bad += 1
    for (ordr, bar), (prim, fn) in sorted(code.items()):
        if fn.startswith("kernel:"):
            continue
        b = function_body(text, fn)
        if b is None:
            tap(False, "%s %s: no function %s() in the code" %
                (ordr, bar, fn))
            continue
        # KERNEL's C and D are perfring's reader with the ACQREL ordering
        # (src/perf/perf.c's, checked below)
        arm = ordering_arm(b, "ACQREL" if ordr == "KERNEL" else ordr)
        if arm is None:
            tap(False, "%s %s: %s() has no case PFR_ORDER_%s" %
                (ordr, bar, fn, ordr))
            continue
        got = classify(bar, arm)
        tap(got == prim, "%s %s in %s(): table %s, code %s" %
            (ordr, bar, fn, prim, got))
    for side, prim, fn, stored, loaded in wake:
        b = function_body(text, fn)
        if b is None:
            tap(False, "wake-up %s: no function %s()" % (side, fn))
            continue
        # the fence after the store of `stored`, before the load of `loaded`
        m = re.search(r"%s.*?PROBE_(\w+)\(\)\s*;(.*?)%s" %
                      (re.escape(stored), re.escape(loaded)), b, re.S)
        got = m.group(1) if m else "none"
        # nothing but the fence between: no other fence in the gap
        if m and [x for x in probes(m.group(2))
                  if x in ("mb", "rmb", "wmb", "tmb")]:
            got = "more than one fence"
        tap(got == prim, "wake-up %s in %s(): %s store, %s, %s load "
            "(code: %s)" % (side, fn, stored, prim, loaded, got))
    # Each shipped file's text, read back the same way: the primitive at
    # each of its barriers is the table's for its ordering (with its
    # changes), independently of how the generator renders it.
    for f in files:
        keys, ch, _ = barriers_of(code, f["shape"], f["ordering"],
                                  f["changes"])
        path = os.path.join(TOP, "litmus", f["name"] + ".litmus")
        try:
            got = file_barriers(path, f["shape"], keys)
        except (OSError, ValueError) as e:
            tap(False, "litmus/%s.litmus: %s" % (f["name"], e))
            continue
        want = {k: ("rmb" if v == "acqctrl" else v) for k, v in ch.items()}
        tap(got == want, "litmus/%s.litmus: %s (table: %s)" % (
            f["name"], ", ".join("%s %s" % (k, got[k]) for k in keys),
            ", ".join("%s %s" % (k, want[k]) for k in keys)))
    # KERNEL's C and D are perfring's reader of the kernel's ring, which
    # reads with the ACQREL ordering.
    with open(os.path.join(TOP, "src", "perf", "perf.c")) as f:
        perf = f.read()
    m = re.search(r"pfr_reader_init\((.*?)\);", perf, re.S)
    tap(bool(m) and "PFR_ORDER_ACQREL" in m.group(1),
        "KERNEL C, D: src/perf/perf.c reads the kernel's ring with "
        "PFR_ORDER_ACQREL")
    # The snapshot of an overwrite (backward) ring loads the kernel's head
    # itself: KERNEL's C, an acquire; herd7 finds the shape with that
    # load a READ_ONCE Sometimes (ring-pub-ctrldep-no-c: the kernel's B
    # is CTRLDEP's smp_wmb).
    # (its parameters hold a function pointer: the body is found from the
    # definition's opening brace, alone on its line; defined as
    # pfr__perf_ring_snapshot_v03 since PERFRING_0.3, src/abi/compat.h)
    b = None
    m = re.search(r"^\w[^\n;]*\bpfr__perf_ring_snapshot_v03\(.*?\n\{", perf,
                  re.S | re.M)
    if m:
        i, depth = m.end(), 1
        while depth and i < len(perf):
            depth += {"{": 1, "}": -1}.get(perf[i], 0)
            i += 1
        b = perf[m.end():i - 1]
    loads = re.findall(r"(pfr_smp_load_acquire|PFR_READ_ONCE)\s*\([^;]*"
                       r"data_head", b or "")
    tap(loads == ["pfr_smp_load_acquire"],
        "KERNEL C in pfr_perf_ring_snapshot(): data_head loaded with "
        "acquire, as litmus/ring-pub-kernel.litmus (code: %s)" %
        (", ".join(loads) or "no load of data_head"))
    print("1..%d" % n)
    return 1 if bad else 0


def cmd_code_litmus(outdir):
    """code-litmus DIR: see the usage above."""
    code, _, _ = read_table()
    text = preprocess(os.environ.get("CC") or "cc")
    os.makedirs(outdir, exist_ok=True)
    bad = 0
    with open(os.path.join(outdir, "list"), "w") as lst:
        for ordr in ("FULL", "ACQREL", "CTRLDEP"):
            for shape, keys in sorted(BARRIERS.items()):
                ch = {}
                for bar in keys:
                    fn = code.get((ordr, bar), (None, None))[1]
                    b = function_body(text, fn) if fn else None
                    arm = ordering_arm(b, ordr) if b is not None else None
                    got = classify(bar, arm) if arm is not None else None
                    choices = LOAD_CHOICES if bar in "AC" else \
                        STORE_CHOICES
                    if got not in choices:
                        sys.stderr.write("%s %s in %s(): %s\n" % (
                            ordr, bar, fn, got or "not found"))
                        bad = 1
                        got = None
                    ch[bar] = got
                if None in ch.values():
                    continue
                name = "code-%s-%s" % (shape, ordr.lower())
                f = dict(name=name, shape=shape, ordering=ordr,
                         changes="-", slots="plain", what="", family=ch)
                t = render_family(code, f).replace(
                    "Generated by tools/litmus-gen.py family: one cell of\n"
                    " * docs/litmus-grid.md.",
                    "Generated by tools/litmus-gen.py code-litmus: the\n"
                    " * barriers of the code's %s ordering today." % ordr)
                write(os.path.join(outdir, name + ".litmus"), t)
                lst.write("%s %s %s %s %s %s %s\n" % (
                    name, shape, ordr, keys[0], ch[keys[0]], keys[1],
                    ch[keys[1]]))
    return bad


def cmd_cells():
    """The shipped files that are cells of the grid: NAME SHAPE W R SLOTS
    RESULT RACE, so their stated verdicts can be checked against the
    family's."""
    code, _, files = read_table()
    for f in files:
        keys, ch, _ = barriers_of(code, f["shape"], f["ordering"],
                                  f["changes"])
        wc, rc = GRID[f["shape"]]
        if ch[keys[0]] in wc and ch[keys[1]] in rc:
            print("%s %s %s %s %s %s %s" % (f["name"], f["shape"],
                                            ch[keys[0]], ch[keys[1]],
                                            f["slots"], f["result"],
                                            f["race"]))


# ---- the group's files (litmus/group.table) ----

GROUP_TABLE = os.path.join(TOP, "litmus", "group.table")
GROUP_SRC = "src/writers/group.c"


def read_group_table(path=GROUP_TABLE, kind_words=1):
    """shape, barrier and mutant rows; a barrier's KIND is kind_words
    words (litmus/mpsc.table: "CAS release")."""
    shapes, barriers, mutants = [], [], []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            continue
        head, _, rest = line.partition(" | ")
        w = head.split()
        parts = [x.strip() for x in rest.split(" | ")] if rest else []
        if w[0] == "shape" and len(w) == 2 and not parts:
            shapes.append(w[1])
        elif w[0] == "barrier" and 5 <= len(w) <= 4 + kind_words and \
                len(parts) == 1:
            barriers.append({"shape": w[1], "label": w[2], "fn": w[3],
                             "kind": " ".join(w[4:]), "line": parts[0]})
        elif w[0] == "mutant" and len(w) == 5 and len(parts) == 3:
            mutants.append({"shape": w[1], "file": w[2], "result": w[3],
                            "race": w[4], "line": parts[0],
                            "new": parts[1], "text": parts[2]})
        else:
            die("%s:%d: bad row" % (path, n))
    for r in barriers + mutants:
        if r["shape"] not in shapes:
            die("%s: shape %s not declared" % (path, r["shape"]))
    return shapes, barriers, mutants


def find_line(lines, spec):
    """Index of the line spec ("TEXT" or "Pn: TEXT") in a litmus file,
    -1 unless it is there exactly once."""
    m = re.match(r"(P\d+): (.*)$", spec)
    proc_, text = (m.group(1), m.group(2)) if m else (None, spec)
    cur, found = None, []
    for i, ln in enumerate(lines):
        pm = re.match(r"(P\d+)\(", ln)
        if pm:
            cur = pm.group(1)
        if ln.strip() == text and (proc_ is None or cur == proc_):
            found.append(i)
    return found[0] if len(found) == 1 else -1


def render_group_mutant(m):
    base = os.path.join(TOP, "litmus", m["shape"] + ".litmus")
    lines = open(base, encoding="utf-8").read().split("\n")
    i = find_line(lines, m["line"])
    if i < 0:
        die("%s: line %r not found once" % (base, m["line"]))
    if m["new"] == "-":
        del lines[i]
    else:
        lines[i] = re.match(r"\s*", lines[i]).group(0) + m["new"]
    race = m["race"] == "flagged"
    out = []
    skip = False
    for ln in lines:
        if ln.startswith("C "):
            ln = "C " + m["file"]
        elif ln.startswith(" * Result:"):
            ln = " * Result: " + m["result"]
        elif ln.startswith(" * Data race:"):
            ln = " * Data race: " + m["race"]
        elif ln.startswith(" * Expected:"):
            ln = " * Expected: %s, %s" % (
                m["result"], "data race" if race else "no data race")
        elif ln.startswith(" * Ordering:"):
            out += [" * " + x for x in
                    wrap("Ordering: mutant of %s - %s" %
                         (m["shape"], m["text"]), 72)]
            skip = True
            continue
        elif skip and ln.startswith(" *") and not ln.startswith(" *)"):
            continue
        skip = False
        out.append(ln)
    return "\n".join(out)


def cmd_group_shipped(outdir, table=GROUP_TABLE, kind_words=1):
    _, _, mutants = read_group_table(table, kind_words)
    os.makedirs(outdir, exist_ok=True)
    for m in mutants:
        write(os.path.join(outdir, m["file"] + ".litmus"),
              render_group_mutant(m))
    print("%d files" % len(mutants))


def load_mutate():
    import importlib.util
    sys.dont_write_bytecode = True  # no tools/__pycache__ in the tree
    spec = importlib.util.spec_from_file_location(
        "mutate", os.path.join(TOP, "tools", "mutate.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def cmd_group_check_code():
    shapes, barriers, mutants = read_group_table()
    mutate = load_mutate()
    sites = [s for s in mutate.discover(TOP) if s.path == GROUP_SRC]
    src_lines = open(os.path.join(TOP, GROUP_SRC),
                     encoding="utf-8").read().split("\n")
    n, bad = 0, 0

    def tap(ok, what):
        nonlocal n, bad
        n += 1
        bad += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))

    def cites(s):
        """The litmus files cited by the comment at site s: its own line,
        the statement's lines above it and the comment block above."""
        j = s.line - 1
        block = [src_lines[j]]
        k = j - 1
        while k >= 0 and (re.match(r"^\s*(/\*|\*|//)", src_lines[k]) or
                          not re.search(r"[;{}]\s*(/\*.*\*/)?\s*$",
                                        src_lines[k])):
            block.insert(0, src_lines[k])
            k -= 1
        return set(re.findall(r"litmus/([\w.+-]+)\.litmus", " ".join(block)))

    for b in barriers:
        label = "purpose" if b["label"] == "-" else b["label"]
        hits = [s for s in sites if s.func == b["fn"] and
                s.label == label and s.kind.startswith(b["kind"])]
        files = {b["shape"]} | {m["file"] for m in mutants
                                if m["shape"] == b["shape"]}
        citing = [s for s in hits if cites(s) & files]
        tap(bool(citing), "%s: %s %s in %s() citing litmus/%s.litmus or a "
            "mutant of it (%s)" % (
                GROUP_SRC, b["kind"], b["label"], b["fn"], b["shape"],
                ", ".join(s.id for s in citing) or
                "found: " + (", ".join(s.id for s in hits) or "none")))
        lines = open(os.path.join(TOP, "litmus", b["shape"] + ".litmus"),
                     encoding="utf-8").read().split("\n")
        tap(find_line(lines, b["line"]) >= 0, "litmus/%s.litmus has %r" %
            (b["shape"], b["line"]))
    # every barrier of the hand-over (J, P, L, S, F, R) cites a file of
    # the table
    known = set(shapes) | {m["file"] for m in mutants}
    for s in sites:
        if s.label in ("J", "P", "L", "S", "F", "R"):
            tap(bool(cites(s) & known), "%s (%s in %s()) cites a group "
                "litmus file" % (s.id, s.label, s.func))
    print("1..%d" % n)
    return 1 if bad else 0


# ---- the shared MPSC ring's files (litmus/mpsc.table) ----

MPSC_TABLE = os.path.join(TOP, "litmus", "mpsc.table")
MPSC_SRCS = ("include/perfring/mpsc.h", "src/writers/mpsc.c")
# the labels of the ring's pairings: each such barrier cites a file
MPSC_LABELS = ("N", "R", "H", "B", "C1", "C2", "A", "D")


class MacroSite:
    """A CAS that tools/mutate.py does not see: a call of a macro whose
    definition passes __ATOMIC_<ORDER> to pfr__mpsc_cas()."""

    def __init__(self, path, line, func, label, kind, cite_lines):
        self.path, self.line, self.func = path, line, func
        self.label, self.kind, self.cite_lines = label, kind, cite_lines
        self.id = "%s:%d" % (path, line)


def mpsc_macro_sites(mutate):
    """Every call of a macro that wraps pfr__mpsc_cas() with an ordering
    other than relaxed, in MPSC_SRCS: its label and the lines cited for it
    are the macro definition's (its comment, in or above the definition);
    its function the caller's."""
    texts = {p: open(os.path.join(TOP, p), encoding="utf-8").read()
             for p in MPSC_SRCS}
    macros = {}
    for p, text in texts.items():
        lines = text.split("\n")
        for i, ln in enumerate(lines):
            m = re.match(r"\s*#\s*define\s+(\w+)\(", ln)
            if not m:
                continue
            j = i
            while lines[j].rstrip().endswith("\\"):
                j += 1
            body = "\n".join(lines[i:j + 1])
            o = re.search(r"pfr__mpsc_cas\s*\(.*?__ATOMIC_(\w+)", body, re.S)
            if not o or o.group(1) == "RELAXED" or m.group(1) == "pfr__mpsc_cas":
                continue
            k = i - 1
            above = []
            while k >= 0 and re.match(r"^\s*(/\*|\*|//)", lines[k]):
                above.insert(0, lines[k])
                k -= 1
            cl = above + lines[i:j + 1]
            com = " ".join(re.sub(r"^\s*(/\*+|\*+/?|//)\s?", "",
                                  re.sub(r"\\\s*$", "", x).strip())
                           for x in lines[i + 1:j + 1])
            lm = mutate.LABEL_RE.match(com)
            label = lm.group(1) if lm else (
                "purpose" if re.search(r"purpose:", com, re.I) else "?")
            macros[m.group(1)] = (label, "CAS %s -> relaxed" %
                                  o.group(1).lower(), cl)
    sites = []
    for p, text in texts.items():
        lines = text.split("\n")
        for i, ln in enumerate(lines):
            if re.match(r"\s*#\s*define", ln) or \
                    re.match(r"^\s*(\*|/\*|//)", ln):
                continue
            for name, (label, kind, cl) in macros.items():
                if re.search(r"\b%s\s*\(" % name, ln):
                    sites.append(MacroSite(p, i + 1,
                                           mutate.function_of(lines, i),
                                           label, kind, cl))
    return sites


def cmd_mpsc_check_code():
    shapes, barriers, mutants = read_group_table(MPSC_TABLE, 2)
    mutate = load_mutate()
    sites = [s for s in mutate.discover(TOP) if s.path in MPSC_SRCS]
    sites += mpsc_macro_sites(mutate)
    src = {p: open(os.path.join(TOP, p), encoding="utf-8").read().split("\n")
           for p in MPSC_SRCS}
    n, bad = 0, 0

    def tap(ok, what):
        nonlocal n, bad
        n += 1
        bad += not ok
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))

    def cites(s):
        """The litmus files cited at site s: a macro's comment, or the
        barrier's line, the statement's lines above it and the comment
        block above (as group-check-code reads them)."""
        if isinstance(s, MacroSite):
            block = s.cite_lines
        else:
            lines = src[s.path]
            j = s.line - 1
            block = [lines[j]]
            k = j - 1
            while k >= 0 and (re.match(r"^\s*(/\*|\*|//)", lines[k]) or
                              not re.search(r"[;{}]\s*(/\*.*\*/)?\s*$",
                                            lines[k])):
                block.insert(0, lines[k])
                k -= 1
        return set(re.findall(r"litmus/([\w.+-]+)\.litmus", " ".join(block)))

    for b in barriers:
        label = "purpose" if b["label"] == "-" else b["label"]
        hits = [s for s in sites if s.func == b["fn"] and
                s.label == label and s.kind.startswith(b["kind"])]
        files = {b["shape"]} | {m["file"] for m in mutants
                                if m["shape"] == b["shape"]}
        citing = [s for s in hits if cites(s) & files]
        tap(bool(citing), "%s %s in %s() citing litmus/%s.litmus or a "
            "mutant of it (%s)" % (
                b["kind"], b["label"], b["fn"], b["shape"],
                ", ".join(s.id for s in citing) or
                "found: " + (", ".join(s.id for s in hits) or "none")))
        lines = open(os.path.join(TOP, "litmus", b["shape"] + ".litmus"),
                     encoding="utf-8").read().split("\n")
        tap(find_line(lines, b["line"]) >= 0, "litmus/%s.litmus has %r" %
            (b["shape"], b["line"]))
    # every barrier labelled with a pairing of the ring cites a file of
    # the table, and every shape has a barrier row
    known = set(shapes) | {m["file"] for m in mutants}
    for s in sites:
        if s.label in MPSC_LABELS:
            tap(bool(cites(s) & known), "%s (%s in %s()) cites an mpsc "
                "litmus file" % (s.id, s.label, s.func))
    for sh in shapes:
        tap(any(b["shape"] == sh for b in barriers),
            "litmus/%s.litmus: a barrier row ties it to the code" % sh)
    print("1..%d" % n)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "shipped" and len(argv) == 3:
        cmd_shipped(argv[2])
    elif len(argv) == 3 and argv[1] == "family":
        cmd_family(argv[2])
    elif len(argv) == 4 and argv[1] == "grid":
        cmd_grid(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "code-litmus":
        return cmd_code_litmus(argv[2])
    elif len(argv) == 2 and argv[1] == "cells":
        cmd_cells()
    elif len(argv) == 2 and argv[1] == "check-code":
        return cmd_check_code()
    elif len(argv) == 3 and argv[1] == "group-shipped":
        cmd_group_shipped(argv[2])
    elif len(argv) == 2 and argv[1] == "group-check-code":
        return cmd_group_check_code()
    elif len(argv) == 3 and argv[1] == "mpsc-shipped":
        cmd_group_shipped(argv[2], MPSC_TABLE, 2)
    elif len(argv) == 2 and argv[1] == "mpsc-check-code":
        return cmd_mpsc_check_code()
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
