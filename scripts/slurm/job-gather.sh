#!/usr/bin/env bash
#SBATCH --job-name=course-gather
#SBATCH --ntasks=1
# The gather step of a class: runs after every task of the class array has
# ended (submit.sh class submits it with --dependency=afterany:ARRAY) and
# writes the one class table, CLASS_DIR/class.md, class.csv and class.html.
#
#   job-gather.sh CLASS_DIR          (or, without Slurm: scripts/slurm/classtable.py CLASS_DIR)
set -uo pipefail

course_locate() {
  local d=${COURSE_SLURM_DIR:-} cmd=""
  if [ -z "$d" ] && [ -n "${SLURM_JOB_ID:-}" ] && command -v scontrol >/dev/null 2>&1; then
    cmd=$(scontrol show job "$SLURM_JOB_ID" 2>/dev/null | sed -n 's/^ *Command=\([^ ]*\).*/\1/p' | head -1)
    case "$cmd" in ""|/*) ;; *) cmd="${SLURM_SUBMIT_DIR:-.}/$cmd" ;; esac
    [ -z "$cmd" ] || d=$(dirname "$cmd")
  fi
  { [ -n "$d" ] && [ -f "$d/lib.sh" ]; } || d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  [ -f "$d/lib.sh" ] || { echo "job-gather.sh: error: cannot find scripts/slurm; set COURSE_SLURM_DIR" >&2; exit 2; }
  COURSE_SLURM_DIR=$(cd "$d" && pwd)
}
course_locate
# shellcheck source=lib.sh
. "$COURSE_SLURM_DIR/lib.sh"
[ $# -eq 1 ] || { echo "job-gather.sh: error: give the class folder (see its header)" >&2; exit 2; }
course_site_env || exit 2
course_banner "class table for $1"
exec "${COURSE_PYTHON:-python3}" "$COURSE_SLURM_DIR/classtable.py" "$1"
