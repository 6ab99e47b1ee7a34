// ceilings_vendor.cpp -- the vendor's copy for course_ceilings (see
// ceilings.hpp): cuMemcpyDtoD, what cudaMemcpy device to device calls,
// through the NVIDIA driver loaded at run time (course/cuda_driver.hpp): no
// CUDA headers or toolkit at build time.
#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ceilings.hpp"
#include "course/cuda_driver.hpp"
#include "course/timing.hpp"

namespace measure {

VendorCopy vendor_copy(long long bytes, int reps) {
  VendorCopy v;
  const course::CudaDriver &cu = course::cuda_driver();
  if (!cu.loaded()) {
    v.note = "not measured: libcuda.so.1 (the NVIDIA driver) cannot be loaded";
    return v;
  }
  if (!cu.cuInit || !cu.cuDeviceGet || !cu.cuDevicePrimaryCtxRetain || !cu.cuDevicePrimaryCtxRelease ||
      !cu.cuCtxPushCurrent || !cu.cuCtxPopCurrent || !cu.cuMemAlloc || !cu.cuMemFree || !cu.cuMemsetD32 ||
      !cu.cuMemcpyDtoDAsync || !cu.cuMemcpyDtoH || !cu.cuCtxSynchronize || !cu.cuEventCreate || !cu.cuEventRecord ||
      !cu.cuEventSynchronize || !cu.cuEventElapsedTime || !cu.cuEventDestroy) {
    v.note = "not measured: the CUDA driver lacks a function this program uses";
    return v;
  }
  course::cuda::Result failed = 0;
  const char *where = "";
  auto ok = [&](course::cuda::Result r, const char *what) {
    if (r != 0 && failed == 0) {
      failed = r;
      where = what;
    }
    return r == 0;
  };
  course::cuda::Device dev = 0;
  course::cuda::Context ctx = nullptr;
  course::cuda::DevicePtr src = 0, dst = 0;
  course::cuda::Event e0 = nullptr, e1 = nullptr;
  // The OpenMP runtime already holds this device's primary context: share it.
  if (ok(cu.cuInit(0), "cuInit") && ok(cu.cuDeviceGet(&dev, omp_get_default_device()), "cuDeviceGet") &&
      ok(cu.cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain") &&
      ok(cu.cuCtxPushCurrent(ctx), "cuCtxPushCurrent")) {
    const std::size_t b = (std::size_t)bytes;
    if (ok(cu.cuMemAlloc(&src, b), "cuMemAlloc") && ok(cu.cuMemAlloc(&dst, b), "cuMemAlloc") &&
        ok(cu.cuMemsetD32(src, 0x3f800000u, b / 4), "cuMemsetD32") &&
        ok(cu.cuMemsetD32(dst, 0, b / 4), "cuMemsetD32") && ok(cu.cuEventCreate(&e0, 0), "cuEventCreate") &&
        ok(cu.cuEventCreate(&e1, 0), "cuEventCreate")) {
      for (int w = 0; w < 3; ++w) ok(cu.cuMemcpyDtoDAsync(dst, src, b, nullptr), "cuMemcpyDtoD");
      ok(cu.cuCtxSynchronize(), "cuCtxSynchronize");
      // The fastest run, as STREAM reports a ceiling.
      double best = 0;
      for (int r = 0; r < reps && failed == 0; ++r) {
        float ms = 0;
        ok(cu.cuEventRecord(e0, nullptr), "cuEventRecord");
        ok(cu.cuMemcpyDtoDAsync(dst, src, b, nullptr), "cuMemcpyDtoD");
        ok(cu.cuEventRecord(e1, nullptr), "cuEventRecord");
        ok(cu.cuEventSynchronize(e1), "cuEventSynchronize");
        ok(cu.cuEventElapsedTime(&ms, e0, e1), "cuEventElapsedTime");
        if (ms > 0 && (best == 0 || ms < best)) best = ms;
      }
      // Per call, timed as the OpenMP copies are (course::time_median, the
      // fastest run): the host's clock from the call to the end of its
      // synchronisation, so that the best OpenMP copy and this one are
      // compared on one clock.
      const course::Timing call = course::time_median(
          [&] {
            ok(cu.cuMemcpyDtoDAsync(dst, src, b, nullptr), "cuMemcpyDtoD");
            ok(cu.cuCtxSynchronize(), "cuCtxSynchronize");
          },
          reps, 0);
      const double best_call = failed == 0 ? 1e3 * call.min : 0;
      // Verified: the first and last 4 KiB of the destination hold the source's 1.0f.
      std::vector<float> head(1024, 0.f), tail(1024, 0.f);
      const std::size_t chunk = std::min<std::size_t>(4096, b);
      ok(cu.cuMemcpyDtoH(head.data(), dst, chunk), "cuMemcpyDtoH");
      ok(cu.cuMemcpyDtoH(tail.data(), dst + (b - chunk), chunk), "cuMemcpyDtoH");
      bool right = failed == 0;
      for (std::size_t i = 0; i < chunk / 4; ++i) right = right && head[i] == 1.0f && tail[i] == 1.0f;
      if (failed == 0 && best > 0) {
        v.ms = best;
        v.gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
        v.call_ms = best_call;
        v.call_gbs = best_call > 0 ? 2.0 * (double)bytes / (best_call * 1e-3) / 1e9 : 0;
        v.ok = right;
        v.note = "cuMemcpyDtoD (the driver call under cudaMemcpy device to device), " + std::to_string(bytes >> 20) +
                 " MiB, bytes read + written, fastest of " + std::to_string(reps) + " runs, CUDA events" +
                 (right ? "" : "; WRONG: the copy's destination does not hold the source");
      }
    }
    if (e0) cu.cuEventDestroy(e0);
    if (e1) cu.cuEventDestroy(e1);
    if (src) cu.cuMemFree(src);
    if (dst) cu.cuMemFree(dst);
    course::cuda::Context popped = nullptr;
    cu.cuCtxPopCurrent(&popped);
    cu.cuDevicePrimaryCtxRelease(dev);
  }
  if (failed != 0) {
    v.ok = false;
    v.gbs = 0;
    v.note = std::string("not measured: ") + where + " failed (" + cu.error_text(failed) + ")";
  }
  return v;
}

}  // namespace measure
