#!/usr/bin/env bash
# l6_link21.sh (as root, no GPU): LLVM 21's lesson06 device code as on the H200 -- build21d's own
# lesson06 link line in the kept Debian 13 root (clang++-21 -foffload-lto, CUDA 13 ptxas) again with
# -save-temps (temps in the root's /tmp/h12l6, not in build21d); copies the linked PTX and cubin to $OUT (default /tmp/h12/l21). Mounts proc, dev
# and this machine's CUDA 13 read-only into the root, unmounts them on exit. Then: sass.sh.
set -euo pipefail
# shellcheck source=../root.sh
. "$(dirname "$0")/../root.sh"
find_root; OUT=${OUT:-/tmp/h12/l21}
trap unmount_root EXIT
mount_root
b=/root/course/build21d; objs=$(sed -n 's,^build lessons/06-atomic-reductions/lesson06: [^ ]* \(.*\) || .*,\1,p' "$R$b/build.ninja" | tr ' ' '\n' | sed "s,^,$b/," | tr '\n' ' ')
rm -rf "$R/tmp/h12l6" && mkdir -p "$R/tmp/h12l6"
in_root \
  "cd /tmp/h12l6 && clang++ -O3 -DNDEBUG -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$cuda \
   -foffload-lto -save-temps $objs -o lesson06 -ldl && ls"
mkdir -p "$OUT"; cp "$R"/tmp/h12l6/*.s "$R"/tmp/h12l6/*.cubin "$OUT"/ 2>/dev/null || true
ls -l "$OUT"
