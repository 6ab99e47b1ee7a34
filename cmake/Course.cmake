# Course.cmake -- the one place that knows how to build OpenMP offload code.
#
# It checks the toolchain (stopping with a message that names the fix), picks
# the offload device, and provides:
#
#   course_offload(<target>)                  offload flags for one target
#   course_add_lesson(<N> <topic> SOURCES ...) a lesson: kernels, driver, tests
#   course_add_catch_tests(<target> <source> ...) CTest entries from TEST_CASEs
#
# Every flag that mentions a device lives in this file, so adding amdgcn later
# is a few lines here.

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/CourseSteps.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/CourseMistakes.cmake")

set(COURSE_DEVICE "auto" CACHE STRING "Where target regions run: host, nvptx, amdgcn or auto")
set_property(CACHE COURSE_DEVICE PROPERTY STRINGS auto host nvptx amdgcn)
set(COURSE_TRACK "lessons" CACHE STRING
    "Whose code the tests grade: lessons (the student's starters) or solutions")
set_property(CACHE COURSE_TRACK PROPERTY STRINGS lessons solutions)
# Whether this checkout has solutions/: the student track needs none (a
# self-learner may delete it to avoid temptation); the solutions track, the
# drift check and tools/perf-explore do.
if(IS_DIRECTORY "${PROJECT_SOURCE_DIR}/solutions")
  set(COURSE_HAVE_SOLUTIONS ON)
else()
  set(COURSE_HAVE_SOLUTIONS OFF)
endif()
set(COURSE_NVPTX_ARCH "" CACHE STRING "GPU architecture for nvptx, e.g. sm_90 (empty: ask nvptx-arch)")
set(COURSE_AMDGCN_ARCH "" CACHE STRING "GPU architecture for amdgcn, e.g. gfx90a or gfx942 (empty: ask amdgpu-arch)")
set(COURSE_AMDGCN_EXTRA_FLAGS "" CACHE STRING "Extra flags for amdgcn builds (e.g. --rocm-device-lib-path=...)")
set(COURSE_CUDA_PATH "" CACHE PATH
    "CUDA installation for nvptx (needs bin/ptxas, include/cuda.h, nvvm/libdevice); empty: .deps/cuda, then /usr/local/cuda")
set(COURSE_TEST_TIMEOUT 300 CACHE STRING "CTest timeout in seconds for each test")
set(COURSE_BUILD_TIMEOUT 3600 CACHE STRING "CTest timeout in seconds for a lesson's build step (test 'lessonN: build')")
option(COURSE_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" ON)

function(_course_fail what fix)
  message(FATAL_ERROR "\n${what}\n  Fix: ${fix}\n")
endfunction()

# --- 1. the compiler ---------------------------------------------------------
string(REGEX MATCH "^[0-9]+" COURSE_LLVM_MAJOR "${CMAKE_CXX_COMPILER_VERSION}")
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang" OR CMAKE_CXX_COMPILER_ID STREQUAL "AppleClang")
  _course_fail("The C++ compiler is ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} (${CMAKE_CXX_COMPILER}); this course needs LLVM clang >= 19 for OpenMP offload."
    "run scripts/install-deps.sh, delete the build folder and configure again (the presets then find the clang it installed), or pass -DCMAKE_CXX_COMPILER=clang++-19.")
endif()
if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 19)
  _course_fail("clang ${CMAKE_CXX_COMPILER_VERSION} is too old: the course needs clang >= 19 (offload driver and runtime it was measured with)."
    "run scripts/install-deps.sh and configure again in a fresh build folder (or -DCMAKE_CXX_COMPILER=clang++-19).")
endif()

# The LLVM install the compiler belongs to: <prefix>/bin/clang++ -> <prefix>/lib.
get_filename_component(_cxx_real "${CMAKE_CXX_COMPILER}" REALPATH)
get_filename_component(_llvm_prefix "${_cxx_real}" DIRECTORY)
get_filename_component(_llvm_prefix "${_llvm_prefix}" DIRECTORY)
set(COURSE_LLVM_LIBDIR "${_llvm_prefix}/lib" CACHE PATH "LLVM library folder (libomptarget, device runtimes)")
# Debian's package names for this LLVM, for the messages below.
set(_pkg_tools "clang-tools-${COURSE_LLVM_MAJOR}")
if(COURSE_LLVM_MAJOR GREATER_EQUAL 20)
  set(_pkg_runtime "libomp-${COURSE_LLVM_MAJOR}-dev liboffload-${COURSE_LLVM_MAJOR}-dev")
else()
  set(_pkg_runtime "libomp-${COURSE_LLVM_MAJOR}-dev")
endif()

# The host's own triple: the host-offload device runs code built for this
# CPU. clang -dumpmachine says e.g. x86_64-pc-linux-gnu (Debian) or
# aarch64-unknown-linux-gnu; LLVM's host plugin registers <cpu>-unknown-linux-gnu.
execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -dumpmachine OUTPUT_VARIABLE _course_machine
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REGEX MATCH "^[^-]+" COURSE_HOST_CPU "${_course_machine}")
if(NOT COURSE_HOST_CPU MATCHES "^(x86_64|aarch64)$")
  _course_fail("clang targets '${_course_machine}': the course's host-offload device is built and tested for x86_64 and aarch64 Linux only."
    "use an x86-64 or arm64 Linux (on macOS or Windows: the dev container in .devcontainer/, or WSL2 with Debian), or a GPU build with -DCOURSE_DEVICE=nvptx.")
endif()
set(COURSE_HOST_TRIPLE "${COURSE_HOST_CPU}-unknown-linux-gnu")

# Emulation (an arm64 root run through qemu-user on an x86-64 machine, or the
# reverse): programs run 5-50x slower and timings mean nothing. Known from
# COURSE_EMULATED=1 (scripts/clean-room.sh sets it for a foreign --arch), or
# seen: qemu-user shows the real CPU's /proc/cpuinfo, which then names
# another architecture than the one clang builds for.
set(_course_emulated OFF)
if(DEFINED ENV{COURSE_EMULATED} AND NOT "$ENV{COURSE_EMULATED}" MATCHES "^(|0)$")
  set(_course_emulated ON)
elseif(EXISTS /proc/cpuinfo)
  file(READ /proc/cpuinfo _course_cpuinfo LIMIT 4096)
  if((COURSE_HOST_CPU STREQUAL "aarch64" AND _course_cpuinfo MATCHES "vendor_id|GenuineIntel|AuthenticAMD")
     OR (COURSE_HOST_CPU STREQUAL "x86_64" AND _course_cpuinfo MATCHES "CPU implementer"))
    set(_course_emulated ON)
  endif()
endif()
option(COURSE_EMULATED "This machine emulates the CPU it builds for: speed tests are skipped (with their reason), timeouts are 10x" ${_course_emulated})
if(COURSE_EMULATED)
  message(STATUS "Course: ${COURSE_HOST_CPU} runs under an emulator here: the speed tests will be reported skipped, every timeout is 10x")
  math(EXPR COURSE_TEST_TIMEOUT "${COURSE_TEST_TIMEOUT} * 10")
  math(EXPR COURSE_BUILD_TIMEOUT "${COURSE_BUILD_TIMEOUT} * 10")
  math(EXPR COURSE_STEP_TIMEOUT "${COURSE_STEP_TIMEOUT} * 10")
endif()
# What a skipped speed test prints (CTest's SKIP_REGULAR_EXPRESSION matches "COURSE-SKIP:").
set(COURSE_EMULATED_SKIP "COURSE-SKIP: speed is not graded under an emulator (${COURSE_HOST_CPU} through qemu-user here: timings mean nothing); run on a real ${COURSE_HOST_CPU} machine to grade it")

# --- 2. the offload runtime --------------------------------------------------
find_library(COURSE_LIBOMPTARGET NAMES omptarget PATHS "${COURSE_LLVM_LIBDIR}" NO_DEFAULT_PATH)
if(NOT COURSE_LIBOMPTARGET)
  _course_fail("No libomptarget in ${COURSE_LLVM_LIBDIR}: clang can compile target regions but nothing could run them."
    "install LLVM's OpenMP offload runtime: apt-get install ${_pkg_runtime} (scripts/install-deps.sh does this).")
endif()
foreach(_tool clang-offload-packager clang-linker-wrapper)
  if(NOT EXISTS "${_llvm_prefix}/bin/${_tool}")
    _course_fail("${_llvm_prefix}/bin/${_tool} is missing: clang ${CMAKE_CXX_COMPILER_VERSION} cannot build any offload program without it."
      "apt-get install ${_pkg_tools} (scripts/install-deps.sh does this), then configure again in a fresh build folder.")
  endif()
endforeach()

# --- 3. the device -----------------------------------------------------------
# nvptx-arch / amdgpu-arch list the GPUs of this machine (clang-tools-N).
set(_detected_arch "")
foreach(_probe_tool nvptx-arch amdgpu-arch)
  find_program(_arch_tool_${_probe_tool} NAMES ${_probe_tool} PATHS "${_llvm_prefix}/bin" NO_DEFAULT_PATH)
  if(_arch_tool_${_probe_tool} AND NOT _detected_arch)
    execute_process(COMMAND "${_arch_tool_${_probe_tool}}" OUTPUT_VARIABLE _archs
                    RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 30)
    if(_rc EQUAL 0 AND _archs)
      string(REGEX MATCH "(sm_[0-9]+a?|gfx[0-9a-f]+)" _detected_arch "${_archs}")
    endif()
  endif()
endforeach()

set(_device "${COURSE_DEVICE}")
if(_device STREQUAL "auto")
  if(COURSE_NVPTX_ARCH OR _detected_arch MATCHES "^sm_")
    set(_device nvptx)
  elseif(COURSE_AMDGCN_ARCH OR _detected_arch MATCHES "^gfx")
    set(_device amdgcn)
  else()
    set(_device host)
  endif()
endif()
if(NOT _device MATCHES "^(host|nvptx|amdgcn)$")
  _course_fail("COURSE_DEVICE='${COURSE_DEVICE}' is not a device this course knows."
    "use -DCOURSE_DEVICE=host, nvptx, amdgcn or auto.")
endif()

# The device runtime of one GPU target: LLVM 19 keeps one bitcode file per
# architecture (lib/libomptarget-<kind>-<arch>.bc, passed explicitly because
# Debian's clang-19 does not look there); LLVM >= 20 keeps one per target
# triple (lib/<triple>/libompdevice.a, which clang finds itself).
function(_course_device_runtime kind triple arch out_flags)
  set(_bc "${COURSE_LLVM_LIBDIR}/libomptarget-${kind}-${arch}.bc")
  set(_a "${COURSE_LLVM_LIBDIR}/${triple}/libompdevice.a")
  if(EXISTS "${_bc}")
    set(${out_flags} "--libomptarget-${kind}-bc-path=${_bc}" PARENT_SCOPE)
  elseif(EXISTS "${_a}" OR EXISTS "${COURSE_LLVM_LIBDIR}/libomptarget-${kind}.bc")
    set(${out_flags} "" PARENT_SCOPE)
  elseif(COURSE_LLVM_MAJOR LESS 20)
    _course_fail("No OpenMP device runtime for ${arch}: ${_bc} does not exist."
      "pick an architecture your LLVM ships (ls ${COURSE_LLVM_LIBDIR}/libomptarget-${kind}-*.bc) or apt-get install ${_pkg_runtime}.")
  else()
    _course_fail("No OpenMP device runtime for ${triple}: neither ${_a} nor ${_bc} exists."
      "apt-get install ${_pkg_runtime} (scripts/install-deps.sh --llvm ${COURSE_LLVM_MAJOR} does this).")
  endif()
endfunction()

set(COURSE_OFFLOAD_FLAGS -fopenmp)
set(COURSE_OFFLOAD_LINK_FLAGS -fopenmp "-Wl,-rpath,${COURSE_LLVM_LIBDIR}")
set(COURSE_DEVICE_ARCH "")
set(_dev_link_flags "")
if(_device STREQUAL "host")
  set(COURSE_DEVICE_CLASS host)
  set(COURSE_DEVICE_TRIPLE ${COURSE_HOST_TRIPLE})
  set(_dev_flags -fopenmp-targets=${COURSE_DEVICE_TRIPLE})
elseif(_device STREQUAL "nvptx")
  set(COURSE_DEVICE_CLASS gpu)
  set(COURSE_DEVICE_TRIPLE nvptx64-nvidia-cuda)
  set(_arch "${COURSE_NVPTX_ARCH}")
  if(NOT _arch AND _detected_arch MATCHES "^sm_")
    set(_arch "${_detected_arch}")
  endif()
  if(NOT _arch)
    _course_fail("COURSE_DEVICE=nvptx but no GPU architecture: nvptx-arch found no NVIDIA GPU here."
      "name one, e.g. -DCOURSE_NVPTX_ARCH=sm_90 (H100/H200), sm_80 (A100), sm_89 (L4/RTX 40), sm_100 (B200, LLVM >= 20), sm_120 (RTX 50, LLVM >= 20).")
  endif()
  _course_device_runtime(nvptx ${COURSE_DEVICE_TRIPLE} ${_arch} _rt_flags)

  # A CUDA installation whose ptxas writes cubins this LLVM's runtime loads.
  set(_cuda "${COURSE_CUDA_PATH}")
  if(NOT _cuda)
    foreach(_candidate "${PROJECT_SOURCE_DIR}/.deps/cuda" /usr/local/cuda /usr/lib/cuda)
      if(EXISTS "${_candidate}/bin/ptxas")
        set(_cuda "${_candidate}")
        break()
      endif()
    endforeach()
  endif()
  if(NOT _cuda OR NOT EXISTS "${_cuda}/bin/ptxas")
    _course_fail("COURSE_DEVICE=nvptx needs NVIDIA's ptxas and none was found (looked in ${COURSE_CUDA_PATH} .deps/cuda /usr/local/cuda)."
      "run scripts/install-deps.sh --nvptx (with LLVM 19 it unpacks a compatible ptxas into .deps/cuda), or pass -DCOURSE_CUDA_PATH=<CUDA>.")
  endif()
  execute_process(COMMAND "${_cuda}/bin/ptxas" --version OUTPUT_VARIABLE _ptxas_out RESULT_VARIABLE _rc ERROR_QUIET)
  string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _ "${_ptxas_out}")
  set(_ptxas_major "${CMAKE_MATCH_1}")
  set(_ptxas_version "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  if(NOT _rc EQUAL 0 OR NOT _ptxas_major)
    _course_fail("${_cuda}/bin/ptxas does not run or prints no version."
      "run scripts/install-deps.sh --nvptx, or pass -DCOURSE_CUDA_PATH=<a working CUDA>.")
  endif()
  if(_ptxas_major GREATER_EQUAL 13 AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 21.1.2)
    _course_fail("${_cuda}/bin/ptxas is CUDA ${_ptxas_version}: its cubins use an ELF layout (ABI version 8) that clang ${CMAKE_CXX_COMPILER_VERSION}'s offload runtime rejects at run time with \"No images found compatible with the installed hardware\" (fixed in LLVM 21.1.2, PR #159354)."
      "run scripts/install-deps.sh --nvptx and reconfigure in a fresh build folder (it finds .deps/cuda), pass -DCOURSE_CUDA_PATH=<CUDA 11.x-12.6>, or use LLVM >= 21.1.2 (scripts/install-deps.sh --llvm 21 on Debian 13).")
  endif()
  if(NOT EXISTS "${_cuda}/include/cuda.h")
    _course_fail("${_cuda}/include/cuda.h is missing: clang reads the CUDA version there and, without it, emits PTX that ptxas ${_ptxas_version} may refuse (\"Unsupported .version\")."
      "run scripts/install-deps.sh --nvptx, which writes .deps/cuda/include/cuda.h.")
  endif()
  set(COURSE_CUDA_PATH_USED "${_cuda}" CACHE INTERNAL "")
  set(COURSE_DEVICE_ARCH "${_arch}")
  set(_dev_flags --offload-arch=${_arch} -fopenmp-targets=${COURSE_DEVICE_TRIPLE} --cuda-path=${_cuda} ${_rt_flags})
else()
  # AMD GPUs: compile-checked in CI (LLVM 21), never run here: no AMD GPU is lent.
  set(COURSE_DEVICE_CLASS gpu)
  set(COURSE_DEVICE_TRIPLE amdgcn-amd-amdhsa)
  set(_arch "${COURSE_AMDGCN_ARCH}")
  if(NOT _arch AND _detected_arch MATCHES "^gfx")
    set(_arch "${_detected_arch}")
  endif()
  if(NOT _arch)
    _course_fail("COURSE_DEVICE=amdgcn but no GPU architecture: amdgpu-arch found no AMD GPU here."
      "name one, e.g. -DCOURSE_AMDGCN_ARCH=gfx90a (MI210/MI250), gfx942 (MI300).")
  endif()
  _course_device_runtime(amdgpu ${COURSE_DEVICE_TRIPLE} ${_arch} _rt_flags)
  set(COURSE_DEVICE_ARCH "${_arch}")
  set(_dev_flags --offload-arch=${_arch} -fopenmp-targets=${COURSE_DEVICE_TRIPLE} ${_rt_flags})
  if(COURSE_AMDGCN_EXTRA_FLAGS)
    list(APPEND _dev_flags ${COURSE_AMDGCN_EXTRA_FLAGS})
  elseif(EXISTS "${COURSE_LLVM_LIBDIR}/${COURSE_DEVICE_TRIPLE}/libompdevice.a")
    # Debian packages no ROCm device library, which clang asks for by
    # default: build without it (-nogpulib) and link LLVM's own OpenMP device
    # runtime by hand. The lessons' math (expf, sqrtf) lowers to instructions.
    list(APPEND _dev_flags -nogpulib)
    # SHELL: keeps each pair together (CMake drops repeated options otherwise).
    set(_dev_link_flags "SHELL:-Xoffload-linker -L${COURSE_LLVM_LIBDIR}/${COURSE_DEVICE_TRIPLE}"
                        "SHELL:-Xoffload-linker -lompdevice")
  endif()
endif()
# Host code with no target region of its own (the tests' Catch main) needs no
# device pass: compiled with COURSE_HOST_OPENMP_FLAGS it builds in half the
# time (Catch2 v2's runner is large: minutes under an emulator).
set(COURSE_HOST_OPENMP_FLAGS ${COURSE_OFFLOAD_FLAGS})
list(APPEND COURSE_OFFLOAD_FLAGS ${_dev_flags})
list(APPEND COURSE_OFFLOAD_LINK_FLAGS ${_dev_flags} ${_dev_link_flags})

# Prove the flags work before building anything: compile and link a target
# region with exactly the flags every target gets (the compiler is called
# directly, so nothing can drop them), check that the program carries device
# code, and, on the host device, run it and require it to run off the host.
set(_probe_dir "${CMAKE_BINARY_DIR}/CMakeFiles/course-probe")
file(WRITE "${_probe_dir}/probe.cpp" [=[
#include <omp.h>
#include <cstdio>
int main() {
  int on_host = 1;
#pragma omp target map(from : on_host)
  on_host = omp_is_initial_device();
  std::printf("%d\n", on_host);
  return on_host ? 1 : 0;
}
]=])
file(REMOVE "${_probe_dir}/probe")
set(_probe_link "")
foreach(_f IN LISTS COURSE_OFFLOAD_LINK_FLAGS)
  if(_f MATCHES "^SHELL:(.*)")
    separate_arguments(_words UNIX_COMMAND "${CMAKE_MATCH_1}")
    list(APPEND _probe_link ${_words})
  else()
    list(APPEND _probe_link "${_f}")
  endif()
endforeach()
execute_process(
  COMMAND "${CMAKE_CXX_COMPILER}" ${COURSE_OFFLOAD_FLAGS} "${_probe_dir}/probe.cpp" -o "${_probe_dir}/probe" ${_probe_link}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _probe_out ERROR_VARIABLE _probe_out TIMEOUT 300)
if(NOT _rc EQUAL 0)
  string(REGEX MATCHALL "[^\n]*(error|Error)[^\n]*" _errs "${_probe_out}")
  string(REPLACE ";" "\n    " _errs "${_errs}")
  set(_fix "run scripts/install-deps.sh (add --nvptx for NVIDIA GPUs) and reconfigure in a fresh build folder.")
  if(_probe_out MATCHES "clang-offload-packager|clang-linker-wrapper|nvptx-arch")
    set(_fix "apt-get install ${_pkg_tools} (it holds clang-offload-packager and clang-linker-wrapper; scripts/install-deps.sh installs it), then reconfigure in a fresh build folder.")
  elseif(_probe_out MATCHES "ROCm device library|ld.lld")
    set(_fix "the amdgcn build needs lld-${COURSE_LLVM_MAJOR}; apt-get install lld-${COURSE_LLVM_MAJOR}, or pass COURSE_AMDGCN_EXTRA_FLAGS.")
  endif()
  _course_fail("An OpenMP offload test program for ${COURSE_DEVICE_TRIPLE} does not build with ${CMAKE_CXX_COMPILER} ${COURSE_OFFLOAD_FLAGS}:\n    ${_errs}"
    "${_fix}")
endif()
file(READ "${_probe_dir}/probe" _probe_bin HEX LIMIT 1)  # it exists
file(STRINGS "${_probe_dir}/probe" _offload_marks REGEX "__tgt_|omp_offloading|llvm_offload" LIMIT_COUNT 1)
if(NOT _offload_marks)
  _course_fail("The offload test program built with ${COURSE_OFFLOAD_FLAGS} holds no device code: the flags did not reach the compiler."
    "report this: cmake/Course.cmake builds the probe with the flags every lesson uses.")
endif()
if(COURSE_DEVICE_CLASS STREQUAL "host")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_TARGET_OFFLOAD=MANDATORY "${_probe_dir}/probe"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 60)
  if(NOT _rc EQUAL 0)
    _course_fail("A target region compiled for the host-offload device did not run on it (exit ${_rc}, printed '${_out}'): ${_err}"
      "check that ${COURSE_LIBOMPTARGET} comes from the same LLVM as ${CMAKE_CXX_COMPILER}; apt-get install --reinstall ${_pkg_runtime}.")
  endif()
endif()

message(STATUS "Course: device ${_device} (${COURSE_DEVICE_CLASS}, ${COURSE_DEVICE_TRIPLE} ${COURSE_DEVICE_ARCH}), clang ${CMAKE_CXX_COMPILER_VERSION}, track ${COURSE_TRACK}")

# --- 4. targets --------------------------------------------------------------

# What every test runs with. MANDATORY: a kernel that would quietly fall back
# to the host fails instead. LD_LIBRARY_PATH: LLVM 19's offload runtime finds
# the host runtime for OMPT by dlopen("libomp.so") from libLLVM, whose RUNPATH
# does not reach ${COURSE_LLVM_LIBDIR}; without it no OMPT tool ever hears of a
# kernel or a copy (a fresh Debian 12 has libomp.so only there).
set(COURSE_TEST_ENVIRONMENT "OMP_TARGET_OFFLOAD=MANDATORY"
    "LD_LIBRARY_PATH=${COURSE_LLVM_LIBDIR}:$ENV{LD_LIBRARY_PATH}")
# On the host device, `target ... nowait` tasks must not run on LLVM 19's
# hidden helper threads: a host-device kernel forks its teams there, and a
# task created meanwhile can get no task team ("Assertion failure at
# kmp_tasking.cpp(4368): task_team != __null", about 1 pipeline in 100,
# measured with lesson 9). With hidden helpers off, such tasks are ordinary
# tasks of the enclosing parallel region (3000 pipelines, no failure).
if(COURSE_DEVICE_CLASS STREQUAL "host")
  list(APPEND COURSE_TEST_ENVIRONMENT "LIBOMP_USE_HIDDEN_HELPER_TASK=0")
endif()

include(CourseSanitize)  # COURSE_SANITIZE and the `sanitize` tests (cmake/CourseSanitize.cmake)

# -Wno-pass-failed: clang 19 warns "loop not vectorized" wherever `omp simd`
# cannot be honoured: always for NVIDIA (there the SIMD lanes are the threads)
# and on the distribute loop of `... parallel for simd`. Lesson 3 teaches the
# remarks through -Rpass; as an error under -Werror the warning teaches nothing.
set(COURSE_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wno-pass-failed)
if(COURSE_WARNINGS_AS_ERRORS)
  list(APPEND COURSE_WARNING_FLAGS -Werror)
endif()

#[[ course_host_openmp(<target>)
    Compile <target> (an object library of host code with no target region
    of its own) with OpenMP but no device pass. ]]
function(course_host_openmp target)
  target_compile_options(${target} PRIVATE ${COURSE_HOST_OPENMP_FLAGS} ${COURSE_WARNING_FLAGS})
  target_compile_definitions(${target} PRIVATE
    COURSE_DEVICE_CLASS="${COURSE_DEVICE_CLASS}" COURSE_DEVICE_TRIPLE="${COURSE_DEVICE_TRIPLE}"
    $<$<STREQUAL:${COURSE_DEVICE_CLASS},gpu>:COURSE_DEVICE_GPU=1>)
endfunction()

#[[ course_offload(<target>)
    Compile and link <target> for the configured offload device. Every lesson,
    starter and solution, baseline and test program goes through here. ]]
function(course_offload target)
  target_compile_options(${target} PRIVATE ${COURSE_OFFLOAD_FLAGS} ${COURSE_WARNING_FLAGS})
  target_link_options(${target} PRIVATE ${COURSE_OFFLOAD_LINK_FLAGS})
  target_compile_definitions(${target} PRIVATE
    COURSE_DEVICE_CLASS="${COURSE_DEVICE_CLASS}" COURSE_DEVICE_TRIPLE="${COURSE_DEVICE_TRIPLE}"
    $<$<STREQUAL:${COURSE_DEVICE_CLASS},gpu>:COURSE_DEVICE_GPU=1>)
endfunction()

#[[ course_add_catch_tests(<target> <source> [PREFIX p] [LABELS ...] [FIXTURE f])
    One CTest test per TEST_CASE("name", "[tags]") in <source>; each tag
    becomes a label. FIXTURE: a CTest fixture every test requires (the
    lesson's build step, so ctest grades the code on disk). Parsing the source (instead of running the binary at
    build time) works for Catch2 v2 and v3 alike and for cross builds whose
    binaries cannot run here. ]]
function(course_add_catch_tests target source)
  cmake_parse_arguments(arg "" "PREFIX;FIXTURE" "LABELS" ${ARGN})
  file(READ "${source}" _text)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${source}")
  string(REGEX MATCHALL "TEST_CASE[ \t\r\n]*\\([ \t\r\n]*\"[^\"]*\"[ \t\r\n]*,[ \t\r\n]*\"[^\"]*\"" _cases "${_text}")
  if(NOT _cases)
    message(FATAL_ERROR "${source}: no TEST_CASE(\"name\", \"[tags]\") found")
  endif()
  foreach(_case IN LISTS _cases)
    string(REGEX REPLACE ".*\\([ \t\r\n]*\"([^\"]*)\".*" "\\1" _name "${_case}")
    string(REGEX REPLACE ".*,[ \t\r\n]*\"([^\"]*)\"$" "\\1" _tags "${_case}")
    if(_name MATCHES "[],[*~\\\\]")
      message(FATAL_ERROR "${source}: test name '${_name}' holds a character Catch treats as a pattern (, [ ] * ~ \\)")
    endif()
    string(REGEX MATCHALL "\\[[^]]+\\]" _taglist "${_tags}")
    string(REGEX REPLACE "[][]" "" _taglist "${_taglist}")
    if(COURSE_EMULATED AND "speedup" IN_LIST _taglist)
      # Reported by CTest as skipped, by name, with the reason: never passed silently.
      add_test(NAME "${arg_PREFIX}${_name}" COMMAND "${CMAKE_COMMAND}" -E echo "${COURSE_EMULATED_SKIP}")
      set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES SKIP_REGULAR_EXPRESSION "COURSE-SKIP:")
    else()
      add_test(NAME "${arg_PREFIX}${_name}" COMMAND ${target} "${_name}")
      if("speedup" IN_LIST _taglist)
        # A speed test that does not apply on this device class says why
        # (COURSE_SKIP_SPEED in tests/support/course_test.hpp): CTest lists it skipped.
        set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES SKIP_REGULAR_EXPRESSION "COURSE-SKIP:")
      endif()
    endif()
    set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES
      LABELS "${_taglist};${arg_LABELS}"
      ENVIRONMENT "${COURSE_TEST_ENVIRONMENT}"
      TIMEOUT ${COURSE_TEST_TIMEOUT})
    if(arg_FIXTURE)
      set_tests_properties("${arg_PREFIX}${_name}" PROPERTIES FIXTURES_REQUIRED "${arg_FIXTURE}")
    endif()
  endforeach()
endfunction()

#[[ course_add_lesson(<N> <folder> SOURCES <files...> [DRIVER <main.cpp>] [EXPLICIT_SIMD] [RACES])
    Called from lessons/<folder>/CMakeLists.txt, the one copy of the lesson.
    SOURCES are the files the student edits; solutions/<folder> holds their
    finished copies (only those), which the solutions track swaps in. Builds:
      lessonNN            the lesson's program (DRIVER + kernels)
      lessonNN_test       tests/lessonNN_*.cpp against the kernels
      lessonNN_all        everything of the lesson (what "lessonN: build" builds)
    The test "lessonN: build" rebuilds the lesson before any of its tests run
    (a CTest fixture), so `ctest -L lessonN` grades the code on disk.
    RACES: the lesson's steps can race (barriers, atomics, tasks): its
    ThreadSanitizer + Archer check joins `ctest -L lessonN` (label races).
    EXPLICIT_SIMD: the SOURCES are compiled with the compiler's own
    loop vectorizer off (-fno-vectorize), so that only loops marked `omp simd`
    use vector instructions. (The SLP vectorizer stays on: without it clang
    scalarizes the sqrt of lesson 3's simd loop, 3x slower.) For lessons whose step IS the
    simd pragma (1, 3): at -O3 the compiler vectorizes simple loops by itself,
    and a test could not tell whether the student asked.
    The solutions track also builds the untouched starters and expects their
    tests to fail (test "lessonN: starter fails"), and proves every step is
    graded (cmake/CourseSteps.cmake, label steps). ]]
function(course_add_lesson number folder)
  cmake_parse_arguments(arg "EXPLICIT_SIMD;RACES" "DRIVER" "SOURCES" ${ARGN})
  if(arg_RACES)
    # Its steps can race: `ctest -L lessonN` runs its ThreadSanitizer + Archer
    # check too (cmake/CourseSanitize.cmake, label races).
    set_property(GLOBAL APPEND PROPERTY COURSE_RACE_LESSONS ${number})
  endif()
  string(LENGTH "${number}" _len)
  set(nn "${number}")
  if(_len EQUAL 1)
    set(nn "0${number}")
  endif()
  set(lesson_dir "${PROJECT_SOURCE_DIR}/lessons/${folder}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${folder}")
  file(GLOB _test_src "${PROJECT_SOURCE_DIR}/tests/lesson${nn}_*.cpp")
  if(NOT _test_src)
    message(FATAL_ERROR "lesson ${number}: no tests/lesson${nn}_*.cpp")
  endif()

  # Object libraries do not pass their objects on transitively: every program
  # names course_common itself.
  # kernels(<name> <dir>): the student's files taken from <dir> (lessons/ or
  # solutions/), as objects; headers always come from the lesson folder.
  foreach(_s IN LISTS arg_SOURCES)
    if(COURSE_TRACK STREQUAL "solutions" AND NOT EXISTS "${solution_dir}/${_s}")
      message(FATAL_ERROR "lesson ${number}: solutions/${folder}/${_s} is missing (every file a student edits has its finished copy there)")
    endif()
  endforeach()
  macro(_course_kernels name dir)
    set(_srcs "")
    foreach(_s IN LISTS arg_SOURCES)
      list(APPEND _srcs "${dir}/${_s}")
    endforeach()
    add_library(${name} OBJECT ${_srcs})
    target_include_directories(${name} PUBLIC "${lesson_dir}")
    target_link_libraries(${name} PUBLIC course_common)
    course_offload(${name})
    if(arg_EXPLICIT_SIMD)
      target_compile_options(${name} PRIVATE -fno-vectorize)
    endif()
  endmacro()

  # The test file is compiled once and linked against each set of kernels
  # (the solution's or yours, the starter's, every step's mutant).
  add_library(lesson${nn}_test_objects OBJECT ${_test_src})
  target_link_libraries(lesson${nn}_test_objects PRIVATE course_reference course_test_main course_common)
  target_include_directories(lesson${nn}_test_objects PRIVATE "${lesson_dir}")
  target_compile_definitions(lesson${nn}_test_objects PRIVATE COURSE_LESSON=${number})
  course_offload(lesson${nn}_test_objects)
  macro(_course_test_program name kernels)
    add_executable(${name} $<TARGET_OBJECTS:lesson${nn}_test_objects>)
    target_link_libraries(${name} PRIVATE ${kernels} course_reference course_test_main course_common)
    course_offload(${name})
  endmacro()

  # The lesson's program. COURSE_KERNELS names whose kernels it runs, so its
  # rows say "yours", "solution" or "starter".
  macro(_course_driver name dir kernels who)
    add_executable(${name} "${dir}/${arg_DRIVER}")
    target_link_libraries(${name} PRIVATE ${kernels} course_reference course_common)
    target_compile_definitions(${name} PRIVATE COURSE_KERNELS="${who}")
    course_offload(${name})
  endmacro()

  if(COURSE_TRACK STREQUAL "solutions")
    set(_kernel_dir "${solution_dir}")
    set(_who solution)
  else()
    set(_kernel_dir "${lesson_dir}")
    set(_who yours)
  endif()
  _course_kernels(lesson${nn}_kernels "${_kernel_dir}")
  _course_test_program(lesson${nn}_test lesson${nn}_kernels)
  course_add_catch_tests(lesson${nn}_test "${_test_src}" PREFIX "lesson${number}: " LABELS "${COURSE_TRACK}"
                         FIXTURE "lesson${number}_built")
  set(_all lesson${nn}_test)
  if(arg_DRIVER)
    _course_driver(lesson${nn} "${lesson_dir}" lesson${nn}_kernels ${_who})
    list(APPEND _all lesson${nn})
  endif()

  if(COURSE_TRACK STREQUAL "solutions")
    # The untouched starter must fail its lesson's tests; if it ever passes,
    # the lesson teaches nothing and this test goes red.
    _course_kernels(lesson${nn}_starter_kernels "${lesson_dir}")
    _course_test_program(lesson${nn}_starter_test lesson${nn}_starter_kernels)
    if(arg_DRIVER)
      _course_driver(lesson${nn}_starter "${lesson_dir}" lesson${nn}_starter_kernels starter)
    endif()
    math(EXPR _starter_timeout "${COURSE_TEST_TIMEOUT} - 20")  # its own verdict before CTest's timeout
    add_test(NAME "lesson${number}: starter fails"
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:lesson${nn}_starter_test> -DLESSON=${number}
                     -DTIMEOUT=${_starter_timeout} -DEMULATED=${COURSE_EMULATED}
                     -P "${PROJECT_SOURCE_DIR}/cmake/expect-failure.cmake")
    set_tests_properties("lesson${number}: starter fails" PROPERTIES
      LABELS "lesson${number};starter" ENVIRONMENT "${COURSE_TEST_ENVIRONMENT}"
      TIMEOUT ${COURSE_TEST_TIMEOUT} FIXTURES_REQUIRED "lesson${number}_built"
      SKIP_REGULAR_EXPRESSION "is graded elsewhere:")
    list(APPEND _all lesson${nn}_starter_test)
    if(arg_DRIVER)
      list(APPEND _all lesson${nn}_starter)
    endif()
    course_add_steps(${number} ${nn} ${folder})
    course_add_mistakes(${number} ${nn} ${folder})
  endif()

  # "lessonN: build": ctest -L lessonN first rebuilds the lesson, so the tests
  # grade the code on disk, not the last build. Whatever filter picks a test
  # of the lesson, CTest runs the fixture's setup (this build) first. One
  # build at a time: two ninja runs in one build folder trip over each other.
  add_custom_target(lesson${nn}_all)
  add_dependencies(lesson${nn}_all ${_all})
  add_test(NAME "lesson${number}: build"
           COMMAND "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target lesson${nn}_all)
  set_tests_properties("lesson${number}: build" PROPERTIES
    LABELS "lesson${number};build" FIXTURES_SETUP "lesson${number}_built"
    RESOURCE_LOCK course_build TIMEOUT ${COURSE_BUILD_TIMEOUT})
endfunction()
