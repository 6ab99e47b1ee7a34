#!/usr/bin/env bash
# proxy.sh CUBIN [13] (here): a static one-warp estimate of lesson 11's SGEMM k loop (the solution's
# gemm_exact<16, multiply_tile, true>) in a linked device image: the loop's stall cycles (control codes)
# plus the team-local load latency left exposed (30 cycles, ../ac97d7e/expo.py), and how many LDS.128
# are waited on within 16 instructions (../ac97d7e/ctl.py). 13: a CUDA 13 cubin (LLVM 21's), read by
# CUDA 11.8's cuobjdump after ../ac97d7e/patchelf13.py and ../reduction/norel.py. A proxy for the
# ordering of the variants, not a time: at 2026-12-04's HEAD it gives LLVM 19 2425 and LLVM 21 2571
# (+6 %) where the H200 measured 3.000 and 3.26-3.29 ms (+9 %).
# CUOBJDUMP (default /opt/cuda118/bin/cuobjdump).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
f=${1:?usage: proxy.sh CUBIN [13]}; [ -f "$f" ] || { echo "proxy.sh: error: no file $f" >&2; exit 2; }
if [ "${2:-}" = 13 ]; then python3 "$here/../ac97d7e/patchelf13.py" "$f" "$t/a" && python3 "$here/../reduction/norel.py" "$t/a" "$t/k.cubin"
else cp "$f" "$t/k.cubin"; fi
"${CUOBJDUMP:-/opt/cuda118/bin/cuobjdump}" -sass "$t/k.cubin" > "$t/all.cuo"
kernel=gemm_exactILi16ETnPFvRAT__A8_fRKNS_9GemmShapeIXT_EE5TileAERKNS6_5TileBEiiEXadL_ZNS0_13multiply_tileERA16_S2_RA8_A65_KNS_4Vec4ERA8_A32_SI_iiEELb1
read -r a0 a1 _ < <(python3 "$here/hot_loop.py" "$t/all.cuo" "$kernel" "$t/k.cuo")
read -r stall near < <(python3 "$here/../ac97d7e/ctl.py" "$t/k.cuo" "$a0" "$a1" |
  awk '/first wait/ { n++; if ($0 ~ /after ([0-9]|1[0-6]) instr/) w++ } NR == 1 { s = $5 } END { print s, w + 0 "/" n }')
exposed=$(python3 "$here/../ac97d7e/expo.py" "$t/k.cuo" "$a0" "$a1" 30 LDS | sed -n 's/.*exposed ~\([0-9]*\).*/\1/p')
echo "estimate $((stall + exposed)) cycles (stalls $stall + exposed $exposed); LDS.128 waited within 16 instructions: $near"
