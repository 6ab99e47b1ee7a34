# CourseMistakes.cmake -- the catalogue of common mistakes (label `mistakes`).
# For each entry of tests/mistakes/lessonNN.toml the solutions track builds
# the lesson's tests against the solution with that mistake made (a mutant
# written by scripts/make_mistakes.py at configure time) and adds a test
#   "lessonN: mistake N.x is caught (<title>)"   (labels mistakes;lessonN)
# that passes only when the entry's test FAILS and its message holds the
# entry's words: a student who makes the mistake is told what it was.
# Costs as for the steps (cmake/CourseSteps.cmake): each mutant compiles only
# its kernel file and links; it is not part of `all`.
include_guard(GLOBAL)

#[[ course_add_mistakes(<N> <nn> <folder>)
    Called by course_add_lesson() in the solutions track, as course_add_steps(). ]]
function(course_add_mistakes number nn folder)
  set(_toml "${PROJECT_SOURCE_DIR}/tests/mistakes/lesson${nn}.toml")
  if(NOT EXISTS "${_toml}")
    return()
  endif()
  set(out "${CMAKE_BINARY_DIR}/mistakes/${folder}")
  execute_process(
    COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/make_mistakes.py" "${PROJECT_SOURCE_DIR}" "${folder}" "${out}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "lesson ${number}: cannot write the mistakes' mutants (scripts/make_mistakes.py):\n${_out}${_err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_toml}"
               "${PROJECT_SOURCE_DIR}/scripts/make_mistakes.py" "${solution_dir}/${arg_SOURCES}")
  include("${out}/mistakes.cmake")
  set(_targets "")
  foreach(_id IN LISTS COURSE_MISTAKE_IDS)
    _course_kernels(lesson${nn}_mistake_${_id}_kernels "${out}/${_id}")
    _course_test_program(lesson${nn}_mistake_${_id}_test lesson${nn}_mistake_${_id}_kernels)
    set_target_properties(lesson${nn}_mistake_${_id}_kernels lesson${nn}_mistake_${_id}_test PROPERTIES EXCLUDE_FROM_ALL ON)
    list(APPEND _targets lesson${nn}_mistake_${_id}_test)
    set(_extra "")
    if(COURSE_MISTAKE_${_id}_ELSEWHERE MATCHES "^([a-z]+): *([a-z]+): *(.*)$" AND CMAKE_MATCH_1 STREQUAL COURSE_DEVICE_CLASS)
      set(_extra "-DELSEWHERE=${CMAKE_MATCH_2}: ${CMAKE_MATCH_3}")
    endif()
    set(_name "lesson${number}: mistake ${number}.${_id} is caught (${COURSE_MISTAKE_${_id}_TITLE})")
    string(REPLACE ";" "," _name "${_name}")
    if(COURSE_EMULATED AND COURSE_MISTAKE_${_id}_SPEED)
      add_test(NAME "${_name}" COMMAND "${CMAKE_COMMAND}" -E echo
               "mistake ${number}.${_id} is graded elsewhere: its test is a speed test. ${COURSE_EMULATED_SKIP}")
      set_tests_properties("${_name}" PROPERTIES LABELS "mistakes;lesson${number}" SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
      continue()
    endif()
    if(COURSE_MISTAKE_${_id}_RACE)
      # A race: the mutant built in the ThreadSanitizer + Archer build
      # (cmake/CourseSanitize.cmake; same sources, host device) runs the test there.
      if(COURSE_EMULATED OR NOT COURSE_TSAN_RUNTIME OR NOT EXISTS "${COURSE_LLVM_LIBDIR}/libarcher.so")
        add_test(NAME "${_name}" COMMAND "${CMAKE_COMMAND}" -E echo
                 "mistake ${number}.${_id} is graded elsewhere: a race, and ThreadSanitizer + Archer cannot run here (emulated, or not installed)")
        set_tests_properties("${_name}" PROPERTIES LABELS "mistakes;lesson${number}" SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
        continue()
      endif()
      set(_dir "${PROJECT_BINARY_DIR}/sanitize-thread")
      file(RELATIVE_PATH _rel "${PROJECT_BINARY_DIR}" "${CMAKE_CURRENT_BINARY_DIR}")
      set(_env ${COURSE_TEST_ENVIRONMENT} ${COURSE_SANITIZE_ENV_thread})
      file(GLOB _tsrc "${PROJECT_SOURCE_DIR}/tests/lesson${nn}_*.cpp")
      file(READ "${_tsrc}" _ttext)
      if(_ttext MATCHES "#include \"[^\"]*ompt[^\"]*\"|ompt_start_tool")
        list(APPEND _env "COURSE_OMPT_YIELD=1")  # Archer is the one OMPT tool (see CourseSanitize.cmake)
      endif()
      add_test(NAME "${_name}"
               COMMAND "${CMAKE_COMMAND}" -DPROGRAM=${_dir}/${_rel}/lesson${nn}_mistake_${_id}_test
                       "-DWHAT=mistake ${number}.${_id} (${COURSE_MISTAKE_${_id}_TITLE})"
                       "-DTEST=${COURSE_MISTAKE_${_id}_TEST}" "-DWORDS=${COURSE_MISTAKE_${_id}_WORDS}|ThreadSanitizer"
                       -DLESSON=${number} -DTIMEOUT=${COURSE_STEP_TIMEOUT}
                       -DSOURCE=${PROJECT_SOURCE_DIR} -DGENERATOR=${CMAKE_GENERATOR}
                       -DINIT=${PROJECT_BINARY_DIR}/sanitize-thread-init.cmake
                       "-DBUILD=${_dir}" -DBUILD_TARGET=lesson${nn}_mistake_${_id}_test
                       -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
      set_tests_properties("${_name}" PROPERTIES
        LABELS "mistakes;lesson${number}" ENVIRONMENT "${_env}" RESOURCE_LOCK sanitize-build
        TIMEOUT ${COURSE_BUILD_TIMEOUT})
      continue()
    endif()
    add_test(NAME "${_name}"
             COMMAND "${CMAKE_COMMAND}" -DPROGRAM=$<TARGET_FILE:lesson${nn}_mistake_${_id}_test>
                     "-DWHAT=mistake ${number}.${_id} (${COURSE_MISTAKE_${_id}_TITLE})"
                     "-DTEST=${COURSE_MISTAKE_${_id}_TEST}" "-DWORDS=${COURSE_MISTAKE_${_id}_WORDS}"
                     -DLESSON=${number} -DTIMEOUT=${COURSE_STEP_TIMEOUT} -DEMULATED=${COURSE_EMULATED} ${_extra}
                     "-DBUILD=${CMAKE_BINARY_DIR}" -DBUILD_TARGET=lesson${nn}_mistake_${_id}_test
                     -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
    set_tests_properties("${_name}" PROPERTIES
      LABELS "mistakes;lesson${number}" ENVIRONMENT "${COURSE_TEST_ENVIRONMENT}" RESOURCE_LOCK course_build
      TIMEOUT ${COURSE_BUILD_TIMEOUT} FIXTURES_REQUIRED "lesson${number}_built"
      SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
  endforeach()
  add_custom_target(lesson${nn}_mistakes)
  if(_targets)
    add_dependencies(lesson${nn}_mistakes ${_targets})
  endif()
endfunction()
