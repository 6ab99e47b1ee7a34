#!/usr/bin/env bash
# Runs a course program on a GPU node that has the NVIDIA driver but no LLVM,
# with the offload runtime packed on the build machine:
#
#   build machine:  scripts/pack-llvm-runtime.sh rt.tar.xz
#   GPU node:       scripts/gpu-node.sh rt.tar.xz build-nvptx/tests/offload_smoke
#
# It unpacks the runtime once into $COURSE_RT_DIR (default /tmp/course-rt-<pack
# checksum>), puts it on LD_LIBRARY_PATH, sets the environment the program's
# tests run with (course-env.json of its build: OMP_TARGET_OFFLOAD=MANDATORY,
# so a kernel that cannot run on the GPU fails instead of quietly running on
# the CPU), and runs the command. The rest of the caller's environment goes
# through as it is: COURSE_CUDA_WAIT=block, say, for LLVM's sleeping wait
# instead of the course's spinning one (common/src/cuda_wait.cpp). A pack made with --with-libc (a build from a
# newer system than the node) brings its own ld-linux: the program is started
# through it, with the pack first and the node's driver folder after it.
set -euo pipefail
pack=${1:?usage: gpu-node.sh RUNTIME.tar.xz COMMAND [ARGS...]}
shift
[ $# -gt 0 ] || { echo "gpu-node.sh: no command given" >&2; exit 2; }
[ -f "$pack" ] || { echo "gpu-node.sh: runtime pack '$pack' not found" >&2; exit 2; }
rt=${COURSE_RT_DIR:-/tmp/course-rt-$(cksum < "$pack" | cut -d' ' -f1)}
if [ ! -d "$rt/llvm-rt" ]; then
  mkdir -p "$rt" && tar xJf "$pack" -C "$rt"
fi
# The run environment of the program's build, as its tests get it
# (cmake/CourseEnvironment.cmake writes course-env.json at the top of every
# build folder; report-gpu.sh's bundles carry it): the "environment" block,
# one "NAME": "VALUE" a line. Its paths_first are the build machine's: the
# pack stands in for them below.
env_json=""
d=$(cd "$(dirname "$1")" 2>/dev/null && pwd || pwd)
while :; do
  [ -f "$d/course-env.json" ] && { env_json=$d/course-env.json; break; }
  [ "$d" = / ] && break
  d=$(dirname "$d")
done
[ -n "$env_json" ] || { echo "gpu-node.sh: no course-env.json in a folder above $1: configure its build again (or pack the bundle again)" >&2; exit 2; }
while IFS= read -r kv; do export "$kv"; done < <(sed -n '/"environment": {/,/}/s/^ *"\([A-Za-z_][A-Za-z0-9_]*\)": "\(.*\)",\{0,1\}$/\1=\2/p' "$env_json")
# The packed loader (ld-linux-x86-64.so.2 or ld-linux-aarch64.so.1), named in LOADER.
loader=""
[ -f "$rt/llvm-rt/LOADER" ] && loader="$rt/llvm-rt/$(cat "$rt/llvm-rt/LOADER")"
[ -n "$loader" ] || loader=$(ls "$rt"/llvm-rt/ld-linux-*.so.* 2>/dev/null | head -1 || true)  # packs made before LOADER
if [ -n "$loader" ] && [ -x "$loader" ]; then
  driver=$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 /{print $NF; exit}')
  driver_dir=${driver:+$(dirname "$driver")}
  exec "$loader" --library-path "$rt/llvm-rt${driver_dir:+:$driver_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
fi
export LD_LIBRARY_PATH="$rt/llvm-rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
