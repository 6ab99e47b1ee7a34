#!/usr/bin/env bash
# run19.sh (on the GPU node): LLVM 19's side of the comparison; from the repository root, after unpacking the bundle:
#   tar xJf gpu-carry/l21cmp/b19.tar.xz && bash tools/llvm21-sass/gpu/run19.sh gpu-carry/rt19.tar.xz
# (README.md has the whole `run` call.)
exec bash "$(dirname "$0")/measure.sh" 19 "${1:?usage: run19.sh RUNTIME.tar.xz (gpu-carry/rt19.tar.xz)}"
