#!/usr/bin/env python3
"""fold_edit.py IN.s OUT.s: in the PTX of lesson 11's SGEMM kernel gemm_exact<16, multiply_tile, true>,
address the A tile's second-round stores the way LLVM 21 does and change nothing else.

LLVM 19 stores a thread's two A rounds through two base registers (the second from (tid | 256) >> 3):
    st.shared.f32 [%rdX], ..; [%rdX+1040]; [%rdX+2080]; [%rdX+3120]
    st.shared.f32 [%rdY], ..; [%rdY+1040]; [%rdY+2080]; [%rdY+3120]
where %rdY = %rdX + 512 because tid < 256. LLVM 21 knows that and writes [%rdX+512] ... [%rdX+3632].
This rewrites every such group of eight in the kernel to LLVM 21's form; it exits 1 with one line
where it finds no group."""
import re
import sys

if len(sys.argv) != 3:
    sys.exit("usage: fold_edit.py IN.s OUT.s")
lines = open(sys.argv[1]).read().split("\n")
kernel = "multiply_tileERA16_S2_RA8_A65_KNS_4Vec4ERA8_A32_SI_iiEELb1"
start = next((i for i, l in enumerate(lines) if ".entry" in l and kernel in l), None)
if start is None:
    sys.exit(f"fold_edit.py: error: no kernel holding {kernel} in {sys.argv[1]}")
end = next(i for i in range(start, len(lines)) if lines[i] == "}")
st = re.compile(r"\s+st\.shared\.(?:f32|b32)\s+\[%(rd\d+)(?:\+(\d+))?\],")
groups = 0
for i in range(start, end - 8):
    m = [st.match(lines[i + k]) for k in range(8)]
    if not all(m):
        continue
    offs = [int(x.group(2) or 0) for x in m]
    x, y = m[0].group(1), m[4].group(1)
    if offs != [0, 1040, 2080, 3120] * 2 or x != m[3].group(1) or y != m[7].group(1) or x == y:
        continue
    for k in range(4, 8):
        lines[i + k] = lines[i + k].replace(f"[%{y}{'+' + str(offs[k]) if offs[k] else ''}]", f"[%{x}+{512 + offs[k]}]")
    groups += 1
if groups == 0:
    sys.exit(f"fold_edit.py: error: no group of eight A-tile stores with two bases in the kernel of {sys.argv[1]}")
open(sys.argv[2], "w").write("\n".join(lines))
print(f"fold_edit.py: {groups} groups rewritten")
