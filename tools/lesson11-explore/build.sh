#!/bin/bash
# Builds the lesson 11 exploration program (2026-12-04, the given kernels' variants; not part of
# the course) for sm_90 with LLVM 19 and CUDA 11.8's ptxas, from a configured
# nvptx build of the course (BUILD, default build-nvptx). Run on a GPU node:
#   REPS=30 scripts/gpu-node.sh rt.tar.xz tools/lesson11-explore/explore all|gemm|nbody
# Results: docs/results/h200-2026-12-04-goals.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd); build=${BUILD:-$repo/build-nvptx}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# g_shared.hpp: the N-body team kernel at 75f9228 with a variant switch GX
git -C "$repo" show 75f9228:reference/lesson11_gravity_shared.hpp > "$work/g_shared.hpp"
patch -s "$work/g_shared.hpp" "$here/g_shared.patch"
F="-O3 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$repo/.deps/cuda
   --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc -std=c++20 -I$work -I$repo/reference
   -I$build/generated -I$repo/common/include -include $build/generated/course/config.hpp -Wno-pass-failed"
c() { local o=$1 src=$2; shift 2; cp "$here/$src" "$work/$o.cpp"; clang++-19 $F "$@" -c "$work/$o.cpp" -o "$work/$o.o"; }
# Each variant its own file: an offload entry is named after its file, and two
# copies of one file's kernels would collide at the link.
c main main.cpp; c v0 v0.cpp; c v1 v1.cpp; c v2 v2.cpp
c v3 v1.cpp -DWL=1 -DVNAME=v3; c v6 v1.cpp -DBKV=12 -DVNAME=v6; c v8 v1.cpp -DDYN=1 -DVNAME=v8
for v in "nbA 0 0 4" "nbB 4 0 4" "nbC 2 0 8" "nbD 1 0 4" "nbE 2 0 2" "nbF 1 0 8" "nbG 2 0 4" "nbH 1 0 2"; do
  set -- $v; c "$1" nb_v.cpp -DGX="$2" -DTF="$3" -DUNR="$4" -DNAME="$1" -DTFN="tf_$1"
done
clang++-19 $F "$work"/*.o -o "$here/explore"
echo "built $here/explore"
