#!/usr/bin/env bash
# build21.sh (as root, here, no GPU): builds the LLVM 21 side of the H200 comparison of LLVM 19 and 21 in the kept
# Debian 13 root: lesson06 in its /root/course/build21d (nvptx, -foffload-lto), after checking that the
# root's copy of lesson 6, reference/lesson06_*, common/ and cmake/ equals the working tree's; and
# sgemm_repro.cpp with clang++-21 (-foffload-lto, +/- -DFIX) and CUDA 13's ptxas, in the root's /tmp/l21cmp.
# Mounts proc, dev and this machine's CUDA 13 (read-only) into the root, unmounts them on exit.
#   sudo tools/llvm21-sass/gpu/build21.sh          then: tools/llvm21-sass/gpu/pack.sh 21
# ROOT: the Debian 13 root (default: the one ${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}/work/trixie-*;
# README.md says how to make one). CUDA13 (default /usr/local/cuda): CUDA 13, mounted at the same place
# in the root. NVDISASM (default /opt/cuda118/bin/nvdisasm; optional): copied in for repro.sh's SASS counts.
set -euo pipefail
# shellcheck source=common.sh source-path=SCRIPTDIR
. "$(dirname "$0")/common.sh"
find_build_root
# The root's copy must hold the working tree's lesson 6, or the bundle would not measure it.
for p in "$repo"/lessons/06-* "$repo"/common "$repo"/cmake "$repo"/reference/lesson06_*; do
  q=$R/root/course/${p#"$repo"/}
  diff -rq "$p" "$q" >/dev/null 2>&1 || die "the root's $q differs from the working tree's (update the copy: scripts/clean-room.sh --root $R --dist trixie -- true)"
done
trap unmount_root EXIT
mount_root
rm -rf "$R/tmp/l21cmp" && mkdir -p "$R/tmp/l21cmp"
cp "$repo/tools/llvm21-sass/repro.sh" "$repo/tools/llvm21-sass/sgemm_repro.cpp" "$R/tmp/l21cmp/"
cp "${NVDISASM:-/opt/cuda118/bin/nvdisasm}" "$R/tmp/l21cmp/nvdisasm" 2>/dev/null || true
echo "build21.sh: lesson06 in $R/root/course/build21d"
in_root "cd /root/course && cmake --build build21d --target lesson06 -j2 2>&1 | tail -3"
echo "build21.sh: sgemm_repro with clang++-21 -foffload-lto, CUDA 13 ptxas"
in_root "cd /tmp/l21cmp && ONLY=21 CUDA21=$cuda NVDISASM=/tmp/l21cmp/nvdisasm OUT_DIR=/tmp/l21cmp/repro-build ./repro.sh"
