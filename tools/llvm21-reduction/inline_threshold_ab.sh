#!/usr/bin/env bash
# inline_threshold_ab.sh -- on an NVIDIA GPU node: lesson 6 and lesson 11 built
# with LLVM 21 (-foffload-lto) as the course builds them (A) and with
# `-Xoffload-linker -mllvm=-inline-threshold=400` (B), one after the other on
# one machine. Measured on an H100 on 2026-12-05 (docs/results/h100-2026-12-05.md); since e5af393
# the course's build adds the flag for LLVM 20+, so an A built from today's tree is B.
# B was the candidate fix for LLVM 21's out-of-line reduction combine (repro_min.cpp;
# docs/results/llvm21-sass-2026-12-04.md); compare the reduction-clause rows of lesson 6 and lesson 11's SGEMM and N-body rows.
#   Build (here, in a Debian 13 root made by scripts/clean-room.sh --dist trixie --keep):
#     scripts/clean-room.sh --dist trixie --root ROOT --keep --bind /usr/local/cuda -- \
#       "cmake -S . -B build21f -G Ninja -DCOURSE_TRACK=solutions -DCOURSE_DEVICE=nvptx -DCOURSE_NVPTX_ARCH=sm_90 \
#          -DCOURSE_CUDA_PATH=/usr/local/cuda '-DCMAKE_EXE_LINKER_FLAGS=-Xoffload-linker -mllvm=-inline-threshold=400' &&
#        cmake --build build21f --target lesson06 lesson11 course_ceilings && scripts/report-gpu.sh pack build21f /root/bundle21f"
#     (the same without the linker flags, lesson06 included, into build21d / bundle21e for A), then copy ROOT/root/bundle21{e,f}.tar.xz
#     into gpu-carry/ (git-ignored), with the LLVM 21 runtime pack gpu-carry/rt21.tar.xz.
#   GPU node: tools/llvm21-reduction/inline_threshold_ab.sh [A.tar.xz B.tar.xz RUNTIME.tar.xz]
set -u
cd "$(dirname "$0")/../.." || exit 2
A=${1:-gpu-carry/bundle21e.tar.xz} B=${2:-gpu-carry/bundle21f.tar.xz} RT=${3:-gpu-carry/rt21.tar.xz}
for f in "$A" "$B" "$RT"; do [ -f "$f" ] || { echo "inline_threshold_ab.sh: $f not found" >&2; exit 2; }; done
u=$(mktemp -d); trap 'rm -rf "$u"' EXIT
mkdir -p "$u/a" "$u/b" && tar xJf "$A" -C "$u/a" && tar xJf "$B" -C "$u/b" || { echo "inline_threshold_ab.sh: cannot unpack the bundles" >&2; exit 2; }
for side in a b; do
  l6=$(find "$u/$side" -name lesson06 -type f | head -1) l11=$(find "$u/$side" -name lesson11 -type f | head -1)
  echo "== ${side^^}: $(cat "$u/$side"/*/report/commit.txt 2>/dev/null)"
  if [ -n "$l6" ]; then timeout 120 scripts/gpu-node.sh "$RT" "$l6" 2>&1 | grep -E "clause|team-local|ceiling"
  else echo "   (no lesson06 in this bundle)"; fi
  [ -n "$l11" ] && timeout 120 scripts/gpu-node.sh "$RT" "$l11" --n 1024 --bodies 65536 --matrix 4096 --reps 20 2>&1 \
    | grep -E "^  (solution|ompx|one body|8x8)"
done
