// matmul.cpp -- matmul baselines and the double-precision reference.
#include "baselines.hpp"

#include "course/data.hpp"

#include <cstddef>
#include <cstdio>

namespace course::baseline {

void matmul_serial(int n, const float *A, const float *B, float *C) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
}

void matmul_serial_ikj(int n, const float *A, const float *B, float *C) {
  for (std::size_t e = 0; e < (std::size_t)n * n; ++e) C[e] = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const float a = A[(std::size_t)i * n + k];
      for (int j = 0; j < n; ++j) C[(std::size_t)i * n + j] += a * B[(std::size_t)k * n + j];
    }
}

void matmul_serial_ikj_scalar(int n, const float *A, const float *B, float *C) {
  for (std::size_t e = 0; e < (std::size_t)n * n; ++e) C[e] = 0;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const float a = A[(std::size_t)i * n + k];
#pragma clang loop vectorize(disable) interleave(disable)
      for (int j = 0; j < n; ++j) C[(std::size_t)i * n + j] += a * B[(std::size_t)k * n + j];
    }
}

void matmul_parallel_ijk(int n, const float *A, const float *B, float *C) {
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
}

void matmul_naive_offload(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = (std::size_t)n * n;
#pragma omp target teams distribute parallel for collapse(2) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += A[(std::size_t)i * n + k] * B[(std::size_t)k * n + j];
      C[(std::size_t)i * n + j] = sum;
    }
}

std::vector<double> matmul_reference(int n, const float *A, const float *B) {
  std::vector<double> C((std::size_t)n * n, 0.0);
  // i-k-j in double: fast enough for the test sizes, and exact enough to judge float results.
#pragma omp parallel for
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double a = A[(std::size_t)i * n + k];
      for (int j = 0; j < n; ++j) C[(std::size_t)i * n + j] += a * B[(std::size_t)k * n + j];
    }
  return C;
}

MatmulProblem matmul_problem(int n) {
  const std::size_t nn = (std::size_t)n * n;
  MatmulProblem p;
  p.A = course::random_vector<float>(nn, course::default_seed, -1.f, 1.f);
  p.B = course::random_vector<float>(nn, course::default_seed + 1, -1.f, 1.f);
  std::printf("computing the double-precision reference for n = %d...\n", n);
  p.ref = matmul_reference(n, p.A.data(), p.B.data());
  p.size = std::to_string(n) + "x" + std::to_string(n);
  return p;
}

}  // namespace course::baseline
