#!/usr/bin/env python3
"""hot_loop.py CUO KERNEL OUT: from a `cuobjdump -sass` listing, write the one function whose name
holds KERNEL to OUT, and print the hex start and end of its loop with the most FFMA (the
backward branch's target and the branch) and that count. Exits 1 with one line where no or
several functions match, or the function has no loop."""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from sass_loops import loops  # noqa: E402  (tools/sass_loops.py)

if len(sys.argv) != 4:
    sys.exit("usage: hot_loop.py CUO KERNEL OUT")
funcs = re.split(r"\n\s*Function : ", open(sys.argv[1]).read())
hits = [f for f in funcs[1:] if sys.argv[2] in f.split("\n", 1)[0]]
if len(hits) != 1:
    sys.exit(f"hot_loop.py: error: {len(hits)} functions hold '{sys.argv[2]}' in {sys.argv[1]} (want one)")
body = hits[0]
open(sys.argv[3], "w").write("Function : " + body)
found = [(sum(1 for _, o, _ in loop if o.startswith("FFMA")), lo, hi) for lo, hi, loop in loops(body, "cuobjdump")]
if not found:
    sys.exit(f"hot_loop.py: error: no loop in the function holding '{sys.argv[2]}'")
best = max(found, key=lambda x: x[0])  # the first of equals, as before
print(f"{best[1]:x} {best[2]:x} {best[0]}")
