# CourseSteps.cmake -- every step graded. For each TODO id of a lesson, the
# solutions track builds the lesson's tests against the solution with that one
# step put back to its starter text (a "mutant", written by
# scripts/make_steps.py at configure time) and adds a CTest test
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
include("${CMAKE_CURRENT_LIST_DIR}/CourseMutants.cmake")
find_package(Python3 REQUIRED COMPONENTS Interpreter)

#[[ course_add_steps(<N> <folder> SOURCES <files...> [EXPLICIT_SIMD])
    Lesson N's step checks, for the files a student edits (SOURCES, as given
    to course_add_lesson(), which calls this in the solutions track). ]]
function(course_add_steps number folder)
  cmake_parse_arguments(arg "EXPLICIT_SIMD" "" "SOURCES" ${ARGN})
  _course_lesson_nn(nn ${number})
  set(out "${CMAKE_BINARY_DIR}/steps/${folder}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/make_steps.py" "${PROJECT_SOURCE_DIR}" "${folder}" "${out}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "lesson ${number}: cannot write the step mutants (scripts/make_steps.py):\n${_out}${_err}")
  endif()
  # Editing a block (or the scripts) rewrites the mutants on the next build.
  set(_deps "${PROJECT_SOURCE_DIR}/scripts/make_steps.py" "${PROJECT_SOURCE_DIR}/scripts/check_blocks.py")
  foreach(_s IN LISTS arg_SOURCES)
    list(APPEND _deps "${PROJECT_SOURCE_DIR}/lessons/${folder}/${_s}" "${PROJECT_SOURCE_DIR}/solutions/${folder}/${_s}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_deps})
  include("${out}/steps.cmake")

  # A step the lesson's tests cannot catch on this device class, graded by
  # another label instead, is declared in the test file:
  #   // STEP-ELSEWHERE(5.2, host): sanitize: <why>
  # Its step test then reports "skipped" (not passed) when no test fails.
  _course_lesson_tests(_test_src ${number})
  file(STRINGS "${_test_src}" _elsewhere REGEX "STEP-ELSEWHERE\\(")
  set(_simd "")
  if(arg_EXPLICIT_SIMD)
    set(_simd EXPLICIT_SIMD)
  endif()

  set(_targets "")
  foreach(_step IN LISTS COURSE_STEP_IDS)
    string(REPLACE "." "_" _s "${_step}")
    course_lesson_mutant(step${_s} ${number} ${folder} "${out}/${_step}" SOURCES ${arg_SOURCES} ${_simd})
    list(APPEND _targets lesson${nn}_step${_s}_test)
    set(_extra "")
    foreach(_line IN LISTS _elsewhere)
      if(_line MATCHES "STEP-ELSEWHERE\\(([0-9.]+), *([a-z]+)\\): *([A-Za-z0-9_-]+): *(.*)$"
         AND CMAKE_MATCH_1 STREQUAL _step AND CMAKE_MATCH_2 STREQUAL COURSE_DEVICE_CLASS)
        set(_extra "-DELSEWHERE=${CMAKE_MATCH_3}: ${CMAKE_MATCH_4}")
      endif()
    endforeach()
    course_expect_failure_test("lesson${number}: step ${_step} is graded" ${number} lesson${nn}_step${_s}_test
                               BUILD LABELS steps ARGS "-DWHAT=step ${_step}" ${_extra})
  endforeach()
  # Builds every step's mutant (ninja -k 0 goes on past one that fails).
  add_custom_target(lesson${nn}_steps)
  if(_targets)
    add_dependencies(lesson${nn}_steps ${_targets})
  endif()
endfunction()
