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
include("${CMAKE_CURRENT_LIST_DIR}/CourseMutants.cmake")

#[[ course_add_mistakes(<N> <folder> SOURCES <files...> [EXPLICIT_SIMD])
    Lesson N's catalogue checks (tests/mistakes/lessonNN.toml, if any), for
    the files a student edits; called by course_add_lesson() in the solutions
    track, as course_add_steps(). ]]
function(course_add_mistakes number folder)
  cmake_parse_arguments(arg "EXPLICIT_SIMD" "" "SOURCES" ${ARGN})
  _course_lesson_nn(nn ${number})
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
  set(_deps "${_toml}" "${PROJECT_SOURCE_DIR}/scripts/make_mistakes.py")
  foreach(_s IN LISTS arg_SOURCES)
    list(APPEND _deps "${PROJECT_SOURCE_DIR}/solutions/${folder}/${_s}")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_deps})
  include("${out}/mistakes.cmake")
  set(_simd "")
  if(arg_EXPLICIT_SIMD)
    set(_simd EXPLICIT_SIMD)
  endif()
  set(_targets "")
  foreach(_id IN LISTS COURSE_MISTAKE_IDS)
    course_lesson_mutant(mistake_${_id} ${number} ${folder} "${out}/${_id}" SOURCES ${arg_SOURCES} ${_simd})
    set(_program lesson${nn}_mistake_${_id}_test)
    list(APPEND _targets ${_program})
    set(_what "mistake ${number}.${_id} (${COURSE_MISTAKE_${_id}_TITLE})")
    set(_name "lesson${number}: mistake ${number}.${_id} is caught (${COURSE_MISTAKE_${_id}_TITLE})")
    string(REPLACE ";" "," _name "${_name}")
    if(COURSE_EMULATED AND COURSE_MISTAKE_${_id}_SPEED)
      course_graded_elsewhere_test("${_name}" ${number} mistakes
        "mistake ${number}.${_id} is graded elsewhere: its test is a speed test. ${COURSE_EMULATED_SKIP}")
    elseif(COURSE_MISTAKE_${_id}_RACE)
      _course_race_mistake_test("${_name}" ${number} ${_id} "${_what}")
    else()
      set(_extra "")
      if(COURSE_MISTAKE_${_id}_ELSEWHERE MATCHES "^([a-z]+): *([a-z]+): *(.*)$" AND CMAKE_MATCH_1 STREQUAL COURSE_DEVICE_CLASS)
        set(_extra "-DELSEWHERE=${CMAKE_MATCH_2}: ${CMAKE_MATCH_3}")
      endif()
      course_expect_failure_test("${_name}" ${number} ${_program} BUILD LABELS mistakes
        ARGS "-DWHAT=${_what}" "-DTEST=${COURSE_MISTAKE_${_id}_TEST}" "-DWORDS=${COURSE_MISTAKE_${_id}_WORDS}" ${_extra})
    endif()
  endforeach()
  add_custom_target(lesson${nn}_mistakes)
  if(_targets)
    add_dependencies(lesson${nn}_mistakes ${_targets})
  endif()
endfunction()

# A race: the mutant built in the ThreadSanitizer + Archer build
# (cmake/CourseSanitize.cmake; same sources, host device) runs the test there.
# Reads the entry's COURSE_MISTAKE_<id>_* from course_add_mistakes()'s scope.
function(_course_race_mistake_test name number id what)
  _course_lesson_nn(nn ${number})
  if(COURSE_EMULATED OR NOT COURSE_TSAN_RUNTIME OR NOT EXISTS "${COURSE_LLVM_LIBDIR}/libarcher.so")
    course_graded_elsewhere_test("${name}" ${number} mistakes
      "mistake ${number}.${id} is graded elsewhere: a race, and ThreadSanitizer + Archer cannot run here (emulated, or not installed)")
    return()
  endif()
  set(_dir "${PROJECT_BINARY_DIR}/sanitize-thread")
  file(RELATIVE_PATH _rel "${PROJECT_BINARY_DIR}" "${CMAKE_CURRENT_BINARY_DIR}")
  set(_env ${COURSE_TEST_ENVIRONMENT} ${COURSE_SANITIZE_ENV_thread})
  _course_lesson_tests(_tsrc ${number})
  file(READ "${_tsrc}" _ttext)
  if(_ttext MATCHES "#include \"[^\"]*ompt[^\"]*\"|ompt_start_tool")
    list(APPEND _env "COURSE_OMPT_YIELD=1")  # Archer is the one OMPT tool (see CourseSanitize.cmake)
  endif()
  add_test(NAME "${name}"
           COMMAND "${CMAKE_COMMAND}" -DPROGRAM=${_dir}/${_rel}/lesson${nn}_mistake_${id}_test
                   "-DWHAT=${what}" "-DTEST=${COURSE_MISTAKE_${id}_TEST}" "-DWORDS=${COURSE_MISTAKE_${id}_WORDS}|ThreadSanitizer"
                   -DLESSON=${number} -DTIMEOUT=${COURSE_STEP_TIMEOUT}
                   -DSOURCE=${PROJECT_SOURCE_DIR} -DGENERATOR=${CMAKE_GENERATOR}
                   -DINIT=${PROJECT_BINARY_DIR}/sanitize-thread-init.cmake
                   "-DBUILD=${_dir}" -DBUILD_TARGET=lesson${nn}_mistake_${id}_test
                   -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
  set_tests_properties("${name}" PROPERTIES
    LABELS "mistakes;lesson${number}" ENVIRONMENT "${_env}" RESOURCE_LOCK sanitize-build
    TIMEOUT ${COURSE_BUILD_TIMEOUT})
endfunction()
