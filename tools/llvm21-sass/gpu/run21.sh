#!/usr/bin/env bash
# run21.sh (on the GPU node): LLVM 21's side of the comparison; from the repository root, after unpacking the bundle:
#   tar xJf gpu-carry/l21cmp/b21.tar.xz && bash tools/llvm21-sass/gpu/run21.sh gpu-carry/rt21.tar.xz
# (README.md has the whole `run` call.)
exec bash "$(dirname "$0")/measure.sh" 21 "${1:?usage: run21.sh RUNTIME.tar.xz (gpu-carry/rt21.tar.xz)}"
