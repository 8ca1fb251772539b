#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Function-length check for the C (and C++) sources of the tree.

    tools/funclen.py [--max N] [--all] [--exempt FILE] [PATH...]

Finds every function definition written in kernel style (the opening '{'
of its body at column 0), measures it from that '{' to its matching '}'
(both lines included; braces inside comments, strings and character
constants do not count) and prints, for each function longer than --max
lines (150 by default), "FILE:LINE: NAME LENGTH lines", LINE being the
line of the '{'.  --all prints every function.  Exit status: 0 none too
long, 1 some, 2 usage or read error.

PATHs are files or directories (searched for *.c, *.h, *.cc); the default
is src cli bench include tests tools.  A brace-enclosed initializer with
its '{' at column 0 (`... =` on the line before) is data, not a function.

The exemption list (tools/funclen-exempt.txt by default) names functions
that may be longer: one "FILE:NAME" per line, '#' starts a comment.  It is
meant for generated tables only; an entry that matches no function over
the limit is reported as stale (exit 1), so the list cannot rot.
"""
import argparse
import os
import re
import signal
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIRS = ["src", "cli", "bench", "include", "tests", "tools"]
EXTS = (".c", ".h", ".cc")
NOT_NAMES = {
    "if", "for", "while", "switch", "return", "sizeof", "__attribute__",
    "__typeof__", "typeof", "alignof", "_Alignof", "__declspec",
    "_Static_assert", "static_assert", "defined",
}
IDENT = re.compile(r"[A-Za-z_]\w*")


def strip_code(text):
    """text with comments, strings and character constants blanked out
    (newlines kept, so that line numbers stay right)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) +
                       (c if j - 1 > i else ""))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def signature(lines, brace):
    """The declaration before the '{' on line index brace: the lines back
    to the previous blank line, preprocessor line, ';', '}' or '{'."""
    sig = []
    j = brace - 1
    while j >= 0:
        s = lines[j].rstrip()
        t = s.strip()
        if not t or t.startswith("#"):
            break
        sig.insert(0, t)
        if t.endswith(";") and j < brace - 1:
            sig.pop(0)
            break
        if t.endswith(("}", "{")) and j < brace - 1:
            sig.pop(0)
            break
        j -= 1
    return " ".join(sig)


def func_name(sig):
    """The defined function's name in a signature, or None when the
    braces open something else (an initializer, a struct)."""
    if not sig or sig.endswith("=") or "(" not in sig:
        return None
    if re.match(r"(typedef\s+)?(struct|union|enum)\b[^(]*$", sig):
        return None
    depth = 0
    for m in re.finditer(r"[()]|[A-Za-z_]\w*", sig):
        tok = m.group(0)
        if tok == "(":
            if depth == 0:
                prev = IDENT.findall(sig[:m.start()])
                if prev and prev[-1] not in NOT_NAMES and \
                        sig[:m.start()].rstrip().endswith(prev[-1]):
                    return prev[-1]
            depth += 1
        elif tok == ")":
            depth -= 1
    return None


def functions(path):
    """(line of '{', name, length) of each function in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    code = strip_code(text).split("\n")
    found = []
    i = 0
    while i < len(code):
        if not code[i].startswith("{"):
            i += 1
            continue
        sig = signature(code, i)
        if re.match(r"(namespace\b|extern\s+\S+$)", sig):
            i += 1  # a namespace's or extern "C"'s body: look inside
            continue
        name = func_name(sig)
        depth = 0
        end = None
        for j in range(i, len(code)):
            depth += code[j].count("{") - code[j].count("}")
            if depth <= 0:
                end = j
                break
        if end is None:
            end = len(code) - 1
        if name:
            found.append((i + 1, name, end - i + 1))
        i = end + 1
    return found


def sources(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    if f.endswith(EXTS):
                        yield os.path.join(root, f)
        else:
            yield p


def read_exempt(path):
    exempt = {}
    if not path or not os.path.exists(path):
        return exempt
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if ":" not in line:
                sys.exit(f"{path}:{n}: want FILE:FUNCTION, got '{line}'")
            exempt[line] = n
    return exempt


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=150)
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--exempt",
                    default=os.path.join(TOP, "tools", "funclen-exempt.txt"))
    ap.add_argument("paths", nargs="*")
    a = ap.parse_args()
    paths = a.paths
    if not paths:
        os.chdir(TOP)
        paths = [d for d in DEFAULT_DIRS if os.path.isdir(d)]
    exempt = read_exempt(a.exempt)
    used = set()
    bad = 0
    for path in sources(paths):
        try:
            funcs = functions(path)
        except OSError as e:
            print(f"funclen: {e}", file=sys.stderr)
            return 2
        rel = os.path.normpath(path)
        if os.path.isabs(rel) and rel.startswith(TOP + os.sep):
            rel = os.path.relpath(rel, TOP)
        for line, name, length in funcs:
            key = f"{rel}:{name}"
            over = length > a.max
            if over and key in exempt:
                used.add(key)
                over = False
                note = " (exempt)"
            else:
                note = ""
            if over:
                bad += 1
            if over or a.all:
                print(f"{rel}:{line}: {name} {length} lines{note}")
    if not a.paths:
        for key, n in sorted(exempt.items(), key=lambda kv: kv[1]):
            if key not in used:
                print(f"{a.exempt}:{n}: stale exemption {key} "
                      f"(no such function over {a.max} lines)")
                bad += 1
    if bad:
        print(f"funclen: {bad} function(s) over {a.max} lines",
              file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
