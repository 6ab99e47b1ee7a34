#!/usr/bin/env bash
# Grades ONE checkout of the course. A grade trusts only the grader's files:
# the course this script belongs to (or --course DIR) is copied as it is into
# the build folder, and only the files a student edits (those solutions/
# lists) are taken from the student's checkout, each with the student's TODO
# blocks put into the course's own given lines (scripts/given.py grade). Any
# other file the student changed (a test, a given .inc, CMake), and any given
# line they changed, is named in edits.txt and never graded. That copy is
# configured with the course's CMake (device auto: a GPU node builds for
# nvptx, a CPU node for the host-offload device), only the graded lessons'
# tests are built, and `ctest -L '^lessonN$'` runs per lesson with JUnit XML
# out. The Slurm jobs call it (a student's job, each task of the instructor's
# array); it runs anywhere, Slurm or not.
#
#   grade.sh --checkout DIR --lessons 1,3 --out DIR [--build DIR] [--device auto|host|nvptx]
#            [--name NAME] [--jobs N] [--keep-build] [--course DIR]
#
# Writes under --out (the class table reads these; classtable.py):
#   meta.txt          name, checkout, host, device, commit, course commit, times (key=value lines)
#   edits.txt         one line per edit of a given thing in the checkout ("edited given
#                     file: tests/lesson05_team_local_matmul.cpp", "edited given line:
#                     lessons/05-team-local-matmul/matmul.cpp:33: ..."); empty: none
#   lessonN.xml       ctest's JUnit XML for lesson N
#   lessonN.error     one line, when lesson N could not be graded (missing, does not compile)
#   error             one line, when nothing could be graded (not a checkout, configure failed)
#   configure.log, build.log, lessonN.log
#   done              written last: grading finished (a task killed mid-way has none)
# The course's copy and its build go to --build (default OUT/build: BUILD/course,
# BUILD/bin), outside the checkout, and are deleted at the end unless
# --keep-build. The checkout is only read.
#
# Environment: COURSE_CXX (compiler; default clang++-19, else clang++),
# COURSE_CUDA_PATH, COURSE_NVPTX_ARCH, COURSE_CMAKE_ARGS (extra configure
# arguments, split at spaces), COURSE_SPEEDUP_SCALE (passed to the tests).
#
# Exit status: 0 every graded test passed; 1 something failed or could not be
# graded (the reason is in the files above); 2 bad arguments to this script.
set -uo pipefail

die() { echo "grade.sh: error: $*" >&2; exit 2; }

checkout="" lessons="" out="" build="" device=auto name="" jobs="" keep=0
course=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --checkout|--lessons|--out|--build|--device|--name|--jobs|--course)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      v=$2
      case "$1" in
        --checkout) checkout=$v ;; --lessons) lessons=$v ;; --out) out=$v ;; --build) build=$v ;;
        --device) device=$v ;; --name) name=$v ;; --jobs) jobs=$v ;; --course) course=$v ;;
      esac
      shift ;;
    --keep-build) keep=1 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done
[ -n "$checkout" ] || die "--checkout DIR is required (see --help)"
[ -n "$out" ] || die "--out DIR is required (see --help)"
[[ "$lessons" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--lessons must be numbers separated by commas, e.g. 1,3; got '$lessons'"
case "$device" in auto|host|nvptx) ;; *) die "--device must be auto, host or nvptx, got '$device'" ;; esac
[ -z "$jobs" ] || [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "--jobs must be a positive number, got '$jobs'"

mkdir -p "$out" || die "cannot create the output folder '$out'"
out=$(cd "$out" && pwd)
[ -n "$build" ] || build="$out/build"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
[ -n "$name" ] || name=$(basename "$checkout")
rm -f "$out"/done "$out"/error "$out"/edits.txt "$out"/lesson*.xml "$out"/lesson*.error "$out"/lesson*.log
jobs=${jobs:-${SLURM_CPUS_PER_TASK:-$(nproc 2>/dev/null || echo 2)}}
# OpenMP on the host: as many threads as Slurm gave this task (an unset
# OMP_NUM_THREADS would use every core of the node, shared or not).
if [ -z "${OMP_NUM_THREADS:-}" ] && [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then
  export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
fi

meta() { printf '%s=%s\n' "$1" "$2" >>"$out/meta.txt"; }
: >"$out/meta.txt"
meta name "$name"
meta checkout "$checkout"
meta lessons "$lessons"
meta host "$(hostname 2>/dev/null || echo unknown)"
meta job "${SLURM_JOB_ID:-}${SLURM_ARRAY_TASK_ID:+ (array ${SLURM_ARRAY_JOB_ID:-}_$SLURM_ARRAY_TASK_ID)}"
meta started "$(date -u +%Y-%m-%dT%H:%M:%SZ)"

# Row-level failure: one line in OUT/error, and the row says it.
finish() { meta finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"; : >"$out/done"
           [ "$keep" = 1 ] || [ ! -d "$build" ] || rm -rf "$build"; exit "$1"; }
row_error() { echo "$*" | head -1 >"$out/error"; echo "grade.sh: $name: $*" >&2; finish 1; }
first_error() {  # the first compiler error of a build log (else ninja's FAILED line), shortened
  { grep -m1 -E 'error:' "$1" || grep -m1 -E 'FAILED|Error' "$1"; } 2>/dev/null \
    | sed -e 's/^[[:space:]]*//' -e "s|$checkout/||g" -e "s|$stage/||g" | cut -c1-200
}

# --- the checkout -------------------------------------------------------------
[ -e "$checkout" ] || row_error "not a course checkout: $checkout does not exist"
[ -d "$checkout" ] || row_error "not a course checkout: $checkout is not a folder"
[ -r "$checkout/CMakeLists.txt" ] || row_error "not a course checkout: $checkout has no readable CMakeLists.txt"
grep -q 'project(openmp_offload_course' "$checkout/CMakeLists.txt" \
  || row_error "not a course checkout: $checkout/CMakeLists.txt is not the course's (no project(openmp_offload_course))"
checkout=$(cd "$checkout" && pwd -P)
sed -i "s|^checkout=.*|checkout=$checkout|" "$out/meta.txt"
# The commit, when the checkout is a git repository of its own (not a folder inside another).
if [ "$(git -C "$checkout" rev-parse --show-toplevel 2>/dev/null)" = "$checkout" ]; then
  commit=$(git -C "$checkout" rev-parse --short HEAD 2>/dev/null || echo "no commit")
  dirty=$(git -C "$checkout" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
  [ "$dirty" = 0 ] || commit="$commit + $dirty changed files"
  meta commit "$commit"
fi

# --- the course: the grader's own files, as they are, at a known commit --------
[ -f "$course/scripts/given.py" ] && [ -f "$course/tests/given.json" ] \
  || row_error "the course at $course has no scripts/given.py or tests/given.json (--course must be the instructor's checkout)"
course=$(cd "$course" && pwd -P)
[ "$course" != "$checkout" ] || course_is_checkout=1
if [ "$(git -C "$course" rev-parse --show-toplevel 2>/dev/null)" = "$course" ]; then
  ccommit=$(git -C "$course" rev-parse --short HEAD 2>/dev/null || echo "no commit")
  cdirty=$(git -C "$course" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
  [ "$cdirty" = 0 ] || ccommit="$ccommit + $cdirty changed files"
  meta course_commit "$ccommit"
fi
stage="$build/course"
rm -rf "$stage" && mkdir -p "$stage" || row_error "cannot create $stage"
# The files git tracks or would track (not the ignored builds); outside git
# (a copy made by git archive), the tree without builds.
if [ "$(git -C "$course" rev-parse --show-toplevel 2>/dev/null)" = "$course" ]; then
  (cd "$course" && git ls-files -z --cached --others --exclude-standard \
     | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$stage"
else
  tar -C "$course" --exclude='./build*' --exclude=./.deps --exclude=./.git --exclude=./slides/node_modules \
    -cf - . | tar -xf - -C "$stage"
fi
[ -f "$stage/CMakeLists.txt" ] || row_error "could not copy the course from $course into $stage"

# --- the lessons: those the checkout has are graded, the others get an error --
graded=()
for n in ${lessons//,/ }; do
  n=$((10#$n))
  nn=$(printf '%02d' "$n")
  dirs=("$checkout"/lessons/"$nn"-*/)
  if [ ! -d "${dirs[0]}" ]; then
    echo "no lesson $n in this checkout (no lessons/$nn-*/)" >"$out/lesson$n.error"
  else
    graded+=("$n")
  fi
done
[ ${#graded[@]} -gt 0 ] || finish 1

# --- the student's files, in the course's given lines; every other edit named --
glist=$(IFS=','; echo "${graded[*]}")
: >"$out/edits.txt"
if [ -z "${course_is_checkout:-}" ]; then
  python3 "$stage/scripts/given.py" grade --course "$stage" --checkout "$checkout" --lessons "$glist" \
    --edits "$out/edits.txt" >/dev/null
  [ $? -le 1 ] || row_error "could not take the student's files from $checkout (scripts/given.py grade failed)"
fi
meta edits "$(wc -l <"$out/edits.txt")"
[ -s "$out/edits.txt" ] && sed "s/^/grade.sh: $name: /" "$out/edits.txt"

# --- configure: the course's CMake, the student's track ----------------------
command -v cmake >/dev/null 2>&1 && command -v ctest >/dev/null 2>&1 \
  || row_error "no cmake/ctest on $(hostname): load them in scripts/slurm/site-env.sh"
cxx=${COURSE_CXX:-}
if [ -z "$cxx" ]; then
  if command -v clang++-19 >/dev/null 2>&1; then cxx=clang++-19; else cxx=clang++; fi
fi
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
extra=()
if [ -n "${COURSE_CUDA_PATH:-}" ]; then extra+=("-DCOURSE_CUDA_PATH=$COURSE_CUDA_PATH")
elif [ -d "$course/.deps/cuda" ]; then extra+=("-DCOURSE_CUDA_PATH=$course/.deps/cuda"); fi
[ -n "${COURSE_NVPTX_ARCH:-}" ] && extra+=("-DCOURSE_NVPTX_ARCH=$COURSE_NVPTX_ARCH")
# shellcheck disable=SC2206  # COURSE_CMAKE_ARGS is a space-separated list by design
[ -n "${COURSE_CMAKE_ARGS:-}" ] && extra+=($COURSE_CMAKE_ARGS)
list=$(IFS=';'; echo "${graded[*]}")
bin="$build/bin"
mkdir -p "$bin"
echo "grade.sh: $name: configuring the course with $checkout's files in $bin (device $device, lessons ${graded[*]})"
if ! cmake -S "$stage" -B "$bin" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
     -DCOURSE_TRACK=lessons -DCOURSE_DEVICE="$device" "-DCOURSE_LESSONS=$list" "${extra[@]}" \
     >"$out/configure.log" 2>&1; then
  why=$(grep -m1 -A3 'CMake Error' "$out/configure.log" | grep -v '^CMake Error' | grep -m1 -E '[[:alnum:]]' \
        | sed 's/^[[:space:]]*//' | cut -c1-200)
  row_error "configure failed: ${why:-see configure.log}"
fi
meta device "$(sed -n 's/^-- Course: device //p' "$out/configure.log" | head -1)"

# --- build: each lesson's test program; one that does not compile spoils only its lesson
targets=()
for n in "${graded[@]}"; do targets+=("$(printf 'lesson%02d_test' "$n")"); done
keep_going=()
[ "${gen[*]:-}" = "-G Ninja" ] && keep_going=(-- -k 0)
echo "grade.sh: $name: building ${targets[*]} with $jobs jobs"
cmake --build "$bin" --parallel "$jobs" --target "${targets[@]}" "${keep_going[@]}" >"$out/build.log" 2>&1

# --- test: one ctest run per lesson, each with its own JUnit XML ----------------
status=0
for n in "${graded[@]}"; do
  nn=$(printf '%02d' "$n")
  if ! ls "$bin"/lessons/"$nn"-*/lesson"${nn}"_test >/dev/null 2>&1; then
    echo "does not compile: $(first_error "$out/build.log")" >"$out/lesson$n.error"
    status=1
    continue
  fi
  echo "grade.sh: $name: ctest -L '^lesson$n\$'"
  # Anchored: -L is a regular expression, and lesson1 would also pick lesson10.
  (cd "$bin" && ctest -L "^lesson$n\$" --output-on-failure --no-tests=error \
     --output-junit "$out/lesson$n.xml") >"$out/lesson$n.log" 2>&1 || status=1
  grep -E '^lesson [0-9]+ .*than baseline|tests passed|tests failed' "$out/lesson$n.log" | sed "s/^/  /" || true
  [ -s "$out/lesson$n.xml" ] || { echo "ctest wrote no JUnit XML: $(tail -1 "$out/lesson$n.log")" >"$out/lesson$n.error"; status=1; }
done
for n in ${lessons//,/ }; do [ -f "$out/lesson$((10#$n)).error" ] && status=1; done
finish "$status"
