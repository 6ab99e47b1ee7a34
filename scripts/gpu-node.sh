#!/usr/bin/env bash
# Runs a command on a GPU node that has the NVIDIA driver but no LLVM 19, with
# the offload runtime packed on the build machine (see docs/results/README.md):
#
#   build machine:  ../shared/gpu/pack-llvm-runtime.sh rt.tar.xz   (or any copy of it)
#   GPU node:       scripts/gpu-node.sh rt.tar.xz build-nvptx/tests/offload_smoke
#
# It unpacks the runtime once into $COURSE_RT_DIR (default /tmp/course-rt),
# puts it on LD_LIBRARY_PATH, sets OMP_TARGET_OFFLOAD=MANDATORY so a kernel
# that cannot run on the GPU fails instead of quietly running on the CPU,
# and runs the command.
set -euo pipefail
pack=${1:?usage: gpu-node.sh RUNTIME.tar.xz COMMAND [ARGS...]}
shift
[ $# -gt 0 ] || { echo "gpu-node.sh: no command given" >&2; exit 2; }
[ -f "$pack" ] || { echo "gpu-node.sh: runtime pack '$pack' not found" >&2; exit 2; }
rt=${COURSE_RT_DIR:-/tmp/course-rt}
if [ ! -d "$rt/llvm-rt" ]; then
  mkdir -p "$rt" && tar xJf "$pack" -C "$rt"
fi
export LD_LIBRARY_PATH="$rt/llvm-rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMP_TARGET_OFFLOAD=MANDATORY
exec "$@"
