// vendor_sgemm.hpp -- what the two vendor-SGEMM ceiling programs share
// beyond report/vendor.hpp: course_sgemm (cuBLAS, on NVIDIA; built by CMake
// or with nvcc on a GPU node) and course_blas_sgemm (OpenBLAS on the host
// CPU). Each times a library's plain FP32 C = A x B at the sizes the lessons
// use and verifies a sample of C against double-precision dot products.
#pragma once

#include <cmath>
#include <random>

#include "vendor.hpp"

namespace vendor_sgemm {

using vendor::median;
using vendor::Options;
using vendor::Preset;
using vendor::write_csv;

inline Options parse(int argc, char **argv, const char *prog, const char *about, const std::vector<Preset> &presets,
                     const Preset &defaults) {
  return vendor::parse(argc, argv, vendor::Spec{prog, about, "matrix sizes", 32768, presets, defaults});
}

/// Row-major A and B of n x n with values in [-1, 1), a fixed seed.
inline void random_matrices(long long n, std::vector<float> &A, std::vector<float> &B) {
  const std::size_t nn = (std::size_t)n * (std::size_t)n;
  A.resize(nn);
  B.resize(nn);
  std::mt19937 gen(20261121);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto &x : A) x = d(gen);
  for (auto &x : B) x = d(gen);
}

/// Checks 64 elements of row-major C = A x B against double dot products,
/// within the worst-case FP32 summation bound. Returns the worst relative error
/// (negative when an element is outside the bound or not finite).
inline double verify(long long n, const std::vector<float> &A, const std::vector<float> &B,
                     const std::vector<float> &C) {
  double worst = 0;
  bool ok = true;
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = (std::size_t)((s * 7919LL) % n), j = (std::size_t)((s * 104729LL) % n);
    const std::size_t nz = (std::size_t)n;
    double ref = 0, mag = 0;
    for (std::size_t k = 0; k < nz; ++k) {
      ref += (double)A[i * nz + k] * B[k * nz + j];
      mag += std::fabs((double)A[i * nz + k] * B[k * nz + j]);
    }
    const float got = C[i * nz + j];
    const double err = std::fabs(got - ref) / (mag > 0 ? mag : 1);
    worst = std::max(worst, err);
    ok = ok && std::isfinite(got) && err <= 2.0 * (double)n * std::ldexp(1.0, -24);
  }
  return ok ? worst : -1;
}

/// One SGEMM ceiling row: n x n, 2 n^3 flops.
inline std::string csv_row(const std::string &ceiling, long long n, double ms, double gflops, bool ok,
                           const std::string &note) {
  return vendor::row(ceiling, "ceiling", std::to_string(n) + "x" + std::to_string(n), ms, gflops, "GFLOP/s", 0,
                     2.0 * (double)n * (double)n * (double)n, ok, note);
}

}  // namespace vendor_sgemm
