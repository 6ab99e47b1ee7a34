# CourseMutants.cmake -- what the steps (cmake/CourseSteps.cmake) and the
# catalogue of mistakes (cmake/CourseMistakes.cmake) share: a lesson's tests
# built against a changed copy of the solution (a "mutant"), and a CTest test
# that passes only when that test program FAILS (cmake/expect-failure.cmake).
# The untouched starter's check ("lessonN: starter fails") is such a test too.
include_guard(GLOBAL)

#[[ course_lesson_mutant(<stem> <N> <folder> <dir> SOURCES <files...> [EXPLICIT_SIMD])
    lessonNN_<stem>_kernels (the SOURCES taken from <dir>) and
    lessonNN_<stem>_test (lesson N's tests against them), both left out of
    `all`: the test that checks the mutant builds it first. Where a student
    edits several files (lesson 11), a mutant changes one or some: a file of
    <dir> that is the solution's, byte for byte, is compiled from solutions/
    instead, so that a compiler cache (ccache) serves it from the solution's
    build and each mutant costs the files it changes. ]]
function(course_lesson_mutant stem number folder dir)
  cmake_parse_arguments(arg "EXPLICIT_SIMD" "" "SOURCES" ${ARGN})
  _course_lesson_nn(nn ${number})
  set(_srcs "")
  foreach(_s IN LISTS arg_SOURCES)
    set(_sol "${PROJECT_SOURCE_DIR}/solutions/${folder}/${_s}")
    set(_same OFF)
    if(EXISTS "${dir}/${_s}" AND EXISTS "${_sol}")
      file(READ "${dir}/${_s}" _mine)
      file(READ "${_sol}" _theirs)
      if(_mine STREQUAL _theirs)
        set(_same ON)
      endif()
    endif()
    if(_same)
      list(APPEND _srcs "${_sol}")
    else()
      list(APPEND _srcs "${_s}")
    endif()
  endforeach()
  set(_simd "")
  if(arg_EXPLICIT_SIMD)
    set(_simd EXPLICIT_SIMD)
  endif()
  course_lesson_kernels(lesson${nn}_${stem}_kernels ${folder} "${dir}" SOURCES ${_srcs} ${_simd})
  course_lesson_test_program(lesson${nn}_${stem}_test ${number} lesson${nn}_${stem}_kernels)
  set_target_properties(lesson${nn}_${stem}_kernels lesson${nn}_${stem}_test PROPERTIES EXCLUDE_FROM_ALL ON)
endfunction()

#[[ course_expect_failure_test(<name> <N> <program> LABELS <labels...> [BUILD] [ARGS <-Dvar=value...>])
    The test <name> runs <program> (a target: lesson N's tests against a
    starter or a mutant) through cmake/expect-failure.cmake and passes only if
    some test of it fails. ARGS: more of that script's variables (WHAT, TEST,
    WORDS, ELSEWHERE). BUILD: the test builds <program> first (a mutant is not
    part of `all`) under the build lock, and gives it COURSE_STEP_TIMEOUT.
    Without BUILD (the starter, built by "lessonN: build"): the test's own
    timeout less 20 s, so that it gives its verdict before CTest's. The labels
    get lessonN; "is graded elsewhere:" in the output reports it skipped. ]]
function(course_expect_failure_test name number program)
  cmake_parse_arguments(arg "BUILD" "" "LABELS;ARGS" ${ARGN})
  set(_props "")
  if(arg_BUILD)
    set(_run_timeout ${COURSE_STEP_TIMEOUT})
    list(APPEND arg_ARGS "-DBUILD=${CMAKE_BINARY_DIR}" "-DBUILD_TARGET=${program}")
    # The build inside the test takes the build lock (see "lessonN: build").
    set(_props RESOURCE_LOCK course_build TIMEOUT ${COURSE_BUILD_TIMEOUT})
  else()
    math(EXPR _run_timeout "${COURSE_TEST_TIMEOUT} - 20")
    set(_props TIMEOUT ${COURSE_TEST_TIMEOUT})
  endif()
  add_test(NAME "${name}"
           COMMAND "${CMAKE_COMMAND}" -DPROGRAM=$<TARGET_FILE:${program}> ${arg_ARGS}
                   -DLESSON=${number} -DTIMEOUT=${_run_timeout} -DEMULATED=${COURSE_EMULATED}
                   -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
  set_tests_properties("${name}" PROPERTIES
    LABELS "${arg_LABELS};lesson${number}" ENVIRONMENT "${COURSE_TEST_ENVIRONMENT}" ${_props}
    FIXTURES_REQUIRED "lesson${number}_built" SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
endfunction()

#[[ course_graded_elsewhere_test(<name> <N> <label> <why>)
    A check that cannot run here, reported skipped by CTest with <why>
    (which must hold "is graded elsewhere:"), never passed silently. ]]
function(course_graded_elsewhere_test name number label why)
  add_test(NAME "${name}" COMMAND "${CMAKE_COMMAND}" -E echo "${why}")
  set_tests_properties("${name}" PROPERTIES LABELS "${label};lesson${number}"
                       SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
endfunction()
