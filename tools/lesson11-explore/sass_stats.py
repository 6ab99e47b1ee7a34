#!/usr/bin/env python3
"""Per kernel in an nvdisasm listing: instruction classes overall and in the
loop body (backward-branch target .. branch) holding the most FFMA."""
import re, sys, collections
text = open(sys.argv[1]).read()
want = sys.argv[2] if len(sys.argv) > 2 else ""
for sec in re.split(r"//-+ \.text\.", text)[1:]:
    name = sec.split()[0]
    if want not in name: continue
    lines = []  # (addr, opcode, full)
    labels = {}
    pend = []
    for ln in sec.splitlines():
        lm = re.match(r"\.L_x_(\d+):", ln)
        if lm: pend.append(lm.group(1)); continue
        am = re.search(r"/\*([0-9a-f]{4,})\*/", ln)
        if am and pend:
            for q in pend: labels[q] = int(am.group(1), 16)
            pend = []
    for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)([^;]*);", sec):
        lines.append((int(m.group(1), 16), m.group(3), m.group(0)))
    cls = lambda op: op.split('.')[0] + ('.128' if '.128' in op else '.64' if '.64' in op else '')
    tot = collections.Counter(cls(o) for _, o, _ in lines)
    # loops: BRA to an earlier address
    best = None
    loops = []
    for i, (a, o, full) in enumerate(lines):
        if o.startswith('BRA'):
            t = re.search(r"`?\(?\.L_x_(\d+)|0x([0-9a-f]+)", full.split('BRA', 1)[1])
            m = re.search(r"\.L_x_(\d+)", full.split('BRA', 1)[1])
            if not m or m.group(1) not in labels: continue
            tgt = labels[m.group(1)]
            if tgt <= a:
                body = [x for x in lines if tgt <= x[0] <= a]
                f = sum(1 for x in body if x[1].startswith('FFMA'))
                if best is None or f > best[0]: best = (f, tgt, a, body)
                loops.append((tgt, a, len(body), f))
    print(f"== {name[:110]}")
    print("  all:", ", ".join(f"{k} {v}" for k, v in tot.most_common(14)))
    for L in loops: print(f"  loop {L[0]:#x}-{L[1]:#x}: {L[2]} instr, {L[3]} FFMA")
    if best:
        c = collections.Counter(cls(x[1]) for x in best[3])
        print(f"  loop {best[1]:#x}-{best[2]:#x}: {len(best[3])} instr:", ", ".join(f"{k} {v}" for k, v in c.most_common(16)))
