#!/usr/bin/env bash
# pack.sh (here): builds cubin_regs (g++, no CUDA needed) into gpu-carry/regs/ and packs gpu-carry/regs.tar.xz
# (git-ignored) for regs.sh on a GPU node.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd); out=$repo/gpu-carry/regs
mkdir -p "$out"
g++ -std=c++17 -O2 -Wall -Wextra -Wpedantic -static-libstdc++ -static-libgcc -o "$out/cubin_regs" "$repo/tools/llvm21-sass/regs/cubin_regs.cpp" -ldl
(cd "$repo" && tar cJf gpu-carry/regs.tar.xz gpu-carry/regs)
echo "pack.sh: gpu-carry/regs.tar.xz ($(stat -c %s "$repo/gpu-carry/regs.tar.xz") bytes)"
