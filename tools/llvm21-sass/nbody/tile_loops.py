#!/usr/bin/env python3
"""tile_loops.py SASS [KERNEL]: the N-body kernel's tile loops in an `nvdisasm -c` listing.

One line per loop (a backward branch and its target) that holds 32 MUFU.RSQ (lesson 11's
tile_forces, 8 bodies i x 4 bodies j a trip): its address range, its instructions, how many
MUFU follow the one before within 5 instructions, the LDS.128 addresses, and the instructions
that are neither arithmetic nor loads (the loop's counting). The hot loop (a whole tile's part)
is the first. KERNEL: a substring of the kernel's name (default: every function)."""
import re
import sys

if len(sys.argv) not in (2, 3):
    sys.exit("usage: tile_loops.py SASS [KERNEL]")
text = open(sys.argv[1]).read()
want = sys.argv[2] if len(sys.argv) == 3 else ""
found = 0
parts = re.split(r"(//-+ \.text\.\S+ -+)", text)
for head, body in zip(parts[1::2], parts[2::2]):
    if want not in head:
        continue
    ins = [(int(m.group(1), 16), m.group(3), m.group(0))
           for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)([^;]*);", body)]
    labels = {m.group(1): int(m.group(2), 16) for m in re.finditer(r"\.L_x_(\d+):\s*\n\s*/\*([0-9a-f]+)\*/", body)}
    for a, op, full in ins:
        m = re.search(r"\.L_x_(\d+)", full) if op.startswith("BRA") else None
        if not m or labels.get(m.group(1), a + 1) >= a:
            continue
        lo = labels[m.group(1)]
        loop = [(o, f) for x, o, f in ins if lo <= x <= a]
        ops = [o for o, _ in loop]
        if sum(o.startswith("MUFU") for o in ops) != 32 or len(ops) >= 500:
            continue
        at = [i for i, o in enumerate(ops) if o.startswith("MUFU")]
        near = sum(b - a_ <= 5 for a_, b in zip(at, at[1:]))
        lds = [f.split("LDS.128", 1)[1].split("]")[0].split(",")[-1].strip() + "]" for o, f in loop if o == "LDS.128"]
        count = [o for o in ops if o.split(".")[0] not in ("FFMA", "FADD", "FMUL", "MUFU", "LDS")]
        print(f"{lo:x}-{a:x} {len(ops)} instr, MUFU within 5: {near}, LDS.128 {' '.join(lds)}, counting: {' '.join(count)}")
        found += 1
if not found:
    sys.exit("tile_loops.py: no loop with 32 MUFU.RSQ" + (f" in a function named *{want}*" if want else ""))
