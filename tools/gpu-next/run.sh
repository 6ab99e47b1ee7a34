#!/usr/bin/env bash
# run.sh 19|21 (on the H200, from the repository root): one toolchain's call of the next GPU session.
# Carry what `tools/gpu-next/prepare.sh 19|21` printed. Each part has its own time limit and its output
# in $OUT/llvmNN/PART.txt (or /tmp/gpu-next/llvmNN without OUT); a part that fails is reported and the
# next one still runs; the exit status is 1 when any failed.
#   LLVM 19 (lesson 11's candidates past the vendor first):
#     sgk       stream-K SGEMM against the course's gemm_exact (tools/lesson11-explore/README.md):
#               n = 1, 97, 1000, 4099, 4096 checked at the default league, then 4096 with 132 and 264
#               teams and with 2 and 3 whole-tile waves first
#     nbb       the balanced N-body team_step against the course's (same README): n = 1 ... 65536,
#               then 65536 with 132, 396, 528 teams
#     variants  lesson 11's SGEMM per form of the given Share, 3 rounds (tools/llvm21-sass/variants)
#   LLVM 21 (LLVM 21 at LLVM 19's speed):
#     variants  as above
#     regs      the registers of lesson 11's kernels: the image's table, the driver alone, and ncu
#               through LLVM's plugin (tools/llvm21-sass/regs: ncu read 255 for all of them)
#     inline    lesson 6 and 11 as the course builds them (A) against the inliner flag (B)
#               (tools/llvm21-reduction/inline_threshold_ab.sh)
set -uo pipefail
v=${1:-}
case "$v" in 19|21) ;; *) echo "usage: run.sh 19|21" >&2; exit 2 ;; esac
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); cd "$repo" || exit 2
out=${OUT:-/tmp/gpu-next}/llvm$v; mkdir -p "$out"
rt=gpu-carry/rt$v.tar.xz
if [ "$v" = 19 ]; then unpack=(l21var/b19 nbb sgk); else unpack=(l21var/b21 regs); fi
for b in "${unpack[@]}"; do
  tar xJf "gpu-carry/$b.tar.xz" || { echo "run.sh: error: cannot unpack gpu-carry/$b.tar.xz (carry it)" >&2; exit 2; }
done
git rev-parse --short HEAD 2>/dev/null | sed 's/^/tree: /'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/gpu: /' | tee "$out/gpu.txt"
failed=()
# part NAME SECONDS CMD: CMD under a time limit, output to the screen and to $out/NAME.txt
part() {
  local name=$1 secs=$2; shift 2
  echo "== $name ($(date -u +%T))"
  timeout "$secs" bash -c "$*" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || { echo "== $name: FAILED (exit $rc)"; failed+=("$name"); }
}
node="scripts/gpu-node.sh $rt"
if [ "$v" = 19 ]; then
  part sgk 170 "$node gpu-carry/sgk/sgemm_streamk --reps 20 &&
    for L in 132 264; do $node gpu-carry/sgk/sgemm_streamk --n 4096 --teams \$L; done &&
    for W in 2 3; do $node gpu-carry/sgk/sgemm_streamk --n 4096 --dp-waves \$W; done"
  part nbb 130 "$node gpu-carry/nbb/nb_balanced --n 1,97,1000,4099,65536 --reps 20 &&
    for L in 132 396 528; do $node gpu-carry/nbb/nb_balanced --n 65536 --teams \$L; done"
  part variants 260 "bash tools/llvm21-sass/variants/run.sh 19 $rt 3"
else
  b21e=/tmp/gpu-next-b21e; rm -rf "$b21e"; mkdir -p "$b21e"
  tar xJf gpu-carry/bundle21e.tar.xz -C "$b21e" || { echo "run.sh: error: cannot unpack gpu-carry/bundle21e.tar.xz" >&2; exit 2; }
  echo "bundle21e: $(cat "$b21e"/*/report/commit.txt)"
  l11=$(find "$b21e" -path '*11-*/lesson11' -type f | head -1)
  part variants 220 "bash tools/llvm21-sass/variants/run.sh 21 $rt 3"
  part regs 150 "bash tools/llvm21-sass/regs/regs.sh $rt $l11 --n 1024 --bodies 65536 --matrix 4096 --reps 1 --only-yours"
  part inline 180 "bash tools/llvm21-reduction/inline_threshold_ab.sh gpu-carry/bundle21e.tar.xz gpu-carry/bundle21f.tar.xz $rt"
fi
echo "== summary (LLVM $v)"
grep -h -E "^csv:|per call|base / this" "$out"/*.txt 2>/dev/null
[ ${#failed[@]} = 0 ] || { echo "run.sh: failed: ${failed[*]}"; exit 1; }
