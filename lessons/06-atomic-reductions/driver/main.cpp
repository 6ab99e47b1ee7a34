// lesson06 -- the oneAPI atomics chapter's comparison, measured here: a sum
// of int, float and double done three ways (one global atomic per element,
// OpenMP's reduction clause, a team-local partial with one atomic per team),
// then a 256-bin histogram done the same three ways. Each row is in GB/s of
// input read and as a share of a plain copy kernel's bandwidth measured in
// the same run; the report also sets each beside CUB's sum or histogram on the
// same card where it measured them. Every result is verified. The sum and histogram experiments
// are in driver/reductions.cpp (experiments.hpp lists what they share).
//   usage: lesson06 [--n N] [--slow-n N] [--reps 5] [--sweep K,K,...]
//                   [--size tiny|teaching|full] [--csv FILE] [--only-yours]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "atomics.hpp"
#include "course/cli.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "course/results.hpp"
#include "course/timing.hpp"
#include "course/verify.hpp"
#include "experiments.hpp"
#include "lesson06_atomics.hpp"

namespace driver {

course::ResultRow measure(Ctx &ctx, const std::string &experiment, const std::string &variant, std::size_t n,
                          double bytes, const std::function<void()> &f, const std::function<course::Check()> &verify,
                          bool fastest, const Place &place) {
  auto t = course::time_median(f, ctx.reps, 1);
  if (fastest) t.median = t.min;
  const auto check = verify();
  const bool ceiling = experiment == "copy";
  // Against the vendor's code where the report measured it (CUB's sum of the
  // same type, its histogram), else against the copy (the report's fallback).
  const std::string vs = ceiling                              ? "copy"
                         : experiment.rfind("sum ", 0) == 0 ? "cub-sum-" + experiment.substr(4)
                                                              : "cub-histogram";
  course::ResultRow r = course::make_row(6, experiment, variant, std::to_string(n), t.median * 1e3,
                                         t.median > 0 ? bytes / t.median / 1e9 : 0, "GB/s", vs, check.ok);
  r.role = ceiling ? "reference" : place.role.empty() ? "variant" : place.role;
  r.bytes = bytes;
  r.in_cache = course::fits_in_cache(bytes);
  if (!place.method.empty()) {
    r.plot = "matrix: accumulation method";  // experiment (sum int ... histogram) x method
    r.param = place.method;
    r.seed = "Atomics: int vs float vs double, global vs team-local (oneAPI atomics chapter)";
    if (place.method == "global atomic")
      r.article = "oneAPI chapter: one global accumulator serialises; float and double atomics emulated on Gen9 / Iris Xe";
    else if (place.method == "team-local")
      r.article = "oneAPI chapter: local-memory partials, one global atomic per work-group";
  }
  const double pct = ceiling ? 100.0 : (ctx.copy_gbs > 0 ? 100.0 * r.rate / ctx.copy_gbs : 0);
  if (!ceiling) r.note = course::format("%.1f%% of copy", pct);
  const std::string share = ceiling ? "      -" : course::format("%7.1f%%", pct);
  std::printf("  %-16s %-34s %11.3f ms %10.2f GB/s %s  %s%s\n", experiment.c_str(), variant.c_str(), r.time_ms, r.rate,
              share.c_str(), course::answer_word(r), check.ok ? "" : ("  " + check.message).c_str());
  std::fflush(stdout);
  ctx.rows.push_back(r);
  return r;
}

void print_matrix(const Ctx &ctx, const std::vector<std::vector<double>> &sum, const std::vector<double> &hist,
                  bool only_yours) {
  const char *types[] = {"int", "float", "double"};
  auto cell = [&](double gbs) {
    return gbs <= 0 ? course::format("%22s", "-")
                    : course::format("%10.1f GB/s %6.1f%%", gbs, ctx.copy_gbs > 0 ? 100.0 * gbs / ctx.copy_gbs : 0.0);
  };
  std::printf("\nThe chapter's comparison on this device (copy kernel: %.1f GB/s = 100%%):\n", ctx.copy_gbs);
  std::printf("  %-10s %22s %22s %22s\n", "sum", "global atomic", "reduction clause", "team-local (" COURSE_KERNELS ")");
  for (int t = 0; t < 3; ++t)
    std::printf("  %-10s %s %s %s\n", types[t], cell(sum[t][0]).c_str(), cell(sum[t][1]).c_str(),
                cell(sum[t][2]).c_str());
  std::printf("  %-10s %s %s %s\n", "histogram", cell(hist[0]).c_str(), cell(hist[1]).c_str(), cell(hist[2]).c_str());
  if (only_yours) std::printf("  (--only-yours: the reduction clause histogram is yours, the other columns were skipped)\n");
  std::printf(
      "\nThe oneAPI chapter: integer atomics are native everywhere; float and double atomics are not on Gen9 and\n"
      "Iris Xe GPUs (emulated, tens of millions of extra instructions); local-memory atomics beat global ones.\n"
      "Measured on an H200 (docs/results/lesson06-atomic-reductions.md), GB/s: global atomic sum int 85,\n"
      "float 2.2, double 4.5; reduction clause 519-674; team-local 1155-1992; histogram: global atomic 31.9,\n"
      "reduction clause 0.56, team-local 1678.\n");
}

}  // namespace driver

namespace ref = course::baseline::lesson6;

int main(int argc, char **argv) {
  const bool gpu = course::device_info().is_gpu();
  course::Cli cli("lesson06", "lesson 6, atomic reductions: global atomic vs reduction clause vs team-local, sum and histogram");
  const auto &n = cli.integer("--n", gpu ? (1LL << 28) : (1LL << 24),
                              "elements per array (about 20 bytes each of host and device memory)", 1, 1LL << 30);
  const auto &slow_n = cli.integer("--slow-n", 1LL << 24,
                                   "elements for the variants far below bandwidth: global atomics and the array "
                                   "reduction (at most --n)",
                                   1, 1LL << 30);
  const auto &reps = cli.integer("--reps", gpu ? 20 : 5, "timed runs per variant (the median is reported)", 1, 1000);
  const auto &sweep = cli.integers("--sweep", {},
                                   "also run your sum with K teams per multiprocessor (GPU) or per core (host), "
                                   "for each K in the list",
                                   1, 1024);
  const auto &csv = cli.text("--csv", "", "append result rows to this CSV file");
  const auto &only_yours = cli.flag("--only-yours", "run only the lesson's kernels (" COURSE_KERNELS ")");
  cli.preset("tiny", {"--n", "1000", "--slow-n", "1000", "--reps", "1"});
  cli.preset("teaching", {"--reps", "3"});
  cli.preset("full", {"--reps", "5"});
  cli.parse(argc, argv);

  std::printf("%s\n", course::device_banner().c_str());
  const std::size_t N = static_cast<std::size_t>(n);
  const std::size_t S = std::min<std::size_t>(N, static_cast<std::size_t>(slow_n));
  std::printf("n = %zu (int and float %.0f MiB, double %.0f MiB); global atomics and the array reduction on %zu\n", N,
              N * 4.0 / (1 << 20), N * 8.0 / (1 << 20), S);
  std::printf("inputs: ints in [0, %d], floats and doubles in [0, 1), seed %llu\n", ref::int_input_max(N),
              static_cast<unsigned long long>(course::default_seed));
  std::fflush(stdout);
  const auto xi = ref::sum_input<int>(N, course::default_seed);
  const auto xf = ref::sum_input<float>(N, course::default_seed + 1);
  const auto xd = ref::sum_input<double>(N, course::default_seed + 2);
  const auto &xh = xf;  // the histogram reads the float data: values in [0, 1)
  std::vector<float> dst(N);

  driver::Ctx ctx;
  ctx.reps = static_cast<int>(reps);
  std::vector<std::vector<double>> sum(3);
  std::vector<double> hist(3, 0.0);
  const int *pi = xi.data();
  const float *pf = xf.data();
  const double *pd = xd.data();
  float *pdst = dst.data();
  // Everything is copied to the device once: the rows time kernels, not copies.
#pragma omp target data map(to : pi[0:N], pf[0:N], pd[0:N]) map(alloc : pdst[0:N])
  {
    std::printf("\n  %-16s %-34s %14s %15s %8s\n", "experiment", "variant", "time", "rate", "of copy");
    // SNIPPET(ceiling)
    // The ceiling: the fastest run of the fastest copy shape, the report's
    // rule. Kernels are judged by their median, so the share is if anything
    // understated. The copies run first for a while, so the device is
    // awake (clocks up) before anything is timed.
    std::vector<std::pair<std::string, void (*)(const float *, float *, std::size_t)>> shapes = {
        {"copy, runtime's launch", ref::copy}};
    if (gpu) shapes.push_back({"copy, a thread per element", ref::copy_one_per_thread});
    for (int w = 0; w < 10; ++w)
      for (const auto &sh : shapes) sh.second(pf, pdst, N);
    for (const auto &sh : shapes) {
      const auto r = driver::measure(ctx, "copy", sh.first, N, 8.0 * N, [&] { sh.second(pf, pdst, N); }, [&] {
#pragma omp target update from(pdst[0:N])
        return course::check_equal<float>(dst, xf, sh.first);
      }, true);
      if (r.status == "PASS") ctx.copy_gbs = std::max(ctx.copy_gbs, r.rate);
    }
    // END SNIPPET
    std::printf("  ceiling: %.1f GB/s (fastest copy run)\n", ctx.copy_gbs);

    // What one call costs whatever its size: launch, the 4-byte copies of the
    // result there and back, the wait. It is why small sums cannot reach
    // bandwidth.
    int one = 0;
    const auto call = course::time_median([&] { one = lesson6::sum(pi, 1); }, ctx.reps, 1);
    std::printf("  cost of one call (%s int sum of 1 element): %.1f us%s\n", COURSE_KERNELS, call.median * 1e6,
                one == xi[0] ? "" : "  (WRONG RESULT)");

    sum[0] = driver::sum_rows<int>(ctx, "int", xi, S, only_yours, sweep);
    sum[1] = driver::sum_rows<float>(ctx, "float", xf, S, only_yours, sweep);
    sum[2] = driver::sum_rows<double>(ctx, "double", xd, S, only_yours, sweep);

    hist = driver::histogram_rows(ctx, xh, N, S, only_yours);
  }
  driver::print_matrix(ctx, sum, hist, only_yours);
  return course::finish(ctx.rows, csv);
}
