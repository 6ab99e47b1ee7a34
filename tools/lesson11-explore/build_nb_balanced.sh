#!/bin/bash
# Builds nb_balanced (lesson 11's N-body team_step against a balanced split of
# its (bodies i) x (bodies j) work; exploration, not part of the course).
#   tools/lesson11-explore/build_nb_balanced.sh nvptx   (default) from a configured nvptx build
#       BUILD (default build-nvptx; `cmake --preset nvptx -B BUILD && cmake --build BUILD --target course_common`):
#       clang 19 for sm_90 with CUDA 11.8's ptxas (.deps/cuda), the course's flags as build.sh's (and
#       -maxrregcount=128 for nb_balanced_kernel.cpp). Writes BUILD/nb_balanced, the device code as PTX
#       (BUILD/nb_balanced.ptx, BUILD/nb_balanced_kernel.ptx), BUILD/nb_balanced.ptxas.txt (ptxas -v), and the
#       bundle gpu-carry/nbb/ (binary, course-env.json, BUILD.txt) packed as gpu-carry/nbb.tar.xz
#       (git-ignored scratch) for a GPU node: README.md, "nb_balanced: to be measured".
#   tools/lesson11-explore/build_nb_balanced.sh host    from a configured host build
#       BUILD (default build-solutions): BUILD/nb_balanced on the host-offload device; run it with
#       `. BUILD/course-env.sh && BUILD/nb_balanced --n 1,97,1000,4099`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
mode=${1:-nvptx}
case "$mode" in
  nvptx) build=${BUILD:-$repo/build-nvptx}
         dev="--offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$repo/.deps/cuda
              --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc" ;;
  host)  build=${BUILD:-$repo/build-solutions}; dev="-fopenmp-targets=x86_64-unknown-linux-gnu" ;;
  *) echo "usage: build_nb_balanced.sh [nvptx|host]" >&2; exit 2 ;;
esac
build=$(cd "$build" && pwd)
grep -q "$([ "$mode" = host ] && echo '"class": "host"' || echo '"class": "gpu"')" "$build/course-env.json" ||
  { echo "build_nb_balanced.sh: $build is not a $mode build (course-env.json)" >&2; exit 2; }
objs=$(ls "$build"/common/CMakeFiles/course_common.dir/src/*.o) ||
  { echo "build_nb_balanced.sh: no course_common in $build: cmake --build $build --target course_common" >&2; exit 2; }
# The solution's gravity.cpp is included by nb_balanced.cpp; its gravity.hpp and gravity.inc are the lesson's.
F="-O3 -fopenmp $dev -std=c++20 -I$repo/lessons/11-matching-the-vendor -I$repo/reference -I$build/generated
   -I$repo/common/include -include $build/generated/course/config.hpp -Wall -Wextra -Wno-pass-failed"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# Two files, each its own offload entries: the harness with the current kernel (the course's flags), and
# the balanced kernel, held to 128 registers on nvptx (nb_balanced_kernel.cpp says why). -save-temps keeps
# the device code clang hands ptxas (*-sm_90.s, the device runtime's bitcode linked in).
cap=""; [ "$mode" = nvptx ] && cap="-Xcuda-ptxas -maxrregcount=128"
# The kernel file finds an empty gravity.inc first (nb_balanced_kernel.cpp says why).
mkdir -p "$work/stub" && : > "$work/stub/gravity.inc"
# shellcheck disable=SC2086  # F, dev and cap are lists of flags
(cd "$work" && clang++-19 $F -save-temps -c "$here/nb_balanced.cpp" -o nb_balanced.o &&
  clang++-19 $F $cap -iquote "$work/stub" -save-temps -c "$here/nb_balanced_kernel.cpp" -o nb_balanced_kernel.o)
# shellcheck disable=SC2086
clang++-19 $F "$work/nb_balanced.o" "$work/nb_balanced_kernel.o" $objs -ldl -Wl,-rpath,/usr/lib/llvm-19/lib -o "$build/nb_balanced"
echo "built $build/nb_balanced"
[ "$mode" = nvptx ] || exit 0
# The PTX and what ptxas makes of it per kernel (registers, shared memory, stack, spills): ptxas with
# clang 19's own options (-m64 -O3 --gpu-name sm_90 -c, and the cap for the balanced file) and -v.
pt=$build/nb_balanced; : > "$pt.ptxas.txt"
for f in nb_balanced nb_balanced_kernel; do
  cp "$work/$f-openmp-nvptx64-nvidia-cuda-sm_90.s" "$build/$f.ptx"
  c=""; [ $f = nb_balanced_kernel ] && c="-maxrregcount=128"
  # shellcheck disable=SC2086
  "$repo/.deps/cuda/bin/ptxas" -m64 -O3 --gpu-name sm_90 -c -v $c "$build/$f.ptx" -o "$work/$f.cubin" 2>> "$pt.ptxas.txt"
done
sed 's/__omp_offloading_[0-9a-f]*_[0-9a-f]*__ZN8lesson1112_GLOBAL__N_1//; s/ILi8ETnPFvPKNS_5Body4EiiRNS_5GroupIXT_EEEEXadL_ZNS0_11tile_forcesES4_iiRNS5_ILi8EEEEEEEvNS_6BodiesENS_5MovedEiNS_6LaunchE//' \
  "$pt.ptxas.txt" | grep -E "Compiling entry|stack frame|registers"
b=$repo/gpu-carry/nbb
rm -rf "$b" && mkdir -p "$b"
cp "$build/nb_balanced" "$build/course-env.json" "$b/"
{ echo "nb_balanced built at $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- tools/lesson11-explore solutions/11-matching-the-vendor reference || echo ' + uncommitted changes')"
  echo "$(clang++-19 --version | head -1); ptxas $("$repo/.deps/cuda/bin/ptxas" --version | tail -1); sm_90; from $build"; } > "$b/BUILD.txt"
grep -q '"OMP_TARGET_OFFLOAD": "MANDATORY"' "$b/course-env.json" || { echo "build_nb_balanced.sh: course-env.json lacks OMP_TARGET_OFFLOAD MANDATORY" >&2; exit 2; }
(cd "$repo" && tar cJf gpu-carry/nbb.tar.xz gpu-carry/nbb)
echo "packed gpu-carry/nbb.tar.xz ($(stat -c %s "$repo/gpu-carry/nbb.tar.xz") bytes)"
