#!/usr/bin/env bash
# Submits the course's Slurm jobs (docs/INSTRUCTORS.md walks through them).
#
#   submit.sh student --lessons 3 [--checkout DIR]
#       a student's job: builds their checkout on a node, ctest -L lesson3,
#       JUnit XML and a summary in CHECKOUT/build-slurm/results/
#   submit.sh class --list FILE --lessons 1-8 [--out DIR] [--max-parallel N]
#                   [--build-root DIR] [--keep-builds] [--title TEXT]
#       the instructor's job array: one task per checkout of FILE, each built
#       and graded in isolation (build folders outside the checkouts), then a
#       gather job (afterany) that writes OUT/class.md, class.csv, class.html
#   submit.sh report [--lessons 1,3] [-- report.sh options, e.g. --full]
#       the course report on a node (scripts/report.sh)
#
# Options for every job (else the environment, else the default):
#   --partition P   COURSE_SLURM_PARTITION  (Slurm's: SBATCH_PARTITION or the cluster's default)
#   --account A     COURSE_SLURM_ACCOUNT    (Slurm's: SBATCH_ACCOUNT or your default account)
#   --gpus N        COURSE_SLURM_GPUS       1; 0 asks for none (a CPU partition: host device)
#   --cpus N        COURSE_SLURM_CPUS       8 CPUs per task (the build's jobs, the host's OpenMP threads)
#   --time T        COURSE_SLURM_TIME       00:30:00 per student, 01:00:00 for the report
#   --device D      COURSE_DEVICE           auto (GPU node: nvptx, else host); host or nvptx to force
#   --sbatch ARG    COURSE_SLURM_ARGS       more sbatch arguments, e.g. --sbatch --gres=gpu:a100:1
#                                           (repeatable; the variable is split at spaces)
#   --dry-run                               print the sbatch commands, submit nothing
#
# The list FILE: one checkout per line; `#` comments and blank lines are
# skipped. A line is a PATH, or NAME<TAB>PATH, or NAME PATH (a PATH that
# starts with / . or ~). Without a NAME, the row is named by the shortest end
# of the path that tells the class apart (/home/alice/course and
# /home/bob/course -> alice-course, bob-course). Relative paths are relative
# to the list file's folder. The class folder and every checkout must be
# visible from the compute nodes (a shared file system). A site's module
# lines go in scripts/slurm/site-env.sh.
#
# Exit status: 0 submitted; 2 bad arguments; other: sbatch's.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
die() { echo "submit.sh: error: $*" >&2; exit 2; }
usage() { sed -n '2,35p' "$here/submit.sh" | sed 's/^# \{0,1\}//'; }

[ $# -gt 0 ] || { usage; exit 2; }
mode=$1; shift
case "$mode" in
  student|class|report) ;;
  -h|--help|help) usage; exit 0 ;;
  *) die "unknown job '$mode': use student, class or report (see --help)" ;;
esac

partition=${COURSE_SLURM_PARTITION:-}
account=${COURSE_SLURM_ACCOUNT:-}
gpus=${COURSE_SLURM_GPUS:-1}
cpus=${COURSE_SLURM_CPUS:-8}
time_limit=${COURSE_SLURM_TIME:-}
device=${COURSE_DEVICE:-auto}
extra=()
# shellcheck disable=SC2206  # split at spaces by design
[ -z "${COURSE_SLURM_ARGS:-}" ] || extra=(${COURSE_SLURM_ARGS})
dry=0
lessons="" checkout="" list="" out="" max_parallel="" build_root="" keep_builds=0 title=""
report_args=()
need() { [ "$2" -ge 2 ] || die "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --partition) need "$1" $#; partition=$2; shift ;;
    --account) need "$1" $#; account=$2; shift ;;
    --gpus) need "$1" $#; gpus=$2; shift ;;
    --cpus) need "$1" $#; cpus=$2; shift ;;
    --time) need "$1" $#; time_limit=$2; shift ;;
    --device) need "$1" $#; device=$2; shift ;;
    --sbatch) need "$1" $#; extra+=("$2"); shift ;;
    --dry-run) dry=1 ;;
    --lessons) need "$1" $#; lessons=$2; shift ;;
    --checkout) need "$1" $#; checkout=$2; shift ;;
    --list) need "$1" $#; list=$2; shift ;;
    --out) need "$1" $#; out=$2; shift ;;
    --max-parallel) need "$1" $#; max_parallel=$2; shift ;;
    --build-root) need "$1" $#; build_root=$2; shift ;;
    --keep-builds) keep_builds=1 ;;
    --title) need "$1" $#; title=$2; shift ;;
    --) shift; report_args=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' for '$mode' (see --help)" ;;
  esac
  shift
done

[[ "$gpus" =~ ^[0-9]+$ ]] || die "--gpus must be a number (0: none), got '$gpus'"
[[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive number, got '$cpus'"
[ -z "$max_parallel" ] || [[ "$max_parallel" =~ ^[1-9][0-9]*$ ]] || die "--max-parallel must be a positive number, got '$max_parallel'"
case "$device" in auto|host|nvptx) ;; *) die "--device must be auto, host or nvptx, got '$device'" ;; esac
[ -z "$time_limit" ] || [[ "$time_limit" =~ ^[0-9:-]+$ ]] || die "--time must be a Slurm time such as 30, 00:30:00 or 1-00:00:00, got '$time_limit'"
[ "$mode" = report ] || [ ${#report_args[@]} -eq 0 ] || die "'--' passes options to the report only"

# The lessons this course has (the instructor's checkout): 1-8 -> "1,2,...,8".
known=$(cd "$repo/lessons" && ls -d [0-9][0-9]-*/ 2>/dev/null | sed 's/-.*//; s/^0//' | sort -n | tr '\n' ' ')
expand_lessons() {
  local spec=$1 part a b n result=()
  [ "$spec" = all ] && spec=$(echo $known | tr ' ' ',')
  [[ "$spec" =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]] \
    || die "--lessons must be numbers and ranges such as 3, 1,2 or 1-8 (or all), got '$1'"
  for part in ${spec//,/ }; do
    a=${part%-*} b=${part#*-}
    [ "$((10#$a))" -le "$((10#$b))" ] || die "--lessons: the range $part runs backwards"
    for ((n = 10#$a; n <= 10#$b; n++)); do
      [[ " $known " == *" $n "* ]] || die "lesson $n does not exist in this course (lessons: ${known% })"
      [[ " ${result[*]} " == *" $n "* ]] || result+=("$n")
    done
  done
  (IFS=,; echo "${result[*]}")
}

# sbatch's arguments common to every job; GPUs only where asked.
common=()
[ -z "$partition" ] || common+=(--partition="$partition")
[ -z "$account" ] || common+=(--account="$account")
common+=("${extra[@]}")
compute=(--cpus-per-task="$cpus")
[ "$gpus" = 0 ] || compute+=(--gpus="$gpus")

# COURSE_SLURM_DIR tells a job where its scripts are (sbatch runs a spooled copy).
export COURSE_SLURM_DIR="$here"
submit() {  # submit ARGS... -> prints the job id
  if [ "$dry" = 1 ]; then
    printf 'sbatch' >&2; printf ' %q' "$@" >&2; echo >&2
    echo "DRYRUN$RANDOM"
  else
    sbatch --parsable --export=ALL "$@" | cut -d';' -f1
  fi
}

case "$mode" in
student)
  [ -n "$lessons" ] || die "student needs --lessons, e.g. --lessons 3 (see --help)"
  lessons=$(expand_lessons "$lessons")
  checkout=$(cd "${checkout:-$repo}" 2>/dev/null && pwd) || die "--checkout: no folder '${checkout}'"
  grep -qs 'project(openmp_offload_course' "$checkout/CMakeLists.txt" || die "$checkout is not a checkout of the course"
  mkdir -p "$checkout/build-slurm"
  id=$(submit "${common[@]}" "${compute[@]}" --time="${time_limit:-00:30:00}" --job-name=course-grade \
       --output="$checkout/build-slurm/slurm-%j.out" --chdir="$checkout" \
       "$here/job-grade.sh" --checkout "$checkout" --lessons "$lessons" --device "$device")
  echo "submit.sh: job $id grades lessons $lessons of $checkout"
  echo "  log:     $checkout/build-slurm/slurm-$id.out"
  echo "  results: $checkout/build-slurm/results/ (lessonN.xml, class.md)"
  ;;

class)
  [ -n "$list" ] || die "class needs --list FILE (one checkout per line; see --help)"
  [ -f "$list" ] && [ -r "$list" ] || die "--list: cannot read '$list'"
  [ -n "$lessons" ] || die "class needs --lessons, e.g. --lessons 1-8 (see --help)"
  lessons=$(expand_lessons "$lessons")
  listdir=$(cd "$(dirname "$list")" && pwd)
  out=${out:-$PWD/class-$(date +%Y%m%d-%H%M%S)}
  mkdir -p "$out" || die "cannot create the class folder '$out'"
  out=$(cd "$out" && pwd)
  [ ! -e "$out/roster.tsv" ] || die "$out already holds a class (roster.tsv); give a new --out folder"
  [ -z "$build_root" ] || { mkdir -p "$build_root" && build_root=$(cd "$build_root" && pwd); } \
    || die "cannot create --build-root '$build_root'"
  # roster.tsv: index, row name, absolute path; names unique and safe as folder names.
  python3 - "$list" "$listdir" "$out/roster.tsv" <<'PY' || exit 2
import os, re, sys
lst, base, dest = sys.argv[1:]
entries = []
for raw in open(lst, encoding="utf-8", errors="replace"):
    line = raw.strip()
    if not line or line.startswith("#"):
        continue
    name = None
    if "\t" in line:
        name, path = (s.strip() for s in line.split("\t", 1))
    else:
        m = re.match(r"^(\S+)\s+([/.~].*)$", line)
        whole = os.path.join(base, os.path.expanduser(line))
        name, path = (m.group(1), m.group(2)) if m and not os.path.exists(whole) else (None, line)
    path = os.path.normpath(os.path.join(base, os.path.expanduser(path)))
    entries.append([name, path])
if not entries:
    sys.exit(f"submit.sh: error: {lst} lists no checkout")
safe = lambda s: re.sub(r"[^A-Za-z0-9._-]+", "-", s).strip("-.") or "student"
auto = [e for e in entries if not e[0]]
parts = {id(e): [p for p in e[1].split("/") if p] for e in auto}
for e in auto:  # the shortest end of the path that no other entry shares
    p = parts[id(e)]
    for k in range(1, len(p) + 1):
        tail = p[-k:]
        if all(parts[id(o)][-k:] != tail for o in auto if o is not e):
            break
    e[0] = "-".join(tail) if p else "root"
seen = {}
with open(dest, "w") as f:
    for i, (name, path) in enumerate(entries):
        n = safe(name)
        seen[n] = seen.get(n, 0) + 1
        if seen[n] > 1:
            n = f"{n}-{seen[n]}"
        f.write(f"{i:03d}\t{n}\t{path}\n")
print(f"submit.sh: {len(entries)} checkouts from {lst}")
PY
  count=$(wc -l <"$out/roster.tsv")
  mkdir -p "$out/logs" "$out/students"
  {
    echo "title=${title:-Class table}"
    echo "lessons=$lessons"
    echo "device=$device"
    echo "build_root=${build_root:-$out/builds}"
    echo "keep_builds=$keep_builds"
    echo "submitted=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "list=$(cd "$listdir" && pwd)/$(basename "$list")"
  } >"$out/class.conf"
  array="0-$((count - 1))${max_parallel:+%$max_parallel}"
  # One task per student: the same resources a student's own job gets.
  aid=$(submit "${common[@]}" "${compute[@]}" --time="${time_limit:-00:30:00}" --job-name=course-class \
        --array="$array" --output="$out/logs/grade-%A_%a.out" --chdir="$out" \
        "$here/job-grade.sh" --class "$out")
  echo "array_job=$aid" >>"$out/class.conf"
  # The gather step runs when every task has ended, whatever their exit status.
  gid=$(submit "${common[@]}" --cpus-per-task=1 --time=00:15:00 --job-name=course-gather \
        --dependency="afterany:$aid" --output="$out/logs/gather-%j.out" --chdir="$out" \
        "$here/job-gather.sh" "$out")
  echo "gather_job=$gid" >>"$out/class.conf"
  echo "submit.sh: class of $count: array job $aid (tasks $array), gather job $gid after it"
  echo "  watch:   squeue -j $aid,$gid"
  echo "  table:   $out/class.html (and class.md, class.csv) when job $gid has run"
  echo "  logs:    $out/logs/; each student's JUnit XML: $out/students/NNN-name/"
  ;;

report)
  [ -z "$lessons" ] || report_args=(--lessons "$(expand_lessons "$lessons")" "${report_args[@]}")
  [ "$device" = auto ] || report_args=(--device "$device" "${report_args[@]}")
  mkdir -p "$repo/build-slurm"
  id=$(submit "${common[@]}" "${compute[@]}" --time="${time_limit:-01:00:00}" --job-name=course-report \
       --output="$repo/build-slurm/report-%j.out" --chdir="$repo" \
       "$here/job-report.sh" "${report_args[@]}")
  echo "submit.sh: job $id runs the course report"
  echo "  log (tables): $repo/build-slurm/report-$id.out"
  echo "  files:        ${COURSE_REPORT_BUILD:-$repo/build-report-slurm}/report/ (report.md, CSV, plots)"
  ;;
esac
