// Lesson 11 -- matching the vendor, SGEMM: lesson 5's kernel (the team kernel
// is in reference/lesson11_gemm_shared.hpp), to be taken to about 90 % of cuBLAS. Like N-body it is
// limited by instructions: what is left is how many multiply-adds each
// team-local load feeds. One step, a marked block below:
//   11.4 multiply_tile: a taller register tile, more multiply-adds per load
// Run `ctest --preset student -L lesson11` from the repository root after the
// step (it rebuilds your code first); see README.md for hints.
#include "gemm.hpp"

namespace lesson11 {
namespace {

#pragma omp begin declare target

// Step 11.4: the register tile of the SGEMM kernel (`gemm`): how many rows
// of C each thread owns (columns: 8), and one k-tile's product for its block.
// The given kernel has copied the team's tiles into team-local memory: As
// transposed, As[k][v] holding rows 4v..4v+3 at depth k, and Bs[k][v]
// columns 4v..4v+3 (GemmShape and Vec4: reference/lesson11_gemm_shared.hpp).
// Thread (ty, tx) owns rows GemmShape<gemm_rows_per_thread>::row_of(ty, r)
// and columns ...::col_of(tx, c) of the team's C tile; acc holds its sums so
// far.
// SNIPPET(tile-16x8-head)
// SOLUTION(11.4): 16 rows, cuBLAS's shape (a 256 x 128 team tile): per k
// four Vec4 of A and two of B from team-local memory feed 128
// multiply-adds, where lesson 5's 8 x 8 tile gets 64 from four. Every index
// into acc is a constant once the loops are unrolled, so acc stays in
// registers (ptxas -v: 249 registers with the given kernel, none spilled;
// README, Concepts 8).
constexpr int gemm_rows_per_thread = 16;

[[gnu::always_inline]] inline void multiply_tile(float (&acc)[gemm_rows_per_thread][8],
                                                 const GemmShape<gemm_rows_per_thread>::TileA &As,
                                                 const GemmShape<gemm_rows_per_thread>::TileB &Bs, int ty, int tx) {
  using S = GemmShape<gemm_rows_per_thread>;
  // END SNIPPET
  // SNIPPET(tile-16x8-loop)
#pragma omp unroll full
  for (int k = 0; k < S::BK; ++k) {
    float a[gemm_rows_per_thread], b[S::RN];
#pragma omp unroll full
    for (int g = 0; g < gemm_rows_per_thread / 4; ++g) {
      const Vec4 v = As[k][g * S::TY + ty];
      for (int l = 0; l < 4; ++l) a[4 * g + l] = v.v[l];
    }
#pragma omp unroll full
    for (int g = 0; g < S::RN / 4; ++g) {
      const Vec4 v = Bs[k][g * S::TX + tx];
      for (int l = 0; l < 4; ++l) b[4 * g + l] = v.v[l];
    }
#pragma omp unroll full
    for (int r = 0; r < gemm_rows_per_thread; ++r)
#pragma omp unroll full
      for (int c = 0; c < S::RN; ++c) acc[r][c] += a[r] * b[c];
  }
}
// END SOLUTION
// END SNIPPET

#pragma omp end declare target

}  // namespace

// matmul() (given): the team kernel with your multiply_tile inside.
#include "gemm.inc"

}  // namespace lesson11
