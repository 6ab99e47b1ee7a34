// lesson06, experiments 2 and 3: the sum of int, float and double, and a
// 256-bin histogram, each done three ways (one global atomic per element,
// OpenMP's reduction clause, a team-local partial with one atomic per team).
#include <omp.h>

#include <algorithm>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "atomics.hpp"
#include "course/data.hpp"
#include "course/device.hpp"
#include "experiments.hpp"
#include "lesson06_atomics.hpp"

namespace driver {

namespace ref = course::baseline::lesson6;

namespace {

template <class T>
course::Check check_sum(T got, const T *x, std::size_t n, const std::string &what) {
  if constexpr (std::is_same_v<T, int>) {
    std::vector<long long> g{got}, w{ref::sum_reference(x, n)};
    return course::check_equal<long long>(g, w, what);
  } else {
    return course::check_scalar(static_cast<double>(got), ref::sum_reference(x, n), course::sum_tolerance<T>(n), what);
  }
}

}  // namespace

template <class T>
std::vector<double> sum_rows(Ctx &ctx, const char *type, const std::vector<T> &x, std::size_t slow_n,
                             bool only_yours, const std::vector<long long> &sweep) {
  const std::string exp = std::string("sum ") + type;
  const std::size_t n = x.size();
  const double bytes = static_cast<double>(n) * sizeof(T);
  std::vector<double> gbs(3, 0.0);
  T got = 0;
  if (!only_yours) {
    // One accumulator for everything: slow, and for float also inexact: a
    // float total stops at 2^24 = 16777216, where adding a value below 1
    // rounds back to the same number (about 2^25 of our values). These rows
    // run on the first slow_n elements only.
    const std::size_t m = std::min(n, slow_n);
    gbs[0] = measure(ctx, exp, "global atomic (baseline)", m, static_cast<double>(m) * sizeof(T),
                     [&] { got = ref::sum_global_atomic(x.data(), m); },
                     [&] { return check_sum(got, x.data(), m, exp + " global atomic"); }, false,
                     {"baseline", "global atomic"})
                 .rate;
    gbs[1] = measure(ctx, exp, "reduction clause", n, bytes, [&] { got = ref::sum_reduction_clause(x.data(), n); },
                     [&] { return check_sum(got, x.data(), n, exp + " reduction clause"); }, false,
                     {"variant", "reduction clause"})
                 .rate;
  }
  gbs[2] = measure(ctx, exp, std::string(COURSE_KERNELS) + " (team-local)", n, bytes,
                   [&] { got = lesson6::sum(x.data(), n); },
                   [&] { return check_sum(got, x.data(), n, exp + " " COURSE_KERNELS); }, false,
                   {"kernel", "team-local"})
               .rate;
  // The sweep: the same kernel with k teams per multiprocessor (GPU) or core.
  const auto &dev = course::device_info();
  const int units = dev.is_gpu() ? std::max(dev.multiprocessors, 1) : std::max(omp_get_num_procs(), 1);
  for (long long k : sweep) {
    const lesson6::Launch l{static_cast<int>(k * units), dev.is_gpu() ? lesson6::gpu_team_threads : 1};
    measure(ctx, exp, std::string(COURSE_KERNELS) + ", " + std::to_string(l.teams) + " teams", n, bytes,
            [&] { got = lesson6::sum(x.data(), n, l); },
            [&] { return check_sum(got, x.data(), n, exp + " sweep"); }, false, {"variant", ""});
  }
  return gbs;
}

template std::vector<double> sum_rows<int>(Ctx &, const char *, const std::vector<int> &, std::size_t, bool,
                                           const std::vector<long long> &);
template std::vector<double> sum_rows<float>(Ctx &, const char *, const std::vector<float> &, std::size_t, bool,
                                             const std::vector<long long> &);
template std::vector<double> sum_rows<double>(Ctx &, const char *, const std::vector<double> &, std::size_t, bool,
                                              const std::vector<long long> &);

std::vector<double> histogram_rows(Ctx &ctx, const std::vector<float> &x, std::size_t N, std::size_t S,
                                   bool only_yours) {
  std::vector<double> hist(3, 0.0);
  const float *pf = x.data();
  const std::string exp = "histogram 256";
  const double bytes = 4.0 * N;
  const auto want = ref::histogram_reference(x.data(), N);
  std::vector<int> h(lesson6::hist_bins);
  auto check = [&](const char *what) {
    return course::check_equal<int>(h, want, exp + " " + what);
  };
  if (!only_yours)
    hist[0] = measure(ctx, exp, "global atomic (baseline)", N, bytes,
                      [&] {
                        course::poison(std::span<int>(h));
                        ref::histogram_global_atomic(pf, N, h.data());
                      },
                      [&] { return check("global atomic"); }, false, {"baseline", "global atomic"})
                  .rate;
  // The array reduction is far below bandwidth on a GPU: it runs on the first S elements.
  const auto want_s = S == N ? want : ref::histogram_reference(x.data(), S);
  hist[1] = measure(ctx, exp, std::string(COURSE_KERNELS) + " (reduction clause)", S, 4.0 * S,
                    [&] {
                      course::poison(std::span<int>(h));
                      lesson6::histogram_reduction(pf, S, h.data());
                    },
                    [&] { return course::check_equal<int>(h, want_s, exp + " reduction clause"); }, false,
                    {"kernel", "reduction clause"})
                .rate;
  hist[2] = measure(ctx, exp, std::string(COURSE_KERNELS) + " (team-local)", N, bytes,
                    [&] {
                      course::poison(std::span<int>(h));
                      lesson6::histogram(pf, N, h.data());
                    },
                    [&] { return check(COURSE_KERNELS); }, false, {"kernel", "team-local"})
                .rate;
  return hist;
}

}  // namespace driver
