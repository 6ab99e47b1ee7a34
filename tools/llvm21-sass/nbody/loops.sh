#!/usr/bin/env bash
# loops.sh (here, as root; no GPU): the SASS of nbody_repro's tile loops under clang 19 and clang 21,
# as docs/results/llvm21-nbody-2026-12-05.md reads them. Builds ../nbody_repro.cpp in each form
# (-save-temps), puts each PTX through CUDA 11.8's ptxas -O3 -c (what LLVM 19's builds use; LLVM 21's
# PTX through it was as slow on a GPU as through CUDA 13's), disassembles it and prints tile_loops.py's
# line for each tile loop (the first is the hot one). clang 21 builds in the kept Debian 13 root
# (../root.sh); without one, only clang 19's side. Needs /opt/cuda118 (cuda118.sh) and, for clang 19's
# link, a CUDA with ptxas <= 12.6 ($CUDA19, default the course's .deps/cuda).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../../.." && pwd)
c118=/opt/cuda118/bin CUDA19=${CUDA19:-$repo/.deps/cuda}
[ -x $c118/nvdisasm ] || { echo "loops.sh: error: no $c118/nvdisasm (run $here/cuda118.sh)" >&2; exit 2; }
[ -x "$CUDA19/bin/ptxas" ] || { echo "loops.sh: error: no ptxas in CUDA19=$CUDA19" >&2; exit 2; }
out=${OUT_DIR:-$(mktemp -d)}; mkdir -p "$out"
flags=(-O3 -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda -save-temps)
sass() {  # PTX NAME: ptxas 11.8 reads PTX ISA 7.8 (these kernels use nothing newer)
  sed 's/^\.version 8\.[0-9]*/.version 7.8/' "$1" > "$out/$2.ptx"
  $c118/ptxas -arch=sm_90 -O3 -c "$out/$2.ptx" -o "$out/$2.cubin"
  $c118/nvdisasm -c "$out/$2.cubin" > "$out/$2.sass"
  echo "== $2"; python3 "$here/tile_loops.py" "$out/$2.sass"
}
bc=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc
for v in BASE SHIFTED COUNTLOOP=int; do
  d="$out/19-${v%%=*}"; mkdir -p "$d"
  (cd "$d" && clang++-19 "${flags[@]}" --cuda-path="$CUDA19" --libomptarget-nvptx-bc-path=$bc -D$v \
     "$here/../nbody_repro.cpp" -o nbody_repro 2>build.log) || { cat "$d/build.log"; exit 1; }
  sass "$d/nbody_repro-openmp-nvptx64-nvidia-cuda-sm_90.s" "clang19-${v%%=*}"
done
cmp -s "$out/clang19-BASE.cubin" "$out/clang19-SHIFTED.cubin" && s=byte-identical || s=different
echo "== clang 19: SHIFTED's cubin against BASE's: $s"
# shellcheck source=../root.sh source-path=SCRIPTDIR
. "$here/../root.sh"
if ! (find_root) 2>/dev/null; then echo "== clang 21: no Debian 13 root (scripts/clean-room.sh --dist trixie --keep), skipped"; exit 0; fi
find_root; trap unmount_root EXIT; mount_root
w=/tmp/nbody-loops; rm -rf "$R$w"; mkdir -p "$R$w"; cp "$here/../nbody_repro.cpp" "$R$w/"
for v in BASE FIRSTPRIVATE_N SHIFTED COUNTLOOP=int; do
  in_root "cd $w && clang++-21 ${flags[*]} -foffload-lto --cuda-path=$cuda -D$v nbody_repro.cpp -o n-${v%%=*} >/dev/null 2>&1" ||
    { echo "loops.sh: error: clang 21 -D$v failed" >&2; exit 1; }
  sass "$R$w/n-${v%%=*}.nvptx64.sm_90.s" "clang21-${v%%=*}"
done
echo "(files in $out)"
