// vendor.cpp -- the ceilings of this run, measured the vendor's way where the
// vendor's libraries are there, so the OpenMP variants are judged against what
// the device really does, not against another OpenMP kernel:
//   - cuMemcpyDtoD (what cudaMemcpy device-to-device does) through the CUDA
//     driver API, loaded with dlopen("libcuda.so.1") at run time, so this
//     program builds and runs where no CUDA is installed (the host device: the
//     vendor rows are skipped with a note). The OpenMP runtime on NVIDIA uses
//     the device's primary context; this code retains and shares it.
//   - the physical peaks from the device's attributes: HBM = memory clock x
//     bus width x 2 (double data rate); FP32 = SMs x 128 lanes x 2 x SM clock.
//   - the cost of a launch: an empty `target` region, and an empty CUDA kernel
//     (PTX loaded with cuModuleLoadData) launched and waited for.
//   - cuBLAS SGEMM (plain FP32) for the matmul group, through dlopen as well.
#include <dlfcn.h>
#include <omp.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "perf.hpp"

namespace perf {
namespace {

using CUdeviceptr = unsigned long long;

// The few driver entry points used here (cuda.h signatures, ints for enums).
struct Driver {
  bool ok = false;
  std::string why;  // why not, when !ok
  int (*cuInit)(unsigned) = nullptr;
  int (*cuDeviceGet)(int *, int) = nullptr;
  int (*cuDeviceGetAttribute)(int *, int, int) = nullptr;
  int (*cuDevicePrimaryCtxRetain)(void **, int) = nullptr;
  int (*cuCtxSetCurrent)(void *) = nullptr;
  int (*cuCtxSynchronize)() = nullptr;
  int (*cuMemAlloc)(CUdeviceptr *, std::size_t) = nullptr;
  int (*cuMemFree)(CUdeviceptr) = nullptr;
  int (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, std::size_t) = nullptr;
  int (*cuMemcpyDtoH)(void *, CUdeviceptr, std::size_t) = nullptr;
  int (*cuMemsetD32)(CUdeviceptr, unsigned, std::size_t) = nullptr;
  int (*cuModuleLoadData)(void **, const void *) = nullptr;
  int (*cuModuleGetFunction)(void **, void *, const char *) = nullptr;
  int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                        void **, void **) = nullptr;
  int device = 0;
  void *context = nullptr;
};

template <class F>
bool load(void *lib, const char *name, F &f, std::string &why) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f && why.empty()) why = std::string("libcuda.so.1 has no ") + name;
  return f != nullptr;
}

// The driver, loaded once; the OpenMP runtime must be up first (it retains the
// same primary context), so callers run a target region before this.
Driver &driver() {
  static Driver d = [] {
    Driver d;
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      d.why = "libcuda.so.1 not found (no NVIDIA driver here)";
      return d;
    }
    bool all = load(lib, "cuInit", d.cuInit, d.why) && load(lib, "cuDeviceGet", d.cuDeviceGet, d.why) &&
               load(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, d.why) &&
               load(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, d.why) &&
               load(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent, d.why) &&
               load(lib, "cuCtxSynchronize", d.cuCtxSynchronize, d.why) &&
               load(lib, "cuMemAlloc_v2", d.cuMemAlloc, d.why) && load(lib, "cuMemFree_v2", d.cuMemFree, d.why) &&
               load(lib, "cuMemcpyDtoD_v2", d.cuMemcpyDtoD, d.why) &&
               load(lib, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, d.why) &&
               load(lib, "cuMemsetD32_v2", d.cuMemsetD32, d.why) &&
               load(lib, "cuModuleLoadData", d.cuModuleLoadData, d.why) &&
               load(lib, "cuModuleGetFunction", d.cuModuleGetFunction, d.why) &&
               load(lib, "cuLaunchKernel", d.cuLaunchKernel, d.why);
    if (!all) return d;
    int rc = d.cuInit(0);
    // The OpenMP device number is the CUDA ordinal (the NVIDIA plugin lists
    // CUDA devices in order).
    if (rc == 0) rc = d.cuDeviceGet(&d.device, omp_get_default_device());
    if (rc == 0) rc = d.cuDevicePrimaryCtxRetain(&d.context, d.device);
    if (rc == 0) rc = d.cuCtxSetCurrent(d.context);
    if (rc != 0) {
      d.why = "CUDA driver initialisation failed (CUresult " + std::to_string(rc) + ")";
      return d;
    }
    d.ok = true;
    return d;
  }();
  if (d.ok) d.cuCtxSetCurrent(d.context);  // current on the calling thread
  return d;
}

int attribute(Driver &d, int which) {
  int v = 0;
  return d.cuDeviceGetAttribute(&v, which, d.device) == 0 ? v : 0;
}

Row ceiling_row(const std::string &variant, const std::string &size, const Times &t, double rate,
                const std::string &unit, const std::string &ok) {
  return {"ceiling", variant, size, t.median_ms, t.best_ms, rate, unit, 0, ok};
}

// The vendor's copy: batches of `per_batch` cuMemcpyDtoD calls, each batch
// timed with std::chrono around the calls and one cuCtxSynchronize.
void d2d_copy(const Options &o, Driver &d, Ceilings &c, Recorder &rec, std::size_t bytes) {
  CUdeviceptr src = 0, dst = 0;
  if (d.cuMemAlloc(&src, bytes) != 0 || d.cuMemAlloc(&dst, bytes) != 0) {
    if (src) d.cuMemFree(src);
    rec.note("cuMemAlloc of 2 x " + std::to_string(bytes) + " bytes failed: D2D copy at this size skipped");
    return;
  }
  const std::size_t words = bytes / 4;
  d.cuMemsetD32(src, 0x3f800001u, words);
  d.cuMemsetD32(dst, 0u, words);
  d.cuCtxSynchronize();
  constexpr int per_batch = 5;
  bool api_ok = true;
  auto batch = [&] {
    for (int i = 0; i < per_batch; ++i) api_ok = (d.cuMemcpyDtoD(dst, src, bytes) == 0) && api_ok;
    api_ok = (d.cuCtxSynchronize() == 0) && api_ok;
  };
  Times t = time_it(batch, o.reps, o.warmup + 1);
  t.median_ms /= per_batch;
  t.best_ms /= per_batch;
  // The copy arrived: its first and last words.
  unsigned first = 0, last = 0;
  d.cuMemcpyDtoH(&first, dst, 4);
  d.cuMemcpyDtoH(&last, dst + (words - 1) * 4, 4);
  const bool ok = api_ok && first == 0x3f800001u && last == 0x3f800001u;
  const double gbs = 2.0 * bytes / (t.median_ms * 1e6);  // read + write
  if (ok && gbs > c.copy_d2d_gbs) c.copy_d2d_gbs = gbs;
  rec.add(ceiling_row("cuMemcpyDtoD (read+write)", size_text(bytes / 4) + " floats", t, gbs, "GB/s", ok ? "ok" : "WRONG"));
  d.cuMemFree(src);
  d.cuMemFree(dst);
}

// An empty kernel in PTX, JIT-compiled by the driver for the device.
const char *empty_ptx = R"(.version 6.0
.target sm_50
.address_size 64
.visible .entry course_empty()
{
  ret;
}
)";

}  // namespace

void run_ceilings(const Options &o, Ceilings &c, Recorder &rec) {
  const int launches = o.tiny ? 20 : 200;
  // OpenMP's cost of a launch, measured first: it also starts the runtime.
  {
    const Times t = time_it([] {
#pragma omp target
      {
      }
    }, launches, 20);
    rec.add({"launch", "empty target region", "-", t.median_ms, t.best_ms, t.median_ms * 1e3, "us", 0, "ok"});
    int one = 0;
    const Times t2 = time_it([&] {
#pragma omp target teams distribute parallel for map(tofrom : one)
      for (int i = 0; i < 1; ++i) one += 1;
    }, launches, 20);
    rec.add({"launch", "target teams distribute parallel for + map(tofrom: int)", "1", t2.median_ms, t2.best_ms,
             t2.median_ms * 1e3, "us", 0, one == launches + 20 ? "ok" : "WRONG"});
  }
  Driver &d = driver();
  if (!d.ok) {
    rec.note("vendor ceilings skipped: " + d.why);
    rec.note("streaming rows are then compared with the best OpenMP copy of this run (group stream)");
    return;
  }
  {  // An empty CUDA kernel, launched and waited for.
    void *mod = nullptr, *fn = nullptr;
    if (d.cuModuleLoadData(&mod, empty_ptx) == 0 && d.cuModuleGetFunction(&fn, mod, "course_empty") == 0) {
      bool ok = true;
      const Times t = time_it([&] {
        ok = d.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) == 0 && ok;
        ok = d.cuCtxSynchronize() == 0 && ok;
      }, launches, 20);
      rec.add({"launch", "empty CUDA kernel (cuLaunchKernel + cuCtxSynchronize)", "-", t.median_ms, t.best_ms,
               t.median_ms * 1e3, "us", 0, ok ? "ok" : "WRONG"});
    } else {
      rec.note("empty CUDA kernel: cuModuleLoadData/cuModuleGetFunction failed, launch comparison skipped");
    }
  }
  // Physical peaks from the device's attributes.
  const int mem_khz = attribute(d, 36), bus_bits = attribute(d, 37), sms = attribute(d, 16),
            sm_khz = attribute(d, 13), major = attribute(d, 75), minor = attribute(d, 76);
  c.multiprocessors = sms > 0 ? sms : c.multiprocessors;
  c.hbm_peak_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  const int lanes = (major == 8 && minor == 0) || major == 7 || (major == 6 && minor == 0) ? 64 : 128;
  c.fp32_peak_gflops = 2.0 * sms * lanes * sm_khz * 1e3 / 1e9;
  char b[200];
  std::snprintf(b, sizeof b, "device attributes: sm_%d%d, %d SMs at %.0f MHz, memory clock %.0f MHz, bus %d bits", major,
                minor, sms, sm_khz / 1e3, mem_khz / 1e3, bus_bits);
  rec.note(b);
  rec.add(ceiling_row("HBM peak (2 x memory clock x bus width)", "-", {}, c.hbm_peak_gbs, "GB/s", "ok"));
  rec.add(ceiling_row("FP32 peak (SMs x " + std::to_string(lanes) + " lanes x 2 x SM clock)", "-", {},
                      c.fp32_peak_gflops, "GFLOP/s", "ok"));
  // The vendor's copy at the sizes the streaming rows use.
  const std::vector<std::size_t> sizes =
      o.tiny ? std::vector<std::size_t>{std::size_t{1} << 22}
             : std::vector<std::size_t>{std::size_t{1} << 28, std::size_t{1} << 29, std::size_t{1} << 30};
  for (std::size_t bytes : sizes) d2d_copy(o, d, c, rec, bytes);
  std::snprintf(b, sizeof b, "streaming ceiling (pct_of_ceiling of GB/s rows): D2D copy %.1f GB/s = %.1f%% of HBM peak",
                c.copy_d2d_gbs, c.hbm_peak_gbs > 0 ? 100.0 * c.copy_d2d_gbs / c.hbm_peak_gbs : 0.0);
  rec.note(b);
}

Times vendor_sgemm(int n, const float *dA, const float *dB, float *dC, int reps, int warmup, std::string &why,
                   const std::string &lib_path) {
  Times bad{-1, -1};
  Driver &d = driver();
  if (!d.ok) {
    why = d.why;
    return bad;
  }
  static void *lib = [&]() -> void * {
    std::vector<std::string> names;
    if (!lib_path.empty()) names.push_back(lib_path);
    for (const char *s : {"libcublas.so.12", "libcublas.so.13", "libcublas.so.11", "libcublas.so",
                          "/usr/local/cuda/lib64/libcublas.so"})
      names.push_back(s);
    for (const auto &s : names)
      if (void *h = dlopen(s.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    return nullptr;
  }();
  if (!lib) {
    why = "no libcublas could be loaded (--cublas PATH names one)";
    return bad;
  }
  using create_t = int (*)(void **);
  using destroy_t = int (*)(void *);
  using mode_t = int (*)(void *, int);
  using sgemm_t = int (*)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
                          const float *, float *, int);
  auto create = reinterpret_cast<create_t>(dlsym(lib, "cublasCreate_v2"));
  auto destroy = reinterpret_cast<destroy_t>(dlsym(lib, "cublasDestroy_v2"));
  auto mode = reinterpret_cast<mode_t>(dlsym(lib, "cublasSetMathMode"));
  auto sgemm = reinterpret_cast<sgemm_t>(dlsym(lib, "cublasSgemm_v2"));
  void *h = nullptr;
  if (!create || !destroy || !mode || !sgemm || create(&h) != 0) {
    why = "cuBLAS found but cublasCreate failed";
    return bad;
  }
  mode(h, 0);  // CUBLAS_DEFAULT_MATH: plain FP32, no TF32 tensor cores
  const float one = 1.f, zero = 0.f;
  bool ok = true;
  // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
  const Times t = time_it([&] {
    ok = sgemm(h, 0, 0, n, n, n, &one, dB, n, dA, n, &zero, dC, n) == 0 && ok;
    ok = d.cuCtxSynchronize() == 0 && ok;
  }, reps, warmup);
  destroy(h);
  if (!ok) {
    why = "cublasSgemm failed";
    return bad;
  }
  return t;
}

}  // namespace perf
