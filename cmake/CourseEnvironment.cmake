# CourseEnvironment.cmake -- what a course program runs with, written down once.
#
# The run environment is defined in the one block below; the device facts in
# cmake/CourseToolchain.cmake. course_write_environment() (called by
# cmake/Course.cmake after cmake/CourseSanitize.cmake has added its part)
# writes both, at configure time, into the build folder for every reader:
#
#   <build>/generated/course/config.hpp  C++: device macros, the environment
#                                        (course_offload() -includes it)
#   <build>/course-env.json              Python: report/report.py's child_env()
#   <build>/course-env.sh                shells: `. build/course-env.sh` before
#                                        running a program by hand
#
# and sets COURSE_TEST_ENVIRONMENT, the ENVIRONMENT of every CTest test.
include_guard(GLOBAL)

# --- the run environment: NAME=VALUE ------------------------------------------
# OMP_TARGET_OFFLOAD=MANDATORY: a kernel that would quietly fall back to the
# host fails instead.
set(COURSE_RUN_ENVIRONMENT "OMP_TARGET_OFFLOAD=MANDATORY")
# On the host device, `target ... nowait` tasks must not run on LLVM 19's
# hidden helper threads: a host-device kernel forks its teams there, and a
# task created meanwhile can get no task team ("Assertion failure at
# kmp_tasking.cpp(4368): task_team != __null", about 1 pipeline in 100,
# measured with lesson 9). With hidden helpers off, such tasks are ordinary
# tasks of the enclosing parallel region (3000 pipelines, no failure).
# libomp reads it before main (measured with clang 19: after a setenv() at
# the top of main the 8 helper threads still start), so whoever starts the
# program sets it. The cost: a `nowait` kernel outside a parallel region then
# runs to its end before the next line, so a missing `depend` cannot show.
# A test that grades an order runs itself again with the helpers on
# (course_test::run_self with LIBOMP_USE_HIDDEN_HELPER_TASK=1: lesson 13's
# hand-off; lessons 5 and 6 do so for 64 threads per team).
if(COURSE_DEVICE_CLASS STREQUAL "host")
  list(APPEND COURSE_RUN_ENVIRONMENT "LIBOMP_USE_HIDDEN_HELPER_TASK=0")
endif()
# Directories put first on a path variable: NAME=DIR. LD_LIBRARY_PATH: LLVM
# 19's offload runtime finds the host runtime for OMPT by dlopen("libomp.so")
# from libLLVM, whose RUNPATH does not reach COURSE_LLVM_LIBDIR; without it no
# OMPT tool ever hears of a kernel or a copy (a fresh Debian 12 has libomp.so
# only there). The loader reads it at start, so it too comes from outside.
set(COURSE_RUN_PATHS "LD_LIBRARY_PATH=${COURSE_LLVM_LIBDIR}")

# --- written out --------------------------------------------------------------
set(COURSE_GENERATED_INCLUDE "${CMAKE_BINARY_DIR}/generated")
set(COURSE_CONFIG_HEADER "${COURSE_GENERATED_INCLUDE}/course/config.hpp")
set(COURSE_ENV_SCRIPT "${CMAKE_BINARY_DIR}/course-env.sh")

# _course_escape(<var> <text> <style>): <text> as the inside of a C or JSON
# string (style c/json: backslash and double quote escaped) or of a shell
# single-quoted string (style sh).
function(_course_escape var text style)
  if(style STREQUAL "sh")
    string(REPLACE "'" "'\\''" text "${text}")
  else()
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
  endif()
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

#[[ course_write_environment()
    Writes config.hpp, course-env.json and course-env.sh from the device facts,
    COURSE_RUN_ENVIRONMENT and COURSE_RUN_PATHS, and sets COURSE_TEST_ENVIRONMENT
    (the same, for CTest's ENVIRONMENT) in the caller's scope. ]]
function(course_write_environment)
  set(_test_env ${COURSE_RUN_ENVIRONMENT})
  set(_json_env "")
  set(_json_paths "")
  set(_sh "")
  foreach(_entry IN LISTS COURSE_RUN_ENVIRONMENT)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${_entry}")
    _course_escape(_j "${CMAKE_MATCH_2}" json)
    _course_escape(_s "${CMAKE_MATCH_2}" sh)
    list(APPEND _json_env "\"${CMAKE_MATCH_1}\": \"${_j}\"")
    string(APPEND _sh "export ${CMAKE_MATCH_1}='${_s}'\n")
  endforeach()
  foreach(_entry IN LISTS COURSE_RUN_PATHS)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${_entry}")
    set(_name "${CMAKE_MATCH_1}")
    set(_dir "${CMAKE_MATCH_2}")
    # CTest: the directory before what the variable held when CMake ran.
    if("$ENV{${_name}}" STREQUAL "")
      list(APPEND _test_env "${_name}=${_dir}")
    else()
      list(APPEND _test_env "${_name}=${_dir}:$ENV{${_name}}")
    endif()
    _course_escape(_j "${_dir}" json)
    _course_escape(_s "${_dir}" sh)
    list(APPEND _json_paths "\"${_name}\": \"${_j}\"")
    # Sourcing twice adds it once.
    string(APPEND _sh "case \":\${${_name}:-}:\" in *':${_s}:'*) ;; *) export ${_name}='${_s}'\"\${${_name}:+:\$${_name}}\" ;; esac\n")
  endforeach()

  # C++: one ;-separated string each (the values hold no ';').
  _course_escape(COURSE_CONFIG_RUN_ENVIRONMENT "${COURSE_RUN_ENVIRONMENT}" c)
  _course_escape(COURSE_CONFIG_RUN_PATHS "${COURSE_RUN_PATHS}" c)
  if(COURSE_DEVICE_CLASS STREQUAL "gpu")
    set(COURSE_CONFIG_GPU_LINE "#define COURSE_DEVICE_GPU 1")
  else()
    set(COURSE_CONFIG_GPU_LINE "// (COURSE_DEVICE_GPU is not defined: the host device)")
  endif()
  configure_file("${CMAKE_CURRENT_FUNCTION_LIST_DIR}/config.hpp.in" "${COURSE_CONFIG_HEADER}" @ONLY)

  string(REPLACE ";" ",\n    " _json_env "${_json_env}")
  string(REPLACE ";" ",\n    " _json_paths "${_json_paths}")
  _course_escape(_script "${COURSE_ENV_SCRIPT}" json)
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/course-env.json" @ONLY CONTENT [=[{
  "generated_by": "cmake/CourseEnvironment.cmake (do not edit; configure again to change)",
  "device": {
    "kind": "@COURSE_DEVICE_KIND@",
    "class": "@COURSE_DEVICE_CLASS@",
    "triple": "@COURSE_DEVICE_TRIPLE@",
    "arch": "@COURSE_DEVICE_ARCH@"
  },
  "nvptx_check": {"triple": "@COURSE_NVPTX_TRIPLE@", "arch": "@COURSE_NVPTX_CHECK_ARCH@"},
  "environment": {
    @_json_env@
  },
  "paths_first": {
    @_json_paths@
  },
  "shell": "@_script@"
}
]=])
  file(CONFIGURE OUTPUT "${COURSE_ENV_SCRIPT}" @ONLY CONTENT [=[# course-env.sh -- the environment the course's tests run with, for a program
# run by hand:  . @CMAKE_BINARY_DIR@/course-env.sh
# Device @COURSE_DEVICE_KIND@ (@COURSE_DEVICE_CLASS@). GENERATED by cmake/CourseEnvironment.cmake: do not edit.
@_sh@]=])
  set(COURSE_TEST_ENVIRONMENT ${_test_env} PARENT_SCOPE)
endfunction()
