#!/usr/bin/env python3
"""Counts SASS instruction kinds per kernel: `cuobjdump -sass BIN | tools/sass_stats.py [--dump] [substring...]`.
Only kernels whose mangled name contains every substring are shown; --dump also prints their SASS."""
import collections
import re
import sys

text = sys.stdin.read()
dump = "--dump" in sys.argv
wanted = [a for a in sys.argv[1:] if a != "--dump"]
for block in re.split(r"\n\s*Function : ", text)[1:]:
    name = block.split("\n", 1)[0].strip()
    if not all(w in name for w in wanted):
        continue
    ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", block))
    total = sum(ops.values())
    print(f"{name[:160]}\n  total {total}: " + ", ".join(f"{k} {v}" for k, v in ops.most_common(18)))
    if dump:
        print(block)
