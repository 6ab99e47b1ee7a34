#include "lesson11_gemm_shared.hpp"
namespace lesson11 { namespace {
#pragma omp begin declare target
constexpr int R = 16;
[[gnu::always_inline]] inline void mt(float (&acc)[R][8], const GemmShape<R>::TileA &As, const GemmShape<R>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<R>;
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    float a[R], b[S::RN];
#pragma omp unroll full
    for (int g = 0; g < R / 4; ++g) { const Vec4 v = As[k][g * S::TY + ty]; for (int l = 0; l < 4; ++l) a[4 * g + l] = v.v[l]; }
#pragma omp unroll full
    for (int g = 0; g < S::RN / 4; ++g) { const Vec4 v = Bs[k][g * S::TX + tx]; for (int l = 0; l < 4; ++l) b[4 * g + l] = v.v[l]; }
#pragma omp unroll full
    for (int r = 0; r < R; ++r)
#pragma omp unroll full
      for (int c = 0; c < S::RN; ++c) acc[r][c] += a[r] * b[c];
  }
}
#pragma omp end declare target
} 
bool v0(int n, const float *A, const float *B, float *C) { return gemm_exact<16, mt, true>(n, A, B, C); }
}
