#!/bin/bash
# Builds call_cost (what one target region costs the host beyond its kernel;
# exploration, not part of the course) for sm_90, into gpu-carry/cc/ (git-ignored
# scratch) with the build's course-env.json beside it, so that
# `scripts/gpu-node.sh RT.tar.xz gpu-carry/cc/call_costNN` runs it on a GPU node.
#   build_call_cost.sh 19          clang 19 here, from a configured nvptx build
#                                  (BUILD, default build-nvptx), CUDA 11.8's ptxas (.deps/cuda)
#   build_call_cost.sh 21          clang 21 in the kept Debian 13 root (tools/llvm21-sass/root.sh),
#                                  with -foffload-lto as the course builds LLVM >= 20
#   build_call_cost.sh 21-nolto    the same without it: the image keeps __llvm_rpc_client
#                                  (docs/results/h200-2026-12-05.md measured this one)
# The spinning wait comes from the course's own cuda_wait.cpp, compiled in.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
which=${1:-19}; out=$repo/gpu-carry/cc; mkdir -p "$out"
srcs=("$here/call_cost.cpp" "$repo/common/src/cuda_wait.cpp" "$repo/common/src/cuda_driver.cpp")
case "$which" in
  19)
    build=$(cd "${BUILD:-$repo/build-nvptx}" && pwd)
    grep -q '"class": "gpu"' "$build/course-env.json" || { echo "build_call_cost.sh: $build is not an nvptx build" >&2; exit 2; }
    clang++-19 -O3 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path="$repo/.deps/cuda" \
      --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc -std=c++20 \
      -I"$build/generated" -I"$repo/common/include" -include "$build/generated/course/config.hpp" \
      "${srcs[@]}" -ldl -o "$out/call_cost19"
    cp "$build/course-env.json" "$out/" ;;
  21|21-nolto)
    lto="-foffload-lto"; [ "$which" = 21-nolto ] && lto=""
    # shellcheck source=../llvm21-sass/root.sh source-path=SCRIPTDIR
    . "$repo/tools/llvm21-sass/root.sh"
    find_root; trap unmount_root EXIT; mount_root
    mkdir -p "$R/root/cc" && cp "${srcs[@]}" "$R/root/cc/"
    # build21d: the root's configured nvptx build of the course (tools/llvm21-sass/README.md).
    in_root "cd /root/cc && g=/root/course/build21d/generated && clang++-21 -O3 -fopenmp $lto --offload-arch=sm_90 \
      -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=${cuda:?} -std=c++20 -I\$g -I/root/course/common/include \
      -include \$g/course/config.hpp call_cost.cpp cuda_wait.cpp cuda_driver.cpp -ldl -o call_cost21"
    cp "$R/root/cc/call_cost21" "$out/call_cost21"
    [ -f "$out/course-env.json" ] || cp "$R/root/course/build21d/course-env.json" "$out/" ;;
  *) echo "usage: build_call_cost.sh [19|21|21-nolto]" >&2; exit 2 ;;
esac
echo "built $out/call_cost${which%%-*}; run: scripts/gpu-node.sh rtNN.tar.xz gpu-carry/cc/call_cost${which%%-*}"
