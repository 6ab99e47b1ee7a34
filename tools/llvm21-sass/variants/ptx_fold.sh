#!/usr/bin/env bash
# ptx_fold.sh (here, no GPU): shows that one detail of LLVM 21's PTX moves ptxas to the late-load schedule.
# Compiles the solution's gemm.cpp with LLVM 19 as build-nvptx does ($NVPTX_BUILD), keeps its PTX, and
# runs CUDA 11.8's ptxas on it twice: as it is, and with fold_edit.py's edit (the A tile's second-round
# stores addressed [first base + 512 + offset], as LLVM 21 addresses them). Prints proxy.sh for both.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
nvptx=${NVPTX_BUILD:-$repo/build-nvptx}; ptxas=${PTXAS:-$repo/.deps/cuda/bin/ptxas}
[ -x "$ptxas" ] || { echo "ptx_fold.sh: error: no ptxas at $ptxas (scripts/install-deps.sh --nvptx, or PTXAS=)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
ninja -C "$nvptx" -t commands lessons/11-matching-the-vendor/lesson11 |
  python3 "$here/relink.py" "$repo" "$repo" "$t" "$nvptx" | sed -n 1p > "$t/compile.sh"
# -save-temps re-reads preprocessed files: -Wpedantic -Werror would reject their line markers
sed -i 's/$/ -save-temps -Wno-error -Wno-pedantic/' "$t/compile.sh"
(cd "$t" && bash -e compile.sh > compile.log 2>&1) || { tail -20 "$t/compile.log" >&2; exit 1; }
ptx=$(ls "$t"/gemm-openmp-nvptx64-nvidia-cuda-sm_90.s)
python3 "$here/fold_edit.py" "$ptx" "$t/folded.s"
for f in "$ptx" "$t/folded.s"; do "$ptxas" -arch=sm_90 -O3 -c "$f" -o "$f.cubin"; done
echo "LLVM 19's PTX as it is:         $("$here/proxy.sh" "$ptx.cubin")"
echo "with LLVM 21's store addresses: $("$here/proxy.sh" "$t/folded.s.cubin")"
