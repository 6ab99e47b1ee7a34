// course_ceilings -- measures, in the same run as the lessons, the ceilings
// the course report divides every row by. Each is a row with experiment
// "ceiling" and the ceiling's name as its variant:
//
//   copy         the device's best memory copy, bytes read + written.
//                NVIDIA: the vendor's device-to-device copy (cuMemcpyDtoD,
//                what cudaMemcpy D2D calls), through the CUDA driver loaded at
//                run time (no CUDA headers or toolkit at build time). Host
//                device: a STREAM-like copy on every core (omp parallel for).
//   omp-copy     the best copy kernel the course can write in OpenMP, shown
//                beside the vendor's: plain loops and 16-byte elements
//                (struct alignas(16) {float x, y, z, w;}), one or several
//                per thread, in a few launch shapes (each a detail row).
//   memory-peak  NVIDIA: the physical peak from the device's properties,
//                2 (double data rate) x memory clock x bus width.
//   fp32         GPU: SMs x FP32 lanes x 2 (FMA) x clock, from the properties.
//                Host: cores x clock x vector lanes x 2 (FMA) x 2 FMA pipes,
//                from /proc/cpuinfo's flags (avx512f / avx2 / fma) and clock;
//                the FP32 rate this build's flags reach is measured beside it.
//   host-copy,   the host CPU's own ceilings in an NVIDIA build, for the code
//   host-fp32    that runs on host threads in every build (lesson 1).
//
// The matmul ceiling `sgemm` comes from course_sgemm (cuBLAS) or
// course_blas_sgemm (OpenBLAS on the host CPU).
//   usage: course_ceilings [--n ELEMENTS] [--reps N] [--size tiny|teaching|full] [--csv FILE]
#include <dlfcn.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"

#if defined(__aarch64__)
#define COURSE_HOST_ISA "NEON with FMA"
#else
#define COURSE_HOST_ISA "SSE2, no FMA"
#endif

namespace {

// A 16-byte element: one load and one store instruction move four floats
// (ld.global.v4.f32 on NVIDIA), so each thread keeps more bytes in flight.
struct alignas(16) Vec4 {
  float x, y, z, w;
};

// One way of launching a copy kernel on data already present on the device.
struct CopyShape {
  std::string name;
  void (*run)(const float *a, float *b, long long n);
  bool gpu_only;
};

// SNIPPET(copy-kernel)
// The plain copy: one float per loop iteration, the runtime picks teams and threads.
void copy_default(const float *a, float *b, long long n) {
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}
// END SNIPPET

// Four floats per iteration, a quarter of the array apart: neighbouring
// threads still touch neighbouring addresses, and each has four loads in flight.
void copy_four_per_thread(const float *a, float *b, long long n) {
  const long long q = n / 4;
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < q; ++i) {
    b[i] = a[i];
    b[i + q] = a[i + q];
    b[i + 2 * q] = a[i + 2 * q];
    b[i + 3 * q] = a[i + 3 * q];
  }
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 4 * q; i < n; ++i) b[i] = a[i];
}

// 256 threads per team, one float per thread.
void copy_256_threads(const float *a, float *b, long long n) {
  const int teams = (int)std::min<long long>((n + 255) / 256, 1LL << 30);
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(256) map(present, to : a[0 : n]) \
    map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

// The tail a 16-byte copy leaves when n is not a multiple of 4.
void copy_tail(const float *a, float *b, long long n) {
  const long long from = n / 4 * 4;
  if (from == n) return;
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = from; i < n; ++i) b[i] = a[i];
}

// SNIPPET(vec4-copy)
// 16-byte elements, one per thread, 256 threads per team: on an H100 this
// reached 80 % of cudaMemcpy where the float copy above reached 29-43 %.
// (a and b are 64-byte aligned: course::aligned_vector, and the device's own
// allocations are aligned more.)
template <int kThreads>
void copy_vec4(const float *a, float *b, long long n) {
  const long long n4 = n / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
  const int teams = (int)std::max<long long>(1, std::min<long long>((n4 + kThreads - 1) / kThreads, 1LL << 30));
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(kThreads) \
    map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 0; i < n4; ++i) b4[i] = a4[i];
  copy_tail(a, b, n);
}
// END SNIPPET

// 16-byte elements, four per thread a quarter of the array apart: four
// 16-byte loads in flight per thread.
void copy_vec4_four_per_thread(const float *a, float *b, long long n) {
  const long long n4 = n / 4, q = n4 / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
  const int teams = (int)std::max<long long>(1, std::min<long long>((q + 255) / 256, 1LL << 30));
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(256) \
    map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 0; i < q; ++i) {
    b4[i] = a4[i];
    b4[i + q] = a4[i + q];
    b4[i + 2 * q] = a4[i + 2 * q];
    b4[i + 3 * q] = a4[i + 3 * q];
  }
#pragma omp target teams distribute parallel for map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 4 * q; i < n4; ++i) b4[i] = a4[i];
  copy_tail(a, b, n);
}

// The same 16-byte copy with the runtime's launch (the host device grants
// 1-2 threads per team, so explicit shapes are for GPUs).
void copy_vec4_default(const float *a, float *b, long long n) {
  const long long n4 = n / 4;
  const Vec4 *a4 = reinterpret_cast<const Vec4 *>(a);
  Vec4 *b4 = reinterpret_cast<Vec4 *>(b);
#pragma omp target teams distribute parallel for map(present, to : a4[0 : n4]) map(present, from : b4[0 : n4])
  for (long long i = 0; i < n4; ++i) b4[i] = a4[i];
  copy_tail(a, b, n);
}

// STREAM's copy on the host CPU: every core, no target region.
void copy_host_parallel(const float *a, float *b, long long n) {
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

// FP32 throughput of this build on the host: kChains independent
// multiply-add chains per thread, long enough that memory plays no part.
// Counted as 2 flops per element per iteration, as GFLOP/s everywhere in the course.
template <int kChains>
double host_fp32_measured(long long iters, int &threads_used) {
  float sink = 0;
  const double seconds = course::time_once([&] {
#pragma omp parallel reduction(+ : sink)
    {
      float x[kChains];
      for (int l = 0; l < kChains; ++l) x[l] = 1.0f + 1e-3f * (float)(l + omp_get_thread_num());
      const float m = 0.999999f, c = 1e-7f;
      for (long long it = 0; it < iters; ++it)
        for (int l = 0; l < kChains; ++l) x[l] = x[l] * m + c;
      for (int l = 0; l < kChains; ++l) sink += x[l];
#pragma omp single
      threads_used = omp_get_num_threads();
    }
  });
  if (sink == 12345.0f) std::printf(" ");  // keeps the chains alive
  return 2.0 * kChains * (double)iters * threads_used / seconds / 1e9;
}

// ---- the host CPU's FP32 peak from /proc/cpuinfo ----------------------------

struct HostPeak {
  double gflops = 0;
  std::string how;
};

HostPeak host_fp32_peak() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, flags;
  double mhz = 0;
  std::set<std::pair<int, int>> cores;
  int physical = 0, core = -1;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (core >= 0) cores.insert({physical, core});
      core = -1;
      continue;
    }
    const std::string key = line.substr(0, line.find_first_of(" \t")), value = line.substr(colon + 1);
    if (key == "flags" && flags.empty()) flags = " " + value + " ";
    if (key == "cpu" && line.rfind("cpu MHz", 0) == 0 && mhz == 0) mhz = std::stod(value);
    if (key == "physical") physical = std::stoi(value);
    if (key == "core" && line.rfind("core id", 0) == 0) core = std::stoi(value);
  }
  if (core >= 0) cores.insert({physical, core});
  // The highest clock the CPU may run at, where the kernel says (not in most VMs).
  std::ifstream fmax("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  const bool have_max = static_cast<bool>(fmax >> khz) && khz > 0;
  const double ghz = have_max ? khz / 1e6 : mhz / 1e3;
  auto has = [&](const char *f) { return flags.find(std::string(" ") + f + " ") != std::string::npos; };
#if defined(__aarch64__)
  // Arm: 128-bit NEON (4 FP32 lanes) with FMA in the base instruction set;
  // the course builds without -march, so no SVE. Two FMA pipes assumed
  // (Neoverse N1; Neoverse V2 and Apple cores have four: the peak is then 2x this).
  (void)has;
  const int lanes = 4;
  const bool fma = true;
  const char *isa = "neon";
#else
  const int lanes = has("avx512f") ? 16 : has("avx2") || has("avx") ? 8 : 4;
  const bool fma = has("fma");
  const char *isa = lanes == 16 ? "avx512f" : lanes == 8 ? "avx2" : "sse";
#endif
  // Two FMA (or one add + one multiply) pipes per core, as on every x86
  // core since Haswell / Zen 2; some AVX-512 parts have one 512-bit pipe.
  const int flops_per_lane = fma ? 4 : 2;
  // Cores, not hardware threads: two hyperthreads share one core's pipes.
  const int usable = omp_get_num_procs();
  const int n_cores = std::max(1, std::min<int>(usable, cores.empty() ? usable : (int)cores.size()));
  HostPeak p;
  p.gflops = n_cores * ghz * lanes * flops_per_lane;
  char how[320];
  std::snprintf(how, sizeof how,
                "%d cores x %.2f GHz (%s) x %d FP32 lanes (%s) x %s = %d flops per lane per cycle; not measured",
                n_cores, ghz, have_max ? "cpuinfo_max_freq" : "cpu MHz now: turbo may be higher", lanes,
                isa, fma ? "2 FMA pipes x 2" : "add + multiply",
                flops_per_lane);
  p.how = how;
  return p;
}

// ---- the vendor's copy through the CUDA driver, loaded at run time ---------

// The driver API's types as plain C types: no cuda.h at build time.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = unsigned long long;

struct VendorCopy {
  double gbs = 0, ms = 0;
  bool ok = false;
  std::string note;  // how, or why it could not be measured
};

VendorCopy vendor_copy(long long bytes, int reps) {
  VendorCopy v;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    v.note = "not measured: libcuda.so.1 (the NVIDIA driver) cannot be loaded";
    return v;
  }
  auto sym = [&](const char *a, const char *b = nullptr) {
    void *p = dlsym(lib, a);
    return p || !b ? p : dlsym(lib, b);
  };
  auto cuInit = (CUresult(*)(unsigned))sym("cuInit");
  auto cuDeviceGet = (CUresult(*)(CUdevice *, int))sym("cuDeviceGet");
  auto retain = (CUresult(*)(CUcontext *, CUdevice))sym("cuDevicePrimaryCtxRetain");
  auto release = (CUresult(*)(CUdevice))sym("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
  auto push = (CUresult(*)(CUcontext))sym("cuCtxPushCurrent_v2", "cuCtxPushCurrent");
  auto pop = (CUresult(*)(CUcontext *))sym("cuCtxPopCurrent_v2", "cuCtxPopCurrent");
  auto alloc = (CUresult(*)(CUdeviceptr *, std::size_t))sym("cuMemAlloc_v2");
  auto mfree = (CUresult(*)(CUdeviceptr))sym("cuMemFree_v2");
  auto memset32 = (CUresult(*)(CUdeviceptr, unsigned, std::size_t))sym("cuMemsetD32_v2");
  auto dtod = (CUresult(*)(CUdeviceptr, CUdeviceptr, std::size_t, CUstream))sym("cuMemcpyDtoDAsync_v2");
  auto dtoh = (CUresult(*)(void *, CUdeviceptr, std::size_t))sym("cuMemcpyDtoH_v2");
  auto sync = (CUresult(*)())sym("cuCtxSynchronize");
  auto ev_create = (CUresult(*)(CUevent *, unsigned))sym("cuEventCreate");
  auto ev_record = (CUresult(*)(CUevent, CUstream))sym("cuEventRecord");
  auto ev_sync = (CUresult(*)(CUevent))sym("cuEventSynchronize");
  auto ev_elapsed = (CUresult(*)(float *, CUevent, CUevent))sym("cuEventElapsedTime", "cuEventElapsedTime_v2");
  auto ev_destroy = (CUresult(*)(CUevent))sym("cuEventDestroy_v2", "cuEventDestroy");
  auto err_string = (CUresult(*)(CUresult, const char **))sym("cuGetErrorString");
  if (!cuInit || !cuDeviceGet || !retain || !release || !push || !pop || !alloc || !mfree || !memset32 || !dtod ||
      !dtoh || !sync || !ev_create || !ev_record || !ev_sync || !ev_elapsed || !ev_destroy) {
    v.note = "not measured: the CUDA driver lacks a function this program uses";
    return v;
  }
  CUresult failed = 0;
  const char *where = "";
  auto ok = [&](CUresult r, const char *what) {
    if (r != 0 && failed == 0) {
      failed = r;
      where = what;
    }
    return r == 0;
  };
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUdeviceptr src = 0, dst = 0;
  CUevent e0 = nullptr, e1 = nullptr;
  // The OpenMP runtime already holds this device's primary context: share it.
  if (ok(cuInit(0), "cuInit") && ok(cuDeviceGet(&dev, omp_get_default_device()), "cuDeviceGet") &&
      ok(retain(&ctx, dev), "cuDevicePrimaryCtxRetain") && ok(push(ctx), "cuCtxPushCurrent")) {
    const std::size_t b = (std::size_t)bytes;
    if (ok(alloc(&src, b), "cuMemAlloc") && ok(alloc(&dst, b), "cuMemAlloc") &&
        ok(memset32(src, 0x3f800000u, b / 4), "cuMemsetD32") && ok(memset32(dst, 0, b / 4), "cuMemsetD32") &&
        ok(ev_create(&e0, 0), "cuEventCreate") && ok(ev_create(&e1, 0), "cuEventCreate")) {
      for (int w = 0; w < 3; ++w) ok(dtod(dst, src, b, nullptr), "cuMemcpyDtoD");
      ok(sync(), "cuCtxSynchronize");
      // The fastest run, as STREAM reports a ceiling.
      double best = 0;
      for (int r = 0; r < reps && failed == 0; ++r) {
        float ms = 0;
        ok(ev_record(e0, nullptr), "cuEventRecord");
        ok(dtod(dst, src, b, nullptr), "cuMemcpyDtoD");
        ok(ev_record(e1, nullptr), "cuEventRecord");
        ok(ev_sync(e1), "cuEventSynchronize");
        ok(ev_elapsed(&ms, e0, e1), "cuEventElapsedTime");
        if (ms > 0 && (best == 0 || ms < best)) best = ms;
      }
      // Verified: the first and last 4 KiB of the destination hold the source's 1.0f.
      std::vector<float> head(1024, 0.f), tail(1024, 0.f);
      const std::size_t chunk = std::min<std::size_t>(4096, b);
      ok(dtoh(head.data(), dst, chunk), "cuMemcpyDtoH");
      ok(dtoh(tail.data(), dst + (b - chunk), chunk), "cuMemcpyDtoH");
      bool right = failed == 0;
      for (std::size_t i = 0; i < chunk / 4; ++i) right = right && head[i] == 1.0f && tail[i] == 1.0f;
      if (failed == 0 && best > 0) {
        v.ms = best;
        v.gbs = 2.0 * (double)bytes / (best * 1e-3) / 1e9;
        v.ok = right;
        v.note = "cuMemcpyDtoD (the driver call under cudaMemcpy device to device), " + std::to_string(bytes >> 20) +
                 " MiB, bytes read + written, fastest of " + std::to_string(reps) + " runs, CUDA events" +
                 (right ? "" : "; WRONG: the copy's destination does not hold the source");
      }
    }
    if (e0) ev_destroy(e0);
    if (e1) ev_destroy(e1);
    if (src) mfree(src);
    if (dst) mfree(dst);
    CUcontext popped = nullptr;
    pop(&popped);
    release(dev);
  }
  if (failed != 0) {
    const char *msg = nullptr;
    if (err_string) err_string(failed, &msg);
    v.ok = false;
    v.gbs = 0;
    v.note = std::string("not measured: ") + where + " failed (" + (msg ? msg : "CUDA error " + std::to_string(failed)) +
             ")";
  }
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  const auto &dev = course::device_info();
  const bool gpu = dev.is_gpu();
  course::Cli cli("course_ceilings",
                  "the report's ceilings on this device: the vendor's copy (NVIDIA) or a STREAM copy on every core "
                  "(host), the best OpenMP copy, the memory and FP32 peaks");
  const auto &n = cli.integer("--n", gpu ? (1LL << 28) : (1LL << 24), "floats per array in the copies (2 arrays)",
                              1024, 1LL << 31);
  const auto &reps = cli.integer("--reps", gpu ? 20 : 7, "timed runs per copy (the fastest is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  cli.preset("tiny", {"--n", std::to_string(1 << 16), "--reps", "3"});
  cli.preset("teaching", {});
  cli.preset("full", gpu ? std::vector<std::string>{"--reps", "30"}
                         : std::vector<std::string>{"--n", std::to_string(1 << 25), "--reps", "9"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::string size = std::to_string(n) + " floats";
  const double bytes = 2.0 * 4.0 * (double)n;  // read a, write b
  course::aligned_vector<float> a((std::size_t)n), b((std::size_t)n);
  for (long long i = 0; i < n; ++i) a[(std::size_t)i] = (float)(i % 1021) * 0.5f;
  float *pa = a.data(), *pb = b.data();
  const long long count = n;

  std::vector<course::ResultRow> ceilings, details;
  auto row = [&](const std::string &experiment, const std::string &variant, const std::string &rsize, double ms,
                 double rate, const std::string &unit, bool ok, const std::string &note) {
    course::ResultRow r = course::make_row(0, experiment, variant, rsize, ms, rate, unit, "", ok, note);
    r.role = experiment == "ceiling" ? "ceiling" : "reference";
    if (unit == "GB/s" && ms > 0) r.bytes = rate * 1e9 * ms * 1e-3;
    return r;
  };
  const std::string fastest = "fastest of " + std::to_string(reps) + " runs";

  // --- the best OpenMP copy on the device ------------------------------------
  const std::vector<CopyShape> shapes = {
      {"float, runtime's launch", copy_default, false},
      {"float, 4 per thread", copy_four_per_thread, false},
      {"16-byte elements, runtime's launch", copy_vec4_default, false},
      // On the host device a team is 1-2 threads: explicit shapes only warn there.
      {"float, 256 threads per team", copy_256_threads, true},
      {"16-byte elements, 256 threads per team", copy_vec4<256>, true},
      {"16-byte elements, 512 threads per team", copy_vec4<512>, true},
      {"16-byte elements x 4 per thread, 256 threads per team", copy_vec4_four_per_thread, true},
  };
  double omp_best = 0, omp_best_ms = 0;
  std::string omp_best_name;
  bool omp_ok = true;
#pragma omp target enter data map(to : pa[0 : count]) map(alloc : pb[0 : count])
  for (const auto &s : shapes) {
    if (s.gpu_only && !gpu) continue;
    // poison b on the device so a shape that copies nothing cannot pass
#pragma omp target teams distribute parallel for map(present, from : pb[0 : count])
    for (long long i = 0; i < count; ++i) pb[i] = -1.0f;
    const auto t = course::time_median([&] { s.run(pa, pb, count); }, (int)reps, 2);
#pragma omp target update from(pb[0 : count])
    bool ok = true;
    for (long long i = 0; i < count && ok; ++i) ok = b[(std::size_t)i] == a[(std::size_t)i];
    omp_ok = omp_ok && ok;
    const double rate = bytes / t.min / 1e9;
    std::printf("  OpenMP copy, %-54s %10.3f ms  %9.1f GB/s  %s\n", s.name.c_str(), t.min * 1e3, rate,
                ok ? "PASS" : "FAILED");
    std::fflush(stdout);
    details.push_back(row("ceiling detail", "OpenMP copy: " + s.name, size, t.min * 1e3, rate, "GB/s", ok,
                          fastest + "; data resident on the device"));
    if (ok && rate > omp_best) {
      omp_best = rate;
      omp_best_ms = t.min * 1e3;
      omp_best_name = s.name;
    }
  }
#pragma omp target exit data map(delete : pa[0 : count], pb[0 : count])
  const auto omp_row = row("ceiling", "omp-copy", size, omp_best_ms, omp_best, "GB/s", omp_ok && omp_best > 0,
                           "the best OpenMP copy kernel the course writes: " + omp_best_name + ", " + fastest);

  // --- the host CPU: STREAM-like copy on every core, FP32 peak -------------------
  // In an NVIDIA build these are the host's ceilings (lesson 1); on the host
  // device they are the device's.
  const long long hn = gpu ? std::min<long long>(n, 1LL << 24) : n;
  course::ResultRow host_copy, host_fp32;
  {
    std::vector<float> ha((std::size_t)hn), hb((std::size_t)hn);
#pragma omp parallel for schedule(static)  // first touch by the threads that copy
    for (long long i = 0; i < hn; ++i) {
      ha[(std::size_t)i] = (float)(i % 1021) * 0.5f;
      hb[(std::size_t)i] = -1.0f;
    }
    const auto t = course::time_median([&] { copy_host_parallel(ha.data(), hb.data(), hn); }, (int)reps, 2);
    const bool ok = std::equal(ha.begin(), ha.end(), hb.begin());
    const double rate = 8.0 * (double)hn / t.min / 1e9;
    std::printf("  host copy, omp parallel for on %d threads %29s %10.3f ms  %9.1f GB/s  %s\n", omp_get_max_threads(),
                "", t.min * 1e3, rate, ok ? "PASS" : "FAILED");
    host_copy = row("ceiling", gpu ? "host-copy" : "copy", std::to_string(hn) + " floats", t.min * 1e3, rate, "GB/s",
                    ok, "STREAM-like copy on the host CPU's " + std::to_string(omp_get_max_threads()) +
                            " threads (omp parallel for, no target region), bytes read + written, " + fastest);

    const HostPeak peak = host_fp32_peak();
    host_fp32 = row("ceiling", gpu ? "host-fp32" : "fp32", "", 0, peak.gflops, "GFLOP/s", peak.gflops > 0,
                    "from /proc/cpuinfo: " + peak.how);
    std::printf("  host fp32 peak (cpuinfo)  %9.1f GFLOP/s  %s\n", peak.gflops, peak.how.c_str());
    int threads = 1;
    double best = 0;
    const bool quick = n < (1LL << 20);  // tiny sizes: a smoke run
    for (int rep = 0; rep < (quick ? 1 : 3); ++rep) {
      const long long iters = quick ? 200'000 : 4'000'000;
      best = std::max(best, host_fp32_measured<32>(iters, threads));
      best = std::max(best, host_fp32_measured<48>(iters * 2 / 3, threads));
    }
    std::printf("  host fp32, this build's flags (measured)  %9.1f GFLOP/s\n", best);
    details.push_back(row("ceiling detail", "host FP32 measured, this build's flags", "registers only", 0, best,
                          "GFLOP/s", best > 0,
                          "independent multiply-add chains on " + std::to_string(threads) +
                              " host threads, compiled like the lessons (no -march: " COURSE_HOST_ISA "); what the "
                              "lessons' code can reach, below the CPU's peak"));
  }

  // --- the device's ceilings ------------------------------------------------
  if (gpu) {
    const VendorCopy v = vendor_copy((long long)(4 * n), (int)reps);
    std::printf("  vendor copy: %s%s\n", v.gbs > 0 ? (std::to_string((int)v.gbs) + " GB/s, ").c_str() : "",
                v.note.c_str());
    if (v.gbs > 0) {
      ceilings.push_back(row("ceiling", "copy", size, v.ms, v.gbs, "GB/s", v.ok, v.note));
    } else {
      // No vendor copy: the best OpenMP copy stands in, and says so.
      auto r = omp_row;
      r.variant = "copy";
      r.note = "the vendor's copy " + v.note + "; this is the best OpenMP copy instead: " + omp_best_name;
      ceilings.push_back(r);
    }
    ceilings.push_back(omp_row);
    char how[200];
    std::snprintf(how, sizeof how, "from device properties: 2 (DDR) x memory clock x bus width; %s",
                  dev.memory_peak_gbs > 0 ? "the physical limit no copy reaches" : "unknown: the driver gave none");
    ceilings.push_back(row("ceiling", "memory-peak", "", 0, dev.memory_peak_gbs, "GB/s", dev.memory_peak_gbs > 0, how));
    std::snprintf(how, sizeof how, "from device properties: %d SMs x FP32 lanes x 2 (FMA) x %.3f GHz",
                  dev.multiprocessors, dev.clock_ghz);
    ceilings.push_back(row("ceiling", "fp32", "", 0, dev.fp32_peak_gflops, "GFLOP/s", dev.fp32_peak_gflops > 0,
                           dev.fp32_peak_gflops > 0 ? how : "unknown: the CUDA driver could not be queried"));
    std::printf("  memory peak (properties)  %9.1f GB/s\n  fp32 peak (properties)    %9.1f GFLOP/s\n",
                dev.memory_peak_gbs, dev.fp32_peak_gflops);
    ceilings.push_back(host_copy);
    ceilings.push_back(host_fp32);
  } else {
    ceilings.push_back(host_copy);
    ceilings.push_back(omp_row);
    ceilings.push_back(host_fp32);
  }
  ceilings.insert(ceilings.end(), details.begin(), details.end());
  return course::finish(ceilings, csv);
}
