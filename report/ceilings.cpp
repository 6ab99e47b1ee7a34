// course_ceilings -- measures the ceilings the course report compares every
// lesson's rows with, on the configured offload device, in the same run:
//
//   copy-bandwidth  a plain copy kernel (b[i] = a[i]) in a target region, data
//                   already resident on the device; bytes read + written, the
//                   fastest run of the best of a few launch shapes (named in
//                   the note)
//   fp32-peak       GPU: from the device's properties (SMs x FP32 lanes x 2 x
//                   boost clock). Host: there is no datasheet figure the build
//                   can know, so it is MEASURED with independent multiply-add
//                   chains on every host thread, compiled with this build's
//                   flags (no -march: the ISA the lessons' code gets), and
//                   labelled as measured.
//
// Also rows for every launch shape tried and, on the host device, a copy with
// plain `omp parallel for` (no target region) for comparison.
//   usage: course_ceilings [--n ELEMENTS] [--reps N] [--csv FILE]
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "course/cli.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"

namespace {

// One way of launching the copy kernel. Each runs on data already mapped
// (present) on the device, so only the kernel is timed.
struct CopyShape {
  const char *name;
  void (*run)(const float *a, float *b, long long n);
};

// SNIPPET(copy-kernel)
// The plain copy: one element per loop iteration, the runtime picks teams and threads.
void copy_default(const float *a, float *b, long long n) {
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}
// END SNIPPET

// Four elements per iteration, a quarter of the array apart: consecutive
// threads still touch consecutive addresses (coalesced on a GPU) and each
// thread has four independent loads in flight.
void copy_four_per_thread(const float *a, float *b, long long n) {
  const long long q = n / 4;
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < q; ++i) {
    b[i] = a[i];
    b[i + q] = a[i + q];
    b[i + 2 * q] = a[i + 2 * q];
    b[i + 3 * q] = a[i + 3 * q];
  }
  // the tail when n is not a multiple of 4
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 4 * q; i < n; ++i) b[i] = a[i];
}

// An explicit launch shape: 256 threads per team, enough teams for one
// element per thread. (Where the device grants fewer threads the loop is
// still correct: distribute parallel for splits whatever it gets.)
void copy_256_threads(const float *a, float *b, long long n) {
  const int teams = (int)std::min<long long>((n + 255) / 256, 1LL << 30);
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(256) map(present, to : a[0 : n]) \
    map(present, from : b[0 : n])
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

// The launch shape lesson 2 found fastest for streaming on an H200: 1024
// threads per team, four elements per thread a quarter of the array apart
// (coalesced, four loads in flight per thread).
void copy_1024_threads_four(const float *a, float *b, long long n) {
  const long long q = n / 4;
  const int teams = (int)std::max<long long>(1, std::min<long long>((q + 1023) / 1024, 1LL << 30));
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(1024) \
    map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 0; i < q; ++i) {
    b[i] = a[i];
    b[i + q] = a[i + q];
    b[i + 2 * q] = a[i + 2 * q];
    b[i + 3 * q] = a[i + 3 * q];
  }
#pragma omp target teams distribute parallel for map(present, to : a[0 : n]) map(present, from : b[0 : n])
  for (long long i = 4 * q; i < n; ++i) b[i] = a[i];
}

// Host threads without any target region: what the CPU's own memory system gives.
void copy_host_parallel(const float *a, float *b, long long n) {
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) b[i] = a[i];
}

// FP32 throughput of this build on the host: kChains independent
// multiply-add chains per thread, long enough that memory plays no part.
// Separate multiply and add (no -ffast-math, no FMA contraction guaranteed),
// counted as 2 flops per element per iteration, the same convention as
// GFLOP/s everywhere in the course.
template <int kChains>
double host_fp32_gflops(long long iters, int &threads_used) {
  double flops = 0, seconds = 0;
  float sink = 0;
  seconds = course::time_once([&] {
#pragma omp parallel reduction(+ : sink)
    {
      float x[kChains];
      for (int l = 0; l < kChains; ++l) x[l] = 1.0f + 1e-3f * (float)(l + omp_get_thread_num());
      const float m = 0.999999f, c = 1e-7f;
      // The chain loop is fully unrolled and vectorized by the compiler
      // (constant trip count); an explicit simd here conflicts with that.
      for (long long it = 0; it < iters; ++it)
        for (int l = 0; l < kChains; ++l) x[l] = x[l] * m + c;
      for (int l = 0; l < kChains; ++l) sink += x[l];
#pragma omp single
      threads_used = omp_get_num_threads();
    }
  });
  flops = 2.0 * kChains * (double)iters * threads_used;
  if (sink == 12345.0f) std::printf(" ");  // keeps the chains alive
  return flops / seconds / 1e9;
}

std::string shape_note(const char *name) { return std::string("launch: ") + name; }

}  // namespace

int main(int argc, char **argv) {
  const auto &dev = course::device_info();
  course::Cli cli("course_ceilings",
                  "the report's ceilings on this device: copy bandwidth (plain copy kernel) and FP32 peak");
  const long long default_n = dev.is_gpu() ? (1LL << 28) : (1LL << 24);
  const auto &n = cli.integer("--n", default_n, "floats per array in the copy (2 arrays)", 1024, 1LL << 31);
  const auto &reps = cli.integer("--reps", dev.is_gpu() ? 20 : 7, "timed runs per shape (the fastest is reported)", 1,
                                 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::string size = std::to_string(n) + " floats";
  const double bytes = 2.0 * 4.0 * (double)n;  // read a, write b
  std::vector<float> a((std::size_t)n), b((std::size_t)n);
  for (long long i = 0; i < n; ++i) a[(std::size_t)i] = (float)(i % 1021) * 0.5f;
  float *pa = a.data(), *pb = b.data();
  const long long count = n;

  std::vector<course::ResultRow> rows;
  auto row = [&](const std::string &variant, double ms, double rate, const std::string &unit,
                 const std::string &ceiling, bool ok, const std::string &note, const std::string &experiment) {
    course::ResultRow r;
    r.lesson = 0;
    r.experiment = experiment;
    r.variant = variant;
    r.size = unit == "GB/s" ? size : "registers only";
    r.time_ms = ms;
    r.rate = rate;
    r.unit = unit;
    r.ceiling = ceiling;
    r.status = ok ? "PASS" : "FAILED";
    r.note = note;
    return r;
  };

  // --- copy bandwidth on the device ---------------------------------------
  std::vector<CopyShape> shapes = {
      {"default teams x threads", copy_default},
      {"4 elements per thread", copy_four_per_thread},
  };
  // On the host device a team is 1-2 threads: asking for 256 only prints a warning.
  if (dev.is_gpu()) {
    shapes.push_back({"256 threads per team", copy_256_threads});
    shapes.push_back({"1024 threads x 4 elements per thread", copy_1024_threads_four});
  }
  double best_rate = 0, best_ms = 0;
  std::string best_name;
  bool all_ok = true;
#pragma omp target enter data map(to : pa[0 : count]) map(alloc : pb[0 : count])
  for (const auto &s : shapes) {
    // poison b on the device so a shape that copies nothing cannot pass
#pragma omp target teams distribute parallel for map(present, from : pb[0 : count])
    for (long long i = 0; i < count; ++i) pb[i] = -1.0f;
    const auto t = course::time_median([&] { s.run(pa, pb, count); }, (int)reps, 2);
#pragma omp target update from(pb[0 : count])
    bool ok = true;
    for (long long i = 0; i < count && ok; ++i) ok = b[(std::size_t)i] == a[(std::size_t)i];
    all_ok = all_ok && ok;
    // A ceiling is what the device CAN do: the fastest run, as STREAM reports
    // it, so load from other programs on a shared machine lowers it less.
    const double rate = bytes / t.min / 1e9;
    std::printf("  copy, %-26s %10.3f ms  %9.1f GB/s  %s\n", s.name, t.min * 1e3, rate, ok ? "PASS" : "FAILED");
    std::fflush(stdout);
    rows.push_back(row(std::string("copy: ") + s.name, t.min * 1e3, rate, "GB/s", "copy-bandwidth", ok,
                       "bytes read + written, fastest of " + std::to_string(reps) + " runs; data resident on the device",
                       "ceiling detail"));
    if (ok && rate > best_rate) {
      best_rate = rate;
      best_ms = t.min * 1e3;
      best_name = s.name;
    }
  }
#pragma omp target exit data map(delete : pa[0 : count], pb[0 : count])

  if (!dev.is_gpu()) {
    // The CPU's own copy, for comparison with the host-offload device's.
    std::fill(b.begin(), b.end(), -1.0f);
    const auto t = course::time_median([&] { copy_host_parallel(pa, pb, count); }, (int)reps, 2);
    const bool ok = std::equal(a.begin(), a.end(), b.begin());
    const double rate = bytes / t.min / 1e9;
    std::printf("  copy, %-26s %10.3f ms  %9.1f GB/s  %s\n", "host omp parallel for", t.min * 1e3, rate,
                ok ? "PASS" : "FAILED");
    rows.push_back(row("copy: host omp parallel for (no target)", t.min * 1e3, rate, "GB/s", "copy-bandwidth", ok,
                       "for comparison only: not the device's ceiling", "ceiling detail"));
  }
  rows.insert(rows.begin(), row("copy-bandwidth", best_ms, best_rate, "GB/s", "copy-bandwidth", all_ok && best_rate > 0,
                                "plain copy kernel on the device, fastest run of the best " +
                                    shape_note(best_name.c_str()) + "; bytes read + written",
                                "ceiling"));

  // --- FP32 peak -----------------------------------------------------------
  if (dev.is_gpu()) {
    const bool known = dev.fp32_peak_gflops > 0;
    char note[200];
    std::snprintf(note, sizeof note, "from device properties: %d SMs x 128 FP32 lanes x 2 flops x %.3f GHz",
                  dev.multiprocessors, dev.clock_ghz);
    rows.insert(rows.begin() + 1, row("fp32-peak", 0, dev.fp32_peak_gflops, "GFLOP/s", "fp32-peak", known,
                                      known ? note : "unknown: the CUDA driver could not be queried", "ceiling"));
    std::printf("  fp32 peak (properties)           %9.1f GFLOP/s\n", dev.fp32_peak_gflops);
  } else {
    // Scale the iteration count so each measurement takes ~0.2 s per thread.
    int threads = 1;
    double best = 0;
    const char *best_chains = "";
    for (int rep = 0; rep < 3; ++rep) {
      const double g32 = host_fp32_gflops<32>(4'000'000, threads);
      const double g48 = host_fp32_gflops<48>(2'600'000, threads);
      if (g32 > best) {
        best = g32;
        best_chains = "32";
      }
      if (g48 > best) {
        best = g48;
        best_chains = "48";
      }
    }
    char note[240];
    std::snprintf(note, sizeof note,
                  "MEASURED, not a datasheet peak: %s independent multiply-add chains per thread on %d host "
                  "threads, this build's flags (no -march)",
                  best_chains, threads);
    rows.insert(rows.begin() + 1, row("fp32-peak", 0, best, "GFLOP/s", "fp32-peak", best > 0, note, "ceiling"));
    std::printf("  fp32 peak (measured, %d threads)  %9.1f GFLOP/s\n", threads, best);
  }
  return course::finish(rows, csv);
}
