#!/usr/bin/env bash
# build.sh (as root, no GPU): builds repro.cpp four ways -- clang 19 and clang 21 -foffload-lto,
# each with and without -DWITH_ARRAY_REDUCTION -- plus clang 19 -foffload-lto (LTO19=0 skips it),
# and prints, for the double-reduction kernel (sum), its registers and stack (ptxas -v of the
# linked PTX, by the ptxas that built the binary), its SASS size, LDL/STL, and what it CALLs;
# and whether __kmpc_nvptx_parallel_reduce_nowait_v2 survives as its own function.
#   clang 19: this machine, CUDA 11.8 ptxas in .deps/cuda (as the course's nvptx build).
#   clang 21: the Debian 13 root ROOT (CUDA 13 from this machine's /usr/local/cuda, mounted
#     read-only, unmounted on exit); scratch in the root's /tmp/llvm21-reduction, removed on exit.
#   SASS: CUDA 11.8's nvdisasm; CUDA 13 cubins first get patchelf13.py and norel.py (relocations
#     dropped, so CALL targets read 0: the callee is named from `readelf -r` instead).
# DIST=dir copies the binaries there for a later GPU run and prints the command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd); t=$repo/tools/llvm21-sass
src=$(readlink -f "${SRC:-$here/repro.cpp}")  # SRC (another source), DEFS (more -D flags): variants
R=${ROOT:-$(ls -d "${COURSE_CLEAN_ROOT_CACHE:-/var/cache/course-clean-room}"/work/trixie-* 2>/dev/null | head -1)}
[ -n "$R" ] && [ -d "$R" ] || { echo "$(basename "$0"): no Debian 13 root (make one: scripts/clean-room.sh --dist trixie --keep; or set ROOT)" >&2; exit 2; }; W=${WORK:-/tmp/llvm21-reduction}
cuda=$(readlink -f /usr/local/cuda); RW=/tmp/llvm21-reduction; mounted=()
cleanup() {
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" || umount -l "${mounted[$i]}"; done
  rm -rf "${R:?}$RW"
}
trap cleanup EXIT
mnt() { mountpoint -q "$2" && { echo "$2 already mounted, left as is"; return; }; mkdir -p "$2"; mount "${@:3}" "$1" "$2"; mounted+=("$2"); }
common="-O3 -DNDEBUG -std=c++20 -fopenmp --offload-arch=sm_90 -fopenmp-targets=nvptx64-nvidia-cuda -Wno-pass-failed -save-temps"
rm -rf "$W" && mkdir -p "$W"
b19() {  # b19 NAME FLAGS...: clang 19, the course's nvptx flags
  mkdir -p "$W/$1" && (cd "$W/$1" && clang++-19 $common --cuda-path=$repo/.deps/cuda ${DEFS:-} "${@:2}" "$src" -o repro)
}
bc=--libomptarget-nvptx-bc-path=/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc  # not used by -foffload-lto
b19 c19 $bc && b19 c19-array $bc -DWITH_ARRAY_REDUCTION
[ "${LTO19:-1}" = 0 ] || { b19 c19lto -foffload-lto && b19 c19lto-array -foffload-lto -DWITH_ARRAY_REDUCTION; }
mnt proc "$R/proc" -t proc; mnt /dev "$R/dev" --bind; mnt "$cuda" "$R$cuda" --bind -o ro
rm -rf "$R$RW" && mkdir -p "$R$RW" && cp "$src" "$R$RW/repro.cpp"
for v in c21 c21-array; do
  d=""; [ $v = c21-array ] && d=-DWITH_ARRAY_REDUCTION
  chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/lib/llvm-21/bin:/usr/bin:/bin /bin/bash -c \
    "mkdir -p $RW/$v && cd $RW/$v && clang++ $common --cuda-path=$cuda -foffload-lto ${DEFS:-} $d ../repro.cpp -o repro"
  cp -r "$R$RW/$v" "$W/"
done
# Per build: the linked device image (cubin) and the PTX it came from.
for v in $(ls "$W"); do
  cd "$W/$v"; img=repro.nvptx64.sm_90.cubin; [ -f $img ] || img=repro.nvptx64.sm_90.img  # 21: ptxas's cubin; 19: the linked image
  ptx=$(ls -S *.s | grep -v host | head -1)  # the linked PTX (LTO) or the file's PTX
  if [[ $v == c21* ]]; then px=$cuda/bin/ptxas; python3 $t/ac97d7e/patchelf13.py "$img" p.cubin
    python3 $t/reduction/norel.py p.cubin pn.cubin; img2=pn.cubin
  else px=$repo/.deps/cuda/bin/ptxas; img2=$img; fi
  /opt/cuda118/bin/nvdisasm -c "$img2" > repro.sass
  # -c as clang calls ptxas (relocatable; nvlink links): 78 registers for sum, as on the H200
  $px -m64 -O3 --gpu-name sm_90 -c -v "$ptx" -o /dev/null > ptxas-v.txt 2>&1 || true
  echo "== $v ($img, $ptx)"
  python3 - "$img" <<'PY'
import re, subprocess, sys, collections
sass = open('repro.sass').read(); pv = open('ptxas-v.txt').read()
rel = subprocess.run(['readelf', '-rW', sys.argv[1]], capture_output=True, text=True).stdout
funcs = {s.split()[0]: s for s in re.split(r"//-+ \.text\.", sass)[1:]}
for name, sec in funcs.items():
    if not re.search(r"_Z3sumPKdm|_Z4sumtIdE|_Z10count_bins|^__kmpc_nvptx_parallel_reduce_nowait_v2$", name): continue
    ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sec))
    m = re.search(r"Compiling entry function '%s'.*?\n(?:.*\n)*?.*?(\d+) bytes stack frame.*?\n.*?Used (\d+) registers" % re.escape(name), pv) \
        or re.search(r"Function properties for %s\n\s*(\d+) bytes stack frame.*\n(?:.*\n)?.*?Used (\d+) registers" % re.escape(name), pv)
    cs = re.search(r"Relocation section '\.rel(?:a)?\.text\.%s'.*?\n\n" % re.escape(name), rel + "\n\n", re.S)
    called = sorted({w for w in re.findall(r"\s(\S+)\s*(?:\+ \d+)?\s*$", cs.group(0), re.M) if not w.startswith(('.', 'Offset', 'Addend'))} & set(funcs)) if cs else []
    short = "sum (double kernel)" if re.search("_Z3sumPKdm|_Z4sumtIdE", name) else ("count_bins (array)" if "count_bins" in name else name)
    print(f"  {short:28s} {sum(ops.values()):5d} SASS  regs {m.group(2) if m else '?':>3}  stack {m.group(1) if m else '?':>4} B"
          f"  LDL {ops['LDL']:3d} STL {ops['STL']:3d}  CALL {ops['CALL']}  calls: {', '.join(c for c in called if c != name) or '-'}")
print("  __kmpc_nvptx_parallel_reduce_nowait_v2 as its own function:", "__kmpc_nvptx_parallel_reduce_nowait_v2" in funcs)
PY
done
if [ -n "${DIST:-}" ]; then
  mkdir -p "$DIST"; for v in $(ls "$W"); do cp "$W/$v/repro" "$DIST/repro-$v"; done
  echo "On the GPU machine (LLVM 19 and 21 runtimes: libomptarget.so.19.1 / .21.1 on LD_LIBRARY_PATH):"
  echo "  cd $DIST && for b in repro-c19 repro-c19-array repro-c21 repro-c21-array; do echo \$b; ./\$b; done"
fi
