// lesson10_profiling.cpp -- lesson 10's baselines: the slow pipeline exactly as
// the starter hands it out, so speedups compare the student's fixes with the
// program they started from, and double references for correctness.
#include "lesson10_profiling.hpp"

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>

namespace course::baseline {

namespace {
float row_weight(const float *coef, int r) {
  float w = 0.f;
  for (int k = 0; k < lesson10::coefs_per_row; ++k) w += coef[r * lesson10::coefs_per_row + k];
  return w;
}
}  // namespace

void l10_normalize_generic(int rows, int cols, const float *coef, const float *x, float *y) {
  const std::size_t n = (std::size_t)rows * cols;
  const int nc = rows * lesson10::coefs_per_row;
#pragma omp target teams distribute map(to : coef[0:nc], x[0:n]) map(from : y[0:n])
  for (int r = 0; r < rows; ++r) {
    float w = 0.f;
    for (int k = 0; k < lesson10::coefs_per_row; ++k) w += coef[r * lesson10::coefs_per_row + k];
    if (w == 0.f) {
#if !defined(__AMDGPU__)  // AMD: no device printf without ROCm's device library (Debian has none)
      printf("normalize: row %d has weight 0, left unscaled\n", r);
#endif
      w = 1.f;
    }
#pragma omp parallel for
    for (int c = 0; c < cols; ++c) y[(std::size_t)r * cols + c] = x[(std::size_t)r * cols + c] / w;
  }
}

void l10_blur_per_row(int rows, int cols, const float *in, float *out) {
  for (int r = 0; r < rows; ++r) {
    const float *src = in + (std::size_t)r * cols;
    float *dst = out + (std::size_t)r * cols;
#pragma omp target teams distribute parallel for map(to : src[0:cols]) map(from : dst[0:cols])
    for (int c = 0; c < cols; ++c)
      dst[c] = (src[c > 0 ? c - 1 : 0] + src[c] + src[c + 1 < cols ? c + 1 : cols - 1]) / 3.f;
  }
}

void l10_run_slow(int rows, int cols, int steps, const float *coef, float *grid) {
  const std::size_t n = (std::size_t)rows * cols;
  const int nc = rows * lesson10::coefs_per_row;
  std::vector<float> scratch(n);
  float *tmp = scratch.data();
  for (int s = 0; s < steps; ++s) {
#pragma omp target data map(tofrom : grid[0:n], tmp[0:n]) map(to : coef[0:nc])
    {
      l10_normalize_generic(rows, cols, coef, grid, tmp);
      l10_blur_per_row(rows, cols, tmp, grid);
    }
  }
}

std::vector<double> l10_normalize_reference(int rows, int cols, const float *coef, const float *x) {
  std::vector<double> y((std::size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    float w = row_weight(coef, r);
    if (w == 0.f) w = 1.f;
    for (int c = 0; c < cols; ++c) y[(std::size_t)r * cols + c] = (double)x[(std::size_t)r * cols + c] / w;
  }
  return y;
}

std::vector<double> l10_blur_reference(int rows, int cols, const double *in) {
  std::vector<double> out((std::size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    const double *src = in + (std::size_t)r * cols;
    for (int c = 0; c < cols; ++c)
      out[(std::size_t)r * cols + c] = (src[std::max(c - 1, 0)] + src[c] + src[std::min(c + 1, cols - 1)]) / 3.0;
  }
  return out;
}

std::vector<double> l10_run_reference(int rows, int cols, int steps, const float *coef, const float *grid) {
  std::vector<double> g(grid, grid + (std::size_t)rows * cols);
  for (int s = 0; s < steps; ++s) {
    for (int r = 0; r < rows; ++r) {
      float w = row_weight(coef, r);
      if (w == 0.f) w = 1.f;
      for (int c = 0; c < cols; ++c) g[(std::size_t)r * cols + c] /= w;
    }
    g = l10_blur_reference(rows, cols, g.data());
  }
  return g;
}

}  // namespace course::baseline
