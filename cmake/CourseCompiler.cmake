# CourseCompiler.cmake -- which clang builds the course, chosen once, before project().
#
# CXX or -DCMAKE_CXX_COMPILER when given; else the LLVM scripts/install-deps.sh
# installed (.deps/llvm-version); else the newest clang++-NN whose offload
# runtime is whole. Whole means: the runtime library (libomptarget.so), omp.h
# and the offload driver's tools (clang-offload-packager) of that same LLVM.
# Debian installs one libomp-N-dev at a time, so a newer clang installed later
# (LLVM 22 in Debian 12's security archive) can take the course's LLVM's
# omp.h away while its clang stays: the pick skips such a clang and names what
# it lacks, and an LLVM that .deps/llvm-version asks for but that is not whole
# stops here with the fix. cmake/CourseToolchain.cmake then checks the choice.
include_guard(GLOBAL)

# _course_llvm_lacks(<out> <clang++ path> <major>): what of LLVM <major>'s
# offload runtime is missing beside that clang ("" when whole).
function(_course_llvm_lacks out cxx major)
  get_filename_component(_real "${cxx}" REALPATH)
  get_filename_component(_prefix "${_real}" DIRECTORY)
  get_filename_component(_prefix "${_prefix}" DIRECTORY)
  set(_lacks "")
  if(NOT EXISTS "${_prefix}/lib/libomptarget.so")
    list(APPEND _lacks "${_prefix}/lib/libomptarget.so")
  endif()
  if(NOT EXISTS "${_prefix}/lib/clang/${major}/include/omp.h")
    list(APPEND _lacks "${_prefix}/lib/clang/${major}/include/omp.h")
  endif()
  if(NOT EXISTS "${_prefix}/bin/clang-offload-packager")
    list(APPEND _lacks "${_prefix}/bin/clang-offload-packager")
  endif()
  string(REPLACE ";" ", " _lacks "${_lacks}")
  set(${out} "${_lacks}" PARENT_SCOPE)
endfunction()

# _course_other_libomp(<out> <major>): another LLVM's libomp-N-dev that dpkg
# has installed (the one that displaced <major>'s), or "".
function(_course_other_libomp out major)
  set(_found "")
  find_program(_dpkg_query dpkg-query)
  if(_dpkg_query)
    # One argument: "-f=${Package} ${Status}\n" (dpkg-query expands the fields).
    execute_process(COMMAND "${_dpkg_query}" -W "-f=\${Package} \${Status}\\n" "libomp-*-dev"
                    OUTPUT_VARIABLE _pkgs ERROR_QUIET)
    string(REGEX MATCHALL "libomp-[0-9]+-dev install ok installed" _inst "${_pkgs}")
    foreach(_p IN LISTS _inst)
      string(REGEX MATCH "^libomp-([0-9]+)-dev" _ "${_p}")
      if(NOT CMAKE_MATCH_1 STREQUAL "${major}")
        set(_found "libomp-${CMAKE_MATCH_1}-dev")
      endif()
    endforeach()
  endif()
  set(${out} "${_found}" PARENT_SCOPE)
endfunction()

if(NOT CMAKE_CXX_COMPILER AND NOT DEFINED ENV{CXX})
  set(_want "")
  if(EXISTS "${CMAKE_SOURCE_DIR}/.deps/llvm-version")
    file(STRINGS "${CMAKE_SOURCE_DIR}/.deps/llvm-version" _want LIMIT_COUNT 1)
  endif()
  set(_skipped "")
  foreach(_v 22 21 20 19)
    if(_want AND NOT _v STREQUAL _want)
      continue()
    endif()
    unset(_course_cxx CACHE)
    find_program(_course_cxx NAMES clang++-${_v})
    if(NOT _course_cxx)
      continue()
    endif()
    _course_llvm_lacks(_lacks "${_course_cxx}" ${_v})
    if(_lacks)
      _course_other_libomp(_other ${_v})
      if(_want)
        set(_why "")
        if(_other)
          set(_why " (${_other} is installed and took its place: Debian installs one libomp-N-dev at a time)")
        endif()
        message(FATAL_ERROR "\nclang++-${_v}, which scripts/install-deps.sh chose (.deps/llvm-version), has no whole offload runtime: missing ${_lacks}${_why}.\n"
          "  Fix: scripts/install-deps.sh --replace (puts LLVM ${_v}'s back), or switch the course to the other LLVM with scripts/install-deps.sh --llvm <its version>; then configure in a fresh build folder.\n")
      endif()
      list(APPEND _skipped "clang++-${_v} (missing ${_lacks})")
      continue()
    endif()
    set(CMAKE_CXX_COMPILER "${_course_cxx}")
    if(_want)
      set(_course_cxx_why "the LLVM scripts/install-deps.sh installed (.deps/llvm-version)")
    else()
      set(_course_cxx_why "the newest clang with a whole offload runtime; no .deps/llvm-version")
    endif()
    break()
  endforeach()
  unset(_course_cxx CACHE)
  if(NOT CMAKE_CXX_COMPILER AND _skipped)
    string(REPLACE ";" "; " _skipped "${_skipped}")
    message(FATAL_ERROR "\nNo clang++-NN with a whole OpenMP offload runtime was found; skipped: ${_skipped}.\n"
      "  Fix: run scripts/install-deps.sh (it installs one and records it in .deps/llvm-version), then configure in a fresh build folder.\n")
  endif()
  if(CMAKE_CXX_COMPILER)
    message(STATUS "Course: compiler ${CMAKE_CXX_COMPILER} (${_course_cxx_why})")
  endif()
  if(_skipped)
    string(REPLACE ";" "; " _skipped "${_skipped}")
    message(STATUS "Course: skipped ${_skipped}")
  endif()
endif()
