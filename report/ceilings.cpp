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
// Under the device line it prints how the host waits for the GPU ("gpu wait:
// ...", course::cuda_wait(), set before the OpenMP runtime started): the
// report says it under its title.
// The kernels and probes live beside this file (ceilings.hpp): ceilings_copy.cpp,
// ceilings_host.cpp, ceilings_vendor.cpp; this file runs them and writes the rows.
//   usage: course_ceilings [--n ELEMENTS] [--reps N] [--size tiny|teaching|full] [--csv FILE]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ceilings.hpp"
#include "course/cli.hpp"
#include "course/cuda_driver.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"

#if defined(__aarch64__)
#define COURSE_HOST_ISA "NEON with FMA"
#else
#define COURSE_HOST_ISA "SSE2, no FMA"
#endif

using measure::CopyShape;

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
  std::printf("gpu wait: %s\n", course::cuda_wait().note.c_str());
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
  const std::vector<CopyShape> &shapes = measure::copy_shapes();
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
                           "the best OpenMP copy kernel the course writes: " + omp_best_name + ", " + fastest +
                               ", per call: host clock around the target region");

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
    const auto t =
        course::time_median([&] { measure::copy_host_parallel(ha.data(), hb.data(), hn); }, (int)reps, 2);
    const bool ok = std::equal(ha.begin(), ha.end(), hb.begin());
    const double rate = 8.0 * (double)hn / t.min / 1e9;
    std::printf("  host copy, omp parallel for on %d threads %29s %10.3f ms  %9.1f GB/s  %s\n", omp_get_max_threads(),
                "", t.min * 1e3, rate, ok ? "PASS" : "FAILED");
    host_copy = row("ceiling", gpu ? "host-copy" : "copy", std::to_string(hn) + " floats", t.min * 1e3, rate, "GB/s",
                    ok, "STREAM-like copy on the host CPU's " + std::to_string(omp_get_max_threads()) +
                            " threads (omp parallel for, no target region), bytes read + written, " + fastest);

    const measure::HostPeak peak = measure::host_fp32_peak();
    host_fp32 = row("ceiling", gpu ? "host-fp32" : "fp32", "", 0, peak.gflops, "GFLOP/s", peak.gflops > 0,
                    "from /proc/cpuinfo: " + peak.how);
    std::printf("  host fp32 peak (cpuinfo)  %9.1f GFLOP/s  %s\n", peak.gflops, peak.how.c_str());
    int threads = 1;
    const bool quick = n < (1LL << 20);  // tiny sizes: a smoke run
    const double best = measure::host_fp32_best(quick, threads);
    std::printf("  host fp32, this build's flags (measured)  %9.1f GFLOP/s\n", best);
    details.push_back(row("ceiling detail", "host FP32 measured, this build's flags", "registers only", 0, best,
                          "GFLOP/s", best > 0,
                          "independent multiply-add chains on " + std::to_string(threads) +
                              " host threads, compiled like the lessons (no -march: " COURSE_HOST_ISA "); what the "
                              "lessons' code can reach, below the CPU's peak"));
  }

  // --- the device's ceilings ------------------------------------------------
  if (gpu) {
    const measure::VendorCopy v = measure::vendor_copy((long long)(4 * n), (int)reps);
    std::printf("  vendor copy: %s%s\n", v.gbs > 0 ? (std::to_string((int)v.gbs) + " GB/s, ").c_str() : "",
                v.note.c_str());
    if (v.gbs > 0) {
      ceilings.push_back(row("ceiling", "copy", size, v.ms, v.gbs, "GB/s", v.ok, v.note));
      // Its per-call twin (the report's " per call" rows, report/vendor.hpp): the clock the OpenMP copies use.
      if (v.call_gbs > 0) {
        auto twin = row("ceiling", "copy per call", size, v.call_ms, v.call_gbs, "GB/s", v.ok,
                        "cuMemcpyDtoD per call: host clock around the call + cuCtxSynchronize, " + fastest);
        twin.role = "reference";  // not a ceiling any row divides by: the report sets it beside omp-copy
        details.push_back(twin);
      }
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
