#!/usr/bin/env python3
"""sass_stats.py LISTING [KERNEL]: per kernel in an `nvdisasm -c` listing, the instruction
classes overall, each loop (backward-branch target .. branch) with its FFMA, and the classes
in the loop holding the most FFMA. KERNEL: a substring of the kernel's name."""
import collections
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sass_loops import instructions, loops, nvdisasm_functions  # noqa: E402  (tools/sass_loops.py)


def cls(op):
    return op.split(".")[0] + (".128" if ".128" in op else ".64" if ".64" in op else "")


want = sys.argv[2] if len(sys.argv) > 2 else ""
for name, body in nvdisasm_functions(open(sys.argv[1]).read()):
    if want not in name:
        continue
    tot = collections.Counter(cls(o) for _, o, _ in instructions(body))
    found = [(lo, hi, loop, sum(1 for x in loop if x[1].startswith("FFMA"))) for lo, hi, loop in loops(body)]
    print(f"== {name[:110]}")
    print("  all:", ", ".join(f"{k} {v}" for k, v in tot.most_common(14)))
    for lo, hi, loop, f in found:
        print(f"  loop {lo:#x}-{hi:#x}: {len(loop)} instr, {f} FFMA")
    if found:
        lo, hi, loop, _ = max(found, key=lambda x: x[3])  # the first of equals, as before
        c = collections.Counter(cls(x[1]) for x in loop)
        print(f"  loop {lo:#x}-{hi:#x}: {len(loop)} instr:", ", ".join(f"{k} {v}" for k, v in c.most_common(16)))
