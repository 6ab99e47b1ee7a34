// lesson06_atomics.cpp -- lesson 6's fixed kernels: the global-atomic and
// reduction-clause sums and histogram, the copy kernel, inputs and references.
#include "lesson06_atomics.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "course/data.hpp"

namespace course::baseline::lesson6 {
namespace {

// Every element is one atomic read-modify-write of the same address: the
// updates serialise where that address lives (L2 on a GPU, a contended cache
// line on a CPU).
template <class T>
T global_atomic(const T *x, std::size_t n) {
  T total = 0;
  // SNIPPET(global-atomic)
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : total)
  for (std::size_t i = 0; i < n; ++i) {
#pragma omp atomic update
    total += x[i];
  }
  // END SNIPPET
  return total;
}

// The compiler privatises `total` per thread and combines the copies itself.
template <class T>
T reduction_clause(const T *x, std::size_t n) {
  T total = 0;
  // SNIPPET(reduction-clause)
#pragma omp target teams distribute parallel for reduction(+ : total) map(to : x[0:n])
  for (std::size_t i = 0; i < n; ++i) total += x[i];
  // END SNIPPET
  return total;
}

}  // namespace

int sum_global_atomic(const int *x, std::size_t n) { return global_atomic(x, n); }
float sum_global_atomic(const float *x, std::size_t n) { return global_atomic(x, n); }
double sum_global_atomic(const double *x, std::size_t n) { return global_atomic(x, n); }

int sum_reduction_clause(const int *x, std::size_t n) { return reduction_clause(x, n); }
float sum_reduction_clause(const float *x, std::size_t n) { return reduction_clause(x, n); }
double sum_reduction_clause(const double *x, std::size_t n) { return reduction_clause(x, n); }

void histogram_global_atomic(const float *x, std::size_t n, int *hist) {
  // hist may already be on the device (a caller's target data): zero it
  // there, so the result does not depend on what the host copy holds.
#pragma omp target data map(to : x[0:n]) map(from : hist[0 : ::lesson6::hist_bins])
  {
#pragma omp target teams distribute parallel for
    for (int b = 0; b < ::lesson6::hist_bins; ++b) hist[b] = 0;
    // SNIPPET(histogram-global-atomic)
#pragma omp target teams distribute parallel for
    for (std::size_t i = 0; i < n; ++i) {
      const int b = ::lesson6::bin_of(x[i]);
#pragma omp atomic update
      hist[b] += 1;
    }
    // END SNIPPET
  }
}

void copy(const float *src, float *dst, std::size_t n) {
#pragma omp target teams distribute parallel for map(to : src[0:n]) map(from : dst[0:n])
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
}

void copy_one_per_thread(const float *src, float *dst, std::size_t n) {
  const std::size_t teams = std::clamp<std::size_t>((n + 255) / 256, 1, 0x7fffffff);
#pragma omp target teams distribute parallel for num_teams(static_cast<int>(teams)) thread_limit(256) \
    map(to : src[0:n]) map(from : dst[0:n])
  for (std::size_t i = 0; i < n; ++i) dst[i] = src[i];
}

int int_input_max(std::size_t n) {
  const std::size_t m = n == 0 ? 100 : static_cast<std::size_t>(INT_MAX) / n;
  return static_cast<int>(std::clamp<std::size_t>(m, 1, 100));
}

template <>
std::vector<int> sum_input<int>(std::size_t n, std::uint64_t seed) {
  return random_vector<int>(n, seed, 0, int_input_max(n));
}
template <>
std::vector<float> sum_input<float>(std::size_t n, std::uint64_t seed) {
  // Multiples of 2^-24 in [0, 1): drawing doubles and rounding could give 1.0f.
  auto k = random_vector<int>(n, seed, 0, (1 << 24) - 1);
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = std::ldexp(static_cast<float>(k[i]), -24);
  return v;
}
template <>
std::vector<double> sum_input<double>(std::size_t n, std::uint64_t seed) {
  return random_vector<double>(n, seed, 0.0, 1.0);
}

std::vector<float> histogram_input(std::size_t n, std::uint64_t seed) { return sum_input<float>(n, seed); }

long long sum_reference(const int *x, std::size_t n) {
  long long s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

double sum_reference(const float *x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}

double sum_reference(const double *x, std::size_t n) {
  long double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return static_cast<double>(s);
}

std::vector<int> histogram_reference(const float *x, std::size_t n) {
  std::vector<int> h(::lesson6::hist_bins, 0);
  for (std::size_t i = 0; i < n; ++i) ++h[::lesson6::bin_of(x[i])];
  return h;
}

}  // namespace course::baseline::lesson6
