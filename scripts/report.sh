#!/usr/bin/env bash
# The course report, in one command: configures and builds a release
# solutions build (build-report/ unless told otherwise), then measures the
# device's ceilings and runs every lesson's variants with report/report.py.
# Tables on the terminal; report.md, CSV and PNG plots under BUILD/report/.
#
#   scripts/report.sh                       teaching sizes (a few minutes on a 2-core laptop)
#   scripts/report.sh --full                the articles' / design's full sizes (GPU nodes)
#   scripts/report.sh --tiny                seconds: a smoke run
#   scripts/report.sh --build DIR           another build folder (an existing one keeps its settings)
#   scripts/report.sh --device host|nvptx   where target regions run (default auto: a GPU if found)
#   scripts/report.sh --no-build            run from what DIR already holds
#   report options, passed on: --lessons 1,3  --out DIR  --timeout S  --no-plots  --no-starters  --resume
#   scripts/report.sh --lessons 11 --repeat 5   the vendor and lesson programs 5 times, round after round:
#                                           each goal's min/median/max % and "met in k of 5 runs" (repeats.csv)
#
# Exit status: 0 every variant verified; 1 something FAILED (the report still
# finishes the rest); 2 bad arguments.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build-report"
device=""
do_build=1
pass=()
lessons=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --build) [ $# -ge 2 ] || { echo "report.sh: error: --build needs a folder (see --help)" >&2; exit 2; }
             build=$2; shift ;;
    --build=*) build=${1#*=} ;;
    --device) [ $# -ge 2 ] || { echo "report.sh: error: --device needs host, nvptx or auto (see --help)" >&2; exit 2; }
              device=$2; shift ;;
    --device=*) device=${1#*=} ;;
    --no-build) do_build=0 ;;
    --lessons) [ $# -ge 2 ] || { echo "report.sh: error: --lessons needs a list such as 1,3 (see --help)" >&2; exit 2; }
               lessons=$2; pass+=("$1" "$2"); shift ;;
    --lessons=*) lessons=${1#*=}; pass+=("$1") ;;
    *) pass+=("$1") ;;
  esac
  shift
done
case "$device" in
  ""|host|nvptx|auto) ;;
  *) echo "report.sh: error: --device must be host, nvptx or auto, got '$device' (see --help)" >&2; exit 2 ;;
esac
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac

# Debian's python3 has python3-matplotlib (scripts/install-deps.sh); a python3
# earlier on PATH (pyenv, a venv) may not, so prefer one that can plot.
py=""
for cand in /usr/bin/python3 python3; do
  if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import matplotlib' >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -z "$py" ]; then
  py=$(command -v python3 || true)
  [ -n "$py" ] || { echo "report.sh: error: no python3 (run scripts/install-deps.sh)" >&2; exit 1; }
  echo "report.sh: warning: no python3 with matplotlib: the plots will be skipped (scripts/install-deps.sh installs python3-matplotlib)"
fi

# Bad report options fail now, not after a long build.
"$py" "$repo/report/report.py" --build "$build" "${pass[@]}" --validate-only --no-build-check

t0=$SECONDS
if [ "$do_build" = 1 ]; then
  mkdir -p "$build"
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  if [ ! -f "$build/CMakeCache.txt" ]; then
    echo "report.sh: configuring a release solutions build in $build (device ${device:-auto})"
    cmake -S "$repo" -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCOURSE_TRACK=solutions -DCOURSE_DEVICE="${device:-auto}" >"$build/report-configure.log" 2>&1 \
      || { tail -30 "$build/report-configure.log"; echo "report.sh: configure failed (log: $build/report-configure.log)" >&2; exit 1; }
  else
    echo "report.sh: reconfiguring $build${device:+ for device $device}"
    cmake -S "$repo" -B "$build" ${device:+-DCOURSE_DEVICE="$device"} >"$build/report-configure.log" 2>&1 \
      || { tail -30 "$build/report-configure.log"; echo "report.sh: configure failed (log: $build/report-configure.log)" >&2; exit 1; }
  fi
  grep -E "^-- Course" "$build/report-configure.log" | sed 's/^-- /report.sh: /' || true

  # Only what the report runs: the lesson programs, the starters, the ceilings
# (and the vendor SGEMMs: cuBLAS on NVIDIA, OpenBLAS on the host, where found).
  targets=(course_ceilings)
  if cmake --build "$build" --target help >"$build/report-targets.txt" 2>/dev/null; then
    want='lesson[0-9][0-9](_starter)?|course_sgemm|course_blas_sgemm'
    if [ -n "$lessons" ]; then
      want=$(echo "$lessons" | tr ',' '\n' | awk 'NF { printf "%slesson%02d(_starter)?", sep, $1; sep="|" }')
      want="$want|course_sgemm|course_blas_sgemm"
    fi
    while read -r t; do targets+=("$t"); done < <(sed -n 's/^\([A-Za-z0-9_]*\):.*/\1/p' "$build/report-targets.txt" \
      | grep -E "^($want)$" | sort -u)
  fi
  jobs=$(nproc 2>/dev/null || echo 2)
  echo "report.sh: building ${#targets[@]} targets (${targets[*]}) with $jobs jobs"
  # Keep going past a lesson that does not compile: the report says which lessons are missing.
  keep=()
  [ "${gen[*]:-}" = "-G Ninja" ] && keep=(-- -k 0)
  if ! nice -n 5 cmake --build "$build" --parallel "$jobs" --target "${targets[@]}" "${keep[@]}" \
       >"$build/report-build.log" 2>&1; then
    grep -E "error|FAILED" "$build/report-build.log" | head -20 || true
    echo "report.sh: warning: some targets did not build (log: $build/report-build.log); the report covers the rest"
  fi
  echo "report.sh: build ready in $((SECONDS - t0)) s"
fi
exec "$py" "$repo/report/report.py" --build "$build" "${pass[@]}"
