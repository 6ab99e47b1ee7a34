// lesson03_simd.cpp -- lesson 3's baselines (device loops without simd) and
// double references. No `simd` here on purpose: these are what the lesson's
// kernels are measured against, on every device.
#include "lesson03_simd.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace course::baseline {

float norm_no_simd(int n, const float *x) {
  float sum = 0;
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : x[0:n])
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return std::sqrt(sum);
}

void soft_clip_double(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] / std::sqrt(1.0 + x[i] * x[i]));
}

Grant bounded_grant(int n, int teams, int threads) {
  int T = 0, G = 0;
#pragma omp target teams distribute parallel for num_teams(teams) thread_limit(threads) reduction(max : T, G)
  for (int i = 0; i < n; ++i) {
    T = std::max(T, omp_get_num_teams());
    G = std::max(G, omp_get_num_threads());
  }
  return {T, G};
}

double norm_reference(int n, const float *x) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return std::sqrt(sum);
}

std::vector<double> soft_clip_reference(int n, const float *x) {
  std::vector<double> y(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double v = x[i];
    y[static_cast<std::size_t>(i)] = v / std::sqrt(1.0 + v * v);
  }
  return y;
}

}  // namespace course::baseline
