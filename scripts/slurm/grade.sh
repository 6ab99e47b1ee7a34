#!/usr/bin/env bash
# Grades ONE checkout of the course: configures it with the course's CMake
# (device auto: a GPU node builds for nvptx, a CPU node for the host-offload
# device), builds only the graded lessons' tests and runs `ctest -L '^lessonN$'`
# per lesson with JUnit XML out. The Slurm jobs call it (a student's job, each
# task of the instructor's array); it runs anywhere, Slurm or not.
#
#   grade.sh --checkout DIR --lessons 1,3 --out DIR [--build DIR] [--device auto|host|nvptx]
#            [--name NAME] [--jobs N] [--keep-build]
#
# Writes under --out (the class table reads these; classtable.py):
#   meta.txt          name, checkout, host, device, commit, times (key=value lines)
#   lessonN.xml       ctest's JUnit XML for lesson N
#   lessonN.error     one line, when lesson N could not be graded (missing, does not compile)
#   error             one line, when nothing could be graded (not a checkout, configure failed)
#   configure.log, build.log, lessonN.log
#   done              written last: grading finished (a task killed mid-way has none)
# The build goes to --build (default OUT/build), outside the checkout, and is
# deleted at the end unless --keep-build. The checkout is only read.
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
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --checkout|--lessons|--out|--build|--device|--name|--jobs)
      [ $# -ge 2 ] || die "$1 needs a value (see --help)"
      v=$2
      case "$1" in
        --checkout) checkout=$v ;; --lessons) lessons=$v ;; --out) out=$v ;; --build) build=$v ;;
        --device) device=$v ;; --name) name=$v ;; --jobs) jobs=$v ;;
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
rm -f "$out"/done "$out"/error "$out"/lesson*.xml "$out"/lesson*.error "$out"/lesson*.log
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
    | sed -e 's/^[[:space:]]*//' -e "s|$checkout/||g" | cut -c1-200
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

# --- the lessons: those the checkout has are graded, the others get an error --
graded=()
for n in ${lessons//,/ }; do
  n=$((10#$n))
  nn=$(printf '%02d' "$n")
  dirs=("$checkout"/lessons/"$nn"-*/CMakeLists.txt)
  if [ ! -f "${dirs[0]}" ]; then
    echo "no lesson $n in this checkout (no lessons/$nn-*/)" >"$out/lesson$n.error"
  else
    graded+=("$n")
  fi
done
[ ${#graded[@]} -gt 0 ] || finish 1

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
[ -n "${COURSE_CUDA_PATH:-}" ] && extra+=("-DCOURSE_CUDA_PATH=$COURSE_CUDA_PATH")
[ -n "${COURSE_NVPTX_ARCH:-}" ] && extra+=("-DCOURSE_NVPTX_ARCH=$COURSE_NVPTX_ARCH")
# shellcheck disable=SC2206  # COURSE_CMAKE_ARGS is a space-separated list by design
[ -n "${COURSE_CMAKE_ARGS:-}" ] && extra+=($COURSE_CMAKE_ARGS)
list=$(IFS=';'; echo "${graded[*]}")
mkdir -p "$build"
echo "grade.sh: $name: configuring $checkout in $build (device $device, lessons ${graded[*]})"
if ! cmake -S "$checkout" -B "$build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
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
cmake --build "$build" --parallel "$jobs" --target "${targets[@]}" "${keep_going[@]}" >"$out/build.log" 2>&1

# --- test: one ctest run per lesson, each with its own JUnit XML ----------------
status=0
for n in "${graded[@]}"; do
  nn=$(printf '%02d' "$n")
  if ! ls "$build"/lessons/"$nn"-*/lesson"${nn}"_test >/dev/null 2>&1; then
    echo "does not compile: $(first_error "$out/build.log")" >"$out/lesson$n.error"
    status=1
    continue
  fi
  echo "grade.sh: $name: ctest -L '^lesson$n\$'"
  # Anchored: -L is a regular expression, and lesson1 would also pick lesson10.
  (cd "$build" && ctest -L "^lesson$n\$" --output-on-failure --no-tests=error \
     --output-junit "$out/lesson$n.xml") >"$out/lesson$n.log" 2>&1 || status=1
  grep -E '^lesson [0-9]+ .*than baseline|tests passed|tests failed' "$out/lesson$n.log" | sed "s/^/  /" || true
  [ -s "$out/lesson$n.xml" ] || { echo "ctest wrote no JUnit XML: $(tail -1 "$out/lesson$n.log")" >"$out/lesson$n.error"; status=1; }
done
for n in ${lessons//,/ }; do [ -f "$out/lesson$((10#$n)).error" ] && status=1; done
finish "$status"
