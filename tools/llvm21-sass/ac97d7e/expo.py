#!/usr/bin/env python3
# expo.py CUO START END LAT OPPREFIX: for each OPPREFIX instruction (scoreboard-tracked), stall cycles until the first wait on its
# scoreboard; exposed = sum max(0, LAT - that), a one-warp estimate of the latency left uncovered
import re, sys
txt = open(sys.argv[1]).read().splitlines()
a0, a1, lat, pre = int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4]), sys.argv[5]
ins = []
for i, l in enumerate(txt):
    m = re.match(r"\s+/\*([0-9a-f]{4})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)(.*?);\s+/\* 0x([0-9a-f]{16}) \*/", l)
    if not m or not a0 <= int(m.group(1), 16) <= a1: continue
    c = int(re.search(r"0x([0-9a-f]{16})", txt[i + 1]).group(1), 16) >> 41
    ins.append((m.group(2), c & 15, (c >> 5) & 7, (c >> 11) & 63))
n = ins + ins  # the loop: waits may come in the next trip
ex = cnt = 0
for k, (o, st, wb, w) in enumerate(ins):
    if o.startswith(pre) and wb != 7:
        for j in range(k + 1, len(n)):
            if n[j][3] >> wb & 1:
                d = sum(x[1] for x in n[k:j]); ex += max(0, lat - d); cnt += 1; break
print(f"{pre}: {cnt} tracked, exposed ~{ex} cycles at latency {lat} (loop {len(ins)} instr, {sum(x[1] for x in ins)} stall cycles)")
