/// @file lessons/02-target-offload/devlib.hpp
/// @brief A stand-in for a vendor's GPU library (given: read it, do not edit
/// it; step 2.4 calls it).
///
/// Libraries such as cuBLAS or rocBLAS take *device* addresses: memory the
/// library's kernels can use as it is. Their OpenMP equivalent is a kernel
/// with `is_device_ptr(x)`: the pointer is neither mapped nor translated, the
/// kernel dereferences exactly the address it was given. Hand such a function
/// a host address and it works on whatever memory that address means on the
/// device: on a GPU a fault (or, where the GPU can reach host memory, the host
/// copy); on the host-offload device the host copy, silently.
#pragma once

#include <cmath>
#include <cstdio>
#include <vector>

namespace devlib {

/// How many times a devlib function was called, as a library's profiling
/// counter would tell (the tests read it to see that the library did the work).
inline long &calls() {
  static long count = 0;
  return count;
}

/// One call as the library's profiler logs it (the tests read the log to see
/// that the library itself did the work, on v's device copy).
struct Call {
  const char *function;  ///< "norm2" or "scale"
  int elements;          ///< elements its kernel processed on the device (0: it ran none)
  const void *x;         ///< the address it was handed
  float value;           ///< norm2: the length it returned; scale: the factor it applied
};

/// Every call so far, oldest first.
inline std::vector<Call> &profile() {
  static std::vector<Call> log;
  return log;
}

/// The Euclidean length of x[0:n). @p x must be a DEVICE address.
inline float norm2(int n, const float *x) {
  ++calls();
  // Checked, so that a null pointer is reported instead of dereferenced: it is
  // what LLVM's use_device_ptr gives for an array that is not mapped.
  if (x == nullptr) {
    std::fprintf(stderr, "devlib::norm2: x is a null pointer, not a device address\n");
    profile().push_back({"norm2", 0, x, 0.f});
    return 0.f;
  }
  float sum = 0.f;  // a reduction (lesson 6): each thread sums a share, the shares are added at the end
#pragma omp target teams distribute parallel for reduction(+ : sum) is_device_ptr(x)
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  profile().push_back({"norm2", n > 0 ? n : 0, x, std::sqrt(sum)});
  return std::sqrt(sum);
}

// SNIPPET(devlib_scale)
/// x[i] *= a for i in [0, n). @p x must be a DEVICE address.
inline void scale(int n, float a, float *x) {
  ++calls();
  if (x == nullptr) {
    std::fprintf(stderr, "devlib::scale: x is a null pointer, not a device address\n");
    profile().push_back({"scale", 0, x, a});
    return;
  }
#pragma omp target teams distribute parallel for is_device_ptr(x)
  for (int i = 0; i < n; ++i) x[i] *= a;
  profile().push_back({"scale", n > 0 ? n : 0, x, a});
}
// END SNIPPET

}  // namespace devlib
