#!/usr/bin/env python3
"""Tabulates nvcc's per-phase timing (a CSV written by `nvcc --time FILE`, one build's compiles
appended to it): seconds per CUDA file and phase (front end, cicc and ptxas per architecture, host
compile), largest first, as a markdown table.

    nvcc-time-table.py TIME.csv OUT.md [--root SRC_DIR] [--title TEXT] [--top N]
"""
import argparse
import collections
import csv
import sys


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("out")
    ap.add_argument("--root", default="", help="source directory to strip from file names")
    ap.add_argument("--title", default="", help="what the build was")
    ap.add_argument("--top", type=int, default=0, help="print the N largest rows to stdout too")
    args = ap.parse_args(argv)
    per_file = collections.defaultdict(lambda: collections.defaultdict(float))
    with open(args.csv) as f:
        for row in csv.reader(f):
            if len(row) < 8 or row[0].strip() in ("", "source file name"):
                continue
            name, phase, arch = row[0].strip(), row[1].strip(), row[4].strip()
            try:
                seconds = float(row[6]) / 1000
            except ValueError:
                continue
            if phase in ("cicc", "ptxas"):
                key = f"{phase} {arch.replace('compute_', 'sm_')}"
            elif phase == "gcc (compiling)":
                key = "host"
            else:
                key = "front end"
            per_file[name][key] += seconds
    cols = sorted({k for f in per_file.values() for k in f}, key=lambda k: (k != "front end", k == "host", k))
    rows = sorted(per_file.items(), key=lambda kv: -sum(kv[1].values()))
    total = sum(sum(f.values()) for f in per_file.values())
    root = args.root.rstrip("/") + "/" if args.root else ""
    lines = [f"nvcc seconds per CUDA file and phase ({args.title}): {total:.0f} s of nvcc over {len(rows)} files.", "",
             "| file | total | " + " | ".join(cols) + " |", "| --- | ---: | " + " | ".join("---:" for _ in cols) + " |"]
    for name, ph in rows:
        short = name.replace(root, "") if root else name
        lines.append(f"| {short} | {sum(ph.values()):.0f} | " + " | ".join(f"{ph.get(c, 0):.0f}" for c in cols) + " |")
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"nvcc: {total:.0f} s over {len(rows)} files; table in {args.out}")
    for line in lines[2:2 + 2 + args.top] if args.top else []:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
