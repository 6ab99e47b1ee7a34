# CourseToolchain.cmake -- the toolchain, checked, and the offload device.
#
# Included once by cmake/Course.cmake, before any target exists. It stops
# with a message that names the fix when something is missing, and leaves:
#
#   COURSE_LLVM_MAJOR, COURSE_LLVM_LIBDIR    the compiler's LLVM and its lib folder
#   COURSE_HOST_CPU, COURSE_HOST_TRIPLE      this CPU (x86_64 or aarch64)
#   COURSE_EMULATED                          the CPU is emulated (qemu-user)
#   COURSE_DEVICE_KIND                       host, nvptx or amdgcn (what COURSE_DEVICE=auto became)
#   COURSE_DEVICE_CLASS                      host or gpu
#   COURSE_DEVICE_TRIPLE, COURSE_DEVICE_ARCH the offload target
#   COURSE_NVPTX_TRIPLE, COURSE_NVPTX_CHECK_ARCH
#                                            the NVIDIA target of compile-only checks, on every build
#   COURSE_OFFLOAD_FLAGS, COURSE_OFFLOAD_LINK_FLAGS, COURSE_HOST_OPENMP_FLAGS
#
# Every flag that mentions a device lives in this file, proven by a probe
# program before anything is built.
include_guard(GLOBAL)

set(COURSE_DEVICE "auto" CACHE STRING "Where target regions run: host, nvptx, amdgcn or auto")
set_property(CACHE COURSE_DEVICE PROPERTY STRINGS auto host nvptx amdgcn)
set(COURSE_NVPTX_ARCH "" CACHE STRING "GPU architecture for nvptx, e.g. sm_90 (empty: ask nvptx-arch)")
set(COURSE_AMDGCN_ARCH "" CACHE STRING "GPU architecture for amdgcn, e.g. gfx90a or gfx942 (empty: ask amdgpu-arch)")
set(COURSE_AMDGCN_EXTRA_FLAGS "" CACHE STRING "Extra flags for amdgcn builds (e.g. --rocm-device-lib-path=...)")
set(COURSE_CUDA_PATH "" CACHE PATH
    "CUDA installation for nvptx (needs bin/ptxas, include/cuda.h, nvvm/libdevice); empty: .deps/cuda, then /usr/local/cuda")

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
endif()

# --- 2. the offload runtime --------------------------------------------------
# Checked on every configure, not only the first: Debian installs one
# libomp-N-dev at a time, so installing another LLVM's (LLVM 22's from
# bookworm-security) removes this one's omp.h and libomptarget.so under a
# build folder that worked. Both files are configure dependencies, so the
# next build re-runs this check instead of failing with "'omp.h' file not found".
if(COURSE_LIBOMPTARGET AND NOT EXISTS "${COURSE_LIBOMPTARGET}")
  unset(COURSE_LIBOMPTARGET CACHE)
endif()
find_library(COURSE_LIBOMPTARGET NAMES omptarget PATHS "${COURSE_LLVM_LIBDIR}" NO_DEFAULT_PATH)
set(_course_omp_h "${COURSE_LLVM_LIBDIR}/clang/${COURSE_LLVM_MAJOR}/include/omp.h")
if(NOT COURSE_LIBOMPTARGET OR NOT EXISTS "${_course_omp_h}")
  _course_other_libomp(_other ${COURSE_LLVM_MAJOR})
  set(_why "")
  if(_other)
    set(_why " ${_other} is installed and took its place (Debian installs one libomp-N-dev at a time).")
  endif()
  _course_fail("clang ${CMAKE_CXX_COMPILER_VERSION} has no whole OpenMP offload runtime: no libomptarget.so in ${COURSE_LLVM_LIBDIR} or no ${_course_omp_h}.${_why}"
    "scripts/install-deps.sh --replace (installs ${_pkg_runtime} again), or move the course to the other LLVM with scripts/install-deps.sh --llvm <its version> and a fresh build folder.")
endif()
set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             "${COURSE_LIBOMPTARGET}" "${_course_omp_h}")
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
# The device facts, decided here once; cmake/CourseEnvironment.cmake writes
# them out for C++ (course/config.hpp), Python and shell (course-env.json/.sh).
# COURSE_DEVICE_KIND: host, nvptx or amdgcn. COURSE_DEVICE_CLASS: host (the
# host-offload device: this CPU) or gpu (any GPU), what tests and thresholds
# tell apart.
set(COURSE_DEVICE_KIND "${_device}")
if(_device STREQUAL "host")
  set(COURSE_DEVICE_CLASS host)
else()
  set(COURSE_DEVICE_CLASS gpu)
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
set(COURSE_NVPTX_TRIPLE nvptx64-nvidia-cuda)
if(_device STREQUAL "host")
  set(COURSE_DEVICE_TRIPLE ${COURSE_HOST_TRIPLE})
  set(_dev_flags -fopenmp-targets=${COURSE_DEVICE_TRIPLE})
elseif(_device STREQUAL "nvptx")
  set(COURSE_DEVICE_TRIPLE ${COURSE_NVPTX_TRIPLE})
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
  if(COURSE_LLVM_MAJOR GREATER_EQUAL 20)
    # LLVM 20+ compiles each file's device code to its own cubin. OpenMPOpt
    # then leaves a call that nothing in the file defines
    # (__kmpc_get_hardware_thread_id_in_block, in generic-mode kernels), so
    # the link compiles LLVM's device runtime (libompdevice.a) on its own,
    # and that keeps its weak `__llvm_rpc_client`. An image holding that
    # symbol makes the CUDA plugin start its RPC server (host services such
    # as device malloc and printf), and every call waits longer: lesson 11's
    # calls with LLVM 21 were 57-86 us longer than with LLVM 19 around the
    # same kernels. -foffload-lto links the device code of the whole program
    # and the runtime as one, and no unused symbol survives: with LLVM 21.1.8
    # lesson 11's programs hold no __llvm_rpc_client, and the same program's
    # calls went from 0.31 to 0.25 ms (sum of floats at 2^28, H200,
    # docs/results/h200-2026-12-04.md).
    list(APPEND _dev_flags -foffload-lto)
    # LLVM 21's device link inlines less than LLVM 19's: lesson 6's combine of
    # a reduction clause over doubles (inline cost 2990, threshold 2750) stays
    # a call, and its `reduction(+:sum)` over doubles ran at half LLVM 19's
    # speed (H200: 5.62 against 2.60 ms at 2^28). A higher threshold for the
    # device link alone inlines it: 5.75 -> 2.99 ms (H100, LLVM 21.1.8,
    # docs/results/h100-2026-12-05.md).
    set(_dev_link_flags "SHELL:-Xoffload-linker -mllvm=-inline-threshold=400")
  endif()
else()
  # AMD GPUs: compile-checked in CI (LLVM 21), never run here: no AMD GPU is lent.
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
    "report this: cmake/CourseToolchain.cmake builds the probe with the flags every lesson uses.")
endif()
if(COURSE_DEVICE_CLASS STREQUAL "host")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OMP_TARGET_OFFLOAD=MANDATORY "${_probe_dir}/probe"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err TIMEOUT 60)
  if(NOT _rc EQUAL 0)
    _course_fail("A target region compiled for the host-offload device did not run on it (exit ${_rc}, printed '${_out}'): ${_err}"
      "check that ${COURSE_LIBOMPTARGET} comes from the same LLVM as ${CMAKE_CXX_COMPILER}; apt-get install --reinstall ${_pkg_runtime}.")
  endif()
endif()

# What the compile-only checks read NVIDIA GPU code for (the tests that compile
# a student's file for a GPU, which need no GPU and no CUDA; lesson 4's
# ptxas-report.sh through course-env.json), on every build: this build's GPU
# on an nvptx build, else COURSE_NVPTX_ARCH, else sm_90 (H100/H200: the GPUs
# the course's figures were measured on).
if(_device STREQUAL "nvptx")
  set(COURSE_NVPTX_CHECK_ARCH "${COURSE_DEVICE_ARCH}")
elseif(COURSE_NVPTX_ARCH)
  set(COURSE_NVPTX_CHECK_ARCH "${COURSE_NVPTX_ARCH}")
else()
  set(COURSE_NVPTX_CHECK_ARCH sm_90)
endif()
# clang 22 without a CUDA installation writes PTX 4.2, which no sm_70+ accepts
# ("PTX version 4.2 does not support target 'sm_90'"); clang 19 and 21 assume
# a recent PTX (8.5). 7.8 is sm_90's minimum and what CUDA 11.8's ptxas reads.
set(COURSE_NVPTX_CHECK_FLAGS "")
if(COURSE_LLVM_MAJOR GREATER_EQUAL 22)
  set(COURSE_NVPTX_CHECK_FLAGS "--cuda-feature=+ptx78")
endif()

message(STATUS "Course: device ${COURSE_DEVICE_KIND} (${COURSE_DEVICE_CLASS}, ${COURSE_DEVICE_TRIPLE} ${COURSE_DEVICE_ARCH}), clang ${CMAKE_CXX_COMPILER_VERSION}, track ${COURSE_TRACK}")
