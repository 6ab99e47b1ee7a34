// lesson11 -- runs lesson 11's sums and histogram beside the one-load-at-a-time
// baselines they start from and, on GPUs, beside the same kernels written as
// LLVM `ompx_bare` kernels (the escape hatch), with x already on the device.
// Every result is verified against a host reference.
// Then one N-body step (11.3) beside the starter's kernel (one body per
// thread, exact 1 / sqrt), in GFLOP/s (20 flops per interaction); the report
// sets it beside the classic tiled CUDA kernel (ceiling "cuda-nbody", a peer
// that may be beaten; the FP32 peak where that did not run). Last the SGEMM
// (11.4) beside lesson 5's register tile, against cuBLAS (ceiling "sgemm").
//   usage: lesson11 [--n 268435456] [--bodies 65536] [--matrix 4096]
//                   [--reps 20] [--size tiny|teaching|full] [--csv FILE]
//                   [--only-yours]
// Then the same sum of n ints and of n doubles (step 11.1 is one template).
// The report divides each sum's and histogram's rate by CUB's on the same card
// (ceilings "cub-sum-float", "-int", "-double", "cub-histogram"; the vendor's
// device-to-device copy where CUB did not run): each reads its n elements once.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "compute.hpp"
#include "../escape_hatch/escape_hatch.hpp"
#include "lesson11_plain.hpp"
#include "streaming.hpp"

namespace {

namespace ref = course::baseline::lesson11;

std::vector<course::ResultRow> rows_out;

using lesson11_driver::Variant;

// Times each variant (median of reps after one warm-up), checks its result,
// prints one line and adds one row per variant.
void experiment(const std::string &name, const std::string &ceiling, std::size_t n, std::size_t element, int reps,
                const std::vector<Variant> &variants,
                const std::function<course::Check(const std::string &)> &verify) {
  const double bytes = static_cast<double>(element) * static_cast<double>(n);
  double base_ms = 0;
  for (const auto &v : variants) {
    const double ms = course::time_median(v.run, reps, 1).median * 1e3;
    const auto check = verify(v.name);
    const double gbs = ms > 0 ? bytes / ms / 1e6 : 0;
    if (v.role == "baseline") base_ms = ms;
    const std::string note = v.role != "baseline" && base_ms > 0 ? course::times(base_ms / ms) + " vs baseline" : "";
    course::ResultRow r = course::make_row(11, name, v.name, std::to_string(n), ms, gbs, "GB/s", ceiling, check.ok, note);
    r.role = v.role;
    r.bytes = bytes;
    r.in_cache = course::fits_in_cache(bytes);
    rows_out.push_back(r);
    std::printf("  %-44s %9.4f ms %9.1f GB/s %-16s %s\n", v.name.c_str(), ms, gbs, note.c_str(),
                course::answer_text(check.ok, check.message).c_str());
    std::fflush(stdout);
  }
}

// The same sum of ints (0 or 1 each: exact, and the sum fits an int) or of
// doubles (x's floats), beside its one-element-at-a-time baseline.
template <class T>
void sum_of(const char *type, std::size_t n, int reps, bool only_yours) {
  const auto f = course::random_vector<float>(n, course::default_seed + 12, 0.0f, 1.0f);
  std::vector<T> x(n);
  long double want = 0;
  for (std::size_t i = 0; i < n; ++i) want += x[i] = std::is_integral_v<T> ? T(f[i] < 0.5f) : T(f[i]);
  const T *xp = x.data();
  std::printf("\nsum of %zu %ss, x on the device, median of %d\n", n, type, reps);
  T got = 0;
  std::vector<Variant> v;
  if (!only_yours) v.push_back({"one element at a time (baseline)", "baseline", [&] { got = ref::plain_sum(xp, n); }});
  v.push_back({COURSE_KERNELS, "kernel", [&] { got = lesson11::sum(xp, n); }});
  const double tol = course::sum_tolerance<T>(n);
#pragma omp target data map(to : xp[0:n])
  experiment(std::string("sum ") + type, std::string("cub-sum-") + type, n, sizeof(T), reps, v,
             [&](const std::string &name) {
               return course::check_scalar(static_cast<double>(got), static_cast<double>(want), tol, "sum " + name);
             });
}

}  // namespace

int main(int argc, char **argv) {
  course::Cli cli("lesson11", "lesson 11, matching the vendor: sum, histogram, N-body and SGEMM beside their baselines");
  const auto &n_arg = cli.integer("--n", 1LL << 28, "floats in x (1 GiB at 2^28)", 1, (1LL << 31) - 1);
  const auto &bodies = cli.integer("--bodies", 65536, "bodies of the N-body step (step 11.3)", 1, 1 << 20);
  const auto &matrix = cli.integer("--matrix", 4096, "rows and columns of the SGEMM's matrices (step 11.4)", 1, 16384);
  const auto &reps = cli.integer("--reps", 20, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's code (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "100003", "--bodies", "1000", "--matrix", "130", "--reps", "2"});
  cli.preset("teaching", {"--n", "67108864", "--bodies", "65536", "--matrix", "2048", "--reps", "10"});
  cli.preset("full", {"--n", "268435456", "--bodies", "65536", "--matrix", "4096", "--reps", "20"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::size_t n = static_cast<std::size_t>(n_arg);
  const int R = static_cast<int>(reps);
  const auto x = course::random_vector<float>(n, course::default_seed + 11, 0.0f, 1.0f);
  const float *xp = x.data();
  const std::string who = COURSE_KERNELS;
  const bool bare = lesson11_bare::available() && !only_yours;
  if (!lesson11_bare::available() && !only_yours)
    std::printf("(the ompx_bare rows run on GPU builds only: LLVM 19 cannot run a bare region on its host device)\n");

  double want_sum = 0;
  std::vector<int> want_hist(lesson11::hist_bins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    want_sum += x[i];
    ++want_hist[lesson11::bin_of(x[i])];
  }

#pragma omp target data map(to : xp[0:n])
  {
    std::printf("\nsum of %zu floats, x on the device, median of %d\n", n, R);
    float got = 0;
    std::vector<Variant> v;
    if (!only_yours) v.push_back({"one 4-byte load at a time (baseline)", "baseline", [&] { got = ref::plain_sum(xp, n); }});
    v.push_back({who, "kernel", [&] { got = lesson11::sum(xp, n); }});
    if (bare) v.push_back({"ompx_bare + warp shuffles (LLVM only)", "variant", [&] { got = lesson11_bare::sum(xp, n); }});
    const double tol = course::sum_tolerance<float>(n);
    experiment("sum float", "cub-sum-float", n, sizeof(float), R, v, [&](const std::string &name) {
      return course::check_scalar(got, want_sum, tol, "sum " + name);
    });

    std::printf("\nhistogram, 256 bins, of %zu floats, x on the device, median of %d\n", n, R);
    std::vector<int> hist(lesson11::hist_bins, 0);
    std::vector<Variant> h;
    if (!only_yours)
      h.push_back({"one 4-byte load per atomic (baseline)", "baseline", [&] { ref::plain_histogram(xp, n, hist.data()); }});
    h.push_back({who, "kernel", [&] { lesson11::histogram(xp, n, hist.data()); }});
    if (bare)
      h.push_back({"ompx_bare, .shared bins (LLVM only)", "variant", [&] {
                     std::fill(hist.begin(), hist.end(), 0);
                     lesson11_bare::histogram(xp, n, hist.data());
                   }});
    experiment("histogram 256", "cub-histogram", n, sizeof(float), R, h, [&](const std::string &name) {
      return course::check_equal<int>(hist, want_hist, "histogram " + name);
    });
  }
  sum_of<int>("int", n, R, only_yours);
  sum_of<double>("double", n, R, only_yours);
  lesson11_driver::nbody_experiment(static_cast<int>(bodies), R, only_yours, rows_out);
  lesson11_driver::gemm_experiment(static_cast<int>(matrix), R, only_yours, rows_out);
  return course::finish(rows_out, csv);
}
