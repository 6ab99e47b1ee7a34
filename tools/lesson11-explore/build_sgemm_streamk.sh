#!/bin/bash
# Builds sgemm_streamk (lesson 11's SGEMM, the solution's matmul, against a stream-K split of the
# same kernel; exploration, not part of the course).
#   tools/lesson11-explore/build_sgemm_streamk.sh nvptx   (default) from a configured nvptx build
#       BUILD (default build-sgk-nvptx; `cmake --preset nvptx -B BUILD && cmake --build BUILD --target course_common`):
#       clang 19 for sm_90 with CUDA 11.8's ptxas (.deps/cuda), the course's flags as build.sh's. Writes
#       BUILD/sgemm_streamk, the device code as PTX (BUILD/sgemm_streamk.ptx, BUILD/sgemm_streamk_kernel.ptx),
#       BUILD/sgemm_streamk.ptxas.txt (ptxas -v), the SASS of both (BUILD/*.sass, nvdisasm -c) with
#       sass_stats.py's classes of each kernel (BUILD/sgemm_streamk.sass-stats.txt), and the bundle
#       gpu-carry/sgk/ (binary, course-env.json, BUILD.txt) packed as gpu-carry/sgk.tar.xz (git-ignored scratch)
#       for a GPU node: README.md, "sgemm_streamk: to be measured".
#   tools/lesson11-explore/build_sgemm_streamk.sh host    from a configured host build
#       BUILD (default build-sgk; `cmake --preset solutions -B build-sgk && cmake --build build-sgk --target
#       course_common`): BUILD/sgemm_streamk on the host-offload device; run it with
#       `. BUILD/course-env.sh && BUILD/sgemm_streamk --n 1,97,1000 --reps 2`.
#   MUTANT=k (1, 2 or 3; host or nvptx) builds BUILD/sgemm_streamk_mutk instead, with one thing broken on
#       purpose (sgemm_streamk_kernel.cpp, SGK_MUTANT); nothing is packed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
mode=${1:-nvptx}
case "$mode" in
  nvptx) build=${BUILD:-$repo/build-sgk-nvptx}
         dev="--offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$repo/.deps/cuda
              --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc" ;;
  host)  build=${BUILD:-$repo/build-sgk}; dev="-fopenmp-targets=x86_64-unknown-linux-gnu" ;;
  *) echo "usage: build_sgemm_streamk.sh [nvptx|host]" >&2; exit 2 ;;
esac
mutant=${MUTANT:-0}
case "$mutant" in 0|1|2|3) ;; *) echo "build_sgemm_streamk.sh: MUTANT must be 1, 2 or 3" >&2; exit 2 ;; esac
build=$(cd "$build" && pwd)
grep -q "$([ "$mode" = host ] && echo '"class": "host"' || echo '"class": "gpu"')" "$build/course-env.json" ||
  { echo "build_sgemm_streamk.sh: $build is not a $mode build (course-env.json)" >&2; exit 2; }
objs=$(ls "$build"/common/CMakeFiles/course_common.dir/src/*.o) ||
  { echo "build_sgemm_streamk.sh: no course_common in $build: cmake --build $build --target course_common" >&2; exit 2; }
# The solution's gemm.cpp is included by both files; its gemm.hpp and gemm.inc are the lesson's.
F="-O3 -fopenmp $dev -std=c++20 -I$repo/lessons/11-matching-the-vendor -I$repo/reference -I$build/generated
   -I$repo/common/include -include $build/generated/course/config.hpp -Wall -Wextra -Wno-pass-failed"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# Two files, each its own offload entries: the harness with the current kernel, and the stream-K kernel.
# -save-temps keeps the device code clang hands ptxas (*-sm_90.s, the device runtime's bitcode linked in).
# The kernel file finds an empty gemm.inc first (sgemm_streamk_kernel.cpp says why).
mkdir -p "$work/stub" && : > "$work/stub/gemm.inc"
out=sgemm_streamk; [ "$mutant" = 0 ] || out=sgemm_streamk_mut$mutant
# shellcheck disable=SC2086  # F and dev are lists of flags
(cd "$work" && clang++-19 $F -save-temps -c "$here/sgemm_streamk.cpp" -o sgemm_streamk.o &&
  clang++-19 $F -DSGK_MUTANT="$mutant" -iquote "$work/stub" -save-temps -c "$here/sgemm_streamk_kernel.cpp" \
    -o sgemm_streamk_kernel.o)
# shellcheck disable=SC2086
clang++-19 $F "$work/sgemm_streamk.o" "$work/sgemm_streamk_kernel.o" $objs -ldl -Wl,-rpath,/usr/lib/llvm-19/lib \
  -o "$build/$out"
echo "built $build/$out"
[ "$mode" = nvptx ] && [ "$mutant" = 0 ] || exit 0
# The PTX and what ptxas makes of it per kernel (registers, shared memory, stack, spills): ptxas with
# clang 19's own options (-m64 -O3 --gpu-name sm_90 -c) and -v; the SASS of the cubins (nvdisasm -c) and
# sass_stats.py's instruction classes per kernel and in its k loop.
nvdisasm=${NVDISASM:-/opt/cuda118/bin/nvdisasm}  # CUDA 11.8's; .deps/cuda has none
[ -x "$nvdisasm" ] || { echo "build_sgemm_streamk.sh: no nvdisasm at $nvdisasm (set NVDISASM)" >&2; exit 2; }
pt=$build/sgemm_streamk; : > "$pt.ptxas.txt"; : > "$pt.sass-stats.txt"
for f in sgemm_streamk sgemm_streamk_kernel; do
  cp "$work/$f-openmp-nvptx64-nvidia-cuda-sm_90.s" "$build/$f.ptx"
  "$repo/.deps/cuda/bin/ptxas" -m64 -O3 --gpu-name sm_90 -c -v "$build/$f.ptx" -o "$work/$f.cubin" 2>> "$pt.ptxas.txt"
  "$nvdisasm" -c "$work/$f.cubin" > "$build/$f.sass"
  python3 "$here/sass_stats.py" "$build/$f.sass" >> "$pt.sass-stats.txt"
done
# Kernel names shortened to the template's name and Vec (16-byte loads or not).
sed -E 's/.*Compiling entry function .__omp_offloading_[0-9a-f]+_[0-9a-f]+__ZN8lesson1112_GLOBAL__N_1[0-9]+([a-z_]+)I.*Lb([01])E.*/== \1 Vec=\2/; s/.*Compiling entry function .__omp_offloading_[0-9a-f]+_[0-9a-f]+__ZN8lesson1112_GLOBAL__N_1[0-9]+([a-z_]+)I.*/== \1/' \
  "$pt.ptxas.txt" | grep -E "^==|registers|stack frame"
b=$repo/gpu-carry/sgk
rm -rf "$b" && mkdir -p "$b"
cp "$build/sgemm_streamk" "$build/course-env.json" "$b/"
{ echo "sgemm_streamk built at $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- tools/lesson11-explore solutions/11-matching-the-vendor reference || echo ' + uncommitted changes')"
  echo "$(clang++-19 --version | head -1); ptxas $("$repo/.deps/cuda/bin/ptxas" --version | tail -1); sm_90; from $build"; } > "$b/BUILD.txt"
grep -q '"OMP_TARGET_OFFLOAD": "MANDATORY"' "$b/course-env.json" || { echo "build_sgemm_streamk.sh: course-env.json lacks OMP_TARGET_OFFLOAD MANDATORY" >&2; exit 2; }
mkdir -p "$repo/gpu-carry"
(cd "$repo" && tar cJf gpu-carry/sgk.tar.xz gpu-carry/sgk)
echo "packed gpu-carry/sgk.tar.xz ($(stat -c %s "$repo/gpu-carry/sgk.tar.xz") bytes)"
