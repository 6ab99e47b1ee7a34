#!/usr/bin/env bash
# l6_noarray.sh (as root, no GPU): the real lesson06 LTO link of build21d (LLVM 21, CUDA 13 ptxas) in
# the Debian 13 root, twice: as built, and with the solution's count_bins_reduction using an atomic
# instead of `reduction(+ : hist[0:hist_bins])` (atomics.cpp recompiled with build21d's flags). Then
# Prints the SASS counts of reduction_clause<double> in each (sass-count lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); t=$(cd "$here/.." && pwd)/llvm21-sass
# shellcheck source=../llvm21-sass/root.sh
. "$t/root.sh"
find_root; W=/tmp/l6noarray
cleanup() { unmount_root; rm -rf "${R:?}$W"; }
trap cleanup EXIT
mount_root
b=/root/course/build21d; s=/root/course/solutions/06-atomic-reductions/atomics.cpp
objs=$(sed -n 's,^build lessons/06-atomic-reductions/lesson06: [^ ]* \(.*\) || .*,\1,p' "$R$b/build.ninja" | tr ' ' '\n' | sed "s,^,$b/," | tr '\n' ' ')
rm -rf "$R$W" && mkdir -p "$R$W/with" "$R$W/without"
sed 's,^#pragma omp target teams distribute parallel for reduction(+ : hist\[0:hist_bins\]),#pragma omp target teams distribute parallel for,; s,^  for (std::size_t i = 0; i < n; ++i) hist\[bin_of(x\[i\])\] += 1;$,  for (std::size_t i = 0; i < n; ++i) {\n#pragma omp atomic\n    hist[bin_of(x[i])] += 1;\n  },' "$R$s" > "$R$W/atomics.cpp"
grep -c 'reduction(+ : hist' "$R$W/atomics.cpp" && exit 1 || true  # the array reduction must be gone
f="-O3 -DNDEBUG -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda --cuda-path=$cuda -foffload-lto -Wno-pass-failed"
inc="-I/root/course/lessons/06-atomic-reductions -I$b/generated -I/root/course/common/include -include $b/generated/course/config.hpp"
in_root "set -e
  cd $W && clang++ $f $inc -c atomics.cpp -o atomics.o
  cd $W/with && clang++ $f -save-temps $objs -o lesson06 -ldl
  cd $W/without && clang++ $f -save-temps \$(echo $objs | tr ' ' '\n' | sed 's,.*solutions/06-atomic-reductions/atomics.cpp.o,$W/atomics.o,') -o lesson06 -ldl"
for v in with without; do
  d=$R$W/$v; python3 $t/ac97d7e/patchelf13.py $d/lesson06.nvptx64.sm_90.cubin $d/p.cubin; python3 $t/reduction/norel.py $d/p.cubin $d/pn.cubin
  /opt/cuda118/bin/nvdisasm -c $d/pn.cubin > $d/l6.sass
  echo "== lesson06 $v the array reduction (LLVM 21 LTO)"; python3 - $d/l6.sass $d/lesson06.nvptx64.sm_90.cubin <<'PY'
import re, sys, collections, subprocess
t = open(sys.argv[1]).read(); rel = subprocess.run(['readelf', '-rW', sys.argv[2]], capture_output=True, text=True).stdout
funcs = {s.split()[0]: s for s in re.split(r"//-+ \.text\.", t)[1:]}
for name, sec in funcs.items():
    if not re.search(r"reduction_clauseI[dfi]E|count_bins_reduction|^__kmpc_nvptx_parallel_reduce_nowait_v2$", name): continue
    c = collections.Counter(re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sec))
    cs = re.search(r"Relocation section '\.rela?\.text\.%s'.*?\n\n" % re.escape(name), rel + "\n\n", re.S)
    calls = "__kmpc_nvptx_parallel_reduce_nowait_v2" in cs.group(0) if cs else False
    print(f"  {name[-45:]:45s} {sum(c.values()):5d} SASS LDL {c['LDL']:3d} STL {c['STL']:3d} CALL {c['CALL']} calls parallel_reduce_nowait_v2: {calls}")
PY
done
