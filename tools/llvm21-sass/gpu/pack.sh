#!/usr/bin/env bash
# pack.sh (here, no GPU): gathers the LLVM 19 and 21 bundles for the H200 and packs them as
# gpu-carry/l21cmp/b19.tar.xz and gpu-carry/l21cmp/b21.tar.xz (git-ignored; made on demand). Each holds
# only gpu-carry/l21cmp/bNN/ (binaries, gpu-node.sh, course-env.json, BUILD.txt): unpack it from the
# repository root; the scripts that run it (run19.sh, run21.sh, measure.sh, summarize.py) are tracked
# here and travel with the working tree.
#   tools/llvm21-sass/gpu/pack.sh [19] [21]        (default: both)
# 19: builds sgemm_repro with `ONLY=19 tools/llvm21-sass/repro.sh` (clang++-19, CUDA 11.8's ptxas) in
#     gpu-carry/l21cmp/src19; takes lesson06 as already built in $NVPTX_BUILD (default build-nvptx:
#     cmake --preset nvptx; cmake --build build-nvptx --target lesson06).
# 21: takes what build21.sh (run it first, as root) built in the Debian 13 root ($ROOT, common.sh).
# CUDA19 (default .deps/cuda, from scripts/install-deps.sh --nvptx): CUDA 11.8 for LLVM 19.
# NVDISASM (default /opt/cuda118/bin/nvdisasm; optional): repro.sh's SASS counts.
# RT19, RT21 (default gpu-carry/rt19.tar.xz, gpu-carry/rt21.tar.xz): the runtime packs, only to
# check that bundle + pack fit the 64 MiB a `run` call carries (README.md says how to make them).
set -euo pipefail
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "$0")/common.sh"
sides=("$@"); [ ${#sides[@]} -gt 0 ] || sides=(19 21)
for v in "${sides[@]}"; do case "$v" in 19|21) ;; *) die "usage: pack.sh [19] [21], got '$v'" ;; esac; done
nvptx=${NVPTX_BUILD:-$repo/build-nvptx}; cuda19=${CUDA19:-$repo/.deps/cuda}
commit=$(git -C "$repo" rev-parse --short HEAD)
mkdir -p "$l21cmp"
for v in "${sides[@]}"; do
  b=$l21cmp/b$v
  if [ "$v" = 19 ]; then
    # LLVM 19: sgemm_repro with clang++-19 and CUDA 11.8's ptxas (LLVM 19's runtime rejects CUDA 13 cubins)
    (mkdir -p "$l21cmp/src19" && cd "$l21cmp/src19" && ONLY=19 CUDA19=$cuda19 NVDISASM=${NVDISASM:-/opt/cuda118/bin/nvdisasm} \
      OUT_DIR=$PWD/repro-build "$repo/tools/llvm21-sass/repro.sh")
    l6=$(ls "$nvptx"/lessons/06-*/lesson06) || die "no lesson06 in $nvptx (cmake --build ${nvptx#"$repo"/} --target lesson06)"
    rm -rf "$b"; mkdir -p "$b"
    cp "$repo/scripts/gpu-node.sh" "$b/"
    cp "$l6" "$nvptx/course-env.json" "$b/"
    for s in llvm19 llvm19-fix; do cp "$l21cmp/src19/repro-build/$s/sgemm" "$b/sgemm-$s"; done
    { echo "LLVM 19, packed at $commit: $(clang++-19 --version | head -1); lesson06 from ${nvptx#"$repo"/} ($(stat -c %y "$l6" | cut -d. -f1)), ptxas $("$cuda19/bin/ptxas" --version | tail -1)"
      echo "sgemm-llvm19[-fix]: tools/llvm21-sass/repro.sh ONLY=19 (clang++-19 -O3 -fopenmp --offload-arch=sm_90 [-DFIX], CUDA 11.8 ptxas)"; } > "$b/BUILD.txt"
  else
    find_build_root
    l6=$(ls "$R"/root/course/build21d/lessons/06-*/lesson06) || die "no lesson06 in $R/root/course/build21d: run build21.sh first"
    [ -f "$R/tmp/l21cmp/repro-build/llvm21/sgemm" ] || die "no $R/tmp/l21cmp/repro-build/llvm21/sgemm: run build21.sh first"
    rm -rf "$b"; mkdir -p "$b"
    cp "$repo/scripts/gpu-node.sh" "$b/"
    cp "$l6" "$R/root/course/build21d/course-env.json" "$b/"
    for s in llvm21 llvm21-fix; do cp "$R/tmp/l21cmp/repro-build/$s/sgemm" "$b/sgemm-$s"; done
    { echo "LLVM 21, packed at $commit (lesson 6's sources as the tree's): $(chroot "$R" clang++-21 --version | head -1); lesson06 from the trixie root's build21d (-foffload-lto, $(stat -c %y "$l6" | cut -d. -f1)), CUDA 13 ptxas"
      echo "sgemm-llvm21[-fix]: tools/llvm21-sass/repro.sh ONLY=21 in the root (clang++-21 -O3 -fopenmp --offload-arch=sm_90 -foffload-lto [-DFIX], CUDA 13 ptxas)"; } > "$b/BUILD.txt"
  fi
  # OMP_TARGET_OFFLOAD=MANDATORY is what gpu-node.sh takes from course-env.json
  grep -q '"OMP_TARGET_OFFLOAD": "MANDATORY"' "$b/course-env.json" || die "$b/course-env.json does not say OMP_TARGET_OFFLOAD MANDATORY"
  (cd "$repo" && tar cJf "$l21cmp/b$v.tar.xz" "gpu-carry/l21cmp/b$v")
  size=$(stat -c %s "$l21cmp/b$v.tar.xz")
  rtvar=RT$v; rt=${!rtvar:-$repo/gpu-carry/rt$v.tar.xz}
  if [ -f "$rt" ]; then echo "pack.sh: gpu-carry/l21cmp/b$v.tar.xz $size bytes; with ${rt#"$repo"/} $((size + $(stat -c %s "$rt"))) of 67108864"
  else echo "pack.sh: gpu-carry/l21cmp/b$v.tar.xz $size bytes; no runtime pack $rt yet (README.md)"; fi
done
