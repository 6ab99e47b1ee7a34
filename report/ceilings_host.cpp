// ceilings_host.cpp -- the host CPU's FP32 ceilings for course_ceilings (see
// ceilings.hpp): the peak worked out from /proc/cpuinfo, and the rate this
// build's flags reach, measured.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <utility>

#include "ceilings.hpp"
#include "course/timing.hpp"

namespace measure {
namespace {

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

}  // namespace

double host_fp32_best(bool quick, int &threads_used) {
  double best = 0;
  for (int rep = 0; rep < (quick ? 1 : 3); ++rep) {
    const long long iters = quick ? 200'000 : 4'000'000;
    best = std::max(best, host_fp32_measured<32>(iters, threads_used));
    best = std::max(best, host_fp32_measured<48>(iters * 2 / 3, threads_used));
  }
  return best;
}

// ---- the host CPU's FP32 peak from /proc/cpuinfo ----------------------------

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

}  // namespace measure
