# sanitize-build.cmake -- the fixture of the sanitize tests: configure (once)
# and build the instrumented test programs in their own build folder, from the
# sources on disk, so `ctest -L sanitize` always checks the current code.
#   cmake -DSOURCE=<src> -DBINARY=<dir> -DGENERATOR=<gen> -DINIT=<initial cache>
#         -DTARGETS=<t1;t2;...> -P sanitize-build.cmake
if(NOT EXISTS "${BINARY}/CMakeCache.txt")
  message("configuring the instrumented build in ${BINARY} (once)")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${BINARY}" -G "${GENERATOR}" -C "${INIT}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    file(REMOVE "${BINARY}/CMakeCache.txt")  # configure again next time
    message(FATAL_ERROR "configuring ${BINARY} failed:\n${out}\n${err}")
  endif()
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BINARY}" --target ${TARGETS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the instrumented test programs in ${BINARY} failed:\n${out}\n${err}")
endif()
message("instrumented test programs up to date in ${BINARY}")
