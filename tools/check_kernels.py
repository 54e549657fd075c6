#!/usr/bin/env python3
"""Check that every kernel of the library waits for the stream's previous kernel.

The library launches its kernels with programmatic dependent launch on sm_90
(include/gemm/ptx/grid_dependency.cuh): a kernel may start while the one before it still runs, so
each one must call ptx::wait_for_prior_grid() before it touches global memory. This finds every
`__global__` function under include/ and fails for one whose body does not call it, or calls it
only after a statement that reads or writes through a pointer parameter (a rough check: it looks
for the call among the body's first statements, before any `[` or `->` of a parameter).

    python3 tools/check_kernels.py [ROOT]     (prints each kernel; "N broken" when one fails)
"""
import re
import sys
from pathlib import Path

GLOBAL = re.compile(r"__global__\s+void\s+")
NAME = re.compile(r"\s*(\w+)\s*\(")
WAIT = "wait_for_prior_grid()"


def bodies(text: str):
    """(name, parameter list, body) of every __global__ function definition in text."""
    for g in GLOBAL.finditer(text):
        i = g.end()
        if text.startswith("__launch_bounds__", i):  # (its argument may hold parentheses)
            i, depth = text.index("(", i) + 1, 1
            while depth:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
        m = NAME.match(text, i)
        i, depth = m.end(), 1
        while depth:  # the parameter list
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        params = text[m.end():i - 1]
        j = text.find("{", i)
        if j < 0 or ";" in text[i:j]:
            continue  # a declaration
        k, depth = j + 1, 1
        while depth:
            depth += {"{": 1, "}": -1}.get(text[k], 0)
            k += 1
        yield m.group(1), params, text[j + 1:k - 1]


def first_access(body: str, params: str) -> int:
    """Where the body first indexes or dereferences a pointer parameter (len(body) if nowhere)."""
    names = [p.group(1) for p in re.finditer(r"\*\s*(?:__restrict__\s*)?(\w+)\s*(?:,|$)", params)]
    hits = [m.start() for n in names for m in re.finditer(r"\b%s\s*(\[|->)|\*\s*%s\b" % (n, n), body)]
    return min(hits, default=len(body))


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent
    broken = 0
    for path in sorted((root / "include").rglob("*.cuh")):
        for name, params, body in bodies(path.read_text(encoding="utf-8")):
            at = body.find(WAIT)
            ok = at >= 0 and at < first_access(body, params)
            print(f"{'ok' if ok else 'BROKEN'}: {path.relative_to(root)}: {name}")
            broken += not ok
    print(f"{broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
