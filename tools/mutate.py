#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation testing of the library's barriers (docs/testing.md).

Finds every ordering point in the library's code -- the lines that
tools/lint-barriers.sh requires a label on: pfr_smp_*(), load_acquire,
store_release, fences and __ATOMIC_* orders, in src/ and
include/perfring/ (barrier.h, arch/ and linux-compat.h define the
primitives and are left out) -- and weakens each in turn in a scratch copy
of the tree:

  pfr_smp_load_acquire(p)       -> PFR_READ_ONCE(*(p))       acquire -> plain
  pfr_smp_store_release(p, v)   -> PFR_WRITE_ONCE(*(p), v)   release -> plain
  pfr_smp_mb/rmb/wmb/tmb(), pfr_smp_acquire__after_ctrl_dep()
                                -> pfr_barrier()             fence -> none
  __ATOMIC_ACQUIRE/RELEASE/ACQ_REL/SEQ_CST in an __atomic_*() call or
  in a call of the library's CAS wrapper (pfr__mpsc_cas(), in a macro)
                                -> __ATOMIC_RELAXED (a CAS: every order
                                   of the call)               -> relaxed

then runs the tests that should notice, cheapest first, and stops at the
first that fails (the mutant is "caught"):

  model:<name>   a Relacy model (tests/model/t_relacy*.sh) whose C file
                 includes the mutated file (found with cc -MM; the model
                 with the fewest inputs first), case by case in the
                 model's own order; only the model's correct cases count
  tsan           tests/sanitize/t_tsan.sh (threaded unit tests and
                 stresses built with -fsanitize=thread)
  litmus         tools/litmus-gen.py check-code, group-check-code and
                 mpsc-check-code:
                 the code no longer has the shape of its litmus file,
                 whose mutant without that barrier herd7 finds Sometimes
                 (for what C11 cannot express, such as the group's R)
  unit           the unit tests of the mutated file's concern and the
                 stresses, built normally

A mutant listed in EQUIVALENT below is not run: no test can fail it, for
the reason docs/mutation.md argues; it is listed as "equivalent (argued in
docs/mutation.md)", and counted apart from the caught and the survivors.
A mutant no test fails "survives"; the run then exits 1.  The scratch copy
(the tree without .git and build directories) has its own build
directories; the mutated file is restored after each mutant.

Usage:
  mutate.py list                      the sites and their mutants
  mutate.py run [--only PAT]... [--catchers model,tsan,litmus,unit]
                [--scratch DIR] [--results FILE] [--keep-going]
  mutate.py merge --out FILE [--keep PAT --note TEXT] IN...
                                      one table from the tables IN (a
                                      later row of a site replaces an
                                      earlier one); rows of sites that no
                                      longer exist are dropped, but those
                                      of a path matching PAT, kept with
                                      TEXT added to their "caught by"
PAT matches "file", "file:label", "file:function", a mutant id
(file:line), "file:first:KIND" (the first site of that kind in file),
"file:function:label" (a logic mutant's label is its class) or
"file:function:label#N" (the N-th of those, in the order listed).
A results file keeps whatever follows its NOTES_MARK line.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# The same primitives as tools/lint-barriers.sh.
BARRIER_RE = re.compile(
    r"pfr_smp_(mb|rmb|wmb|tmb|load_acquire|store_release|"
    r"acquire__after_ctrl_dep)[ \t]*\(|pfr__fence_(acquire|release)[ \t]*\(|"
    r"__atomic_thread_fence[ \t]*\(|__ATOMIC_(ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)")
EXCLUDE = {"include/perfring/barrier.h", "include/perfring/linux-compat.h"}

# Mutants no test can fail, by (file, function, mutation): each argued in
# docs/mutation.md under the heading "Equivalent mutants".
EQUIVALENT = {
    ("src/ring/wakefd_int.h", "pfr__waker_wake",
     "exchange_n seq_cst -> relaxed"),
    ("src/ring/ring.c", "pfr_reader_wait", "smp_mb -> none", "first"),
}
EQUIVALENT_BY = "equivalent (argued in docs/mutation.md)"
TRY_EQUIVALENT = False  # run --try-equivalent: run them too

NOTES_MARK = "<!-- notes: written by hand, kept by tools/mutate.py -->"


def equivalent(site, sites):
    """Whether site is a mutant of EQUIVALENT.  An entry with a fourth
    element "first" names the first site of that function and mutation
    (a function with two such barriers)."""
    if getattr(site, "logic", False):
        return bool(site.equiv) and not TRY_EQUIVALENT
    for e in EQUIVALENT:
        if (site.path, site.func, site.kind) != e[:3]:
            continue
        if len(e) == 3:
            return True
        same = [t for t in sites if (t.path, t.func, t.kind) == e[:3]]
        return same and same[0] is site
    return False
FUNC_RE = re.compile(r"^(?:[A-Za-z_][\w \t\*]*?[\s\*])?(\w+)\s*\(")
LABEL_RE = re.compile(
    r"^\s*([A-Z][A-Za-z0-9]{0,3}|lock|unlock)\s*(\([a-z ]+\)\s*)?[:,]")


def sources(top):
    out = []
    for d in ("src", "include/perfring"):
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            rel = os.path.relpath(root, top)
            if rel.startswith("include/perfring/arch"):
                continue
            for f in sorted(files):
                p = os.path.join(rel, f)
                if f.endswith((".c", ".h")) and p not in EXCLUDE:
                    out.append(p)
    return sorted(out)


def match_paren(text, i):
    """Index of the ')' closing the '(' at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced parentheses")


def split_args(s):
    args, depth, cur = [], 0, ""
    for c in s:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            args.append(cur)
            cur = ""
        else:
            cur += c
    args.append(cur)
    return args


def enclosing_call(text, pos):
    """(name, open_paren_index) of the call whose parentheses hold pos."""
    depth = 0
    for j in range(pos - 1, -1, -1):
        c = text[j]
        if c == ")":
            depth += 1
        elif c == "(":
            if depth == 0:
                m = re.search(r"(\w+)\s*$", text[:j])
                return (m.group(1) if m else "", j)
            depth -= 1
        elif c in ";{}" and depth == 0:
            break
    return ("", -1)


class Site:
    def __init__(self, path, line, func, label, kind, start, end, repl):
        self.path, self.line, self.func = path, line, func
        self.label, self.kind = label, kind
        self.start, self.end, self.repl = start, end, repl

    @property
    def id(self):
        return "%s:%d" % (self.path, self.line)


def comment_label(lines, idx):
    """The label of the barrier on line idx: its trailing comment or the
    comment block just above ("A", "J", "C1", "lock"... or "purpose")."""
    line = lines[idx]
    texts = []
    m = re.search(r"/\*(.*)", line)
    if m and not line.lstrip().startswith(("/*", "*")):
        texts.append(m.group(1))
    j = idx - 1
    block = []
    while j >= 0 and re.match(r"^\s*(/\*|\*|//)", lines[j]):
        block.insert(0, re.sub(r"^\s*(/\*+|\*+/?|//)\s?", "", lines[j]))
        j -= 1
    # a code line directly above that ends a call spanning lines: the
    # comment above the statement's first line
    if not block:
        k = idx - 1
        while k >= 0 and lines[k].strip() and not re.search(
                r"[;{}]\s*(/\*.*\*/)?\s*$", lines[k]):
            k -= 1
        j = k
        while j >= 0 and re.match(r"^\s*(/\*|\*|//)", lines[j]):
            block.insert(0, re.sub(r"^\s*(/\*+|\*+/?|//)\s?", "", lines[j]))
            j -= 1
    texts.append(" ".join(block))
    for t in texts:
        m = LABEL_RE.match(t)
        if m:
            return m.group(1)
    for t in texts:
        m = re.search(r"\b([A-Z][A-Z0-9]{0,2}|lock|unlock)\s*[:,]\s*"
                      r"(pairs|matches)", t)
        if m:
            return m.group(1)
    for t in texts:
        if re.search(r"purpose:", t, re.I):
            return "purpose"
    return "?"


def function_of(lines, idx):
    for j in range(idx, -1, -1):
        line = lines[j]
        if line[:1].isalpha() or line.startswith("PFR__INLINE"):
            m = FUNC_RE.match(line)
            if m and not line.startswith(("typedef", "struct", "enum")) \
                    and "=" not in line.split("(")[0]:
                return m.group(1)
        if line.startswith("#define"):
            m = re.match(r"#define\s+(\w+)", line)
            return m.group(1) if m else "?"
    return "?"


def discover(top):
    sites = []
    for path in sources(top):
        text = open(os.path.join(top, path), encoding="utf-8").read()
        lines = text.split("\n")
        starts = [0]
        for ln in lines:
            starts.append(starts[-1] + len(ln) + 1)
        seen_calls = set()
        for idx, line in enumerate(lines):
            if re.match(r"^\s*#\s*define", line) or \
                    re.match(r"^\s*(\*|/\*|//)", line):
                continue
            code = re.sub(r"/\*.*?(\*/|$)", "", line)
            for m in BARRIER_RE.finditer(code):
                pos = starts[idx] + m.start()
                tok = m.group(0)
                s = make_site(text, lines, path, idx, pos, tok, seen_calls)
                if s:
                    sites.append(s)
    return sites


# The library's own compare-and-swap wrappers, which take the order as an
# argument (the model build maps them onto its checker): a wrapper's call
# with an __ATOMIC_* order is a CAS site like __atomic_compare_exchange_n.
CAS_WRAPPERS = {"pfr__mpsc_cas"}


def make_site(text, lines, path, idx, pos, tok, seen_calls):
    func = function_of(lines, idx)
    label = comment_label(lines, idx)
    if tok.startswith("__ATOMIC_"):
        name, op = enclosing_call(text, pos)
        if op < 0 or not (name.startswith("__atomic") or
                          name in CAS_WRAPPERS):
            return None
        if op in seen_calls:
            return None  # one mutant per call
        seen_calls.add(op)
        cl = match_paren(text, op)
        body = text[op + 1:cl]
        new = re.sub(r"__ATOMIC_(ACQUIRE|RELEASE|ACQ_REL|SEQ_CST|CONSUME)",
                     "__ATOMIC_RELAXED", body)
        orders = re.findall(r"__ATOMIC_\w+", body)
        if name.startswith("__atomic_compare_exchange") or \
                name in CAS_WRAPPERS:
            kind = "CAS %s -> relaxed" % orders[0][9:].lower()
        elif name == "__atomic_thread_fence":
            kind = "fence -> none"
        else:
            kind = "%s %s -> relaxed" % (
                name[9:], "/".join(o[9:].lower() for o in orders))
        # the label: the comment of the call's first line if not here
        cline = text.count("\n", 0, op)
        if label == "?":
            label = comment_label(lines, cline)
        return Site(path, cline + 1, func, label, kind, op + 1, cl, new)
    op = pos + tok.index("(")
    cl = match_paren(text, op)
    args = split_args(text[op + 1:cl])
    name = tok.split("(")[0].strip()
    start = pos
    if name == "pfr_smp_load_acquire":
        return Site(path, idx + 1, func, label, "acquire -> plain", start,
                    cl + 1, "PFR_READ_ONCE(*(%s))" % args[0].strip())
    if name == "pfr_smp_store_release":
        return Site(path, idx + 1, func, label, "release -> plain", start,
                    cl + 1, "PFR_WRITE_ONCE(*(%s), %s)" %
                    (args[0].strip(), ",".join(args[1:]).strip()))
    what = name.replace("pfr_smp_", "smp_").replace("pfr__fence_",
                                                      "fence_")
    return Site(path, idx + 1, func, label, "%s -> none" % what, start,
                cl + 1, "pfr_barrier()")


# ---- logic mutants (tools/mutate_logic.py) ----

def function_span(text, func):
    """(start, end) of the body of func's definition in text (the
    definition: the name at the start of a line or after its return
    type, then the parameters, then the opening brace), or None."""
    m = re.search(r"^[A-Za-z_][^;{}\n]*\b%s\s*\([^;{]*?\)\s*\{" %
                  re.escape(func), text, re.M)
    if not m:
        return None
    i, depth = m.end(), 1
    while depth and i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return (m.end(), i - 1)


class LogicSite(Site):
    def __init__(self, e, line, start, end):
        Site.__init__(self, e["path"], line, e["func"], e["cls"],
                      "%s: %s" % (e["cls"], e["what"]), start, end,
                      e["new"])
        self.hint, self.equiv, self.logic = e["hint"], e["equiv"], True


def discover_logic(top):
    """The logic mutants that match today's code, and the entries that
    do not (their text not found in their function exactly once)."""
    sys.path.insert(0, os.path.join(top, "tools"))
    import mutate_logic
    sites, missing = [], []
    for e in mutate_logic.M:
        text = open(os.path.join(top, e["path"]), encoding="utf-8").read()
        span = function_span(text, e["func"])
        hits = []
        if span:
            k = text.find(e["old"], span[0], span[1])
            while 0 <= k:
                hits.append(k)
                k = text.find(e["old"], k + 1, span[1])
        if len(hits) != 1:
            missing.append("%s %s(): %s (%s)" % (
                e["path"], e["func"], e["what"],
                "no such function" if not span else
                "text found %d times" % len(hits)))
            continue
        line = text.count("\n", 0, hits[0]) + 1
        sites.append(LogicSite(e, line, hits[0], hits[0] + len(e["old"])))
    return sites, missing


# ---- catchers ----

def run(cmd, cwd, env, log, timeout):
    t0 = time.time()
    with open(log, "ab") as f:
        f.write(("$ %s\n" % " ".join(cmd)).encode())
        f.flush()
        try:
            p = subprocess.run(cmd, cwd=cwd, env=env, stdout=f,
                               stderr=subprocess.STDOUT, timeout=timeout)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            rc = -9
    return rc, time.time() - t0


def test_env(tree, build):
    env = dict(os.environ)
    env.update(PFR_TOP=tree, PFR_BUILD=build, PERFRING=build + "/perfring",
               RUNNER="", SANITIZE="", PFR_LONG="0")
    # herd7 next to this tree (tests/litmus/herd.sh looks beside the tree
    # it runs in, which a scratch copy is not)
    herd = os.path.join(os.path.dirname(TOP), "shared", "tools", "herd7",
                        "herd7-lkmm")
    if "PFR_HERD7" not in env and os.access(herd, os.X_OK):
        env["PFR_HERD7"] = herd
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    env.pop("MAKELEVEL", None)
    return env


class Models:
    """The Relacy models: tests/model/t_relacy*.sh and the C file each
    compiles (tests/model/model_NAME.c), with its dependencies."""

    def __init__(self, top):
        self.models = []
        if not os.path.exists("/usr/include/relacy/relacy.hpp"):
            return
        mdir = os.path.join(top, "tests/model")
        for f in sorted(os.listdir(mdir)):
            m = re.match(r"model_(\w+)\.c$", f)
            if not m:
                continue
            name = m.group(1)
            script = "t_relacy.sh" if name == "ring" else \
                "t_relacy_%s.sh" % name
            if not os.path.exists(os.path.join(mdir, script)):
                continue
            deps = self.deps(top, os.path.join(mdir, f), name)
            self.models.append((name, script, deps))

    @staticmethod
    def deps(top, cfile, name):
        barrier = "relacy-%s-barrier.h" % name
        if not os.path.exists(os.path.join(top, "tests/model", barrier)):
            barrier = "relacy-barrier.h"
        p = subprocess.run(
            ["cc", "-MM", "-D_GNU_SOURCE", "-I" + top + "/include",
             "-I" + top + "/src", "-I" + top + "/tests/model",
             '-DPFR_BARRIER_OVERRIDE="%s"' % barrier, cfile],
            capture_output=True, text=True)
        out = set()
        for w in p.stdout.replace("\\\n", " ").split()[1:]:
            out.add(os.path.relpath(os.path.realpath(
                os.path.join(top, "tests/model", w) if not
                os.path.isabs(w) else w), top))
        return out

    def covering(self, path):
        """The models that compile path, the most specific (fewest
        dependencies) first: the ring's own model before the group's,
        which includes the ring too."""
        return [(n, s) for n, s, d in sorted(self.models,
                                              key=lambda m: len(m[2]))
                if path in d]


def model_catch(tree, build, name, script, log, only=None):
    """Runs the model's cases one at a time (those of `only`, if given);
    (caught, what).  A correct case that fails catches the mutant.  A
    case of the model's own mutants that is no longer caught ("-> caught:
    nothing") means the model can no longer see what that mutant was made
    to show: if no correct case fails, the result is "model broken", with
    the case, which the run reports as a failure of its own."""
    env = test_env(tree, build)
    bin_ = os.path.join(build, "tests/model/relacy_" + name)
    # the script builds the binary when stale, then runs what it is given
    p = subprocess.run(["bash", "tests/model/" + script, "-l"], cwd=tree,
                       env=env, capture_output=True, text=True, timeout=900)
    with open(log, "a") as f:
        f.write(p.stdout[-4000:] + p.stderr[-4000:])
    if "not ok" in p.stdout or not os.path.exists(bin_):
        return True, "model:%s (does not build)" % name
    cases = [ln.split("\t")[0] for ln in p.stdout.splitlines()
             if "\t" in ln and not ln.startswith("#")]
    if only:
        cases = [c for c in cases if c in only]
    broken = []
    for c in cases:
        q = subprocess.run([bin_, c], cwd=tree, env=env,
                           capture_output=True, text=True, timeout=900)
        with open(log, "a") as f:
            lines = q.stdout.splitlines()
            f.write("\n".join(lines[:12] + ["# ..."] + lines[-30:]) + "\n")
        # a case of the model's own mutants ("-> caught") says nothing
        # about the code's barriers
        bad = [ln for ln in q.stdout.splitlines()
               if ln.startswith("not ok") and "-> caught" not in ln]
        if bad:
            return True, "model:%s %s" % (name, c)
        if any(ln.startswith("not ok") and "-> caught: nothing" in ln
               for ln in q.stdout.splitlines()):
            broken.append(c)
    if broken:
        return False, "MODEL BROKEN: model:%s's own mutant %s no longer " \
            "caught" % (name, ", ".join(broken))
    return False, "model:%s" % name


def tsan_catch(tree, build, log):
    env = test_env(tree, build)
    rc, _ = run(["bash", "tests/sanitize/t_tsan_threads.sh"], tree, env, log,
                1800)
    return rc not in (0, 77), "tsan (t_tsan_threads.sh)"


def litmus_catch(tree, build, log):
    """The code against its litmus files: a barrier of a shape that
    herd7 proves gone from the code fails the check."""
    env = test_env(tree, build)
    for cmd in ("check-code", "group-check-code", "mpsc-check-code"):
        rc, _ = run(["python3", "tools/litmus-gen.py", cmd], tree, env, log,
                    300)
        if rc != 0:
            return True, "litmus:" + cmd
    return False, "litmus"


UNIT_FOR = {
    "src/writers/group.c": ["group", "group_order", "ring_stress"],
    "src/writers/mpsc.c": ["mpsc"],
    "include/perfring/mpsc.h": ["mpsc"],
    "src/writers/merge.c": ["merge", "group_order"],
}


def unit_catch(tree, build, path, log):
    env = test_env(tree, build)
    units = UNIT_FOR.get(path)
    if units is None:
        units = [u[:-2] for u in sorted(os.listdir(tree + "/tests/unit"))
                 if u.endswith(".c") and (u.startswith(("ring_", "mp_")) or
                                          u in ("group.c", "mpsc.c"))]
    targets = ["all"] + ["%s/tests/unit/%s" % (build, u) for u in units]
    rc, _ = run(["nice", "make", "-j2", "BUILD=" + build] + targets, tree,
                env, log, 1800)
    if rc:
        return True, "unit (does not build)"
    for u in units:
        rc, _ = run([build + "/tests/unit/" + u], tree, env, log, 600)
        if rc not in (0, 77):
            return True, "unit:" + u
    for mode in ("group", "mpsc"):
        rc, _ = run([build + "/perfring", "stress", "--mode", mode,
                     "--writers", "3", "--seconds", "0.5"], tree, env, log,
                    300)
        if rc != 0:
            return True, "stress --mode " + mode
    return False, "unit"


def script_catch(tree, build, script, log):
    """A shell test of the tree: caught when it fails (77, skipped, is
    not a catch)."""
    env = test_env(tree, build)
    rc, _ = run(["bash", script], tree, env, log, 900)
    return rc not in (0, 77), os.path.basename(script)


def unit_only_catch(tree, build, unit, log):
    """One unit test, built with the library alone (no command, no
    benches)."""
    env = test_env(tree, build)
    rc, _ = run(["nice", "make", "-j2", "BUILD=" + build,
                 build + "/libperfring.a", build + "/tests/unit/" + unit],
                tree, env, log, 1800)
    if rc:
        return True, "unit (does not build)"
    rc, _ = run([build + "/tests/unit/" + unit], tree, env, log, 600)
    return rc not in (0, 77), "unit:" + unit


def hint_catch(tree, build, hint, log):
    """The catchers a logic mutant names first (tools/mutate_logic.py):
    "model:NAME:CASE" (a bare CASE after it: another case of the same
    model), "seam", "herd", "harden", "unit:TEST".  (caught, what); what
    reports a broken model's self-check when nothing caught it."""
    model, broken = None, ""
    for h in [x for x in hint.split(",") if x]:
        if h.startswith("model:"):
            _, model, case = h.split(":", 2)
        elif h in ("seam", "herd", "harden") or h.startswith("unit:"):
            model, case = None, None
        else:
            case = h
        if case is not None and model:
            script = "t_relacy.sh" if model == "ring" else \
                "t_relacy_%s.sh" % model
            caught, by = model_catch(tree, build, model, script, log,
                                     only={case})
            if by.startswith("MODEL BROKEN"):
                broken = by
        elif h.startswith("unit:"):
            caught, by = unit_only_catch(tree, build, h[5:], log)
        else:
            script = {"seam": "tests/seam/t_seam.sh",
                      "herd": "tests/litmus/t_litmus_herd_code.sh",
                      "harden": "tests/harden/t_harden_lib.sh"}[h]
            caught, by = script_catch(tree, build, script, log)
            by = h if not caught else "%s (%s)" % (h, by)
        if caught:
            return True, by
    return False, broken


def copy_tree(top, dest):
    def ignore(d, names):
        rel = os.path.relpath(d, top)
        return [n for n in names if n == ".git" or
                (rel == "." and (n.startswith("build") or n == ".ci"))]
    shutil.copytree(top, dest, symlinks=True, ignore=ignore)


def apply(tree, site):
    p = os.path.join(tree, site.path)
    text = open(p, encoding="utf-8").read()
    new = text[:site.start] + site.repl + text[site.end:]
    open(p, "w", encoding="utf-8").write(new)
    return text


def select(sites, pats):
    if not pats:
        return sites
    out = []
    for p in pats:
        # FILE:first:KIND: the first site of that kind in FILE (a label
        # that a redesign may rename)
        m = re.match(r"(.*):first:(.*)$", p)
        if m:
            for s in sites:
                if s.path == m.group(1) and s.kind.startswith(m.group(2)):
                    out.append(s)
                    break
    nth = {}
    for s in sites:
        k = "%s:%s:%s" % (s.path, s.func, s.label)
        nth[k] = nth.get(k, 0) + 1
        keys = {s.id, s.path, "%s:%s" % (s.path, s.label),
                "%s:%s" % (s.path, s.func), k, "%s#%d" % (k, nth[k])}
        if any(p in keys for p in pats) and s not in out:
            out.append(s)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["list", "run", "merge"])
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--catchers", default="model,tsan,litmus,unit")
    ap.add_argument("--out")
    ap.add_argument("--keep", action="append", default=[])
    ap.add_argument("--note", default="")
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("--scratch")
    ap.add_argument("--results")
    ap.add_argument("--keep-going", action="store_true")
    ap.add_argument("--try-equivalent", action="store_true")
    ap.add_argument("--logic", action="store_true",
                    help="the logic mutants (tools/mutate_logic.py)")
    ap.add_argument("--all", action="store_true",
                    help="the ordering and the logic mutants")
    a = ap.parse_intermixed_args()
    if a.cmd == "merge":
        return merge(a)
    global TRY_EQUIVALENT
    TRY_EQUIVALENT = a.try_equivalent
    every = [] if a.logic else discover(TOP)
    missing = []
    if a.logic or a.all:
        logic, missing = discover_logic(TOP)
        every = every + logic
    sites = select(every, a.only)
    if missing:
        for m in missing:
            print("not ok - a logic mutant no longer matches the code: %s"
                  % m)
        if a.cmd == "run" or a.logic:
            return 1
    if a.only and len(sites) < len(set(a.only)):
        print("not ok - a selected mutant was not found (%s)" %
              ", ".join(a.only))
        return 1
    if a.cmd == "list":
        for s in sites:
            print("%s\t%s\t%s\t%s%s" % (s.id, s.func, s.label, s.kind,
                                        "\t(equivalent)" if
                                        equivalent(s, every) else ""))
        print("# %d mutants" % len(sites))
        return 0
    catchers = [c for c in a.catchers.split(",") if c]
    scratch = a.scratch or tempfile.mkdtemp(prefix="pfr-mutate.")
    tree = os.path.join(scratch, "tree")
    if not os.path.isdir(tree):
        copy_tree(TOP, tree)
        # the scratch builds start from copies of this tree's (times kept:
        # make and the model scripts rebuild only what a mutant touches)
        seeds = ["build/tests/model"] if catchers == ["model"] else \
            ["build", "build-tsan"]
        for b in seeds:
            if os.path.isdir(os.path.join(TOP, b)):
                os.makedirs(os.path.dirname(os.path.join(tree, b)),
                            exist_ok=True)
                subprocess.run(["cp", "-a", os.path.join(TOP, b),
                                os.path.join(tree, b)])
    build = os.path.join(tree, "build")
    logdir = os.path.join(scratch, "logs")
    os.makedirs(logdir, exist_ok=True)
    models = Models(TOP)
    rows, survivors, equiv = [], 0, 0
    print("1..%d" % len(sites))
    for n, s in enumerate(sites, 1):
        if equivalent(s, every):
            equiv += 1
            rows.append((s, EQUIVALENT_BY, None))
            print("ok %d - %s %s [%s] %s: %s # SKIP not run" % (
                n, s.id, s.func, s.label, s.kind, EQUIVALENT_BY))
            if a.results:
                write_results(a.results, rows, catchers, len(sites))
            continue
        log = os.path.join(logdir, s.id.replace("/", "_") + ".log")
        open(log, "w").close()
        orig = apply(tree, s)
        t0 = time.time()
        caught, by = False, ""
        try:
            if getattr(s, "logic", False) and s.hint:
                caught, by = hint_catch(tree, build, s.hint, log)
            broken = by if by.startswith("MODEL BROKEN") else ""
            if not caught and "model" in catchers:
                for name, script in models.covering(s.path):
                    caught, by = model_catch(tree, build, name, script, log)
                    if caught:
                        break
            if not caught and "tsan" in catchers:
                caught, by = tsan_catch(tree, build, log)
            if not caught and "litmus" in catchers:
                caught, by = litmus_catch(tree, build, log)
            if not caught and "unit" in catchers:
                caught, by = unit_catch(tree, build, s.path, log)
        finally:
            open(os.path.join(tree, s.path), "w",
                 encoding="utf-8").write(orig)
        dt = time.time() - t0
        if not caught and by.startswith("MODEL BROKEN"):
            broken = by
        if not caught:
            survivors += 1
            tried = ([s.hint] if getattr(s, "logic", False) and s.hint
                     else []) + [c for c in catchers if c]
            by = broken or "SURVIVES (%s)" % ", ".join(tried)
        rows.append((s, by, dt))
        print("%s %d - %s %s [%s] %s: %s (%.1f s)%s" % (
            "ok" if caught else "not ok", n, s.id, s.func, s.label, s.kind,
            by, dt, "" if caught else "  log: " + log))
        sys.stdout.flush()
        if a.results:
            write_results(a.results, rows, catchers, len(sites))
        if not caught and not a.keep_going:
            break
    if not a.scratch:
        shutil.rmtree(scratch, ignore_errors=True)
    print("# %d mutants, %d caught, %d equivalent, %d survive" %
          (len(rows), len(rows) - survivors - equiv, equiv, survivors))
    return 1 if survivors else 0


def table_rows(rows):
    """(site id, function, label, mutation, caught by, time) strings."""
    return [(s.id, s.func, s.label, s.kind, by,
             "-" if dt is None else "%.1f" % dt) for s, by, dt in rows]


def write_table(path, rows, catchers, planned=None):
    """The results file: a header, the table of rows (strings), the
    counts, and what followed NOTES_MARK in the file it replaces."""
    notes = ""
    if os.path.exists(path):
        old = open(path, encoding="utf-8").read()
        if NOTES_MARK in old:
            notes = old[old.index(NOTES_MARK):]
    with open(path, "w") as f:
        f.write("<!-- generated by tools/mutate.py run --results (and "
                "merge); edit only below the notes line -->\n")
        f.write("# Barrier and logic mutants\n\n")
        f.write("Each labelled ordering point of the library weakened "
                "alone in a scratch copy of the tree, and each logic "
                "mutant of tools/mutate_logic.py (label: its class, "
                "boundary, swap, recheck, crash or kind) applied alone, "
                "and the first test that failed (catchers tried in the "
                "order %s, a logic mutant's own first; see "
                "[testing.md](testing.md)).  Time: from the edit to the "
                "failure, builds included, on a shared 2-CPU machine "
                "(time-shared with other builds).  An equivalent mutant "
                "is not run: see \"Equivalent mutants\" below.\n\n" %
                ", ".join(catchers))
        f.write("| site | function | label | mutation | caught by | "
                "time (s) |\n|---|---|---|---|---|---|\n")
        for r in rows:
            f.write("| %s |\n" % " | ".join(r))
        classes = ("boundary", "swap", "recheck", "crash", "kind")
        logic = [r for r in rows if r[2] in classes]
        if logic:
            le = sum(1 for r in logic if r[4] == EQUIVALENT_BY)
            ls = sum(1 for r in logic if r[4].startswith(("SURV", "MODEL")))
            f.write("\nOf them %d logic mutants (%s): %d caught, %d "
                    "equivalent, %d survive.\n" % (
                        len(logic), ", ".join(
                            "%d %s" % (sum(1 for r in logic if r[2] == c), c)
                            for c in classes),
                        len(logic) - le - ls, le, ls))
        eq = sum(1 for r in rows if r[4] == EQUIVALENT_BY)
        surv = sum(1 for r in rows if r[4].startswith(("SURV", "MODEL")))
        stale = sum(1 for r in rows if "to be re-run" in r[4])
        f.write("\n%d mutants: %d caught, %d equivalent, %d survive%s%s.\n"
                % (len(rows), len(rows) - eq - surv, eq, surv,
                   "" if not stale else
                   " (%d of them rows of an earlier run, to be re-run)" %
                   stale,
                   "" if planned is None or len(rows) == planned else
                   " (run stopped after %d of %d)" % (len(rows), planned)))
        if notes:
            f.write("\n" + notes)


def write_results(path, rows, catchers, planned):
    write_table(path, table_rows(rows), catchers, planned)


ROW_RE = re.compile(r"^\| ([^|]+?:\d+) \|(.*)\|\s*$")


def read_table(path):
    out = []
    for line in open(path, encoding="utf-8"):
        m = ROW_RE.match(line)
        if m:
            out.append(tuple([m.group(1)] +
                             [c.strip() for c in m.group(2).split("|")]))
    return out


def merge(a):
    """mutate.py merge: see the usage above."""
    sites = discover(TOP) + discover_logic(TOP)[0]
    current = {s.id for s in sites}
    # a logic row whose mutation is no longer a mutant's at that line (its
    # text changed) is dropped
    logic_now = {(s.id, s.kind) for s in sites if getattr(s, "logic", 0)}
    logic_ids = {s.id for s in sites if getattr(s, "logic", 0)}
    rows = {}
    for path in a.inputs:
        for r in read_table(path):
            rows[(r[0], r[3])] = r
    out = []
    for (sid, kind), r in rows.items():
        if r[2] in ("boundary", "swap", "recheck", "crash", "kind") and \
                sid in logic_ids and (sid, kind) not in logic_now:
            continue
        if sid in current:
            out.append(r)
        elif any(re.search(k, sid) for k in a.keep):
            by = r[4]
            if a.note and a.note not in by:
                by = "%s (%s)" % (by, a.note)
            out.append(r[:4] + (by,) + r[5:])

    def key(r):
        p, ln = r[0].rsplit(":", 1)
        return (p, int(ln))
    out.sort(key=key)
    write_table(a.out, out, ["model", "tsan", "litmus"])
    print("# %d rows to %s" % (len(out), a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
