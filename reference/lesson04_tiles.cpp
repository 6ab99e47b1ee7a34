// lesson04_tiles.cpp -- the baseline of lesson 4's step 4.2 (see lesson04_tiles.hpp).
#include "lesson04_tiles.hpp"

#include <algorithm>
#include <cstddef>

namespace course::baseline {
namespace {

using lesson4::lanes;
constexpr int TM = lesson4::graded_tm, TN = lesson4::graded_tn;

// The loops over the tile stay loops (the compiler may not unroll them), so
// a, b and c are indexed at run time and live in memory: lesson 4's kernel
// without step 4.2 at its slowest (left to itself, clang unrolls some of
// them some of the time).
void tile(int n, int i0, int j0, const float *A, const float *B, float *C) {
  const float *a_row[TM];
  int col[TN];
  for (int m = 0; m < TM; ++m) a_row[m] = A + (std::size_t)std::min(i0 + m, n - 1) * n;
  for (int t = 0; t < TN; ++t) col[t] = std::min(j0 + t * lanes, n - 1);
  float c[TM][TN] = {};
  for (int k = 0; k < n; ++k) {
    const float *b_row = B + (std::size_t)k * n;
    float a[TM], b[TN];
#pragma clang loop unroll(disable)
    for (int m = 0; m < TM; ++m) a[m] = a_row[m][k];
#pragma clang loop unroll(disable)
    for (int t = 0; t < TN; ++t) b[t] = b_row[col[t]];
#pragma clang loop unroll(disable)
    for (int m = 0; m < TM; ++m)
#pragma clang loop unroll(disable)
      for (int t = 0; t < TN; ++t) c[m][t] += a[m] * b[t];
  }
  for (int m = 0; m < TM; ++m)
    for (int t = 0; t < TN; ++t)
      if (i0 + m < n && j0 + t * lanes < n) C[(std::size_t)(i0 + m) * n + j0 + t * lanes] = c[m][t];
}

}  // namespace

void matmul_tile8_rolled(int n, const float *A, const float *B, float *C) {
  const std::size_t nn = (std::size_t)n * n;
  const int tiles_i = (n + TM - 1) / TM;
  const int tiles_j = (n + lanes * TN - 1) / (lanes * TN) * lanes;
#pragma omp target teams distribute parallel for collapse(2) map(to : A[0:nn], B[0:nn]) map(from : C[0:nn])
  for (int ti = 0; ti < tiles_i; ++ti)
    for (int tj = 0; tj < tiles_j; ++tj)
      tile(n, ti * TM, tj / lanes * (lanes * TN) + tj % lanes, A, B, C);
}

}  // namespace course::baseline
