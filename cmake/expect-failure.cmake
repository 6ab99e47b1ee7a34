# expect-failure.cmake -- run a starter's test program and pass only if it
# fails some test the ordinary way (Catch exit status 1..254). A crash or a
# clean pass both fail this check, with the program's summary printed.
#   cmake -DPROGRAM=<test program> -P expect-failure.cmake
execute_process(COMMAND "${PROGRAM}" --reporter compact
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "[^\n]*(failed|FAILED|faster than|slower)[^\n]*" lines "${out}")
list(LENGTH lines n)
if(n GREATER 12)
  list(SUBLIST lines 0 12 lines)
endif()
string(REPLACE ";" "\n  " lines "${lines}")
if(rc MATCHES "^[0-9]+$" AND rc GREATER 0 AND rc LESS 255)
  message("starter fails as it should (exit ${rc}); what it fails:\n  ${lines}")
elseif(rc STREQUAL "0")
  message(FATAL_ERROR "the untouched starter PASSES every test of its lesson: the lesson no longer grades anything. Make a starter test fail again.")
else()
  message(FATAL_ERROR "the starter's test program did not finish normally (${rc}):\n${err}\n  ${lines}")
endif()
