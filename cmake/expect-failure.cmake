# expect-failure.cmake -- run a test program that must FAIL some test, and
# pass only if it does.
#   cmake -DPROGRAM=<test program> [-DWHAT=<what it grades>] [-DLESSON=<N>] [-DTIMEOUT=<s>]
#         [-DBUILD=<build folder> -DBUILD_TARGET=<target>] [-DELSEWHERE=<label: why>] [-DEMULATED=ON]
#         -P expect-failure.cmake
# EMULATED: the CPU is emulated (qemu-user), so speed means nothing: the
# program runs without its [speedup] tests, and a starter or step that only
# those tests catch is reported skipped ("graded elsewhere"), not passed.
# BUILD_TARGET: build the program first (a step's mutant is not part of `all`).
# WHAT unset: the untouched starter (lessonN: starter fails). Every test runs
# and the summary lists what fails; a crash or a clean pass fail this check.
# WHAT "step N.k": the solution with step N.k put back to its starter text
# (cmake/CourseSteps.cmake). The run stops at the first failing test
# (--abort); a crash or a hang also counts as caught, and is reported as such.
# INIT (with SOURCE, GENERATOR): BUILD is an instrumented build that may not
# be configured yet (cmake/CourseSanitize.cmake); configure it first.
if(DEFINED INIT AND NOT EXISTS "${BUILD}/CMakeCache.txt")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BUILD}" -G "${GENERATOR}" -C "${INIT}"
                  RESULT_VARIABLE crc OUTPUT_VARIABLE cout ERROR_VARIABLE cerr)
  if(NOT crc EQUAL 0)
    file(REMOVE "${BUILD}/CMakeCache.txt")
    message(FATAL_ERROR "configuring the instrumented build ${BUILD} failed:\n${cout}\n${cerr}")
  endif()
endif()
if(DEFINED BUILD_TARGET)
  execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD}" --target "${BUILD_TARGET}"
                  RESULT_VARIABLE brc OUTPUT_VARIABLE bout ERROR_VARIABLE berr)
  if(NOT brc EQUAL 0)
    string(REGEX MATCHALL "[^\n]*error[^\n]*" errs "${bout}${berr}")
    list(SUBLIST errs 0 8 errs)
    string(REPLACE ";" "\n  " errs "${errs}")
    message(FATAL_ERROR "${WHAT} cannot be left undone on its own: the solution with only this step put back "
      "to its starter text does not compile, so a student who stops here gets a compiler error instead of a "
      "failing test. Make the steps independent (docs/DEVELOPING.md, 'Every step graded'):\n  ${errs}")
  endif()
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 280)
endif()
# TEST (a mistake of the catalogue, cmake/CourseMistakes.cmake): only that
# test runs; it must fail, and its output must hold each of WORDS (a list
# separated by |, matched without regard to case).
set(args --order decl)
if(DEFINED TEST)
  set(args "${TEST}")
elseif(EMULATED)
  list(APPEND args "~[speedup]")
endif()
if(DEFINED WHAT)
  list(APPEND args --abort)
else()
  set(WHAT "the untouched starter")
endif()
execute_process(COMMAND "${PROGRAM}" ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT ${TIMEOUT})
string(APPEND out "\n${err}")

# Catch's console report: a rule of dashes, the test's name, another rule; then
# "FAILED:" and the message. The first failing test and its first message:
set(first "")
string(REGEX MATCH "-----\n([^\n]+)\n-----[^\n]*\n[^\n]*\n[.]+\n+[^\n]*FAILED:\n(([^\n]+\n)+)" m "${out}")
if(m)
  set(name "${CMAKE_MATCH_1}")
  string(STRIP "${CMAKE_MATCH_2}" msg)
  string(REGEX REPLACE "\n[ ]*" "\n    " msg "${msg}")
  set(first "test \"${name}\" fails:\n    ${msg}")
endif()
string(REGEX MATCH "CRASH: [^\n]*" crash "${out}")
string(REGEX MATCHALL "[^\n]*(failed|FAILED|faster than|slower)[^\n]*" lines "${out}")
list(LENGTH lines n)
if(n GREATER 12)
  list(SUBLIST lines 0 12 lines)
endif()
string(REPLACE ";" "\n  " lines "${lines}")

if(WHAT STREQUAL "the untouched starter")
  if(crash)
    message(FATAL_ERROR "the starter's test program crashed: ${crash}\n  ${lines}")
  elseif(rc MATCHES "^[0-9]+$" AND rc GREATER 0 AND rc LESS 255)
    message("starter fails as it should (exit ${rc}); what it fails:\n  ${lines}")
  elseif(rc STREQUAL "0" AND EMULATED)
    message("the untouched starter is graded elsewhere: it passes every correctness test of lesson ${LESSON}, and only "
      "its speed tests fail it, which an emulator cannot run (run on a real machine of this CPU to see it fail)")
  elseif(rc STREQUAL "0")
    message(FATAL_ERROR "the untouched starter PASSES every test of its lesson: the lesson no longer grades anything. Make a starter test fail again.")
  else()
    message(FATAL_ERROR "the starter's test program did not finish normally (${rc}):\n${err}\n  ${lines}")
  endif()
  return()
endif()

if(DEFINED TEST AND rc STREQUAL "0" AND DEFINED ELSEWHERE)
  message("${WHAT} is graded elsewhere: ${ELSEWHERE}\n  (test \"${TEST}\" passes with it on this device class)")
  return()
elseif(DEFINED TEST AND rc STREQUAL "0")
  message(FATAL_ERROR "${WHAT} is NOT caught: test \"${TEST}\" passes with it. A student who makes this mistake "
    "is told nothing: make the test see it (tests/mistakes/lesson*.toml names the test and the words).")
elseif(DEFINED TEST AND NOT crash AND NOT rc MATCHES "timeout")
  string(TOLOWER "${out}" _low)
  string(REPLACE "|" ";" _words "${WORDS}")
  set(_missing "")
  foreach(_w IN LISTS _words)
    string(TOLOWER "${_w}" _lw)
    string(FIND "${_low}" "${_lw}" _at)
    if(_at EQUAL -1)
      list(APPEND _missing "\"${_w}\"")
    endif()
  endforeach()
  if(_missing)
    string(REPLACE ";" ", " _missing "${_missing}")
    message(FATAL_ERROR "${WHAT}: test \"${TEST}\" fails, but its message does not name the mistake: "
      "it lacks ${_missing}.\n  ${first}\n  ${lines}")
  endif()
endif()
if(first)
  message("${WHAT} is caught: ${first}")
elseif(crash)
  message("${WHAT} is caught, by a CRASH rather than a failing test (a student would see this):\n  ${crash}")
elseif(rc MATCHES "timeout")
  message("${WHAT} is caught, by a HANG: the tests did not finish in ${TIMEOUT} s (${rc})")
elseif(rc STREQUAL "0" AND EMULATED)
  message("${WHAT} is graded elsewhere: only lesson ${LESSON}'s speed tests catch it, and an emulator cannot run "
    "them (every correctness test passes without it; run on a real machine of this CPU to see it caught)")
elseif(rc STREQUAL "0" AND DEFINED ELSEWHERE)
  # SKIP_REGULAR_EXPRESSION of the step test: CTest reports it skipped, not passed.
  message("${WHAT} is graded elsewhere: ${ELSEWHERE}\n  (every test of lesson ${LESSON} passes without it on this device class)")
elseif(rc STREQUAL "0")
  message(FATAL_ERROR "${WHAT} is NOT graded: with its block put back to the starter text, every test of lesson ${LESSON} passes. "
    "Add a test that fails when the step is left undone (docs/DEVELOPING.md, 'Every step graded').")
elseif(rc MATCHES "^[0-9]+$" AND rc GREATER 0 AND rc LESS 255)
  message("${WHAT} is caught (exit ${rc}):\n  ${lines}")
else()
  message(FATAL_ERROR "${WHAT}: the test program did not finish normally (${rc}) and no test failed:\n${out}")
endif()
