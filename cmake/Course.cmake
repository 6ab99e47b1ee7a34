# Course.cmake -- the course's targets, on the toolchain that
# cmake/CourseToolchain.cmake checked and configured. It provides:
#
#   course_offload(<target>)                  offload flags for one target
#   course_host_openmp(<target>)              OpenMP without a device pass (host code only)
#   course_add_catch_tests(<target> <source> ...) CTest entries from TEST_CASEs
#   course_add_lesson(<N> <topic> SOURCES ...) a lesson: kernels, driver, tests
#
# and, for the solutions track, cmake/CourseSteps.cmake (every step graded)
# and cmake/CourseMistakes.cmake (the catalogue of mistakes), which share
# cmake/CourseMutants.cmake. The device and the environment every program
# runs with are written once into the build (cmake/CourseEnvironment.cmake).

include_guard(GLOBAL)

set(COURSE_TRACK "lessons" CACHE STRING
    "Whose code the tests grade: lessons (the student's starters) or solutions")
set_property(CACHE COURSE_TRACK PROPERTY STRINGS lessons solutions)
# Whether this checkout has solutions/: the student track needs none (a
# self-learner may delete it to avoid temptation); the solutions track and the
# drift check do.
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/solutions")
  set(COURSE_HAVE_SOLUTIONS ON)
else()
  set(COURSE_HAVE_SOLUTIONS OFF)
endif()
option(COURSE_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ON)

include("${CMAKE_CURRENT_LIST_DIR}/CourseToolchain.cmake")

set(COURSE_TEST_TIMEOUT 300 CACHE STRING "CTest timeout in seconds for each test")
set(COURSE_BUILD_TIMEOUT 3600 CACHE STRING "CTest timeout in seconds for a lesson's build step (test 'lessonN: build')")
set(COURSE_STEP_TIMEOUT 240 CACHE STRING
    "Seconds a step's or mistake's mutant may run before its check calls it a hang (counted as caught, and reported)")
if(COURSE_EMULATED)
  math(EXPR COURSE_TEST_TIMEOUT "${COURSE_TEST_TIMEOUT} * 10")
  math(EXPR COURSE_BUILD_TIMEOUT "${COURSE_BUILD_TIMEOUT} * 10")
  math(EXPR COURSE_STEP_TIMEOUT "${COURSE_STEP_TIMEOUT} * 10")
endif()
# What a skipped speed test prints (CTest's SKIP_REGULAR_EXPRESSION matches "COURSE-SKIP:").
set(COURSE_EMULATED_SKIP "COURSE-SKIP: speed is not graded under an emulator (${COURSE_HOST_CPU} through qemu-user here: timings mean nothing); run on a real ${COURSE_HOST_CPU} machine to grade it")

find_package(Python3 REQUIRED COMPONENTS Interpreter)  # the course's checks are Python scripts

# After every `ctest` run, the speed tests' measured ratios and thresholds
# (CTest shows a passing test's output only under -V): each speed test records
# its verdict line in COURSE_VERDICT_DIR, and scripts/speed_summary.py prints
# them. From the repository root, CTestCustom.cmake there reads this file.
set(COURSE_VERDICT_DIR "${CMAKE_BINARY_DIR}/verdicts")
file(WRITE "${CMAKE_BINARY_DIR}/CTestCustom.cmake"
  "# Written by cmake/Course.cmake: the speed summary after each ctest run.\n"
  "set(CTEST_CUSTOM_PRE_TEST \"\\\"${Python3_EXECUTABLE}\\\" \\\"${PROJECT_SOURCE_DIR}/scripts/speed_summary.py\\\" \\\"${COURSE_VERDICT_DIR}\\\" --clear\")\n"
  "set(CTEST_CUSTOM_POST_TEST \"\\\"${Python3_EXECUTABLE}\\\" \\\"${PROJECT_SOURCE_DIR}/scripts/speed_summary.py\\\" \\\"${COURSE_VERDICT_DIR}\\\"\")\n")

include("${CMAKE_CURRENT_LIST_DIR}/CourseEnvironment.cmake")  # COURSE_RUN_ENVIRONMENT
include(CourseSanitize)  # COURSE_SANITIZE and the `sanitize` tests (cmake/CourseSanitize.cmake)
course_write_environment()  # config.hpp, course-env.json/.sh; COURSE_TEST_ENVIRONMENT
include("${CMAKE_CURRENT_LIST_DIR}/CourseSteps.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/CourseMistakes.cmake")

# -Wno-pass-failed: clang 19 warns "loop not vectorized" wherever `omp simd`
# cannot be honoured: always for NVIDIA (there the SIMD lanes are the threads)
# and on the distribute loop of `... parallel for simd`. Lesson 3 teaches the
# remarks through -Rpass; as an error under -Werror the warning teaches nothing.
set(COURSE_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wno-pass-failed)
# clang 22 counts `__COUNTER__` as a C2y extension under -Wpedantic; Catch2's
# INFO/SECTION macros expand it in the tests' own lines, where a system
# header's exemption does not reach.
if(COURSE_LLVM_MAJOR GREATER_EQUAL 22)
  list(APPEND COURSE_WARNING_FLAGS -Wno-c2y-extensions)
endif()
if(COURSE_WARNINGS_AS_ERRORS)
  list(APPEND COURSE_WARNING_FLAGS -Werror)
endif()

#[[ course_host_openmp(<target>)
    Compile <target> (an object library of host code with no target region
    of its own) with OpenMP but no device pass. ]]
function(course_host_openmp target)
  target_compile_options(${target} PRIVATE ${COURSE_HOST_OPENMP_FLAGS} ${COURSE_WARNING_FLAGS}
                         "SHELL:-include ${COURSE_CONFIG_HEADER}")
  target_include_directories(${target} PRIVATE "${COURSE_GENERATED_INCLUDE}")
endfunction()

#[[ course_offload(<target>)
    Compile and link <target> for the configured offload device. Every lesson,
    starter and solution, baseline and test program goes through here. Each
    of its files sees course/config.hpp (the device macros: COURSE_DEVICE_GPU,
    COURSE_DEVICE_CLASS, ...; cmake/CourseEnvironment.cmake) without an #include. ]]
function(course_offload target)
  target_compile_options(${target} PRIVATE ${COURSE_OFFLOAD_FLAGS} ${COURSE_WARNING_FLAGS}
                         "SHELL:-include ${COURSE_CONFIG_HEADER}")
  target_include_directories(${target} PRIVATE "${COURSE_GENERATED_INCLUDE}")
  target_link_options(${target} PRIVATE ${COURSE_OFFLOAD_LINK_FLAGS})
endfunction()

#[[ course_add_catch_tests(<target> <source> [PREFIX p] [LABELS ...] [FIXTURE f])
    One CTest test per TEST_CASE("name", "[tags]") in <source>; each tag
    becomes a label. FIXTURE: a CTest fixture every test requires (the
    lesson's build step, so ctest grades the code on disk). Parsing the source (instead of running the binary at
    build time) works for Catch2 v2 and v3 alike and for cross builds whose
    binaries cannot run here. ]]
function(course_add_catch_tests target source)
  cmake_parse_arguments(arg "" "PREFIX;FIXTURE" "LABELS" ${ARGN})
  file(READ "${source}" _text)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  string(REGEX MATCHALL "TEST_CASE[ \t\r\n]*\\([ \t\r\n]*\"[^\"]*\"[ \t\r\n]*,[ \t\r\n]*\"[^\"]*\"" _cases "${_text}")
  if(NOT _cases)
    message(FATAL_ERROR "${source}: no TEST_CASE(\"name\", \"[tags]\") found")
  endif()
  foreach(_case IN LISTS _cases)
    string(REGEX REPLACE ".*\\([ \t\r\n]*\"([^\"]*)\".*" "\\1" _name "${_case}")
    string(REGEX REPLACE ".*,[ \t\r\n]*\"([^\"]*)\"$" "\\1" _tags "${_case}")
    if(_name MATCHES "[],[*~\\\\]")
      message(FATAL_ERROR "${source}: test name '${_name}' holds a character Catch treats as a pattern (, [ ] * ~ \\)")
    endif()
    string(REGEX MATCHALL "\\[[^]]+\\]" _taglist "${_tags}")
    string(REGEX REPLACE "[][]" "" _taglist "${_taglist}")
    if(COURSE_EMULATED AND "speedup" IN_LIST _taglist)
      # Reported by CTest as skipped, by name, with the reason: never passed silently.
      add_test(NAME "${arg_PREFIX}${_name}" COMMAND "${CMAKE_COMMAND}" -E echo "${COURSE_EMULATED_SKIP}")
      set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES SKIP_REGULAR_EXPRESSION "COURSE-SKIP:")
    else()
      add_test(NAME "${arg_PREFIX}${_name}" COMMAND ${target} "${_name}")
      if("speedup" IN_LIST _taglist OR "may-skip" IN_LIST _taglist)
        # A speed test that does not apply on this device class, or a test this
        # toolchain cannot grade here ([may-skip]), says why (COURSE_SKIP_SPEED,
        # COURSE_SKIP_HERE in tests/support/course_test.hpp): CTest lists it skipped.
        set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES SKIP_REGULAR_EXPRESSION "COURSE-SKIP:")
      endif()
    endif()
    set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES
      LABELS "${_taglist};${arg_LABELS}"
      ENVIRONMENT "${COURSE_TEST_ENVIRONMENT};COURSE_VERDICT_DIR=${COURSE_VERDICT_DIR}"
      TIMEOUT ${COURSE_TEST_TIMEOUT})
    if(arg_FIXTURE)
      set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES FIXTURES_REQUIRED "${arg_FIXTURE}")
    endif()
  endforeach()
endfunction()

# _course_lesson_nn(<out> <N>): the lesson's number as two digits (1 -> 01).
function(_course_lesson_nn out number)
  string(LENGTH "${number}" _len)
  if(_len EQUAL 1)
    set(number "0${number}")
  endif()
  set(${out} "${number}" PARENT_SCOPE)
endfunction()

# _course_lesson_tests(<out> <N>): the lesson's test file, tests/lessonNN_*.cpp.
function(_course_lesson_tests out number)
  _course_lesson_nn(nn ${number})
  file(GLOB _src "${PROJECT_SOURCE_DIR}/tests/lesson${nn}_*.cpp")
  if(NOT _src)
    message(FATAL_ERROR "lesson ${number}: no tests/lesson${nn}_*.cpp")
  endif()
  set(${out} "${_src}" PARENT_SCOPE)
endfunction()

#[[ course_lesson_kernels(<name> <folder> <dir> SOURCES <files...> [EXPLICIT_SIMD])
    The files a student edits, taken from <dir> (lessons/<folder>, solutions/<folder>
    or a mutant's folder; a file given as an absolute path is taken from
    there), as an object library; headers always come from the
    lesson folder. Object libraries do not pass their objects on transitively:
    every program names course_common itself. ]]
function(course_lesson_kernels name folder dir)
  cmake_parse_arguments(arg "EXPLICIT_SIMD" "" "SOURCES" ${ARGN})
  set(_srcs "")
  foreach(_s IN LISTS arg_SOURCES)
    if(IS_ABSOLUTE "${_s}")
      list(APPEND _srcs "${_s}")
    else()
      list(APPEND _srcs "${dir}/${_s}")
    endif()
  endforeach()
  add_library(${name} OBJECT ${_srcs})
  target_include_directories(${name} PUBLIC "${PROJECT_SOURCE_DIR}/lessons/${folder}")
  target_link_libraries(${name} PUBLIC course_common)
  course_offload(${name})
  if(arg_EXPLICIT_SIMD)
    target_compile_options(${name} PRIVATE -fno-vectorize)
  endif()
  get_property(_poison GLOBAL PROPERTY COURSE_POISON_LOCALS_${folder})
  if(_poison)
    # POISON_LOCALS (course_add_lesson): a local the code reads before it
    # sets is NaN (floats) or 0xAA... (integers) on every run and every
    # device, not whatever the stack or registers held: the mistake fails its
    # test each time, not one run in five. Variables the code initializes
    # itself are untouched, and stores the code overwrites are dropped at -O2.
    target_compile_options(${name} PRIVATE -ftrivial-auto-var-init=pattern)
  endif()
endfunction()

#[[ course_lesson_test_program(<name> <N> <kernels>)
    Lesson N's test file (compiled once: lessonNN_test_objects) linked against
    <kernels>. ]]
function(course_lesson_test_program name number kernels)
  _course_lesson_nn(nn ${number})
  add_executable(${name} $<TARGET_OBJECTS:lesson${nn}_test_objects>)
  course_reference_for(${nn} _reference)
  target_link_libraries(${name} PRIVATE ${kernels} ${_reference} course_test_main course_common)
  course_offload(${name})
endfunction()

#[[ course_add_lesson(<N> <folder> SOURCES <files...> [DRIVER <files...>] [EXPLICIT_SIMD] [RACES] [POISON_LOCALS])
    Called from lessons/<folder>/CMakeLists.txt, the one copy of the lesson.
    SOURCES are the files the student edits; solutions/<folder> holds their
    finished copies (only those), which the solutions track swaps in. Builds:
      lessonNN            the lesson's program (DRIVER + kernels)
      lessonNN_test       tests/lessonNN_*.cpp against the kernels
      lessonNN_all        everything of the lesson (what "lessonN: build" builds)
    The test "lessonN: build" rebuilds the lesson before any of its tests run
    (a CTest fixture), so `ctest -L lessonN` grades the code on disk.
    RACES: the lesson's steps can race (barriers, atomics, tasks): its
    ThreadSanitizer + Archer check joins `ctest -L lessonN` (label races).
    EXPLICIT_SIMD: the SOURCES are compiled with the compiler's own
    loop vectorizer off (-fno-vectorize), so that only loops marked `omp simd`
    use vector instructions. (The SLP vectorizer stays on: without it clang
    scalarizes the sqrt of lesson 3's simd loop, 3x slower.) For lessons whose step IS the
    simd pragma (1, 3): at -O3 the compiler vectorizes simple loops by itself,
    and a test could not tell whether the student asked.
    POISON_LOCALS: the SOURCES are compiled with -ftrivial-auto-var-init=pattern
    (every build of them: yours, the starter, each step's and mistake's
    mutant), for lessons where a local left unset is a mistake the tests
    must catch every run (4: a tile's sums declared without `= {}`).
    The solutions track also builds the untouched starters and expects their
    tests to fail (test "lessonN: starter fails"), and proves every step is
    graded (cmake/CourseSteps.cmake, label steps) and every catalogued mistake
    caught (cmake/CourseMistakes.cmake, label mistakes). ]]
function(course_add_lesson number folder)
  cmake_parse_arguments(arg "EXPLICIT_SIMD;RACES;POISON_LOCALS" "" "SOURCES;DRIVER" ${ARGN})
  if(arg_POISON_LOCALS)
    set_property(GLOBAL PROPERTY COURSE_POISON_LOCALS_${folder} ON)
  endif()
  if(arg_RACES)
    # Its steps can race: `ctest -L lessonN` runs its ThreadSanitizer + Archer
    # check too (cmake/CourseSanitize.cmake, label races).
    set_property(GLOBAL APPEND PROPERTY COURSE_RACE_LESSONS ${number})
  endif()
  _course_lesson_nn(nn ${number})
  set(lesson_dir "${PROJECT_SOURCE_DIR}/lessons/${folder}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${folder}")
  _course_lesson_tests(_test_src ${number})
  foreach(_s IN LISTS arg_SOURCES)
    if(COURSE_TRACK STREQUAL "solutions" AND NOT EXISTS "${solution_dir}/${_s}")
      message(FATAL_ERROR "lesson ${number}: solutions/${folder}/${_s} is missing (every file a student edits has its finished copy there)")
    endif()
  endforeach()
  set(_simd "")
  if(arg_EXPLICIT_SIMD)
    set(_simd EXPLICIT_SIMD)
  endif()

  # The test file is compiled once and linked against each set of kernels
  # (the solution's or yours, the starter's, every step's mutant).
  course_reference_for(${nn} _reference)  # reference/CMakeLists.txt: the lesson's baselines
  add_library(lesson${nn}_test_objects OBJECT ${_test_src})
  target_link_libraries(lesson${nn}_test_objects PRIVATE ${_reference} course_test_main course_common)
  target_include_directories(lesson${nn}_test_objects PRIVATE "${lesson_dir}")
  target_compile_definitions(lesson${nn}_test_objects PRIVATE COURSE_LESSON=${number})
  course_offload(lesson${nn}_test_objects)

  # The lesson's program. COURSE_KERNELS names whose kernels it runs, so its
  # rows say "yours", "solution" or "starter".
  macro(_course_driver name kernels who)
    set(_driver_srcs ${arg_DRIVER})  # the program: driver/main.cpp and the experiment files beside it
    list(TRANSFORM _driver_srcs PREPEND "${lesson_dir}/")
    add_executable(${name} ${_driver_srcs})
    target_link_libraries(${name} PRIVATE ${kernels} ${_reference} course_common)
    target_compile_definitions(${name} PRIVATE COURSE_KERNELS="${who}")
    # How many speed tests the lesson has, for the program's closing line on
    # what grades its speed (course/results.hpp): common/ knows no lesson.
    file(STRINGS "${_test_src}" _speed_lines REGEX "\\[speedup\\]")
    list(LENGTH _speed_lines _speed_count)
    target_compile_definitions(${name} PRIVATE COURSE_SPEED_TESTS=${_speed_count})
    course_offload(${name})
  endmacro()

  if(COURSE_TRACK STREQUAL "solutions")
    set(_kernel_dir "${solution_dir}")
    set(_who solution)
  else()
    set(_kernel_dir "${lesson_dir}")
    set(_who yours)
  endif()
  course_lesson_kernels(lesson${nn}_kernels ${folder} "${_kernel_dir}" SOURCES ${arg_SOURCES} ${_simd})
  course_lesson_test_program(lesson${nn}_test ${number} lesson${nn}_kernels)
  course_add_catch_tests(lesson${nn}_test "${_test_src}" PREFIX "lesson${number}: " LABELS "${COURSE_TRACK}"
                         FIXTURE "lesson${number}_built")
  set(_all lesson${nn}_test)
  if(arg_DRIVER)
    _course_driver(lesson${nn} lesson${nn}_kernels ${_who})
    list(APPEND _all lesson${nn})
  endif()

  if(COURSE_TRACK STREQUAL "solutions")
    # The untouched starter must fail its lesson's tests; if it ever passes,
    # the lesson teaches nothing and this test goes red.
    course_lesson_kernels(lesson${nn}_starter_kernels ${folder} "${lesson_dir}" SOURCES ${arg_SOURCES} ${_simd})
    course_lesson_test_program(lesson${nn}_starter_test ${number} lesson${nn}_starter_kernels)
    if(arg_DRIVER)
      _course_driver(lesson${nn}_starter lesson${nn}_starter_kernels starter)
    endif()
    course_expect_failure_test("lesson${number}: starter fails" ${number} lesson${nn}_starter_test LABELS starter)
    list(APPEND _all lesson${nn}_starter_test)
    if(arg_DRIVER)
      list(APPEND _all lesson${nn}_starter)
    endif()
    course_add_steps(${number} ${folder} SOURCES ${arg_SOURCES} ${_simd})
    course_add_mistakes(${number} ${folder} SOURCES ${arg_SOURCES} ${_simd})
  endif()

  # "lessonN: given code unchanged": the lesson's given files and the given
  # lines of the student's files (outside the TODO blocks) are as the course
  # gave them (scripts/given.py, tests/given.json). A grader grades the
  # course's copies; this tells the student, in one line each, what a grader
  # will not see. In the solutions track it checks the solutions' given lines.
  add_test(NAME "lesson${number}: given code unchanged"
           COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/scripts/given.py" check "${PROJECT_SOURCE_DIR}"
                   --lesson ${number} --track ${COURSE_TRACK})
  set_tests_properties("lesson${number}: given code unchanged" PROPERTIES
    LABELS "lesson${number};given;${COURSE_TRACK}" TIMEOUT 60)

  # "lessonN: build": ctest -L lessonN first rebuilds the lesson, so the tests
  # grade the code on disk, not the last build. Whatever filter picks a test
  # of the lesson, CTest runs the fixture's setup (this build) first. One
  # build at a time: two ninja runs in one build folder trip over each other.
  add_custom_target(lesson${nn}_all)
  add_dependencies(lesson${nn}_all ${_all})
  add_test(NAME "lesson${number}: build"
           COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target lesson${nn}_all)
  set_tests_properties("lesson${number}: build" PROPERTIES
    LABELS "lesson${number};build" FIXTURES_SETUP "lesson${number}_built"
    RESOURCE_LOCK course_build TIMEOUT ${COURSE_BUILD_TIMEOUT})
endfunction()
