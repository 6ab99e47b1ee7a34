#!/usr/bin/env bash
# run21.sh (on the H200, from the repository root): the LLVM 21 call of the next GPU session (issue 54).
# Carry what `tools/gpu-next/prepare.sh 21` printed. Each part has its own time limit and its output in
# $OUT/llvm21/PART.txt (or /tmp/gpu-next/llvm21 without OUT); a part that fails is reported and the
# next one still runs; the exit status is 1 when any failed.
#   1. variants  lesson 11's SGEMM per form of the given Share, 3 rounds (tools/llvm21-sass/variants)
#   2. regs      the registers of lesson 11's kernels: the image's table, the driver alone, and ncu
#                through LLVM's plugin (tools/llvm21-sass/regs: ncu read 255 for all of them)
#   3. inline    lesson 6 and 11 as the course builds them (A) against the inliner flag (B)
#                (tools/llvm21-reduction/inline_threshold_ab.sh)
set -uo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd); cd "$repo" || exit 2
out=${OUT:-/tmp/gpu-next}/llvm21; mkdir -p "$out"
rt=gpu-carry/rt21.tar.xz
for b in l21var/b21 regs; do
  tar xJf "gpu-carry/$b.tar.xz" || { echo "run21.sh: error: cannot unpack gpu-carry/$b.tar.xz (carry it)" >&2; exit 2; }
done
b21e=/tmp/gpu-next-b21e; rm -rf "$b21e"; mkdir -p "$b21e"
tar xJf gpu-carry/bundle21e.tar.xz -C "$b21e" || { echo "run21.sh: error: cannot unpack gpu-carry/bundle21e.tar.xz" >&2; exit 2; }
l11=$(find "$b21e" -path '*11-*/lesson11' -type f | head -1)
git rev-parse --short HEAD 2>/dev/null | sed 's/^/tree: /'
echo "bundle21e: $(cat "$b21e"/*/report/commit.txt)"
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
part variants 220 "bash tools/llvm21-sass/variants/run.sh 21 $rt 3"
part regs 150 "bash tools/llvm21-sass/regs/regs.sh $rt $l11 --n 1024 --bodies 65536 --matrix 4096 --reps 1 --only-yours"
part inline 180 "bash tools/llvm21-reduction/inline_threshold_ab.sh gpu-carry/bundle21e.tar.xz gpu-carry/bundle21f.tar.xz $rt"
echo "== summary (LLVM 21)"
grep -h -E "per call|base / this" "$out"/variants.txt 2>/dev/null
[ ${#failed[@]} = 0 ] || { echo "run21.sh: failed: ${failed[*]}"; exit 1; }
