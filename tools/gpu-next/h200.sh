#!/usr/bin/env bash
# h200.sh 19|21 (GPU node): the runs issues 54 and 55 still need, only on an H200 (elsewhere it
# prints the card and stops, so a call that was given another card costs seconds).
#   19: nbody_repro under LLVM 19 (3 runs, ncu), lesson 11's report 5 times, then its verdicts 20
#       times (report-gpu.sh test --repeat 20 --lessons 11); about 5 minutes in all on an H100;
#       carry gpu-carry/rt19.tar.xz, gpu-carry/B19.tar.xz (scripts/pack-llvm-runtime.sh,
#       scripts/report-gpu.sh pack build-nvptx gpu-carry/B19) and gpu-carry/nbr/nbr19
#       (tools/llvm21-sass/nbody_repro.cpp built with clang++-19)
#   21: nbody_repro under LLVM 21, base, -DSHIFTED and -DCOUNTLOOP=int (3 runs each, interleaved; ncu
#       of each), then lesson 11's report 5 times; carry gpu-carry/rt21.tar.xz, gpu-carry/B21.tar.xz
#       and gpu-carry/nbr/ (nbr21, nbr21_SHIFTED, nbr21_COUNTLOOP: built with clang++-21 -foffload-lto)
#   19r: as 19 without the verdicts
# The two calls' ncu kernel times give the share of LLVM 19's lead each form takes back, on one card.
# ANY=1 runs on whatever card came (for a side-by-side on one card that is not an H200: both calls
# must then land on the same kind, which the output's first line says).
# Output: $OUT/nbrNN.txt, $OUT/ncuNN.txt, $OUT/reportNN.txt with the report's files, and for 19
# $OUT/verdicts19.txt and repeat.md.
set -u
v=${1:-}; case "$v" in 19|19r|21) ;; *) echo "usage: [ANY=1] h200.sh 19|19r|21" >&2; exit 2 ;; esac
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1); echo "GPU: $gpu"; date -u
case "$gpu" in *H200*) ;; *) [ "${ANY:-0}" = 1 ] || { echo "h200.sh: not an H200: nothing run"; exit 0; } ;; esac
nbody() {  # RT BUILD...: 3 interleaved runs of each build, then ncu of each
  local rt=$1; shift
  for _ in 1 2 3; do for b in "$@"; do
    scripts/gpu-node.sh "$rt" "gpu-carry/nbr/$b" | sed "s/^/$b: /"; done; done 2>&1 | tee "$OUT/nbr$v.txt"
  for b in "$@"; do echo "== ncu $b"
    timeout 100 /usr/local/cuda/bin/ncu --target-processes all --clock-control none -k regex:step -s 3 -c 3 \
      --metrics gpu__time_duration.sum,smsp__issue_active.avg.pct_of_peak_sustained_active \
      scripts/gpu-node.sh "$rt" "gpu-carry/nbr/$b" 2>&1 | grep -E 'gpu__time|issue_active'; done | tee "$OUT/ncu$v.txt"
}
report() {  # RT BUNDLE LLVM: lesson 11's report, 5 repeats
  scripts/report-gpu.sh run "$1" "$2" --full --no-starters --lessons 11 --repeat 5 \
    --kernel-time > "$OUT/report$3.txt" 2>&1; echo "report rc $?"
  rm -f "$OUT"/*.png; grep -E '\| L11 \|' "$OUT/report.md" | cut -c1-200
}
if [ "$v" = 19r ]; then
  v=19; nbody gpu-carry/rt19.tar.xz nbr19
  report gpu-carry/rt19.tar.xz gpu-carry/B19.tar.xz 19
elif [ "$v" = 19 ]; then
  nbody gpu-carry/rt19.tar.xz nbr19
  report gpu-carry/rt19.tar.xz gpu-carry/B19.tar.xz 19
  scripts/report-gpu.sh test gpu-carry/rt19.tar.xz gpu-carry/B19.tar.xz --repeat 20 --lessons 11 > "$OUT/verdicts19.txt" 2>&1
  echo "verdicts rc $?"; tail -16 "$OUT/verdicts19.txt"
else
  nbody gpu-carry/rt21.tar.xz nbr21 nbr21_SHIFTED nbr21_COUNTLOOP
  report gpu-carry/rt21.tar.xz gpu-carry/B21.tar.xz 21
fi
date -u
