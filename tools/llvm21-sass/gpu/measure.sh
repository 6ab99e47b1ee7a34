#!/usr/bin/env bash
# measure.sh (on the GPU node): the H200 measurements (LLVM 19 against 21) of one toolchain's bundle, LLVM 19 or 21.
#   bash tools/llvm21-sass/gpu/measure.sh 19|21 RUNTIME.tar.xz      (run19.sh / run21.sh call it)
# The bundle: gpu-carry/l21cmp/bNN/ under the repository root (unpack gpu-carry/l21cmp/bNN.tar.xz there
# first; pack.sh makes it), or $CMP_BUNDLE. RUNTIME.tar.xz: the LLVM runtime pack (gpu-carry/rtNN.tar.xz).
# Fails at once, with one line, where the bundle, the pack or an NVIDIA GPU is missing.
# Writes everything under $OUT/l21cmp-llvmNN/ ($OUT unset: /tmp/l21cmp-out); stdout: the summary table.
#  1. sgemm_repro (tools/llvm21-sass/sgemm_repro.cpp) and its -DFIX build at 4096^2: the program's own
#     median of 20 calls, then under ncu (5 launches): gpu__time_duration.sum, grid, block, registers.
#  2. lesson06 (lesson 6's solution program): its own table at its default size (n = 2^28, 20 runs per row);
#     again with LIBOMPTARGET_INFO=16 (OMP_INFOTYPE_PLUGIN_KERNEL: the plugin prints each launch's
#     blocks x threads and mode; --reps 1, --slow-n 65536: the same n, so the same reduction-clause launch);
#     again under ncu for the reduction-clause and team-local sum kernels (--reps 3, --slow-n 65536).
# Programs start through the bundle's copy of scripts/gpu-node.sh: it unpacks the pack once (into
# $COURSE_RT_DIR, default /tmp/course-rt-<cksum>), sets LD_LIBRARY_PATH (or starts the program through
# the pack's own loader, as LLVM 21's pack needs) and the build's course-env.json (OMP_TARGET_OFFLOAD=MANDATORY).
# ncu: $COURSE_NCU, else PATH, /usr/local/cuda*/bin/ncu, /opt/nvidia/nsight-compute/*/ncu; none: ncu steps skipped.
set -uo pipefail
v=${1:?usage: measure.sh 19|21 RUNTIME.tar.xz}; pack=${2:?usage: measure.sh 19|21 RUNTIME.tar.xz}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd); repo=$(cd "$here/../../.." && pwd)
b=${CMP_BUNDLE:-$repo/gpu-carry/l21cmp/b$v}
die() { echo "l21cmp: error: $*" >&2; exit 2; }
case "$v" in 19|21) ;; *) die "toolchain must be 19 or 21, got '$v'" ;; esac
[ -f "$pack" ] || die "runtime pack '$pack' not found (carry gpu-carry/rt$v.tar.xz)"
pack=$(cd "$(dirname "$pack")" && pwd)/$(basename "$pack")
[ -d "$b" ] || die "no bundle folder $b: unpack it first (tar xJf gpu-carry/l21cmp/b$v.tar.xz from the repository root; pack.sh makes it)"
for f in gpu-node.sh course-env.json lesson06 sgemm-llvm$v sgemm-llvm$v-fix; do
  [ -e "$b/$f" ] || die "bundle $b lacks $f"
done
# An NVIDIA GPU, or every program fails (OMP_TARGET_OFFLOAD=MANDATORY) and the tables say nothing.
gpus=$(find /dev -maxdepth 1 -name 'nvidia[0-9]*' 2>/dev/null | wc -l)
command -v nvidia-smi >/dev/null && gpus=$((gpus + $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')))
[ "$gpus" -gt 0 ] || die "no NVIDIA GPU on this machine (nvidia-smi -L lists none / no /dev/nvidiaN): run it on the GPU node (tools/llvm21-sass/gpu/README.md)"
o=${OUT:-/tmp/l21cmp-out}/l21cmp-llvm$v; mkdir -p "$o"; : > "$o/steps.log"
gn() { "$b/gpu-node.sh" "$pack" "$@"; }
t0=$SECONDS
step() { echo "l21cmp: [$((SECONDS - t0)) s] $*" >> "$o/steps.log"; }
{ command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; } > "$o/gpu.txt" 2>&1 || echo "no nvidia-smi" > "$o/gpu.txt"
cp "$b/BUILD.txt" "$o/" 2>/dev/null || true
# The pack unpacked once, before anything is timed (gpu-node.sh's own lines; it finds it there then).
export COURSE_RT_DIR=${COURSE_RT_DIR:-/tmp/course-rt-$(cksum < "$pack" | cut -d' ' -f1)}
[ -d "$COURSE_RT_DIR/llvm-rt" ] || { mkdir -p "$COURSE_RT_DIR" && tar xJf "$pack" -C "$COURSE_RT_DIR"; } || die "could not unpack $pack"
step "runtime pack in $COURSE_RT_DIR"

# ncu as report/course_report/kernel_time.py finds it ($COURSE_NCU, PATH, /usr/local/cuda/bin), plus
# Nsight Compute's own install folders.
ncu=""
for p in "${COURSE_NCU:-}" "$(command -v ncu 2>/dev/null)" /usr/local/cuda/bin/ncu /usr/local/cuda-*/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
  [ -n "$p" ] && [ -x "$p" ] && { ncu=$p; break; }
done
if [ -n "$ncu" ]; then echo "$ncu" > "$o/ncu.txt"; "$ncu" --version 2>&1 | tail -1 >> "$o/ncu.txt"
else echo "NO NCU: not \$COURSE_NCU, not on PATH, not in /usr/local/cuda*/bin or /opt/nvidia/nsight-compute/*/: kernel times (ncu) skipped" | tee "$o/ncu.txt" >&2; fi
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
under_ncu() {  # log-name kernel-regex launch-count timeout program args...
  local name=$1 re=$2 count=$3 to=$4; shift 4
  [ -n "$ncu" ] || { echo "skipped: no ncu" > "$o/$name.log"; return 0; }
  local c=(); [ "$count" -gt 0 ] && c=(-c "$count")
  # --clock-control none: the clocks as the GPU sets them (as the timed runs), like kernel_time.py
  timeout "$to" "$ncu" --clock-control none -k "regex:$re" "${c[@]}" --metrics "$metrics" --csv --page raw \
    --print-units base --print-kernel-base mangled --log-file "$o/$name.csv" "$b/gpu-node.sh" "$pack" "$@" > "$o/$name.log" 2>&1
  echo "exit $?" >> "$o/$name.log"
}

# 1. sgemm_repro
for s in llvm$v llvm$v-fix; do
  step "sgemm $s"
  timeout 45 "$b/gpu-node.sh" "$pack" "$b/sgemm-$s" 4096 > "$o/sgemm-$s.txt" 2>&1; echo "exit $?" >> "$o/sgemm-$s.txt"
  step "sgemm $s under ncu"
  under_ncu "ncu-sgemm-$s" sgemm 5 60 "$b/sgemm-$s" 4096
done
# 2. lesson06
step "lesson06 table"
timeout 120 "$b/gpu-node.sh" "$pack" "$b/lesson06" --csv "$o/lesson06.csv" > "$o/lesson06.txt" 2>&1; echo "exit $?" >> "$o/lesson06.txt"
step "lesson06 LIBOMPTARGET_INFO=16"
LIBOMPTARGET_INFO=16 timeout 75 "$b/gpu-node.sh" "$pack" "$b/lesson06" --reps 1 --slow-n 65536 > "$o/lesson06-info.txt" 2>&1
echo "exit $?" >> "$o/lesson06-info.txt"
step "lesson06 under ncu"
under_ncu ncu-lesson06 'reduction_clause|sum_impl' 0 120 "$b/lesson06" --reps 3 --slow-n 65536
step "done"
python3 "$here/summarize.py" "$v" "$o" | tee "$o/summary.txt"
echo "l21cmp: everything in $o ($((SECONDS - t0)) s)"
