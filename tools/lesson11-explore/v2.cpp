#include "lesson11_gemm_shared.hpp"
namespace lesson11 { namespace {
#pragma omp begin declare target
constexpr int R = 16;
// fragments of step k+1 loaded before step k's multiply-adds
[[gnu::always_inline]] inline void mt2(float (&acc)[R][8], const GemmShape<R>::TileA &As, const GemmShape<R>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<R>;
  Vec4 a[2][R / 4], b[2][2];
#pragma omp unroll full
  for (int g = 0; g < R / 4; ++g) a[0][g] = As[0][g * S::TY + ty];
#pragma omp unroll full
  for (int g = 0; g < 2; ++g) b[0][g] = Bs[0][g * S::TX + tx];
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    const int cur = k % 2, nxt = 1 - cur;
    if (k + 1 < S::BK) {
#pragma omp unroll full
      for (int g = 0; g < R / 4; ++g) a[nxt][g] = As[k + 1][g * S::TY + ty];
#pragma omp unroll full
      for (int g = 0; g < 2; ++g) b[nxt][g] = Bs[k + 1][g * S::TX + tx];
    }
#pragma omp unroll full
    for (int r = 0; r < R; ++r)
#pragma omp unroll full
      for (int c = 0; c < S::RN; ++c) acc[r][c] += a[cur][r / 4].v[r % 4] * b[cur][c / 4].v[c % 4];
  }
}
#pragma omp end declare target
}
bool v2(int n, const float *A, const float *B, float *C) { return gemm_exact<16, mt2, true>(n, A, B, C); }
}
