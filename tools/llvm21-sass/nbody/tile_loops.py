#!/usr/bin/env python3
"""tile_loops.py SASS [KERNEL]: the N-body kernel's tile loops in an `nvdisasm -c` listing.

One line per loop (a backward branch and its target) that holds 32 MUFU.RSQ (lesson 11's
tile_forces, 8 bodies i x 4 bodies j a trip): its address range, its instructions, how many
MUFU follow the one before within 5 instructions, the LDS.128 addresses, and the instructions
that are neither arithmetic nor loads (the loop's counting). The hot loop (a whole tile's part)
is the first. KERNEL: a substring of the kernel's name (default: every function)."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from sass_loops import loops, nvdisasm_functions  # noqa: E402  (tools/sass_loops.py)

if len(sys.argv) not in (2, 3):
    sys.exit("usage: tile_loops.py SASS [KERNEL]")
want = sys.argv[2] if len(sys.argv) == 3 else ""
found = 0
for name, body in nvdisasm_functions(open(sys.argv[1]).read()):
    if want not in name:
        continue
    for lo, a, loop in loops(body):
        ops = [o for _, o, _ in loop]
        if sum(o.startswith("MUFU") for o in ops) != 32 or len(ops) >= 500:
            continue
        at = [i for i, o in enumerate(ops) if o.startswith("MUFU")]
        near = sum(b - a_ <= 5 for a_, b in zip(at, at[1:]))
        lds = [f.split("LDS.128", 1)[1].split("]")[0].split(",")[-1].strip() + "]" for _, o, f in loop if o == "LDS.128"]
        count = [o for o in ops if o.split(".")[0] not in ("FFMA", "FADD", "FMUL", "MUFU", "LDS")]
        print(f"{lo:x}-{a:x} {len(ops)} instr, MUFU within 5: {near}, LDS.128 {' '.join(lds)}, counting: {' '.join(count)}")
        found += 1
if not found:
    sys.exit("tile_loops.py: no loop with 32 MUFU.RSQ" + (f" in a function named *{want}*" if want else ""))
