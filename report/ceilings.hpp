// ceilings.hpp -- what course_ceilings' files share (ceilings.cpp runs them
// and writes the rows): the copy kernels (ceilings_copy.cpp), the host CPU's
// FP32 peak and measured rate (ceilings_host.cpp) and the vendor's copy
// through the CUDA driver (ceilings_vendor.cpp).
#pragma once

#include <string>
#include <vector>

namespace measure {

// ---- ceilings_copy.cpp: copies on the device and on the host's cores --------

/// One way of launching a copy kernel on data already present on the device.
struct CopyShape {
  std::string name;
  void (*run)(const float *a, float *b, long long n);
  bool gpu_only;  ///< explicit launch shapes: on the host device a team is 1-2 threads
};

/// Every OpenMP copy the course writes, in the order the report lists them.
const std::vector<CopyShape> &copy_shapes();

/// STREAM's copy on the host CPU: every core, no target region.
void copy_host_parallel(const float *a, float *b, long long n);

// ---- ceilings_host.cpp: the host CPU's FP32 rate ----------------------------

/// The host CPU's FP32 peak from /proc/cpuinfo, and how it was worked out.
struct HostPeak {
  double gflops = 0;
  std::string how;
};
HostPeak host_fp32_peak();

/// The best FP32 rate this build's flags reach on every host thread
/// (GFLOP/s); @p quick for tiny sizes. @p threads_used: how many ran.
double host_fp32_best(bool quick, int &threads_used);

// ---- ceilings_vendor.cpp: the vendor's copy ----------------------------------

/// The NVIDIA driver's device-to-device copy, or why it was not measured.
struct VendorCopy {
  double gbs = 0, ms = 0;            ///< CUDA events around the copy: the GPU's time
  double call_gbs = 0, call_ms = 0;  ///< per call: host clock around the copy and cuCtxSynchronize
  bool ok = false;
  std::string note;  ///< how, or why it could not be measured
};

/// Copies @p bytes device to device @p reps times (the fastest kept), timed
/// by CUDA events, then @p reps times more on the host's clock per call, as
/// the OpenMP copies are timed, through course::cuda_driver() on the OpenMP
/// runtime's own context.
VendorCopy vendor_copy(long long bytes, int reps);

}  // namespace measure
