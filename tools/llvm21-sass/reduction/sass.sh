#!/usr/bin/env bash
# sass.sh [DIR] (no GPU): SASS of lesson 6's reduction_clause<double> for both LLVMs, in DIR (default /tmp/h12).
# LLVM 19: reference/lesson06_atomics.cpp with build-nvptx's compile line + -save-temps (CUDA 11.8 ptxas).
# LLVM 21: run l6_link21.sh first (as root): the real lesson06 LTO link's cubin (CUDA 13 ptxas), read with
# CUDA 11.8's nvdisasm after patchelf13.py (ELF header) and norel.py (relocation sections dropped; about 1 %
# of CUDA 13's instruction slots are still left out of the listing). Prints per-kernel counts.
set -euo pipefail
D=${1:-/tmp/h12}; repo=$(cd "$(dirname "$0")/../../.." && pwd); t=$repo/tools/llvm21-sass
mkdir -p "$D/l19" && cd "$D/l19"
clang++-19 -I$repo/reference -I$repo/build-nvptx/generated -I$repo/common/include -O3 -DNDEBUG -fopenmp \
  --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$repo/.deps/cuda \
  --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc -Wno-pass-failed \
  -include $repo/build-nvptx/generated/course/config.hpp -std=c++20 -save-temps -c $repo/reference/lesson06_atomics.cpp -o l6.o
/opt/cuda118/bin/nvdisasm -c lesson06_atomics-openmp-nvptx64-nvidia-cuda-sm_90.o > "$D/l19.sass"
cd "$D" && python3 $t/ac97d7e/patchelf13.py l21/lesson06.nvptx64.sm_90.cubin l21/p.cubin
python3 $t/reduction/norel.py l21/p.cubin l21/pn.cubin && /opt/cuda118/bin/nvdisasm -c l21/pn.cubin > l21.sass
for f in l19.sass l21.sass; do echo "== $f"; python3 /dev/stdin "$f" <<'PY'
import re, sys, collections
t = open(sys.argv[1]).read()
for sec in re.split(r"//-+ \.text\.", t)[1:]:
    name = sec.split()[0]
    if not re.search(r"reduction_clauseIdE|^__kmpc_nvptx_parallel_reduce_nowait_v2$", name): continue
    ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sec)
    c = collections.Counter(ops)
    print(name[-40:], len(ops), {k: c[k] for k in ("LDL", "STL", "CALL", "BAR", "SHFL", "DADD", "ATOMG") if c[k]})
PY
done
