#!/usr/bin/env bash
# The course report on a GPU node that has the NVIDIA driver but no LLVM 19:
# build here, carry a small bundle of binaries and the packed LLVM runtime
# there, run the report there.
#
#   here:      scripts/report-gpu.sh pack BUILD BUNDLE
#                copies what the report runs from an nvptx solutions BUILD
#                (lesson programs, starters, course_ceilings; course_sgemm,
#                course_blas_sgemm, course_cub and course_cuda_nbody where
#                BUILD/report holds them: the last two built with nvcc,
#                `nvcc -O3 -std=c++17 -arch=sm_XX -Ireport -o BUILD/report/course_cub
#                report/vendor_cub.cu`) into BUNDLE and BUNDLE.tar.xz,
#                with the commit they were built from
#   GPU node:  scripts/report-gpu.sh test RUNTIME.tar.xz BUNDLE[.tar.xz] [Catch2 options]
#                runs every test program of the bundle (the solutions'
#                lessonNN_test must pass, the starters' lessonNN_starter_test
#                must fail) and prints one verdict line per program; JUnit XML
#                per program under $OUT (or BUNDLE/junit) when set
#   GPU node:  scripts/report-gpu.sh test RUNTIME.tar.xz BUNDLE --repeat N [--lessons 9,11]
#                [--only solutions|steps] [--case NAME]...
#                does each speed verdict hold run after run? every solution
#                test program's speed tests N times and each step mutant's
#                catching test N times: per speed test the pass rate and
#                min/median/max ratio, per step how often it was caught
#                (scripts/repeat_speed.py; a catching test that times nothing
#                repeats 8 programs at a time); $OUT/repeat.md when OUT is set
#   GPU node:  scripts/report-gpu.sh progress BUNDLE[.tar.xz]
#                the student's progress page (scripts/progress.sh) for the
#                bundle: every lesson's steps and speed verdicts from what
#                `test` left in it, lesson 11's % of the vendor from `run`'s
#                report.csv; progress.html and progress.json into $OUT when set
#   GPU node:  scripts/report-gpu.sh steps RUNTIME.tar.xz BUNDLE[.tar.xz]
#                every step graded, on the GPU: runs each step's mutant test
#                program the bundle holds (built here with
#                `cmake --build BUILD --target lessonNN_steps`) and requires a
#                test to fail; one verdict line per step
#   GPU node:  scripts/report-gpu.sh mistakes RUNTIME.tar.xz BUNDLE[.tar.xz]
#                the catalogue of common mistakes (tests/mistakes/), on the GPU:
#                runs each mistake's mutant (built here with `cmake --build
#                BUILD --target lessonNN_mistakes`) on the entry's test, which
#                must fail with the entry's words, as cmake/expect-failure.cmake
#                requires; one verdict line per entry (declared `elsewhere`
#                entries for gpu are reported so, with their reason)
#   GPU node:  scripts/report-gpu.sh sanitize RUNTIME.tar.xz BUNDLE[.tar.xz]
#                compute-sanitizer memcheck and racecheck over every lesson's
#                solution tests ("[correctness]"; racecheck leaves out the
#                cases tagged [racecheck-slow] and lists them); one verdict line each; then
#                racecheck over lesson 5 with step 5.2 undone (must be caught);
#                COURSE_SANITIZE_TIMEOUT=S seconds per program (default 300)
#   GPU node:  scripts/report-gpu.sh run RUNTIME.tar.xz BUNDLE[.tar.xz] [report options]
#                unpacks the runtime (as scripts/gpu-node.sh does), builds
#                each vendor program (course_sgemm with cuBLAS, course_cub,
#                course_cuda_nbody) with nvcc for this GPU where the bundle's
#                does not start there, and runs report/report.py --build BUNDLE (with a pack
#                made by pack-llvm-runtime.sh --with-libc, e.g. an LLVM 21 build
#                from Debian 13, each program starts through the pack's loader). When $OUT is
#                set, copies report.md, the PNGs and a tarball of everything
#                (report.csv, logs, per-program CSV, plots) into $OUT.
#
#                --cuda-wait spin|block: how the host waits for the GPU, as
#                COURSE_CUDA_WAIT for every program the report starts (default
#                spin, as every course program does unset: course_common makes
#                each GPU's CUDA context spin before LLVM's plugin starts;
#                block: LLVM's own blocking sync, the host asleep until an
#                interrupt, about 0.1 ms a call; common/src/cuda_wait.cpp)
#
#                --repeat N (a report option): the vendor programs and the
#                lesson programs N times, round after round (vendors, then
#                lessons), each round judged against its own vendor figures;
#                report.md gets each goal row's min / median / max % and its
#                goal "met in k of N runs", naming the runs that missed;
#                repeats.csv (in report-all.tar.gz) one line per run per row
#                and a summary line. Lesson 11's goals on five draws:
#                  scripts/report-gpu.sh run RT.tar.xz BUNDLE --full --no-starters --lessons 11 --repeat 5
# Report options: --tiny | --full, --lessons 1,3, --out DIR, --timeout S, --no-plots, --no-starters, --resume,
#   --repeat N, --kernel-time (the course's kernels on the GPU's clock: each lesson program of lessons/kernels.csv
#   once more under ncu).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "report-gpu.sh: error: $*" >&2; exit 2; }
usage() { sed -n '2,77p' "$0" | sed 's/^# \{0,1\}//'; }

# A bundle given as BUNDLE.tar.xz is unpacked once into $COURSE_BUNDLE_DIR
# (again only when the tarball changed, so what `test` and `run` leave there
# stays for `progress`); prints the bundle's folder.
unpack() {
  local b=$1 dest sum
  case "$b" in
    *.tar.xz)
      [ -f "$b" ] || die "bundle '$b' not found"
      dest=${COURSE_BUNDLE_DIR:-/tmp/course-report-bundle}
      sum=$(cksum < "$b")
      if [ "$(cat "$dest/.unpacked-from" 2>/dev/null)" != "$sum" ]; then
        rm -rf "$dest" && mkdir -p "$dest" && tar xJf "$b" -C "$dest" && echo "$sum" > "$dest/.unpacked-from"
      fi
      b=$(ls -d "$dest"/*/ | head -1); b=${b%/} ;;
  esac
  [ -d "$b/lessons" ] || die "'$b' is not a bundle from 'report-gpu.sh pack'"
  echo "$b"
}

[ $# -ge 1 ] || { usage >&2; exit 2; }
cmd=$1; shift
case "$cmd" in
  -h|--help) usage; exit 0 ;;
  pack)
    [ $# -eq 2 ] || die "usage: report-gpu.sh pack BUILD BUNDLE"
    build=$1; bundle=$2
    command -v xz >/dev/null || die "xz not found: the bundle is packed as .tar.xz (apt-get install xz-utils)"
    [ -x "$build/report/course_ceilings" ] || die "$build has no report/course_ceilings (build it: cmake --build $build)"
    grep -q '"device_class": "gpu"' "$build/report/build-info.json" 2>/dev/null \
      || echo "report-gpu.sh: warning: $build is not an nvptx build (report/build-info.json says otherwise)"
    rm -rf "$bundle" && mkdir -p "$bundle/report" "$bundle/lessons"
    cp "$build/report/course_ceilings" "$build/report/build-info.json" "$bundle/report/"
    cp "$build/course-env.json" "$bundle/"  # the run environment, which report.py gives every program
    [ -x "$build/report/course_sgemm" ] && cp "$build/report/course_sgemm" "$bundle/report/"
    # OpenBLAS on the node's CPU for lesson 1 (runs where libopenblas0 is installed; else the report says so)
    [ -x "$build/report/course_blas_sgemm" ] && cp "$build/report/course_blas_sgemm" "$bundle/report/"
    for prog in course_cub course_cuda_nbody; do   # built with nvcc beside the build (see report/CMakeLists.txt)
      [ -x "$build/report/$prog" ] && cp "$build/report/$prog" "$bundle/report/"
    done
    n=0
    for d in "$build"/lessons/[0-9][0-9]-*/; do
      name=$(basename "$d"); nn=${name:0:2}
      [ -x "$d/lesson$nn" ] || continue
      # A lesson renamed since the build folder was made leaves its old folder
      # there, with binaries of the old code: only lessons the sources hold go.
      if [ ! -d "$repo/lessons/$name" ]; then
        echo "report-gpu.sh: left out $d: no lessons/$name in the sources (a folder of an older build)" >&2
        continue
      fi
      mkdir -p "$bundle/lessons/$name"
      cp "$d/lesson$nn" "$bundle/lessons/$name/"
      [ -x "$d/lesson${nn}_starter" ] && cp "$d/lesson${nn}_starter" "$bundle/lessons/$name/"
      for t in "$d"/lesson${nn}_test "$d"/lesson${nn}_starter_test "$d"/lesson${nn}_step*_test "$d"/lesson${nn}_mistake_*_test; do
        [ -x "$t" ] && cp "$t" "$bundle/lessons/$name/"
      done
      # The catalogue's entries (test, words, where declared elsewhere), as configure wrote them.
      [ -f "$build/mistakes/$name/mistakes.cmake" ] && cp "$build/mistakes/$name/mistakes.cmake" "$bundle/lessons/$name/" 
      n=$((n + 1))
    done
    [ -x "$build/tests/offload_smoke" ] && mkdir -p "$bundle/tests" && cp "$build/tests/offload_smoke" "$bundle/tests/"
    # In a clean room the tree has no .git: clean-room.sh names its commit in COURSE_COMMIT.
    commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo "${COURSE_COMMIT:-unknown}")
    [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ] \
      && commit="$commit (with uncommitted changes)"
    echo "$commit" > "$bundle/report/commit.txt"
    # One compressed file as well: the device machine's carry limit counts every byte.
    tar cJf "$bundle.tar.xz" -C "$(dirname "$bundle")" "$(basename "$bundle")"
    echo "report-gpu.sh: packed $n lesson program(s) and the ceilings into $bundle ($(du -sh "$bundle" | cut -f1)) and $bundle.tar.xz ($(du -sh "$bundle.tar.xz" | cut -f1)), commit $commit"
    ;;
  test)
    [ $# -ge 2 ] || die "usage: report-gpu.sh test RUNTIME.tar.xz BUNDLE [--repeat N [--lessons 9,11] | Catch2 options]"
    pack=$1; bundle=$2; shift 2
    [ -f "$pack" ] || die "runtime pack '$pack' not found"
    bundle=$(unpack "$bundle")
    if [ "${1:-}" = "--repeat" ]; then
      # Does each speed verdict hold run after run? scripts/repeat_speed.py runs
      # every solution test program's speed tests N times, and each step
      # mutant's catching test N times; a table of pass rates and ratios.
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || die "--repeat needs a positive number of runs, got '${2:-}'"
      runs=$2; shift 2
      only='[0-9][0-9]'
      if [ "${1:-}" = "--lessons" ]; then
        [[ "${2:-}" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--lessons needs lesson numbers such as 9,11, got '${2:-}'"
        only="@($(for n in ${2//,/ }; do printf '%02d|' "$((10#$n))"; done | sed 's/|$//'))"; shift 2
      fi
      which=all
      if [ "${1:-}" = "--only" ]; then
        case "${2:-}" in solutions|steps) which=$2 ;; *) die "--only takes solutions or steps, got '${2:-}'" ;; esac
        shift 2
      fi
      cases=()
      while [ "${1:-}" = "--case" ]; do
        [ -n "${2:-}" ] || die "--case needs a test's full name"
        cases+=(--case "$2"); shift 2
      done
      [ $# -eq 0 ] || die "--repeat takes only --lessons, --only and --case, in that order (got '$*')"
      shopt -s extglob nullglob
      progs=()
      [ "$which" = steps ] || progs+=("$bundle"/lessons/$only-*/lesson$only"_test")
      [ "$which" = solutions ] || progs+=("$bundle"/lessons/$only-*/lesson$only"_step"*_test)
      [ ${#progs[@]} -gt 0 ] || die "the bundle holds no test programs for those lessons"
      echo "report-gpu.sh: bundle built at $(cat "$bundle/report/commit.txt" 2>/dev/null || echo '?'); ${#progs[@]} program(s), $runs runs each"
      rc=0
      # --jobs: a step caught by a check that times nothing repeats 8 programs at a time.
      python3 "$repo/scripts/repeat_speed.py" --runs "$runs" --jobs 8 --elsewhere gpu --runner "$repo/scripts/gpu-node.sh $pack" \
        ${OUT:+--md "$OUT/repeat.md"} "${cases[@]}" "${progs[@]}" || rc=$?
      exit "$rc"
    fi
    # Kept in the bundle for `progress`; a copy comes back in $OUT/junit-all.tar.gz.
    junit=$bundle/junit
    mkdir -p "$junit"
    fails=0
    echo "report-gpu.sh: bundle built at $(cat "$bundle/report/commit.txt" 2>/dev/null || echo '?')"
    [ -x "$bundle/tests/offload_smoke" ] && { "$repo/scripts/gpu-node.sh" "$pack" "$bundle/tests/offload_smoke" || fails=$((fails + 1)); }
    for prog in "$bundle"/lessons/*/lesson[0-9][0-9]_test "$bundle"/lessons/*/lesson[0-9][0-9]_starter_test; do
      [ -x "$prog" ] || continue
      name=$(basename "$prog")
      t0=$SECONDS
      rc=0
      "$repo/scripts/gpu-node.sh" "$pack" "$prog" --reporter junit --out "$junit/$name.xml" "$@" >/dev/null 2>"$junit/$name.err" || rc=$?
      # Test cases, and those with a failure or error: a case may hold many
      # failed assertions (each its own <failure>), and counts once.
      counts=$(python3 - "$junit/$name.xml" <<'PYEOF' 2>/dev/null || echo "? ?"
import sys, xml.etree.ElementTree as ET
cases = list(ET.parse(sys.argv[1]).iter("testcase"))
print(len(cases), sum(c.find("failure") is not None or c.find("error") is not None for c in cases))
PYEOF
)
      cases=${counts% *}; failed=${counts#* }
      case "$name" in
        *_starter_test) want="fail"; ok=$([ "$rc" -ge 1 ] && [ "$rc" -le 254 ] && echo 1 || echo 0) ;;
        *) want="pass"; ok=$([ "$rc" = 0 ] && echo 1 || echo 0) ;;
      esac
      verdict=$([ "$ok" = 1 ] && echo OK || echo WRONG)
      [ "$ok" = 1 ] || fails=$((fails + 1))
      echo "report-gpu.sh: $verdict $name: exit $rc, $failed of $cases test cases failed (must $want) in $((SECONDS - t0)) s"
      # Which test cases failed (for starters: what the untouched step fails).
      python3 - "$junit/$name.xml" <<'PYEOF' 2>/dev/null | head -12 || true
import sys, xml.etree.ElementTree as ET
for case in ET.parse(sys.argv[1]).iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        print("    failed:", case.get("name"))
PYEOF
      grep -h -o 'lesson [0-9][^<"]*faster than baseline[^<"]*\|lesson [0-9][^<"]*slower than baseline[^<"]*' "$junit/$name.xml" 2>/dev/null | sort -u | sed 's/^/    /' | head -20 || true
    done
    [ -z "${OUT:-}" ] || (cd "$junit" && mkdir -p "$OUT" && tar czf "$OUT/junit-all.tar.gz" ./*.xml ./*.err 2>/dev/null) || true
    [ "$fails" = 0 ] && echo "report-gpu.sh: every test program behaved (solutions pass, starters fail)" \
      || echo "report-gpu.sh: $fails test program(s) did not behave"
    [ "$fails" = 0 ]
    ;;
  progress)
    # Where the bundle stands, as a student's progress page: each lesson's
    # steps and speed verdicts from the results `test` left in the bundle, and
    # lesson 11's percentages of the vendor's code from `run`'s report.csv.
    [ $# -eq 1 ] || die "usage: report-gpu.sh progress BUNDLE[.tar.xz] (after test and run on the same bundle)"
    bundle=$(unpack "$1")
    rc=0
    python3 "$repo/scripts/progress/progress.py" --bundle "$bundle" --color never \
      ${OUT:+--html "$OUT/progress.html" --json "$OUT/progress.json"} || rc=$?
    exit "$rc"
    ;;
  steps)
    [ $# -eq 2 ] || die "usage: report-gpu.sh steps RUNTIME.tar.xz BUNDLE"
    pack=$1; [ -f "$pack" ] || die "runtime pack '$pack' not found"
    bundle=$(unpack "$2")
    echo "report-gpu.sh: bundle built at $(cat "$bundle/report/commit.txt" 2>/dev/null || echo '?')"
    n=0; missed=0; declared=0
    for prog in "$bundle"/lessons/*/lesson[0-9][0-9]_step*_test; do
      [ -x "$prog" ] || continue
      name=$(basename "$prog"); nn=${name:6:2}
      step=$(echo "$name" | sed -E 's/^lesson[0-9]+_step([0-9]+)_([0-9]+)_test$/\1.\2/')
      n=$((n + 1)); t0=$SECONDS; rc=0
      # As cmake/expect-failure.cmake does: declaration order, stop at the first failure.
      out=$(timeout "${COURSE_STEP_TIMEOUT:-240}" "$repo/scripts/gpu-node.sh" "$pack" "$prog" --order decl --abort \
            --reporter compact 2>&1) || rc=$?
      first=$(printf '%s\n' "$out" | grep -m1 -E ': failed: |CRASH:' | cut -c1-220 || true)
      elsewhere=$(grep -h -o "STEP-ELSEWHERE($step, gpu): .*" "$repo"/tests/lesson${nn}_*.cpp 2>/dev/null | head -1 || true)
      if [ "$rc" = 124 ]; then
        verdict="caught (hang: no answer in ${COURSE_STEP_TIMEOUT:-240} s)"
      elif [ "$rc" -ge 1 ] && [ "$rc" -le 254 ]; then
        verdict="caught"
      elif [ -n "$elsewhere" ]; then
        verdict="graded elsewhere (${elsewhere#*: })"; declared=$((declared + 1))
      else
        verdict="NOT CAUGHT: every test passes with step $step undone"; missed=$((missed + 1))
      fi
      echo "report-gpu.sh: step $step: $verdict, exit $rc in $((SECONDS - t0)) s"
      [ -n "$first" ] && echo "    ${first#*$repo/}"
    done
    [ "$n" -gt 0 ] || die "the bundle holds no step programs: build them with 'cmake --build BUILD --target lessonNN_steps' and pack again"
    echo "report-gpu.sh: $((n - missed - declared)) of $n steps caught on this device, $declared graded elsewhere (declared), $missed not caught"
    [ "$missed" = 0 ]
    ;;
  mistakes)
    [ $# -eq 2 ] || die "usage: report-gpu.sh mistakes RUNTIME.tar.xz BUNDLE"
    pack=$1; [ -f "$pack" ] || die "runtime pack '$pack' not found"
    bundle=$(unpack "$2")
    echo "report-gpu.sh: bundle built at $(cat "$bundle/report/commit.txt" 2>/dev/null || echo '?')"
    n=0; missed=0; declared=0; unnamed=0
    # One value of mistakes.cmake: set(COURSE_MISTAKE_<id>_<KEY> "value")
    val() { sed -n "s/^set(COURSE_MISTAKE_$2_$3 \"\(.*\)\")\$/\1/p" "$1" | sed 's/\\"/"/g'; }
    for prog in "$bundle"/lessons/*/lesson[0-9][0-9]_mistake_*_test; do
      [ -x "$prog" ] || continue
      name=$(basename "$prog"); nn=${name:6:2}; id=${name#lesson${nn}_mistake_}; id=${id%_test}
      manifest=$(dirname "$prog")/mistakes.cmake
      [ -f "$manifest" ] || die "$(dirname "$prog") has no mistakes.cmake: pack again"
      test=$(val "$manifest" "$id" TEST); words=$(val "$manifest" "$id" WORDS)
      title=$(val "$manifest" "$id" TITLE); elsewhere=$(val "$manifest" "$id" ELSEWHERE)
      # A race entry (race = true) is graded by the lesson's ThreadSanitizer +
      # Archer check on the host device; on a GPU it is run as it is, and
      # counts as caught only when its test fails there.
      race=$(sed -n "s/^set(COURSE_MISTAKE_${id}_RACE \(ON\|OFF\))\$/\1/p" "$manifest")
      if [ "$race" = ON ] && [[ "$elsewhere" != gpu:* ]]; then
        elsewhere="gpu: race: a data race, graded by the lesson's ThreadSanitizer + Archer check on the host device (ctest -L lesson$((10#$nn))); a GPU run shows it only when the interleaving does"
      fi
      what="mistake $((10#$nn)).$id ($title)"
      n=$((n + 1)); t0=$SECONDS; rc=0
      out=$(timeout "${COURSE_STEP_TIMEOUT:-240}" "$repo/scripts/gpu-node.sh" "$pack" "$prog" "$test" --order decl --abort 2>&1) || rc=$?
      missing=""
      IFS='|' read -r -a ws <<<"$words"
      for w in "${ws[@]}"; do
        grep -qiF -- "$w" <<<"$out" || missing="$missing \"$w\""
      done
      if [ "$rc" = 0 ] && [[ "$elsewhere" == gpu:* ]]; then
        verdict="graded elsewhere (${elsewhere#gpu: })"; declared=$((declared + 1))
      elif [ "$rc" = 0 ]; then
        verdict="NOT CAUGHT: \"$test\" passes with it"; missed=$((missed + 1))
      elif [ "$rc" = 124 ]; then
        verdict="caught (hang: no answer in ${COURSE_STEP_TIMEOUT:-240} s)"
      elif [ "$rc" -ge 128 ] && [ -n "$missing" ]; then
        # As cmake/expect-failure.cmake: a crash catches it, but no test could word it.
        verdict="caught, by a CRASH rather than a failing test (exit $rc: a student would see this)"
      elif [ -n "$missing" ]; then
        verdict="caught, but the message lacks$missing"; unnamed=$((unnamed + 1))
      else
        verdict="caught"
      fi
      echo "report-gpu.sh: $what: $verdict, exit $rc in $((SECONDS - t0)) s"
      printf '%s\n' "$out" | grep -m2 -E 'FAILED|failed|CRASH' | cut -c1-200 | sed 's/^/    /' || true
    done
    [ "$n" -gt 0 ] || die "the bundle holds no mistake programs: build them with 'cmake --build BUILD --target lessonNN_mistakes' and pack again"
    echo "report-gpu.sh: $((n - missed - declared - unnamed)) of $n mistakes caught with their words on this device, $unnamed caught without them, $declared graded elsewhere (declared), $missed not caught"
    [ "$missed" = 0 ] && [ "$unnamed" = 0 ]
    ;;
  sanitize)
    [ $# -eq 2 ] || die "usage: report-gpu.sh sanitize RUNTIME.tar.xz BUNDLE"
    st=${COURSE_SANITIZE_TIMEOUT:-300}   # seconds per program under one tool
    [[ $st =~ ^[1-9][0-9]*$ ]] || die "COURSE_SANITIZE_TIMEOUT must be a whole number of seconds, got '$st'"
    pack=$1; [ -f "$pack" ] || die "runtime pack '$pack' not found"
    bundle=$(unpack "$2")
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
    [ -n "$cs" ] || die "no compute-sanitizer on this node (it comes with the CUDA toolkit)"
    echo "report-gpu.sh: bundle built at $(cat "$bundle/report/commit.txt" 2>/dev/null || echo '?'); $("$cs" --version | tail -1)"
    # One program's "[correctness]" tests under one tool, in the course's test
    # environment as ctest gives it (gpu-node.sh sets the runtime): sets rc, log, summary.
    # racecheck leaves out the cases tagged [racecheck-slow] (cmake/CourseSanitize.cmake says why).
    under_tool() {
      rc=0
      local filter="[correctness]"
      [ "$1" = racecheck ] && filter="[correctness]~[racecheck-slow]"
      log=$(LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0 timeout "$st" "$repo/scripts/gpu-node.sh" "$pack" "$cs" \
            --tool "$1" --error-exitcode 86 "$2" "$filter" 2>&1) || rc=$?
      summary=$(printf '%s\n' "$log" | grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' | tail -1 || true)
    }
    bad=0
    for prog in "$bundle"/lessons/*/lesson[0-9][0-9]_test; do
      name=$(basename "$prog")
      for tool in memcheck racecheck; do
        t0=$SECONDS
        under_tool "$tool" "$prog"
        case "$rc" in
          0) verdict=clean ;;
          86) verdict="ERRORS"; bad=$((bad + 1)) ;;
          124) verdict="timed out ($st s)"; bad=$((bad + 1)) ;;
          *) verdict="tests failed under the tool (exit $rc)"; bad=$((bad + 1)) ;;
        esac
        echo "report-gpu.sh: $tool $name: $verdict in $((SECONDS - t0)) s; ${summary:-no summary}"
        if [ "$tool" = racecheck ]; then
          "$repo/scripts/gpu-node.sh" "$pack" "$prog" --list-tests "[correctness][racecheck-slow]" 2>/dev/null |
            sed -n 's/^  \([^ ].*\)$/    left out of racecheck ([racecheck-slow]): \1/p' || true
        fi
        [ "$rc" = 0 ] || printf '%s\n' "$log" | grep -E -m6 '=========  |failed' | sed 's/^/    /' || true
      done
    done
    [ "$bad" = 0 ] && echo "report-gpu.sh: every lesson's solution tests are clean under memcheck and racecheck"
    # The other direction: a race the tool must report. Lesson 5 with step 5.2
    # undone (its two barriers removed), when the bundle holds the step programs.
    m=$(ls "$bundle"/lessons/*/lesson05_step5_2_test 2>/dev/null | head -1 || true)
    if [ -n "$m" ]; then
      t0=$SECONDS
      under_tool racecheck "$m"
      case "$rc" in
        86) verdict="caught: racecheck reports hazards" ;;
        0) verdict="NOT CAUGHT: racecheck clean and the tests pass"; bad=$((bad + 1)) ;;
        124) verdict="timed out ($st s)"; bad=$((bad + 1)) ;;
        *) verdict="caught by the tests (exit $rc)" ;;
      esac
      echo "report-gpu.sh: racecheck lesson05_step5_2_test (no barriers): $verdict in $((SECONDS - t0)) s; ${summary:-no summary}"
      printf '%s\n' "$log" | grep -E -m4 '=========  (Error|Warning)|failed' | sed 's/^/    /' || true
    fi
    [ "$bad" = 0 ]
    ;;
  run)
    [ $# -ge 2 ] || die "usage: report-gpu.sh run RUNTIME.tar.xz BUNDLE [report options]"
    pack=$1; bundle=$2; shift 2
    # --cuda-wait is this script's; the other options go to report.py.
    wait_mode=${COURSE_CUDA_WAIT:-spin}; report_args=()
    while [ $# -gt 0 ]; do
      case "$1" in
        --cuda-wait) [ $# -ge 2 ] || die "--cuda-wait needs spin or block"; wait_mode=$2; shift ;;
        --cuda-wait=*) wait_mode=${1#--cuda-wait=} ;;
        *) report_args+=("$1") ;;
      esac
      shift
    done
    case "$wait_mode" in spin|block) ;; *) die "--cuda-wait must be spin or block, got '$wait_mode'" ;; esac
    set -- "${report_args[@]}"
    # Bad report options (--repeat 0, --lessons 42) fail now, in one line, not after the unpacking and nvcc.
    python3 "$repo/report/report.py" "$@" --validate-only --no-build-check || exit 2
    [ -f "$pack" ] || die "runtime pack '$pack' not found"
    bundle=$(unpack "$bundle")
    [ -x "$bundle/report/course_ceilings" ] || die "'$bundle' is not a bundle from 'report-gpu.sh pack'"
    # One folder per pack (as scripts/gpu-node.sh): two toolchains' runs in one session never share one.
    rt=${COURSE_RT_DIR:-/tmp/course-rt-$(cksum < "$pack" | cut -d' ' -f1)}
    [ -d "$rt/llvm-rt" ] || { mkdir -p "$rt" && tar xJf "$pack" -C "$rt"; }
    # The runtime goes to the course's programs only (report.py passes it on),
    # not to Python itself, whose own libraries must not meet LLVM's.
    # The rest of the run environment comes from the bundle's course-env.json (report.py's child_env).
    export COURSE_CHILD_LD_LIBRARY_PATH="$rt/llvm-rt${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # A pack made with --with-libc (a build from a newer system than this node)
    # brings its own C library: scripts/gpu-node.sh (the one place that knows
    # how to start a program through the pack's loader) starts each program
    # (report.py's COURSE_CHILD_LAUNCHER); it unpacks into the same $rt.
    if [ -f "$rt/llvm-rt/LOADER" ]; then
      export COURSE_RT_DIR=$rt
      export COURSE_CHILD_LAUNCHER="$(printf '%q %q' "$repo/scripts/gpu-node.sh" "$(cd "$(dirname "$pack")" && pwd)/$(basename "$pack")")"
      export COURSE_CHILD_LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}"
      echo "report-gpu.sh: the pack brings its own C library: programs start through scripts/gpu-node.sh"
    fi
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true

    # The vendor programs (cuBLAS SGEMM, CUB's sum and histogram, the classic
    # CUDA N-body): the bundle's where they start here, else built here with
    # nvcc for this GPU, else skipped (the report says why).
    gpu=0
    grep -q '"device_class": "gpu"' "$bundle/report/build-info.json" 2>/dev/null && gpu=1
    if [ "$gpu" = 1 ]; then
      nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
      for spec in "course_sgemm sgemm.cpp -lcublas" "course_cub vendor_cub.cu" "course_cuda_nbody vendor_nbody.cu"; do
        read -r prog src libs <<< "$spec"
        exe="$bundle/report/$prog"
        [ -x "$exe" ] && LD_LIBRARY_PATH="$COURSE_CHILD_LD_LIBRARY_PATH" "$exe" --help >/dev/null 2>&1 && continue
        if [ -n "$nvcc" ]; then
          echo "report-gpu.sh: building $prog with $nvcc"
          # shellcheck disable=SC2086  # libs: none or one word
          "$nvcc" -O3 -std=c++17 -arch=native -o "$exe" "$repo/report/$src" $libs \
            || { echo "report-gpu.sh: warning: nvcc could not build $prog; its rows are skipped"; rm -f "$exe"; }
        else
          echo "report-gpu.sh: warning: no nvcc here and no $prog in the bundle that starts here; its rows are skipped"
          rm -f "$exe"
        fi
      done
    fi
    # How the host waits for the GPU: every course program reads COURSE_CUDA_WAIT
    # before its OpenMP runtime starts (common/src/cuda_wait.cpp), the vendor
    # programs before their first CUDA call (report/vendor_cuda.hpp); report.py
    # passes it on and says it under the report's title.
    export COURSE_CUDA_WAIT=$wait_mode
    echo "report-gpu.sh: GPU waits: COURSE_CUDA_WAIT=$wait_mode"
    py=python3
    python3 -c 'import matplotlib' 2>/dev/null || { [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }
    rc=0
    PYTHONUNBUFFERED=1 "$py" "$repo/report/report.py" --build "$bundle" "$@" || rc=$?
    # What comes back from the node: at most 8 files, so plots + report + one tarball.
    outdir="$bundle/report"
    for ((i = 1; i <= $#; i++)); do
      case "${!i}" in
        --out) j=$((i + 1)); outdir=${!j} ;;
        --out=*) outdir=${!i#--out=} ;;
      esac
    done
    if [ -n "${OUT:-}" ] && [ -f "$outdir/report.md" ]; then
      # At most 8 files come back: report.md, the tarball (CSV, logs, plots) and up to 6 plots.
      mkdir -p "$OUT"   # a folder of its own under the machine's $OUT may not exist yet
      cp "$outdir/report.md" "$OUT/" 2>/dev/null || true
      # the plots in the report's order of importance (report/course_report/plots.py PLOTS)
      for p in ceilings speedup sweep bars matrix split lines; do
        if [ -f "$outdir/plots/$p.png" ]; then echo "$outdir/plots/$p.png"; fi   # (a failed test would end the script: pipefail)
      done | head -6 | while read -r f; do cp "$f" "$OUT/"; done
      (cd "$outdir" && tar czf "$OUT/report-all.tar.gz" report.md report.csv $(ls repeats.csv 2>/dev/null) csv logs \
        $(ls -d plots 2>/dev/null)) || true
      echo "report-gpu.sh: copied report.md, report-all.tar.gz (CSV, logs, plots) and the plots into \$OUT"
    fi
    exit $rc
    ;;
  *) die "unknown command '$cmd' (pack, test, steps, mistakes, sanitize or run; see --help)" ;;
esac
