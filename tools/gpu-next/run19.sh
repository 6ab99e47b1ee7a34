#!/usr/bin/env bash
# run19.sh (on the H200, from the repository root): the LLVM 19 call of the next GPU session, issue 55's
# candidates first. Carry what `tools/gpu-next/prepare.sh 19` printed. Each part has its own time limit
# and its output in $OUT/llvm19/PART.txt (or /tmp/gpu-next/llvm19 without OUT); a part that fails is
# reported and the next one still runs; the exit status is 1 when any failed.
#   1. sgk       stream-K SGEMM against the course's gemm_exact (tools/lesson11-explore/README.md):
#                n = 1, 97, 1000, 4099, 4096 checked at the default league, then 4096 with 132 and 264
#                teams and with 2 and 3 whole-tile waves first
#   2. nbb       the balanced N-body team_step against the course's (same README): n = 1 ... 65536,
#                then 65536 with 132, 396, 528 teams
#   3. variants  lesson 11's SGEMM per form of the given Share, 3 rounds (tools/llvm21-sass/variants)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); cd "$repo" || exit 2
out=${OUT:-/tmp/gpu-next}/llvm19; mkdir -p "$out"
rt=gpu-carry/rt19.tar.xz
for b in l21var/b19 nbb sgk; do
  tar xJf "gpu-carry/$b.tar.xz" || { echo "run19.sh: error: cannot unpack gpu-carry/$b.tar.xz (carry it)" >&2; exit 2; }
done
git rev-parse --short HEAD 2>/dev/null | sed 's/^/tree: /'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /' | tee "$out/gpu.txt"
failed=()
# part NAME SECONDS CMD...: CMD under a time limit, output to the screen and to $out/NAME.txt
part() {
  local name=$1 secs=$2; shift 2
  echo "== $name ($(date -u +%T))"
  timeout "$secs" bash -c "$*" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "== $name: FAILED (exit $rc)"; failed+=("$name"); }
}
node="scripts/gpu-node.sh $rt"
part sgk 170 "$node gpu-carry/sgk/sgemm_streamk --reps 20 &&
  for L in 132 264; do $node gpu-carry/sgk/sgemm_streamk --n 4096 --teams \$L; done &&
  for W in 2 3; do $node gpu-carry/sgk/sgemm_streamk --n 4096 --dp-waves \$W; done"
part nbb 130 "$node gpu-carry/nbb/nb_balanced --n 1,97,1000,4099,65536 --reps 20 &&
  for L in 132 396 528; do $node gpu-carry/nbb/nb_balanced --n 65536 --teams \$L; done"
part variants 260 "bash tools/llvm21-sass/variants/run.sh 19 $rt 3"
echo "== summary (LLVM 19)"
grep -h -E "^csv:|per call|base / this" "$out"/sgk.txt "$out"/nbb.txt "$out"/variants.txt 2>/dev/null
[ ${#failed[@]} = 0 ] || { echo "run19.sh: failed: ${failed[*]}"; exit 1; }
