#!/usr/bin/env bash
# ptxas-report.sh -- what NVIDIA's assembler (ptxas) says about each tile
# shape's GPU kernel: registers per thread, stack frame, spill stores and loads.
# Compiles the device code only, for an NVIDIA architecture, with
# `-Xcuda-ptxas -v`; no GPU is needed (ptxas runs anywhere). Prints ptxas's own
# lines, then one summary row per tile shape.
#
#   lessons/04-register-tiles/ptxas-report.sh [SOURCE] [CLANG FLAGS...]
#     SOURCE  default: lessons/04-register-tiles/matmul.cpp (your code)
#     flags   passed to clang, e.g. -DLESSON4_LANES=1
#   environment: ARCH (default: the NVIDIA architecture your build checks,
#                its course-env.json's nvptx_check), BUILD (the build folder
#                to ask; default: build-student-nvptx, else build),
#                CXX (default clang++-19),
#                CUDA (default .deps/cuda from scripts/install-deps.sh --nvptx)
#
# Save the output and give it to the lesson program to see registers beside
# the times:  ptxas-report.sh > ptxas.log;  lesson04 --ptxas ptxas.log
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
src=${1:-$here/matmul.cpp}
[ $# -gt 0 ] && shift
# The triple and architecture come from the build (cmake/CourseToolchain.cmake
# chose them), so a build for another GPU reports for that GPU.
build=${BUILD:-}
if [ -z "$build" ]; then
  for b in "$root/build-student-nvptx" "$root/build"; do
    [ -f "$b/course-env.json" ] && { build=$b; break; }
  done
fi
env_json=${build:+$build/course-env.json}
[ -n "$env_json" ] && [ -f "$env_json" ] || {
  echo "ptxas-report: no course-env.json in ${build:-build-student-nvptx/ or build/}: configure first (cmake --preset student), or set BUILD" >&2
  exit 2
}
read -r triple build_arch < <(sed -n 's/.*"nvptx_check": *{"triple": *"\([^"]*\)", *"arch": *"\([^"]*\)"}.*/\1 \2/p' "$env_json") || true
[ -n "${triple:-}" ] || { echo "ptxas-report: $env_json names no nvptx_check: configure $build again" >&2; exit 2; }
arch=${ARCH:-$build_arch}
cxx=${CXX:-clang++-19}
cuda=${CUDA:-$root/.deps/cuda}
[ -f "$src" ] || { echo "ptxas-report: no source file '$src'" >&2; exit 2; }
command -v "$cxx" > /dev/null || { echo "ptxas-report: compiler '$cxx' not found (scripts/install-deps.sh)" >&2; exit 2; }
[ -x "$cuda/bin/ptxas" ] || { echo "ptxas-report: no ptxas in $cuda/bin (run scripts/install-deps.sh --nvptx or set CUDA)" >&2; exit 2; }
# The device runtime bitcode sits in the compiler's own LLVM lib folder (as cmake/CourseToolchain.cmake finds it).
llvm_lib=$(dirname "$(dirname "$(readlink -f "$(command -v "$cxx")")")")/lib
bc=$llvm_lib/libomptarget-nvptx-$arch.bc
[ -f "$bc" ] || { echo "ptxas-report: no device runtime $bc (wrong ARCH?)" >&2; exit 2; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The same flags as the course's GPU build, plus -Xcuda-ptxas -v (ptxas's report) and
# --offload-device-only (skip the host half).
"$cxx" -std=c++20 -O3 -fopenmp -fopenmp-targets="$triple" --offload-arch="$arch" \
  --cuda-path="$cuda" --libomptarget-nvptx-bc-path="$bc" -DCOURSE_DEVICE_GPU=1 \
  -I"$here" -I"$root/common/include" --offload-device-only -Xcuda-ptxas -v "$@" \
  -c "$src" -o "$out/device.o" 2> "$out/ptxas.log" || { cat "$out/ptxas.log" >&2; exit 1; }
cat "$out/ptxas.log"
echo
echo "tile    registers  stack frame  spill stores  spill loads   ($arch, $(basename "$src"))"
awk '
  /Compiling entry function/ && match($0, /matmul_tiledILi[0-9]+ELi[0-9]+E/) {
    s = substr($0, RSTART, RLENGTH); gsub(/matmul_tiledILi|E$/, "", s); sub(/ELi/, "x", s); tile = s }
  tile != "" && /bytes stack frame/ { stack = $1; stores = $5; loads = $9 }
  tile != "" && /Used [0-9]+ registers/ {
    for (i = 1; i <= NF; i++) if ($i == "Used") regs = $(i + 1)
    printf "%-7s %9s  %9s B  %10s B  %9s B\n", tile, regs, stack, stores, loads; tile = "" }
' "$out/ptxas.log" | sort -t x -k1,1n
