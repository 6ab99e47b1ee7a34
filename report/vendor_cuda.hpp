// vendor_cuda.hpp -- what the report's CUDA programs share (course_sgemm,
// course_cub, course_cuda_nbody): one error check and one timer, CUDA events
// around the call alone, so every vendor figure is timed the same way.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
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

/// The median of reps runs of f, in ms, after warmups runs: CUDA events
/// recorded around each call on the default stream.
template <class F>
double event_median_ms(const char *prog, long long reps, int warmups, F &&f) {
  cudaEvent_t a, b;
  check_cuda(prog, cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(prog, cudaEventCreate(&b), "cudaEventCreate");
  for (int i = 0; i < warmups; ++i) f();
  std::vector<double> ms;
  for (long long i = 0; i < reps; ++i) {
    check_cuda(prog, cudaEventRecord(a), "cudaEventRecord");
    f();
    check_cuda(prog, cudaEventRecord(b), "cudaEventRecord");
    check_cuda(prog, cudaEventSynchronize(b), "the timed call");
    float t = 0;
    check_cuda(prog, cudaEventElapsedTime(&t, a, b), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  check_cuda(prog, cudaEventDestroy(a), "cudaEventDestroy");
  check_cuda(prog, cudaEventDestroy(b), "cudaEventDestroy");
  return median(ms);
}

}  // namespace vendor
