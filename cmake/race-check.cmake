# race-check.cmake -- "lessonN: no data races (ThreadSanitizer + Archer)":
# run the lesson's instrumented test program and say what a failure IS.
#   cmake -DPROGRAM=<instrumented test program> -DFILTER=<Catch filter>
#         -DLESSON=<N> -DTIMEOUT=<s> -P race-check.cmake
# The run environment (TSAN_OPTIONS with halt_on_error, Archer, threads per
# team) comes from the CTest test (cmake/CourseSanitize.cmake).
# Three outcomes, each named in the last line a student reads:
#   DATA RACE     ThreadSanitizer reported one: fail, with both accesses' lines
#   NOT A RACE    the program failed (a wrong answer, a crash, a hang) and
#                 ThreadSanitizer reported nothing: fail, and point at the
#                 lesson's own test that says what is wrong (a race test
#                 failing for a wrong answer must not look like a race)
#   no data race  pass
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 1500)
endif()
execute_process(COMMAND "${PROGRAM}" "${FILTER}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT ${TIMEOUT})
set(all "${out}\n${err}")

if(all MATCHES "WARNING: ThreadSanitizer|ThreadSanitizer: reported|ThreadSanitizer: [a-z]")
  # TSan's report: "  Write of size 4 at 0x... by thread T2:" then "    #0 fn file:line".
  # The first frame of each access is where the student looks.
  string(REGEX MATCHALL "\n  (Previous )?([Aa]tomic )?([Ww]rite|[Rr]ead)[^\n]*\n[^\n]*#0 [^\n]*" accesses "${err}")
  set(where "")
  foreach(a IN LISTS accesses)
    # "    #0 <function> <file>:<line>:<col> (<module>+0x...)": the line, then the function.
    string(REGEX MATCH "^\n  ([^\n]*)\n *#0 (.*) ([^ ]+:[0-9]+(:[0-9]+)?)" _m "${a}")
    if(_m)
      string(APPEND where "\n    ${CMAKE_MATCH_1}\n      at ${CMAKE_MATCH_3}\n      in ${CMAKE_MATCH_2}")
    endif()
  endforeach()
  string(REGEX MATCH "SUMMARY: ThreadSanitizer: [^\n]*" summary "${err}")
  message("${out}\n${err}")
  message(FATAL_ERROR "DATA RACE in lesson ${LESSON}: ThreadSanitizer (with Archer, which knows what OpenMP's "
    "barriers, atomics, tasks and teams order) saw two threads of one run touch the same memory, one of them "
    "writing, with nothing ordering the two. This is a data race whatever the answer was: it loses updates only "
    "now and then, so a correctness test may pass with it.\n  ${summary}${where}\n"
    "  Look at both lines: which variable do the threads share, and what should order them (a barrier, an "
    "atomic, a reduction, a private copy, a depend)?")
endif()

if(rc STREQUAL "0")
  string(REGEX MATCH "All tests passed[^\n]*" passed "${out}")
  message("no data race: ThreadSanitizer + Archer watched lesson ${LESSON}'s tests \"${FILTER}\" (${passed})")
  return()
endif()

# Not a race: say which test failed and how, from Catch's console report.
set(first "")
# (A long name wraps onto a second line.)
string(REGEX MATCH "-----\n(([^\n-][^\n]*\n)+)-----[^\n]*\n[^\n]*\n[.]+\n+[^\n]*FAILED:\n(([^\n]+\n)+)" m "${out}")
if(m)
  set(name "${CMAKE_MATCH_1}")
  set(msg "${CMAKE_MATCH_3}")
  string(STRIP "${name}" name)
  string(REGEX REPLACE "\n *" " " name "${name}")
  string(STRIP "${msg}" msg)
  string(REGEX REPLACE "\n[ ]*" "\n      " msg "${msg}")
  set(first "\n  test \"${name}\" fails:\n      ${msg}")
endif()
if(rc MATCHES "timeout|[Tt]erminated|killed")
  set(how "did not finish in ${TIMEOUT} s (${rc}); instrumented code runs 5-15x slower, so a hang or a far too slow loop")
else()
  set(how "failed (exit ${rc})")
endif()
message("${out}\n${err}")
message(FATAL_ERROR "NOT A RACE: ThreadSanitizer reported no data race in lesson ${LESSON}; its instrumented tests "
  "${how} for another reason, such as a wrong answer or a crash.${first}\n"
  "  The same test in `ctest -L lesson${LESSON}` (without ThreadSanitizer) says what is wrong; fix that first, and "
  "this check passes again with it.")
