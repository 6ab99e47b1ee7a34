# CourseSanitize.cmake -- the `sanitize` CTest label: every lesson's
# correctness tests run again under tools that see what a test cannot.
#
#   lessonN: sanitize address    AddressSanitizer, host-offload device: an
#                                out-of-bounds read or write inside a target
#                                region, a use after free
#   lessonN: sanitize race       ThreadSanitizer + LLVM's Archer (libarcher.so,
#                                which tells TSan what OpenMP barriers, tasks
#                                and teams order), host-offload device: a
#                                missing barrier, an unprotected update
#   lessonN: sanitize memcheck   compute-sanitizer on an NVIDIA build; skipped,
#   lessonN: sanitize racecheck  with the reason printed, where it is missing
#
# A test case tagged [racecheck-slow] is left out of racecheck only: racecheck
# slows some kernels by 1000x or more, and such a case would not finish. The
# tag is for a large size of code that other cases check at small sizes; the
# test file says why, and scripts/report-gpu.sh sanitize lists what it left out.
#
# The host sanitizers need their own builds: ctest builds them (a fixture test,
# "sanitize: build address/thread") in <build>/sanitize-address and
# <build>/sanitize-thread, from the sources on disk, same track and lessons,
# device forced to host, only the test programs. Speed tests are left out (a
# sanitizer slows code 2-15x, so their ratios mean nothing): the lesson
# programs run with the test filter "[correctness]".
#
# Why the flags are what they are (clang 19, Debian 12, measured):
# - The target regions of the host device live in a shared object (the device
#   image) that the runtime loads. It must be instrumented too: built with
#   -Xarch_host -fsanitize=address (host code only) a planted out-of-bounds
#   read in a target region goes unreported. So -fsanitize=... is passed to
#   every compile, device code included.
# - clang-linker-wrapper links that device image with the executable's
#   libraries, and the static sanitizer runtimes (with their .preinit_array)
#   cannot go into a shared object: link with -fno-sanitize-link-runtime and
#   the runtime's shared library, which executable and device image share.
# - TSan alone reports false races in every parallel region (it cannot see
#   libomp's synchronisation); Archer supplies it through OMPT, and
#   ignore_noninstrumented_modules=1 silences libomp's own accesses. The
#   runtime loads one OMPT tool, so the lessons whose tests are tools
#   themselves (2, 3, 7, 9) step aside for Archer in the race run and leave
#   out their [ompt] tests there (see below).
#
# Configure one build with -DCOURSE_SANITIZE=address (or thread) and every
# program in it is instrumented; its plain `ctest` then runs everything under
# the sanitizer (speed tests included, which then mean nothing).
include_guard(GLOBAL)

set(COURSE_SANITIZE "none" CACHE STRING
    "Instrument every program of this build: none, address or thread (the sanitize tests set it in their own build folders)")
set_property(CACHE COURSE_SANITIZE PROPERTY STRINGS none address thread)
option(COURSE_SANITIZE_TESTS "Add the sanitize tests (ctest -L sanitize)" ON)
if(NOT COURSE_SANITIZE MATCHES "^(none|address|thread)$")
  _course_fail("COURSE_SANITIZE='${COURSE_SANITIZE}' is not a sanitizer this course knows."
    "use -DCOURSE_SANITIZE=none, address or thread.")
endif()

# The sanitizers' shared runtimes and a symbolizer (source lines in reports,
# target regions included), from the compiler's own LLVM where it has one.
execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-resource-dir OUTPUT_VARIABLE _course_resource
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
foreach(_san asan tsan)
  string(TOUPPER "${_san}" _SAN)
  find_file(COURSE_${_SAN}_RUNTIME NAMES libclang_rt.${_san}-${COURSE_HOST_CPU}.so libclang_rt.${_san}.so NO_DEFAULT_PATH
            PATHS "${_course_resource}/lib/linux" "${_course_resource}/lib/${COURSE_HOST_CPU}-unknown-linux-gnu"
                  "${_course_resource}/lib/${COURSE_HOST_CPU}-pc-linux-gnu" "${_course_resource}/lib/${_course_machine}")
endforeach()
get_filename_component(_course_llvm_bin "${COURSE_LLVM_LIBDIR}/../bin" ABSOLUTE)
find_program(COURSE_LLVM_SYMBOLIZER NAMES llvm-symbolizer llvm-symbolizer-${CMAKE_CXX_COMPILER_VERSION_MAJOR}
             HINTS "${_course_llvm_bin}" PATHS /usr/lib/llvm-19/bin /usr/lib/llvm-14/bin)

# Environment of a sanitized run: reports with source lines, the run fails at
# the first report (and every report is matched by FAIL_REGULAR_EXPRESSION).
set(_san_symbolize "")
if(COURSE_LLVM_SYMBOLIZER)
  set(_san_symbolize ":external_symbolizer_path=${COURSE_LLVM_SYMBOLIZER}")
endif()
# LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0: the offload runtime keeps freed
# device blocks below 8 KiB in a pool and hands them out again without
# free/malloc; the sanitizers then cannot tell a new buffer from an old one
# (TSan reported the correct lesson 5 solution: one kernel's output block
# reused as the next kernel's input). With it 0 every buffer is a fresh malloc.
# detect_leaks=0: the runtime keeps its device images and tables until exit;
# leaks are not what these tests look for.
set(COURSE_SANITIZE_ENV_address "LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0"
    "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0${_san_symbolize}")
# A race needs two threads in one team, and the host device grants a team
# min(thread_limit, OMP_NUM_THREADS) threads with teams x threads <=
# KMP_TEAMS_THREAD_LIMIT (both default to the core count): on 2 cores a kernel
# of many teams runs them one thread each and no race can happen. 4 and 16
# give launches of up to 4 teams 4 threads per team (lesson 5's tile-16
# kernel at n = 31: 4 teams, 2 k-steps), whatever the machine.
set(COURSE_SANITIZE_ENV_thread "LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0" "OMP_NUM_THREADS=4" "KMP_TEAMS_THREAD_LIMIT=16"
    "TSAN_OPTIONS=ignore_noninstrumented_modules=1:halt_on_error=1:exitcode=66${_san_symbolize}"
    "OMP_TOOL_LIBRARIES=${COURSE_LLVM_LIBDIR}/libarcher.so")
set(COURSE_SANITIZE_FAIL_REGEX "ERROR: AddressSanitizer|WARNING: ThreadSanitizer|ThreadSanitizer: reported|=========    ERROR|RACECHECK SUMMARY: [1-9]|ERROR SUMMARY: [1-9]")

# --- this build instrumented (COURSE_SANITIZE=address or thread) ----------------
if(NOT COURSE_SANITIZE STREQUAL "none")
  if(NOT COURSE_DEVICE_CLASS STREQUAL "host")
    _course_fail("COURSE_SANITIZE=${COURSE_SANITIZE} works on the host-offload device only (clang 19 cannot instrument GPU code)."
      "configure with -DCOURSE_DEVICE=host; on a GPU build `ctest -L sanitize` runs compute-sanitizer instead.")
  endif()
  if(COURSE_SANITIZE STREQUAL "address")
    set(_rt "${COURSE_ASAN_RUNTIME}")
  else()
    set(_rt "${COURSE_TSAN_RUNTIME}")
  endif()
  if(NOT _rt)
    _course_fail("COURSE_SANITIZE=${COURSE_SANITIZE}: no shared sanitizer runtime (libclang_rt.*.so) under ${_course_resource}/lib."
      "apt-get install libclang-rt-${CMAKE_CXX_COMPILER_VERSION_MAJOR}-dev (scripts/install-deps.sh does this).")
  endif()
  if(COURSE_SANITIZE STREQUAL "thread" AND NOT EXISTS "${COURSE_LLVM_LIBDIR}/libarcher.so")
    _course_fail("COURSE_SANITIZE=thread needs LLVM's OpenMP race-detection tool ${COURSE_LLVM_LIBDIR}/libarcher.so (without it every parallel region reports false races)."
      "apt-get install libomp-${CMAKE_CXX_COMPILER_VERSION_MAJOR}-dev.")
  endif()
  list(APPEND COURSE_OFFLOAD_FLAGS -fsanitize=${COURSE_SANITIZE} -fno-omit-frame-pointer -g)
  list(APPEND COURSE_HOST_OPENMP_FLAGS -fsanitize=${COURSE_SANITIZE} -fno-omit-frame-pointer -g)
  get_filename_component(_rtdir "${_rt}" DIRECTORY)
  list(APPEND COURSE_OFFLOAD_LINK_FLAGS -fsanitize=${COURSE_SANITIZE} -fno-sanitize-link-runtime "${_rt}"
       "-Wl,-rpath,${_rtdir}")
  list(APPEND COURSE_RUN_ENVIRONMENT ${COURSE_SANITIZE_ENV_${COURSE_SANITIZE}})  # written out by course_write_environment()
  message(STATUS "Course: every program built with -fsanitize=${COURSE_SANITIZE} (runtime ${_rt})")

  # Planted bugs: proof that the sanitizer is live in target regions (a build
  # whose instrumentation silently went missing would pass every lesson).
  function(_course_sanitize_planted)
    add_executable(sanitize_planted "${PROJECT_SOURCE_DIR}/tests/sanitize/planted.cpp")
    course_offload(sanitize_planted)
  endfunction()
  cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL _course_sanitize_planted)
endif()

# --- the sanitize tests ------------------------------------------------------------
# Added at the end of the top-level CMakeLists (cmake_language(DEFER)), when
# every lesson has made its test program: one test per lesson and tool.
function(_course_sanitize_collect dir out)
  get_property(_targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(_subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  set(_found "")
  foreach(_t IN LISTS _targets)
    if(_t MATCHES "^lesson[0-9][0-9]_test$")
      list(APPEND _found "${_t}")
    endif()
  endforeach()
  foreach(_d IN LISTS _subdirs)
    _course_sanitize_collect("${_d}" _more)
    list(APPEND _found ${_more})
  endforeach()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

function(_course_sanitize_skip name reason)
  set(_labels "${ARGN}")
  if(NOT _labels)
    set(_labels sanitize)
  endif()
  add_test(NAME "${name}" COMMAND "${CMAKE_COMMAND}" -E echo "SKIPPED: ${reason}")
  set_tests_properties("${name}" PROPERTIES LABELS "${_labels}" SKIP_REGULAR_EXPRESSION "SKIPPED:" TIMEOUT 30)
endfunction()

# The race check of a lesson declared RACES, where the student looks (run by
# cmake/race-check.cmake, which says DATA RACE or NOT A RACE):
# "lessonN: no data races (ThreadSanitizer + Archer)", labels lessonN and
# races (not sanitize, which the student presets leave out), built by its own
# fixture with only that lesson's test program, so `ctest -L lessonN` pays
# for one instrumented lesson, not ten.
function(_course_race_test n program test_env filter dir timeout)
  set(_test "lesson${n}: no data races (ThreadSanitizer + Archer)")
  if(COURSE_EMULATED)
    _course_sanitize_skip("${_test}" "ThreadSanitizer does not run under an emulator (qemu-user); the race check runs on a real ${COURSE_HOST_CPU} machine" "lesson${n};races")
    return()
  endif()
  get_target_property(_bin "${program}" BINARY_DIR)
  file(RELATIVE_PATH _rel "${PROJECT_BINARY_DIR}" "${_bin}")
  add_test(NAME "lesson${n}: build the race check"
           COMMAND "${CMAKE_COMMAND}" -DSOURCE=${PROJECT_SOURCE_DIR} -DBINARY=${dir}
                   -DGENERATOR=${CMAKE_GENERATOR} -DINIT=${PROJECT_BINARY_DIR}/sanitize-thread-init.cmake
                   "-DTARGETS=${program}" -P "${PROJECT_SOURCE_DIR}/cmake/sanitize-build.cmake")
  set_tests_properties("lesson${n}: build the race check" PROPERTIES LABELS "lesson${n};build;races"
    FIXTURES_SETUP "races-lesson${n}" TIMEOUT 3600 RESOURCE_LOCK "sanitize-build")
  # Through cmake/race-check.cmake, which says whether a failure is a race
  # ("DATA RACE", with both accesses' lines) or not ("NOT A RACE": a wrong
  # answer or a crash under the instrumented build, which the lesson's own
  # tests name).
  add_test(NAME "${_test}" COMMAND "${CMAKE_COMMAND}" "-DPROGRAM=${dir}/${_rel}/${program}" "-DFILTER=${filter}"
           -DLESSON=${n} -DTIMEOUT=${timeout} -P "${PROJECT_SOURCE_DIR}/cmake/race-check.cmake")
  math(EXPR _outer "${timeout} + 30")
  set_tests_properties("${_test}" PROPERTIES LABELS "lesson${n};races;correctness"
    FIXTURES_REQUIRED "races-lesson${n}" ENVIRONMENT "${test_env}" TIMEOUT ${_outer}
    WORKING_DIRECTORY "${dir}")  # where the instrumented build compiled: relative source paths resolve
endfunction()

function(_course_sanitize_tests)
  _course_sanitize_collect("${PROJECT_SOURCE_DIR}" _programs)
  list(SORT _programs)
  if(NOT _programs)
    return()
  endif()

  # Host sanitizers: own build folders, made by a fixture, always for the host
  # device (on a GPU build too: they check the same code's logic).
  set(_tools "")
  if(NOT COURSE_ASAN_RUNTIME)
    _course_sanitize_skip("sanitize: address"
      "no AddressSanitizer runtime under ${_course_resource}/lib: apt-get install libclang-rt-${CMAKE_CXX_COMPILER_VERSION_MAJOR}-dev")
  else()
    list(APPEND _tools address)
  endif()
  if(NOT COURSE_TSAN_RUNTIME OR NOT EXISTS "${COURSE_LLVM_LIBDIR}/libarcher.so")
    _course_sanitize_skip("sanitize: race"
      "no ThreadSanitizer runtime (libclang-rt-${CMAKE_CXX_COMPILER_VERSION_MAJOR}-dev) or no ${COURSE_LLVM_LIBDIR}/libarcher.so (libomp-${CMAKE_CXX_COMPILER_VERSION_MAJOR}-dev)")
  else()
    list(APPEND _tools thread)
  endif()
  if(NOT "thread" IN_LIST _tools)
    get_property(_race_lessons GLOBAL PROPERTY COURSE_RACE_LESSONS)
    foreach(_n IN LISTS _race_lessons)
      _course_sanitize_skip("lesson${_n}: no data races (ThreadSanitizer + Archer)"
        "no ThreadSanitizer runtime or no libarcher.so: scripts/install-deps.sh installs both" "lesson${_n};races")
    endforeach()
  endif()

  foreach(_tool IN LISTS _tools)
    set(_name ${_tool})
    if(_tool STREQUAL "thread")
      set(_name race)
    endif()
    set(_dir "${PROJECT_BINARY_DIR}/sanitize-${_tool}")
    # The sub-build's settings, as an initial cache (-C): lists and paths
    # survive without quoting games.
    set(_init "")
    foreach(_var CMAKE_CXX_COMPILER CMAKE_BUILD_TYPE CMAKE_MAKE_PROGRAM CMAKE_PREFIX_PATH Catch2_DIR
                 COURSE_TRACK COURSE_LESSONS COURSE_WARNINGS_AS_ERRORS COURSE_TEST_TIMEOUT)
      if(DEFINED ${_var})
        string(APPEND _init "set(${_var} [==[${${_var}}]==] CACHE STRING \"\")\n")
      endif()
    endforeach()
    string(APPEND _init "set(COURSE_DEVICE host CACHE STRING \"\")\nset(COURSE_SANITIZE ${_tool} CACHE STRING \"\")\n")
    file(WRITE "${PROJECT_BINARY_DIR}/sanitize-${_tool}-init.cmake" "${_init}")

    set(_build_targets sanitize_planted ${_programs})
    add_test(NAME "sanitize: build ${_name}"
             COMMAND "${CMAKE_COMMAND}" -DSOURCE=${PROJECT_SOURCE_DIR} -DBINARY=${_dir}
                     -DGENERATOR=${CMAKE_GENERATOR} -DINIT=${PROJECT_BINARY_DIR}/sanitize-${_tool}-init.cmake
                     "-DTARGETS=${_build_targets}" -P "${PROJECT_SOURCE_DIR}/cmake/sanitize-build.cmake")
    set_tests_properties("sanitize: build ${_name}" PROPERTIES LABELS "sanitize"
      FIXTURES_SETUP "sanitize-${_tool}" TIMEOUT 3600 RESOURCE_LOCK "sanitize-build")

    set(_env ${COURSE_TEST_ENVIRONMENT} ${COURSE_SANITIZE_ENV_${_tool}})
    # Instrumented code is slower: ASan about 2x, TSan 5-15x (every load and
    # store of the kernels goes through it; lesson 5's 1000^3 matmul alone
    # takes tens of seconds).
    if(_tool STREQUAL "thread")
      math(EXPR _timeout "${COURSE_TEST_TIMEOUT} * 4")
    else()
      math(EXPR _timeout "${COURSE_TEST_TIMEOUT} * 2")
    endif()
    # The planted bugs must be reported (PASS_REGULAR_EXPRESSION: the report,
    # whatever the exit status).
    if(_tool STREQUAL "address")
      set(_planted "oob-read" "heap-buffer-overflow.*READ" "oob-write" "heap-buffer-overflow.*WRITE")
    else()
      set(_planted "missing-barrier" "WARNING: ThreadSanitizer: data race")
    endif()
    while(_planted)
      list(POP_FRONT _planted _bug _expect)
      add_test(NAME "sanitize: ${_name} catches a planted ${_bug}"
               COMMAND "${_dir}/sanitize_planted" ${_bug})
      set_tests_properties("sanitize: ${_name} catches a planted ${_bug}" PROPERTIES LABELS "sanitize"
        FIXTURES_REQUIRED "sanitize-${_tool}" ENVIRONMENT "${_env}" PASS_REGULAR_EXPRESSION "${_expect}"
        TIMEOUT 120)
    endwhile()

    foreach(_program IN LISTS _programs)
      string(REGEX REPLACE "^lesson0?([0-9]+)_test$" "\\1" _n "${_program}")
      get_target_property(_bin "${_program}" BINARY_DIR)
      file(RELATIVE_PATH _rel "${PROJECT_BINARY_DIR}" "${_bin}")
      set(_test "lesson${_n}: sanitize ${_name}")
      # Archer is an OMPT tool, and LLVM's runtime loads one tool. A test
      # program that is an OMPT tool itself (lesson 2's counts copies) would
      # win, Archer would never load, and TSan alone reports false races in
      # every parallel region. So for the race run such a program declines
      # (COURSE_OMPT_YIELD=1, reference/lesson0N_ompt.hpp), the runtime
      # loads Archer instead, and the tests that need the program's own tool
      # (tag [ompt]) are left out of this run; they run in every other one.
      set(_filter "[correctness]")
      set(_test_env ${_env})
      if(_tool STREQUAL "thread")
        # The lesson's test file itself (its objects may come through an
        # object library, so the program's SOURCES need not name it).
        set(_nn "${_n}")
        if(_n LESS 10)
          set(_nn "0${_n}")
        endif()
        file(GLOB _srcs "${PROJECT_SOURCE_DIR}/tests/lesson${_nn}_*.cpp")
        foreach(_src IN LISTS _srcs)
          file(READ "${_src}" _text)
          if(_text MATCHES "#include \"[^\"]*ompt[^\"]*\"|ompt_start_tool")
            set(_filter "[correctness]~[ompt]")
            list(APPEND _test_env "COURSE_OMPT_YIELD=1")
          endif()
        endforeach()
      endif()
      get_property(_race_lessons GLOBAL PROPERTY COURSE_RACE_LESSONS)
      if(_tool STREQUAL "thread" AND _n IN_LIST _race_lessons)
        _course_race_test(${_n} ${_program} "${_test_env}" "${_filter}" "${_dir}" ${_timeout})
        continue()
      endif()
      add_test(NAME "${_test}" COMMAND "${_dir}/${_rel}/${_program}" "${_filter}")
      set_tests_properties("${_test}" PROPERTIES LABELS "sanitize;sanitize-${_name}"
        FIXTURES_REQUIRED "sanitize-${_tool}" ENVIRONMENT "${_test_env}"
        FAIL_REGULAR_EXPRESSION "${COURSE_SANITIZE_FAIL_REGEX}" TIMEOUT ${_timeout})
    endforeach()
  endforeach()

  # compute-sanitizer: the GPU build's own test programs, run under NVIDIA's tool.
  if(NOT COURSE_DEVICE_CLASS STREQUAL "gpu")
    _course_sanitize_skip("sanitize: compute-sanitizer memcheck and racecheck"
      "compute-sanitizer checks NVIDIA GPU code and this build targets the host device; the address and race tests above cover it")
    return()
  endif()
  find_program(COURSE_COMPUTE_SANITIZER compute-sanitizer
               HINTS "${COURSE_CUDA_PATH_USED}/bin" "$ENV{CUDA_HOME}/bin" PATHS /usr/local/cuda/bin)
  foreach(_program IN LISTS _programs)
    string(REGEX REPLACE "^lesson0?([0-9]+)_test$" "\\1" _n "${_program}")
    foreach(_tool memcheck racecheck)
      set(_test "lesson${_n}: sanitize ${_tool}")
      if(NOT COURSE_COMPUTE_SANITIZER)
        _course_sanitize_skip("${_test}"
          "compute-sanitizer not found (looked in ${COURSE_CUDA_PATH_USED}/bin, $CUDA_HOME, /usr/local/cuda/bin, PATH): install the CUDA toolkit's compute-sanitizer or pass -DCOURSE_COMPUTE_SANITIZER=<path>")
        continue()
      endif()
      set(_filter "[correctness]")
      if(_tool STREQUAL "racecheck")
        set(_filter "[correctness]~[racecheck-slow]")  # see the header
      endif()
      add_test(NAME "${_test}"
               COMMAND "${COURSE_COMPUTE_SANITIZER}" --tool ${_tool} --error-exitcode 86
                       $<TARGET_FILE:${_program}> "${_filter}")
      # Every buffer a fresh allocation (see LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD above).
      set_tests_properties("${_test}" PROPERTIES LABELS "sanitize;sanitize-${_tool}"
        ENVIRONMENT "${COURSE_TEST_ENVIRONMENT};LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0" FAIL_REGULAR_EXPRESSION "${COURSE_SANITIZE_FAIL_REGEX}"
        TIMEOUT ${COURSE_TEST_TIMEOUT})
    endforeach()
  endforeach()
endfunction()

if(COURSE_SANITIZE STREQUAL "none" AND COURSE_SANITIZE_TESTS)
  cmake_language(DEFER DIRECTORY "${PROJECT_SOURCE_DIR}" CALL _course_sanitize_tests)
endif()
