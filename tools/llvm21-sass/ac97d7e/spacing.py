#!/usr/bin/env python3
# spacing.py CUO START END: gaps (instructions) between consecutive MUFU in [START,END], cyclic (loop)
import re, sys, collections
a0, a1 = int(sys.argv[2], 16), int(sys.argv[3], 16)
ops = [m.group(2) for m in re.finditer(r"/\*([0-9a-f]{4})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", open(sys.argv[1]).read()) if a0 <= int(m.group(1), 16) <= a1]
idx = [i for i, o in enumerate(ops) if o.startswith('MUFU')]
gaps = [(idx[(k + 1) % len(idx)] - idx[k]) % len(ops) for k in range(len(idx))]
c = collections.Counter(gaps)
print(f"{len(ops)} instr, {len(idx)} MUFU, gaps min {min(gaps)} max {max(gaps)}; gaps<=4: {sum(g <= 4 for g in gaps)}, <=8: {sum(g <= 8 for g in gaps)}; max MUFU in any 32-instr window:",
      max(sum(1 for i in idx if s <= i < s + 32) for s in range(len(ops))))
print("  gaps:", gaps)
