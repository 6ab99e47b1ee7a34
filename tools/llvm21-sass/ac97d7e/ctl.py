#!/usr/bin/env python3
# ctl.py CUOBJDUMP_SASS START END [-v]: control codes of [START,END]: stall sum, yields,
# and for each LDS: scoreboard set and distance (instructions, stall cycles) to the first wait on it
import re, sys
txt = open(sys.argv[1]).read().splitlines()
a0, a1 = int(sys.argv[2], 16), int(sys.argv[3], 16); v = '-v' in sys.argv
ins = []
for i, l in enumerate(txt):
    m = re.match(r"\s+/\*([0-9a-f]{4})\*/\s+(.*?);\s+/\* 0x([0-9a-f]{16}) \*/", l)
    if not m: continue
    a = int(m.group(1), 16)
    if not a0 <= a <= a1: continue
    hi = int(re.search(r"0x([0-9a-f]{16})", txt[i + 1]).group(1), 16)
    c = hi >> 41
    stall, yld, wb, rb, wait, reuse = c & 15, (c >> 4) & 1, (c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 63, (c >> 17) & 15
    ins.append((a, m.group(2).strip(), stall, yld, wb, rb, wait))
tot = sum(x[2] for x in ins)
print(f"{len(ins)} instr, stall cycles {tot}")
for k, (a, t, st, y, wb, rb, wait) in enumerate(ins):
    if v: print(f"{a:05x} st{st:2d} y{y} wb{wb} rb{rb} w{wait:06b} {t}")
    if t.split()[0].startswith(('LDS', 'MUFU')) and wb != 7:
        for j in range(k + 1, len(ins)):
            if ins[j][6] >> wb & 1:
                if t.startswith('LDS') or v: print(f"  {t[:40]:40s} sb{wb}: first wait after {j-k} instr, {sum(x[2] for x in ins[k:j])} cycles")
                break
        else:
            print(f"  {t[:40]:40s} sb{wb}: not waited in range")
