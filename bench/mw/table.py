#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Markdown tables from `perfring bench --writers ... --json` output.

usage: bench/mw/table.py RESULTS.jsonl [--payload 8] [--only LABEL,...]

One table per run (each run starts with its meta line): a row per result
with its writers' placement named (own CPU, shared with reader,
time-shared) and their CPUs (reader:writers), the median and range of
the runs in million messages/s, the fairness (slowest writer's messages
over the fastest's when the first writer finished) and the flags; for a
`--reader` run, the reader-alone rates and their ratios.
"""
import json
import sys


def fmt(v):
    return "%.1f" % (v / 1e6)


def writers_table(meta, rows, payload, only):
    out = []
    what = "processes" if meta.get("processes") else "threads"
    out.append("%s, writers are %s, capacity %d KiB, %d runs of %d ms, "
               "cache-line round trip %.0f-%.0f ns, CPUs %.0f%% busy "
               "before the run:" % (
                   meta.get("cpu", "?"), what,
                   meta.get("capacity", 0) // 1024, meta.get("reps", 0),
                   meta.get("time_ms", 0), meta["rtt_ns"][0],
                   meta["rtt_ns"][1], 100 * meta.get("busy_before", 0)))
    out.append("")
    out.append("| contestant | writers | placement | CPUs (reader:writers) "
               "| M msg/s median | range | fairness | flags |")
    out.append("|---|---:|---|---|---:|---|---:|---|")
    for r in rows:
        if not r.get("supported") or r.get("payload") != payload:
            continue
        if only and r["label"] not in only:
            continue
        if not r.get("verified"):
            out.append("| %s | %d | %s | %s | FAILED | | | %s |" % (
                r["label"], r["writers"], r["placement"], r["cpus"],
                r.get("error", "")))
            continue
        out.append("| %s | %d | %s | %s | %s | %s-%s | %.2f | %s |" % (
            r["label"], r["writers"], r["placement"], r["cpus"],
            fmt(r["mps"]), fmt(r["mps_min"]), fmt(r["mps_max"]),
            r["fairness"], r["flags"]))
    return out


def reader_table(meta, rows):
    out = []
    out.append("%s, %s; 8-byte messages, capacity %d KiB, M records/s "
               "(median over the rounds):" % (
                   meta.get("cpu", "?"), meta.get("placement", "?"),
                   meta.get("capacity", 0) // 1024))
    out.append("")
    out.append("| writers (rings) | group drain | group consume | "
               "one ring, consume | consume / ring | drain / ring | "
               "consume / drain |")
    out.append("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        d, c, g = (r["group drain"]["mps"], r["group consume"]["mps"],
                   r["ring consume"]["mps"])
        out.append("| %d | %s | %s | %s | %.2f | %.2f | %.2f |" % (
            r["writers"], fmt(d), fmt(c), fmt(g), c / g, d / g, c / d))
    return out


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    payload, only = "8", None
    args = argv[2:]
    while args:
        if args[0] == "--payload" and len(args) > 1:
            payload, args = args[1], args[2:]
        elif args[0] == "--only" and len(args) > 1:
            only, args = set(args[1].split(",")), args[2:]
        else:
            sys.stderr.write(__doc__)
            return 2
    runs = []
    for line in open(argv[1]):
        r = json.loads(line)
        if r.get("kind") == "meta":
            runs.append((r, []))
        elif runs and r.get("kind") in ("writers", "reader"):
            runs[-1][1].append(r)
    for i, (meta, rows) in enumerate(runs):
        if i:
            print()
        if meta.get("bench") == "writers-reader":
            lines = reader_table(meta, rows)
        else:
            lines = writers_table(meta, rows, payload, only)
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
