#!/bin/bash
# repro.sh -- build sgemm_repro.cpp with clang 19 and clang 21 (and each with
# -DFIX), print the SASS instruction classes of the kernel's k loop, and on a
# machine with an NVIDIA GPU run each program (median of 20 calls at 4096^2).
#   CLANG19=clang++-19 CLANG21=clang++-21 CUDA=/usr/local/cuda ARCH=sm_90 ./repro.sh [--run]
# CUDA: its bin/ptxas writes the cubins of both (LLVM 19's runtime needs a
# ptxas <= 12.6, CUDA 13's cubins it rejects); CUDA19/CUDA21 set one each.
# nvdisasm is taken from $NVDISASM, $CUDA/bin or PATH (none: no SASS counts, the programs are still built).
# ONLY=19 or ONLY=21 builds one toolchain's pair (clang 21 may live in another root than clang 19).
# The H200 runs of these programs and lesson 6 under both LLVMs: gpu/ (gpu/README.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
CLANG19=${CLANG19:-clang++-19} CLANG21=${CLANG21:-clang++-21} ARCH=${ARCH:-sm_90}
CUDA19=${CUDA19:-${CUDA:-/usr/local/cuda}} CUDA21=${CUDA21:-${CUDA:-/usr/local/cuda}}
NVDISASM=${NVDISASM:-$(command -v "$CUDA21/bin/nvdisasm" || command -v nvdisasm || true)}
[ -n "$NVDISASM" ] || echo "repro.sh: no nvdisasm (set NVDISASM): building without the SASS counts" >&2
ONLY=${ONLY:-19 21}
out=${OUT_DIR:-$PWD/repro-build}; mkdir -p "$out"
build() {  # name clang cuda extra-flags...
  local name=$1 cxx=$2 cuda=$3; shift 3
  local dir="$out/$name"; mkdir -p "$dir"
  local rt=""  # LLVM 19 ships its device runtime as one bitcode file per architecture
  local lib; lib=$(dirname "$(readlink -f "$(command -v "$cxx")")")/../lib
  [ -f "$lib/libomptarget-nvptx-$ARCH.bc" ] && rt="--libomptarget-nvptx-bc-path=$lib/libomptarget-nvptx-$ARCH.bc"
  (cd "$dir" && "$cxx" -O3 -std=c++20 -fopenmp --offload-arch="$ARCH" -fopenmp-targets=nvptx64-nvidia-cuda \
      --cuda-path="$cuda" $rt "$@" -save-temps "$here/sgemm_repro.cpp" -o sgemm 2>build.log) || { cat "$dir/build.log"; exit 1; }
  # the device image: LLVM 19 (no LTO) keeps it as sgemm_repro-openmp-nvptx64-*.o, LLVM 21 (LTO) as sgemm.nvptx64.*.cubin
  local cubin; cubin=$(ls "$dir"/sgemm.nvptx64.*.cubin 2>/dev/null || ls "$dir"/sgemm_repro-openmp-nvptx64-nvidia-cuda-*.o)
  [ -n "$NVDISASM" ] || { echo "$name built: $dir/sgemm"; return 0; }
  # (an older nvdisasm cannot read a newer ptxas's cubin: then no counts, the program stands)
  "$NVDISASM" -c "$cubin" > "$dir/all.sass" 2>"$dir/nvdisasm.err" ||
    { echo "$name built: $dir/sgemm; no SASS counts: $(head -1 "$dir/nvdisasm.err")"; return 0; }
  python3 - "$dir/all.sass" "$name" <<'PY'
import re, sys, collections
txt = open(sys.argv[1]).read()
parts = re.split(r'\n//-+ \.text\.(\S+) -+\n', txt)
k = [(n, b) for n, b in zip(parts[1::2], parts[2::2]) if 'sgemm' in n]
name, body = k[0]
lines = body.split('\n')
labs = {l[:-1]: i for i, l in enumerate(lines) if re.match(r'^\.L_x_\d+:$', l)}
best = None  # the k loop: the backward branch whose body holds the most FFMA
for i, l in enumerate(lines):
    m = re.search(r'BRA\s+`\((\.L_x_\d+)\)', l)
    if m and m.group(1) in labs and labs[m.group(1)] < i:
        b = [x for x in lines[labs[m.group(1)]:i + 1] if '/*' in x]
        f = sum('FFMA' in x for x in b)
        if best is None or f > best[0]: best = (f, b)
b = best[1]
c = collections.Counter()
ins = []
for x in b:
    m = re.search(r'\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*(.*)', x)
    c[m.group(2)] += 1; ins.append((m.group(2), m.group(3)))
def cls(op):
    for p, n in (('FFMA', 'FFMA'), ('LDS.128', 'LDS.128'), ('LDS', 'LDS.32'), ('STS.128', 'STS.128'), ('STS', 'STS.32'),
                 ('LDG', 'LDG'), ('LD.', 'LD generic'), ('BAR', 'BAR'), ('IMAD', 'IMAD/IADD/LEA'), ('IADD', 'IMAD/IADD/LEA'),
                 ('LEA', 'IMAD/IADD/LEA'), ('MOV', 'MOV'), ('BRA', 'BRA'), ('ISETP', 'ISETP')):
        if op.startswith(p): return n
    return 'other'
g = collections.Counter()
for op, n in c.items(): g[cls(op)] += n
# how many of each k-step's LDS.128 are consumed within 16 instructions (exposed shared-memory latency)
near = 0
for i, (op, ops) in enumerate(ins):
    if op == 'LDS.128':
        r = int(re.match(r'R(\d+)', ops).group(1)); regs = {'R%d' % (r + q) for q in range(4)}
        for j in range(i + 1, min(i + 16, len(ins))):
            if set(re.findall(r'R\d+', ins[j][1].split(',', 1)[-1])) & regs: near += 1; break
order = ['FFMA', 'LDS.128', 'LDS.32', 'STS.32', 'STS.128', 'LDG', 'LD generic', 'BAR', 'IMAD/IADD/LEA', 'ISETP', 'MOV', 'BRA', 'other']
print('%-10s k loop %4d instr: ' % (sys.argv[2], len(b)) + ' '.join('%s %d' % (o, g[o]) for o in order) +
      '; LDS.128 used within 16 instr: %d' % near)
PY
}
vs=""
if [[ " $ONLY " == *" 19 "* ]]; then
  build llvm19 "$CLANG19" "$CUDA19"
  build llvm19-fix "$CLANG19" "$CUDA19" -DFIX
  vs="llvm19 llvm19-fix"
fi
if [[ " $ONLY " == *" 21 "* ]]; then
  build llvm21 "$CLANG21" "$CUDA21" -foffload-lto
  build llvm21-fix "$CLANG21" "$CUDA21" -foffload-lto -DFIX
  vs="$vs llvm21 llvm21-fix"
fi
if [ "${1:-}" = --run ]; then
  for v in $vs; do printf '%-10s ' "$v"; "$out/$v/sgemm" 4096; done
fi
