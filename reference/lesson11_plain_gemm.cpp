// lesson11_plain_gemm.cpp -- lesson 11's baseline of step 11.4
// (lesson11_plain.hpp): lesson 5's 8 x 8 register tile in the team kernel of
// lesson11_gemm_shared.hpp, the same kernel as the student's gemm.cpp.
// One file per topic, as the student's: lesson11_plain.hpp says why.
#include "lesson11_plain.hpp"

namespace course::baseline::lesson11 {
namespace {

using ::lesson11::GemmShape;
using ::lesson11::Vec4;

#pragma omp begin declare target

// The starter's product for lesson 5's 8 x 8 tile: the baseline's.
[[gnu::always_inline]] inline void plain_multiply_tile(float (&acc)[8][8], const GemmShape<8>::TileA &As,
                                                       const GemmShape<8>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<8>;
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    const Vec4 a0 = As[k][ty], a1 = As[k][S::TY + ty], b0 = Bs[k][tx], b1 = Bs[k][S::TX + tx];
    const float a[8] = {a0.v[0], a0.v[1], a0.v[2], a0.v[3], a1.v[0], a1.v[1], a1.v[2], a1.v[3]};
    const float b[8] = {b0.v[0], b0.v[1], b0.v[2], b0.v[3], b1.v[0], b1.v[1], b1.v[2], b1.v[3]};
#pragma omp unroll full
    for (int r = 0; r < 8; ++r)
#pragma omp unroll full
      for (int c = 0; c < 8; ++c) acc[r][c] += a[r] * b[c];
  }
}

#pragma omp end declare target

}  // namespace

void plain_matmul(int n, const float *A, const float *B, float *C) {
  ::lesson11::gemm<8, plain_multiply_tile>(n, A, B, C);
}

}  // namespace course::baseline::lesson11
