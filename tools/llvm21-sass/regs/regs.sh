#!/usr/bin/env bash
# regs.sh RUNTIME.tar.xz PROGRAM [ARGS...] (on a GPU node; unpack gpu-carry/regs.tar.xz first, pack.sh makes
# it): how many registers lesson 11's team kernels (team_step, gemm_exact) get, three ways:
#   1. the image's own table: extract.py takes the GPU image out of PROGRAM;
#   2. the driver, loading that image alone (cubin_regs: cuFuncGetAttribute, and teams of 256 per
#      multiprocessor by cuOccupancyMaxActiveBlocksPerMultiprocessor);
#   3. with ARGS: the program run through LLVM's plugin under ncu (launch__registers_per_thread,
#      launch__occupancy_limit_registers, and the occupancy in theory and achieved: 256-thread teams of
#      team_step<8>, 2 per multiprocessor = 25 %, 1 = 12.5 %, whatever a register column says),
#      started by scripts/gpu-node.sh with RUNTIME.tar.xz.
# Why: ncu read 255 registers for every LLVM 21 lesson 11 kernel, where the image says 127 for team_step<8>;
# 2 against 3 says whether the image or the way the plugin loads it makes the difference.
set -uo pipefail
rt=${1:?usage: regs.sh RUNTIME.tar.xz PROGRAM [ARGS...]}; prog=${2:?usage: regs.sh RUNTIME.tar.xz PROGRAM [ARGS...]}; shift 2
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd); here=$repo/tools/llvm21-sass/regs
cr=$repo/gpu-carry/regs/cubin_regs
[ -x "$cr" ] || { echo "regs.sh: error: no $cr (tar xJf gpu-carry/regs.tar.xz; pack.sh makes it)" >&2; exit 2; }
[ -f "$prog" ] || { echo "regs.sh: error: no program $prog" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
python3 "$here/extract.py" "$prog" "$t" > "$t/images.txt" || exit 2
bad=0
while read -r img names; do
  [ -n "$names" ] || continue
  echo "== $prog: $img (driver, the image alone)"
  # shellcheck disable=SC2086  # names: one word per kernel
  "$cr" "$img" 256 $names | sed 's/__omp_offloading_[0-9a-f]*_[0-9a-f]*__ZN8lesson1112_GLOBAL__N_1[0-9]*//' | cut -c1-160 || bad=1
done < "$t/images.txt"
if [ $# -gt 0 ]; then
  ncu=""; for p in "$(command -v ncu 2>/dev/null)" /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
    [ -n "$p" ] && [ -x "$p" ] && { ncu=$p; break; }; done
  if [ -z "$ncu" ]; then echo "regs.sh: no ncu here: step 3 skipped"
  else
    echo "== $prog $* (through LLVM's plugin, ncu)"
    timeout 300 "$ncu" --target-processes all --clock-control none -k 'regex:team_step|gemm_exact' -c 12 \
      --metrics launch__registers_per_thread,launch__occupancy_limit_registers,launch__block_size,sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.pct_of_peak_sustained_active --csv --page raw \
      "$repo/scripts/gpu-node.sh" "$rt" "$prog" "$@" > "$t/ncu.csv" 2> "$t/ncu.err" || { bad=1; tail -3 "$t/ncu.err"; }
    python3 - "$t/ncu.csv" <<'PY'
import csv, re, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
if len(rows) < 3:
    sys.exit("regs.sh: ncu recorded no kernel")
h = rows[0]
for r in rows[2:]:
    d = dict(zip(h, r))
    name = re.sub(r"__omp_offloading_[0-9a-f]*_[0-9a-f]*__ZN8lesson1112_GLOBAL__N_1[0-9]*", "", d["Kernel Name"])[:90]
    print(f"{name}: {d['launch__registers_per_thread']} registers, teams per multiprocessor by registers "
          f"{d['launch__occupancy_limit_registers']}, block {d['launch__block_size']}, occupancy "
          f"{d['sm__maximum_warps_per_active_cycle_pct']} % in theory, "
          f"{d['sm__warps_active.avg.pct_of_peak_sustained_active']} % achieved")
PY
  fi
fi
exit $bad
