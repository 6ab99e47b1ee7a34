#!/usr/bin/env bash
# ncu_nbody.sh 19|21 (on a GPU node, from the repository root; carry gpu-carry/rtNN.tar.xz and
# gpu-carry/BNN.tar.xz, the bundle `scripts/report-gpu.sh pack` makes): the stall metrics of lesson 11's
# N-body kernel (team_step<8>, 65,536 bodies, clocks left alone) under one LLVM. Made the figures
# "Why LLVM 21's N-body kernel is slower" in docs/results/h100-2026-12-05.md. CSV to $OUT/ncuNN.csv.
set -uo pipefail
v=${1:-}; case "$v" in 19|21) ;; *) echo "usage: ncu_nbody.sh 19|21" >&2; exit 2 ;; esac
d=/tmp/nb$v; mkdir -p "$d" "${OUT:=/tmp}"
tar xJf "gpu-carry/B$v.tar.xz" -C "$d" || { echo "ncu_nbody.sh: error: cannot unpack gpu-carry/B$v.tar.xz" >&2; exit 2; }
p=$(find "$d" -path '*11-*/lesson11' -type f | head -1)
ncu=""; for c in "$(command -v ncu 2>/dev/null)" /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -n "$c" ] && [ -x "$c" ] && { ncu=$c; break; }; done
if [ -z "$ncu" ] || [ -z "$p" ]; then echo "ncu_nbody.sh: error: no ncu ('$ncu') or no lesson11 in the bundle ('$p')" >&2; exit 2; fi
m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active
m=$m,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
for s in mio_throttle short_scoreboard math_pipe_throttle wait not_selected; do m=$m,smsp__average_warp_latency_issue_stalled_$s.ratio; done
timeout 200 "$ncu" --target-processes all --clock-control none -k 'regex:team_step' -c 3 --csv --page raw --metrics "$m" \
  scripts/gpu-node.sh "gpu-carry/rt$v.tar.xz" "$p" --n 1024 --bodies 65536 --matrix 128 --reps 2 --only-yours \
  > "$OUT/ncu$v.csv" 2> "$OUT/ncu$v.err" || { tail -3 "$OUT/ncu$v.err"; exit 1; }
echo "ncu_nbody.sh: $(grep -c team_step "$OUT/ncu$v.csv") team_step launches measured, $OUT/ncu$v.csv"
