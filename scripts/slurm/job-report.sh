#!/usr/bin/env bash
#SBATCH --job-name=course-report
#SBATCH --ntasks=1
# The course report (scripts/report.sh) as a Slurm job: builds the solutions
# for the node's device (auto: the GPU of a GPU node) and runs every lesson's
# variants. Tables in the job's log; report.md, CSV and plots under BUILD/report/.
#
#   scripts/slurm/submit.sh report [--full]       (the course's partition/account/GPU options)
#   sbatch --gpus=1 scripts/slurm/job-report.sh [report.sh options]
#
# BUILD is COURSE_REPORT_BUILD, default build-report-slurm/ in the course
# checkout; COURSE_CXX (site-env.sh) picks the compiler of a new build.
set -uo pipefail

course_locate() {
  local d=${COURSE_SLURM_DIR:-} cmd=""
  if [ -z "$d" ] && [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null 2>&1; then
    cmd=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -1)
    case "$cmd" in ""|/*) ;; *) cmd="${SLURM_SUBMIT_DIR:-.}/$cmd" ;; esac
    [ -z "$cmd" ] || d=$(dirname "$cmd")
  fi
  { [ -n "$d" ] && [ -f "$d/lib.sh" ]; } || d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  [ -f "$d/lib.sh" ] || { echo "job-report.sh: error: cannot find scripts/slurm; set COURSE_SLURM_DIR" >&2; exit 2; }
  COURSE_SLURM_DIR=$(cd "$d" && pwd)
}
course_locate
# shellcheck source=lib.sh
. "$COURSE_SLURM_DIR/lib.sh"
course_site_env || exit 2
build=${COURSE_REPORT_BUILD:-$COURSE_REPO/build-report-slurm}
# report.sh configures a new build with clang++-19; a site whose compiler has
# another name (COURSE_CXX) gets its build configured here first.
if [ -n "${COURSE_CXX:-}" ] && [ ! -f "$build/CMakeCache.txt" ]; then
  gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  # shellcheck disable=SC2086  # COURSE_CMAKE_ARGS is a space-separated list by design
  cmake -S "$COURSE_REPO" -B "$build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$COURSE_CXX" -DCMAKE_BUILD_TYPE=Release \
    -DCOURSE_TRACK=solutions ${COURSE_CUDA_PATH:+-DCOURSE_CUDA_PATH=$COURSE_CUDA_PATH} \
    ${COURSE_NVPTX_ARCH:+-DCOURSE_NVPTX_ARCH=$COURSE_NVPTX_ARCH} ${COURSE_CMAKE_ARGS:-} || exit 1
fi
course_banner "course report in $build"
exec "$COURSE_REPO/scripts/report.sh" --build "$build" "$@"
