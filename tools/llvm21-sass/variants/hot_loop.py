#!/usr/bin/env python3
"""hot_loop.py CUO KERNEL OUT: from a `cuobjdump -sass` listing, write the one function whose name
holds KERNEL to OUT, and print the hex start and end of its loop with the most FFMA (the
backward branch's target and the branch) and that count. Exits 1 with one line where no or
several functions match, or the function has no loop."""
import re
import sys

if len(sys.argv) != 4:
    sys.exit("usage: hot_loop.py CUO KERNEL OUT")
funcs = re.split(r"\n\s*Function : ", open(sys.argv[1]).read())
hits = [f for f in funcs[1:] if sys.argv[2] in f.split("\n", 1)[0]]
if len(hits) != 1:
    sys.exit(f"hot_loop.py: error: {len(hits)} functions hold '{sys.argv[2]}' in {sys.argv[1]} (want one)")
body = hits[0]
open(sys.argv[3], "w").write("Function : " + body)
ins = [(int(m.group(1), 16), m.group(2), m.group(3))
       for m in re.finditer(r"/\*([0-9a-f]{4,5})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)([^;]*);", body)]
best = None
for a, op, rest in ins:
    m = re.search(r"0x([0-9a-f]+)", rest) if op.startswith("BRA") else None
    if m and int(m.group(1), 16) < a:
        t = int(m.group(1), 16)
        nf = sum(1 for b, o, _ in ins if t <= b <= a and o.startswith("FFMA"))
        if best is None or nf > best[0]:
            best = (nf, t, a)
if best is None:
    sys.exit(f"hot_loop.py: error: no loop in the function holding '{sys.argv[2]}'")
print(f"{best[1]:x} {best[2]:x} {best[0]}")
