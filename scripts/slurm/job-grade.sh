#!/usr/bin/env bash
#SBATCH --job-name=course-grade
#SBATCH --ntasks=1
# A Slurm job that grades one checkout with grade.sh: configure for the
# node's device (auto: a GPU node builds for nvptx, a CPU node for the host
# device), build the lesson's tests, `ctest -L '^lessonN$'`, JUnit XML out.
#
# A student's job (scripts/slurm/submit.sh student does this with the course's options):
#   sbatch --gpus=1 --cpus-per-task=8 scripts/slurm/job-grade.sh --lessons 3
#     grades the checkout this script lives in (or --checkout DIR); build and
#     results in CHECKOUT/build-slurm/ (results/lessonN.xml, results/class.md)
#
# A task of the instructor's class array (submit.sh class submits it):
#   job-grade.sh --class CLASS_DIR     grades roster.tsv's line SLURM_ARRAY_TASK_ID
#
# Options: --device auto|host|nvptx (default auto; --class: the class's).
# Exit status: grade.sh's (0 all passed, 1 something failed, 2 bad input).
set -uo pipefail

# sbatch runs a copy of this script from its spool folder: find the original.
course_locate() {
  local d=${COURSE_SLURM_DIR:-} cmd=""
  if [ -z "$d" ] && [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null 2>&1; then
    cmd=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -1)
    case "$cmd" in ""|/*) ;; *) cmd="${SLURM_SUBMIT_DIR:-.}/$cmd" ;; esac
    [ -z "$cmd" ] || d=$(dirname "$cmd")
  fi
  { [ -n "$d" ] && [ -f "$d/lib.sh" ]; } || d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  [ -f "$d/lib.sh" ] || { echo "job-grade.sh: error: cannot find scripts/slurm; set COURSE_SLURM_DIR" >&2; exit 2; }
  COURSE_SLURM_DIR=$(cd "$d" && pwd)
}
course_locate
# shellcheck source=lib.sh
. "$COURSE_SLURM_DIR/lib.sh"

die() { echo "job-grade.sh: error: $*" >&2; exit 2; }
cls="" checkout="" lessons="" device=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,17p' "$COURSE_SLURM_DIR/job-grade.sh" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --class|--checkout|--lessons|--device)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      case "$1" in --class) cls=$2 ;; --checkout) checkout=$2 ;; --lessons) lessons=$2 ;; --device) device=$2 ;; esac
      shift ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
course_site_env || exit 2

if [ -n "$cls" ]; then
  # One task of the class array: its line of the roster (index, name, checkout).
  [ -f "$cls/roster.tsv" ] && [ -f "$cls/class.conf" ] || die "$cls is not a class folder (no roster.tsv, class.conf)"
  task=${SLURM_ARRAY_TASK_ID:?job-grade.sh --class runs as a task of a Slurm job array}
  IFS=$'\t' read -r idx name checkout < <(awk -F'\t' -v i="$task" '$1 + 0 == i' "$cls/roster.tsv")
  [ -n "${idx:-}" ] || die "no line $task in $cls/roster.tsv"
  conf() { sed -n "s/^$1=//p" "$cls/class.conf" | tail -1; }
  lessons=$(conf lessons)
  device=${device:-$(conf device)}
  root=$(conf build_root)
  keep=()
  [ "$(conf keep_builds)" = 1 ] && keep=(--keep-build)
  course_banner "grading $name ($checkout), lessons $lessons"
  exec "$COURSE_SLURM_DIR/grade.sh" --checkout "$checkout" --name "$name" --lessons "$lessons" \
    --device "${device:-auto}" --out "$cls/students/$idx-$name" --build "${root:-$cls/builds}/$idx-$name" "${keep[@]}"
fi

# A student's own job: their checkout, build and results inside it (build-slurm/ is git-ignored).
[ -n "$lessons" ] || die "--lessons N is required, e.g. --lessons 3 (see --help)"
checkout=${checkout:-$COURSE_REPO}
course_banner "grading $checkout, lessons $lessons"
"$COURSE_SLURM_DIR/grade.sh" --checkout "$checkout" --lessons "$lessons" --device "${device:-auto}" \
  --out "$checkout/build-slurm/results" --build "$checkout/build-slurm/build" --keep-build
status=$?
[ "$status" = 2 ] && exit 2
"${COURSE_PYTHON:-python3}" "$COURSE_SLURM_DIR/classtable.py" --student "$checkout/build-slurm/results" \
  || echo "job-grade.sh: warning: no summary table (python3 missing?); the JUnit XML is in $checkout/build-slurm/results" >&2
echo "course: JUnit XML: $checkout/build-slurm/results/lesson*.xml"
exit "$status"
