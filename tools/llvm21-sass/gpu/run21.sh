#!/usr/bin/env bash
# run21.sh (on the GPU node): issue 54, LLVM 21's side; from the repository root, after unpacking the bundle:
#   tar xJf gpu-carry/x54/b21.tar.xz && bash tools/llvm21-sass/gpu/run21.sh gpu-carry/rt21.tar.xz
# (README.md has the whole `run` call.)
exec bash "$(dirname "$0")/measure.sh" 21 "${1:?usage: run21.sh RUNTIME.tar.xz (gpu-carry/rt21.tar.xz)}"
