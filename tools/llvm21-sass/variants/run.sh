#!/usr/bin/env bash
# run.sh 19|21 RUNTIME.tar.xz [ROUNDS] (on the GPU node): times lesson 11's SGEMM (the solution, 4096^2,
# per call: the program's median of 20, host clock, the course's spinning wait) for every variant in
# the bundle gpu-carry/l21var/bNN/ (unpack gpu-carry/l21var/bNN.tar.xz from the repository root first;
# build.sh makes it), ROUNDS times (default 3) in turn, so that a drift of the GPU's clock touches every
# variant alike. Prints one line per run, then per variant the median and range of its rounds and
# the ratio to base; exits non-zero where a run fails or a result is wrong.
# RUNTIME.tar.xz: the LLVM runtime pack of that toolchain (gpu-carry/rtNN.tar.xz). VAR_BUNDLE: another bundle folder;
# VAR_MATRIX: another matrix size (a test on a host build).
set -uo pipefail
v=${1:?usage: run.sh 19|21 RUNTIME.tar.xz [ROUNDS]}; pack=${2:?usage: run.sh 19|21 RUNTIME.tar.xz [ROUNDS]}
rounds=${3:-3}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd); b=${VAR_BUNDLE:-$repo/gpu-carry/l21var/b$v}
die() { echo "run.sh: error: $*" >&2; exit 2; }
case "$v" in 19|21) ;; *) die "toolchain must be 19 or 21, got '$v'" ;; esac
[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || die "ROUNDS must be 1-99, got '$rounds'"
[ -f "$pack" ] || die "runtime pack '$pack' not found (carry gpu-carry/rt$v.tar.xz)"
[ -d "$b" ] || die "no bundle $b (tar xJf gpu-carry/l21var/b$v.tar.xz from the repository root)"
mapfile -t progs < <(cd "$b" && ls lesson11-* 2>/dev/null)
[ ${#progs[@]} -gt 0 ] || die "no lesson11-* programs in $b"
cat "$b/BUILD.txt"
bad=0; results=()
for ((r = 1; r <= rounds; r++)); do
  for p in "${progs[@]}"; do
    out=$(bash "$b/gpu-node.sh" "$pack" "$b/$p" --n 4096 --bodies 64 --matrix "${VAR_MATRIX:-4096}" --reps 20 --only-yours 2>&1)
    rc=$?
    row=$(printf '%s\n' "$out" | grep -A1 '^SGEMM' | tail -1)
    ms=$(printf '%s\n' "$row" | sed -n 's/.* \([0-9.]*\) ms .*/\1/p')
    if [ $rc -ne 0 ] || [ -z "$ms" ] || ! printf '%s\n' "$row" | grep -q 'correct'; then
      echo "round $r ${p#lesson11-}: FAILED (exit $rc): ${row:-$(printf '%s\n' "$out" | tail -3)}"; bad=1; continue
    fi
    echo "round $r ${p#lesson11-}: $ms ms per call"
    results+=("${p#lesson11-} $ms")
  done
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
d = {}
for line in sys.stdin:
    if line.strip():
        k, ms = line.split(); d.setdefault(k, []).append(float(ms))
base = statistics.median(d["base"]) if "base" in d else None
print(f"LLVM '"$v"', SGEMM '"${VAR_MATRIX:-4096}"'^2, ms per call (median of 20 calls per run, host clock), over the rounds:")
for k, xs in d.items():
    m = statistics.median(xs)
    rel = f"  base / this {base / m:.3f}" if base else ""
    print(f"  {k:28s} median {m:.4f}  min {min(xs):.4f}  max {max(xs):.4f}  ({len(xs)} runs){rel}")
'
exit $bad
