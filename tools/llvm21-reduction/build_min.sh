#!/usr/bin/env bash
# build_min.sh (as root, no GPU): builds repro_min.cpp with clang 19 (this machine; without and with
# -foffload-lto) and clang 21 -foffload-lto (the Debian 13 root ROOT, CUDA 13 mounted read-only,
# unmounted on exit), clang 21 also with each one-switch variant (-DNO_GENERIC, -DNO_INT,
# -DDOUBLE_FIRST), and prints for the double kernel (sum(const double*)): SASS size, LDL/STL, CALL,
# whether it calls __kmpc_nvptx_parallel_reduce_nowait_v2 and whether that survives as a function;
# for clang 21 also LLVM's inliner remark on that call (opt -passes='lto<O3>' on the linked bitcode,
# which gives the same result as the link). SASS read with nvdisasm 11.8 (CUDA 13 cubins
# through patchelf13.py and norel.py, the callee named from `readelf -r`). Scratch: $W here and
# the root's /tmp/llvm21-reduction-min, removed on exit. DIST=dir copies the binaries for a GPU run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd); t=$repo/tools/llvm21-sass
src=$here/repro_min.cpp
# shellcheck source=../llvm21-sass/root.sh
. "$t/root.sh"
find_root; W=${WORK:-/tmp/llvm21-reduction-min}; RW=/tmp/llvm21-reduction-min
cleanup() { unmount_root; rm -rf "${R:?}$RW" "${W:?}"; }
trap cleanup EXIT
common="-O3 -DNDEBUG -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda -Wno-pass-failed -save-temps"
rm -rf "$W" && mkdir -p "$W"
b19() { mkdir -p "$W/$1" && (cd "$W/$1" && clang++-19 $common --cuda-path=$repo/.deps/cuda "${@:2}" "$src" -o repro_min); }
b19 c19 --libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc
b19 c19lto -foffload-lto
mount_root
rm -rf "$R$RW" && mkdir -p "$R$RW" && cp "$src" "$R$RW/repro_min.cpp"
for v in c21 c21-NO_GENERIC c21-NO_INT c21-DOUBLE_FIRST; do
  d=""; [ $v = c21 ] || d=-D${v#c21-}
  in_root \
    "mkdir -p $RW/$v && cd $RW/$v && clang++ $common --cuda-path=$cuda -foffload-lto $d ../repro_min.cpp -o repro_min &&
     opt -passes='lto<O3>' -pass-remarks=inline -pass-remarks-missed=inline repro_min.nvptx64.sm_90.img.0.2.internalize.bc \
       -o /dev/null 2>&1 | grep \"'__kmpc_nvptx_parallel_reduce_nowait_v2' .*_Z3sumPKdm_l[0-9]*_omp_outlined_omp_outlined'\" \
       | sed 's/.*remark: [^ ]* //; s/__omp_offloading_[0-9a-f]*_[0-9a-f]*_//' > inline.txt || true"
  cp -r "$R$RW/$v" "$W/"
done
for v in c19 c19lto c21 c21-NO_GENERIC c21-NO_INT c21-DOUBLE_FIRST; do
  cd "$W/$v"; img=repro_min.nvptx64.sm_90.cubin; [ -f $img ] || img=repro_min.nvptx64.sm_90.img
  if [[ $v == c21* ]]; then python3 $t/ac97d7e/patchelf13.py "$img" p.cubin >/dev/null
    python3 $t/reduction/norel.py p.cubin pn.cubin >/dev/null; img2=pn.cubin; else img2=$img; fi
  /opt/cuda118/bin/nvdisasm -c "$img2" > repro_min.sass
  python3 - "$img" "$v" <<'PY'
import re, subprocess, sys, collections
sass = open('repro_min.sass').read(); comb = '__kmpc_nvptx_parallel_reduce_nowait_v2'
rel = subprocess.run(['readelf', '-rW', sys.argv[1]], capture_output=True, text=True).stdout
funcs = {s.split()[0]: s for s in re.split(r"//-+ \.text\.", sass)[1:]}
name = next(n for n in funcs if re.search(r"_Z3sumPKdm_l\d+$", n))
ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", funcs[name]))
cs = re.search(r"Relocation section '\.rela?\.text\.%s'.*?\n\n" % re.escape(name), rel + "\n\n", re.S)
calls = bool(cs) and comb in cs.group(0)
print(f"{sys.argv[2]:17s} double kernel: {sum(ops.values()):4d} SASS  LDL {ops['LDL']:2d} STL {ops['STL']:2d}  CALL {ops['CALL']}"
      f"  calls the combine: {'YES' if calls else 'no (inlined)'};  combine as its own function: {comb in funcs}")
try: print("                  LLVM 21 inliner:", open('inline.txt').read().strip() or '-')
except FileNotFoundError: pass
PY
done
if [ -n "${DIST:-}" ]; then
  mkdir -p "$DIST"; for v in c19 c19lto c21 c21-NO_GENERIC; do cp "$W/$v/repro_min" "$DIST/repro_min-$v"; done
  echo "On the GPU machine (LLVM 19 and 21 runtimes: libomptarget.so.19.1 / .21.1 on LD_LIBRARY_PATH):"
  echo "  cd $DIST && for b in repro_min-c19 repro_min-c19lto repro_min-c21 repro_min-c21-NO_GENERIC; do echo \$b; ./\$b; done"
fi
