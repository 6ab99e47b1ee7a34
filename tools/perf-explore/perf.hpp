/// @file tools/perf-explore/perf.hpp
/// @brief Shared pieces of course_perf_explore: the options, the result rows
///        (one CSV line per variant), kernel timing, seeded inputs made in
///        parallel, and the 16-byte vector types the variants load with.
///
/// The tool measures many variants of the streaming, reduction, matmul and
/// N-body solutions in one process, against ceilings measured in the same run,
/// so that the fastest correct ones can be put into solutions/. Every variant
/// keeps its lesson's function signature and contract (drop-in), and every
/// result is verified against a host reference; a fast wrong variant says
/// WRONG.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace perf {

/// What the command line asked for.
struct Options {
  bool tiny = false;       ///< smoke-test sizes (host device, CI)
  int reps = 10;           ///< timed runs per variant
  int warmup = 2;          ///< untimed runs before them
  std::string csv;         ///< CSV file to write (empty: none)
  std::vector<std::string> only;  ///< groups to run (empty: all)
  std::string cublas;      ///< path of libcublas to dlopen (empty: try the usual names)
  /// Whether group @p g runs.
  bool wants(const std::string &g) const {
    return only.empty() || std::find(only.begin(), only.end(), g) != only.end();
  }
};

/// The ceilings of this run (0 where not measured).
struct Ceilings {
  double copy_d2d_gbs = 0;       ///< vendor's device-to-device copy (cuMemcpyDtoD), read + write
  double copy_omp_gbs = 0;       ///< best correct OpenMP copy variant of this run
  double hbm_peak_gbs = 0;       ///< memory clock x bus width x 2 (double data rate)
  double fp32_peak_gflops = 0;   ///< SMs x 128 lanes x 2 flops x SM clock
  double sgemm_gflops = 0;       ///< cuBLAS SGEMM (FP32) at the matmul size
  int multiprocessors = 0;       ///< SMs (GPU) or host cores: the unit team counts are given in
  /// The streaming ceiling: the vendor's copy where measured, else the best OpenMP copy.
  double stream() const { return copy_d2d_gbs > 0 ? copy_d2d_gbs : copy_omp_gbs; }
};

/// One variant's result: the CSV columns.
struct Row {
  std::string kernel, variant, size;
  double median_ms = 0, best_ms = 0, rate = 0;
  std::string unit;
  double pct = 0;  ///< percent of the kernel's ceiling (0: no ceiling)
  std::string ok;  ///< "ok", "WRONG" or "SKIP"
};

/// Prints rows as they come and keeps the CSV file up to date (flushed after
/// every row, so a run that is cut short still leaves what it measured).
class Recorder {
 public:
  explicit Recorder(const std::string &csv_path);
  ~Recorder();
  /// Prints and writes one row.
  void add(const Row &r);
  /// Prints and writes a comment line ("# ..."), e.g. why a variant is WRONG.
  void note(const std::string &text);
  /// Every row so far.
  const std::vector<Row> &rows() const { return rows_; }

 private:
  std::FILE *file_ = nullptr;
  std::vector<Row> rows_;
};

/// Median and best of repeated timings, in milliseconds.
struct Times {
  double median_ms = 0, best_ms = 0;
};

/// Runs @p f @p warmup times, then @p reps times timed (wall clock around
/// each call: the call waits for its kernel, like the lesson programs' timing).
template <class F>
Times time_it(F &&f, int reps, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    const auto t1 = std::chrono::steady_clock::now();
    t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(t.begin(), t.end());
  if (t.empty()) return {};
  const std::size_t k = t.size();
  return {k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]), t.front()};
}

/// A verification verdict with the first problem found.
struct Verdict {
  bool ok = true;
  std::string what;  ///< empty when ok
};

/// Deterministic pseudo-random numbers by index (splitmix64), so inputs are
/// made in parallel and any element can be recomputed.
inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
/// A float in [0, 1) from element @p i of stream @p seed (24 random bits: exact in float).
inline float unit_float(std::uint64_t seed, std::uint64_t i) {
  return static_cast<float>(mix(seed * 0x100000001b3ull + i) >> 40) * (1.0f / 16777216.0f);
}

/// Fills @p v in parallel on the host with f(i).
template <class T, class F>
void fill_parallel(std::vector<T> &v, F f) {
  const std::size_t n = v.size();
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) v[i] = f(i);
}

/// Sixteen bytes that travel together: one 16-byte load or store on a GPU
/// (ld.global.v4 / ld.global.v2.f64). 4 floats, 4 ints or 2 doubles.
template <class T>
struct alignas(16) Vec16 {
  T v[16 / sizeof(T)];  ///< the elements
};

/// True when @p p is 16-byte aligned (checked inside kernels on the device
/// address, since a mapped array's device copy has its own alignment).
inline bool aligned16(const void *p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

/// "2^28" for powers of two, else the number.
std::string size_text(std::size_t n);

/// Team counts of the variants are given per multiprocessor ("SMx8"); on the
/// host device the unit is a core.
inline int teams_per_unit(const Ceilings &c, int k) { return std::max(1, c.multiprocessors) * k; }

// The groups, one per source file. Each adds its rows to @p rec.
void run_ceilings(const Options &o, Ceilings &c, Recorder &rec);      ///< vendor.cpp: D2D copy, HBM and FP32 peak, launch cost
void run_stream(const Options &o, Ceilings &c, Recorder &rec);        ///< stream.cpp: lesson 2 add-exp and the OpenMP copy
void run_reductions(const Options &o, const Ceilings &c, Recorder &rec);  ///< reduce.cpp: lesson 6 sums and histogram
void run_image(const Options &o, const Ceilings &c, Recorder &rec);   ///< image.cpp: lesson 8 best pattern
void run_matmul(const Options &o, Ceilings &c, Recorder &rec);        ///< matmul.cpp: lesson 5 final matmul (+ cuBLAS)
void run_nbody(const Options &o, const Ceilings &c, Recorder &rec);   ///< nbody.cpp: lesson 7 tiled N-body step

/// cuBLAS SGEMM through dlopen on device pointers, row-major C = A x B: the
/// median and best milliseconds of @p reps runs, or a negative median with
/// @p why set when cuBLAS or the CUDA driver is not there. vendor.cpp.
Times vendor_sgemm(int n, const float *dA, const float *dB, float *dC, int reps, int warmup, std::string &why,
                   const std::string &lib_path);

}  // namespace perf
