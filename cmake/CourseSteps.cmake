# CourseSteps.cmake -- every step graded. For each TODO id of a lesson, the
# solutions track builds the lesson's tests against the solution with that one
# step put back to its starter text (a "mutant", written by
# scripts/make-steps.py at configure time) and adds a CTest test
#   "lessonN: step N.k is graded"   (labels steps;lessonN)
# that passes only when some test of the lesson FAILS for that mutant. A step
# whose undoing no test notices is a step a student could skip.
#
# Cost: the lesson's test file is compiled once (lessonNN_test_objects, shared
# with the solution's and the starter's test programs); each step compiles
# only its mutant kernel file and links. The mutant runs with Catch's --abort,
# so a caught step costs the time to its first failing test.
#
# The mutants are not part of `all`: each step test builds its own first. A
# mutant that does not compile is a step that cannot be left undone on its
# own (a student who stops there gets a compiler error, not a failing test);
# its test fails and says so, and the rest of the course still builds.
include_guard(GLOBAL)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

set(COURSE_STEP_TIMEOUT 240 CACHE STRING
    "Seconds a step's mutant may run before the step check calls it a hang (counted as caught, and reported)")

#[[ course_add_steps(<N> <nn> <folder>)
    Called by course_add_lesson() in the solutions track, in its scope: uses
    its SOURCES (arg_SOURCES), lesson_dir, solution_dir and its helper macros
    _course_kernels() and _course_test_program(). ]]
function(course_add_steps number nn folder)
  set(out "${CMAKE_BINARY_DIR}/steps/${folder}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/make-steps.py" "${PROJECT_SOURCE_DIR}" "${folder}" "${out}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "lesson ${number}: cannot write the step mutants (scripts/make-steps.py):\n${_out}${_err}")
  endif()
  # Editing a block (or the scripts) rewrites the mutants on the next build.
  set(_deps "${PROJECT_SOURCE_DIR}/scripts/make-steps.py" "${PROJECT_SOURCE_DIR}/scripts/check-blocks.py")
  foreach(_s IN LISTS arg_SOURCES)
    list(APPEND _deps "${lesson_dir}/${_s}" "${solution_dir}/${_s}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_deps})
  include("${out}/steps.cmake")

  # A step the lesson's tests cannot catch on this device class, graded by
  # another label instead, is declared in the test file:
  #   // STEP-ELSEWHERE(5.2, host): sanitize: <why>
  # Its step test then reports "skipped" (not passed) when no test fails.
  file(GLOB _test_src "${PROJECT_SOURCE_DIR}/tests/lesson${nn}_*.cpp")
  file(STRINGS "${_test_src}" _elsewhere REGEX "STEP-ELSEWHERE\\(")

  set(_targets "")
  foreach(_step IN LISTS COURSE_STEP_IDS)
    string(REPLACE "." "_" _s "${_step}")
    _course_kernels(lesson${nn}_step${_s}_kernels "${out}/${_step}")
    _course_test_program(lesson${nn}_step${_s}_test lesson${nn}_step${_s}_kernels)
    set_target_properties(lesson${nn}_step${_s}_kernels lesson${nn}_step${_s}_test PROPERTIES EXCLUDE_FROM_ALL ON)
    list(APPEND _targets lesson${nn}_step${_s}_test)
    set(_extra "")
    foreach(_line IN LISTS _elsewhere)
      if(_line MATCHES "STEP-ELSEWHERE\\(([0-9.]+), *([a-z]+)\\): *([A-Za-z0-9_-]+): *(.*)$"
         AND CMAKE_MATCH_1 STREQUAL _step AND CMAKE_MATCH_2 STREQUAL COURSE_DEVICE_CLASS)
        set(_extra "-DELSEWHERE=${CMAKE_MATCH_3}: ${CMAKE_MATCH_4}")
      endif()
    endforeach()
    set(_name "lesson${number}: step ${_step} is graded")
    add_test(NAME "${_name}"
             COMMAND "${CMAKE_COMMAND}" -DPROGRAM=$<TARGET_FILE:lesson${nn}_step${_s}_test> "-DWHAT=step ${_step}"
                     -DLESSON=${number} -DTIMEOUT=${COURSE_STEP_TIMEOUT} -DEMULATED=${COURSE_EMULATED} ${_extra}
                     "-DBUILD=${CMAKE_BINARY_DIR}" -DBUILD_TARGET=lesson${nn}_step${_s}_test
                     -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
    # The build inside the test takes the build lock (see "lessonN: build").
    set_tests_properties("${_name}" PROPERTIES
      LABELS "steps;lesson${number}" ENVIRONMENT "${COURSE_TEST_ENVIRONMENT}" RESOURCE_LOCK course_build
      TIMEOUT ${COURSE_BUILD_TIMEOUT} FIXTURES_REQUIRED "lesson${number}_built"
      SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
  endforeach()
  # Builds every step's mutant (ninja -k 0 goes on past one that fails).
  add_custom_target(lesson${nn}_steps)
  if(_targets)
    add_dependencies(lesson${nn}_steps ${_targets})
  endif()
endfunction()
