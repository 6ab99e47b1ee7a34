// vendor_cuda.hpp -- what the report's CUDA programs share (course_sgemm,
// course_cub, course_cuda_nbody): one error check, how the host waits for the
// GPU (COURSE_CUDA_WAIT, as every course program reads it), and the two
// clocks every vendor figure is timed on:
//   kernel:   CUDA events recorded around the call alone (the GPU's clock);
//   per call: the host's steady clock around the call and the
//             cudaDeviceSynchronize after it, as the course times an OpenMP
//             call that ends when its target region is done.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vendor.hpp"

namespace vendor {

/// Ends the program with one line naming the call that failed.
inline void check_cuda(const char *prog, cudaError_t e, const char *what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s: %s\n", prog, what, cudaGetErrorString(e));
    std::exit(1);
  }
}

/// Makes the host wait for the GPU as COURSE_CUDA_WAIT says, before the first
/// CUDA call that creates the context: "spin" (also unset or empty) or
/// "block", the same choice the course's programs make for LLVM's context
/// (common/src/cuda_wait.cpp), so both sides of a comparison wait alike.
/// Anything else: one line, exit 2. Returns the wait used, for the output.
inline std::string set_wait(const char *prog) {
  const char *asked = std::getenv("COURSE_CUDA_WAIT");
  const std::string mode = asked && *asked ? asked : "spin";
  if (mode != "spin" && mode != "block")
    usage_error(prog, "COURSE_CUDA_WAIT must be 'spin' or 'block' (or unset: spin), got '" + mode + "'");
  check_cuda(prog, cudaSetDeviceFlags(mode == "spin" ? cudaDeviceScheduleSpin : cudaDeviceScheduleBlockingSync),
             "cudaSetDeviceFlags");
  return mode == "spin" ? "spin (cudaDeviceScheduleSpin)" : "block (cudaDeviceScheduleBlockingSync)";
}

/// One call timed on both clocks: medians in ms.
struct Times {
  double kernel_ms = 0;  ///< CUDA events around the call alone
  double call_ms = 0;    ///< host steady clock around the call and its cudaDeviceSynchronize
};

/// The median of reps runs of f on each clock, after warmups runs: first reps
/// runs between CUDA events on the default stream, then reps runs each timed
/// on the host from the call to the end of cudaDeviceSynchronize.
template <class F>
Times median_ms(const char *prog, long long reps, int warmups, F &&f) {
  cudaEvent_t a, b;
  check_cuda(prog, cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(prog, cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < warmups; ++i) f();
  check_cuda(prog, cudaDeviceSynchronize(), "the warm-up calls");
  std::vector<double> kernel, call;
  for (long long i = 0; i < reps; ++i) {
    check_cuda(prog, cudaEventRecord(a), "cudaEventRecord");
    f();
    check_cuda(prog, cudaEventRecord(b), "cudaEventRecord");
    check_cuda(prog, cudaEventSynchronize(b), "the timed call");
    float t = 0;
    check_cuda(prog, cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    kernel.push_back(t);
  }
  for (long long i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    check_cuda(prog, cudaDeviceSynchronize(), "the timed call");
    call.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  check_cuda(prog, cudaEventDestroy(a), "cudaEventDestroy");
  check_cuda(prog, cudaEventDestroy(b), "cudaEventDestroy");
  return {median(kernel), median(call)};
}

/// How the two rows of a measurement say their clock, for the CSV notes.
inline std::string kernel_clock(long long reps) {
  return "kernel: CUDA events around the call, median of " + std::to_string(reps);
}
inline std::string call_clock(long long reps) {
  return "per call: host clock around the call + cudaDeviceSynchronize, median of " + std::to_string(reps);
}

}  // namespace vendor
